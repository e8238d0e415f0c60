/** The texts an index record keeps: cut to a bound, marked, never between the halves of a pair. */
import { describe, expect, it } from "vitest";
import type { CheckRow } from "../../../shared/formats/types.js";
import {
  cutText,
  RECORD_MESSAGE_CHARS,
  RECORD_ROW_CHARS,
  RECORD_ROWS,
  recordError,
  recordRows,
} from "../../../shared/pipeline/record-bounds.js";

describe("record bounds", () => {
  it("cuts a text at the bound and marks it; a short one is kept as it is", () => {
    expect(cutText("abc", 3)).toBe("abc");
    expect(cutText("abcd", 3)).toBe("abc\u2026");
    // A pair across the bound is dropped whole, not split.
    expect(cutText("ab\u{1F600}", 3)).toBe("ab\u2026");
  });

  it("cuts an error's message and code, keeps its line", () => {
    const cut = recordError({ code: "c".repeat(1000), message: "m".repeat(100_000), line: 7 });
    expect(cut?.message).toHaveLength(RECORD_MESSAGE_CHARS + 1);
    expect(cut?.code).toHaveLength(RECORD_ROW_CHARS + 1);
    expect(cut?.line).toBe(7);
    expect(recordError(null)).toBeNull();
  });

  it("keeps the first rows, each text cut, nulls and statuses as they were", () => {
    const long = "x".repeat(10_000);
    const rows: CheckRow[] = Array.from({ length: 300 }, (_, k) => ({
      check: `check-${k}`,
      subject: long,
      expected: k % 2 === 0 ? null : long,
      actual: "short",
      status: "failed",
    }));
    const kept = recordRows(rows);
    expect(kept).toHaveLength(RECORD_ROWS);
    expect(kept.map((r) => r.check)).toEqual(rows.slice(0, RECORD_ROWS).map((r) => r.check));
    expect(kept[0]).toEqual({
      check: "check-0",
      subject: `${"x".repeat(RECORD_ROW_CHARS)}\u2026`,
      expected: null,
      actual: "short",
      status: "failed",
    });
    expect(kept[1]?.expected).toHaveLength(RECORD_ROW_CHARS + 1);
  });
});
