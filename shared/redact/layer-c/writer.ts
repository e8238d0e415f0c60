/**
 * Layer C of a stream of lines fed one at a time (`LayerCWriter`): what `redactOrThrow` does with
 * the lines it reads itself, and what `redactChecked` does with the lines `inspect` reads, so one
 * read of a file serves both.
 */
import { tmpdir } from "node:os";
import { type ByteLine, decodeUtf8, isBlankBytes, type JsonValue, readJson } from "../../canonical/index.js";
import { ContractError, JsonInputError, RedactError, ReplayPipelineError } from "../../errors.js";
import { type ContentShape, detectFormat, type FormatId, type LayerCOrigin } from "../../formats/index.js";
import { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_LINE_BYTES } from "../../limits.js";
import { fileSpool, type Spool } from "../../spool/index.js";
import type { Preset } from "../presets.js";
import { document } from "./documents.js";
import {
  isLinesFormat,
  LineRedactor,
  type LinesFormat,
  type RedactedLine,
  scrubSettings,
  withSummary,
} from "./lines.js";
import type { LayerCOptions } from "./options.js";
import { Revisit } from "./revisit.js";
import { LinesSpool, type SpooledLine } from "./spool.js";
import { type LayerCCounts, type LayerCSummary, layerCSummary, mergeCounts } from "./summary.js";

const NEWLINE = Buffer.from("\n");
const NOTHING = Buffer.alloc(0);

/** Where a writer is: before the first non-blank line, in a JSON Lines file, or in a document. */
type Stage = "start" | "lines" | "document" | "one-line-document";

/**
 * The Layer C copy of one file, fed its lines in order (`line`, over-long ones marked as
 * `readByteLineGroups` marks them when it skips them). Its front end (inspect's reader through the tap,
 * or `redactFile`'s feed) gives the shape the first readable line showed (`shape`, before that
 * line): a JSON Lines file is redacted line by line into a
 * spool (each line's `RedactedLine` computed by the caller, on workers, or here), a multi-line
 * document is gathered whole, a one-line document kept. The first problem (an unreadable line, a
 * line the transform cannot redact, a source error given to `fail`) ends the work: the rest is
 * ignored and `copy` throws it, with the type and location the transform gives it.
 */
export class LayerCWriter {
  private stage: Stage = "start";
  /** The shape of the content, given by the front end before the first readable line. */
  private given: ContentShape | undefined;
  private failure: { error: unknown } | undefined;
  private format: FormatId | undefined;
  /** The one-line document. */
  private value: JsonValue | undefined;
  /** The multi-line document's lines, and its size so far. */
  private parts: Buffer[] = [];
  private size = 0;
  /** The redactor of the lines that come without a result (the first one). */
  private redactor: LineRedactor | undefined;
  /**
   * What the lines so far revealed, in file order (`RedactedLine.learned`), redacted from each
   * line after them whichever thread redacted it: this instance redacts no line of its own.
   */
  private known: LineRedactor | undefined;
  /**
   * What `known` replaced, counted apart and added last: the counts' key order is then the same
   * whichever thread redacted which lines (the lines' own counts come in file order).
   */
  private knownCounts: LayerCCounts = mergeCounts([]);
  /** Where the last line that revealed a secret starts in the spool: the lines before it are revisited. */
  private revealedAt = 0;
  private counts: LayerCCounts = mergeCounts([]);
  private spool: Promise<LinesSpool> | undefined;
  /** The spool once created. */
  private opened: LinesSpool | undefined;
  /** The line that carries the summary (the ReplayHeader or root span, else the first line). */
  private carrier: { start: number; text: Buffer } | undefined;
  private firstText: Buffer | undefined;
  private readonly maxLineBytes: number;
  private readonly maxDocumentBytes: number;

  constructor(
    private readonly options: Omit<LayerCOptions, "original">,
    private readonly preset: Preset,
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxDocumentBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
  }

