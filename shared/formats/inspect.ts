import { createHash } from "node:crypto";
import {
  type ByteLine,
  canonicalHash,
  decodeUtf8,
  isBlankBytes,
  isJsonObject,
  type JsonValue,
  readByteLines,
  readJson,
  type SplitLine,
} from "../canonical/index.js";
import { NotTextError, ReplayPipelineError, StreamLimitError } from "../errors.js";
import { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_LINE_BYTES } from "../limits.js";
import { mapLines, type ParallelOptions, splitTask } from "../parallel/index.js";
import { decompressed, type GzipLimits } from "./gzip.js";
import type { LayerCOrigin } from "./layer-c-record.js";
import { locatePath } from "./locate.js";
import { detectFormat, readerFor } from "./registry.js";
import {
  type CheckRow,
  type CheckStatus,
  type Finding,
  Findings,
  type FormatId,
  type FormatOptions,
  findingOf,
  type LineConsumer,
  type LineTap,
  type Session,
  type SessionSummary,
  type TappedLine,
  type Verdict,
} from "./types.js";
import { describe } from "./validate.js";

/** Limits and keys for `inspect`. */
export interface InspectOptions extends FormatOptions, GzipLimits {
  /** Longest JSON Lines line, bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole-document input such as an `.rpk`, bytes (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Worker threads for the byte work of large JSON Lines files (default: one per core). */
  parallel?: ParallelOptions;
  /** A second reader of the same lines (Layer C), fed as they are read: see `LineTap`. */
  tap?: LineTap;
}

/** What `inspect` reports for one file (the `inspect --json` object). */
export interface InspectReport {
  file: string;
  format: FormatId | null;
  verdict: Verdict;
  /** The rows, up to MAX_ROWS of each status; `checks_total` counts them all. */
  checks: CheckRow[];
  checks_total: Record<CheckStatus, number>;
  errors: Finding[];
  errors_total: number;
  notices: Finding[];
  notices_total: number;
  /** sha256 of the replay's exact bytes (after gzip decompression). */
  replay_hash: string;
  bytes: number;
  compressed: boolean;
  /** OpenAgents runtime replays: the trajectory hash recomputed from the RuntimeEvents. */
  trajectory_hash: string | null;
  /** A Layer C copy: what its redaction record says of the original (a claim, not recomputed). */
  original: LayerCOrigin | null;
  /**
   * Whether the RuntimeEvent lines carry every member trajectory_hash covers, so that the value
   * is the runtime's own; false means it is partial (see `trajectory_hash_gap`); null without one.
   */
  trajectory_hash_complete: boolean | null;
  /** Why trajectory_hash is partial (the lines leave out idempotency_key, …); null otherwise. */
  trajectory_hash_gap: string | null;
  summary: SessionSummary | null;
}

/** The report and the normalized session (tool calls, runtime events) for receipt checks. */
export interface InspectResult {
  report: InspectReport;
  session: Session | null;
}

/**
 * Inspects one replay file of any supported format from its bytes: detects the format by content
 * (gzip too), validates every line or the document, recomputes every hash the content lets us,
 * and reduces it to the session summary. Bad input never throws: it becomes findings and the
 * `invalid` verdict; only a failure of the source itself (an I/O error) is thrown.
 */
