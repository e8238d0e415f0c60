/**
 * DSSE envelopes (github.com/secure-systems-lab/dsse, protocol v1) for in-toto Statements:
 * payloadType `application/vnd.in-toto+json`, the signature over PAE(payloadType, payload) =
 * "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, with LEN the byte length in ASCII decimal.
 * Three key kinds, from node:crypto: HMAC-SHA256 with a shared secret (raw key bytes), Ed25519 and
 * ECDSA P-256 with SHA-256 (a PEM or DER key: private to sign, public or private to verify; the
 * pipeline signs with a KMS ECC_NIST_P256 key, whose signatures are DER, as node:crypto's are).
 * Signing by a key held elsewhere (KMS) goes through an `EnvelopeSigner`; the encoding stays here.
 */
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign,
  timingSafeEqual,
  verify,
} from "node:crypto";
import { AttestationError } from "../errors.js";
import { keyIdOf, STATEMENT_TYPE, VSA_PREDICATE_TYPE, type VsaStatement } from "./statement.js";

/** The payload type of an in-toto Statement in DSSE. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A DSSE envelope. */
export interface Envelope {
  payloadType: string;
  /** Base64 of the serialized statement. */
  payload: string;
  /** Empty: explicitly unsigned (the local stack, which has no KMS key). */
  signatures: { keyid: string; sig: string }[];
}

/** A key to sign with or check against. */
export type AttestationKey =
  | { kind: "hmac-sha256"; secret: Uint8Array; keyid: string }
  | { kind: AsymmetricKind; key: KeyObject; keyid: string };

/** The asymmetric signature schemes read from key files. */
type AsymmetricKind = "ed25519" | "ecdsa-p256";

/**
 * Signs PAE bytes with a key this process does not hold (the pipeline's KMS key,
 * functions/adapters/kms-signer.ts): the port the pipeline's attestations are signed through.
 */
export interface EnvelopeSigner {
  /** Written as the signature's `keyid` (DSSE: a hint for finding the key, not trusted). */
  readonly keyid: string;
  /** The signature over `message`, the PAE bytes (ECDSA P-256: DER, as KMS returns it). */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** The DSSE v1 pre-authentication encoding. */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, "ascii"),
    type,
    Buffer.from(` ${body.length} `, "ascii"),
    body,
  ]);
}

function isPem(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 64)).toString("latin1").trimStart().startsWith("-----BEGIN");
}

function isOpenSsh(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.subarray(0, 16)).toString("latin1");
  return /^(ssh-|ecdsa-sha2-|sk-ssh-|sk-ecdsa-)/.test(text);
}

/** A DER key (SPKI public or PKCS#8 private), or null when the bytes are neither. */
function derKey(bytes: Uint8Array): KeyObject | null {
  const der = Buffer.from(bytes);
  for (const read of [
    () => createPublicKey({ key: der, format: "der", type: "spki" }),
    () => createPrivateKey({ key: der, format: "der", type: "pkcs8" }),
  ]) {
    try {
      return read();
    } catch {
      // Not that form: try the next.
    }
  }
  return null;
}

function asymmetricKind(key: KeyObject): AsymmetricKind | null {
  if (key.asymmetricKeyType === "ed25519") return "ed25519";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1")
    return "ecdsa-p256";
  return null;
}

const EXPECTED = "expected an Ed25519 or ECDSA P-256 key in PEM or DER (or secret bytes for HMAC-SHA256)";

/** The key as read from PEM or DER, checked to be one this module signs or verifies with. */
function asymmetricKey(read: () => KeyObject, form: string, use: "sign" | "verify"): AttestationKey {
  let key: KeyObject;
  try {
    key = read();
  } catch (cause) {
    throw new AttestationError(
      "attest.key",
      `the ${form} key cannot be read (${(cause as Error).message}); expected an Ed25519 or ECDSA P-256 ${use === "sign" ? "private" : "public or private"} key`,
      {},
      { cause },
    );
  }
  const kind = asymmetricKind(key);
  if (kind === null)
    throw new AttestationError(
      "attest.key",
      `the ${form} key is ${key.asymmetricKeyType ?? "not asymmetric"}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ""}; ${EXPECTED}`,
    );
  if (use === "sign" && key.type === "public")
    throw new AttestationError(
      "attest.key",
      `the ${form} key is a public key; expected an Ed25519 or ECDSA P-256 private key to sign with`,
    );
  const publicKey = key.type === "public" ? key : createPublicKey(key);
  const fingerprint = createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
  return { kind, key: use === "sign" ? key : publicKey, keyid: `${kind}:${fingerprint}` };
}

/**
 * The key in `bytes`: an Ed25519 or ECDSA P-256 key in PEM or DER (private when `use` is sign;
 * public or private to verify), else the bytes themselves as an HMAC-SHA256 secret. Any other
 * asymmetric key is refused, and so is an OpenSSH key: a public key is never taken as a secret.
 */
export function attestationKey(bytes: Uint8Array, use: "sign" | "verify"): AttestationKey {
  if (isPem(bytes)) {
    const pem = Buffer.from(bytes);
    // createPublicKey takes a private PEM too, deriving its public half.
    return asymmetricKey(() => (use === "sign" ? createPrivateKey(pem) : createPublicKey(pem)), "PEM", use);
  }
  if (bytes.length === 0)
    throw new AttestationError("attest.key", "the HMAC key is empty; expected secret bytes");
  // A public key taken as an HMAC secret would let anyone who holds it sign: the forms public
  // keys travel in are read as keys (DER) or refused (OpenSSH), never as secrets.
  if (isOpenSsh(bytes))
    throw new AttestationError(
      "attest.key",
      `the key is an OpenSSH public key, not an HMAC secret; ${EXPECTED}`,
    );
  const der = derKey(bytes);
  if (der !== null) return asymmetricKey(() => der, "DER", use);
  return { kind: "hmac-sha256", secret: bytes, keyid: `hmac-sha256:${keyIdOf(bytes)}` };
}

