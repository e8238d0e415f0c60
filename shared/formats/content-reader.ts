/**
 * Reading a file's content for `inspect`, once: the front end that detects the file's shape from
 * its first readable line, then reads the rest as that shape. A state machine with three named
 * states:
 *
 * - `detecting`: no readable line yet. The first one decides: a line-format event starts `lines`;
 *   a one-line document is read whole and ends the read; a bare `{` or `[` starts `document`.
 * - `lines`: every further line goes to the format's consumer. Once the format is known, a large
 *   file's lines are split on worker threads (`mapLines`): by the caller's fused task when a tap
 *   (Layer C) reads the same lines, else by the split task when the format has lazy members.
 * - `document`: a pretty-printed document, its lines gathered (within `maxDocumentBytes`) and read
 *   at the end.
 *
 * Every line reaches the tap (`LineTap.line`) before it is read here, whatever the state: the one
 * way a line reaches Layer C; while detecting, each readable line's shape (`contentShape`) goes
 * first, so the tap takes the shape this reader found rather than detect it again.
 */
import {
  type ByteLine,
  decodeUtf8,
  isBlankBytes,
  isJsonObject,
  type JsonValue,
  prependGroup,
  readByteLineGroups,
  readJson,
  type SplitLine,
} from "../canonical/index.js";
import { ReplayPipelineError, StreamLimitError } from "../errors.js";
import { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_LINE_BYTES } from "../limits.js";
import { type MappedGroup, mapLines, type ParallelOptions, splitTask } from "../parallel/index.js";
import { locatePath } from "./locate.js";
import { detectFormat, readerFor } from "./registry.js";
import { contentShape } from "./shape.js";
import {
  type ContentShape,
  type DocumentFormat,
  type Finding,
  type Findings,
  type FormatId,
  type FormatOptions,
  type FusedTask,
  findingOf,
  type LineConsumer,
  type LineFormat,
  type LineTap,
  type Session,
  type TappedLine,
} from "./types.js";
import { describe } from "./validate.js";

/** How the content is read: the formats' options, limits, worker threads and a tap. */
export interface ContentOptions extends FormatOptions {
  /** Longest JSON Lines line, bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole-document input such as an `.rpk`, bytes (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Worker threads for the byte work of large JSON Lines files (default: one per core). */
  parallel?: ParallelOptions;
  /** A second reader of the same lines (Layer C), fed as they are read: see `LineTap`. */
  tap?: LineTap;
  /** With `tap`: the one line task that splits a JSON Lines file's lines for both (see `FusedTask`). */
  fused?: FusedTask;
}

/** What reading the content gave: the format (null when none was recognized) and the session. */
export interface ContentRead {
  format: FormatId | null;
  session: Session | null;
}

/** Where the reading of one file stands. */
type ReadState =
  | { kind: "detecting" }
  | {
      kind: "lines";
      format: FormatId;
      consumer: LineConsumer;
      /** What the mapped lines' results are: none, the split task's, or the tap's fused task's. */
      results: "none" | "split" | "tapped";
    }
  | { kind: "document"; parts: Buffer[]; bytes: number };

/** The result of one line: go on, or the read is over. */
type Step = ContentRead | undefined;

const NOT_READ: ContentRead = { format: null, session: null };

/** Reads the content of one file into `findings`; construct one per file, call `read` once. */
export class ContentReader {
  private state: ReadState = { kind: "detecting" };
  /** The lines, a group per chunk read: one wait per group, not per line. */
  private readonly lines: AsyncIterator<ByteLine[]>;
  /** The lines with their mapped results; the plain lines until the format is known. */
  private source: AsyncIterator<MappedGroup<ByteLine>>;
  private blankReported = false;
  private crlfReported = false;
  /** Every line was read (the tap must know whether it saw the whole file). */
  private complete = false;

  constructor(
    bytes: AsyncIterable<Uint8Array>,
    private readonly findings: Findings,
    private readonly options: ContentOptions,
  ) {
    this.lines = readByteLineGroups(bytes, { maxLineBytes: options.maxLineBytes, skipLongLines: true })[
      Symbol.asyncIterator
    ]();
    this.source = unmapped(this.lines);
  }

  /** Reads every line (or the document), telling the tap how it ended. */
  async read(): Promise<ContentRead> {
    const tap = this.options.tap;
    try {
      const read = await this.readAll();
      tap?.end({ complete: this.complete });
      return read;
    } catch (error) {
      tap?.end({ error, complete: false });
      throw error;
    } finally {
      await this.source.return?.();
    }
  }

