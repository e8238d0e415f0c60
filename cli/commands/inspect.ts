import type { InspectReport } from "#shared/formats/index.js";
import type { VerifyReport } from "#shared/receipt/index.js";
import { localJob, reportOf } from "../adapters/local.js";
import { inputPaths, intOption, parseCommandArgs } from "../args.js";
import { expandInputs, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, readHmacKey, writeOut } from "../io.js";
import {
  ATTEST_OPTIONS,
  attestTarget,
  checkAttestOptions,
  FORMAT_OPTIONS,
  formatOption,
  inspectView,
  renderReport,
  textOptions,
  VerdictSink,
  writeAttestation,
} from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `inspect`. */
export const INSPECT_HELP = `Usage: replay-pipeline inspect <file or folder...> [--json | --format F] [options]

Detects the replay format by content (REPLAY.jsonl in its three dialects, ReplayBundle JSON,
Braintrust span traces, ReplayKit .rpk; any of them gzip-compressed), validates it, recomputes
every hash it carries and prints a verdict with its check rows, errors, notices and the session
summary.

Several files and folders: one report per file (folders are walked for .jsonl, .json, .rpk and
.bundle files, .gz too), a RECEIPT.json beside a replay is checked against it rather than reported
as a replay, a JSON file found in a folder that is no replay format is skipped with a notice, and
a summary line ends the run; the exit code is the worst of them: 2 over 1 over 3 over 0. --format
github annotates every file, --format junit writes one document with a testsuite per file.

Options:
  --json                      one JSON object on stdout (tool_version, schema_version, format,
                              verdict, checks, errors, notices, replay_hash, summary, ...)
  --format F                  text (default: problems as file:line:col: error code: message),
                              json (= --json), github (workflow annotations and a job summary
                              in $GITHUB_STEP_SUMMARY), junit (JUnit XML, one test case per row)
  --attest PATH               write the verdict to PATH as an in-toto Statement v1 with the
                              SLSA verification_summary/v1 predicate (see docs/cli.md); with several
                              files (or PATH a folder) PATH/<file name>.intoto.json for each
  --sign-key KEY              sign it: a DSSE envelope, HMAC-SHA256 with KEY's bytes, or
                              Ed25519 / ECDSA P-256 when KEY is a private key (PEM or DER)
  --hmac-key-env VAR          ReplayKit signature key from environment variable VAR
  --hmac-key-file F           ReplayKit signature key from file F (raw bytes)
  --max-line-bytes N          longest JSON Lines line (default 67108864)
  --max-document-bytes N      largest single-document input such as .rpk (default 268435456)
  --max-decompressed-bytes N  most a gzip input may expand to (default 4294967296)
  --workers N                 worker threads for JSON Lines files over 8 MiB (default: one
                              per core beyond the first, none on a single core; 0 = none)
  -q, --quiet                 no progress line, no skip notices
  -h, --help                  this help

Verdicts: passed (exit 0), failed (a hash or check did not match, exit 1), invalid (the file
is malformed, exit 1), unverifiable (a check could not be evaluated, e.g. a signature without
a key, exit 3). A file that cannot be read as what it claims (malformed JSON, binary, a limit
passed) exits 1; usage errors and files that cannot be opened exit 2. -q/--quiet prints only
errors and warnings.`;

const OPTIONS = {
  ...FORMAT_OPTIONS,
  ...ATTEST_OPTIONS,
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
  const format = formatOption("inspect", values);
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
  checkAttestOptions("inspect", values, inputs);
  const sink = new VerdictSink(format, "replay-pipeline inspect");
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
      await writeAttestation(
        "inspect",
        { ...values, attest: attestTarget(values.attest, input.path, inputs) },
        shown,
        // A paired receipt's check combines the replay's own verdict with the receipt's rows.
        check?.verdict ?? shown.verdict,
        key === undefined ? {} : { hmacKey: key },
      );
      const receipt = check === undefined ? {} : { receipt_check: receiptCheck(input.receipt, check) };
      await sink.add({
        view: inspectView(shown),
        json: { ...shown, ...receipt },
        text: () =>
          renderReport(shown, textOptions()) +
          (check === undefined ? "" : renderReceiptCheck(input.receipt, check)),
      });
      return shown.verdict;
    },
    { summary: format === "text" ? "stdout" : "stderr", quiet: values.quiet === true, sink },
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
