/** When a session has settled: every readable replay checked against every readable receipt, at their versions now. */
import { describe, expect, it } from "vitest";
import type { FileRecord } from "../../../shared/pipeline/ports.js";
import { settlementOf } from "../../../shared/pipeline/settlement.js";
import { checkRecord, fileRecord } from "../../support/index-records.js";

const receiptOf = (file: string, etag = "r1"): FileRecord => ({
  ...fileRecord("t", "s", file, { etag }),
  kind: "receipt",
  format: null,
});

describe("settlementOf", () => {
  const replays = Array.from({ length: 3 }, (_, n) => fileRecord("t", "s", `R${n}.jsonl`));
  const receipt = receiptOf("RECEIPT.json");

  it("is settled with no receipt, and with every pair checked", () => {
    expect(settlementOf(replays, [])).toMatchObject({ settled: true, expected: 0, recorded: 0 });
    const checks = replays.map((r) => checkRecord(r, receipt.ref));
    expect(settlementOf([...replays, receipt], checks)).toMatchObject({
      settled: true,
      expected: 3,
      recorded: 3,
    });
  });

  it("is not settled while a pair has no check; a check recorded twice counts once", () => {
    const checks = replays.slice(0, 2).map((r) => checkRecord(r, receipt.ref));
    const first = checks[0] as (typeof checks)[number];
    const s = settlementOf([...replays, receipt], [...checks, first]);
    expect(s).toMatchObject({ settled: false, expected: 3, recorded: 2 });
  });

  it("counts only checks of the versions recorded now: an older replay's or receipt's check is not one", () => {
    const newer = fileRecord("t", "s", "R0.jsonl", { etag: "e2", sequencer: "0B" });
    const files = [newer, ...replays.slice(1), receipt];
    const checks = replays.map((r) => checkRecord(r, receipt.ref));
    const s = settlementOf(files, checks);
    expect(s).toMatchObject({ settled: false, expected: 3, recorded: 2 });
    expect(s.current.map((c) => c.replay.key)).not.toContain(newer.ref.key);
    const oldReceipt = settlementOf([...replays, receiptOf("RECEIPT.json", "r2")], checks);
    expect(oldReceipt).toMatchObject({ settled: false, recorded: 0, current: [] });
  });

  it("leaves invalid replays and receipts out: nothing checks them", () => {
    const invalid: FileRecord = { ...fileRecord("t", "s", "BAD.jsonl"), verdict: "invalid" };
    const badReceipt: FileRecord = { ...receiptOf("B.RECEIPT.json"), verdict: "invalid" };
    const checks = replays.map((r) => checkRecord(r, receipt.ref));
    expect(settlementOf([...replays, invalid, receipt, badReceipt], checks)).toMatchObject({
      settled: true,
      expected: 3,
    });
  });
});
