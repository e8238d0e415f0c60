/** Verdicts as in-toto / SLSA VSA attestations, unsigned or in signed DSSE envelopes. */
export {
  attestationKey,
  type Envelope,
  type EnvelopeSigner,
  envelopeStatement,
  parseStatement,
  signStatement,
  unverifiedStatement,
  verifyEnvelope,
} from "./dsse.js";
export {
  type AttestationInput,
  buildAttestation,
  keyIdOf,
  VERDICT_EXTENSION,
  type VsaStatement,
} from "./statement.js";