export async function inspect(
  source: AsyncIterable<Uint8Array>,
  options: InspectOptions & { file: string },
): Promise<InspectResult> {
  const findings = new Findings();
  const hash = createHash("sha256");
  const counters = { bytes: 0, compressedBytes: 0, compressed: false };
  const bytes = decompressed(source, options, counters, hash);
  let format: FormatId | null = null;
  let session: Session | null = null;
  try {
    ({ format, session } = await readContent(bytes, findings, options));
  } catch (error) {
    // Both end reading; a file that is not text at all is one error, not one per line.
    if (!(error instanceof StreamLimitError || error instanceof NotTextError)) throw error;
    findings.fatal({
      line: error.location.line ?? null,
      column: error.location.column ?? null,
      path: "$",
      code: error.code,
      message: error.detail,
    });
  }
  // Whatever stopped reading, the replay hash covers every byte of the file.
  for await (const _ of bytes) {
    // drained for the hash
  }
  const trajectory =
    session !== null && session.runtime_events.length > 0
      ? canonicalHash(session.runtime_events as unknown as JsonValue, "openagents")
      : null;
  const trajectoryGap = trajectory === null ? null : (session?.trajectory_gap ?? null);
  const original = session?.original ?? null;
  if (original !== null) {
    findings.notice({
      line: null,
      column: null,
      path: "$",
      code: "layer_c.copy",
      message: `a Layer C copy of ${original.replay_hash}, whose own verdict was ${original.verdict} (${original.checks_total.passed} passed, ${original.checks_total.failed} failed, ${original.checks_total.unverifiable} unverifiable); taken from the copy's record, not recomputed`,
    });
  }
  if (format !== null && findings.errorCount === 0 && totalRows(findings) === 0) {
    findings.notice({
      line: null,
      column: null,
      path: "$",
      code: "verdict.nothing_checked",
      message: `well-formed ${format}, but it carries no hash this tool can recompute: only its structure was checked, so it is unverifiable, not passed`,
    });
  }
  const report: InspectReport = {
    file: options.file,
    format,
    verdict: verdictOf(findings, format),
    checks: findings.checks,
    checks_total: { ...findings.checkCounts },
    errors: findings.errors,
    errors_total: findings.errorCount,
    notices: findings.notices,
    notices_total: findings.noticeCount,
    replay_hash: `sha256:${hash.digest("hex")}`,
    bytes: counters.bytes,
    compressed: counters.compressed,
    trajectory_hash: trajectory,
    trajectory_hash_complete: trajectory === null ? null : trajectoryGap === null,
    trajectory_hash_gap: trajectoryGap,
    original,
    summary: session?.summary ?? null,
  };
  return { report, session };
}

/**
 * `invalid` on any error or no format; else `failed` if a row failed, `unverifiable` if a row could
 * not be evaluated or there is no row at all (well-formed, but nothing was recomputed: a CI job
 * must be able to tell that from a real pass), else `passed`.
 */
export function verdictOf(findings: Findings, format: FormatId | null): Verdict {
  if (format === null || findings.errorCount > 0) return "invalid";
  if (findings.checkCounts.failed > 0) return "failed";
  if (findings.checkCounts.unverifiable > 0 || totalRows(findings) === 0) return "unverifiable";
  return "passed";
}

function totalRows(findings: Findings): number {
  const c = findings.checkCounts;
  return c.passed + c.failed + c.unverifiable;
}

/** The finding for a JSON syntax or encoding error the reader threw for file line `line`. */
function jsonFinding(error: ReplayPipelineError, line: number): Finding {
  return { ...findingOf(error), line };
}

