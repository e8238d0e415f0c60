import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ByteSink,
  canonicalize,
  canonicalizeBytes,
  readJson,
  type TopLevelMembers,
} from "../../../shared/canonical/index.js";

describe("canonicalizeBytes with top-level member spans", () => {
  it("records each member's canonical value, keys in code-point order", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "grapheme" }), fc.jsonValue(), { minKeys: 1 }),
        (object) => {
          const text = JSON.stringify(object);
          const sink = new ByteSink(8);
          const members: TopLevelMembers = { keys: [], starts: [], ends: [] };
          expect(canonicalizeBytes(Buffer.from(text), "openagents", sink, 512, members)).toBe(true);
          const value = readJson(text) as Record<string, ReturnType<typeof readJson>>;
          const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          expect(members.keys).toEqual(keys);
          members.keys.forEach((key, k) => {
            const bytes = sink.buf.subarray(members.starts[k], members.ends[k]).toString("utf8");
            expect(bytes).toBe(canonicalize(value[key] ?? null, "openagents"));
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("leaves members empty for a non-object document and reports duplicates by failing", () => {
    const members: TopLevelMembers = { keys: ["stale"], starts: [1], ends: [2] };
    expect(canonicalizeBytes(Buffer.from("[1,2]"), "openagents", new ByteSink(4), 512, members)).toBe(true);
    expect(members.keys).toEqual([]);
    expect(canonicalizeBytes(Buffer.from('{"a":1,"a":2}'), "openagents", new ByteSink(4), 512, members)).toBe(
      false,
    );
  });
});
