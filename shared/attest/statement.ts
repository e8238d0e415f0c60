/**
 * A verdict as an in-toto Statement v1 with the SLSA Verification Summary Attestation predicate
 * (https://slsa.dev/verification_summary/v1). Pure: the caller gives the time and the digests.
 *
 * Field rules (VSA v1): `verifier.id` (a URI), `timeVerified` (RFC 3339), `resourceUri`, `policy`
 * (a ResourceDescriptor that MUST have a `uri`), `verificationResult` PASSED or FAILED,
 * `verifiedLevels` (the highest level verified per track, or `FAILED` when the policy check
 * failed; values of one's own MUST NOT start with `SLSA_`), `inputAttestations` (each with a
 * `digest`) when other attestations were used. Extension fields have URI names: the check totals
 * are under `VERDICT_EXTENSION`.
 */
import { createHash } from "node:crypto";
import { canonicalize, type JsonValue } from "../canonical/index.js";
import type { CheckStatus, FormatId, Verdict } from "../formats/index.js";

/** The in-toto Statement v1 type. */
export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** The VSA v1 predicate type. */
export const VSA_PREDICATE_TYPE = "https://slsa.dev/verification_summary/v1";
/** This tool as a VSA verifier. */
export const VERIFIER_ID = "urn:replay-pipeline:verifier";
/** The policy: every hash the replay carries recomputed, and (verify) its receipt compared. */
export const POLICY_URI = "urn:replay-pipeline:policy:replay-verdict:v1";
/** The extension member (a URI, as VSA asks) holding the verdict, format and check totals. */
export const VERDICT_EXTENSION = "urn:replay-pipeline:verdict:v1";
/**
 * The level a PASSED verdict claims: the project's own track (SLSA levels are about builds, which
 * this tool does not check, so it claims none of them).
 */
const VERIFIED_LEVEL = "REPLAY_PIPELINE_VERDICT_PASSED";

/** A set of digests, algorithm → lower-case hex. */
type DigestSet = Record<string, string>;

/** An in-toto ResourceDescriptor (the members this tool fills in). */
interface ResourceDescriptor {
  uri?: string;
  name?: string;
  digest?: DigestSet;
  annotations?: Record<string, JsonValue>;
}

/** The VSA v1 predicate, with this tool's extension member. */
interface VerificationSummary {
  verifier: { id: string; version: Record<string, string> };
  timeVerified: string;
  resourceUri: string;
  policy: ResourceDescriptor & { uri: string };
  inputAttestations?: (ResourceDescriptor & { digest: DigestSet })[];
  verificationResult: "PASSED" | "FAILED";
  verifiedLevels: string[];
  slsaVersion: "1.0";
  [VERDICT_EXTENSION]: {
    verdict: Verdict;
    command: string;
    format: FormatId | null;
    checks_total: Record<CheckStatus, number>;
    errors_total: number;
  };
}

/** An in-toto Statement v1 carrying a VSA. */
export interface VsaStatement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: DigestSet }[];
  predicateType: typeof VSA_PREDICATE_TYPE;
  predicate: VerificationSummary;
}

/** What a verdict attestation says. */
export interface AttestationInput {
  /** The replay as named to the verifier (a path, an object key). */
  name: string;
  /** Where it is: `file:///…`, `s3://bucket/key`. */
  resourceUri: string;
  /** `sha256:<hex>` of the replay's bytes (after gunzip: the replay_hash). */
  replayHash: string;
  verdict: Verdict;
  /** `inspect`, `verify`, `pipeline`. */
  command: string;
  format: FormatId | null;
  checksTotal: Record<CheckStatus, number>;
  errorsTotal: number;
  toolVersion: string;
  /** When the verdict was reached (RFC 3339, UTC). */
  timeVerified: string;
  /**
   * The policy's settings: canonical profile, Layer C preset, signature key id (null when none),
   * and the digest of the rules that made the verdict (the pipeline's provenance), when known.
   */
  policy: {
    profile?: string | null;
    preset?: string | null;
    keyId?: string | null;
    rulesDigest?: string | null;
  };
  /** A receipt the replay was checked against, as an input attestation. */
  receipt?: { uri: string; sha256: string } | null;
}

/** The hex of a `sha256:<hex>` tag. */
function hexOf(tag: string): string {
  const match = /^sha256:([0-9a-f]{64})$/.exec(tag);
  if (match === null) throw new TypeError(`expected sha256:<64 hex>, got ${tag}`);
  return match[1] as string;
}

/**
 * The key id of a signature key: the first 16 hex of sha256 over a domain prefix and the key, so
 * a policy can name its key without the key (or a plain hash of it) appearing anywhere.
 */
export function keyIdOf(key: Uint8Array): string {
  return createHash("sha256").update("replay-pipeline key id\0").update(key).digest("hex").slice(0, 16);
}

/**
 * The Statement for a verdict. Only `passed` is PASSED: failed, invalid and unverifiable are
 * FAILED (a verdict that could not be checked never attests a pass), with the verdict itself in
 * the extension member.
 */
export function buildAttestation(input: AttestationInput): VsaStatement {
  const settings = {
    profile: input.policy.profile ?? null,
    preset: input.policy.preset ?? null,
    key_id: input.policy.keyId ?? null,
    ...(input.policy.rulesDigest == null ? {} : { rules_digest: input.policy.rulesDigest }),
  };
  const passed = input.verdict === "passed";
  const predicate: VerificationSummary = {
    verifier: { id: VERIFIER_ID, version: { "replay-pipeline": input.toolVersion } },
    timeVerified: input.timeVerified,
    resourceUri: input.resourceUri,
    policy: {
      uri: POLICY_URI,
      // The digest pins the settings: two attestations with one digest applied the same policy.
      digest: {
        sha256: createHash("sha256")
          .update(canonicalize(settings as JsonValue, "jcs"))
          .digest("hex"),
      },
      annotations: settings,
    },
    verificationResult: passed ? "PASSED" : "FAILED",
    verifiedLevels: passed ? [VERIFIED_LEVEL] : ["FAILED"],
    slsaVersion: "1.0",
    [VERDICT_EXTENSION]: {
      verdict: input.verdict,
      command: input.command,
      format: input.format,
      checks_total: { ...input.checksTotal },
      errors_total: input.errorsTotal,
    },
  };
  if (input.receipt != null)
    predicate.inputAttestations = [
      { uri: input.receipt.uri, digest: { sha256: hexOf(input.receipt.sha256) } },
    ];
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: input.name, digest: { sha256: hexOf(input.replayHash) } }],
    predicateType: VSA_PREDICATE_TYPE,
    predicate,
  };
}
