import { canonicalize, JsonNumber, type JsonObject, type JsonValue } from "../canonical/index.js";
import { ContractError } from "../errors.js";
import { RECEIPT_SCHEMA_V1, receiptDigest } from "./read.js";
import type { Inspected } from "./verify.js";

/** Options of `generateReceipt`. */
export interface GenerateOptions {
  /** `created_at` (default: now, ISO-8601 UTC). */
  createdAt?: string;
  /** `policy_bundle_id` when the replay summary does not carry one. */
  policyBundleId?: string;
}

function numberValue(n: number | null): JsonValue {
  return n === null ? null : new JsonNumber(String(n));
}

/**
 * An `openagents.receipt.v1` receipt for an inspected replay (read with `keepToolCalls: true`):
 * schema, session_id, trajectory_hash (null unless the replay's runtime events carry every member
 * it covers, see InspectReport.trajectory_hash_complete), policy_bundle_id (null when unknown),
 * created_at, tool_calls (with the replay's `id`/`step_id` as additive fields so verify
 * can match by key; a value the replay does not carry is written null), verification from the
 * summary, payments [], replay_hash (ADR-0003) and canonical_json_sha256 over the canonical
 * receipt without it (and without a signature). Throws when the replay has no session.
 */
export function generateReceipt(inspected: Inspected, options: GenerateOptions = {}): JsonObject {
  const { report, session } = inspected;
  if (session === null)
    throw new ContractError(
      "receipt.no_session",
      "generateReceipt: the replay has no session (it could not be read)",
    );
  const summary = session.summary;
  const receipt: JsonObject = { schema: RECEIPT_SCHEMA_V1 };
  receipt.session_id = summary.session_id;
  // openagents.receipt.v1 requires both; null says "the replay records none", which our reader
  // takes as no claim, where an absent member would be a receipt that breaks the spec. A partial
  // trajectory value is not the runtime's trajectory_hash: a receipt must not claim it.
  receipt.trajectory_hash = report.trajectory_hash_complete === true ? report.trajectory_hash : null;
  receipt.policy_bundle_id = summary.policy_bundle_id ?? options.policyBundleId ?? null;
  receipt.created_at = options.createdAt ?? new Date().toISOString();
  receipt.tool_calls = session.tool_calls.map((call) => {
    const out: JsonObject = {};
    if (call.id !== null) out.id = call.id;
    if (call.step_id !== null) out.step_id = call.step_id;
    out.tool = call.tool;
    out.params_hash = call.params_hash;
    out.output_hash = call.output_hash;
    out.latency_ms = numberValue(call.latency_ms);
    out.side_effects = [...call.side_effects];
    if (call.ok !== null) out.ok = call.ok;
    return out;
  });
  receipt.verification = summary.verification.map((v) => ({
    command: v.command,
    exit_code: numberValue(v.exit_code),
  }));
  receipt.payments = [];
  receipt.replay_hash = report.replay_hash;
  receipt.canonical_json_sha256 = receiptDigest(receipt);
  return receipt;
}

/** A receipt as written to RECEIPT.json: canonical openagents JSON and a newline. */
export function serializeReceipt(receipt: JsonValue): string {
  return `${canonicalize(receipt, "openagents")}\n`;
}
