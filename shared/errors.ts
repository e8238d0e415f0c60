/** Where in an input a problem was found. Lines and columns are 1-based; columns count code points. */
export interface SourceLocation {
  /** File name as the user gave it, when known. */
  file?: string;
  line?: number;
  column?: number;
  /** JSON path of the offending value (`$.a[0].b`), when known. */
  path?: string;
}

/** Formats a location as `file: line L, column C, at $.path`, leaving out what is unknown. */
function formatLocation(loc: SourceLocation): string {
  const parts: string[] = [];
  if (loc.line !== undefined) parts.push(`line ${loc.line}`);
  if (loc.column !== undefined) parts.push(`column ${loc.column}`);
  if (loc.path !== undefined) parts.push(`at ${loc.path}`);
  const where = parts.join(", ");
  if (loc.file === undefined) return where;
  return where === "" ? loc.file : `${loc.file}: ${where}`;
}

/**
 * What a queue does with a failed job (DESIGN.md): `input` — the file is bad, record the verdict
 * and never retry; `transient` — throttling, a timeout, a full disk: retry, then dead-letter;
 * `config` — the deployment or the caller's setup is wrong; `bug` — this code broke a contract.
 */
export type ErrorKind = "input" | "transient" | "config" | "bug";

/**
 * Every error code the project raises, with the kind it has unless a throw site says otherwise
 * (an I/O error's kind depends on its cause). The CLI's codes are listed too: codes are one
 * public vocabulary (reports, exit codes and tests key on them), wherever they are raised.
 */
export const ERROR_KINDS = {
  // The lossless JSON reader and JSON Lines splitting.
  "json.bad_escape": "input",
  "json.bom": "input",
  "json.control_character": "input",
  "json.duplicate_key": "input",
  "json.invalid_utf8": "input",
  "json.lone_surrogate": "input",
  "json.non_finite": "input",
  "json.syntax": "input",
  "json.too_deep": "input",
  "jsonl.line_too_long": "input",
  // A value a canonical profile cannot serialize.
  "canonical.lone_surrogate": "input",
  "canonical.non_finite": "input",
  "canonical.timestamp_range": "input",
  "canonical.too_deep": "input",
  // Reading a whole stream or document.
  "document.too_large": "input",
  "document.trailing_content": "input",
  "format.not_lines": "input",
  "format.unknown": "input",
  "gzip.corrupt": "input",
  "gzip.ratio": "input",
  "gzip.too_large": "input",
  "input.empty": "input",
  "input.binary": "input",
  "input.encoding": "input",
  "export.invalid_bundle": "input",
  "export.not_bundle": "input",
  // Attestations (shared/attest).
  "attest.key": "config",
  "attest.malformed": "input",
  "attest.bad_signature": "input",
  "attest.unsigned": "input",
  "attest.subject_mismatch": "input",
  // Layer C.
  "redact.not_object": "input",
  "redact.refused": "input",
  "redact.not_copied": "input",
  "redact.spool_short_write": "transient",
  "redact.spool_truncated": "transient",
  "redact.not_finished": "bug",
  "redact.incomplete": "bug",
  "redact.unknown_preset": "bug",
  "redact.pack_rule": "config",
  "receipt.no_session": "bug",
  "findings.unlisted_within_cap": "bug",
  // Worker threads. A task's own error is raised again on the calling thread (with its own code),
  // so a crash left over is the environment's (memory, a killed thread): worth a retry.
  "worker.crashed": "transient",
  "worker.task_failed": "bug",
  "worker.none_ready": "bug",
  "worker.not_a_thread": "bug",
  "worker.unknown_task": "config",
  "worker.no_script": "config",
  // Storage and services, for the I/O adapters (`TransientError`).
  "io.throttled": "transient",
  "io.timeout": "transient",
  "io.unavailable": "transient",
  // The CLI (cli/errors.ts).
  "cli.usage": "config",
  "io.not_found": "config",
  "io.permission": "config",
  "io.is_directory": "config",
  "io.read": "config",
  "io.write": "config",
  "io.too_large": "input",
  "scan.no_files": "config",
  "cli.local_stack": "config",
  "cli.aws": "config",
  "cli.not_comparable": "config",
  "io.no_files": "config",
  // The AWS adapters, the handlers and the audit (functions/).
  "aws.transient": "transient",
  "s3.read_interrupted": "transient",
  "s3.read_overrun": "transient",
  "s3.object_changed": "input",
  "index.sequencer": "input",
  "index.no_record": "bug",
  "reprocess.no_record": "bug",
  "reprocess.manifest": "config",
  "index.item_size": "bug",
  "index.day_query": "config",
  "index.cursor_invalid": "input",
  "config.invalid": "config",
  "config.secret": "config",
  "config.shards": "config",
  "ingest.bucket": "config",
  "catalogue.unsettled": "transient",
  "catalogue.mismatch": "input",
  "audit.period": "config",
  "audit.tenant": "config",
} as const satisfies Record<string, ErrorKind>;

/** One of the codes of `ERROR_KINDS`. */
export type ErrorCode = keyof typeof ERROR_KINDS;

