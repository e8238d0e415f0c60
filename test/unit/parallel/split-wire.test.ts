/**
 * The split lines' wire form (`SplitWire` on a worker, `splitsFromWire` on the reading thread)
 * against `splitLine` on the reading thread: the same event objects (member order, exact number
 * texts, lazy containers emptied) and hashes for any object line, declined lines as null, across
 * the 64-line texts a batch is cut into; and `splitLine` against the lossless reader.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  decodeUtf8,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  readJson,
  type SplitLine,
  SplitView,
  splitInto,
  splitLine,
} from "#shared/canonical/index.js";
import { SplitWire, splitsFromWire } from "#shared/parallel/index.js";

const LAZY: ReadonlySet<string> = new Set(["params", "output"]);

/** An event-like line: lazy members, numbers and containers beside them, in any order. */
const line = fc
  .tuple(
    fc.dictionary(fc.constantFrom("params", "output", "type", "n", "__proto__", "2", "é"), fc.jsonValue(), {
      minKeys: 1,
    }),
    fc.dictionary(fc.string(), fc.jsonValue()),
    fc.boolean(),
  )
  .map(([known, other, spaced]) =>
    JSON.stringify({ ...other, ...known }, null, spaced ? 1 : undefined).replaceAll("\n", " "),
  );

/** Numbers in forms `JSON.parse` would not keep, and lines the fast read declines. */
const EDGES = [
  '{"n":1.50,"big":12345678901234567890,"neg":-0.0,"e":1E+5,"a":[1.0,{"x":2.50}],"params":{"p":1}}',
  '{"nested":{"deep":[{"n":0.10}]},"s":"q\\"uote\\\\ \\u00e9 \\ud83d\\ude00","output":[1,2]}',
  '{"params":"a lazy scalar","output":7,"o":{}}',
  '{"__proto__":{"x":1},"2":3,"10":4,"params":[]}',
  "not json",
  '["not an object"]',
  '{"a":1,"a":2}',
  "{}",
];

/** The wire's lines for `lines`, each split on this thread into one `SplitWire`. */
function throughWire(lines: readonly string[]): (SplitLine | null)[] {
  const wire = new SplitWire(LAZY);
  const view = new SplitView();
  for (const text of lines) wire.add(splitInto(Buffer.from(text), LAZY, view) ? view : null);
  const texts = wire.take();
  expect(texts.ends.length).toBe(Math.ceil(lines.length / 64));
  return [...splitsFromWire(texts)];
}

describe("SplitWire", () => {
  it("gives splitLine's objects and hashes for every line, across texts of 64 lines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(line, fc.constantFrom(...EDGES)), { minLength: 1, maxLength: 200 }),
        (lines) => {
          const got = throughWire(lines);
          expect(got).toHaveLength(lines.length);
          lines.forEach((text, k) => {
            expect(got[k], text).toEqual(splitLine(Buffer.from(text), LAZY) ?? null);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keeps every number's text and the members' order", () => {
    const [first] = throughWire([EDGES[0] as string]);
    const value = (first as SplitLine).value;
    expect(Object.keys(value)).toEqual(["a", "big", "e", "n", "neg", "params"]);
    expect(value.big).toEqual(new JsonNumber("12345678901234567890"));
    expect(value.n).toEqual(new JsonNumber("1.5"));
    expect(value.a).toEqual([new JsonNumber("1.0"), { x: new JsonNumber("2.5") }]);
    expect(value.params).toEqual({});
  });

  it("starts afresh after take", () => {
    const wire = new SplitWire(LAZY);
    expect(wire.take()).toEqual({ text: "", ends: [] });
    const view = new SplitView();
    wire.add(splitInto(Buffer.from('{"n":1}'), LAZY, view) ? view : null);
    expect([...splitsFromWire(wire.take())]).toEqual([{ value: { n: new JsonNumber("1") }, hashes: {} }]);
    expect(wire.take()).toEqual({ text: "", ends: [] });
  });
});

describe("splitLine", () => {
  it("reads what the lossless reader reads, lazy containers emptied and hashed", () => {
    fc.assert(
      fc.property(line, (text) => {
        const split = splitLine(Buffer.from(text), LAZY);
        if (split === undefined) return;
        const read = readJson(decodeUtf8(Buffer.from(text))) as JsonObject;
        for (const key of LAZY) {
          const v = read[key];
          if (v === undefined) continue;
          expect(split.hashes[key]).toBe(canonicalHash(v, "openagents"));
          if (isJsonObject(v)) read[key] = {};
          else if (Array.isArray(v)) read[key] = [];
        }
        // Numbers compare by value: the split keeps canonical texts, the reader the line's.
        const plain = (v: JsonValue): unknown => JSON.parse(JSON.stringify(v));
        expect(plain(split.value)).toEqual(plain(read));
        expect(Object.keys(split.value).sort()).toEqual(Object.keys(read).sort());
      }),
      { numRuns: 200 },
    );
  });
});
