/**
 * The whole job for one uploaded object, over ports: key rules, then for a replay one read that
 * inspects (gzip, detection, validation, every hash) and makes the Layer C copy at once, receipt
 * checks through the index, publication only of what did not fail, and the verdict document and
 * index record; for a receipt, its own check and a check of every replay of its session.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../canonical/index.js";
import { ReplayPipelineError } from "../errors.js";
import { type InspectOptions, type InspectReport, type InspectResult, inspect } from "../formats/inspect.js";
import { type CheckStatus, Findings, type Verdict } from "../formats/types.js";
import { beginVerify, combinedVerdict, readReceipt, type VerifyReport } from "../receipt/index.js";
import { redactChecked } from "../redact/checked.js";
import type { LayerCSummary } from "../redact/index.js";
import { scrubReport } from "../redact/report.js";
import { Scrubber } from "../redact/scrub.js";
import { storeAttestation } from "./attestation.js";
import { prepend } from "./chunks.js";
import type { ProcessOptions, ProcessResult, VerdictDocument } from "./job-types.js";
import {
  attestationKey,
  isReceiptName,
  layerCKey,
  type ObjectKey,
  parseObjectKey,
  rejectedPlace,
  verdictKey,
} from "./keys.js";
import type { FileRecord, ObjectRef, ObjectSource, Ports, PutOutcome, ReceiptCheckRecord } from "./ports.js";
import { provenanceOf } from "./provenance.js";
import { type PendingCheck, readOptionsOf, readWhole } from "./receipt-read.js";
import { recordError, recordRows } from "./record-bounds.js";
import { recordSummary } from "./record-summary.js";
import { withdrawReplaced } from "./reprocess.js";
import { isVersionOf, putOutcome, reprocessOutcome } from "./versions.js";

export type { ProcessOptions, ProcessResult, VerdictDocument } from "./job-types.js";

const zeroTotals = (): Record<CheckStatus, number> => ({ passed: 0, failed: 0, unverifiable: 0 });

/**
 * Processes one object of the ingest store. Bad input of any kind is a verdict (recorded, never
 * thrown); only a port's failure throws (a `transient` one is worth a retry), and then nothing is
 * recorded, so the retry does the whole job again. A redelivered event (`duplicate`) or a late one
 * for an older version (`stale`) changes nothing. In reprocess mode (`options.reprocess`) the
 * recorded version is processed again and its record replaced, once per run.
 */
export async function processObject(
  source: ObjectSource,
  ports: Ports,
  options: ProcessOptions,
): Promise<ProcessResult> {
  const job = new Job(source, ports, options);
  if (options.keys === "local") return job.replay({ tenant: "local", session: "local", file: source.key });
  const parsed = parseObjectKey(source.key);
  if (!parsed.ok) return job.reject(parsed.problem);
  // The key is stored, logged and published under: it must pass the scrubber like any input.
  if (job.scrubbedKey() !== source.key)
    return job.reject({
      code: "key.redacted",
      message:
        "the key holds text the scrubber redacts (a secret or personal data); expected a key without it",
    });
  const known = await ports.index.getFile(parsed.key.tenant, parsed.key.session, source.key);
  const mode = options.reprocess;
  if (mode !== undefined && known === null)
    throw new ReplayPipelineError("reprocess.no_record", `reprocess ${source.key}: the key has no record`);
  const outcome =
    mode === undefined ? putOutcome(known?.ref, source) : reprocessOutcome(known, source, mode.runId);
  // A redelivery of the recorded version resumes the checks that follow the record: the run that
  // wrote it may have failed after it (a transient error, retried by the queue).
  if (known !== null && outcome === "duplicate" && mode === undefined) return job.resume(parsed.key, known);
  if (known !== null && outcome !== "written") return job.skipped(known, outcome);
  if (mode !== undefined) job.previous = known;
  return isReceiptName(parsed.key.file) ? job.receipt(parsed.key) : job.replay(parsed.key);
}

/**
 * `key` as the scrubber passes it: a key that changes is rejected, and its record is filed under
 * this form (what the local stack looks a rejected key's record up by).
 */
