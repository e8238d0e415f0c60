/**
 * The pipeline's attestation of a replay's verdict: an in-toto Statement with the SLSA VSA
 * predicate (unsigned), stored beside the verdict document as `results/<key>.intoto.json`.
 */
import { buildAttestation, keyIdOf, type VsaStatement } from "../attest/index.js";
import type { ProcessOptions, VerdictDocument } from "./job-types.js";
import type { FileRecord } from "./ports.js";

/** The Statement of a replay's record (`record.replay_hash` set) and its verdict document. */
export function verdictAttestation(
  record: FileRecord,
  document: VerdictDocument,
  options: Pick<ProcessOptions, "toolVersion" | "preset" | "hmacKey">,
): VsaStatement {
  return buildAttestation({
    name: record.ref.key,
    resourceUri: `urn:replay-pipeline:object:${record.ref.key.split("/").map(encodeURIComponent).join("/")}`,
    replayHash: record.replay_hash as string,
    verdict: record.verdict,
    command: "pipeline",
    format: record.format,
    checksTotal: record.checks_total,
    errorsTotal: record.errors_total,
    toolVersion: options.toolVersion,
    timeVerified: document.processed_at,
    policy: {
      preset: options.preset ?? "private_repo",
      keyId: options.hmacKey === undefined ? null : keyIdOf(options.hmacKey),
    },
  });
}
