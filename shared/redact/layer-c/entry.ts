/**
 * Layer C of any replay file (`redactFile`): the format is detected from the first line or the
 * whole document; JSON Lines go through worker threads and the spool, documents are redacted whole.
 */
import { tmpdir } from "node:os";
import {
  type ByteLine,
  decodeUtf8,
  isBlankBytes,
  type JsonValue,
  readByteLines,
  readJson,
} from "../../canonical/index.js";
import { RedactError, ReplayPipelineError } from "../../errors.js";
import {
  detectFormat,
  type Finding,
  type FormatId,
  findingOf,
  type LayerCOrigin,
} from "../../formats/index.js";
import { mapLines, type ParallelOptions } from "../../parallel/index.js";
import { fileSpool, type Spool } from "../../spool/index.js";
import type { Preset } from "../presets.js";
import { document } from "./documents.js";
import { isLinesFormat, type LinesFormat, type RedactedLine, withSummary } from "./lines.js";
import { LinesSpool } from "./spool.js";
import { type LayerCCounts, type LayerCSummary, layerCSummary, mergeCounts } from "./summary.js";
import { type RedactTaskInit, redactTask } from "./task.js";

/** What `redactFile` and `redactOrThrow` need. */
export interface LayerCOptions {
  /** File name, for messages. */
  file: string;
  /** Privacy preset (ADR-0016); default `private_repo`. */
  preset?: Preset;
  /** Key for the scrubber's keyed pseudonyms. */
  key?: Uint8Array;
  /** Longest JSON Lines line, bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole-document input (`.rpk`, ReplayBundle), bytes (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Where the lines of a JSON Lines copy wait for the summary (default: files in the OS temp folder). */
  spool?: Spool;
  /** Worker threads for large JSON Lines files (default: one per core). */
  parallel?: ParallelOptions;
  /**
   * The input's own verdict, recorded in the copy (`original`). Awaited once the input has been
   * read and before the first byte of the copy is given out, so a rejection (a refused input, see
   * `redactChecked`) leaves no output at all.
   */
  original: LayerCOrigin | Promise<LayerCOrigin>;
}

/** The running redaction of one file: read `chunks` to the end, then `summary()`. */
export interface LayerCRedaction {
  /** The Layer C copy's bytes. Nothing is yielded for JSON Lines until the whole input was read. */
  chunks: AsyncGenerator<Uint8Array>;
  /** The summary; throws until `chunks` has been read to the end, or when there was no copy. */
  summary(): LayerCSummary;
}

/** `redactFile`'s redaction: a bad input's findings instead of an error. */
export interface LayerCResult extends LayerCRedaction {
  /**
   * Why the input could not be redacted, located as `inspect` locates errors; known once `chunks`
   * has ended, and empty exactly when the copy was made.
   */
  errors: Finding[];
}

/**
 * The Layer C copy of a JSON Lines file, its lines redacted on worker threads when the file is
 * large (`mapLines`). Redacted lines wait in a spool (`LinesSpool`) so the header (or root span) can carry the
 * final counts.
 */
async function* redactLines(
  first: ByteLine,
  rest: AsyncIterator<ByteLine>,
  format: LinesFormat,
  preset: Preset,
  options: LayerCOptions,
  done: (summary: LayerCSummary) => void,
): AsyncGenerator<Uint8Array> {
  const init: RedactTaskInit =
    options.key === undefined
      ? { format, preset, file: options.file }
      : { format, preset, file: options.file, key: options.key };
  const counts: LayerCCounts[] = [];
  const lines = mapLines(
    prepend(first, rest),
    (line) => !isBlankBytes(line.bytes),
    redactTask,
    init,
    options.parallel,
    (state) => counts.push(state as LayerCCounts),
  );
  const spool = await LinesSpool.create(options.spool ?? fileSpool(tmpdir()));
  try {
    /** The line that carries the summary (the ReplayHeader or root span, else the first line). */
    let carrier: { start: number; text: Buffer } | undefined;
    let firstText: Buffer | undefined;
    let failure: { error: unknown } | undefined;
    try {
      for await (const { result } of lines) {
        if (result === undefined) continue;
        const { text, carrier: isCarrier } = result as RedactedLine;
        if (firstText === undefined) firstText = text;
        if (carrier === undefined && isCarrier) carrier = { start: spool.written, text };
        await spool.append(text);
      }
    } catch (error) {
      failure = { error };
    }
    await spool.close(failure);
    const target = carrier ?? (firstText === undefined ? undefined : { start: 0, text: firstText });
    const summary = layerCSummary(format, preset, mergeCounts(counts), await options.original);
    if (target !== undefined)
      yield* spool.readWith(target.start, target.text.length, withSummary(format, target.text, summary));
    done(summary);
  } finally {
    await spool.remove();
  }
}

/** `first`, then the rest of the lines (a plain iterator: no generator step per line). */
function prepend(first: ByteLine, rest: AsyncIterator<ByteLine>): AsyncIterator<ByteLine> {
  let pending: ByteLine | undefined = first;
  return {
    next: () => {
      if (pending === undefined) return rest.next();
      const value = pending;
      pending = undefined;
      return Promise.resolve({ value, done: false });
    },
  };
}

