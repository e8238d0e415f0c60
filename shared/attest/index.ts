/** Verdicts as in-toto / SLSA VSA attestations, unsigned or in signed DSSE envelopes. */
export {
  type AttestationKey,
  attestationKey,
  type Envelope,
  type EnvelopeSigner,
  envelopeStatement,
  IN_TOTO_PAYLOAD_TYPE,
  pae,
  parseStatement,
  signStatement,
  unverifiedStatement,
  verifyEnvelope,
} from "./dsse.js";
export {
  type AttestationInput,
  buildAttestation,
  type DigestSet,
  keyIdOf,
  POLICY_URI,
  STATEMENT_TYPE,
  VERDICT_EXTENSION,
  VERIFIED_LEVEL,
  VERIFIER_ID,
  type VerificationSummary,
  VSA_PREDICATE_TYPE,
  type VsaStatement,
} from "./statement.js";
