import { readFile } from "node:fs/promises";
import { localJob } from "../adapters/local.js";
import { inputPaths, parseCommandArgs } from "../args.js";
import { expandInputs, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, readHmacKey, toInputError, writeOut } from "../io.js";
import {
  ATTEST_OPTIONS,
  attestTarget,
  checkAttestOptions,
  FORMAT_OPTIONS,
  formatOption,
  renderVerify,
  textOptions,
  VerdictSink,
  verifyView,
  writeAttestation,
} from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `verify`. */
export const VERIFY_HELP = `Usage: replay-pipeline verify <replay or folder...> [--receipt <RECEIPT.json>] [--json | --format F]

Inspects a replay and checks it against its RECEIPT.json (openagents.receipt.v1, the coding
loop's SessionReceipt, or an ADR-0003 receipt with replay_hash): replay_hash, trajectory_hash,
session_id, each tool call (matched by id or step_id, else in order: tool, params_hash,
output_hash, ok, side_effects), calls missing on either side, verification commands and exit
codes, and canonical_json_sha256. A signed receipt is unverifiable: no receipt signing scheme
is specified. Without --receipt the verdict is unverifiable.

Several replays and folders: each is checked against --receipt when given, else against the
RECEIPT.json beside it (<name>.RECEIPT.json, or RECEIPT.json for every replay of its folder); one
report per replay, a summary line, the worst exit code (2 over 1 over 3 over 0); --format github
annotates every replay, --format junit writes one document with a testsuite per replay.

Options:
  --receipt FILE   the receipt to check against
  --json           one JSON object on stdout: tool_version, schema_version, verdict, replay
                   (the inspect report), receipt_shape, checks, errors
  --format F       text (default), json, github (annotations + job summary), junit
  --attest PATH    write the verdict as an in-toto Statement (SLSA VSA v1), the receipt
                   as its input attestation; with several replays (or PATH a folder)
                   PATH/<file name>.intoto.json for each
  --sign-key KEY   sign it in a DSSE envelope (HMAC-SHA256 key bytes, or Ed25519 / P-256 key)
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR
  --hmac-key-file F    ReplayKit signature key from file F
  -q, --quiet      no progress line, no skip notices
  -h, --help       this help

Verdicts: passed (exit 0), failed (exit 1), invalid (replay or receipt malformed, exit 1),
unverifiable (a check could not be evaluated, or no receipt, exit 3). Input a command cannot
read as what it expects (binary, a limit passed) exits 1; usage errors and files that cannot be
opened exit 2.`;

const OPTIONS = {
  ...HMAC_KEY_OPTIONS,
  receipt: { type: "string" },
  ...FORMAT_OPTIONS,
  ...ATTEST_OPTIONS,
} as const;

/** `replay-pipeline verify`: a replay against its receipt. */
export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("verify", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${VERIFY_HELP}\n`);
    return 0;
  }
  const format = formatOption("verify", values);
  const hmacKey = await readHmacKey("verify", values["hmac-key-env"], values["hmac-key-file"]);
  const inputs = await expandInputs(inputPaths("verify", positionals), {
    pairReceipts: values.receipt === undefined,
  });
  checkAttestOptions("verify", values, inputs);
  const sink = new VerdictSink(format, "replay-pipeline verify");
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
      const attest = attestTarget(values.attest, input.path, inputs);
      if (attest !== undefined)
        await writeAttestation("verify", { ...values, attest }, shown.replay, shown.verdict, {
          ...(hmacKey === undefined ? {} : { hmacKey }),
          receipt: receipt === null ? null : { path: receipt, bytes: await receiptBytes(receipt) },
        });
      // The job's reports are scrubbed: nothing the input quoted is printed unscrubbed.
      await sink.add({
        view: verifyView(shown, receipt ?? undefined),
        json: shown,
        text: () => renderVerify(shown, receipt ?? undefined, textOptions()),
      });
      return shown.verdict;
    },
    { summary: format === "text" ? "stdout" : "stderr", quiet: values.quiet === true, sink },
  );
}

/** A receipt's bytes, for the digest its attestation names. */
async function receiptBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw toInputError(path, error);
  }
}
