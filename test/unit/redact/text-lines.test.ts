/** The lines of a transcript (`shared/redact/text-lines.ts`): raw and escaped breaks alike. */
import { describe, expect, it } from "vitest";
import { linesOf, nextLineStart, startsLine } from "#shared/redact/text-lines.js";

describe("text lines", () => {
  it("splits at raw and escaped breaks, CRLF as one", () => {
    const text = "a\r\nbb\\ncc\\r\\nd";
    expect(linesOf(text).map((l) => text.slice(l.start, l.end))).toEqual(["a", "bb", "cc", "d"]);
    expect(linesOf("")).toEqual([{ start: 0, end: 0 }]);
  });

  it("finds the next line's start, or the end", () => {
    expect(nextLineStart("ab\ncd", 0)).toBe(3);
    expect(nextLineStart("ab\\ncd\nx", 0)).toBe(4);
    expect(nextLineStart("ab\\ncd\nx", 4)).toBe(7);
    expect(nextLineStart("abc", 1)).toBe(3);
  });

  it("tells a place only blanks separate from its line's start", () => {
    expect(startsLine("  x", 2)).toBe(true);
    expect(startsLine("a\n\t x", 4)).toBe(true);
    expect(startsLine("a\\n x", 4)).toBe(true);
    expect(startsLine("a x", 2)).toBe(false);
  });
});