  /** The JSON Lines format, once the first line said so and while nothing failed. */
  get linesFormat(): LinesFormat | undefined {
    return this.stage === "lines" && this.failure === undefined ? (this.format as LinesFormat) : undefined;
  }

  /** True until the shape of the content was given: the front end gives it with `shape`. */
  get wantsShape(): boolean {
    return this.stage === "start" && this.given === undefined && this.failure === undefined;
  }

  /** The shape the first readable line showed (`contentShape`), given just before that line. */
  shape(shape: ContentShape): void {
    if (this.wantsShape) this.given = shape;
  }

  /** True once something failed: further lines are ignored. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** The first failure wins (later ones follow from it). */
  fail(error: unknown): void {
    this.failure ??= { error };
  }

  /** A part's counts from the workers' redactors (`LineTask.finish`), in file order. */
  addCounts(counts: LayerCCounts): void {
    // Folded as they come (merging is associative), so memory does not grow with the file.
    this.counts = mergeCounts([this.counts, counts]);
  }

  /**
   * The next line of the file. `result` is its redaction when a worker made it (null when the
   * worker's redactor threw: it is redacted here again, for the error with its type); without
   * one the line is redacted here. A promise only while writing to the spool.
   */
  line(item: ByteLine, result?: RedactedLine | null): Promise<void> | undefined {
    if (this.failure !== undefined) return undefined;
    const { line, bytes } = item;
    if (item.tooLong === true) {
      // What `readByteLineGroups` throws when it does not skip such lines.
      this.fail(
        new JsonInputError(
          "jsonl.line_too_long",
          `line is longer than ${this.maxLineBytes} bytes; expected at most ${this.maxLineBytes} (raise the line limit)`,
          { line },
        ),
      );
      return undefined;
    }
    switch (this.stage) {
      case "start":
        if (isBlankBytes(bytes)) return undefined;
        return this.first(item);
      case "lines":
        if (isBlankBytes(bytes)) return undefined;
        return this.redact(item, result);
      case "one-line-document":
        if (!isBlankBytes(bytes)) {
          this.fail(
            new RedactError("document.trailing_content", `more content after the ${this.format} document`, {
              file: this.options.file,
              line,
            }),
          );
        }
        return undefined;
      case "document":
        this.size += bytes.length + 1;
        if (this.size > this.maxDocumentBytes) {
          this.fail(
            new RedactError(
              "document.too_large",
              `document is larger than ${this.maxDocumentBytes} bytes; expected at most that`,
              { file: this.options.file },
            ),
          );
          return undefined;
        }
        this.parts.push(Buffer.from(bytes), item.terminated ? NEWLINE : NOTHING);
        return undefined;
    }
  }

  /** The first readable line: its shape (given by the front end) starts the copy. */
  private first(item: ByteLine): Promise<void> | undefined {
    const { line, bytes } = item;
    const file = this.options.file;
    const shape = this.given;
    switch (shape?.kind) {
      case undefined:
        this.fail(
          new ContractError("redact.incomplete", "the writer was given a readable line before its shape", {
            file,
            line,
          }),
        );
        return undefined;
      case "document":
        this.stage = "document";
        this.parts.push(Buffer.from(bytes), NEWLINE);
        this.size = bytes.length + 1;
        return undefined;
      case "unreadable":
        shape.error.locate({ file, lineOffset: line - 1 });
        this.fail(shape.error);
        return undefined;
      case "unknown":
        this.fail(unknownFormat(file, line));
        return undefined;
      case "one-line-document":
        this.format = shape.format;
        this.stage = "one-line-document";
        this.value = shape.value;
        return undefined;
      case "lines":
        this.format = shape.format;
        this.stage = "lines";
        this.redactor = new LineRedactor(shape.format as LinesFormat, this.preset, {
          file,
          ...scrubSettings(this.options),
        });
        this.known = new LineRedactor(shape.format as LinesFormat, this.preset, {
          file,
          ...scrubSettings(this.options),
        });
        this.spool = LinesSpool.create(this.spoolPort());
        // Settled when the copy is made or given up; a failure to create it surfaces there.
        this.spool.catch(() => undefined);
        return this.redact(item, undefined);
    }
  }

