/**
 * The whole job for one uploaded object, over ports: the mode's key rules, then the replay job
 * (`replay-job.ts`) or the receipt job (`receipt-job.ts`); a redelivered event resumes the receipt
 * checks (`receipt-checks.ts`) that follow its record.
 */
import { createHash } from "node:crypto";
import { ReplayPipelineError } from "../errors.js";
import { Scrubber } from "../redact/index.js";
import { JobRun } from "./job-run.js";
import type { ProcessOptions, ProcessResult } from "./job-types.js";
import { isReceiptName, type ObjectKey, parseObjectKey, rejectedPlace } from "./keys.js";
import type { FileRecord, ObjectSource, Ports } from "./ports.js";
import { checkLate, checkSession } from "./receipt-checks.js";
import { receiptJob } from "./receipt-job.js";
import { replayJob } from "./replay-job.js";
import { putOutcome, reprocessOutcome } from "./versions.js";

export type { ProcessOptions, ProcessResult, VerdictDocument } from "./job-types.js";

/**
 * Processes one object, in the job mode `options.mode` names (default `pipeline`). Bad input of
 * any kind is a verdict (recorded, never thrown); only a port's failure throws (a `transient` one
 * is worth a retry), and then nothing is recorded, so the retry does the whole job again. A
 * redelivered event (`duplicate`) or a late one for an older version (`stale`) changes nothing.
 * In `reprocess` mode the recorded version is processed again and its record replaced, once per run.
 */
export async function processObject(
  source: ObjectSource,
  ports: Ports,
  options: ProcessOptions,
): Promise<ProcessResult> {
  const run = new JobRun(source, ports, options);
  const mode = run.mode;
  if (mode.kind === "local" || mode.kind === "inspect-only")
    return replayJob(run, { tenant: "local", session: "local", file: source.key });
  const parsed = parseObjectKey(source.key);
  if (!parsed.ok) return reject(run, parsed.problem);
  // The key is stored, logged and published under: it must pass the scrubber like any input.
  if (scrubbedKey(source.key, run.scrubber) !== source.key)
    return reject(run, {
      code: "key.redacted",
      message:
        "the key holds text the scrubber redacts (a secret or personal data); expected a key without it",
    });
  const known = await ports.index.getFile(parsed.key.tenant, parsed.key.session, source.key);
  if (mode.kind === "reprocess" && known === null)
    throw new ReplayPipelineError("reprocess.no_record", `reprocess ${source.key}: the key has no record`);
  const outcome =
    mode.kind === "reprocess" ? reprocessOutcome(known, source, mode.runId) : putOutcome(known?.ref, source);
  // A redelivery of the recorded version resumes the checks that follow the record: the run that
  // wrote it may have failed after it (a transient error, retried by the queue).
  if (known !== null && outcome === "duplicate" && mode.kind === "pipeline")
    return resume(run, parsed.key, known);
  if (known !== null && outcome !== "written") return run.skipped(known, outcome);
  if (mode.kind === "reprocess") run.previous = known;
  return isReceiptName(parsed.key.file) ? receiptJob(run, parsed.key) : replayJob(run, parsed.key);
}

/**
 * `key` as the scrubber passes it: a key that changes is rejected, and its record is filed under
 * this form (what the local stack looks a rejected key's record up by).
 */
export function scrubbedKey(key: string, scrubber = new Scrubber({ preset: "private_repo" })): string {
  return scrubber.scrub(key, "$key");
}

/** A key that breaks the rules: an `invalid` verdict under a key-safe name, nothing read. */
function reject(run: JobRun, problem: { code: string; message: string }): Promise<ProcessResult> {
  const key = run.source.key;
  const digest = createHash("sha256").update(key, "utf8").digest("hex");
  // Filed under the scrubbed key, with the reason scrubbed (it may quote the key).
  const ref = { ...run.ref, key: scrubbedKey(key, run.scrubber) };
  const place = rejectedPlace(key, ref.key, digest);
  const error = { code: problem.code, message: run.scrub(problem.message) };
  const record = run.record(place.key, {
    ref,
    kind: "rejected",
    verdict: "invalid",
    errors_total: 1,
    first_error: { ...error, line: null },
    verdict_key: place.verdictKey,
  });
  const document = run.document({ object: ref, kind: "rejected", verdict: "invalid", error });
  return run.finish(record, document);
}

/**
 * A redelivered event of the version recorded: nothing is read again for the object's own
 * verdict, but the receipt checks that follow its record run again (each is recorded once, so a
 * first run that completed them makes this one record nothing).
 */
async function resume(run: JobRun, key: ObjectKey, known: FileRecord): Promise<ProcessResult> {
  const skipped = run.skipped(known, "duplicate");
  if (known.verdict === "invalid") return skipped;
  if (known.kind === "replay") await checkLate(run, key, known.ref, known.layer_c_key, new Set());
  if (known.kind === "receipt") await checkSession(run, key);
  return { ...skipped, checks: run.checks };
}