  private async readAll(): Promise<ContentRead> {
    for (;;) {
      const source = this.source;
      const next = await source.next();
      if (next.done === true) break;
      const { items, results } = next.value;
      for (let k = 0; k < items.length; k++) {
        const item = items[k] as ByteLine;
        const shape =
          this.state.kind === "detecting" && wantsSplit(item) ? contentShape(item.bytes) : undefined;
        if (shape !== undefined) this.options.tap?.shape?.(shape);
        const busy = this.toTap(item, results[k]);
        if (busy !== undefined) await busy;
        const step =
          this.state.kind === "document"
            ? this.gather(this.state, item)
            : shape !== undefined
              ? await this.detect(item, shape, items.slice(k + 1))
              : this.readLine(item, results[k]);
        if (step !== undefined) return step;
        // The first line chose how the rest is read: the group's rest went to the new source.
        if (this.source !== source) break;
      }
    }
    this.complete = true;
    return this.finish();
  }

  /**
   * Gives the tap the line before it is read here, with the tap's result when lines are tapped; a
   * promise only while the tap is busy.
   */
  private toTap(item: ByteLine, result: unknown): Promise<void> | undefined {
    const tapped = this.state.kind === "lines" && this.state.results === "tapped";
    return this.options.tap?.line(item, tapped ? (result as TappedLine | undefined)?.tap : undefined);
  }

  /** `document`: one more line of the pretty-printed document. */
  private gather(state: ReadState & { kind: "document" }, item: ByteLine): Step {
    const max = this.options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
    state.bytes += item.bytes.length + 1;
    if (state.bytes > max || item.tooLong === true)
      throw new StreamLimitError(
        "document.too_large",
        `document is larger than ${max} bytes; expected at most that`,
      );
    state.parts.push(Buffer.from(item.bytes), Buffer.from(item.terminated ? "\n" : ""));
    return undefined;
  }

  /** `detecting` or `lines`: one line (the first readable one goes to `detect` instead). */
  private readLine(item: ByteLine, result: unknown): Step {
    const { line, bytes, terminated, tooLong } = item;
    if (tooLong === true) {
      this.findings.error({
        line,
        column: null,
        path: "$",
        code: "jsonl.line_too_long",
        message: `line is longer than ${this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES} bytes; skipped`,
        expected: "a shorter line",
        found: "an over-long line",
      });
      return undefined;
    }
    if (isBlankBytes(bytes)) {
      this.noteBlank(line, terminated || bytes.length > 0);
      return undefined;
    }
    this.noteCrlf(line, bytes);
    const state = this.state;
    if (state.kind === "lines" && state.results !== "none") {
      // Split by a worker (null when its fast read declined the line: read it here).
      const split = state.results === "tapped" ? (result as TappedLine).split : (result as SplitLine | null);
      if (split !== null) {
        this.consume(state.consumer, line, bytes, split.value, split.hashes);
        return undefined;
      }
    }
    let value: JsonValue;
    try {
      value = readJson(decodeUtf8(bytes));
    } catch (error) {
      if (!(error instanceof ReplayPipelineError)) throw error;
      this.findings.error({ ...findingOf(error), line });
      return undefined;
    }
    if (state.kind === "lines") this.consume(state.consumer, line, bytes, value);
    return undefined;
  }

  /**
   * `detecting`: the first readable line's shape decides how the rest is read, starting with
   * `rest`, the lines of its group after it.
   */
  private async detect(item: ByteLine, shape: ContentShape, rest: ByteLine[]): Promise<Step> {
    const { line, bytes, terminated } = item;
    this.noteCrlf(line, bytes);
    switch (shape.kind) {
      case "unreadable":
        this.findings.error({ ...findingOf(shape.error), line });
        return undefined;
      case "document":
        // A pretty-printed document opens with a bare brace: read the whole file as one document.
        this.state = {
          kind: "document",
          parts: [Buffer.from(bytes), Buffer.from(terminated ? "\n" : "")],
          bytes: bytes.length + 1,
        };
        return undefined;
      case "unknown":
        return this.unknown(
          line,
          shape.value,
          "a REPLAY.jsonl event, a Braintrust span, a ReplayBundle or a ReplayKit artifact",
        );
      case "one-line-document":
        return this.oneLineDocument(readerFor(shape.format) as DocumentFormat, shape.value, rest);
      case "lines":
        return this.beginLines(line, bytes, shape.format, shape.value, rest);
    }
  }

  /**
   * The first line of a JSON Lines file of `format`: the rest (`rest`, then the lines after its
   * group) mapped on workers when large.
   */
  private beginLines(
    line: number,
    bytes: Buffer,
    format: FormatId,
    value: JsonValue,
    rest: ByteLine[],
  ): Step {
    const reader = readerFor(format) as LineFormat;
    const consumer = reader.begin(this.findings, this.options);
    const lazy = reader.lazyMembers;
    // The fused task splits the lines for this reader beside the tap's own work on them.
    const { tap, fused } = this.options;
    let results: "none" | "split" | "tapped" = "none";
    const lines = prependGroup(rest, this.lines);
    this.source = unmapped(lines);
    if (tap !== undefined && fused !== undefined) {
      results = "tapped";
      this.source = mapLines(
        lines,
        wantsSplit,
        fused.task,
        fused.init(format, lazy),
        this.options.parallel,
        (s) => tap.state(s),
      );
    } else if (lazy !== undefined) {
      results = "split";
      this.source = mapLines(lines, wantsSplit, splitTask, { lazy: [...lazy] }, this.options.parallel);
    }
    this.state = { kind: "lines", format, consumer, results };
    this.consume(consumer, line, bytes, value);
    return undefined;
  }

