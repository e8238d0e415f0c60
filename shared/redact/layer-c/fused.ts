/**
 * Layer C fed by `inspect` (one read of the file for both): the `inspect-redact` line task, which
 * splits a line for `inspect` and redacts it from the same work (the raw members Layer C cuts out
 * are the members `inspect` canonicalizes and hashes); `fusedTask`, its init for the file `inspect`
 * reads; and `tapOf`, the writer as `inspect`'s tap.
 */
import { ByteSink, SplitView, splitInto, splitLine } from "../../canonical/index.js";
import { RedactError } from "../../errors.js";
import type { FusedTask, LineTap, TappedLine } from "../../formats/index.js";
import { type LineTaskModule, type SplitTexts, SplitWire, splitsFromWire } from "../../parallel/index.js";
import {
  type LearnedByLine,
  LineRedactor,
  type LinesFormat,
  type RedactedLine,
  scrubSettings,
} from "./lines.js";
import type { LayerCCounts } from "./summary.js";
import type { RedactTaskInit } from "./task.js";
import type { LayerCWriter } from "./writer.js";

/** How `inspectRedactTask` is built: the redaction's init and the format's lazy members (null: none). */
export interface InspectRedactInit extends RedactTaskInit {
  lazy: string[] | null;
}

/**
 * A batch of `inspectRedactTask` results between threads: the splits (`SplitWire`'s texts), and
 * the redacted lines as one string with, per line, where it ends and a flag (0, 1 for a carrier,
 * 2 for a line the redactor failed), and what the lines revealed. A string, not bytes: a buffer per batch would be one more
 * external allocation on the receiving thread, which its collector frees late.
 */
interface FusedWire {
  splits: SplitTexts | null;
  texts: string;
  ends: Int32Array;
  flags: Uint8Array;
  learned: LearnedByLine;
}

/** The slabs the reading thread's line copies are written into (see `inspectRedactTask`). */
const COPY_SLAB_BYTES = 1 << 16;

/**
 * Per line: `splitLine` for `inspect` (when the format has lazy members) and the line's Layer C
 * redaction, which reads the split's canonical members instead of scanning the raw ones again;
 * as state, the redaction's counts. A line the redactor cannot redact gives a null `tap` (the
 * writer redacts it again on its own thread for the typed error), never a failed batch: `inspect`
 * goes on reading whatever Layer C thinks of a line.
 */