export function scrubbedKey(key: string, scrubber = new Scrubber({ preset: "private_repo" })): string {
  return scrubber.scrub(key, "$key");
}

/** The bare reference of a source (no stream). */
function refOf(source: ObjectRef): ObjectRef {
  return {
    key: source.key,
    etag: source.etag,
    versionId: source.versionId,
    size: source.size,
    sequencer: source.sequencer,
  };
}

/** One run of the job: its clock, scrubber and the document it fills in. */
class Job {
  private readonly started = Date.now();
  private readonly scrubber = new Scrubber({ preset: "private_repo" });
  /** Checks this run recorded (a redelivery finds them recorded and counts nothing twice). */
  private readonly checks: ReceiptCheckRecord[] = [];
  /** Every check this run made, recorded now or by an earlier run: what it decides and documents. */
  private readonly decided: ReceiptCheckRecord[] = [];
  private readonly verifications: VerifyReport[] = [];
  private readonly ref: ObjectRef;
  /** Reprocess mode: the record being replaced (its copy is withdrawn when the new rules ask). */
  previous: FileRecord | null = null;

  constructor(
    private readonly source: ObjectSource,
    private readonly ports: Ports,
    private readonly options: ProcessOptions,
  ) {
    this.ref = refOf(source);
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private document(
    fields: Partial<VerdictDocument> & Pick<VerdictDocument, "kind" | "verdict">,
  ): VerdictDocument {
    return {
      schema: "replay-pipeline.verdict.v1",
      tool: { name: "replay-pipeline", version: this.options.toolVersion },
      provenance: provenanceOf(this.options),
      object: this.ref,
      tenant: null,
      session: null,
      file: null,
      report: null,
      receipt_checks: [],
      layer_c: null,
      not_published: null,
      error: null,
      timings: { total_ms: Date.now() - this.started },
      processed_at: this.now(),
      ...fields,
    };
  }

  /** Writes the document, then the record (the commit point: a retry after a failure redoes both). */
  private async finish(record: FileRecord, document: VerdictDocument): Promise<ProcessResult> {
    // Reprocess: a copy the new rules do not publish is withdrawn before its record says so.
    if (record.layer_c_key === null) await withdrawReplaced(this.ports.publisher, this.previous, null);
    await this.ports.publisher.putDocument(record.verdict_key, `${JSON.stringify(document)}\n`);
    if (record.kind === "replay" && record.replay_hash !== null) {
      const verdicts = document.receipt_checks.map((c) => c.verdict);
      await storeAttestation(this.ports, record, verdicts, document.processed_at, this.options);
    }
    const mode = this.options.reprocess;
    const index = this.ports.index;
    const outcome = await (mode === undefined
      ? index.putFile(record)
      : index.replaceFile(record, mode.runId));
    return { outcome, record, document, checks: this.checks, verifications: this.verifications };
  }

  private record(
    key: ObjectKey,
    fields: Partial<FileRecord> & Pick<FileRecord, "kind" | "verdict">,
  ): FileRecord {
    return {
      tenant: key.tenant,
      session: key.session,
      file: key.file,
      ref: this.ref,
      format: null,
      checks_total: zeroTotals(),
      errors_total: 0,
      replay_hash: null,
      bytes: 0,
      layer_c_key: null,
      verdict_key: verdictKey(this.source.key),
      summary: null,
      redactions: null,
      processed_at: this.now(),
      ms: Date.now() - this.started,
      provenance: provenanceOf(this.options),
      ...fields,
      // Cut to fit an item; the verdict document has it whole.
      first_error: recordError(fields.first_error ?? null),
    };
  }

  /** A replay whose gzip stream could not be read within the limits: `invalid`, recorded once. */
  private unreadable(key: ObjectKey, error: ReplayPipelineError): Promise<ProcessResult> {
    const e = { code: error.code, message: this.scrub(error.detail) };
    const first_error = { ...e, line: error.location.line ?? null };
    const record = this.record(key, { kind: "replay", verdict: "invalid", errors_total: 1, first_error });
    const { tenant, session, file } = key;
    const not_published = `the file could not be read: ${e.message} [${e.code}]`;
    const fields = { tenant, session, file, error: e, not_published };
    return this.finish(record, this.document({ kind: "replay", verdict: "invalid", ...fields }));
  }

  /** A key that breaks the rules: an `invalid` verdict under a key-safe name, nothing read. */
  async reject(problem: { code: string; message: string }): Promise<ProcessResult> {
    const digest = createHash("sha256").update(this.source.key, "utf8").digest("hex");
    // Filed under the scrubbed key, with the reason scrubbed (it may quote the key).
    const ref = { ...this.ref, key: this.scrubbedKey() };
    const place = rejectedPlace(this.source.key, ref.key, digest);
    const error = { code: problem.code, message: this.scrub(problem.message) };
    const record = this.record(place.key, {
      ref,
      kind: "rejected",
      verdict: "invalid",
      errors_total: 1,
      first_error: { ...error, line: null },
      verdict_key: place.verdictKey,
    });
    const document = this.document({ object: ref, kind: "rejected", verdict: "invalid", error });
    return this.finish(record, document);
  }

  /** The object's key as the scrubber passes it (the key itself when it holds nothing to redact). */
  scrubbedKey(): string {
    return scrubbedKey(this.source.key, this.scrubber);
  }

  /** A redelivered or late event: nothing is read or written. */
  skipped(known: FileRecord, outcome: PutOutcome): ProcessResult {
    return {
      outcome,
      record: known,
      document: this.document({
        kind: known.kind,
        verdict: known.verdict,
        tenant: known.tenant,
        session: known.session,
        file: known.file,
        not_published:
          outcome === "stale" ? "a newer version of this key was processed already" : "already processed",
      }),
      checks: [],
      verifications: [],
    };
  }

  /** A replay: one read for inspect and Layer C, receipt checks, publication, record. */
  async replay(key: ObjectKey): Promise<ProcessResult> {
    const { ports, options } = this;
    const given = options.receipt;
    const receiptsBefore =
      given === undefined ? (await this.receiptsOf(key)).map((r) => r.ref) : given === null ? [] : [given];
    // Receipts first: the replay's tool calls are checked against them as they are read.
    const pendingBefore: PendingCheck[] = [];
    for (const receipt of receiptsBefore) pendingBefore.push(await this.beginCheck(receipt));
    if (options.publish === false) return this.inspectOnly(key, pendingBefore);
    const redaction = redactChecked(this.source.open(), {
      file: this.source.key,
      allowUnverified: true,
      ...readOptionsOf(pendingBefore),
      ...(options.preset === undefined ? {} : { preset: options.preset }),
      ...(options.redactionKey === undefined ? {} : { key: options.redactionKey }),
      spool: ports.spool,
      ...this.readOptions(),
    });
    // The copy is made while inspect reads (both take the same bytes): start it now, decide later.
    const copy = redaction.chunks[Symbol.asyncIterator]();
    const first = copy.next();
    first.catch(() => undefined);
    let inspected: InspectResult;
    let published: string | null = null;
    let notPublished: string | null = null;
    let summary: LayerCSummary | null = null;
    try {
      try {
        inspected = await redaction.inspected;
      } catch (error) {
        // A gzip bomb or a broken stream is a verdict, not a retry (a replaced object is neither).
        if (error instanceof ReplayPipelineError && error.code.startsWith("gzip."))
          return this.unreadable(key, error);
        throw error;
      }
      const report = inspected.report;
      await this.checkGiven(key, inspected, pendingBefore);

      if (
        (report.verdict === "failed" || report.verdict === "invalid") &&
        options.publishUnverified !== true
      ) {
        notPublished = `the file is ${report.verdict}: only a file that is not failed or invalid is published`;
      } else if (this.decided.some((c) => c.verdict === "failed" || c.verdict === "invalid")) {
        notPublished = "a receipt check failed: the copy is not published";
      }
      if (notPublished === null) {
        let ended: IteratorResult<Uint8Array>;
        try {
          ended = await first;
        } catch (error) {
          // The transform could not copy what inspect accepted: a verdict on the copy, not a crash.
          if (!(error instanceof ReplayPipelineError)) throw error;
          notPublished = `no Layer C copy could be made: ${this.scrub(error.detail)} [${error.code}]`;
          ended = { done: true, value: undefined };
        }
        if (notPublished === null) {
          const target = layerCKey(key);
          // Reprocess: a copy made by rules that redacted less goes first (and from the CDN's cache).
          await withdrawReplaced(ports.publisher, this.previous, () => redaction.summary().by_rule);
          await ports.publisher.publishCopy(target, prepend(ended, copy), {
            replay_hash: report.replay_hash,
            verdict: report.verdict,
            attestation: attestationKey(verdictKey(this.source.key)),
          });
          published = target;
          summary = redaction.summary();
        }
      }
    } finally {
      // Ends the copy whatever happened (not wanted, a failed upload, a failed check), so its spool
      // is removed at once rather than left in a Lambda's /tmp; a no-op once it was read to the end.
      await copy.return?.(undefined).catch(() => undefined);
    }

    return this.replayDone(key, inspected, receiptsBefore, { published, notPublished, summary });
  }

  /** A replay only inspected (`publish: false`): one read, receipt checks, no transform. */
  private async inspectOnly(key: ObjectKey, pending: PendingCheck[]): Promise<ProcessResult> {
    const inspected = await inspect(this.source.open(), {
      file: this.source.key,
      ...readOptionsOf(pending),
      ...this.readOptions(),
    });
    await this.checkGiven(key, inspected, pending);
    return this.replayDone(
      key,
      inspected,
      pending.map((p) => p.receipt),
      {
        published: null,
        notPublished: "only inspected: no Layer C copy was asked for",
        summary: null,
      },
    );
  }

  /** The signature key, pool and limits the object is read with, alone or with Layer C. */
  private readOptions(): Pick<
    InspectOptions,
    "hmacKey" | "parallel" | "maxLineBytes" | "maxDocumentBytes" | "maxDecompressedBytes"
  > {
    const o = this.options;
    return {
      ...(o.hmacKey === undefined ? {} : { hmacKey: o.hmacKey }),
      ...(o.parallel === undefined ? {} : { parallel: o.parallel }),
      ...(o.maxLineBytes === undefined ? {} : { maxLineBytes: o.maxLineBytes }),
      ...(o.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: o.maxDocumentBytes }),
      ...(o.maxDecompressedBytes === undefined ? {} : { maxDecompressedBytes: o.maxDecompressedBytes }),
    };
  }

