/**
 * SipHash-2-4 with its 128-bit output (Aumasson and Bernstein's keyed pseudorandom function for
 * short inputs), on 32-bit halves: the call-id table hashes one id per tool call, and `node:crypto`
 * costs about a microsecond per call in crossing to C++ and allocating, several times the
 * function itself here. Held to the reference implementation's test vectors (vectors_sip128).
 *
 * Node has no SipHash of its own, and the npm implementations give the 64-bit output only, whose
 * chance collisions the call-id table cannot afford (see `./call-ids.ts`).
 */

/** `rounds` SipRounds on the state `S` (see `SipHash128`). */
function rounds(S: Int32Array, rounds: number): void {
  let v0h = S[0] as number;
  let v0l = S[1] as number;
  let v1h = S[2] as number;
  let v1l = S[3] as number;
  let v2h = S[4] as number;
  let v2l = S[5] as number;
  let v3h = S[6] as number;
  let v3l = S[7] as number;
  for (let r = 0; r < rounds; r++) {
    // v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
    let lo = (v0l + v1l) | 0;
    v0h = (v0h + v1h + (lo >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
    v0l = lo;
    let h = (v1h << 13) | (v1l >>> 19);
    let l = (v1l << 13) | (v1h >>> 19);
    v1h = h ^ v0h;
    v1l = l ^ v0l;
    h = v0h;
    v0h = v0l;
    v0l = h;
    // v2 += v3; v3 = rotl(v3, 16); v3 ^= v2
    lo = (v2l + v3l) | 0;
    v2h = (v2h + v3h + (lo >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
    v2l = lo;
    h = (v3h << 16) | (v3l >>> 16);
    l = (v3l << 16) | (v3h >>> 16);
    v3h = h ^ v2h;
    v3l = l ^ v2l;
    // v0 += v3; v3 = rotl(v3, 21); v3 ^= v0
    lo = (v0l + v3l) | 0;
    v0h = (v0h + v3h + (lo >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
    v0l = lo;
    h = (v3h << 21) | (v3l >>> 11);
    l = (v3l << 21) | (v3h >>> 11);
    v3h = h ^ v0h;
    v3l = l ^ v0l;
    // v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
    lo = (v2l + v1l) | 0;
    v2h = (v2h + v1h + (lo >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
    v2l = lo;
    h = (v1h << 17) | (v1l >>> 15);
    l = (v1l << 17) | (v1h >>> 15);
    v1h = h ^ v2h;
    v1l = l ^ v2l;
    h = v2h;
    v2h = v2l;
    v2l = h;
  }
  S[0] = v0h;
  S[1] = v0l;
  S[2] = v1h;
  S[3] = v1l;
  S[4] = v2h;
  S[5] = v2l;
  S[6] = v3h;
  S[7] = v3l;
}

/** Starts a hash under `key` (four little-endian 32-bit words: k0 low, k0 high, k1 low, k1 high). */
function begin(S: Int32Array, key: Uint32Array): void {
  const k0l = key[0] as number;
  const k0h = key[1] as number;
  const k1l = key[2] as number;
  const k1h = key[3] as number;
  S[0] = k0h ^ 0x736f6d65;
  S[1] = k0l ^ 0x70736575;
  // The 128-bit output's tweak: v1 ^= 0xee.
  S[2] = k1h ^ 0x646f7261;
  S[3] = k1l ^ 0x6e646f6d ^ 0xee;
  S[4] = k0h ^ 0x6c796765;
  S[5] = k0l ^ 0x6e657261;
  S[6] = k1h ^ 0x74656462;
  S[7] = k1l ^ 0x79746573;
}

/** Compresses one 64-bit message word (high and low halves). */
function word(S: Int32Array, h: number, l: number): void {
  S[6] = (S[6] as number) ^ h;
  S[7] = (S[7] as number) ^ l;
  rounds(S, 2);
  S[0] = (S[0] as number) ^ h;
  S[1] = (S[1] as number) ^ l;
}

/** Finalizes into `out` (four little-endian 32-bit words: the output's bytes in order). */
function end(S: Int32Array, out: Uint32Array): void {
  S[5] = (S[5] as number) ^ 0xee;
  rounds(S, 4);
  out[0] = (S[1] as number) ^ (S[3] as number) ^ (S[5] as number) ^ (S[7] as number);
  out[1] = (S[0] as number) ^ (S[2] as number) ^ (S[4] as number) ^ (S[6] as number);
  S[3] = (S[3] as number) ^ 0xdd;
  rounds(S, 4);
  out[2] = (S[1] as number) ^ (S[3] as number) ^ (S[5] as number) ^ (S[7] as number);
  out[3] = (S[0] as number) ^ (S[2] as number) ^ (S[4] as number) ^ (S[6] as number);
}

/** SipHash-2-4-128 of `bytes` under `key`, into `out` (see `end`), with the state `S`. */
function hashBytes(S: Int32Array, key: Uint32Array, bytes: Uint8Array, out: Uint32Array): void {
  begin(S, key);
  const n = bytes.length;
  const full = n - (n % 8);
  for (let i = 0; i < full; i += 8) {
    const l =
      ((bytes[i] as number) |
        ((bytes[i + 1] as number) << 8) |
        ((bytes[i + 2] as number) << 16) |
        ((bytes[i + 3] as number) << 24)) >>>
      0;
    const h =
      ((bytes[i + 4] as number) |
        ((bytes[i + 5] as number) << 8) |
        ((bytes[i + 6] as number) << 16) |
        ((bytes[i + 7] as number) << 24)) >>>
      0;
    word(S, h, l);
  }
  // The last word: the remaining bytes, and the length's low byte in the top byte.
  let l = 0;
  let h = (n & 0xff) << 24;
  for (let i = full; i < n; i++) {
    const shift = 8 * (i - full);
    if (shift < 32) l |= (bytes[i] as number) << shift;
    else h |= (bytes[i] as number) << (shift - 32);
  }
  word(S, h >>> 0, l >>> 0);
  end(S, out);
}

/**
 * SipHash-2-4-128 under `key`, with the state `S`, of the UTF-16 code units of `text` as little-endian bytes (what
 * `Buffer.from(text, "utf16le")` holds, lone surrogates included), into `out`, without the bytes.
 */
function hashUnits(S: Int32Array, key: Uint32Array, text: string, out: Uint32Array): void {
  begin(S, key);
  const units = text.length;
  const full = units - (units % 4);
  for (let i = 0; i < full; i += 4) {
    const l = (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)) >>> 0;
    const h = (text.charCodeAt(i + 2) | (text.charCodeAt(i + 3) << 16)) >>> 0;
    word(S, h, l);
  }
  let l = 0;
  let h = ((2 * units) & 0xff) << 24;
  const rest = units - full;
  if (rest > 0) l = text.charCodeAt(full);
  if (rest > 1) l |= text.charCodeAt(full + 1) << 16;
  if (rest > 2) h |= text.charCodeAt(full + 2);
  word(S, h >>> 0, l >>> 0);
  end(S, out);
}

/**
 * SipHash-2-4-128 under one key (four little-endian 32-bit words: k0 low, k0 high, k1 low, k1
 * high), its output into four little-endian 32-bit words (the output's bytes in order). The
 * state v0..v3 is kept as high and low 32-bit halves (v0h, v0l, v1h, …) in a typed array the
 * hasher owns: plain variables holding 32-bit values past 2³¹ would be boxed as heap numbers on
 * every write.
 */
export class SipHash128 {
  private readonly state = new Int32Array(8);

  constructor(private readonly key: Uint32Array) {}

  /** The hash of `bytes`, into `out`. */
  ofBytes(bytes: Uint8Array, out: Uint32Array): void {
    hashBytes(this.state, this.key, bytes, out);
  }

  /**
   * The hash of the UTF-16 code units of `text` as little-endian bytes (what
   * `Buffer.from(text, "utf16le")` holds, lone surrogates included), into `out`, without the bytes.
   */
  ofUnits(text: string, out: Uint32Array): void {
    hashUnits(this.state, this.key, text, out);
  }
}
