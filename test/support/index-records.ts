/** Records for the session index tests. */
import type { FileRecord, ObjectRef, ReceiptCheckRecord } from "../../shared/pipeline/ports.js";

/** A replay's file record in tenant `tenant`, session `session`, with `ref` fields overridden. */
export function fileRecord(
  tenant: string,
  session: string,
  file: string,
  ref: Partial<ObjectRef> = {},
  processedAt = "2026-11-26T10:00:00.000Z",
): FileRecord {
  const key = `${tenant}/${session}/${file}`;
  return {
    tenant,
    session,
    file,
    ref: { key, etag: "e1", versionId: null, size: 10, sequencer: "0A", ...ref },
    kind: "replay",
    format: "replay-v1",
    verdict: "passed",
    checks_total: { passed: 3, failed: 0, unverifiable: 1 },
    errors_total: 0,
    first_error: null,
    replay_hash: "ab".repeat(32),
    bytes: 10,
    layer_c_key: `${tenant}/${session}/${file}.layer-c`,
    verdict_key: `results/${key}.json`,
    summary: null,
    redactions: { "aws-key": 2 },
    processed_at: processedAt,
    ms: 12,
  };
}

/** A receipt check of `replay` against `receipt` in their session. */
export function checkRecord(replay: FileRecord, receipt: ObjectRef): ReceiptCheckRecord {
  return {
    tenant: replay.tenant,
    session: replay.session,
    replay: replay.ref,
    receipt,
    verdict: "failed",
    checks_total: { passed: 1, failed: 1, unverifiable: 0 },
    failed: [{ check: "output_hash", subject: "step 1", expected: "a", actual: "b", status: "failed" }],
    withdrawn: null,
    processed_at: "2026-11-26T10:00:01.000Z",
  };
}
