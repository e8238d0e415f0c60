/**
 * Layer C of any replay file (`redactFile`): the format is detected from the first line or the
 * whole document; JSON Lines go through worker threads and the spool, documents are redacted whole.
 */
import { type ByteLine, isBlankBytes, prependGroup, readByteLineGroups } from "../../canonical/index.js";
import { RedactError, ReplayPipelineError } from "../../errors.js";
import { contentShape, type Finding, findingOf } from "../../formats/index.js";
import { mapLines } from "../../parallel/index.js";
import type { Preset } from "../presets.js";
import { type RedactedLine, scrubSettings } from "./lines.js";
import type { LayerCOptions } from "./options.js";
import type { LayerCCounts, LayerCSummary } from "./summary.js";
import { type RedactTaskInit, redactTask } from "./task.js";
import { LayerCWriter } from "./writer.js";

export type { LayerCOptions } from "./options.js";

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
function redactOrThrow(source: AsyncIterable<Uint8Array>, options: LayerCOptions): LayerCRedaction {
  const preset = options.preset ?? "private_repo";
  let result: LayerCSummary | undefined;
  const done = (summary: LayerCSummary): void => {
    result = summary;
  };
  async function* run(): AsyncGenerator<Uint8Array> {
    const writer = new LayerCWriter(options, preset);
    try {
      await feed(writer, source, options, preset);
      yield* writer.copy(options.original, done);
    } finally {
      await writer.dispose();
    }
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

/**
 * Reads the lines of `source` into `writer`, the JSON Lines ones redacted on worker threads when
 * the file is large (`mapLines`), until the end or the writer's first failure (a source error is
 * the writer's failure too).
 */
async function feed(
  writer: LayerCWriter,
  source: AsyncIterable<Uint8Array>,
  options: LayerCOptions,
  preset: Preset,
): Promise<void> {
  // Over-long lines are marked, not thrown: the writer fails on them as the transform always has.
  const lines = readByteLineGroups(source, { maxLineBytes: options.maxLineBytes, skipLongLines: true })[
    Symbol.asyncIterator
  ]();
  try {
    for (;;) {
      const next = await lines.next();
      if (next.done === true) return;
      const group = next.value;
      for (let k = 0; k < group.length; k++) {
        const item = group[k] as ByteLine;
        // This loop is the writer's front end: it gives the shape of the first readable line.
        if (writer.wantsShape && isContentLine(item)) writer.shape(contentShape(item.bytes));
        const busy = writer.line(item);
        if (busy !== undefined) await busy;
        if (writer.failed) return;
        const format = writer.linesFormat;
        if (format === undefined) continue;
        const init: RedactTaskInit = { format, preset, file: options.file, ...scrubSettings(options) };
        const redacted = mapLines(
          prependGroup(group.slice(k + 1), lines),
          isContentLine,
          redactTask,
          init,
          options.parallel,
          (state) => writer.addCounts(state as LayerCCounts),
        );
        for await (const { items, results } of redacted) {
          for (let r = 0; r < items.length; r++) {
            const busy = writer.line(items[r] as ByteLine, results[r] as RedactedLine | undefined);
            if (busy !== undefined) await busy;
            if (writer.failed) return;
          }
        }
        return;
      }
    }
  } catch (error) {
    writer.fail(error);
  }
}

/** A line the redactor reads: not blank, not over the length limit. */
function isContentLine(line: ByteLine): boolean {
  return line.tooLong !== true && !isBlankBytes(line.bytes);
}
