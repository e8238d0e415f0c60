/**
 * The needle lists of the rules' pre-checks (`NeedleLists`): one pass over a text must say what
 * a search per needle says, whatever the needles share (prefixes, a first character, one
 * character, characters past ASCII).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NeedleLists } from "#shared/redact/needles.js";

const LISTS: readonly (readonly string[] | undefined)[] = [
  ["sk-", "sk-ant-", "sk_"],
  ["-"],
  undefined,
  [],
  ["ab", "abc", "bca"],
  ["é:", "x€y"],
  ["://", ":::"],
  ["sk-"],
  // Pairs past ASCII (hashed to shared slots) and needles of two beside longer ones of their pair.
  ["€y", "é€:", "密码", "码:", "码"],
  ["ka", "kab", "ab:"],
];

/** Texts over the needles' characters, so that needles occur, overlap and almost occur. */
const text = fc
  .array(
    fc.constantFrom(
      "s",
      "k",
      "-",
      "_",
      "a",
      "n",
      "t",
      "b",
      "c",
      "é",
      ":",
      "/",
      "x",
      "€",
      "y",
      " ",
      "密",
      "码",
    ),
    {
      maxLength: 60,
    },
  )
  .map((cs) => cs.join(""));

describe("NeedleLists", () => {
  it("says of every list what a search for each of its needles says", () => {
    const needles = new NeedleLists(LISTS);
    fc.assert(
      fc.property(text, (t) => {
        const mark = needles.find(t);
        LISTS.forEach((list, k) => {
          expect(needles.has(k)).toBe(list !== undefined);
          expect(needles.holds(mark, k)).toBe(list === undefined || list.some((n) => t.includes(n)));
        });
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the latest text only", () => {
    const needles = new NeedleLists(LISTS);
    expect(needles.holds(needles.find("xx sk-ant-1 yy"), 0)).toBe(true);
    const mark = needles.find("nothing here");
    expect(needles.holds(mark, 0)).toBe(false);
    expect(needles.holds(mark, 6)).toBe(false);
    expect(needles.holds(needles.find("a"), 4)).toBe(false);
    expect(needles.holds(needles.find("https://x"), 6)).toBe(true);
  });
});
