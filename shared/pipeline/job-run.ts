/**
 * One run of the per-file job: its clock, scrubber and mode, the record and verdict document it
 * builds, the receipt checks it collects, and the write that commits them.
 */
import type { CheckStatus, InspectOptions } from "../formats/index.js";
import type { VerifyReport } from "../receipt/index.js";
import { Scrubber } from "../redact/index.js";
import { storeAttestation } from "./attestation.js";
import type { JobMode, ProcessOptions, ProcessResult, VerdictDocument } from "./job-types.js";
import { type ObjectKey, verdictKey } from "./keys.js";
import type { FileRecord, ObjectRef, ObjectSource, Ports, PutOutcome, ReceiptCheckRecord } from "./ports.js";
import { provenanceOf } from "./provenance.js";
import { recordError } from "./record-bounds.js";
import { withdrawReplaced } from "./reprocess.js";

/** Check counts of nothing checked. */
export const zeroTotals = (): Record<CheckStatus, number> => ({ passed: 0, failed: 0, unverifiable: 0 });

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

/** One run of the job: what it reads, how, and what it has found so far. */
export class JobRun {
  private readonly started = Date.now();
  readonly scrubber = new Scrubber({ preset: "private_repo" });
  readonly ref: ObjectRef;
  readonly mode: JobMode;
  /** Checks this run recorded (a redelivery finds them recorded and counts nothing twice). */
  readonly checks: ReceiptCheckRecord[] = [];
  /** Every check this run made, recorded now or by an earlier run: what it decides and documents. */
  readonly decided: ReceiptCheckRecord[] = [];
  /** The whole report of each check this run made, scrubbed. */
  readonly verifications: VerifyReport[] = [];
  /** Reprocess mode: the record being replaced (its copy is withdrawn when the new rules ask). */
  previous: FileRecord | null = null;

  constructor(
    readonly source: ObjectSource,
    readonly ports: Ports,
    readonly options: ProcessOptions,
  ) {
    this.ref = refOf(source);
    this.mode = options.mode ?? { kind: "pipeline" };
  }

  /** The run's clock, as an ISO time. */
  now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  /** `text` as the scrubber passes it. */
  scrub(text: string): string {
    return this.scrubber.scrub(text, "$");
  }

  /** A verdict document of this object, `fields` over the defaults. */
  document(fields: Partial<VerdictDocument> & Pick<VerdictDocument, "kind" | "verdict">): VerdictDocument {
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

  /** The index record of this object under `key`, `fields` over the defaults. */
  record(key: ObjectKey, fields: Partial<FileRecord> & Pick<FileRecord, "kind" | "verdict">): FileRecord {
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

  /** The checks this run decided, as the verdict document lists them. */
  documentChecks(): VerdictDocument["receipt_checks"] {
    return this.decided.map((c) => ({
      replay: c.replay,
      receipt: c.receipt,
      verdict: c.verdict,
      checks_total: c.checks_total,
      checks: c.failed,
    }));
  }

  /** Writes the document, then the record (the commit point: a retry after a failure redoes both). */
  async finish(record: FileRecord, document: VerdictDocument): Promise<ProcessResult> {
    // Reprocess: a copy the new rules do not publish is withdrawn before its record says so.
    if (record.layer_c_key === null) await withdrawReplaced(this.ports.publisher, this.previous, null);
    await this.ports.publisher.putDocument(record.verdict_key, `${JSON.stringify(document)}\n`);
    if (record.kind === "replay" && record.replay_hash !== null) {
      const verdicts = document.receipt_checks.map((c) => c.verdict);
      await storeAttestation(this.ports, record, verdicts, document.processed_at, this.options);
    }
    const index = this.ports.index;
    const outcome = await (this.mode.kind === "reprocess"
      ? index.replaceFile(record, this.mode.runId)
      : index.putFile(record));
    return { outcome, record, document, checks: this.checks, verifications: this.verifications };
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

  /** The signature key, pool and limits the object is read with, alone or with Layer C. */
  readOptions(): Pick<
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
}
