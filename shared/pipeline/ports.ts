/**
 * The ports `processObject` works over. A Lambda handler backs them with S3 and DynamoDB, the CLI
 * with files under a folder, tests with memory (`memory-ports.ts`); the job itself is the same.
 */
import type { EnvelopeSigner } from "../attest/index.js";
import type { CheckRow, CheckStatus, FormatId, SessionSummary, Verdict } from "../formats/index.js";
import type { Spool } from "../spool/index.js";
import type { CopyFacts } from "./catalogue-types.js";
import type { Provenance } from "./provenance.js";

export type { Spool } from "../spool/index.js";

/** Which object a record or an event is about: its key and the version of its bytes. */
export interface ObjectRef {
  /** `<tenant>/<session>/<file>`, decoded (S3 event keys arrive URL-encoded). */
  key: string;
  /** The ETag of the bytes (quotes removed), or null where the store has none. */
  etag: string | null;
  /** The store's version id, or null for an unversioned store. */
  versionId: string | null;
  /** Bytes as stored, when known. */
  size: number | null;
  /**
   * Orders events for one key (S3's `sequencer`, compared as hex of equal length, or a local
   * counter): a record with a lower sequencer never replaces one with a higher.
   */
  sequencer: string | null;
}

/** The object being processed: its identity and its bytes, read once. */
export interface ObjectSource extends ObjectRef {
  /** The bytes as a stream. Called once per processing. */
  open(): AsyncIterable<Uint8Array>;
}

/** Reads other objects of the ingest store (a receipt's replays, a replay's receipt). */
export interface ObjectStore {
  /** The bytes of `ref.key` (at `ref.versionId` when given); rejects if it is gone. */
  open(ref: Pick<ObjectRef, "key" | "versionId">): AsyncIterable<Uint8Array>;
}

/**
 * Writes what the pipeline publishes and reports: never into the store it reads from. A publisher
 * that keeps the catalogue (catalogue.ts) records each copy's publication and withdrawal in it
 * before it returns.
 */
/** How a copy is published. */
export interface PublishOptions {
  /**
   * Given, keep the copy already published under the key when the new one is the same bytes with
   * the same facts (a reprocess whose rules change nothing in it), and call this: no new version,
   * no catalogue change. A publisher may not look (a large copy) and publish anyway.
   */
  onKept?: () => void;
}

export interface Publisher {
  /**
   * Writes a Layer C copy (published store) as a stream; nothing is left if the stream fails.
   * `facts` are what the catalogue lists beside the copy's own sha256.
   */
  publishCopy(
    key: string,
    body: AsyncIterable<Uint8Array>,
    facts: CopyFacts,
    options?: PublishOptions,
  ): Promise<void>;
  /** Removes a published copy (a receipt check failed after it was published), kept in the catalogue as withdrawn. */
  withdrawCopy(key: string): Promise<void>;
  /** Writes a verdict document (reports store), JSON text. */
  putDocument(key: string, body: string): Promise<void>;
}

/** What a processed object became. */
type FileKind = "replay" | "receipt" | "rejected";

/** One processed object, as the index keeps it: tenant-partitioned, keyed by object key. */
export interface FileRecord {
  tenant: string;
  session: string;
  /** The file name (the key's last segment). */
  file: string;
  ref: ObjectRef;
  kind: FileKind;
  format: FormatId | null;
  verdict: Verdict;
  checks_total: Record<CheckStatus, number>;
  errors_total: number;
  /** The first error (a rejected key's reason, an invalid file's first finding), scrubbed. */
  first_error: { code: string; message: string; line: number | null } | null;
  /** sha256 of the decompressed bytes; null for a rejected key. */
  replay_hash: string | null;
  bytes: number;
  /** The published Layer C copy's key, null when none was published or it was withdrawn. */
  layer_c_key: string | null;
  /** Where the verdict document is. */
  verdict_key: string;
  /**
   * The session summary (replays), every string scrubbed, within `RECORD_SUMMARY_BYTES` of JSON
   * (`recordSummary`): the verdict document has it whole.
   */
  summary: SessionSummary | null;
  /** Present (true) when `summary` was cut to fit. */
  summary_truncated?: true;
  /** Redactions by rule in the published copy. */
  redactions: Record<string, number> | null;
  /** ISO-8601 UTC time the record was made. */
  processed_at: string;
  /** Processing time, milliseconds. */
  ms: number;
  /** The tool version and rules digest that made the record; absent on records made before it was kept. */
  provenance?: Provenance;
  /** The reprocess run that replaced the record last (`ReprocessMode`); absent when none did. */
  reprocess_run?: string;
}

/** The result of checking one replay against one receipt, recorded once. */
export interface ReceiptCheckRecord {
  tenant: string;
  session: string;
  replay: ObjectRef;
  receipt: ObjectRef;
  verdict: Verdict;
  checks_total: Record<CheckStatus, number>;
  /** The failed rows (up to 100), every string scrubbed. */
  failed: CheckRow[];
  /** Whether a published copy of the replay was withdrawn because of this check. */
  withdrawn: string | null;
  processed_at: string;
}

/** What a conditional write did. */
export type PutOutcome =
  /** Written (new, or newer than what was there). */
  | "written"
  /** The same object version was recorded already: a redelivered event; nothing changed. */
  | "duplicate"
  /** A newer version of the key was recorded already: a late event; nothing changed. */
  | "stale";

/** What `markWithdrawn` did: `withdrawn`, or `stale` when the record is of a newer version. */
export type WithdrawOutcome = "withdrawn" | "stale";

/**
 * The session index. Every write is conditional and idempotent (keyed by object key and version
 * or ETag), so a redelivered or late event changes and counts nothing twice; reads a check depends
 * on are consistent.
 */
export interface SessionIndex {
  /** Records a processed object (replay, receipt or rejected key). */
  putFile(record: FileRecord): Promise<PutOutcome>;
  /**
   * Replaces the record of `record.ref`'s version made by other rules (reprocess `runId`): only
   * while the key's record is of that version and no earlier try of the same run replaced it.
   * `duplicate` when this run replaced it already, `stale` when the record is of another version.
   */
  replaceFile(record: FileRecord, runId: string): Promise<PutOutcome>;
  /** The record of one key, consistent read; null when there is none. */
  getFile(tenant: string, session: string, key: string): Promise<FileRecord | null>;
  /** Every record of a session, consistent read, all pages. */
  listFiles(tenant: string, session: string): Promise<FileRecord[]>;
  /** Every receipt check recorded in a session (of any version), consistent read, all pages. */
  listChecks(tenant: string, session: string): Promise<ReceiptCheckRecord[]>;
  /** Records a receipt check; `duplicate` when that replay version was already checked against that receipt version. */
  putCheck(record: ReceiptCheckRecord): Promise<PutOutcome>;
  /**
   * Marks the published copy of `replay` withdrawn in its record (`layer_c_key` becomes null), only
   * while the record is of that version (version id, else ETag): `stale` when a newer version has
   * been recorded since, whose record (and published key) is left as it is.
   */
  markWithdrawn(tenant: string, session: string, replay: ObjectRef, reason: string): Promise<WithdrawOutcome>;
}

/** Everything `processObject` reads and writes through. */
export interface Ports {
  objects: ObjectStore;
  publisher: Publisher;
  index: SessionIndex;
  spool: Spool;
  /** Signs the attestations (the deployment's KMS key); absent or null: they are stored unsigned. */
  signer?: EnvelopeSigner | null;
}
