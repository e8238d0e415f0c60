/**
 * Receipt checks of one run: a replay against the receipts known when it is read, against those
 * that land while it runs, and every replay of a session against a new receipt. Each check is
 * recorded once; a failed one withdraws the replay's published copy and rewrites its attestation.
 */
import type { JsonValue } from "../canonical/index.js";
import { Findings, type InspectResult, inspect, type Verdict } from "../formats/index.js";
import { beginVerify, type VerifyReport } from "../receipt/index.js";
import { scrubReport } from "../redact/index.js";
import { storeAttestation } from "./attestation.js";
import type { JobRun } from "./job-run.js";
import type { ObjectKey } from "./keys.js";
import type { FileRecord, ObjectRef, ReceiptCheckRecord } from "./ports.js";
import { type PendingCheck, readOptionsOf, readWhole } from "./receipt-read.js";
import { recordRows } from "./record-bounds.js";
import { isVersionOf } from "./versions.js";

/** The receipts recorded for the session (readable ones), consistent read. */
export async function receiptsOf(run: JobRun, key: ObjectKey): Promise<FileRecord[]> {
  const files = await run.ports.index.listFiles(key.tenant, key.session);
  return files.filter((f) => f.kind === "receipt" && f.verdict !== "invalid");
}

/** Reads `receipt` (unless `read` is its JSON already) and begins its check of a replay about to be read. */
export async function beginCheck(run: JobRun, receipt: ObjectRef, read?: JsonValue): Promise<PendingCheck> {
  const findings = new Findings();
  const value = read ?? (await readWhole(run.ports.objects.open(receipt), findings, receipt.key));
  return { receipt, findings, check: beginVerify(value, findings, { receiptUnreadable: value === null }) };
}

/**
 * Checks a replay against the receipts known when it was read; with `none`, against no receipt
 * (unverifiable, kept in `verifications` only: there is no receipt to record it under).
 */
export async function checkGiven(
  run: JobRun,
  key: ObjectKey,
  inspected: InspectResult,
  pending: readonly PendingCheck[],
  againstNone: boolean,
): Promise<void> {
  for (const p of pending) await check(run, key, inspected, p, run.ref);
  if (againstNone) {
    const report = beginVerify(null, new Findings(), { receiptUnreadable: false }).end(inspected);
    run.verifications.push(scrubReport(report, run.scrubber));
  }
}

/** Checks `replay` against the session's receipts not in `checked` (one read for all of them). */
export async function checkLate(
  run: JobRun,
  key: ObjectKey,
  replay: ObjectRef,
  published: string | null,
  checked: ReadonlySet<string>,
): Promise<void> {
  const late = (await receiptsOf(run, key)).filter((r) => !checked.has(r.ref.key));
  if (late.length === 0) return;
  const pending: PendingCheck[] = [];
  for (const receipt of late) pending.push(await beginCheck(run, receipt.ref));
  const again = await reread(run, replay, pending);
  for (const p of pending) await check(run, key, again, p, replay, published);
}

/**
 * Checks every replay of the session against this run's receipt; `receipt` is its JSON when the
 * caller has read it already (each check still begins afresh from it), else it is read for each.
 */
export async function checkSession(run: JobRun, key: ObjectKey, receipt?: JsonValue): Promise<void> {
  // A retry (after a timeout) goes on where the last try stopped: recorded pairs are not read again.
  const done = (await run.ports.index.listChecks(key.tenant, key.session)).filter(
    (c) => c.receipt.key === run.ref.key && isVersionOf(c.receipt, run.ref),
  );
  for (const replay of await run.ports.index.listFiles(key.tenant, key.session)) {
    if (replay.kind !== "replay" || replay.verdict === "invalid") continue;
    if (done.some((c) => c.replay.key === replay.ref.key && isVersionOf(c.replay, replay.ref))) continue;
    const pending = await beginCheck(run, run.ref, receipt);
    const inspected = await reread(run, replay.ref, [pending]);
    await check(run, key, inspected, pending, replay.ref, replay.layer_c_key);
  }
}

/** A replay read again from the store for receipt checks, its tool calls fed to them. */
function reread(run: JobRun, ref: ObjectRef, pending: readonly PendingCheck[]): Promise<InspectResult> {
  return inspect(run.ports.objects.open(ref), {
    file: ref.key,
    ...readOptionsOf(pending),
    ...run.readOptions(),
  });
}

/**
 * Ends the check of `replay` (inspected, its tool calls fed to `pending`), records it once, and
 * withdraws the replay's published copy (`published`) when the check fails.
 */
async function check(
  run: JobRun,
  key: ObjectKey,
  inspected: InspectResult,
  pending: PendingCheck,
  replay: ObjectRef,
  published: string | null = null,
): Promise<void> {
  const { ports } = run;
  const { receipt } = pending;
  const report: VerifyReport = pending.check.end(inspected);
  run.verifications.push(scrubReport(report, run.scrubber));
  const failed = report.verdict === "failed" || report.verdict === "invalid";
  let withdrawn: string | null = null;
  if (failed && published !== null && (await isRecorded(run, key, replay))) {
    // The copy goes first: a failure between the two leaves it unpublished (fail closed). The
    // version check before and the conditional mark keep a newer upload's record as it is.
    await ports.publisher.withdrawCopy(published);
    const outcome = await ports.index.markWithdrawn(
      key.tenant,
      key.session,
      replay,
      `receipt check against ${receipt.key} ${report.verdict}`,
    );
    if (outcome === "withdrawn") withdrawn = published;
  }
  const rows = scrubReport(report.checks, run.scrubber);
  const record: ReceiptCheckRecord = {
    tenant: key.tenant,
    session: key.session,
    replay,
    receipt,
    verdict: report.verdict,
    checks_total: { ...report.checks_total },
    failed: recordRows(rows.filter((r) => r.status === "failed")),
    withdrawn,
    processed_at: run.now(),
  };
  run.decided.push(record);
  if (report.verdict !== "passed") await reattest(run, key, replay, report.verdict);
  if ((await ports.index.putCheck(record)) === "written" || withdrawn !== null) run.checks.push(record);
}

/**
 * Rewrites the attestation of `replay`, already recorded, that a receipt check did not pass: it
 * said what the replay's own checks gave, and no longer holds. (Before its record exists, the
 * replay's own job writes the attestation with this check in it.)
 */
async function reattest(run: JobRun, key: ObjectKey, replay: ObjectRef, verdict: Verdict): Promise<void> {
  const recorded = await run.ports.index.getFile(key.tenant, key.session, replay.key);
  if (recorded === null || !isVersionOf(recorded.ref, replay) || recorded.replay_hash === null) return;
  await storeAttestation(run.ports, recorded, [verdict], run.now(), run.options);
}

/** Whether the index still records `replay`'s version (consistent read): not a newer upload's. */
async function isRecorded(run: JobRun, key: ObjectKey, replay: ObjectRef): Promise<boolean> {
  const recorded = await run.ports.index.getFile(key.tenant, key.session, replay.key);
  return recorded !== null && isVersionOf(recorded.ref, replay);
}