  private redact(item: ByteLine, result: RedactedLine | null | undefined): Promise<void> | undefined {
    let redacted = result;
    if (redacted === undefined || redacted === null) {
      try {
        redacted = (this.redactor as LineRedactor).line(item.bytes, item.line);
      } catch (error) {
        this.fail(error);
        return undefined;
      }
      this.addCounts((this.redactor as LineRedactor).takeSnapshot());
    }
    redacted = this.withoutKnown(redacted);
    const spool = this.opened;
    return spool === undefined ? this.firstWrite(redacted) : this.write(spool, redacted);
  }

  /** `redacted` without what the lines before it revealed; then what it revealed is known. */
  private withoutKnown(redacted: RedactedLine): RedactedLine {
    const known = this.known as LineRedactor;
    const text = known.redactKnown(redacted.text);
    let out = redacted;
    if (text !== redacted.text) {
      out = { text, carrier: redacted.carrier };
      this.knownCounts = mergeCounts([this.knownCounts, known.takeSnapshot()]);
    }
    if (redacted.learned !== undefined && redacted.learned.length > 0) {
      known.learn(redacted.learned);
      // This line is not written yet: it starts where the spool ends.
      this.revealedAt = this.opened?.written ?? 0;
    }
    return out;
  }

  /** The first line: the spool is being created. */
  private async firstWrite(redacted: RedactedLine): Promise<void> {
    try {
      this.opened = await (this.spool as Promise<LinesSpool>);
    } catch (error) {
      this.fail(error);
      return;
    }
    await this.write(this.opened, redacted);
  }

  /** Appends a line to the spool: a promise only while it writes. */
  private write(spool: LinesSpool, { text, carrier }: RedactedLine): Promise<void> | undefined {
    this.firstText ??= Buffer.from(text);
    if (this.carrier === undefined && carrier)
      this.carrier = { start: spool.written, text: Buffer.from(text) };
    return spool.append(text)?.catch((error: unknown) => this.fail(error));
  }

  /**
   * The copy, once every line was given: a failure is thrown; `original` (awaited before the
   * first byte, so a refusal leaves no output) goes into the summary, which `done` gets once the
   * copy was read to the end. The spool is removed whatever happens.
   */
  async *copy(
    original: LayerCOrigin | Promise<LayerCOrigin>,
    done: (summary: LayerCSummary) => void,
  ): AsyncGenerator<Uint8Array> {
    try {
      yield* this.make(original, done);
    } finally {
      await this.dispose();
    }
  }

  private async *make(
    original: LayerCOrigin | Promise<LayerCOrigin>,
    done: (summary: LayerCSummary) => void,
  ): AsyncGenerator<Uint8Array> {
    const { options, preset } = this;
    const file = options.file;
    if (this.stage === "lines" && this.spool !== undefined) {
      // The spool's own errors come after the work's (the work's is what went wrong first).
      const spool = await this.spool;
      await spool.close(this.failure);
      const format = this.format as LinesFormat;
      const found =
        this.carrier ?? (this.firstText === undefined ? undefined : { start: 0, text: this.firstText });
      const target = found && { start: found.start, length: found.text.length, text: found.text };
      const revisit = await this.revisit(spool, target);
      const counts = mergeCounts([this.counts, this.knownCounts]);
      const summary = this.withoutKnownInPaths(layerCSummary(format, preset, counts, await original));
      // Known before the first byte: a caller may decide on it before it publishes the copy.
      done(summary);
      if (target === undefined) return;
      const carrier = {
        start: target.start,
        length: target.length,
        bytes: withSummary(format, target.text, summary),
      };
      yield* revisit === undefined ? spool.readFrom(0, carrier) : revisit.read(carrier);
      return;
    }
    if (this.failure !== undefined) throw this.failure.error;
    const withOriginal = { ...options, original };
    if (this.stage === "one-line-document") {
      const format = this.format as Exclude<FormatId, LinesFormat>;
      yield* document(this.value as JsonValue, format, preset, withOriginal, done);
      return;
    }
    if (this.stage === "start")
      throw new RedactError("input.empty", "the file has no content; expected a replay file", { file });
    let value: JsonValue;
    try {
      value = readJson(decodeUtf8(Buffer.concat(this.parts)), { rejectLoneSurrogates: false });
    } catch (error) {
      if (error instanceof ReplayPipelineError) error.locate({ file });
      throw error;
    }
    this.parts = [];
    const format = detectFormat(value);
    if (format === null) throw unknownFormat(file, 1);
    if (isLinesFormat(format)) {
      throw new RedactError(
        "format.not_lines",
        `${format} is JSON Lines, but this file is one multi-line document`,
        {
          file,
        },
      );
    }
    yield* document(value, format, preset, withOriginal, done);
  }

