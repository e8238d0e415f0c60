import type { VerifyReport } from "#shared/receipt/index.js";
import { localJob } from "../adapters/local.js";
import { inputPaths, parseCommandArgs } from "../args.js";
import { expandInputs, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, readHmacKey, writeOut } from "../io.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `verify`. */
export const VERIFY_HELP = `Usage: replay-pipeline verify <replay or folder...> [--receipt <RECEIPT.json>] [--json]

Inspects a replay and checks it against its RECEIPT.json (openagents.receipt.v1, the coding
loop's SessionReceipt, or an ADR-0003 receipt with replay_hash): replay_hash, trajectory_hash,
session_id, each tool call (matched by id or step_id, else in order: tool, params_hash,
output_hash, ok, side_effects), calls missing on either side, verification commands and exit
codes, and canonical_json_sha256. A signed receipt is unverifiable: no receipt signing scheme
is specified. Without --receipt the verdict is unverifiable.

Several replays and folders: each is checked against --receipt when given, else against the
RECEIPT.json beside it (<name>.RECEIPT.json, or RECEIPT.json for every replay of its folder); one
report per replay, a summary line, the worst exit code (2 if a file could not be read).

Options:
  --receipt FILE   the receipt to check against
  --json           one JSON object on stdout: verdict, replay (the inspect report),
                   receipt_shape, checks, errors
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR
  --hmac-key-file F    ReplayKit signature key from file F
  -q, --quiet      no progress line, no skip notices
  -h, --help       this help

Verdicts: passed (exit 0), failed (exit 1), invalid (replay or receipt malformed, exit 1),
unverifiable (a check could not be evaluated, or no receipt, exit 3). Usage and read errors
exit 2.`;

const OPTIONS = {
  ...HMAC_KEY_OPTIONS,
  receipt: { type: "string" },
  json: { type: "boolean" },
} as const;

/** `replay-pipeline verify`: a replay against its receipt. */
export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("verify", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${VERIFY_HELP}\n`);
    return 0;
  }
  const hmacKey = await readHmacKey("verify", values["hmac-key-env"], values["hmac-key-file"]);
  const inputs = await expandInputs(inputPaths("verify", positionals), {
    pairReceipts: values.receipt === undefined,
  });
  const json = values.json === true;
  return runInputs(
    "verify",
    inputs,
    async (input) => {
      const receipt = values.receipt ?? input.receipt;
      const result = await localJob(input.path, {
        ...(hmacKey === undefined ? {} : { hmacKey }),
        receipt,
        parallel: parallelOptions(),
      });
      const shown = result.verifications[0];
      if (shown === undefined) throw new Error(`verify: no receipt check of ${input.path}`);
      if (notAReplay(input, shown.replay)) {
        if (values.quiet !== true) process.stderr.write(skipNotice("verify", input));
        return "skipped";
      }
      // The job's reports are scrubbed: nothing the input quoted is printed unscrubbed.
      await writeOut(json ? `${JSON.stringify(shown)}\n` : renderVerify(shown, receipt ?? undefined));
      return shown.verdict;
    },
    { summary: json ? "stderr" : "stdout", quiet: values.quiet === true },
  );
}

/** The short human report of `verify`. */
export function renderVerify(r: VerifyReport, receiptPath: string | undefined): string {
  const out: string[] = [];
  out.push(
    `${r.replay.file} vs ${receiptPath ?? "(no receipt)"}: ${r.verdict.toUpperCase()} (replay ${r.replay.verdict}, ${r.replay.format ?? "unknown format"}; receipt ${r.receipt_shape ?? "-"})`,
  );
  out.push(`  replay_hash ${r.replay.replay_hash}`);
  const t = r.checks_total;
  out.push(`  receipt checks: ${t.passed} passed, ${t.failed} failed, ${t.unverifiable} unverifiable`);
  const shown = r.checks.filter((row) => row.status !== "passed");
  for (const c of shown.slice(0, 30))
    out.push(
      `    ${c.status === "failed" ? "FAILED" : "UNVERIFIABLE"} ${c.check} (${c.subject}): expected ${c.expected ?? "-"}, got ${c.actual ?? "-"}`,
    );
  if (shown.length > 30) out.push(`    … ${shown.length - 30} more (verify --json lists them)`);
  const rt = r.replay.checks_total;
  if (rt.failed + rt.unverifiable > 0 || r.replay.errors_total > 0)
    out.push(
      `  replay: ${rt.failed} failed, ${rt.unverifiable} unverifiable, ${r.replay.errors_total} errors (run inspect for details)`,
    );
  if (r.errors_total > 0) {
    out.push(`  receipt errors: ${r.errors_total}`);
    for (const e of r.errors.slice(0, 20)) out.push(`    ${e.path}: ${e.message} [${e.code}]`);
  }
  if (r.notices.length > 0) {
    out.push(`  receipt notices: ${r.notices.length}`);
    for (const n of r.notices.slice(0, 10)) out.push(`    ${n.path}: ${n.message} [${n.code}]`);
  }
  return `${out.join("\n")}\n`;
}
