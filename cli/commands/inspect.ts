import { type InspectReport, inspect } from "#shared/formats/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { intOption, parseCommandArgs, singleFile } from "../args.js";
import { HMAC_KEY_OPTIONS, openStream, readHmacKey, toInputError, writeOut } from "../io.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `inspect`. */
export const INSPECT_HELP = `Usage: replay-pipeline inspect <file> [--json] [options]

Detects the replay format by content (REPLAY.jsonl in its three dialects, ReplayBundle JSON,
Braintrust span traces, ReplayKit .rpk; any of them gzip-compressed), validates it, recomputes
every hash it carries and prints a verdict with its check rows, errors, notices and the session
summary.

Options:
  --json                      one JSON object on stdout (format, verdict, checks, errors,
                              notices, replay_hash, summary, ...)
  --hmac-key-env VAR          ReplayKit signature key from environment variable VAR
  --hmac-key-file F           ReplayKit signature key from file F (raw bytes)
  --max-line-bytes N          longest JSON Lines line (default 67108864)
  --max-document-bytes N      largest single-document input such as .rpk (default 268435456)
  --max-decompressed-bytes N  most a gzip input may expand to (default 4294967296)
  --workers N                 worker threads for JSON Lines files over 8 MiB (default: one
                              per core, none on a single core; 0 = none)
  -h, --help                  this help

Verdicts: passed (exit 0), failed (a hash or check did not match, exit 1), invalid (the file
is malformed, exit 1), unverifiable (a check could not be evaluated, e.g. a signature without
a key, exit 3). Usage and read errors exit 2.`;

const OPTIONS = {
  json: { type: "boolean" },
  ...HMAC_KEY_OPTIONS,
  "max-line-bytes": { type: "string" },
  "max-document-bytes": { type: "string" },
  "max-decompressed-bytes": { type: "string" },
  workers: { type: "string" },
} as const;

/** Exit code of a verdict (DESIGN.md). */
export function exitCodeOf(verdict: InspectReport["verdict"]): number {
  return verdict === "passed" ? 0 : verdict === "unverifiable" ? 3 : 1;
}

/** `replay-pipeline inspect`: verdict, checks and summary of one replay file. */
export async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("inspect", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${INSPECT_HELP}\n`);
    return 0;
  }
  const file = singleFile("inspect", positionals);
  const key = await readHmacKey("inspect", values["hmac-key-env"], values["hmac-key-file"]);
  let report: InspectReport;
  try {
    ({ report } = await inspect(openStream(file), {
      file,
      hmacKey: key,
      // The report shows counts, not the call list: keep memory flat for huge replays.
      keepToolCalls: false,
      maxLineBytes: intOption("inspect", "max-line-bytes", values["max-line-bytes"]),
      maxDocumentBytes: intOption("inspect", "max-document-bytes", values["max-document-bytes"]),
      maxDecompressedBytes: intOption("inspect", "max-decompressed-bytes", values["max-decompressed-bytes"]),
      parallel: parallelOptions(intOption("inspect", "workers", values.workers, 0)),
    }));
  } catch (error) {
    throw toInputError(file, error);
  }
  // Whatever the input quoted (commands, messages, names) is scrubbed before it is printed.
  const shown = scrubReport(report);
  await writeOut(values.json === true ? `${JSON.stringify(shown)}\n` : renderReport(shown));
  return exitCodeOf(report.verdict);
}

/** Verification runs listed in the human report. */
const SHOWN_VERIFICATIONS = 10;

/** The short human report. */
export function renderReport(r: InspectReport): string {
  const out: string[] = [];
  out.push(
    `${r.file}: ${r.verdict.toUpperCase()} (${r.format ?? "unknown format"}, ${r.bytes} bytes${r.compressed ? ", gzip" : ""})`,
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
  const shown = r.checks.filter((row) => row.status !== "passed");
  for (const c of shown.slice(0, 20)) {
    out.push(
      `    ${c.status === "failed" ? "FAILED" : "UNVERIFIABLE"} ${c.check} (${c.subject}): expected ${c.expected ?? "-"}, got ${c.actual ?? "-"}`,
    );
  }
  if (t.failed + t.unverifiable > 20)
    out.push(`    … ${t.failed + t.unverifiable - 20} more (inspect --json lists up to 1000 of each)`);
  if (r.errors_total > 0) {
    out.push(
      `  errors: ${r.errors_total}${r.errors_total > r.errors.length ? ` (first ${r.errors.length} listed)` : ""}`,
    );
    for (const e of r.errors.slice(0, 20))
      out.push(`    ${where(e.line, e.column, e.path)}: ${e.message} [${e.code}]`);
  }
  if (r.notices_total > 0) {
    out.push(`  notices: ${r.notices_total}`);
    for (const n of r.notices.slice(0, 10))
      out.push(`    ${where(n.line, n.column, n.path)}: ${n.message} [${n.code}]`);
  }
  const s = r.summary;
  if (s !== null) {
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
  return `${out.join("\n")}\n`;
}

function where(line: number | null, column: number | null, path: string): string {
  return (
    [
      line === null ? null : `line ${line}`,
      column === null ? null : `column ${column}`,
      path === "$" ? null : path,
    ]
      .filter((x) => x !== null)
      .join(", ") || "file"
  );
}
