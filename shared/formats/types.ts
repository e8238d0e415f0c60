import type { ByteLine, JsonValue, MemberHashes, SplitLine } from "../canonical/index.js";
import { ContractError, type ReplayPipelineError } from "../errors.js";
import type { LineTaskModule } from "../parallel/index.js";

/** The formats `inspect` recognizes, by content. */
export const FORMAT_IDS = [
  "replay-v1",
  "replay-dsrs",
  "replay-adr0003",
  "replay-bundle",
  "braintrust-spans",
  "replaykit-rpk",
] as const;

/** One of `FORMAT_IDS`. */
export type FormatId = (typeof FORMAT_IDS)[number];

/** Outcome of one check row. */
export type CheckStatus = "passed" | "failed" | "unverifiable";

/**
 * One recomputed hash or comparison (DESIGN.md verdict model). `subject` names what was checked
 * so a person can find it: `line 12 ToolCall step-3 params`, `step step-001`, `envelope`.
 */
export interface CheckRow {
  check: string;
  subject: string;
  expected: string | null;
  actual: string | null;
  status: CheckStatus;
}

/** An error or a notice about the input, located as precisely as the format allows. */
export interface Finding {
  /** 1-based line of the file (JSON Lines) or of the document; null when not applicable. */
  line: number | null;
  /** 1-based column in characters; null when unknown. */
  column: number | null;
  /** JSON path inside the line's or document's value, `$` for the whole. */
  path: string;
  /** Stable identifier such as `replay.missing_field`. */
  code: string;
  message: string;
  expected?: string;
  found?: string;
}

/** The finding for a typed error about the input: where it was found, its code and its detail. */
export function findingOf(error: ReplayPipelineError): Finding {
  return {
    line: error.location.line ?? null,
    column: error.location.column ?? null,
    path: error.location.path ?? "$",
    code: error.code,
    message: error.detail,
  };
}

/** The file's verdict: `invalid` for unreadable input, else from the check rows. */
export type Verdict = "passed" | "failed" | "unverifiable" | "invalid";

/** How many errors and notices are listed; the rest are counted. */
const MAX_LISTED = 100;

/** How many check rows of each status are listed; the rest are counted. */
export const MAX_ROWS = 1000;

/**
 * Collects what inspecting one file finds. Errors, notices and check rows beyond their caps are
 * counted, not kept, so a file with millions of lines still uses bounded memory; the verdict comes
 * from the counts.
 */
export class Findings {
  readonly errors: Finding[] = [];
  readonly notices: Finding[] = [];
  readonly checks: CheckRow[] = [];
  readonly checkCounts: Record<CheckStatus, number> = { passed: 0, failed: 0, unverifiable: 0 };
  errorCount = 0;
  noticeCount = 0;

  error(finding: Finding): void {
    this.errorCount++;
    if (this.errors.length < MAX_LISTED) this.errors.push(finding);
  }

  /** An error that ends reading (gzip bomb, document too large): always listed, past the cap too. */
  fatal(finding: Finding): void {
    this.errorCount++;
    this.errors.push(finding);
  }

  notice(finding: Finding): void {
    this.noticeCount++;
    if (this.notices.length < MAX_LISTED) this.notices.push(finding);
  }

  check(row: CheckRow): void {
    const n = ++this.checkCounts[row.status];
    if (n <= MAX_ROWS) this.checks.push(row);
  }

  /**
   * Counts `n` rows of `status` that a streaming check knows fall past the listing cap (at least
   * `MAX_ROWS` of that status came first), without making them.
   */
  countUnlisted(status: CheckStatus, n: number): void {
    if (n === 0) return;
    if (this.checkCounts[status] < MAX_ROWS)
      throw new ContractError(
        "findings.unlisted_within_cap",
        `${n} ${status} rows counted unlisted while only ${this.checkCounts[status]} were listed; expected at least ${MAX_ROWS}`,
      );
    this.checkCounts[status] += n;
  }

  /** True while rows of `status` are listed: past the cap a caller need not build the row. */
  lists(status: CheckStatus): boolean {
    return this.checkCounts[status] < MAX_ROWS;
  }

  /** Adds a hash comparison row: passed when equal, failed otherwise. */
  compare(check: string, subject: string, expected: string, actual: string): void {
    this.check({ check, subject, expected, actual, status: expected === actual ? "passed" : "failed" });
  }
}

/** A tool call as the session recorded it; what receipts are matched against. */
export interface ToolCallRecord {
  id: string | null;
  step_id: string | null;
  tool: string | null;
  params_hash: string | null;
  output_hash: string | null;
  latency_ms: number | null;
  /** false when the result reported failure (ok false, success false, non-zero exit code, error). */
  ok: boolean | null;
  side_effects: string[];
  /** Line of the call in the file, for reports. */
  line: number | null;
}

