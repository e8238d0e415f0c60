/** The human text reports of `inspect` and `verify`: a header, compiler-style diagnostics, the session. */
import type { InspectReport } from "#shared/formats/index.js";
import type { VerifyReport } from "#shared/receipt/index.js";
import { type Paint, plain } from "./colour.js";
import { type Diagnostic, formatDiagnostic, reportDiagnostics } from "./diagnostics.js";
import { verifyView } from "./view.js";

/** How a text report is drawn. */
export interface TextOptions {
  paint?: Paint;
  /** Only the error and warning lines: no header, summary or notes. */
  quiet?: boolean;
}

/** Diagnostics listed in a text report before "… more" (all are in --json). */
const SHOWN_DIAGNOSTICS = 40;
/** Verification runs listed in the human report. */
const SHOWN_VERIFICATIONS = 10;

const VERDICT_STYLE = { passed: "green", failed: "red", invalid: "red", unverifiable: "yellow" } as const;

function diagnosticLines(all: Diagnostic[], options: TextOptions, more: string): string[] {
  const paint = options.paint ?? plain;
  const shown = options.quiet === true ? all.filter((d) => d.severity !== "note") : all;
  const out = shown.slice(0, SHOWN_DIAGNOSTICS).map((d) => formatDiagnostic(d, paint));
  if (shown.length > SHOWN_DIAGNOSTICS) out.push(`… ${shown.length - SHOWN_DIAGNOSTICS} more ${more}`);
  return out;
}

/** The short human report of `inspect` (also shown by `redact` and `receipt` when they refuse). */
export function renderReport(r: InspectReport, options: TextOptions = {}): string {
  const paint = options.paint ?? plain;
  const out: string[] = [];
  const quiet = options.quiet === true;
  if (!quiet) {
    out.push(
      `${r.file}: ${paint(VERDICT_STYLE[r.verdict], r.verdict.toUpperCase())} (${r.format ?? "unknown format"}, ${r.bytes} bytes${r.compressed ? ", gzip" : ""})`,
    );
    out.push(`  replay_hash ${r.replay_hash}`);
    if (r.trajectory_hash !== null)
      out.push(
        `  trajectory_hash ${r.trajectory_hash}${r.trajectory_hash_gap === null ? "" : ` (partial: ${r.trajectory_hash_gap}; the runtime's value may differ)`}`,
      );
    if (r.original !== null)
      out.push(
        `  Layer C copy of ${r.original.replay_hash} (original: ${r.original.verdict}; from the copy's record, not recomputed)`,
      );
    const t = r.checks_total;
    out.push(`  checks: ${t.passed} passed, ${t.failed} failed, ${t.unverifiable} unverifiable`);
    if (r.errors_total > 0)
      out.push(
        `  errors: ${r.errors_total}${r.errors_total > r.errors.length ? ` (first ${r.errors.length} listed)` : ""}`,
      );
    if (r.notices_total > 0) out.push(`  notices: ${r.notices_total}`);
  }
  out.push(...diagnosticLines(reportDiagnostics(r), options, "(inspect --json lists them)"));
  const s = r.summary;
  if (s !== null && !quiet) {
    out.push(
      `  session ${s.session_id ?? "(no id)"}: ${s.status ?? "unknown"}, ${s.started_at ?? "?"} → ${s.ended_at ?? "?"}`,
    );
    out.push(
      `    ${s.counts.events} events, ${s.counts.tool_calls} tool calls (${s.counts.failed_tool_calls} failed)${s.counts.turns > 0 ? `, ${s.counts.turns} turns` : ""}${s.confidence === null ? "" : `, confidence ${s.confidence}`}`,
    );
    // A long session runs thousands of checks: the first ones, then a count (all are in --json).
    for (const v of s.verification.slice(0, SHOWN_VERIFICATIONS))
      out.push(`    verification: ${v.command} → exit ${v.exit_code ?? "?"}`);
    const failed = s.verification.filter((v) => v.exit_code !== 0).length;
    if (s.verification.length > SHOWN_VERIFICATIONS)
      out.push(
        `    … ${s.verification.length - SHOWN_VERIFICATIONS} more verification runs (${s.verification.length} in all, ${failed} not exit 0; see --json)`,
      );
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** The short human report of `verify`. */
export function renderVerify(
  r: VerifyReport,
  receiptPath: string | undefined,
  options: TextOptions = {},
): string {
  const paint = options.paint ?? plain;
  const out: string[] = [];
  if (options.quiet !== true) {
    out.push(
      `${r.replay.file} vs ${receiptPath ?? "(no receipt)"}: ${paint(VERDICT_STYLE[r.verdict], r.verdict.toUpperCase())} (replay ${r.replay.verdict}, ${r.replay.format ?? "unknown format"}; receipt ${r.receipt_shape ?? "-"})`,
    );
    out.push(`  replay_hash ${r.replay.replay_hash}`);
    const t = r.checks_total;
    out.push(`  receipt checks: ${t.passed} passed, ${t.failed} failed, ${t.unverifiable} unverifiable`);
    const rt = r.replay.checks_total;
    if (rt.failed + rt.unverifiable > 0 || r.replay.errors_total > 0)
      out.push(
        `  replay: ${rt.failed} failed, ${rt.unverifiable} unverifiable, ${r.replay.errors_total} errors`,
      );
    if (r.errors_total > 0) out.push(`  receipt errors: ${r.errors_total}`);
  }
  out.push(...diagnosticLines(verifyView(r, receiptPath).diagnostics, options, "(verify --json lists them)"));
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