/** Detects the format from the first readable line (or the whole document) and reads the rest. */
async function readContent(
  bytes: AsyncIterable<Uint8Array>,
  findings: Findings,
  options: InspectOptions,
): Promise<{ format: FormatId | null; session: Session | null }> {
  const lines = readByteLines(bytes, { maxLineBytes: options.maxLineBytes, skipLongLines: true })[
    Symbol.asyncIterator
  ]();
  // Lines with the fast read's result once the format is known (see splitLine), computed on
  // worker threads for large files; undefined until then.
  let source: AsyncIterator<{ item: ByteLine; result: unknown }> = unmapped(lines);
  const tap = options.tap;
  // The results are the tap's task's (`TappedLine`), not splits.
  let tapped = false;
  // Every line was read (the tap must know whether it saw the whole file).
  let complete = false;
  /** Gives the tap the line before it is read here (a promise while the tap is busy). */
  const toTap = (item: ByteLine, result: unknown): Promise<void> | undefined =>
    tap?.line(item, tapped ? (result as TappedLine | undefined)?.tap : undefined);
  try {
    const read = await readLines();
    tap?.end({ complete });
    return read;
  } catch (error) {
    tap?.end({ error, complete: false });
    throw error;
  } finally {
    await source.return?.();
  }

  async function readLines(): Promise<{ format: FormatId | null; session: Session | null }> {
    let format: FormatId | null = null;
    let consumer: LineConsumer | undefined;
    let lazy: ReadonlySet<string> | undefined;
    let blankReported = false;
    let crlfReported = false;
    const documentParts: Buffer[] = [];
    let documentBytes = 0;
    let documentMode = false;
    const maxDocument = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;

    for (;;) {
      const next = await source.next();
      if (next.done === true) {
        complete = true;
        break;
      }
      const busy = toTap(next.value.item, next.value.result);
      if (busy !== undefined) await busy;
      const { line, bytes: lineBytes, terminated, tooLong } = next.value.item;
      if (documentMode) {
        documentBytes += lineBytes.length + 1;
        if (documentBytes > maxDocument || tooLong === true) {
          throw new StreamLimitError(
            "document.too_large",
            `document is larger than ${maxDocument} bytes; expected at most that`,
          );
        }
        documentParts.push(Buffer.from(lineBytes), Buffer.from(terminated ? "\n" : ""));
        continue;
      }
      if (tooLong === true) {
        findings.error({
          line,
          column: null,
          path: "$",
          code: "jsonl.line_too_long",
          message: `line is longer than ${options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES} bytes; skipped`,
          expected: "a shorter line",
          found: "an over-long line",
        });
        continue;
      }
      if (isBlankBytes(lineBytes)) {
        if (!blankReported && (terminated || lineBytes.length > 0)) {
          blankReported = true;
          findings.notice({
            line,
            column: null,
            path: "$",
            code: "jsonl.blank_line",
            message: "blank line skipped (first at this line)",
          });
        }
        continue;
      }
      if (!crlfReported && lineBytes[lineBytes.length - 1] === 13) {
        crlfReported = true;
        findings.notice({
          line,
          column: null,
          path: "$",
          code: "jsonl.crlf",
          message: "CRLF line endings (first at this line); read as JSON whitespace, hashed as they are",
        });
      }
      if (consumer !== undefined && (lazy !== undefined || tapped)) {
        // Read by mapLines (every line wantsSplit takes; null when the fast read declined).
        const result = next.value.result;
        const split = tapped ? (result as TappedLine).split : (result as SplitLine | null);
        if (split !== null) {
          const listed = findings.errors.length;
          consumer.line(line, split.value, split.hashes);
          if (findings.errors.length > listed) locateColumns(findings.errors, listed, lineBytes);
          continue;
        }
      }
      let value: JsonValue;
      try {
        value = readJson(decodeUtf8(lineBytes));
      } catch (error) {
        if (!(error instanceof ReplayPipelineError)) throw error;
        // A pretty-printed document opens with a bare brace: read the whole file as one document.
        const text = lineBytes.toString("utf8").trim();
        if (consumer === undefined && format === null && (text === "{" || text === "[")) {
          documentMode = true;
          documentParts.push(Buffer.from(lineBytes), Buffer.from(terminated ? "\n" : ""));
          documentBytes = lineBytes.length + 1;
          continue;
        }
        findings.error(jsonFinding(error, line));
        continue;
      }
      if (consumer === undefined) {
        if (format !== null) {
          // A one-line document format followed by more content.
          findings.error({
            line,
            column: 1,
            path: "$",
            code: "document.trailing_content",
            message: `more content after the ${format} document`,
            expected: "end of file",
            found: describe(value),
          });
          continue;
        }
        format = detectFormat(value);
        if (format === null) {
          findings.error({
            line,
            column: 1,
            path: "$",
            code: "format.unknown",
            message: `not a replay format this tool reads: ${shape(value)}`,
            expected: "a REPLAY.jsonl event, a Braintrust span, a ReplayBundle or a ReplayKit artifact",
            found: shape(value),
          });
          return { format: null, session: null };
        }
        const reader = readerFor(format);
        if (reader.kind === "document") {
          const session = reader.read(value, findings, options);
          // Keep reading: only blank lines may follow.
          let rest = await lines.next();
          for (; rest.done !== true; rest = await lines.next()) {
            await toTap(rest.value, undefined);
            if (!isBlankBytes(rest.value.bytes)) {
              findings.error({
                line: rest.value.line,
                column: 1,
                path: "$",
                code: "document.trailing_content",
                message: `more content after the ${format} document`,
                expected: "end of file",
                found: "more lines",
              });
              break;
            }
          }
          complete = rest.done === true;
          return { format, session };
        }
        consumer = reader.begin(findings, options);
        lazy = reader.lazyMembers;
        // The tap's task splits the lines for this reader beside its own work on them.
        const fused = tap?.task(format, lazy);
        if (fused !== undefined) {
          tapped = true;
          source = mapLines(lines, wantsSplit, fused.task, fused.init, options.parallel, (state) =>
            tap?.state(state),
          );
        } else if (lazy !== undefined) {
          source = mapLines(lines, wantsSplit, splitTask, { lazy: [...lazy] }, options.parallel);
        }
      }
      const listed = findings.errors.length;
      consumer.line(line, value);
      if (findings.errors.length > listed) locateColumns(findings.errors, listed, lineBytes);
    }

    if (documentMode) {
      const all = Buffer.concat(documentParts);
      let value: JsonValue;
      try {
        value = readJson(decodeUtf8(all), { rejectLoneSurrogates: false });
      } catch (error) {
        if (!(error instanceof ReplayPipelineError)) throw error;
        findings.error(jsonFinding(error, error.location.line ?? 1));
        return { format: null, session: null };
      }
      format = detectFormat(value);
      if (format === null) {
        findings.error({
          line: 1,
          column: 1,
          path: "$",
          code: "format.unknown",
          message: `not a replay format this tool reads: ${shape(value)}`,
          expected: "a ReplayBundle or a ReplayKit artifact",
          found: shape(value),
        });
        return { format: null, session: null };
      }
      const reader = readerFor(format);
      if (reader.kind !== "document") {
        findings.error({
          line: 1,
          column: 1,
          path: "$",
          code: "format.not_lines",
          message: `${format} is JSON Lines, but this file is one multi-line document`,
          expected: "one event per line",
          found: "a pretty-printed document",
        });
        return { format, session: null };
      }
      const listed = findings.errors.length;
      const session = reader.read(value, findings, options);
      // Document readers know the JSON path of a problem; the text gives its line and column.
      const text = all.toString("utf8");
      for (const error of findings.errors.slice(listed)) {
        if (error.line !== null) continue;
        const at = locatePath(text, error.path);
        if (at !== null) Object.assign(error, at);
      }
      return { format, session };
    }
    if (consumer === undefined) {
      findings.error({
        line: null,
        column: null,
        path: "$",
        code: "input.empty",
        message: "the file has no content",
        expected: "a replay file",
        found: "nothing",
      });
      return { format: null, session: null };
    }
    return { format, session: consumer.end() };
  }
}
/** Lines the fast read can take: not blank, not over the length limit. */
function wantsSplit(line: ByteLine): boolean {
  return line.tooLong !== true && !isBlankBytes(line.bytes);
}