/** What a ToolResult adds to its call's record. */
export type ToolResultFields = Pick<ToolCallRecord, "output_hash" | "latency_ms" | "ok"> & {
  /** The result's side effects; null when it lists none (the call keeps `[]`). */
  side_effects: string[] | null;
};

/**
 * Takes a replay's tool calls as they are read, so that a receipt check needs no list of them all
 * (`FormatOptions.toolCalls`).
 */
export interface ToolCallSink {
  /** The next call, in file order; its result's fields are null until `result` gives them. */
  call(record: ToolCallRecord): void;
  /** The result of the call given earlier whose `line` is `line`. */
  result(line: number, fields: ToolResultFields): void;
}

/** Completes a call's record with its result's fields. */
export function fillResult(record: ToolCallRecord, fields: ToolResultFields): void {
  record.output_hash = fields.output_hash;
  record.latency_ms = fields.latency_ms;
  record.ok = fields.ok;
  if (fields.side_effects !== null) record.side_effects = fields.side_effects;
}

/** A RuntimeEvent of the OpenAgents runtime, as trajectory_hash covers it. */
export interface RuntimeEventRecord {
  seq: JsonValue;
  event_type: JsonValue;
  payload: JsonValue;
  idempotency_key: JsonValue;
  recorded_at: JsonValue;
}

/** One conversational turn of a span trace. */
export interface Turn {
  turn_number: number;
  span_id: string;
  user_input: string | null;
  assistant_output: string | null;
  tool_calls: { name: string; span_id: string }[];
  timestamp: string | null;
  response_id: string | null;
  previous_response_id: string | null;
}

/** Verification command and its exit code. */
export interface VerificationRecord {
  command: string;
  exit_code: number | null;
}

/** What gets indexed for a session: the same shape for every format. */
export interface SessionSummary {
  /** The producer's session id (tenant-free). */
  session_id: string | null;
  format: FormatId;
  producer: string | null;
  /** The policy bundle the session ran under, where the format records it. */
  policy_bundle_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  /**
   * Normalized: success, failed, cancelled, timeout, running (no end yet), unknown (no status, or
   * a word outside the producer's vocabulary).
   */
  status: string | null;
  confidence: number | null;
  counts: {
    events: number;
    tool_calls: number;
    failed_tool_calls: number;
    turns: number;
    steps_by_type: Record<string, number>;
  };
  total_latency_ms: number | null;
  mean_step_utility: number | null;
  verification: VerificationRecord[];
  /** Span traces only: the turns in order, with their previous_response_id chain. */
  turns?: Turn[];
}

/** The normalized session a format reader produces. */
export interface Session {
  summary: SessionSummary;
  tool_calls: ToolCallRecord[];
  /** OpenAgents runtime events, in order (empty for other formats). */
  runtime_events: RuntimeEventRecord[];
  /** A Layer C copy's claim about its original (from its redaction record); absent otherwise. */
  original?: LayerCOrigin;
  /**
   * Why `runtime_events` lack members of run events that trajectory_hash covers (an
   * idempotency_key or payload the lines leave out, run events written as other lines), so a
   * trajectory_hash recomputed from them is partial; absent when they carry every member.
   */
  trajectory_gap?: string;
}

/** Options shared by every reader. */
export interface FormatOptions {
  /** ReplayKit HMAC key; without it a signature is `unverifiable`. */
  hmacKey?: Uint8Array;
  /** File name, for messages. */
  file?: string;
  /**
   * Keep every tool call in `Session.tool_calls` (default true; receipt checks need them). `inspect`
   * turns it off so a multi-gigabyte replay is read in flat memory.
   */
  keepToolCalls?: boolean;
  /**
   * Where a JSON Lines reader gives each tool call as it reads (then `Session.tool_calls` stays
   * empty and memory stays flat); document readers, whose input is bounded, list them in the
   * session as usual. Only read when tool calls are kept.
   */
  toolCalls?: ToolCallSink;
}

/** A format read line by line (JSON Lines): one consumer per file. */
export interface LineFormat {
  id: FormatId;
  kind: "lines";
  /**
   * Top-level members the consumer needs only hashed, not read (`params`, `output`): large ones
   * arrive as empty placeholders of the same JSON type, with their openagents hash in `hashes`.
   * This is what lets a multi-gigabyte REPLAY.jsonl be checked at canonicalization speed.
   */
  lazyMembers?: ReadonlySet<string>;
  /** A consumer for one file; `line` is called for each non-blank line, in order. */
  begin(findings: Findings, options: FormatOptions): LineConsumer;
}

