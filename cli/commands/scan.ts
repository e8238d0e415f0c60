import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { PROFILES, type Profile } from "#shared/canonical/index.js";
import { ReplayPipelineError } from "#shared/errors.js";
import { inspect, type Verdict } from "#shared/formats/index.js";
import { Scrubber, scrubReport } from "#shared/redact/index.js";
import { parseCommandArgs } from "../args.js";
import { InputFileError } from "../errors.js";
import { HMAC_KEY_OPTIONS, openStream, readHmacKey, toInputError, writeOut } from "../io.js";
import { jsonLine } from "../output/index.js";
import { parallelOptions } from "../worker-script.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";
import { exitCodeOf } from "./inspect.js";

/** Help text of `scan`. */
export const SCAN_HELP = `Usage: replay-pipeline scan [dir] [--json] [--hmac-key-env VAR | --hmac-key-file F] [--exit-zero]

Walks a folder (default: examples) and, for every .json, .jsonl and .rpk file, prints what
inspect says of it (format, verdict, check rows), its raw sha256 (replay_hash) and its canonical
sha256 in each profile (jcs, openagents, replaykit).
A file that cannot be read or canonicalized gets its error and the scan goes on.

Options:
  --json               one JSON object per file instead of the table (with inspect's verdict and
                       the exit code inspect would give it)
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR (as inspect)
  --hmac-key-file F    ReplayKit signature key from file F (raw bytes)
  --exit-zero          exit 0 whatever the verdicts, once every file has one (a demo or a
                       report-only job); usage and read errors still exit 2
  -h, --help           this help

Each file gets the verdict and exit code inspect gives it. The scan exits with the worst of
them: 1 if any file is failed or invalid (or could not be canonicalized), else 3 if any is
unverifiable, else 0; 2 on a usage or read error, or when the folder holds no file to check.`;

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
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (/\.(json|jsonl|rpk)$/i.test(entry.name)) out.push(path);
  }
  return out;
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
    json: { type: "boolean" },
    "exit-zero": { type: "boolean" },
    ...HMAC_KEY_OPTIONS,
  });
  if (values.help === true) {
    await writeOut(`${SCAN_HELP}\n`);
    return 0;
  }
  const dir = positionals[0] ?? "examples";
  const key = await readHmacKey("scan", values["hmac-key-env"], values["hmac-key-file"]);
  let files: string[];
  try {
    files = await listFiles(dir);
  } catch (error) {
    throw toInputError(dir, error);
  }
  if (files.length === 0)
    throw new InputFileError("scan.no_files", `${dir}: no .json, .jsonl or .rpk file to check`);
  let worst = 0;
  const rows: FileRow[] = [];
  const scrubber = new Scrubber({ preset: "private_repo" });
  for (const path of files) {
    const file = relative(process.cwd(), path) || path;
    const { report } = await inspect(openStream(path), {
      file,
      hmacKey: key,
      keepToolCalls: false,
      parallel: parallelOptions(),
    });
    // inspect hashed every byte it read: the file's own bytes unless they were gzip.
    const raw = report.compressed
      ? await hashPieces(openStream(path))
      : { hash: report.replay_hash, bytes: report.bytes };
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
    worst = worseExit(worst, Object.keys(row.errors).length > 0 ? 1 : row.exit_code);
    const shown = scrubReport(row, scrubber);
    rows.push(shown);
    if (values.json === true) await writeOut(jsonLine(shown));
  }
  if (values.json !== true) await writeOut(renderTable(rows, dir));
  return values["exit-zero"] === true ? 0 : worst;
}

/** The worse of two verdict exit codes: 1 (failed, invalid) over 3 (unverifiable) over 0. */
function worseExit(a: number, b: number): number {
  const rank = (code: number): number => (code === 1 ? 2 : code === 3 ? 1 : 0);
  return rank(b) > rank(a) ? b : a;
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
  lines.push("", "Details: replay-pipeline inspect <file>; full hashes: replay-pipeline scan --json.");
  return `${lines.join("\n")}\n`;
}