  /**
   * The lines before the last one that revealed a secret, given what the whole file revealed (see
   * `revisit.ts`): what changes is counted, and a change to the carrier line `target` made in
   * `target.text`. Undefined when no line came before it.
   */
  private async revisit(
    spool: LinesSpool,
    target: { start: number; text: Buffer } | undefined,
  ): Promise<Revisit | undefined> {
    const known = this.known;
    if (this.revealedAt === 0 || known === undefined) return undefined;
    const revise = (line: SpooledLine): string | Uint8Array | undefined => {
      const text = known.redactKnown(line.bytes);
      return text === line.bytes ? undefined : text;
    };
    const revisit = new Revisit(spool, this.revealedAt, revise);
    await revisit.mark((line, text) => {
      this.knownCounts = mergeCounts([this.knownCounts, known.takeSnapshot()]);
      if (line.start === target?.start) target.text = Buffer.concat([Buffer.from(text), NEWLINE]);
    });
    return revisit;
  }

  /**
   * `summary` with what the file revealed replaced in its paths: a removed member's name may be a
   * secret that only another line revealed (`$.env["<secret>"]`), and the summary is published
   * with the copy.
   */
  private withoutKnownInPaths(summary: LayerCSummary): LayerCSummary {
    const known = this.known;
    if (known === undefined) return summary;
    const clean = (counts: Record<string, number>): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const [path, n] of Object.entries(counts)) {
        const written = JSON.stringify(path);
        const text = known.redactKnown(written);
        const key = text === written ? path : (JSON.parse(Buffer.from(text).toString("utf8")) as string);
        out[key] = (out[key] ?? 0) + n;
      }
      return out;
    };
    return {
      ...summary,
      by_path: clean(summary.by_path),
      removed_fields: clean(summary.removed_fields),
      hashes_added: clean(summary.hashes_added),
    };
  }

  private spoolPort(): Spool {
    return this.options.spool ?? fileSpool(tmpdir());
  }

  /** Gives up the work: the spool (if any) is closed and removed. Safe to call again. */
  async dispose(): Promise<void> {
    const spool = this.spool;
    this.spool = undefined;
    this.opened = undefined;
    this.parts = [];
    if (spool === undefined) return;
    let opened: LinesSpool;
    try {
      opened = await spool;
    } catch {
      return;
    }
    try {
      await opened.close();
    } catch {
      // Closed already, or failing: it is removed either way.
    }
    await opened.remove();
  }
}

/** The error of a file whose first value (at `line`) is of no format this tool reads. */
function unknownFormat(file: string, line: number): RedactError {
  return new RedactError(
    "format.unknown",
    "not a replay format this tool reads; expected a REPLAY.jsonl event, a Braintrust span, a ReplayBundle or a ReplayKit artifact",
    { file, line },
  );
}
