/** Reads one replay file of any format into the `SessionView` the viewer and `diff` show. */
import type { CheckRow, FormatId, InspectOptions, InspectResult } from "../formats/index.js";
import { inspect } from "../formats/index.js";
import { ViewCapture } from "./capture.js";
import { buildSteps, redactionOf } from "./steps.js";
import type { SessionView } from "./types.js";

/** Options of `readSessionView`: inspect's, and a receipt check to show in the header. */
interface ViewOptions
  extends Pick<InspectOptions, "hmacKey" | "maxLineBytes" | "maxDocumentBytes" | "parallel"> {
  file: string;
}

/**
 * Inspects `source` (keeping its tool calls) and builds its view: the header from the report, the
 * timeline from the session, and a Layer C copy's redaction record and original's failed rows.
 * Returns the inspect result too, for a receipt check of the same read.
 */
export async function readSessionView(
  source: AsyncIterable<Uint8Array>,
  options: ViewOptions,
): Promise<{ view: SessionView; inspected: InspectResult }> {
  const capture = new ViewCapture(options.maxDocumentBytes ?? 256 * 1024 * 1024);
  const inspected = await inspect(source, { ...options, keepToolCalls: true, tap: capture });
  return { view: viewOf(inspected, capture), inspected };
}

/** The view of an inspected file and what the capture kept of it. */
function viewOf({ report, session }: InspectResult, capture: ViewCapture): SessionView {
  const format = report.format;
  const document = isDocument(format) ? capture.document() : null;
  const redaction =
    report.original === null ? null : redactionOf(format, document === null ? capture.records() : [document]);
  const { steps, rest } = buildSteps({
    format,
    session,
    rows: [...report.checks, ...originalRows(format, report.original?.failed_checks ?? [])],
    document,
    redaction,
  });
  return {
    file: report.file,
    format,
    verdict: report.verdict,
    replay_hash: report.replay_hash,
    trajectory_hash: report.trajectory_hash,
    bytes: report.bytes,
    session_id: report.summary?.session_id ?? null,
    producer: report.summary?.producer ?? null,
    checks: rest,
    checks_total: report.checks_total,
    errors: report.errors.map((e) => ({ line: e.line, path: e.path, code: e.code, message: e.message })),
    errors_total: report.errors_total,
    original: report.original,
    redaction,
    receipt: null,
    steps,
  };
}

function isDocument(format: FormatId | null): boolean {
  return format === "replaykit-rpk" || format === "replay-bundle";
}

/**
 * A copy's record of the original's failed rows, named for the hash they concern in the copy: an
 * `.rpk` copy's own step hashes are recomputed, so the original's rows are its `original_step`'s.
 */
function originalRows(format: FormatId | null, rows: CheckRow[]): CheckRow[] {
  if (format !== "replaykit-rpk") return rows;
  return rows.map((row) => ({ ...row, check: `original_${row.check}` }));
}
