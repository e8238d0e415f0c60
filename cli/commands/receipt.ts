import { writeFile } from "node:fs/promises";
import { type InspectResult, inspect } from "#shared/formats/index.js";
import { generateReceipt, serializeReceipt } from "#shared/receipt/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { parseCommandArgs, singleFile } from "../args.js";
import { UsageError } from "../errors.js";
import { openStream, outputError, outputTarget, readHmacKey, toInputError, writeOut } from "../io.js";
import { renderReport } from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `receipt`. */
export const RECEIPT_HELP = `Usage: replay-pipeline receipt <replay> [-o RECEIPT.json] [options]

Inspects a replay (any format inspect reads) and writes an openagents.receipt.v1 RECEIPT.json
for it: session_id, trajectory_hash (replays whose runtime events carry every member it
covers; not a partial one), policy_bundle_id (when known), created_at, tool_calls (tool, id/step_id, params_hash, output_hash, latency_ms,
side_effects, ok; a value the replay does not carry is null), verification, payments [],
replay_hash (ADR-0003) and canonical_json_sha256. Written as canonical openagents JSON.
A replay that is invalid or failed gets no receipt.

Options:
  -o, --output FILE          write the receipt to FILE (default: standard output)
  --policy-bundle-id ID      policy_bundle_id to record when the replay does not carry one
  --created-at TIME          created_at to record (default: now)
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR
  --hmac-key-file F    ReplayKit signature key from file F
  -h, --help                 this help

Exit codes: 0 written, 1 the replay is invalid or failed (nothing written), 2 usage or I/O error.`;

const OPTIONS = {
  "hmac-key-env": { type: "string" },
  "hmac-key-file": { type: "string" },
  output: { type: "string", short: "o" },
  "policy-bundle-id": { type: "string" },
  "created-at": { type: "string" },
} as const;

/** `replay-pipeline receipt`: generate RECEIPT.json for one replay. */
export async function receiptCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("receipt", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${RECEIPT_HELP}\n`);
    return 0;
  }
  const file = singleFile("receipt", positionals);
  const output = outputTarget("receipt", values.output, file);
  const createdAt = values["created-at"];
  if (createdAt !== undefined && Number.isNaN(Date.parse(createdAt)))
    throw new UsageError(`receipt: --created-at expects an ISO-8601 time, got '${createdAt}'`);

  let inspected: InspectResult;
  try {
    inspected = await inspect(openStream(file), {
      file,
      keepToolCalls: true,
      hmacKey: await readHmacKey("receipt", values["hmac-key-env"], values["hmac-key-file"]),
      parallel: parallelOptions(),
    });
  } catch (error) {
    throw toInputError(file, error);
  }
  const { report } = inspected;
  if (report.verdict === "invalid" || report.verdict === "failed" || inspected.session === null) {
    process.stderr.write(renderReport(scrubReport(report)));
    process.stderr.write(`replay-pipeline receipt: ${file} is ${report.verdict}; no receipt written\n`);
    return 1;
  }
  if (report.verdict === "unverifiable") {
    const t = report.checks_total;
    const why =
      t.unverifiable > 0
        ? `${t.unverifiable} check(s) could not be evaluated`
        : "it carries no hash to recompute (only its structure was checked)";
    process.stderr.write(`replay-pipeline receipt: warning: ${file} is unverifiable: ${why}\n`);
  }
  const receipt = generateReceipt(inspected, {
    createdAt,
    policyBundleId: values["policy-bundle-id"],
  });
  if (receipt.policy_bundle_id === null)
    process.stderr.write(
      "replay-pipeline receipt: warning: policy_bundle_id unknown (give --policy-bundle-id); written as null\n",
    );
  const text = serializeReceipt(receipt);
  if (output === null) {
    await writeOut(text);
  } else {
    try {
      await writeFile(output, text);
    } catch (error) {
      throw outputError(output, error);
    }
    await writeOut(`wrote ${output} (${String(receipt.canonical_json_sha256)})\n`);
  }
  return 0;
}