const NEWLINE = Buffer.from("\n");

/**
 * `redactOrThrow`, with bad input given back as findings, as `inspect` gives them: an input that
 * cannot be redacted (an unreadable line, an unknown format, a value the profile cannot hold, a
 * refused original) ends `chunks` without a byte of the copy and fills `errors`. Anything else
 * (a failing source, a full disk) is thrown, with its kind (`kindOf`) telling a queue to retry.
 */
export function redactFile(source: AsyncIterable<Uint8Array>, options: LayerCOptions): LayerCResult {
  const redaction = redactOrThrow(source, options);
  const errors: Finding[] = [];
  // Every input error comes before the first byte: lines are all read into the spool, and a
  // document all parsed, before anything is given out.
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      yield* redaction.chunks;
    } catch (error) {
      if (!(error instanceof ReplayPipelineError) || error.kind !== "input") throw error;
      errors.push(findingOf(error));
    }
  }
  return { chunks: chunks(), summary: () => redaction.summary(), errors };
}

/**
 * Writes the Layer C copy of a replay file of any supported format (detected from the first
 * line, or the whole document). JSON Lines (REPLAY dialects, Braintrust spans) are read line by
 * line in flat memory and written as one canonical (openagents) line per input event, in order;
 * the summary goes on the ReplayHeader (`redaction`) or the root span (`metadata.redaction`).
 * Documents (`.rpk`, ReplayBundle) are written as one canonical line (`.rpk`: replaykit profile).
 * Bad input throws its typed error (`redactChecked` refuses with it); see `redactFile`.
 */
export function redactOrThrow(source: AsyncIterable<Uint8Array>, options: LayerCOptions): LayerCRedaction {
  const preset = options.preset ?? "private_repo";
  let result: LayerCSummary | undefined;
  const done = (summary: LayerCSummary): void => {
    result = summary;
  };
  async function* run(): AsyncGenerator<Uint8Array> {
    const maxDocument = options.maxDocumentBytes ?? 256 * 1024 * 1024;
    const lines = readByteLines(source, { maxLineBytes: options.maxLineBytes })[Symbol.asyncIterator]();
    const parts: Buffer[] = [];
    let size = 0;
    let documentMode = false;
    for (;;) {
      const next = await lines.next();
      if (next.done === true) break;
      const { line, bytes, terminated } = next.value;
      if (documentMode) {
        size += bytes.length + 1;
        if (size > maxDocument) {
          throw new RedactError(
            "document.too_large",
            `document is larger than ${maxDocument} bytes; expected at most that`,
            { file: options.file },
          );
        }
        parts.push(Buffer.from(bytes), terminated ? NEWLINE : Buffer.alloc(0));
        continue;
      }
      if (isBlankBytes(bytes)) continue;
      let value: JsonValue;
      try {
        value = readJson(decodeUtf8(bytes));
      } catch (error) {
        const text = bytes.toString("utf8").trim();
        if (text === "{" || text === "[") {
          documentMode = true;
          parts.push(Buffer.from(bytes), NEWLINE);
          size = bytes.length + 1;
          continue;
        }
        if (error instanceof ReplayPipelineError) error.locate({ file: options.file, lineOffset: line - 1 });
        throw error;
      }
      const format = formatOf(value, options.file, line);
      if (!isLinesFormat(format)) {
        for (;;) {
          const more = await lines.next();
          if (more.done === true) break;
          if (!isBlankBytes(more.value.bytes)) {
            throw new RedactError("document.trailing_content", `more content after the ${format} document`, {
              file: options.file,
              line: more.value.line,
            });
          }
        }
        yield* document(value, format, preset, options, done);
        return;
      }
      yield* redactLines(next.value, lines, format, preset, options, done);
      return;
    }
    if (!documentMode)
      throw new RedactError("input.empty", "the file has no content; expected a replay file", {
        file: options.file,
      });
    let value: JsonValue;
    try {
      value = readJson(decodeUtf8(Buffer.concat(parts)), { rejectLoneSurrogates: false });
    } catch (error) {
      if (error instanceof ReplayPipelineError) error.locate({ file: options.file });
      throw error;
    }
    const format = formatOf(value, options.file, 1);
    if (isLinesFormat(format)) {
      throw new RedactError(
        "format.not_lines",
        `${format} is JSON Lines, but this file is one multi-line document`,
        {
          file: options.file,
        },
      );
    }
    yield* document(value, format, preset, options, done);
  }
  return {
    chunks: run(),
    summary(): LayerCSummary {
      if (result === undefined)
        throw new RedactError(
          "redact.not_finished",
          "the redaction summary is known once every chunk was read",
        );
      return result;
    },
  };
}

function formatOf(value: JsonValue, file: string, line: number): FormatId {
  const format = detectFormat(value);
  if (format === null) {
    throw new RedactError(
      "format.unknown",
      "not a replay format this tool reads; expected a REPLAY.jsonl event, a Braintrust span, a ReplayBundle or a ReplayKit artifact",
      { file, line },
    );
  }
  return format;
}