/** What an error's constructor takes beside code, detail and location. */
export interface ErrorOptions {
  cause?: unknown;
  /** The kind, where the throw site knows better than the code's default (an I/O error's cause). */
  kind?: ErrorKind;
}

/**
 * The one base class of every error this project raises on purpose. `code` is stable and
 * machine-readable (reports, exit codes and tests key on it); `kind` says whether a queue retries
 * it; `detail` says what was wrong and what was expected; `location` says where. The message is
 * rebuilt from both whenever a caller that knows more (the file name, the line of a JSON Lines
 * file) adds it with `locate`.
 */
export class ReplayPipelineError extends Error {
  /** Stable, dotted identifier such as `json.duplicate_key`. */
  readonly code: ErrorCode;
  /** How a queue treats it (`ErrorKind`). */
  readonly kind: ErrorKind;
  /** The description without the location. */
  readonly detail: string;
  location: SourceLocation;

  constructor(code: ErrorCode, detail: string, location: SourceLocation = {}, options: ErrorOptions = {}) {
    super(ReplayPipelineError.compose(detail, location), { cause: options.cause });
    this.code = code;
    this.kind = options.kind ?? ERROR_KINDS[code];
    this.detail = detail;
    this.location = location;
    this.name = new.target.name;
  }

  private static compose(detail: string, location: SourceLocation): string {
    const where = formatLocation(location);
    return where === "" ? detail : `${where}: ${detail}`;
  }

  /** Adds the file name and shifts the line by `lineOffset` (for a document inside a larger file). */
  locate(fields: { file?: string; lineOffset?: number }): this {
    const location: SourceLocation = { ...this.location };
    if (fields.file !== undefined) location.file = fields.file;
    if (fields.lineOffset !== undefined) location.line = (location.line ?? 1) + fields.lineOffset;
    this.location = location;
    this.message = ReplayPipelineError.compose(this.detail, location);
    return this;
  }
}

/** Input that is not acceptable JSON: syntax, encoding, duplicate keys, nesting depth, size. */
export class JsonInputError extends ReplayPipelineError {}

/** A value that is valid JSON but that the chosen canonical profile cannot serialize. */
export class CanonicalizationError extends ReplayPipelineError {}

/** A stream-level problem that ends reading: gzip bomb, corrupt gzip, document too large. */
export class StreamLimitError extends ReplayPipelineError {}

/**
 * A file that is not UTF-8 text at all (binary data, UTF-16 or UTF-32, a byte order mark): one
 * error naming what it is, instead of one per undecodable line. Reading stops there.
 */
export class NotTextError extends JsonInputError {}

/** A Layer C failure (unknown format, unreadable line, spool trouble); `location` names the line. */
export class RedactError extends ReplayPipelineError {}

/**
 * A ReplayBundle that cannot be exported: `export.invalid_bundle` (`location.path` says where), or
 * `export.not_bundle` for another format (a REPLAY.jsonl, an .rpk) given in its place.
 */
export class ExportError extends ReplayPipelineError {
  constructor(
    detail: string,
    path: string,
    code: "export.invalid_bundle" | "export.not_bundle" = "export.invalid_bundle",
  ) {
    super(code, detail, { path });
  }
}

/** An attestation key that cannot be used, or an attestation that is malformed or whose signature fails. */
export class AttestationError extends ReplayPipelineError {}

/** A worker thread failed (crashed, or its task threw where the calling thread's would not). */
export class WorkerPoolError extends ReplayPipelineError {}

/** A caller broke a function's contract (a missing session, an unknown preset): a bug. */
export class ContractError extends ReplayPipelineError {}

/** The codes whose default kind is `transient`. */
export type TransientCode = {
  [C in ErrorCode]: (typeof ERROR_KINDS)[C] extends "transient" ? C : never;
}[ErrorCode];

/** Throttling, a timeout or a server error of a store or service: the queue retries the job. */
export class TransientError extends ReplayPipelineError {
  constructor(
    code: TransientCode,
    detail: string,
    location: SourceLocation = {},
    options?: { cause?: unknown },
  ) {
    super(code, detail, location, { ...options, kind: "transient" });
  }
}

/**
 * Operating-system error codes that say "not now" rather than "never": a full disk, too many open
 * files, a busy or slow resource, a dropped connection.
 */
const TRANSIENT_ERRNO: ReadonlySet<string> = new Set([
  "ENOSPC",
  "EDQUOT",
  "EMFILE",
  "ENFILE",
  "EAGAIN",
  "EBUSY",
  "EIO",
  "ENOMEM",
  "ETIMEDOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
]);

/**
 * The kind of anything thrown: a `ReplayPipelineError`'s own; a Node system error whose code says
 * "not now" (`ENOSPC`, `EMFILE`, …) is `transient`; anything else was not expected, so a `bug`.
 */
export function kindOf(error: unknown): ErrorKind {
  if (error instanceof ReplayPipelineError) return error.kind;
  const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
  return typeof code === "string" && TRANSIENT_ERRNO.has(code) ? "transient" : "bug";
}
