/**
 * `cutsOfSplit` (Layer C's cuts taken from a line `splitLine` read) against `rawContainers` (its
 * own scan): the same cuts, names and numbers on any object line, and the canonical bytes of each
 * cut value in the split's buffer; plus where `canonicalizeBytes` says each value is in the input.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalizeBytes, type TopLevelMembers } from "#shared/canonical/byte-canonical.js";
import {
  ByteCanonicalizer,
  ByteSink,
  cutsOfSplit,
  type RawCuts,
  rawContainers,
  SplitView,
  splitLine,
} from "#shared/canonical/index.js";

const CUT: ReadonlyMap<string, Buffer> = new Map(
  ["params", "output", "input", "payload"].map((k) => [k, Buffer.from(`"${k}_hash"`)]),
);

const emptyCuts = (): RawCuts => ({ keys: [], starts: [], ends: [], canonical: [], names: 0, numbers: [] });

/** An event-like object: some cut members, some others, in any order, with whitespace. */
const line = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom("params", "output", "input", "type", "ts", "n", "payload_hash"),
      fc.jsonValue(),
      {
        minKeys: 1,
      },
    ),
    fc.dictionary(fc.string(), fc.jsonValue()),
    fc.boolean(),
  )
  .map(([known, other, spaced]) =>
    JSON.stringify({ ...other, ...known }, null, spaced ? 1 : undefined).replaceAll("\n", " "),
  );

describe("cutsOfSplit", () => {
  it("gives rawContainers' cuts, names and numbers, with the cut values' canonical bytes", () => {
    fc.assert(
      fc.property(line, (text) => {
        const bytes = Buffer.from(text);
        const view = new SplitView();
        if (splitLine(bytes, new Set(["params"]), view) === undefined) return;
        const scanned = emptyCuts();
        const sink = new ByteSink(16);
        expect(rawContainers(bytes, scanned, sink, CUT, new ByteCanonicalizer())).toBe(true);
        const taken = emptyCuts();
        expect(cutsOfSplit(bytes, view, taken, CUT)).toBe(true);
        const { canonical: _a, ...scannedRest } = scanned;
        const { canonical: _b, ...takenRest } = taken;
        expect(takenRest).toEqual(scannedRest);
        taken.keys.forEach((_, c) => {
          const alone = new ByteSink(16);
          expect(
            new ByteCanonicalizer().valueAt(bytes, taken.starts[c] as number, "openagents", alone),
          ).toBeGreaterThan(0);
          const from = taken.canonical[2 * c] as number;
          const to = taken.canonical[2 * c + 1] as number;
          expect(view.buf.subarray(from, to).toString()).toBe(alone.view().toString());
        });
      }),
      { numRuns: 400 },
    );
  });
});

describe("canonicalizeBytes source spans", () => {
  it("says where each top-level value is in the input (whitespace after it included)", () => {
    const text = '{ "b" : [1, 2] , "a":"x" ,"c" : {"z":1,"y":2} }';
    const members: Required<TopLevelMembers> = {
      keys: [],
      starts: [],
      ends: [],
      sourceStarts: [],
      sourceEnds: [],
    };
    expect(canonicalizeBytes(Buffer.from(text), "openagents", new ByteSink(8), { members })).toBe(true);
    expect(members.keys).toEqual(["a", "b", "c"]);
    const spans = members.keys.map((_, k) => text.slice(members.sourceStarts[k], members.sourceEnds[k]));
    expect(spans).toEqual(['"x" ', "[1, 2] ", '{"z":1,"y":2} ']);
  });
});
