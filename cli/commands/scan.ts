import { createHash } from "node:crypto";
import { PROFILES, type Profile } from "#shared/canonical/index.js";
import { ReplayPipelineError } from "#shared/errors.js";
import type { CheckStatus, Verdict } from "#shared/formats/index.js";
import { Scrubber, scrubReport } from "#shared/redact/index.js";
import { localJob, reportOf } from "../adapters/local.js";
import { parseCommandArgs } from "../args.js";
import { InputFileError } from "../errors.js";
import { expandInputs, type Input, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, openStream, readHmacKey, writeOut } from "../io.js";
import {
  type Diagnostic,
  EXIT,
  FORMAT_OPTIONS,
  formatOption,
  inspectView,
  VerdictSink,
  type VerdictView,
} from "../output/index.js";
import { parallelOptions } from "../worker-script.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";
import { exitCodeOf } from "./inspect.js";

/** Help text of `scan`. */
export const SCAN_HELP = `Usage: replay-pipeline scan [files or folders...] [--json | --format F] [--hmac-key-env VAR | --hmac-key-file F] [--exit-zero]

Walks folders (default: examples) and takes files, and for every .json, .jsonl, .rpk and .bundle
file (gzip-compressed too) prints what inspect says of it (format, verdict, check rows), its raw
sha256 (replay_hash) and its canonical sha256 in each profile (jcs, openagents, replaykit).
A RECEIPT.json beside a replay is checked against it (a line under the table, "receipt" in
--json) instead of being listed as a replay; a JSON file found in a folder that is no replay
format is skipped with a notice on standard error. A file that cannot be read or canonicalized
gets its error and the scan goes on.

Options:
  --json               one JSON object per file instead of the table (with inspect's verdict and
                       the exit code inspect would give it; tool_version, schema_version)
  --format F           text (the table, default), json (= --json), github (annotations for
                       every file and a job summary), junit (one document, a testsuite per file)
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR (as inspect)
  --hmac-key-file F    ReplayKit signature key from file F (raw bytes)
  --exit-zero          exit 0 whatever the verdicts, once every file has one (a demo or a
                       report-only job); usage errors and unopenable files still exit 2
  -q, --quiet          no progress line, no skip notices
  -h, --help           this help

Each file gets the verdict and exit code inspect gives it. The scan exits with the worst of
them (a receipt check counts too): 2 if a file could not be opened, else 1 if any file is failed
or invalid (or could not be read as what it claims, or canonicalized), else 3 if any is
unverifiable, else 0; 2 on a usage error, or when the folders hold no file to check.`;

interface FileRow {
  file: string;
  /** What `inspect` says of the file. */
  format: string | null;
  verdict: Verdict;
  /** The exit code `inspect` gives this file. */
  exit_code: number;
  checks: Record<string, number>;
  bytes: number;
  raw: string;
  canonical: Partial<Record<Profile, string>>;
  errors: Partial<Record<Profile, { code: string; message: string }>>;
  /** The check against the RECEIPT.json beside the file, when there is one. */
  receipt?: { file: string; verdict: Verdict; checks: Record<CheckStatus, number> };
}

async function hashPieces(pieces: AsyncIterable<Uint8Array>): Promise<{ hash: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const piece of pieces) {
    hash.update(piece);
    bytes += piece.length;
  }
  return { hash: `sha256:${hash.digest("hex")}`, bytes };
}

/** `replay-pipeline scan`: raw and canonical hashes of every replay-like file in a folder. */
export async function scanCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("scan", argv, {
    ...FORMAT_OPTIONS,
    "exit-zero": { type: "boolean" },
    ...HMAC_KEY_OPTIONS,
  });
  if (values.help === true) {
    await writeOut(`${SCAN_HELP}\n`);
    return 0;
  }
  const format = formatOption("scan", values);
  const given = positionals.length > 0 ? positionals : ["examples"];
  const key = await readHmacKey("scan", values["hmac-key-env"], values["hmac-key-file"]);
  const inputs = await expandInputs(given, { pairReceipts: true });
  if (inputs.files.length === 0)
    throw new InputFileError(
      "scan.no_files",
      `${given.join(", ")}: no .json, .jsonl, .rpk or .bundle file (or .gz of one) to check`,
    );
  const rows: FileRow[] = [];
  const scrubber = new Scrubber({ preset: "private_repo" });
  const parallel = parallelOptions();
  const sink = new VerdictSink(format, "replay-pipeline scan");
  const worst = await runInputs(
    "scan",
    inputs,
    async (input, tally) => {
      const scanned = await scanFile(input, key, parallel, scrubber);
      if (scanned === null) {
        if (values.quiet !== true) process.stderr.write(skipNotice("scan", input));
        return "skipped";
      }
      const { row, view } = scanned;
      rows.push(row);
      if (row.receipt !== undefined) tally.fold(exitCodeOf(row.receipt.verdict));
      // The table is text's output, written once every file has its row.
      await sink.add({ view, json: row, text: () => "" });
      return Object.keys(row.errors).length > 0 ? "failed" : row.verdict;
    },
    { summary: "none", quiet: values.quiet === true, sink },
  );
  if (format === "text") await writeOut(renderTable(rows, given.join(", ")));
  return values["exit-zero"] === true && worst !== EXIT.cannot_run ? EXIT.ok : worst;
}

