/**
 * What KMS does for `Sign` with an ECC_NIST_P256 key, `ECDSA_SHA_256` and `MessageType: DIGEST`:
 * ECDSA over the given SHA-256 digest, not hashed again, answered as DER. node:crypto always
 * hashes what it signs, so the signing step is written out here over the scalar of a real
 * node:crypto P-256 key; the tests then check the signatures with node:crypto's own `verify`.
 */
import { type KeyObject, randomBytes } from "node:crypto";

const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const G: Point = [
  0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n,
  0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n,
];
type Point = readonly [bigint, bigint] | null;

const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;

function inverse(a: bigint, m: bigint): bigint {
  let [r0, r1, t0, t1] = [mod(a, m), m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, t0, t1] = [r1, r0 - q * r1, t1, t0 - q * t1];
  }
  return mod(t0, m);
}

function add(a: Point, b: Point): Point {
  if (a === null) return b;
  if (b === null) return a;
  if (a[0] === b[0] && mod(a[1] + b[1], P) === 0n) return null;
  const slope =
    a[0] === b[0]
      ? mod((3n * a[0] * a[0] - 3n) * inverse(2n * a[1], P), P)
      : mod((b[1] - a[1]) * inverse(b[0] - a[0], P), P);
  const x = mod(slope * slope - a[0] - b[0], P);
  return [x, mod(slope * (a[0] - x) - a[1], P)];
}

function multiply(k: bigint, point: Point): Point {
  let result: Point = null;
  let addend = point;
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) result = add(result, addend);
    addend = add(addend, addend);
  }
  return result;
}

const bigintOf = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);

function derInteger(value: bigint): Buffer {
  let bytes = Buffer.from(value.toString(16).padStart(64, "0"), "hex");
  while (bytes.length > 1 && bytes[0] === 0 && ((bytes[1] as number) & 0x80) === 0) bytes = bytes.subarray(1);
  if (((bytes[0] as number) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
}

/** The DER ECDSA signature by the P-256 `privateKey` over `digest` (32 bytes, already SHA-256). */
export function signDigest(privateKey: KeyObject, digest: Uint8Array): Buffer {
  const jwk = privateKey.export({ format: "jwk" });
  if (jwk.crv !== "P-256" || jwk.d === undefined) throw new Error("expected a P-256 private key");
  const d = bigintOf(Buffer.from(jwk.d, "base64url"));
  const z = bigintOf(digest);
  for (;;) {
    const k = mod(bigintOf(randomBytes(40)), N - 1n) + 1n;
    const r = mod((multiply(k, G) as readonly [bigint, bigint])[0], N);
    const s = mod(inverse(k, N) * (z + r * d), N);
    if (r === 0n || s === 0n) continue;
    const body = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  }
}
