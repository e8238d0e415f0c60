/**
 * DSSE envelopes (github.com/secure-systems-lab/dsse, protocol v1) for in-toto Statements:
 * payloadType `application/vnd.in-toto+json`, the signature over PAE(payloadType, payload) =
 * "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, with LEN the byte length in ASCII decimal.
 * Two key kinds, from node:crypto: HMAC-SHA256 with a shared secret (raw key bytes), and Ed25519
 * (a PEM key: private to sign, public or private to verify).
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
  signatures: { keyid: string; sig: string }[];
}

/** A key to sign with or check against. */
export type AttestationKey =
  | { kind: "hmac-sha256"; secret: Uint8Array; keyid: string }
  | { kind: "ed25519"; key: KeyObject; keyid: string };

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

/** What kind of asymmetric key `bytes` hold outside PEM (DER or OpenSSH), or null. */
function publicKeyForm(bytes: Uint8Array): string | null {
  const text = Buffer.from(bytes.subarray(0, 16)).toString("latin1");
  if (/^(ssh-|ecdsa-sha2-|sk-ssh-|sk-ecdsa-)/.test(text)) return "an OpenSSH public key";
  const der = Buffer.from(bytes);
  for (const [type, read] of [
    ["spki", () => createPublicKey({ key: der, format: "der", type: "spki" })],
    ["pkcs8", () => createPrivateKey({ key: der, format: "der", type: "pkcs8" })],
  ] as const) {
    try {
      read();
      return `a DER key (${type})`;
    } catch {
      // Not that form: try the next.
    }
  }
  return null;
}

function ed25519KeyId(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

/**
 * The key in `bytes`: a PEM Ed25519 key (private when `use` is sign; public or private to verify),
 * else the bytes themselves as an HMAC-SHA256 secret. Any other PEM key type is refused.
 */
export function attestationKey(bytes: Uint8Array, use: "sign" | "verify"): AttestationKey {
  if (!isPem(bytes)) {
    if (bytes.length === 0)
      throw new AttestationError("attest.key", "the HMAC key is empty; expected secret bytes");
    // A public key taken as an HMAC secret would let anyone who holds it sign: refuse the forms
    // public keys travel in (DER, OpenSSH) rather than read them as secrets.
    const form = publicKeyForm(bytes);
    if (form !== null)
      throw new AttestationError(
        "attest.key",
        `the key is ${form}, not an HMAC secret; expected an Ed25519 key in PEM (or secret bytes for HMAC-SHA256)`,
      );
    return { kind: "hmac-sha256", secret: bytes, keyid: `hmac-sha256:${keyIdOf(bytes)}` };
  }
  let key: KeyObject;
  try {
    key = use === "sign" ? createPrivateKey(Buffer.from(bytes)) : createPublicKey(Buffer.from(bytes));
  } catch (cause) {
    throw new AttestationError(
      "attest.key",
      `the PEM key cannot be read (${(cause as Error).message}); expected an Ed25519 ${use === "sign" ? "private" : "public or private"} key`,
      {},
      { cause },
    );
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new AttestationError(
      "attest.key",
      `the PEM key is ${key.asymmetricKeyType ?? "not asymmetric"}; expected an Ed25519 key (or raw bytes for HMAC-SHA256)`,
    );
  const publicKey = use === "sign" ? createPublicKey(key) : key;
  return { kind: "ed25519", key, keyid: `ed25519:${ed25519KeyId(publicKey)}` };
}

function signatureOf(key: AttestationKey, message: Buffer): Buffer {
  return key.kind === "hmac-sha256"
    ? createHmac("sha256", key.secret).update(message).digest()
    : sign(null, message, key.key);
}

/** The statement in a signed DSSE envelope. */
export function signStatement(statement: VsaStatement, key: AttestationKey): Envelope {
  const body = Buffer.from(JSON.stringify(statement), "utf8");
  const sig = signatureOf(key, pae(IN_TOTO_PAYLOAD_TYPE, body));
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: body.toString("base64"),
    signatures: [{ keyid: key.keyid, sig: sig.toString("base64") }],
  };
}

function checks(key: AttestationKey, message: Buffer, sig: Buffer): boolean {
  if (key.kind === "ed25519") return verify(null, message, key.key, sig);
  const want = createHmac("sha256", key.secret).update(message).digest();
  return sig.length === want.length && timingSafeEqual(sig, want);
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
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new AttestationError(
      "attest.malformed",
      `payloadType is ${String(envelope.payloadType)}; expected ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  const body = Buffer.from(envelope.payload, "base64");
  const message = pae(envelope.payloadType, body);
  const mine = (envelope.signatures ?? []).filter((s) => s.keyid === key.keyid || s.keyid === "");
  if (mine.length === 0)
    throw new AttestationError("attest.bad_signature", `no signature by key ${key.keyid}`);
  if (!mine.some((s) => checks(key, message, Buffer.from(s.sig, "base64"))))
    throw new AttestationError(
      "attest.bad_signature",
      `the signature by ${key.keyid} does not match the payload; the attestation was changed or signed with another key`,
    );
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (cause) {
    throw new AttestationError("attest.malformed", "the payload is not JSON", {}, { cause });
  }
  return parseStatement(value);
}
