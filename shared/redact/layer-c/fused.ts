/**
 * Layer C fed by `inspect` (one read of the file for both): the `inspect-redact` line task, which
 * splits a line for `inspect` and redacts it from the same work (the raw members Layer C cuts out
 * are the members `inspect` canonicalizes and hashes), and `tapOf`, the writer as `inspect`'s tap.
 */
import {
  type SplitLine,
  type SplitView,
  splitLine,
  splitsFromWire,
  splitsToWire,
} from "../../canonical/index.js";
import { RedactError } from "../../errors.js";
import type { LineTap, TappedLine } from "../../formats/index.js";
import type { LineTaskModule } from "../../parallel/index.js";
import { LineRedactor, type RedactedLine } from "./lines.js";
import type { LayerCCounts } from "./summary.js";
import { type RedactedWire, type RedactTaskInit, redactedFromWire, redactedToWire } from "./task.js";
import type { LayerCWriter } from "./writer.js";

/** How `inspectRedactTask` is built: the redaction's init and the format's lazy members (null: none). */
export interface InspectRedactInit extends RedactTaskInit {
  lazy: string[] | null;
}

/** A batch of `inspectRedactTask` results between threads. */
interface FusedWire {
  splits: string | null;
  redacted: RedactedWire;
}

/**
 * Per line: `splitLine` for `inspect` (when the format has lazy members) and the line's Layer C
 * redaction, which reads the split's canonical members instead of scanning the raw ones again;
 * as state, the redaction's counts. A line the redactor cannot redact gives a null `tap` (the
 * writer redacts it again on its own thread for the typed error), never a failed batch: `inspect`
 * goes on reading whatever Layer C thinks of a line.
 */
export const inspectRedactTask: LineTaskModule<InspectRedactInit> = {
  name: "inspect-redact",
  // Measured on 2 cores (loaded), `process` on a 100 MB file dense in tool calls: 243-245 MB peak
  // RSS with a 4 MB young generation, 253-261 with 8, 257-267 with 16, at the same CPU time.
  tuning: { youngGenerationMb: 4, batchesInFlight: 2 },
  create(init) {
    const lazy = init.lazy === null ? undefined : new Set(init.lazy);
    const redactor = new LineRedactor(
      init.format,
      init.preset,
      init.key === undefined ? { file: init.file } : { file: init.file, key: init.key },
    );
    const view = {} as SplitView;
    return {
      line: (bytes, line): TappedLine => {
        const split = lazy === undefined ? null : (splitLine(bytes, lazy, view) ?? null);
        let tap: RedactedLine | null;
        try {
          tap = redactor.line(bytes, line, split === null ? undefined : view);
        } catch {
          tap = null;
        }
        return { split, tap };
      },
      finish: () => redactor.takeSnapshot(),
      toWire: (results): FusedWire => {
        const lines = results as TappedLine[];
        return {
          splits: lazy === undefined ? null : splitsToWire(lines.map((r) => r.split)),
          redacted: redactedToWire(lines.map((r) => r.tap as RedactedLine | null)),
        };
      },
      fromWire: (wire): TappedLine[] => {
        const { splits, redacted } = wire as FusedWire;
        const split: (SplitLine | null)[] | undefined = splits === null ? undefined : splitsFromWire(splits);
        return redactedFromWire(redacted).map((tap, k) => ({ split: split?.[k] ?? null, tap }));
      },
    };
  },
};

/**
 * `writer` as `inspect`'s `LineTap`: every line `inspect` reads goes to the writer, and the lines
 * of a JSON Lines file after the first are redacted by `inspectRedactTask` beside `inspect`'s split.
 * `inspect` stopping early with the writer still wanting lines is a bug (the copy would be short):
 * the writer fails with `redact.incomplete` rather than make it.
 */
export function tapOf(writer: LayerCWriter, init: Omit<RedactTaskInit, "format">): LineTap {
  return {
    task: (format, lazy) => {
      const lines = writer.linesFormat;
      if (lines === undefined || lines !== format) return undefined;
      const fused: InspectRedactInit = {
        ...init,
        format: lines,
        lazy: lazy === undefined ? null : [...lazy],
      };
      return { task: inspectRedactTask as LineTaskModule<unknown>, init: fused };
    },
    line: (item, result) => writer.line(item, result as RedactedLine | null | undefined),
    state: (state) => writer.addCounts(state as LayerCCounts),
    end: ({ error, complete }) => {
      if (error !== undefined) writer.fail(error);
      else if (!complete)
        writer.fail(
          new RedactError("redact.incomplete", "inspect stopped reading before the end of the file", {
            file: init.file,
          }),
        );
    },
  };
}
