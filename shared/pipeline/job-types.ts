/** What the per-file job takes and gives: its options, the verdict document and the result. */
import type { CheckRow, CheckStatus, InspectReport, Verdict } from "../formats/index.js";
import type { ParallelOptions } from "../parallel/index.js";
import type { VerifyReport } from "../receipt/index.js";
import type { LayerCSummary, PackRule, Preset } from "../redact/index.js";
import type { FileRecord, ObjectRef, PutOutcome, ReceiptCheckRecord } from "./ports.js";
import type { Provenance } from "./provenance.js";

/**
 * Reprocess mode: the job runs again on the version its record names (rules changed) and replaces
 * that record, once per run: a record already replaced by `runId`, or of another version, is left
 * as it is (`duplicate`, `stale`), so a resumed run does not redo a file.
 */
export interface ReprocessMode {
  kind: "reprocess";
  /** The run's id, written into each record it replaces (`reprocess_run`). */
  runId: string;
}

/**
 * What a local job checks its replay against: a receipt given (`verify --receipt`; read through
 * `ports.objects`), `none` (a check against no receipt: one unverifiable report, nothing
 * recorded), or `unchecked` (no receipt check at all).
 */
export type LocalReceipt = ObjectRef | "none" | "unchecked";

/**
 * Which job `processObject` runs:
 * - `pipeline`: an object of the ingest store, held to its key rules, checked against the session's
 *   receipts in the index (a RECEIPT.json is a receipt and checks the session's replays);
 * - `reprocess`: the same, on an already recorded version whose record it replaces (`ReprocessMode`);
 * - `local`: a path on this machine, as given (the CLI's `inspect`, `verify`, `redact`, `scan`): no
 *   key rules, tenant and session `local`, every object a replay, checked against `receipt` only;
 * - `inspect-only`: as `local`, without the Layer C copy (no transform runs).
 */
export type JobMode =
  | { kind: "pipeline" }
  | ReprocessMode
  | { kind: "local"; receipt: LocalReceipt }
  | { kind: "inspect-only"; receipt: LocalReceipt };

/** How `processObject` reads, redacts and stamps. */
export interface ProcessOptions {
  /** This tool's version, written into every verdict document. */
  toolVersion: string;
  /** Layer C preset (default `private_repo`). */
  preset?: Preset;
  /** Key for Layer C's keyed pseudonyms. */
  redactionKey?: Uint8Array;
  /** A rule pack's secret rules, run beside the built-in ones (they go into the rules digest). */
  packRules?: readonly PackRule[];
  /** ReplayKit signature key: with it a signature is required. */
  hmacKey?: Uint8Array;
  /** Worker threads for large JSON Lines files. */
  parallel?: ParallelOptions;
  maxLineBytes?: number;
  maxDocumentBytes?: number;
  maxDecompressedBytes?: number;
  /** The clock (tests pin it). */
  now?: () => Date;
  /** Publish the copy of a `failed` or `invalid` replay too; its record says so (`redact --allow-unverified`). */
  publishUnverified?: boolean;
  /**
   * The digest of the rules this job runs (`Provenance.rules_digest`); default
   * `rulesDigest(preset, packRules)`. A rule pack that changes more than rules (a key) gives its own.
   */
  rulesDigest?: string;
  /** Which job runs (default `pipeline`). */
  mode?: JobMode;
}

/**
 * The rules a deployment (or a test) runs when not the built-in defaults: a preset, a pseudonym
 * key, a rule pack's secret rules, a signature key (a signature then required), and the digest
 * recorded for them (default: `rulesDigest(preset, packRules)`).
 */
export type RulePack = Pick<
  ProcessOptions,
  "preset" | "redactionKey" | "packRules" | "hmacKey" | "rulesDigest"
>;

/** The verdict document: what the reports store keeps for one processed object. */
export interface VerdictDocument {
  schema: "replay-pipeline.verdict.v1";
  tool: { name: "replay-pipeline"; version: string };
  /** The tool version and rules digest that made this verdict. */
  provenance: Provenance;
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
  /** The whole report of each receipt check this run made, scrubbed: what `verify` prints. */
  verifications: VerifyReport[];
  /** Reprocess: the copy published before was kept (the new rules made the same bytes). */
  copyKept?: true;
}
