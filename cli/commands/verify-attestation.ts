import { createHash } from "node:crypto";
import {
  attestationKey,
  type Envelope,
  parseStatement,
  unverifiedStatement,
  VERDICT_EXTENSION,
  type VsaStatement,
  verifyEnvelope,
} from "#shared/attest/index.js";
import { AttestationError } from "#shared/errors.js";
import { gunzipped } from "#shared/formats/index.js";
import { parseCommandArgs, singleFile } from "../args.js";
import { UsageError } from "../errors.js";
import { openStream, readInput, toInputError, writeOut } from "../io.js";
import { FORMAT_OPTIONS, formatOption, isQuiet, jsonLine } from "../output/index.js";

/** Help text of `verify-attestation`. */
export const VERIFY_ATTESTATION_HELP = `Usage: replay-pipeline verify-attestation <attestation.json> [--key KEY] [--replay FILE] [--json]

Checks an attestation written by --attest (inspect, verify) or stored by the pipeline
(results/<key>.intoto.json): an in-toto Statement v1 with the SLSA verification_summary/v1
predicate, bare or in a DSSE envelope. With a signed one, --key is required and the signature
must match, offline: the deployment's KMS key as its public key (PEM or DER, from
aws kms get-public-key), an ECDSA P-256 or Ed25519 key (PEM or DER, public or private), or
HMAC-SHA256 key bytes. An unsigned one (a bare statement, or an envelope with no signature, as
the local stack writes) is reported as unsigned, and fails when --key asks for a signature. With
--replay, the replay's sha256 (after gunzip, its replay_hash) must be the subject's digest.

Options:
  --key KEY      the key that signed it (a public key file for the pipeline's KMS key)
  --replay FILE  the replay it must be about
  --json         one JSON object: signed, keyid, subject, verificationResult, verdict
  -h, --help     this help

Exit 0 when it checks out and says PASSED; 1 when it says FAILED, is unsigned but --key was
given, or a signature, the subject digest or the statement does not check out; 2 on a usage or
read error.`;

const OPTIONS = {
  key: { type: "string" },
  replay: { type: "string" },
  json: FORMAT_OPTIONS.json,
} as const;

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  try {
    for await (const chunk of gunzipped(openStream(path), {})) hash.update(chunk);
  } catch (error) {
    throw toInputError(path, error);
  }
  return hash.digest("hex");
}

/** `replay-pipeline verify-attestation`: signature, statement and subject of a verdict attestation. */
export async function verifyAttestationCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("verify-attestation", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${VERIFY_ATTESTATION_HELP}\n`);
    return 0;
  }
  const file = singleFile("verify-attestation", positionals);
  const format = formatOption("verify-attestation", values);
  let value: unknown;
  try {
    value = JSON.parse((await readInput(file)).toString("utf8"));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new AttestationError(
      "attest.malformed",
      "not JSON; expected an in-toto Statement or a DSSE envelope",
      {
        file,
      },
    );
  }
  const envelope = value as Partial<Envelope>;
  const enveloped = typeof envelope.payloadType === "string" && typeof envelope.payload === "string";
  // An envelope with no signature (the local stack's) is as unsigned as a bare statement.
  const signed = enveloped && (envelope.signatures ?? []).length > 0;
  let statement: VsaStatement;
  let keyid: string | null = null;
  try {
    if (values.key !== undefined && !signed)
      throw new AttestationError(
        "attest.unsigned",
        `the attestation is unsigned (${enveloped ? "its DSSE envelope has no signature" : "a bare statement"}), but --key asks for a signature`,
      );
    if (signed) {
      if (values.key === undefined)
        throw new UsageError(`verify-attestation: ${file} is signed (a DSSE envelope); give --key`);
      const key = attestationKey(await readInput(values.key), "verify");
      statement = verifyEnvelope(envelope as Envelope, key);
      keyid = key.keyid;
    } else statement = enveloped ? unverifiedStatement(envelope as Envelope) : parseStatement(value);
  } catch (error) {
    if (error instanceof AttestationError) error.locate({ file });
    throw error;
  }
  const digest = statement.subject[0]?.digest.sha256;
  if (values.replay !== undefined) {
    const actual = await sha256Of(values.replay);
    if (actual !== digest)
      throw new AttestationError(
        "attest.subject_mismatch",
        `the replay ${values.replay} has sha256 ${actual}; the attestation is about ${String(digest)}`,
        { file },
      );
  }
  const result = statement.predicate.verificationResult;
  const verdict = statement.predicate[VERDICT_EXTENSION]?.verdict ?? null;
  if (format === "json")
    await writeOut(
      jsonLine({ file, signed, keyid, subject: statement.subject, verificationResult: result, verdict }),
    );
  else if (!isQuiet())
    await writeOut(
      `${file}: ${signed ? `signature by ${keyid} checks out` : "unsigned"}; ${statement.subject[0]?.name} sha256:${digest}${values.replay === undefined ? "" : " (matches the replay)"}: ${result} (${verdict ?? "no verdict"})\n`,
    );
  return result === "PASSED" ? 0 : 1;
}