/** Consumes one JSON Lines file. */
export interface LineConsumer {
  /**
   * One parsed line. `line` is the 1-based line number in the file; `hashes`, when given, holds
   * the openagents hash of each `lazyMembers` member value.
   */
  line(line: number, value: JsonValue, hashes?: MemberHashes): void;
  /** Called once after the last line; returns the session. */
  end(): Session;
}

/**
 * What a `LineTap`'s line task gives for one line: `inspect`'s split of it (`splitLine` with the
 * format's lazy members; null when it declined, or when the format has none and `inspect` reads
 * the line itself) and the tap's own result.
 */
export interface TappedLine {
  split: SplitLine | null;
  tap: unknown;
}

/**
 * The line task that serves `inspect` and its tap in one pass over a JSON Lines file (Layer C's
 * `inspectRedactTask`), given by the caller beside the tap: its results (`TappedLine`) carry
 * `inspect`'s split of each line beside the tap's work on it. `init` is its init for the format
 * the first line showed and the reader's lazy members.
 */
export interface FusedTask {
  task: LineTaskModule<unknown>;
  init(format: FormatId, lazy: ReadonlySet<string> | undefined): unknown;
}

/**
 * The shape of a file's content, from its first line that is neither blank nor over-long: a JSON
 * Lines format (this line its first event), a document format on this one line, the first line of
 * a pretty-printed document (a bare `{` or `[`), a line that is not JSON (`error`), or JSON of no
 * format this tool reads.
 */
export type ContentShape =
  | { kind: "lines"; format: FormatId; value: JsonValue }
  | { kind: "one-line-document"; format: FormatId; value: JsonValue }
  | { kind: "document" }
  | { kind: "unreadable"; error: ReplayPipelineError }
  | { kind: "unknown"; value: JsonValue };

/**
 * A second reader of the lines `inspect` reads (Layer C), fed from the same read of the file.
 * `inspect` gives it every line it takes from the file, in order, before reading the line itself,
 * with the `FusedTask`'s result for the line when the caller gave one; before the first readable
 * line, what that line says the content is.
 */
export interface LineTap {
  /** Before each readable line while the format is not known: the shape it gives (`contentShape`). */
  shape?(shape: ContentShape): void;
  /** The next line; `result` is the task's `tap` for it (undefined without one). A promise when busy. */
  line(item: ByteLine, result: unknown): Promise<void> | undefined;
  /** The task's state for the next part of the lines (`mapLines`' `onState`). */
  state(state: unknown): void;
  /**
   * `inspect` is done reading: `error` is what stopped it (the source failed or a limit was hit);
   * `complete` is false when it stopped before the last line.
   */
  end(outcome: { error?: unknown; complete: boolean }): void;
}

/** A format read as one JSON document. */
export interface DocumentFormat {
  id: FormatId;
  kind: "document";
  /** Validates, rehashes and normalizes the document, reporting into `findings`. */
  read(value: JsonValue, findings: Findings, options: FormatOptions): Session;
}

/**
 * The members of one kind of object (an event type, a span, a step) a format defines, and those
 * it requires: what Layer C keeps of it. Each format folder's `fields.ts` gives its own.
 */
export interface FieldSet {
  known: ReadonlySet<string>;
  required: ReadonlySet<string>;
}

/** Either kind of format reader. */
export type FormatReader = LineFormat | DocumentFormat;

/** An empty summary for `format`, to fill in. */
export function emptySummary(format: FormatId): SessionSummary {
  return {
    session_id: null,
    format,
    producer: null,
    policy_bundle_id: null,
    started_at: null,
    ended_at: null,
    status: null,
    confidence: null,
    counts: { events: 0, tool_calls: 0, failed_tool_calls: 0, turns: 0, steps_by_type: {} },
    total_latency_ms: null,
    mean_step_utility: null,
    verification: [],
  };
}

/**
 * What a Layer C copy (our `redact`) records of the file it was made from, in its redaction record
 * (`original`): that file's exact-bytes hash and its own `inspect` verdict. A copy has no raw
 * content left to recompute, so this is how it links to the original and its receipt, and why it
 * never reads as cleaner than the original.
 */
export interface LayerCOrigin {
  replay_hash: string;
  verdict: Verdict;
  checks_total: Record<CheckStatus, number>;
  errors_total: number;
  /**
   * The original's failed hash rows (at most `MAX_FAILED_KEPT`, subjects scrubbed), so that a copy
   * still says which step's content did not match its recorded hash (`diff` of two copies finds a
   * tampered step by them); absent when none failed.
   */
  failed_checks?: CheckRow[];
}

/** How many of the original's failed rows a Layer C copy keeps in its record. */
export const MAX_FAILED_KEPT = 100;
