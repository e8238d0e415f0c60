import type { InspectReport } from "#shared/formats/index.js";
import type { VerifyReport } from "#shared/receipt/index.js";
import { localJob, reportOf } from "../adapters/local.js";
import { inputPaths, intOption, parseCommandArgs } from "../args.js";
import { expandInputs, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, readHmacKey, writeOut } from "../io.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `inspect`. */
export const INSPECT_HELP = `Usage: replay-pipeline inspect <file or folder...> [--json] [options]

Detects the replay format by content (REPLAY.jsonl in its three dialects, ReplayBundle JSON,
Braintrust span traces, ReplayKit .rpk; any of them gzip-compressed), validates it, recomputes
every hash it carries and prints a verdict with its check rows, errors, notices and the session
summary.

Several files and folders: one report per file (folders are walked for .jsonl, .json, .rpk and
.bundle files, .gz too), a RECEIPT.json beside a replay is checked against it rather than reported
as a replay, a JSON file found in a folder that is no replay format is skipped with a notice, and
a summary line ends the run; the exit code is the worst of them (2 if a file could not be read).

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
  -q, --quiet                 no progress line, no skip notices
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
  const key = await readHmacKey("inspect", values["hmac-key-env"], values["hmac-key-file"]);
  const maxLineBytes = intOption("inspect", "max-line-bytes", values["max-line-bytes"]);
  const maxDocumentBytes = intOption("inspect", "max-document-bytes", values["max-document-bytes"]);
  const maxDecompressedBytes = intOption(
    "inspect",
    "max-decompressed-bytes",
    values["max-decompressed-bytes"],
  );
  const parallel = parallelOptions(intOption("inspect", "workers", values.workers, 0));
  const inputs = await expandInputs(inputPaths("inspect", positionals), { pairReceipts: true });
  const json = values.json === true;
  return runInputs(
    "inspect",
    inputs,
    async (input, tally) => {
      const result = await localJob(input.path, {
        ...(key === undefined ? {} : { hmacKey: key }),
        ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
        ...(maxDocumentBytes === undefined ? {} : { maxDocumentBytes }),
        ...(maxDecompressedBytes === undefined ? {} : { maxDecompressedBytes }),
        ...(input.receipt === null ? {} : { receipt: input.receipt }),
        parallel,
      });
      // The job's report is scrubbed: nothing the input quoted is printed unscrubbed.
      const shown = reportOf(result);
      if (notAReplay(input, shown)) {
        if (values.quiet !== true) process.stderr.write(skipNotice("inspect", input));
        return "skipped";
      }
      const check = result.verifications[0];
      if (check !== undefined) tally.fold(exitCodeOf(check.verdict));
      if (json) {
        const receipt = check === undefined ? {} : { receipt_check: receiptCheck(input.receipt, check) };
        await writeOut(`${JSON.stringify({ ...shown, ...receipt })}\n`);
      } else {
        await writeOut(renderReport(shown));
        if (check !== undefined) await writeOut(renderReceiptCheck(input.receipt, check));
      }
      return shown.verdict;
    },
    { summary: json ? "stderr" : "stdout", quiet: values.quiet === true },
  );
}

/** A paired receipt's check in `inspect --json`: the receipt, its verdict and totals, the rows not passed. */
function receiptCheck(receipt: string | null, check: VerifyReport) {
  return {
    receipt,
    verdict: check.verdict,
    checks_total: check.checks_total,
    checks: check.checks.filter((row) => row.status !== "passed"),
    errors: check.errors,
  };
}

/** A paired receipt's check in the human report: a line, and the rows that did not pass. */
function renderReceiptCheck(receipt: string | null, check: VerifyReport): string {
  const t = check.checks_total;
  const out = [
    `  receipt ${receipt ?? "-"}: ${check.verdict.toUpperCase()} (${t.passed} passed, ${t.failed} failed, ${t.unverifiable} unverifiable)`,
  ];
  for (const c of check.checks.filter((row) => row.status !== "passed").slice(0, 10))
    out.push(
      `    ${c.status === "failed" ? "FAILED" : "UNVERIFIABLE"} ${c.check} (${c.subject}): expected ${c.expected ?? "-"}, got ${c.actual ?? "-"}`,
    );
  for (const e of check.errors.slice(0, 5)) out.push(`    ${e.path}: ${e.message} [${e.code}]`);
  return `${out.join("\n")}\n`;
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