/** Lines as they are, without a precomputed result. */
async function* unmapped(
  lines: AsyncIterator<ByteLine>,
): AsyncGenerator<{ item: ByteLine; result: unknown }> {
  for (let next = await lines.next(); next.done !== true; next = await lines.next()) {
    yield { item: next.value, result: undefined };
  }
}

/**
 * Gives the errors a reader reported for one line (from index `from`) the column of the member
 * their path starts with, found in the line's text. Runs only when a line has errors.
 */
function locateColumns(errors: Finding[], from: number, lineBytes: Buffer): void {
  const text = lineBytes.toString("utf8");
  for (let k = from; k < errors.length; k++) {
    const error = errors[k] as Finding;
    if (error.column !== null) continue;
    const key = /^\$(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[("(?:[^"\\]|\\.)*")\])/.exec(error.path);
    if (key === null) continue;
    const name = key[1] ?? (JSON.parse(key[2] as string) as string);
    const at = topLevelKeyOffset(text, name);
    if (at >= 0) error.column = [...text.slice(0, at)].length + 1;
  }
}

/** Offset of member name `name` of the line's top-level object (not of a nested one), or -1. */
function topLevelKeyOffset(text: string, name: string): number {
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) {
        try {
          if (JSON.parse(text.slice(i, j + 1)) === name) return i;
        } catch {
          // not a well-formed name: keep looking
        }
      }
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    }
  }
  return -1;
}

/** A short description of a value's shape for "unknown format" errors. */
function shape(value: JsonValue): string {
  if (!isJsonObject(value)) return describe(value);
  const keys = Object.keys(value);
  return `an object with keys ${keys
    .slice(0, 8)
    .map((k) => JSON.stringify(k))
    .join(", ")}${keys.length > 8 ? ", …" : ""}`;
}
