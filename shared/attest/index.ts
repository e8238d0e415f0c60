/** Verdicts as in-toto / SLSA VSA attestations, unsigned or in signed DSSE envelopes. */
export {
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
  keyIdOf,
  POLICY_URI,
  STATEMENT_TYPE,
  VERDICT_EXTENSION,
  VERIFIER_ID,
  VSA_PREDICATE_TYPE,
  type VsaStatement,
} from "./statement.js";
