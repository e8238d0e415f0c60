/**
 * The job for a receipt: its own reading (whole, bounded), its record and document, then a check
 * of every replay of its session against it, the document rewritten with those checks.
 */
import { Findings } from "../formats/index.js";
import { combinedVerdict, readReceipt } from "../receipt/index.js";
import { scrubReport } from "../redact/index.js";
import { type JobRun, zeroTotals } from "./job-run.js";
import type { ProcessResult } from "./job-types.js";
import type { ObjectKey } from "./keys.js";
import { checkSession } from "./receipt-checks.js";
import { readWhole } from "./receipt-read.js";

/** A receipt: its own reading, then a check of every replay of the session. */
export async function receiptJob(run: JobRun, key: ObjectKey): Promise<ProcessResult> {
  const findings = new Findings();
  const value = await readWhole(run.source.open(), findings, run.source.key);
  if (value !== null) readReceipt(value, findings);
  const verdict = combinedVerdict({ verdict: "passed", checks_total: zeroTotals() }, findings);
  const errors = scrubReport(findings.errors, run.scrubber);
  const record = run.record(key, {
    kind: "receipt",
    verdict,
    checks_total: { ...findings.checkCounts },
    errors_total: findings.errorCount,
    first_error:
      errors[0] === undefined
        ? null
        : { code: errors[0].code, message: errors[0].message, line: errors[0].line },
  });
  const document = run.document({
    kind: "receipt",
    verdict,
    tenant: key.tenant,
    session: key.session,
    file: key.file,
    error: errors[0] === undefined ? null : { code: errors[0].code, message: errors[0].message },
  });
  const result = await run.finish(record, document);
  if (result.outcome !== "written" || verdict === "invalid") return result;
  await checkSession(run, key, value ?? undefined);
  if (run.decided.length > 0)
    await run.ports.publisher.putDocument(
      record.verdict_key,
      `${JSON.stringify({ ...document, receipt_checks: run.documentChecks() })}\n`,
    );
  return { ...result, checks: run.checks };
}
