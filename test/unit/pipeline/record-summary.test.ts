/**
 * A file record's summary within its byte budget: a DynamoDB item holds 400 KB, and a summary's
 * lists grow with the file.
 */
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../shared/formats/index.js";
import { emptySummary } from "../../../shared/formats/types.js";
import {
  OTHER_STEP_TYPES,
  RECORD_SUMMARY_BYTES,
  recordSummary,
} from "../../../shared/pipeline/record-summary.js";

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

function summaryWith(fill: (s: SessionSummary) => void): SessionSummary {
  const summary = emptySummary("replay-v1");
  summary.session_id = "s-1";
  fill(summary);
  return summary;
}

describe("recordSummary", () => {
  it("keeps a summary that fits as it is", () => {
    const summary = summaryWith((s) => {
      s.verification.push({ command: "npm test", exit_code: 0 });
      s.counts.steps_by_type = { ToolCall: 3, ToolResult: 3 };
    });
    const kept = recordSummary(summary);
    expect(kept.truncated).toBe(false);
    expect(kept.summary).toBe(summary);
  });

  it("cuts 30,000 verification entries to what fits, the first ones in order, commands shortened", () => {
    const summary = summaryWith((s) => {
      for (let k = 0; k < 30_000; k++)
        s.verification.push({
          command: `cargo test case-${k} ${"x".repeat(k % 7 === 0 ? 2000 : 40)}`,
          exit_code: k % 3,
        });
    });
    expect(bytes(summary)).toBeGreaterThan(400 * 1024);
    const { summary: cut, truncated } = recordSummary(summary);
    expect(truncated).toBe(true);
    expect(bytes(cut)).toBeLessThanOrEqual(RECORD_SUMMARY_BYTES);
    expect(cut.verification.length).toBeGreaterThan(100);
    cut.verification.forEach((v, k) => {
      expect(v.exit_code).toBe(k % 3);
      expect(v.command.startsWith(`cargo test case-${k} `)).toBe(true);
      expect(v.command.length).toBeLessThanOrEqual(513);
    });
    expect(summary.verification).toHaveLength(30_000);
  });

  it("counts event types past the first 64 together, so the counts still add up", () => {
    const summary = summaryWith((s) => {
      for (let k = 0; k < 5_000; k++) s.counts.steps_by_type[`Type${k}${"y".repeat(300)}`] = k + 1;
    });
    const { summary: cut, truncated } = recordSummary(summary);
    expect(truncated).toBe(true);
    expect(bytes(cut)).toBeLessThanOrEqual(RECORD_SUMMARY_BYTES);
    const counts = cut.counts.steps_by_type;
    expect(Object.keys(counts)).toHaveLength(65);
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    expect(total(counts)).toBe(total(summary.counts.steps_by_type));
    expect(counts[OTHER_STEP_TYPES]).toBe(total(summary.counts.steps_by_type) - (64 * 65) / 2);
  });

  it("shortens long texts and turns, keeping a pair of surrogates whole", () => {
    const summary = summaryWith((s) => {
      s.producer = `${"p".repeat(255)}😀${"p".repeat(10_000)}`;
      s.turns = Array.from({ length: 500 }, (_, k) => ({
        turn_number: k + 1,
        span_id: `span-${k}`,
        user_input: "u".repeat(5_000),
        assistant_output: "a".repeat(5_000),
        tool_calls: [{ name: "bash", span_id: `t-${k}` }],
        timestamp: null,
        response_id: null,
        previous_response_id: null,
      }));
      for (let k = 0; k < 2_000; k++) s.verification.push({ command: `make check-${k}`, exit_code: 0 });
    });
    const { summary: cut } = recordSummary(summary);
    expect(bytes(cut)).toBeLessThanOrEqual(RECORD_SUMMARY_BYTES);
    expect(cut.producer).toBe(`${"p".repeat(255)}…`);
    expect(cut.turns?.length).toBeGreaterThan(10);
    expect(cut.turns?.[0]?.user_input).toHaveLength(513);
    expect(cut.verification.length).toBeGreaterThan(100);
  });
});
