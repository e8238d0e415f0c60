/**
 * Layer C that never launders: the input is inspected while it is redacted (one read of the
 * source, each line handed to both), the copy records the original's verdict, and a `failed` or
 * `invalid` input gives no copy unless the caller asks for one.
 */

import { type ErrorOptions, RedactError, ReplayPipelineError } from "../errors.js";
import {
  type InspectOptions,
  type InspectReport,
  type InspectResult,
  inspect,
  type LayerCOrigin,
  MAX_FAILED_KEPT,
} from "../formats/index.js";
import type { LineTaskModule } from "../parallel/index.js";
import type { LayerCOptions, LayerCRedaction } from "./layer-c/entry.js";
import { fusedTask, type InspectRedactInit, tapOf } from "./layer-c/fused.js";
import { scrubSettings } from "./layer-c/lines.js";
import type { LayerCSummary } from "./layer-c/summary.js";
import { LayerCWriter } from "./layer-c/writer.js";
import { scrubReport } from "./report.js";

/** A `failed` or `invalid` input that `redactChecked` will not copy; `report` (scrubbed) says why. */
export class RedactRefusedError extends ReplayPipelineError {
  constructor(
    readonly report: InspectReport,
    detail: string,
    options?: ErrorOptions,
  ) {
    super("redact.refused", detail, { file: report.file }, options);
  }
}

/** The refusal of `report` (scrubbed): the error `redactChecked` throws instead of a copy. */
export function refusedError(report: InspectReport, options?: { cause?: unknown }): RedactRefusedError {
  const scrubbed = scrubReport(report);
  return new RedactRefusedError(scrubbed, refusal(scrubbed), options);
}

/** Why `report` refuses: its verdict and the first failed rows or errors. */
function refusal(report: InspectReport): string {
  const failed = report.checks.filter((row) => row.status === "failed").slice(0, 3);
  const reasons =
    failed.length > 0
      ? failed.map((row) => `${row.check} (${row.subject}) failed`)
      : report.errors.slice(0, 3).map((e) => `${e.line === null ? "" : `line ${e.line}: `}${e.message}`);
  const more =
    report.verdict === "failed"
      ? report.checks_total.failed - failed.length
      : report.errors_total - reasons.length;
  return `the input is ${report.verdict}, so no Layer C copy was made: ${reasons.join("; ")}${more > 0 ? ` (and ${more} more)` : ""}; expected an input that is not failed or invalid (or allow it explicitly)`;
}

/** What `redactChecked` needs: Layer C's options and the limits and key `inspect` reads with. */
export interface CheckedOptions
  extends Omit<LayerCOptions, "original">,
    Pick<InspectOptions, "hmacKey" | "keepToolCalls" | "toolCalls" | "maxDecompressedBytes"> {
  /** Copy a `failed` or `invalid` input too (its verdict is still recorded in the copy). */
  allowUnverified?: boolean;
  /**
   * The line task that inspects and redacts each line of a JSON Lines file in one pass, on the
   * workers or here: `inspectRedactTask`, named by the caller so that it says which task runs.
   */
  task: LineTaskModule<InspectRedactInit>;
}

/** A running checked redaction: `redactOrThrow`'s, plus the input's own report. */
export interface CheckedRedaction extends LayerCRedaction {
  /** The input's `inspect` report; settles once the input has been read. */
  report: Promise<InspectReport>;
  /** The report and the session (its tool calls when `keepToolCalls`), settling with `report`. */
  inspected: Promise<InspectResult>;
}

/**
 * The record of `report` that a copy carries; with the failed rows (subjects scrubbed, hashes as
 * they are) when some failed, so the copy still names the steps whose content did not match.
 */
export function originOf(report: InspectReport): LayerCOrigin {
  const failed = report.checks.filter((row) => row.status === "failed").slice(0, MAX_FAILED_KEPT);
  return {
    replay_hash: report.replay_hash,
    verdict: report.verdict,
    checks_total: { ...report.checks_total },
    errors_total: report.errors_total,
    ...(failed.length === 0 ? {} : { failed_checks: scrubReport(failed) }),
  };
}

const refused = (report: InspectReport): boolean =>
  report.verdict === "failed" || report.verdict === "invalid";

/**
 * Redacts `source` as `redactOrThrow` does while `inspect` reads it: one read of the bytes, whose
 * lines `inspect` hands to the Layer C writer as it reads them (`LineTap`); for JSON Lines one
 * line task splits each line for `inspect` and redacts it from the same work. The copy's record
 * (`original`) carries the input's replay_hash, verdict and check totals. A `failed` or `invalid`
 * input is refused with a `RedactRefusedError` before any byte of the copy is given out, unless
 * `allowUnverified`; an input too malformed to redact at all is refused the same way, with
 * inspect's findings rather than the transform's first error. The copy, its summary and the
 * report are those of running `inspect` and `redactOrThrow` on the bytes separately.
 */
export function redactChecked(source: AsyncIterable<Uint8Array>, options: CheckedOptions): CheckedRedaction {
  const {
    allowUnverified = false,
    hmacKey,
    keepToolCalls = false,
    toolCalls,
    maxDecompressedBytes,
    task,
    ...layerC
  } = options;
  const preset = layerC.preset ?? "private_repo";
  const writer = new LayerCWriter(layerC, preset);
  const inspected = inspect(source, {
    file: options.file,
    keepToolCalls,
    ...(toolCalls === undefined ? {} : { toolCalls }),
    tap: tapOf(writer, options.file),
    fused: fusedTask(task, { preset, file: options.file, ...scrubSettings(layerC) }),
    ...(hmacKey === undefined ? {} : { hmacKey }),
    ...(maxDecompressedBytes === undefined ? {} : { maxDecompressedBytes }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: options.maxDocumentBytes }),
    ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
  });
  const report = inspected.then((result) => result.report);
  const original = report.then((r) => {
    if (!allowUnverified && refused(r)) throw refusedError(r);
    return originOf(r);
  });
  // Awaited by the copy; settled here too so an early failure leaves no unhandled rejection.
  inspected.catch(() => undefined);
  report.catch(() => undefined);
  original.catch(() => undefined);
  let summary: LayerCSummary | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      // Every line is with the writer once inspect is done (its failure is the writer's too).
      await inspected.catch(() => undefined);
      yield* writer.copy(original, (s) => {
        summary = s;
      });
    } catch (error) {
      if (error instanceof RedactRefusedError) throw error;
      const r = await report;
      if (!allowUnverified && refused(r)) throw refusedError(r, { cause: error });
      throw error;
    } finally {
      await writer.dispose();
    }
  }
  return {
    chunks: chunks(),
    summary(): LayerCSummary {
      if (summary === undefined)
        throw new RedactError(
          "redact.not_finished",
          "the redaction summary is known once every chunk was read",
        );
      return summary;
    },
    report,
    inspected,
  };
}
