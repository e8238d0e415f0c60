/** A seeded day of index records with known counts, for the audit report tests. */
import type { CheckRow } from "../../shared/formats/types.js";
import type { FileRecord, ReceiptCheckRecord } from "../../shared/pipeline/ports.js";
import type { AuditInput } from "../../shared/report/index.js";
import { checkRecord, fileRecord } from "./index-records.js";

/** A GitHub token shape the scrubber knows: planted in summaries and first errors. */
export const PLANTED_SECRET = `ghp_${"a1B2c3".repeat(6)}`;

/** The seeded day. */
export const DAY = "2026-11-26";

/** A file record on DAY at `hour`, with `fields` overridden. */
export function seeded(
  tenant: string,
  session: string,
  file: string,
  hour: number,
  fields: Partial<FileRecord> = {},
): FileRecord {
  return {
    ...fileRecord(tenant, session, file, {}, `${DAY}T${String(hour).padStart(2, "0")}:00:00.000Z`),
    ...fields,
  };
}

/** A summary whose mean step utility is `utility` and whose producer holds the planted secret. */
export function summary(utility: number | null): FileRecord["summary"] {
  return {
    session_id: "s",
    format: "replay-v1",
    producer: `agent ${PLANTED_SECRET}`,
    policy_bundle_id: null,
    started_at: null,
    ended_at: null,
    status: "success",
    confidence: null,
    counts: { events: 1, tool_calls: 0, failed_tool_calls: 0, turns: 1, steps_by_type: {} },
    total_latency_ms: null,
    mean_step_utility: utility,
    verification: [],
  };
}

/** The failed rows of acme/s2/R.jsonl's own checks. */
export const OWN_FAILURES: CheckRow[] = [
  {
    check: "params_hash",
    subject: "line 3 ToolCall step-2 params",
    expected: "sha256:aa",
    actual: "sha256:bb",
    status: "failed",
  },
  { check: "replay_hash", subject: "envelope", expected: "sha256:cc", actual: "sha256:dd", status: "failed" },
];

/**
 * Tenants acme (formats replay-v1, replay-dsrs) and globex: 7 files in 5 sessions.
 * Verdicts: 3 passed, 1 unverifiable, 1 failed, 2 invalid (one a rejected key).
 * acme/s1 has a receipt; acme/s3 has a failed receipt check that withdrew its copy;
 * acme/s2 and globex/g1 have none (globex/g1 processed 2 hours before the report time).
 */
export function seededDay(): { files: FileRecord[]; checks: ReceiptCheckRecord[] } {
  const files = [
    seeded("acme", "s1", "R.jsonl", 1, { summary: summary(0.5), ms: 10 }),
    seeded("acme", "s1", "RECEIPT.json", 2, { kind: "receipt", format: null, redactions: null, ms: 5 }),
    seeded("acme", "s2", "R.jsonl", 3, {
      verdict: "failed",
      checks_total: { passed: 1, failed: 2, unverifiable: 0 },
      layer_c_key: null,
      redactions: null,
      summary: summary(0.25),
      ms: 40,
    }),
    seeded("acme", "s3", "R.json", 4, {
      format: "replay-dsrs",
      redactions: { "aws-key": 1, email: 4 },
      ms: 20,
    }),
    seeded("acme", "s4", "R.jsonl", 5, {
      verdict: "invalid",
      errors_total: 3,
      first_error: { code: "json.syntax", message: `bad token near ${PLANTED_SECRET}`, line: 7 },
      layer_c_key: null,
      redactions: null,
      ms: 30,
    }),
    seeded("globex", "g1", "R.jsonl", 22, { verdict: "unverifiable", summary: summary(1), ms: 50 }),
    seeded("globex", "bad", "x y", 6, {
      kind: "rejected",
      format: null,
      verdict: "invalid",
      first_error: { code: "key.invalid", message: "the key has a space", line: null },
      redactions: null,
      ms: 1,
    }),
  ];
  const s3 = files[3] as FileRecord;
  const check: ReceiptCheckRecord = {
    ...checkRecord(s3, { key: "acme/s3/RECEIPT.json", etag: "r", versionId: null, size: 9, sequencer: "01" }),
    withdrawn: `${s3.ref.key}.layer-c`,
    processed_at: `${DAY}T04:30:00.000Z`,
  };
  return { files, checks: [check] };
}

/** The audit input of the seeded day, the report made at 2026-11-27T00:00Z with a 6-hour receipt age. */
export function seededInput(): AuditInput {
  const { files, checks } = seededDay();
  return {
    since: DAY,
    until: DAY,
    tenant: null,
    generatedAt: "2026-11-27T00:00:00.000Z",
    receiptAgeHours: 6,
    files,
    checks,
    fileFailures: { "acme/s2/R.jsonl": OWN_FAILURES },
    sessionsWithReceipt: ["acme/s1"],
    history: Array.from({ length: 30 }, (_, n) => ({
      day: new Date(Date.parse(`${DAY}T00:00:00Z`) - (29 - n) * 86_400_000).toISOString().slice(0, 10),
      verdicts: {
        passed: (n * 7) % 11,
        unverifiable: n % 3,
        failed: n % 5 === 0 ? 2 : 0,
        invalid: n % 7 === 0 ? 1 : 0,
      },
    })),
  };
}