export const inspectRedactTask: LineTaskModule<InspectRedactInit> = {
  name: "inspect-redact",
  // A larger young generation: a batch's wire text dies young, and 16 MB was faster than 4 at
  // about the same peak (docs/performance.md, "Worker tuning").
  tuning: { youngGenerationMb: 16, batchesInFlight: 2 },
  create(init) {
    const lazy = init.lazy === null ? undefined : new Set(init.lazy);
    const redactor = new LineRedactor(init.format, init.preset, { file: init.file, ...scrubSettings(init) });
    const view = new SplitView();
    // On a worker (`wireLine`): the lines since the last `toWire` in their wire form (`FusedWire`).
    const splits = lazy === undefined ? undefined : new SplitWire(lazy);
    const texts = new ByteSink(1 << 16);
    // Where each line ends in the texts as a string (UTF-16 code units), for the reading thread.
    let at = 0;
    const ends: number[] = [];
    const flags: number[] = [];
    let learned: LearnedByLine = [];
    // On the reading thread (`line`): each line's copy is written into a slab shared by the lines
    // after it and given as a view of it, where a buffer of its own per line was one more
    // allocation and copy. A full slab is left to the views still holding it, never written over:
    // a result may be kept (a group run here waits for the workers' batches before it).
    let copies = new ByteSink(COPY_SLAB_BYTES);
    return {
      line: (bytes, line): TappedLine => {
        const split = lazy === undefined ? null : (splitLine(bytes, lazy, view) ?? null);
        // Room for about the line again: a slab that had to grow would copy the lines before it.
        if (copies.len + 2 * bytes.length + 256 > copies.buf.length)
          copies = new ByteSink(Math.max(COPY_SLAB_BYTES, 2 * bytes.length + 256));
        const from = copies.len;
        let tap: RedactedLine | null;
        try {
          const carrier = redactor.lineInto(bytes, line, split === null ? undefined : view, copies);
          const secrets = redactor.takeLearned();
          const text = copies.buf.subarray(from, copies.len);
          tap = secrets.length === 0 ? { text, carrier } : { text, carrier, learned: secrets };
        } catch {
          copies.len = from;
          tap = null;
        }
        return { split, tap };
      },
      wireLine: (bytes, line): undefined => {
        const split = lazy !== undefined && splitInto(bytes, lazy, view);
        splits?.add(split ? view : null);
        const from = texts.len;
        try {
          const carrier = redactor.lineInto(bytes, line, split ? view : undefined, texts);
          at += texts.utf16Length(from, texts.len);
          flags.push(carrier ? 1 : 0);
          const secrets = redactor.takeLearned();
          if (secrets.length > 0) learned.push([ends.length, secrets]);
        } catch {
          texts.len = from;
          flags.push(2);
        }
        ends.push(at);
        return undefined;
      },
      finish: () => redactor.takeSnapshot(),
      toWire: (): FusedWire => {
        const wire: FusedWire = {
          splits: splits === undefined ? null : splits.take(),
          texts: texts.buf.toString("utf8", 0, texts.len),
          ends: Int32Array.from(ends),
          flags: Uint8Array.from(flags),
          learned,
        };
        learned = [];
        texts.clear();
        at = 0;
        ends.length = 0;
        flags.length = 0;
        return wire;
      },
      fromWire: (wire) => tappedFromWire(wire as FusedWire),
    };
  },
};

/** The lines of a `FusedWire`, each decoded as the caller comes to it. */
function* tappedFromWire({ splits, texts, ends, flags, learned }: FusedWire): Generator<TappedLine> {
  const split = splits === null ? undefined : splitsFromWire(splits);
  let start = 0;
  let next = 0;
  for (let k = 0; k < ends.length; k++) {
    const end = ends[k] as number;
    const flag = flags[k];
    const tap: RedactedLine | null =
      flag === 2 ? null : { text: texts.slice(start, end), carrier: flag === 1 };
    if (learned[next]?.[0] === k) {
      if (tap !== null) tap.learned = (learned[next] as LearnedByLine[number])[1];
      next++;
    }
    yield { split: split === undefined ? null : (split.next().value ?? null), tap };
    start = end;
  }
}

/**
 * `task` (`inspectRedactTask`) for `inspect`: built, once the first line showed a JSON Lines
 * format, for that format and its reader's lazy members, with the redaction's `init`.
 */
export function fusedTask(
  task: LineTaskModule<InspectRedactInit>,
  init: Omit<RedactTaskInit, "format">,
): FusedTask {
  return {
    task: task as LineTaskModule<unknown>,
    init: (format, lazy): InspectRedactInit => ({
      ...init,
      // A format `inspect` reads line by line is one Layer C redacts line by line.
      format: format as LinesFormat,
      lazy: lazy === undefined ? null : [...lazy],
    }),
  };
}

/**
 * `writer` as `inspect`'s `LineTap`: every line `inspect` reads goes to the writer, the lines of a
 * JSON Lines file after the first with their redaction by the fused task (ignored once the writer
 * failed). `inspect` stopping early with the writer still wanting lines is a bug (the copy would
 * be short): the writer fails with `redact.incomplete` rather than make it.
 */
export function tapOf(writer: LayerCWriter, file: string): LineTap {
  return {
    shape: (shape) => writer.shape(shape),
    line: (item, result) => writer.line(item, result as RedactedLine | null | undefined),
    state: (state) => writer.addCounts(state as LayerCCounts),
    end: ({ error, complete }) => {
      if (error !== undefined) writer.fail(error);
      else if (!complete)
        writer.fail(
          new RedactError("redact.incomplete", "inspect stopped reading before the end of the file", {
            file,
          }),
        );
    },
  };
}
