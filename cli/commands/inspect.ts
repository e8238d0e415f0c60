import { type InspectReport, inspect } from "#shared/formats/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { intOption, parseCommandArgs, singleFile } from "../args.js";
import { HMAC_KEY_OPTIONS, openStream, readHmacKey, toInputError, writeOut } from "../io.js";
import {
  ATTEST_OPTIONS,
  checkAttestOptions,
  emitVerdicts,
  FORMAT_OPTIONS,
  formatOption,
  inspectView,
  renderReport,
  textOptions,
  writeAttestation,
} from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `inspect`. */
export const INSPECT_HELP = `Usage: replay-pipeline inspect <file> [--json | --format F] [options]

Detects the replay format by content (REPLAY.jsonl in its three dialects, ReplayBundle JSON,
Braintrust span traces, ReplayKit .rpk; any of them gzip-compressed), validates it, recomputes
every hash it carries and prints a verdict with its check rows, errors, notices and the session
summary.

Options:
  --json                      one JSON object on stdout (tool_version, schema_version, format,
                              verdict, checks, errors, notices, replay_hash, summary, ...)
  --format F                  text (default: problems as file:line:col: error code: message),
                              json (= --json), github (workflow annotations and a job summary
                              in $GITHUB_STEP_SUMMARY), junit (JUnit XML, one test case per row)
  --attest FILE               write the verdict to FILE as an in-toto Statement v1 with the
                              SLSA verification_summary/v1 predicate (see README)
  --sign-key KEY              sign it: a DSSE envelope, HMAC-SHA256 with KEY's bytes, or
                              Ed25519 when KEY is a PEM private key
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
a key, exit 3). Usage and read errors exit 2. -q/--quiet prints only errors and warnings.`;

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
  const file = singleFile("inspect", positionals);
  const format = formatOption("inspect", values);
  checkAttestOptions("inspect", values);
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
  await writeAttestation(
    "inspect",
    values,
    report,
    report.verdict,
    key === undefined ? {} : { hmacKey: key },
  );
  await emitVerdicts(format, {
    title: "replay-pipeline inspect",
    views: [inspectView(shown)],
    json: [shown],
    text: () => renderReport(shown, textOptions()),
  });
  return exitCodeOf(report.verdict);
}
