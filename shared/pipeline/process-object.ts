/**
 * The whole job for one uploaded object, over ports: key rules, then for a replay one read that
 * inspects (gzip, detection, validation, every hash) and makes the Layer C copy at once, receipt
 * checks through the index, publication only of what did not fail, and the verdict document and
 * index record; for a receipt, its own check and a check of every replay of its session.
 */
import { createHash } from "node:crypto";
import { createGunzip } from "node:zlib";
import { buildAttestation, keyIdOf, type VsaStatement } from "../attest/index.js";
import type { JsonValue } from "../canonical/index.js";
import { ReplayPipelineError } from "../errors.js";
import { type InspectReport, type InspectResult, inspect } from "../formats/inspect.js";
import { type CheckRow, type CheckStatus, Findings, type Verdict } from "../formats/types.js";
import type { ParallelOptions } from "../parallel/line-pool.js";
import {
  combinedVerdict,
  parseReceiptJson,
  readReceipt,
  type VerifyReport,
  verifyReplay,
} from "../receipt/index.js";
import { redactChecked } from "../redact/checked.js";
import type { LayerCSummary } from "../redact/index.js";
import type { Preset } from "../redact/presets.js";
import { scrubReport } from "../redact/report.js";
import { Scrubber } from "../redact/scrub.js";
import {
  attestationKey,
  isReceiptName,
  layerCKey,
  type ObjectKey,
  parseObjectKey,
  verdictKey,
} from "./keys.js";
import type { FileRecord, ObjectRef, ObjectSource, Ports, PutOutcome, ReceiptCheckRecord } from "./ports.js";
import { putOutcome } from "./versions.js";

/** How `processObject` reads, redacts and stamps. */
export interface ProcessOptions {
  /** This tool's version, written into every verdict document. */
  toolVersion: string;
  /** Layer C preset (default `private_repo`). */
  preset?: Preset;
  /** Key for Layer C's keyed pseudonyms. */
  redactionKey?: Uint8Array;
  /** ReplayKit signature key: with it a signature is required. */
  hmacKey?: Uint8Array;
  /** Worker threads for large JSON Lines files. */
  parallel?: ParallelOptions;
  /** Folder for the Layer C spool (a Lambda's `/tmp`). */
  tmpDir?: string;
  maxLineBytes?: number;
  maxDocumentBytes?: number;
  maxDecompressedBytes?: number;
  /** The clock (tests pin it). */
  now?: () => Date;
}

/** The verdict document: what the reports store keeps for one processed object. */
export interface VerdictDocument {
  schema: "replay-pipeline.verdict.v1";
  tool: { name: "replay-pipeline"; version: string };
  object: ObjectRef;
  tenant: string | null;
  session: string | null;
  file: string | null;
  kind: FileRecord["kind"];
  verdict: Verdict;
  /** `inspect --json` of the object (replays), scrubbed. */
  report: InspectReport | null;
  /** Checks against receipts (a replay) or of replays (a receipt) made while processing it. */
  receipt_checks: {
    replay: ObjectRef;
    receipt: ObjectRef;
    verdict: Verdict;
    checks_total: Record<CheckStatus, number>;
    checks: CheckRow[];
  }[];
  /** The published copy and its redaction record; null when nothing was published. */
  layer_c: { key: string; summary: LayerCSummary } | null;
  /** Why nothing was published, when nothing was. */
  not_published: string | null;
  /** A rejected key's or unreadable receipt's reason. */
  error: { code: string; message: string } | null;
  timings: { total_ms: number };
  processed_at: string;
}

/** What processing one object did. */
export interface ProcessResult {
  /** The file record's write: `duplicate` or `stale` mean the event changed nothing. */
  outcome: PutOutcome;
  record: FileRecord;
  document: VerdictDocument;
  /** Receipt checks recorded by this run (empty for a duplicate or stale event). */
  checks: ReceiptCheckRecord[];
}

/** Rows of a check kept in documents and records. */
const KEPT_ROWS = 100;
/** Largest receipt read, bytes. */
const MAX_RECEIPT_BYTES = 64 * 1024 * 1024;

const zeroTotals = (): Record<CheckStatus, number> => ({ passed: 0, failed: 0, unverifiable: 0 });

/**
 * Processes one object of the ingest store. Bad input of any kind is a verdict (recorded, never
 * thrown); only a port's failure throws (a `transient` one is worth a retry), and then nothing is
 * recorded, so the retry does the whole job again. A redelivered event (`duplicate`) or a late one
 * for an older version (`stale`) changes nothing.
 */
