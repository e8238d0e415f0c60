/**
 * The job for a replay: the receipts to check it against read first, then one read that inspects
 * it and makes the Layer C copy at once (or inspects only), the checks ended, the copy published
 * only when nothing failed, the record and document written, then the receipts that landed
 * while it ran.
 */
import { ReplayPipelineError } from "../errors.js";
import { type InspectReport, type InspectResult, inspect } from "../formats/index.js";
import type { LayerCSummary } from "../redact/index.js";
import { inspectRedactTask, redactChecked, scrubReport } from "../redact/index.js";
import { prepend } from "./chunks.js";
import type { JobRun } from "./job-run.js";
import type { ProcessResult } from "./job-types.js";
import { attestationKey, layerCKey, type ObjectKey, verdictKey } from "./keys.js";
import type { FileRecord, ObjectRef } from "./ports.js";
import { beginCheck, checkGiven, checkLate, receiptsOf } from "./receipt-checks.js";
import { type PendingCheck, readOptionsOf } from "./receipt-read.js";
import { recordSummary } from "./record-summary.js";
import { withdrawReplaced } from "./reprocess.js";

/** What became of the Layer C copy. */
interface CopyOutcome {
  published: string | null;
  /** The copy published before (reprocess) was kept: the new one is the same bytes. */
  kept: boolean;
  notPublished: string | null;
  summary: LayerCSummary | null;
}

/** A replay: one read for inspect and Layer C, receipt checks, publication, record. */
export async function replayJob(run: JobRun, key: ObjectKey): Promise<ProcessResult> {
  const { ports, options, source } = run;
  const receiptsBefore = await receiptsToCheck(run, key);
  // Receipts first: the replay's tool calls are checked against them as they are read.
  const pendingBefore: PendingCheck[] = [];
  for (const receipt of receiptsBefore) pendingBefore.push(await beginCheck(run, receipt));
  if (run.mode.kind === "inspect-only") return inspectOnly(run, key, pendingBefore);
  // One line task for both: inspect's split of each line and its Layer C redaction.
  const redaction = redactChecked(source.open(), {
    task: inspectRedactTask,
    file: source.key,
    allowUnverified: true,
    ...readOptionsOf(pendingBefore),
    ...(options.preset === undefined ? {} : { preset: options.preset }),
    ...(options.redactionKey === undefined ? {} : { key: options.redactionKey }),
    ...(options.packRules === undefined ? {} : { packRules: options.packRules }),
    spool: ports.spool,
    ...run.readOptions(),
  });
  // The copy is made while inspect reads (both take the same bytes): start it now, decide later.
  const copy = redaction.chunks[Symbol.asyncIterator]();
  const first = copy.next();
  first.catch(() => undefined);
  let inspected: InspectResult;
  let published: string | null = null;
  let notPublished: string | null = null;
  let summary: LayerCSummary | null = null;
  let kept = false;
  try {
    try {
      inspected = await redaction.inspected;
    } catch (error) {
      // A gzip bomb or a broken stream is a verdict, not a retry (a replaced object is neither).
      if (error instanceof ReplayPipelineError && error.code.startsWith("gzip."))
        return unreadable(run, key, error);
      throw error;
    }
    const report = inspected.report;
    await checkGiven(run, key, inspected, pendingBefore, againstNone(run));

    notPublished = refusal(run, report.verdict);
    if (notPublished === null) {
      let ended: IteratorResult<Uint8Array>;
      try {
        ended = await first;
      } catch (error) {
        // The transform could not copy what inspect accepted: a verdict on the copy, not a crash.
        if (!(error instanceof ReplayPipelineError)) throw error;
        notPublished = `no Layer C copy could be made: ${run.scrub(error.detail)} [${error.code}]`;
        ended = { done: true, value: undefined };
      }
      if (notPublished === null) {
        const target = layerCKey(key);
        // Reprocess: a copy made by rules that redacted less goes first (and from the CDN's cache).
        await withdrawReplaced(ports.publisher, run.previous, () => redaction.summary().by_rule);
        const facts = {
          replay_hash: report.replay_hash,
          verdict: report.verdict,
          attestation: attestationKey(verdictKey(source.key)),
        };
        // Reprocess: a copy the new rules leave byte for byte as it was stays (no new version).
        const keepIfSame = run.previous?.layer_c_key === target;
        const onKept = () => {
          kept = true;
        };
        await ports.publisher.publishCopy(target, prepend(ended, copy), facts, keepIfSame ? { onKept } : {});
        published = target;
        summary = redaction.summary();
      }
    }
  } finally {
    // Ends the copy whatever happened (not wanted, a failed upload, a failed check), so its spool
    // is removed at once rather than left in a Lambda's /tmp; a no-op once it was read to the end.
    await copy.return?.(undefined).catch(() => undefined);
  }

  return replayDone(run, key, inspected, receiptsBefore, { published, notPublished, summary, kept });
}

