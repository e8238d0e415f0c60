import { describe, expect, it } from "vitest";
import { isSha256Tag, SHA256_TAG } from "#shared/canonical/index.js";
import { RecentTexts } from "#shared/canonical/recent-texts.js";

describe("RecentTexts", () => {
  it("gives the bytes' text, the same string again for the same bytes, whatever the key", () => {
    const texts = new RecentTexts();
    const a = Buffer.from('x"ToolCall"y');
    const first = texts.text(a, 2, 10, 7);
    expect(first).toBe("ToolCall");
    expect(texts.text(Buffer.from("ToolCall"), 0, 8, 7)).toBe(first);
    // Other bytes under the same key and length: their own text, never the cached one.
    expect(texts.text(Buffer.from("ToolCalk"), 0, 8, 7)).toBe("ToolCalk");
    expect(texts.text(Buffer.from("Tool"), 0, 4, 7)).toBe("Tool");
    expect(texts.text(Buffer.from("ToolCall"), 0, 8, 12345)).toBe("ToolCall");
  });

  it("decodes non-ASCII text every time, never mistaking it for a cached ASCII one", () => {
    const texts = new RecentTexts();
    const e = Buffer.from("é");
    expect(texts.text(Buffer.from("\u00c3\u00a9", "latin1"), 0, 2, 1)).toBe("é");
    expect(texts.text(e, 0, e.length, 1)).toBe("é");
    // "Ã©" as UTF-8 is 4 bytes; its two code units must not match the 2-byte "é".
    const mojibake = Buffer.from("Ã©");
    expect(texts.text(mojibake, 0, mojibake.length, 1)).toBe("Ã©");
  });
});

describe("isSha256Tag", () => {
  it("answers as SHA256_TAG does", () => {
    const hex = "0123456789abcdef".repeat(4);
    const cases = [
      `sha256:${hex}`,
      `sha256:${hex}0`,
      `sha256:${hex.slice(1)}`,
      `sha256:${hex.slice(1)}A`,
      `sha256:${hex.slice(1)}g`,
      `sha256:${hex.slice(1)}/`,
      `sha256:${hex.slice(1)}:`,
      `sha256:${hex.slice(1)}\``,
      `sha256:${hex.slice(1)}é`,
      `sha257:${hex}`,
      `SHA256:${hex}`,
      `md5:${hex}xxx`,
      "sha256:unknown",
      "",
    ];
    for (const text of cases) expect([text, isSha256Tag(text)]).toEqual([text, SHA256_TAG.test(text)]);
  });
});