export async function processObject(
  source: ObjectSource,
  ports: Ports,
  options: ProcessOptions,
): Promise<ProcessResult> {
  const job = new Job(source, ports, options);
  const parsed = parseObjectKey(source.key);
  if (!parsed.ok) return job.reject(parsed.problem);
  const known = await ports.index.getFile(parsed.key.tenant, parsed.key.session, source.key);
  const outcome = putOutcome(known?.ref, source);
  if (known !== null && outcome !== "written") return job.skipped(known, outcome);
  return isReceiptName(parsed.key.file) ? job.receipt(parsed.key) : job.replay(parsed.key);
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
  private readonly checks: ReceiptCheckRecord[] = [];
  private readonly ref: ObjectRef;

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
    await this.ports.publisher.putDocument(record.verdict_key, `${JSON.stringify(document)}\n`);
    if (record.kind === "replay" && record.replay_hash !== null)
      await this.ports.publisher.putDocument(
        attestationKey(record.verdict_key),
        `${JSON.stringify(this.attestation(record, document))}\n`,
      );
    const outcome = await this.ports.index.putFile(record);
    return { outcome, record, document, checks: this.checks };
  }

  /** The verdict as an in-toto Statement with the SLSA VSA predicate (unsigned). */
  private attestation(record: FileRecord, document: VerdictDocument): VsaStatement {
    return buildAttestation({
      name: record.ref.key,
      resourceUri: `urn:replay-pipeline:object:${record.ref.key.split("/").map(encodeURIComponent).join("/")}`,
      replayHash: record.replay_hash as string,
      verdict: record.verdict,
      command: "pipeline",
      format: record.format,
      checksTotal: record.checks_total,
      errorsTotal: record.errors_total,
      toolVersion: this.options.toolVersion,
      timeVerified: document.processed_at,
      policy: {
        preset: this.options.preset ?? "private_repo",
        keyId: this.options.hmacKey === undefined ? null : keyIdOf(this.options.hmacKey),
      },
    });
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
      first_error: null,
      replay_hash: null,
      bytes: 0,
      layer_c_key: null,
      verdict_key: verdictKey(this.source.key),
      summary: null,
      redactions: null,
      processed_at: this.now(),
      ms: Date.now() - this.started,
      ...fields,
    };
  }

  /** A key that breaks the rules: an `invalid` verdict under a key-safe name, nothing read. */
  async reject(problem: { code: string; message: string }): Promise<ProcessResult> {
    const digest = createHash("sha256").update(this.source.key, "utf8").digest("hex");
    const key: ObjectKey = { tenant: "_rejected", session: digest.slice(0, 16), file: digest };
    const record = this.record(key, {
      kind: "rejected",
      verdict: "invalid",
      errors_total: 1,
      first_error: { ...problem, line: null },
      verdict_key: `results/_rejected/${digest}.json`,
    });
    const document = this.document({ kind: "rejected", verdict: "invalid", error: problem });
    return this.finish(record, document);
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
    };
  }

  /** A replay: one read for inspect and Layer C, receipt checks, publication, record. */
  async replay(key: ObjectKey): Promise<ProcessResult> {
    const { ports, options } = this;
    const receiptsBefore = await this.receiptsOf(key);
    const redaction = redactChecked(this.source.open(), {
      file: this.source.key,
      allowUnverified: true,
      keepToolCalls: receiptsBefore.length > 0,
      ...(options.preset === undefined ? {} : { preset: options.preset }),
      ...(options.redactionKey === undefined ? {} : { key: options.redactionKey }),
      ...(options.hmacKey === undefined ? {} : { hmacKey: options.hmacKey }),
      ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
      ...(options.tmpDir === undefined ? {} : { tmpDir: options.tmpDir }),
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      ...(options.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: options.maxDocumentBytes }),
      ...(options.maxDecompressedBytes === undefined
        ? {}
        : { maxDecompressedBytes: options.maxDecompressedBytes }),
    });
    // The copy is made while inspect reads (both take the same bytes): start it now, decide later.
    const copy = redaction.chunks[Symbol.asyncIterator]();
    const first = copy.next();
    first.catch(() => undefined);
    const inspected = await redaction.inspected;
    const report = inspected.report;
    for (const receipt of receiptsBefore) await this.check(key, inspected, receipt.ref, this.ref);

    let published: string | null = null;
    let notPublished: string | null = null;
    let summary: LayerCSummary | null = null;
    if (report.verdict === "failed" || report.verdict === "invalid") {
      notPublished = `the file is ${report.verdict}: only a file that is not failed or invalid is published`;
    } else if (this.checks.some((c) => c.verdict === "failed" || c.verdict === "invalid")) {
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
        await ports.publisher.publishCopy(target, prepend(ended, copy));
        published = target;
        summary = redaction.summary();
      }
    } else {
      await copy.return?.(undefined);
    }

    const shown = scrubReport(report, this.scrubber);
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
      summary: shown.summary,
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
    if (result.outcome !== "written") return result;
    // A receipt that landed while this ran may not have seen this record: look again (consistent).
    const checked = new Set(receiptsBefore.map((r) => r.ref.key));
    const late = (await this.receiptsOf(key)).filter((r) => !checked.has(r.ref.key));
    if (late.length > 0) {
      const again = await this.reread(this.ref);
      for (const receipt of late) await this.check(key, again, receipt.ref, this.ref, published);
      if (this.checks.some((c) => c.withdrawn !== null)) {
        record.layer_c_key = null;
      }
    }
    return { ...result, checks: this.checks };
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
    for (const replay of await this.ports.index.listFiles(key.tenant, key.session)) {
      if (replay.kind !== "replay" || replay.verdict === "invalid") continue;
      const inspected = await this.reread(replay.ref);
      await this.check(key, inspected, this.ref, replay.ref, replay.layer_c_key);
    }
    if (this.checks.length > 0)
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

  /** A replay read again from the store, with its tool calls, for a receipt check. */
  private async reread(ref: ObjectRef): Promise<InspectResult> {
    return inspect(this.ports.objects.open(ref), {
      file: ref.key,
      keepToolCalls: true,
      ...(this.options.hmacKey === undefined ? {} : { hmacKey: this.options.hmacKey }),
      ...(this.options.parallel === undefined ? {} : { parallel: this.options.parallel }),
    });
  }

  /**
   * Checks `replay` (inspected) against `receipt`, records the check once, and withdraws the
   * replay's published copy (`published`) when the check fails.
   */
  private async check(
    key: ObjectKey,
    inspected: InspectResult,
    receipt: ObjectRef,
    replay: ObjectRef,
    published: string | null = null,
  ): Promise<void> {
    const findings = new Findings();
    const value = await readWhole(this.ports.objects.open(receipt), findings, receipt.key);
    const report: VerifyReport = verifyReplay(inspected, value, findings, {
      receiptUnreadable: value === null,
    });
    const failed = report.verdict === "failed" || report.verdict === "invalid";
    let withdrawn: string | null = null;
    if (failed && published !== null) {
      await this.ports.publisher.withdrawCopy(published);
      await this.ports.index.markWithdrawn(
        key.tenant,
        key.session,
        replay.key,
        `receipt check against ${receipt.key} ${report.verdict}`,
      );
      withdrawn = published;
    }
    const rows = scrubReport(report.checks, this.scrubber);
    const record: ReceiptCheckRecord = {
      tenant: key.tenant,
      session: key.session,
      replay,
      receipt,
      verdict: report.verdict,
      checks_total: { ...report.checks_total },
      failed: rows.filter((r) => r.status === "failed").slice(0, KEPT_ROWS),
      withdrawn,
      processed_at: this.now(),
    };
    if ((await this.ports.index.putCheck(record)) === "written" || withdrawn !== null)
      this.checks.push(record);
  }

  private documentChecks(): VerdictDocument["receipt_checks"] {
    return this.checks.map((c) => ({
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

/** `first` (already taken from `rest`) followed by the rest of the stream. */
async function* prepend(
  first: IteratorResult<Uint8Array>,
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (first.done === true) return;
  yield first.value;
  for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
}

/**
 * A whole JSON document (a receipt), gunzipped when compressed, at most `MAX_RECEIPT_BYTES`;
 * a problem is an error finding and null.
 */
async function readWhole(
  body: AsyncIterable<Uint8Array>,
  findings: Findings,
  file: string,
): Promise<JsonValue | null> {
  const parts: Buffer[] = [];
  let size = 0;
  const fail = (code: string, message: string): null => {
    findings.error({ line: null, column: null, path: "$", code, message: `${file}: ${message}` });
    return null;
  };
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RECEIPT_BYTES)
      return fail("receipt.too_large", `larger than ${MAX_RECEIPT_BYTES} bytes; expected a receipt`);
    parts.push(Buffer.from(chunk));
  }
  let bytes: Buffer = Buffer.concat(parts);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = await gunzip(bytes);
    } catch (error) {
      return fail(
        "gzip.corrupt",
        `gzip data is corrupt (${(error as Error).message}); expected a complete gzip stream`,
      );
    }
  }
  return parseReceiptJson(bytes, file, findings);
}

/** Gunzips at most `MAX_RECEIPT_BYTES`. */
async function gunzip(bytes: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  let size = 0;
  const stream = createGunzip();
  stream.end(bytes);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RECEIPT_BYTES) throw new Error(`expands past ${MAX_RECEIPT_BYTES} bytes`);
    out.push(chunk);
  }
  return Buffer.concat(out);
}