/** The row and view of one file; null for a JSON file found in a folder that is no replay format. */
async function scanFile(
  input: Input,
  key: Uint8Array | undefined,
  parallel: ReturnType<typeof parallelOptions>,
  scrubber: Scrubber,
): Promise<{ row: FileRow; view: VerdictView } | null> {
  const { path: file, receipt } = input;
  const result = await localJob(file, {
    ...(key === undefined ? {} : { hmacKey: key }),
    ...(receipt === null ? {} : { receipt }),
    parallel,
  });
  const report = reportOf(result);
  if (notAReplay(input, report)) return null;
  // inspect hashed every byte it read: the file's own bytes unless they were gzip.
  const raw = report.compressed
    ? await hashPieces(openStream(file))
    : { hash: report.replay_hash, bytes: report.bytes };
  const check = result.verifications[0];
  const row: FileRow = {
    file,
    format: report.format,
    verdict: report.verdict,
    exit_code: exitCodeOf(report.verdict),
    checks: report.checks_total,
    bytes: raw.bytes,
    raw: raw.hash,
    canonical: {},
    errors: {},
    ...(receipt === null || check === undefined
      ? {}
      : { receipt: { file: receipt, verdict: check.verdict, checks: check.checks_total } }),
  };
  for (const profile of PROFILES) {
    try {
      row.canonical[profile] = (
        await hashPieces(canonicalPieces({ file, profile, jsonl: isJsonLines(file, false) }))
      ).hash;
    } catch (error) {
      if (!(error instanceof ReplayPipelineError)) throw error;
      row.errors[profile] = { code: error.code, message: error.message };
    }
  }
  return { row: scrubReport(row, scrubber), view: scanView(inspectView(report), row) };
}

/** A file's inspect view with the profiles it could not be canonicalized in as errors. */
function scanView(view: VerdictView, row: FileRow): VerdictView {
  const errors = Object.entries(row.errors).map(
    ([profile, e]): Diagnostic => ({
      file: row.file,
      line: null,
      column: null,
      severity: "error",
      code: e.code,
      message: `${profile}: ${e.message}`,
    }),
  );
  if (errors.length === 0) return view;
  const verdict = view.verdict === "passed" || view.verdict === "unverifiable" ? "failed" : view.verdict;
  return {
    ...view,
    verdict,
    diagnostics: [...view.diagnostics, ...errors],
    errorsTotal: view.errorsTotal + errors.length,
  };
}

function renderTable(rows: FileRow[], dir: string): string {
  const short = (h: string | undefined): string => (h === undefined ? "error" : `${h.slice(0, 19)}…`);
  const lines = [`${rows.length} file(s) under ${dir}: inspect verdict, check rows, and hashes:`, ""];
  lines.push(
    "| file | format | verdict | checks passed/failed/unverifiable | bytes | raw (replay_hash) | jcs | openagents | replaykit |",
    "|---|---|---|---|---:|---|---|---|---|",
  );
  for (const r of rows) {
    const checks = `${r.checks.passed ?? 0}/${r.checks.failed ?? 0}/${r.checks.unverifiable ?? 0}`;
    lines.push(
      `| ${r.file} | ${r.format ?? "unknown"} | ${r.verdict} | ${checks} | ${r.bytes} | ${short(r.raw)} | ${short(r.canonical.jcs)} | ${short(r.canonical.openagents)} | ${short(r.canonical.replaykit)} |`,
    );
  }
  for (const r of rows)
    for (const [profile, e] of Object.entries(r.errors)) lines.push(`${profile}: ${e.message}`);
  for (const r of rows)
    if (r.receipt !== undefined)
      lines.push(
        `receipt check: ${r.file} against ${r.receipt.file}: ${r.receipt.verdict.toUpperCase()} (${r.receipt.checks.passed}/${r.receipt.checks.failed}/${r.receipt.checks.unverifiable})`,
      );
  lines.push("", "Details: replay-pipeline inspect <file>; full hashes: replay-pipeline scan --json.");
  return `${lines.join("\n")}\n`;
}
