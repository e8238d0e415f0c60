/**
 * The pipeline's attestation of a replay's verdict: an in-toto Statement with the SLSA VSA
 * predicate in a DSSE envelope, signed by the ports' signer (the deployment's KMS key) or, where
 * there is none (the local stack), with `signatures: []`; stored beside the verdict document as
 * `results/<key>.intoto.json`.
 */
import { buildAttestation, envelopeStatement, keyIdOf, type VsaStatement } from "../attest/index.js";
import type { Verdict } from "../formats/index.js";
import type { ProcessOptions } from "./job-types.js";
import { attestationKey } from "./keys.js";
import type { FileRecord, Ports } from "./ports.js";
import { provenanceOf } from "./provenance.js";

/** Verdicts from best to worst: a receipt check can only lower what a replay's own checks gave. */
const RANK: Record<Verdict, number> = { passed: 0, unverifiable: 1, failed: 2, invalid: 3 };

/**
 * The Statement of a replay's record (`record.replay_hash` set) with the receipt checks made of it
 * (`receiptVerdicts`): PASSED only when the replay passed and every receipt check passed too.
 */
function verdictAttestation(
  record: FileRecord,
  receiptVerdicts: readonly Verdict[],
  timeVerified: string,
  options: Pick<ProcessOptions, "toolVersion" | "preset" | "hmacKey" | "rulesDigest">,
): VsaStatement {
  const verdict = receiptVerdicts.reduce((worst, v) => (RANK[v] > RANK[worst] ? v : worst), record.verdict);
  return buildAttestation({
    name: record.ref.key,
    resourceUri: `urn:replay-pipeline:object:${record.ref.key.split("/").map(encodeURIComponent).join("/")}`,
    replayHash: record.replay_hash as string,
    verdict,
    command: "pipeline",
    format: record.format,
    checksTotal: record.checks_total,
    errorsTotal: record.errors_total,
    // The record's own: a receipt check re-attesting an older record keeps the rules that made it.
    toolVersion: record.provenance?.tool_version ?? options.toolVersion,
    timeVerified,
    policy: {
      preset: options.preset ?? "private_repo",
      keyId: options.hmacKey === undefined ? null : keyIdOf(options.hmacKey),
      rulesDigest: (record.provenance ?? provenanceOf(options)).rules_digest,
    },
  });
}

/**
 * Writes the attestation of `record` (a replay whose `replay_hash` is set), checked against
 * `receiptVerdicts`, to `results/<key>.intoto.json`: signed when `ports.signer` is set.
 */
export async function storeAttestation(
  ports: Pick<Ports, "publisher" | "signer">,
  record: FileRecord,
  receiptVerdicts: readonly Verdict[],
  timeVerified: string,
  options: Pick<ProcessOptions, "toolVersion" | "preset" | "hmacKey" | "rulesDigest">,
): Promise<void> {
  const statement = verdictAttestation(record, receiptVerdicts, timeVerified, options);
  const envelope = await envelopeStatement(statement, ports.signer ?? null);
  await ports.publisher.putDocument(attestationKey(record.verdict_key), `${JSON.stringify(envelope)}\n`);
}
