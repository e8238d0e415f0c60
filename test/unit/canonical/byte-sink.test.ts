/** `ByteSink`'s text helpers: UTF-8 appended, UTF-16 lengths of written bytes, and clearing. */
import { describe, expect, it } from "vitest";
import { ByteSink } from "#shared/canonical/index.js";

describe("ByteSink", () => {
  it("appends text as UTF-8 and gives the UTF-16 length of any range on character bounds", () => {
    const sink = new ByteSink(1);
    const parts = ["plain", "é日本", "😀 and \u2028", ""];
    const bounds = [0];
    for (const part of parts) {
      sink.appendText(part);
      bounds.push(sink.len);
    }
    expect(sink.view().toString("utf8")).toBe(parts.join(""));
    parts.forEach((part, k) => {
      expect(sink.utf16Length(bounds[k] as number, bounds[k + 1] as number)).toBe(part.length);
    });
  });

  it("clears to empty, dropping only a buffer grown past 16 MiB", () => {
    const sink = new ByteSink(16);
    sink.appendText("abc");
    const small = sink.buf;
    sink.clear();
    expect(sink.len).toBe(0);
    expect(sink.buf).toBe(small);
    sink.reserve((1 << 24) + 1);
    sink.clear();
    expect(sink.buf.length).toBe(1 << 16);
  });
});