/** Why the copy of a replay of `verdict` is not published; null when it is. */
function refusal(run: JobRun, verdict: InspectResult["report"]["verdict"]): string | null {
  if ((verdict === "failed" || verdict === "invalid") && run.options.publishUnverified !== true)
    return `the file is ${verdict}: only a file that is not failed or invalid is published`;
  if (run.decided.some((c) => c.verdict === "failed" || c.verdict === "invalid"))
    return "a receipt check failed: the copy is not published";
  return null;
}

/**
 * The receipts a replay is checked against as it is read: the session's in the index (pipeline,
 * reprocess), or the one a local job was given.
 */
async function receiptsToCheck(run: JobRun, key: ObjectKey): Promise<ObjectRef[]> {
  const { mode } = run;
  if (mode.kind === "pipeline" || mode.kind === "reprocess")
    return (await receiptsOf(run, key)).map((r) => r.ref);
  return typeof mode.receipt === "string" ? [] : [mode.receipt];
}

/** Whether a local job checks its replay against no receipt (`receipt: "none"`). */
function againstNone(run: JobRun): boolean {
  const { mode } = run;
  return (mode.kind === "local" || mode.kind === "inspect-only") && mode.receipt === "none";
}

/** A replay only inspected (`inspect-only`): one read, receipt checks, no transform. */
async function inspectOnly(run: JobRun, key: ObjectKey, pending: PendingCheck[]): Promise<ProcessResult> {
  const inspected = await inspect(run.source.open(), {
    file: run.source.key,
    ...readOptionsOf(pending),
    ...run.readOptions(),
  });
  await checkGiven(run, key, inspected, pending, againstNone(run));
  return replayDone(
    run,
    key,
    inspected,
    pending.map((p) => p.receipt),
    {
      published: null,
      notPublished: "only inspected: no Layer C copy was asked for",
      summary: null,
      kept: false,
    },
  );
}

/** A replay whose gzip stream could not be read within the limits: `invalid`, recorded once. */
function unreadable(run: JobRun, key: ObjectKey, error: ReplayPipelineError): Promise<ProcessResult> {
  const e = { code: error.code, message: run.scrub(error.detail) };
  const first_error = { ...e, line: error.location.line ?? null };
  const record = run.record(key, { kind: "replay", verdict: "invalid", errors_total: 1, first_error });
  const { tenant, session, file } = key;
  const not_published = `the file could not be read: ${e.message} [${e.code}]`;
  const fields = { tenant, session, file, error: e, not_published };
  return run.finish(record, run.document({ kind: "replay", verdict: "invalid", ...fields }));
}

/** A replay's record and document, then the receipts that landed while it ran. */
async function replayDone(
  run: JobRun,
  key: ObjectKey,
  inspected: InspectResult,
  receiptsBefore: ObjectRef[],
  copy: CopyOutcome,
): Promise<ProcessResult> {
  const { published, notPublished, summary } = copy;
  const report = inspected.report;
  const shown = scrubReport(report, run.scrubber);
  const kept = shown.summary === null ? null : recordSummary(shown.summary);
  const record = run.record(key, {
    kind: "replay",
    format: report.format,
    verdict: report.verdict,
    checks_total: { ...report.checks_total },
    errors_total: report.errors_total,
    first_error: firstError(shown),
    replay_hash: report.replay_hash,
    bytes: report.bytes,
    layer_c_key: published,
    summary: kept?.summary ?? null,
    ...(kept?.truncated === true ? { summary_truncated: true as const } : {}),
    redactions: summary === null ? null : { ...summary.by_rule },
  });
  const document = run.document({
    kind: "replay",
    verdict: report.verdict,
    tenant: key.tenant,
    session: key.session,
    file: key.file,
    report: shown,
    layer_c: published === null || summary === null ? null : { key: published, summary },
    not_published: notPublished,
  });
  const result = await run.finish(record, { ...document, receipt_checks: run.documentChecks() });
  if (copy.kept) result.copyKept = true;
  // A local job has no session to look in again.
  if (result.outcome !== "written" || (run.mode.kind !== "pipeline" && run.mode.kind !== "reprocess"))
    return result;
  // A receipt that landed while this ran may not have seen this record: look again (consistent).
  await checkLate(run, key, run.ref, published, new Set(receiptsBefore.map((r) => r.key)));
  if (run.checks.some((c) => c.withdrawn !== null)) record.layer_c_key = null;
  return { ...result, checks: run.checks };
}

/** The first error of a (scrubbed) report, for the index. */
function firstError(report: InspectReport): FileRecord["first_error"] {
  const e = report.errors[0];
  return e === undefined ? null : { code: e.code, message: e.message, line: e.line };
}
