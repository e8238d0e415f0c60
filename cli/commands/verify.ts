import type { JsonValue } from "#shared/canonical/index.js";
import { Findings, type InspectResult, inspect } from "#shared/formats/index.js";
import { parseReceiptJson, verifyReplay } from "#shared/receipt/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { parseCommandArgs, singleFile } from "../args.js";
import { HMAC_KEY_OPTIONS, openStream, readHmacKey, readInput, toInputError, writeOut } from "../io.js";
import {
  ATTEST_OPTIONS,
  checkAttestOptions,
  emitVerdicts,
  FORMAT_OPTIONS,
  formatOption,
  renderVerify,
  textOptions,
  verifyView,
  writeAttestation,
} from "../output/index.js";
import { parallelOptions } from "../worker-script.js";
import { exitCodeOf } from "./inspect.js";

/** Help text of `verify`. */
export const VERIFY_HELP = `Usage: replay-pipeline verify <replay> --receipt <RECEIPT.json> [--json | --format F]

Inspects a replay and checks it against its RECEIPT.json (openagents.receipt.v1, the coding
loop's SessionReceipt, or an ADR-0003 receipt with replay_hash): replay_hash, trajectory_hash,
session_id, each tool call (matched by id or step_id, else in order: tool, params_hash,
output_hash, ok, side_effects), calls missing on either side, verification commands and exit
codes, and canonical_json_sha256. A signed receipt is unverifiable: no receipt signing scheme
is specified. Without --receipt the verdict is unverifiable.

Options:
  --receipt FILE   the receipt to check against
  --json           one JSON object on stdout: tool_version, schema_version, verdict, replay
                   (the inspect report), receipt_shape, checks, errors
  --format F       text (default), json, github (annotations + job summary), junit
  --attest FILE    write the verdict as an in-toto Statement (SLSA VSA v1), the receipt
                   as its input attestation
  --sign-key KEY   sign it in a DSSE envelope (HMAC-SHA256 key bytes, or Ed25519 PEM)
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR
  --hmac-key-file F    ReplayKit signature key from file F
  -h, --help       this help

Verdicts: passed (exit 0), failed (exit 1), invalid (replay or receipt malformed, exit 1),
unverifiable (a check could not be evaluated, or no receipt, exit 3). Usage and read errors
exit 2.`;

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
  const file = singleFile("verify", positionals);
  const format = formatOption("verify", values);
  checkAttestOptions("verify", values);
  const receiptPath = values.receipt;
  const findings = new Findings();
  let receiptValue: JsonValue | null = null;
  let receiptBytes: Buffer | null = null;
  if (receiptPath !== undefined) {
    receiptBytes = await readInput(receiptPath);
    receiptValue = parseReceiptJson(receiptBytes, receiptPath, findings);
  }
  const hmacKey = await readHmacKey("verify", values["hmac-key-env"], values["hmac-key-file"]);
  let inspected: InspectResult;
  try {
    inspected = await inspect(openStream(file), {
      file,
      keepToolCalls: true,
      hmacKey,
      parallel: parallelOptions(),
    });
  } catch (error) {
    throw toInputError(file, error);
  }
  const report = verifyReplay(inspected, receiptValue, findings, {
    receiptUnreadable: receiptPath !== undefined && receiptValue === null,
  });
  const shown = scrubReport(report);
  await writeAttestation("verify", values, report.replay, report.verdict, {
    ...(hmacKey === undefined ? {} : { hmacKey }),
    receipt:
      receiptPath === undefined || receiptBytes === null ? null : { path: receiptPath, bytes: receiptBytes },
  });
  await emitVerdicts(format, {
    title: "replay-pipeline verify",
    views: [verifyView(shown, receiptPath)],
    json: [shown],
    text: () => renderVerify(shown, receiptPath, textOptions()),
  });
  return exitCodeOf(report.verdict);
}