  /** A document format on one line: read it; only blank lines may follow (`rest` first). */
  private async oneLineDocument(
    reader: DocumentFormat,
    value: JsonValue,
    rest: ByteLine[],
  ): Promise<ContentRead> {
    const session = reader.read(value, this.findings, this.options);
    const lines = prependGroup(rest, this.lines);
    let next = await lines.next();
    for (; next.done !== true; next = await lines.next()) {
      const blank = await this.blankTail(next.value);
      if (blank !== undefined) {
        this.findings.error({
          line: blank.line,
          column: 1,
          path: "$",
          code: "document.trailing_content",
          message: `more content after the ${reader.id} document`,
          expected: "end of file",
          found: "more lines",
        });
        break;
      }
    }
    this.complete = next.done === true;
    return { format: reader.id, session };
  }

  /** Gives the tap each line of `group` up to the first one not blank, and returns that one. */
  private async blankTail(group: ByteLine[]): Promise<ByteLine | undefined> {
    for (const item of group) {
      await this.toTap(item, undefined);
      if (!isBlankBytes(item.bytes)) return item;
    }
    return undefined;
  }

  /** The end of the lines: the consumer's session, the gathered document read, or no content. */
  private finish(): ContentRead {
    const state = this.state;
    if (state.kind === "lines") return { format: state.format, session: state.consumer.end() };
    if (state.kind === "document") return this.readDocument(Buffer.concat(state.parts));
    this.findings.error({
      line: null,
      column: null,
      path: "$",
      code: "input.empty",
      message: "the file has no content",
      expected: "a replay file",
      found: "nothing",
    });
    return NOT_READ;
  }

  /** `document`, at the end: the gathered lines read as one document of a document format. */
  private readDocument(all: Buffer): ContentRead {
    const findings = this.findings;
    let value: JsonValue;
    try {
      value = readJson(decodeUtf8(all), { rejectLoneSurrogates: false });
    } catch (error) {
      if (!(error instanceof ReplayPipelineError)) throw error;
      findings.error({ ...findingOf(error), line: error.location.line ?? 1 });
      return NOT_READ;
    }
    const format = detectFormat(value);
    if (format === null) return this.unknown(1, value, "a ReplayBundle or a ReplayKit artifact");
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
    const session = reader.read(value, findings, this.options);
    // Document readers know the JSON path of a problem; the text gives its line and column.
    const text = all.toString("utf8");
    for (const error of findings.errors.slice(listed)) {
      if (error.line !== null) continue;
      const at = locatePath(text, error.path);
      if (at !== null) Object.assign(error, at);
    }
    return { format, session };
  }

  /** A value of no format this tool reads, at `line`: the read is over. */
  private unknown(line: number, value: JsonValue, expected: string): ContentRead {
    this.findings.error({
      line,
      column: 1,
      path: "$",
      code: "format.unknown",
      message: `not a replay format this tool reads: ${shape(value)}`,
      expected,
      found: shape(value),
    });
    return NOT_READ;
  }

  /** One line to the consumer; its errors get the column of the member they name. */
  private consume(
    consumer: LineConsumer,
    line: number,
    bytes: Buffer,
    value: JsonValue,
    hashes?: SplitLine["hashes"],
  ): void {
    const listed = this.findings.errors.length;
    consumer.line(line, value, hashes);
    if (this.findings.errors.length > listed) locateColumns(this.findings.errors, listed, bytes);
  }

  private noteBlank(line: number, visible: boolean): void {
    if (this.blankReported || !visible) return;
    this.blankReported = true;
    this.findings.notice({
      line,
      column: null,
      path: "$",
      code: "jsonl.blank_line",
      message: "blank line skipped (first at this line)",
    });
  }

  private noteCrlf(line: number, bytes: Buffer): void {
    if (this.crlfReported || bytes[bytes.length - 1] !== 13) return;
    this.crlfReported = true;
    this.findings.notice({
      line,
      column: null,
      path: "$",
      code: "jsonl.crlf",
      message: "CRLF line endings (first at this line); read as JSON whitespace, hashed as they are",
    });
  }
}

/** Lines the fast read can take: not blank, not over the length limit. */
function wantsSplit(line: ByteLine): boolean {
  return line.tooLong !== true && !isBlankBytes(line.bytes);
}

/** Lines as they are, without a precomputed result. */
async function* unmapped(lines: AsyncIterator<ByteLine[]>): AsyncGenerator<MappedGroup<ByteLine>> {
  for (let next = await lines.next(); next.done !== true; next = await lines.next()) {
    yield { items: next.value, results: [] };
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
