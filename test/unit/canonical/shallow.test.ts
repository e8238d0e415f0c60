/**
 * `readSplit` gives the object a split line reads as, members in the line's own order, from the
 * canonical members alone; here for lines of more top-level members than its insertion sort takes
 * (the engine's sort orders them past 32), compared with the lossless reader.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/json-reader.js";
import { readSplit, SplitView, splitInto } from "#shared/canonical/shallow.js";

describe("readSplit on a line of many top-level members", () => {
  it("keeps the line's member order, as readJson does", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,8}$/), { minLength: 20, maxLength: 90 }),
        (keys) => {
          const line = `{${keys.map((k, i) => `${JSON.stringify(k)}:${i % 2 === 0 ? `"v${i}"` : i}`).join(",")}}`;
          const view = new SplitView();
          expect(splitInto(Buffer.from(line), new Set(), view)).toBe(true);
          const read = readSplit(view, new Set());
          const lossless = readJson(line);
          expect(read).toEqual(lossless);
          expect(Object.keys(read ?? {})).toEqual(keys);
        },
      ),
      { numRuns: 60, seed: 20_261_127 },
    );
  });
});