function signatureOf(key: AttestationKey, message: Buffer): Buffer {
  switch (key.kind) {
    case "hmac-sha256":
      return createHmac("sha256", key.secret).update(message).digest();
    case "ed25519":
      return sign(null, message, key.key);
    case "ecdsa-p256":
      return sign("sha256", message, { key: key.key, dsaEncoding: "der" });
  }
}

function envelopeOf(body: Buffer, signatures: Envelope["signatures"]): Envelope {
  return { payloadType: IN_TOTO_PAYLOAD_TYPE, payload: body.toString("base64"), signatures };
}

/** The statement in a signed DSSE envelope. */
export function signStatement(statement: VsaStatement, key: AttestationKey): Envelope {
  const body = Buffer.from(JSON.stringify(statement), "utf8");
  const sig = signatureOf(key, pae(IN_TOTO_PAYLOAD_TYPE, body));
  return envelopeOf(body, [{ keyid: key.keyid, sig: sig.toString("base64") }]);
}

/**
 * The statement in a DSSE envelope signed by `signer`, or with `signatures: []` when there is
 * none: an envelope either way, so a consumer reads one shape and sees at once that it is unsigned.
 */
export async function envelopeStatement(
  statement: VsaStatement,
  signer: EnvelopeSigner | null,
): Promise<Envelope> {
  const body = Buffer.from(JSON.stringify(statement), "utf8");
  if (signer === null) return envelopeOf(body, []);
  const sig = await signer.sign(pae(IN_TOTO_PAYLOAD_TYPE, body));
  return envelopeOf(body, [{ keyid: signer.keyid, sig: Buffer.from(sig).toString("base64") }]);
}

function checks(key: AttestationKey, message: Buffer, sig: Buffer): boolean {
  switch (key.kind) {
    case "ed25519":
      return verify(null, message, key.key, sig);
    case "ecdsa-p256":
      return verify("sha256", message, { key: key.key, dsaEncoding: "der" }, sig);
    case "hmac-sha256": {
      const want = createHmac("sha256", key.secret).update(message).digest();
      return sig.length === want.length && timingSafeEqual(sig, want);
    }
  }
}

/** A VSA statement read from JSON, checked for the members a consumer relies on. */
export function parseStatement(value: unknown): VsaStatement {
  const s = value as Partial<VsaStatement> | null;
  if (s === null || typeof s !== "object" || s._type !== STATEMENT_TYPE)
    throw new AttestationError("attest.malformed", `expected an in-toto Statement (_type ${STATEMENT_TYPE})`);
  if (s.predicateType !== VSA_PREDICATE_TYPE)
    throw new AttestationError(
      "attest.malformed",
      `predicateType is ${String(s.predicateType)}; expected ${VSA_PREDICATE_TYPE}`,
    );
  if (!Array.isArray(s.subject) || s.subject.length === 0 || typeof s.predicate !== "object")
    throw new AttestationError("attest.malformed", "expected a subject and a predicate");
  return s as VsaStatement;
}

/**
 * The statement of a signed envelope, once a signature by `key` checks out over the exact
 * payload bytes; an `AttestationError` otherwise (wrong payload type, no signature by this key,
 * a signature that does not match: tampering).
 */
export function verifyEnvelope(envelope: Envelope, key: AttestationKey): VsaStatement {
  const body = payloadOf(envelope);
  const signatures = envelope.signatures ?? [];
  if (signatures.length === 0)
    throw new AttestationError(
      "attest.unsigned",
      "the attestation is unsigned (its envelope has no signature: the local stack writes them so), but --key asks for a signature",
    );
  const message = pae(envelope.payloadType, body);
  // An asymmetric key is tried on every signature: the keyid is an unsigned hint, and the
  // pipeline's names its KMS key (an ARN), which a public key file does not carry.
  const mine =
    key.kind === "hmac-sha256"
      ? signatures.filter((s) => s.keyid === key.keyid || s.keyid === "")
      : signatures;
  if (mine.length === 0)
    throw new AttestationError("attest.bad_signature", `no signature by key ${key.keyid}`);
  if (!mine.some((s) => checks(key, message, Buffer.from(s.sig, "base64"))))
    throw new AttestationError(
      "attest.bad_signature",
      `the signature by ${key.keyid} does not match the payload; the attestation was changed or signed with another key`,
    );
  return statementOf(body);
}

/** The statement of an envelope without checking any signature (an unsigned one's, to report it). */
export function unverifiedStatement(envelope: Envelope): VsaStatement {
  return statementOf(payloadOf(envelope));
}

function payloadOf(envelope: Envelope): Buffer {
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new AttestationError(
      "attest.malformed",
      `payloadType is ${String(envelope.payloadType)}; expected ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  return Buffer.from(envelope.payload, "base64");
}

function statementOf(body: Buffer): VsaStatement {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (cause) {
    throw new AttestationError("attest.malformed", "the payload is not JSON", {}, { cause });
  }
  return parseStatement(value);
}