  /** A replay's record and document, then the receipts that landed while it ran. */
  private async replayDone(
    key: ObjectKey,
    inspected: InspectResult,
    receiptsBefore: ObjectRef[],
    copy: { published: string | null; notPublished: string | null; summary: LayerCSummary | null },
  ): Promise<ProcessResult> {
    const { published, notPublished, summary } = copy;
    const report = inspected.report;
    const shown = scrubReport(report, this.scrubber);
    const kept = shown.summary === null ? null : recordSummary(shown.summary);
    const record = this.record(key, {
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
    const document = this.document({
      kind: "replay",
      verdict: report.verdict,
      tenant: key.tenant,
      session: key.session,
      file: key.file,
      report: shown,
      layer_c: published === null || summary === null ? null : { key: published, summary },
      not_published: notPublished,
    });
    const result = await this.finish(record, { ...document, receipt_checks: this.documentChecks() });
    if (result.outcome !== "written" || this.options.receipt !== undefined || this.options.keys === "local")
      return result;
    // A receipt that landed while this ran may not have seen this record: look again (consistent).
    await this.checkLate(key, this.ref, published, new Set(receiptsBefore.map((r) => r.key)));
    if (this.checks.some((c) => c.withdrawn !== null)) record.layer_c_key = null;
    return { ...result, checks: this.checks };
  }

  /** Checks `replay` against the session's receipts not in `checked` (one read for all of them). */
  private async checkLate(
    key: ObjectKey,
    replay: ObjectRef,
    published: string | null,
    checked: ReadonlySet<string>,
  ): Promise<void> {
    const late = (await this.receiptsOf(key)).filter((r) => !checked.has(r.ref.key));
    if (late.length === 0) return;
    const pending: PendingCheck[] = [];
    for (const receipt of late) pending.push(await this.beginCheck(receipt.ref));
    const again = await this.reread(replay, pending);
    for (const p of pending) await this.check(key, again, p, replay, published);
  }

  /**
   * A redelivered event of the version recorded: nothing is read again for the object's own
   * verdict, but the receipt checks that follow its record run again (each is recorded once, so a
   * first run that completed them makes this one record nothing).
   */
  async resume(key: ObjectKey, known: FileRecord): Promise<ProcessResult> {
    const skipped = this.skipped(known, "duplicate");
    if (known.verdict === "invalid" || this.options.receipt !== undefined) return skipped;
    if (known.kind === "replay") await this.checkLate(key, known.ref, known.layer_c_key, new Set());
    if (known.kind === "receipt") await this.checkSession(key);
    return { ...skipped, checks: this.checks };
  }

  /**
   * Checks every replay of the session against this receipt; `receipt` is its JSON when the caller
   * has read it already (each check still begins afresh from it), else it is read for each.
   */
  private async checkSession(key: ObjectKey, receipt?: JsonValue): Promise<void> {
    // A retry (after a timeout) goes on where the last try stopped: recorded pairs are not read again.
    const done = (await this.ports.index.listChecks(key.tenant, key.session)).filter(
      (c) => c.receipt.key === this.ref.key && isVersionOf(c.receipt, this.ref),
    );
    for (const replay of await this.ports.index.listFiles(key.tenant, key.session)) {
      if (replay.kind !== "replay" || replay.verdict === "invalid") continue;
      if (done.some((c) => c.replay.key === replay.ref.key && isVersionOf(c.replay, replay.ref))) continue;
      const pending = await this.beginCheck(this.ref, receipt);
      const inspected = await this.reread(replay.ref, [pending]);
      await this.check(key, inspected, pending, replay.ref, replay.layer_c_key);
    }
  }

  /**
   * Checks a replay against the receipts known when it was read; with `receipt: null`, against no
   * receipt (unverifiable, kept in `verifications` only: there is no receipt to record it under).
   */
  private async checkGiven(key: ObjectKey, inspected: InspectResult, pending: PendingCheck[]): Promise<void> {
    for (const p of pending) await this.check(key, inspected, p, this.ref);
    if (this.options.receipt === null) {
      const report = beginVerify(null, new Findings(), { receiptUnreadable: false }).end(inspected);
      this.verifications.push(scrubReport(report, this.scrubber));
    }
  }

  /** A receipt: its own reading, then a check of every replay of the session. */
  async receipt(key: ObjectKey): Promise<ProcessResult> {
    const findings = new Findings();
    const value = await readWhole(this.source.open(), findings, this.source.key);
    if (value !== null) readReceipt(value, findings);
    const verdict = combinedVerdict({ verdict: "passed", checks_total: zeroTotals() }, findings);
    const errors = scrubReport(findings.errors, this.scrubber);
    const record = this.record(key, {
      kind: "receipt",
      verdict,
      checks_total: { ...findings.checkCounts },
      errors_total: findings.errorCount,
      first_error:
        errors[0] === undefined
          ? null
          : { code: errors[0].code, message: errors[0].message, line: errors[0].line },
    });
    const document = this.document({
      kind: "receipt",
      verdict,
      tenant: key.tenant,
      session: key.session,
      file: key.file,
      error: errors[0] === undefined ? null : { code: errors[0].code, message: errors[0].message },
    });
    const result = await this.finish(record, document);
    if (result.outcome !== "written" || verdict === "invalid") return result;
    await this.checkSession(key, value ?? undefined);
    if (this.decided.length > 0)
      await this.ports.publisher.putDocument(
        record.verdict_key,
        `${JSON.stringify({ ...document, receipt_checks: this.documentChecks() })}\n`,
      );
    return { ...result, checks: this.checks };
  }

  /** The receipts recorded for the session (readable ones), consistent read. */
  private async receiptsOf(key: ObjectKey): Promise<FileRecord[]> {
    const files = await this.ports.index.listFiles(key.tenant, key.session);
    return files.filter((f) => f.kind === "receipt" && f.verdict !== "invalid");
  }

  /** A replay read again from the store for receipt checks, its tool calls fed to them. */
  private async reread(ref: ObjectRef, pending: readonly PendingCheck[]): Promise<InspectResult> {
    return inspect(this.ports.objects.open(ref), {
      file: ref.key,
      ...readOptionsOf(pending),
      ...this.readOptions(),
    });
  }

  /** Reads `receipt` and begins its check of a replay about to be read. */
  private async beginCheck(receipt: ObjectRef, read?: JsonValue): Promise<PendingCheck> {
    const findings = new Findings();
    const value = read ?? (await readWhole(this.ports.objects.open(receipt), findings, receipt.key));
    return { receipt, findings, check: beginVerify(value, findings, { receiptUnreadable: value === null }) };
  }

  /**
   * Ends the check of `replay` (inspected, its tool calls fed to `pending`), records it once, and
   * withdraws the replay's published copy (`published`) when the check fails.
   */
  private async check(
    key: ObjectKey,
    inspected: InspectResult,
    pending: PendingCheck,
    replay: ObjectRef,
    published: string | null = null,
  ): Promise<void> {
    const { receipt } = pending;
    const report: VerifyReport = pending.check.end(inspected);
    this.verifications.push(scrubReport(report, this.scrubber));
    const failed = report.verdict === "failed" || report.verdict === "invalid";
    let withdrawn: string | null = null;
    if (failed && published !== null && (await this.isRecorded(key, replay))) {
      // The copy goes first: a failure between the two leaves it unpublished (fail closed). The
      // version check before and the conditional mark keep a newer upload's record as it is.
      await this.ports.publisher.withdrawCopy(published);
      const outcome = await this.ports.index.markWithdrawn(
        key.tenant,
        key.session,
        replay,
        `receipt check against ${receipt.key} ${report.verdict}`,
      );
      if (outcome === "withdrawn") withdrawn = published;
    }
    const rows = scrubReport(report.checks, this.scrubber);
    const record: ReceiptCheckRecord = {
      tenant: key.tenant,
      session: key.session,
      replay,
      receipt,
      verdict: report.verdict,
      checks_total: { ...report.checks_total },
      failed: recordRows(rows.filter((r) => r.status === "failed")),
      withdrawn,
      processed_at: this.now(),
    };
    this.decided.push(record);
    if (report.verdict !== "passed") await this.reattest(key, replay, report.verdict);
    if ((await this.ports.index.putCheck(record)) === "written" || withdrawn !== null)
      this.checks.push(record);
  }

  /**
   * Rewrites the attestation of `replay`, already recorded, that a receipt check did not pass: it
   * said what the replay's own checks gave, and no longer holds. (Before its record exists, the
   * replay's own job writes the attestation with this check in it.)
   */
  private async reattest(key: ObjectKey, replay: ObjectRef, verdict: Verdict): Promise<void> {
    const recorded = await this.ports.index.getFile(key.tenant, key.session, replay.key);
    if (recorded === null || !isVersionOf(recorded.ref, replay) || recorded.replay_hash === null) return;
    await storeAttestation(this.ports, recorded, [verdict], this.now(), this.options);
  }

  /** Whether the index still records `replay`'s version (consistent read): not a newer upload's. */
  private async isRecorded(key: ObjectKey, replay: ObjectRef): Promise<boolean> {
    const recorded = await this.ports.index.getFile(key.tenant, key.session, replay.key);
    return recorded !== null && isVersionOf(recorded.ref, replay);
  }

  private documentChecks(): VerdictDocument["receipt_checks"] {
    return this.decided.map((c) => ({
      replay: c.replay,
      receipt: c.receipt,
      verdict: c.verdict,
      checks_total: c.checks_total,
      checks: c.failed,
    }));
  }

  private scrub(text: string): string {
    return this.scrubber.scrub(text, "$");
  }
}

/** The first error of a (scrubbed) report, for the index. */
function firstError(report: InspectReport): FileRecord["first_error"] {
  const e = report.errors[0];
  return e === undefined ? null : { code: e.code, message: e.message, line: e.line };
}
