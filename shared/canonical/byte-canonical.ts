import { isUtf8 } from "node:buffer";
import { formatEs6, formatRyu } from "./numbers.js";

/**
 * The fast path of `jcs` and `openagents` canonicalization: straight from UTF-8 bytes to canonical
 * UTF-8 bytes, with no JavaScript strings or value tree in between. Both profiles keep non-ASCII
 * text as UTF-8 and escape only what JSON.stringify escapes, so most input bytes are copied as they
 * are; only member order, numbers and escapes need work.
 *
 * It accepts well-formed input only. On anything unusual (a syntax error, a duplicate key, a lone
 * surrogate, a number out of range, nesting past the limit) it gives up and the caller runs the
 * lossless reader, which reports the exact error. A property test holds the two paths
 * byte-identical on well-formed input.
 */

/** A growable output buffer. */
export class ByteSink {
  buf: Buffer;
  len = 0;

  constructor(capacity = 1 << 20) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** The bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

const ESCAPED = 1; // the key's canonical text holds a backslash: byte order may differ from code-point order
const HIGH = 2; // the key holds U+E000 or above: UTF-16 order (jcs) may differ from byte order

const U64_MAX = "18446744073709551615";
const I64_MIN_ABS = "9223372036854775808";

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/** The scanner's state lives in fields so no closure is made per call and hot loops stay fast. */
class ByteCanonicalizer {
  private src: Buffer = Buffer.alloc(0);
  private n = 0;
  private i = 0;
  private sink: ByteSink = new ByteSink(0);
  private buf: Buffer = Buffer.alloc(0);
  private o = 0;
  private jcs = true;
  private keyFlags = 0;
  // Open containers: 1 for an object, 0 for an array; and where each object's members begin.
  private kinds = new Int32Array(64);
  private bases = new Int32Array(64);
  private depth = 0;
  // Members of the open objects: output offsets of the key's quote, the end of the key, the end
  // of the value; and the key's flags.
  private mStart = new Int32Array(256);
  private mKeyEnd = new Int32Array(256);
  private mEnd = new Int32Array(256);
  private mFlags = new Int32Array(256);
  // The key's first four bytes, big-endian: most comparisons end here.
  private mPrefix = new Uint32Array(256);
  private m = 0;
  private order = new Int32Array(256);
  private scratch = Buffer.allocUnsafe(1 << 16);

  run(src: Buffer, profile: "jcs" | "openagents", sink: ByteSink, maxDepth: number): boolean {
    if (!isUtf8(src)) return false;
    this.src = src;
    this.n = src.length;
    this.i = 0;
    this.sink = sink;
    sink.reserve(src.length + 64);
    this.buf = sink.buf;
    this.o = sink.len;
    this.jcs = profile === "jcs";
    this.depth = 0;
    this.m = 0;
    const ok = this.document(maxDepth);
    if (ok) sink.len = this.o;
    // Drop references so a large input is not kept alive by this shared instance.
    this.src = Buffer.alloc(0);
    this.buf = this.src;
    return ok;
  }

  private ensure(k: number): void {
    if (this.o + k > this.buf.length) {
      this.sink.len = this.o;
      this.sink.reserve(k);
      this.buf = this.sink.buf;
    }
  }

  private skipWs(): void {
    const src = this.src;
    let i = this.i;
    for (;;) {
      const c = src[i];
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  private document(maxDepth: number): boolean {
    const src = this.src;
    this.skipWs();
    for (;;) {
      const c = src[this.i];
      if (c === 34) {
        if (!this.string(false)) return false;
      } else if (c === 123 || c === 91) {
        if (this.depth >= maxDepth) return false;
        this.i++;
        this.skipWs();
        this.ensure(2);
        this.buf[this.o++] = c;
        if (src[this.i] === c + 2) {
          this.i++;
          this.buf[this.o++] = c + 2;
        } else {
          if (this.depth === this.kinds.length) {
            this.kinds = grow(this.kinds);
            this.bases = grow(this.bases);
          }
          this.kinds[this.depth] = c === 123 ? 1 : 0;
          this.bases[this.depth] = this.m;
          this.depth++;
          if (c === 123 && !this.key()) return false;
          continue;
        }
      } else if (c === 116) {
        if (!this.literal(0x74, 0x72, 0x75, 0x65, 4)) return false;
      } else if (c === 102) {
        if (!this.literal(0x66, 0x61, 0x6c, 0x73, 5)) return false;
      } else if (c === 110) {
        if (!this.literal(0x6e, 0x75, 0x6c, 0x6c, 4)) return false;
      } else if (!this.number()) {
        return false;
      }

      // A value ended: go on in its container, closing containers as they end.
      for (;;) {
        this.skipWs();
        if (this.depth === 0) return this.i === this.n;
        const d = src[this.i];
        const isObject = this.kinds[this.depth - 1] === 1;
        if (isObject) this.mEnd[this.m - 1] = this.o;
        if (d === 44) {
          this.i++;
          this.skipWs();
          this.ensure(1);
          this.buf[this.o++] = 44;
          if (isObject && !this.key()) return false;
          break;
        }
        if (d !== (isObject ? 125 : 93)) return false;
        this.i++;
        this.depth--;
        if (isObject && !this.closeObject(this.bases[this.depth] as number)) return false;
        this.ensure(1);
        this.buf[this.o++] = d;
      }
    }
  }

  private key(): boolean {
    if (this.src[this.i] !== 34) return false;
    if (this.m === this.mStart.length) {
      this.mStart = grow(this.mStart);
      this.mKeyEnd = grow(this.mKeyEnd);
      this.mEnd = grow(this.mEnd);
      this.mFlags = grow(this.mFlags);
      const prefix = new Uint32Array(this.mPrefix.length * 2);
      prefix.set(this.mPrefix);
      this.mPrefix = prefix;
    }
    const slot = this.m++;
    this.mStart[slot] = this.o;
    if (!this.string(true)) return false;
    this.mKeyEnd[slot] = this.o;
    this.mFlags[slot] = this.keyFlags;
    const at = (this.mStart[slot] as number) + 1;
    const len = this.o - 1 - at;
    const buf = this.buf;
    // Keys hold no raw NUL (control characters are escaped), so zero padding sorts short keys first.
    this.mPrefix[slot] =
      ((len > 0 ? (buf[at] as number) : 0) * 0x1000000 +
        (len > 1 ? (buf[at + 1] as number) : 0) * 0x10000 +
        (len > 2 ? (buf[at + 2] as number) : 0) * 0x100 +
        (len > 3 ? (buf[at + 3] as number) : 0)) >>>
      0;
    this.skipWs();
    if (this.src[this.i] !== 58) return false;
    this.i++;
    this.skipWs();
    this.ensure(1);
    this.buf[this.o++] = 58;
    return true;
  }

  private literal(a: number, b: number, c: number, d: number, len: number): boolean {
    const src = this.src;
    const i = this.i;
    if (src[i + 1] !== b || src[i + 2] !== c || src[i + 3] !== d) return false;
    if (len === 5 && src[i + 4] !== 0x65) return false;
    this.ensure(len);
    const buf = this.buf;
    buf[this.o] = a;
    buf[this.o + 1] = b;
    buf[this.o + 2] = c;
    buf[this.o + 3] = d;
    if (len === 5) buf[this.o + 4] = 0x65;
    this.o += len;
    this.i += len;
    return true;
  }

  /** Copies the string at src[i] === '"' in canonical form; for a key, sets keyFlags. */
  private string(isKey: boolean): boolean {
    const src = this.src;
    const n = this.n;
    // A canonical string is never longer than its source text.
    if (this.o + (n - this.i) > this.buf.length) this.ensure(n - this.i);
    const buf = this.buf;
    let i = this.i + 1;
    let o = this.o;
    let flags = 0;
    buf[o++] = 34;
    for (;;) {
      // Runs of bytes that are copied as they are: found read-only, then copied in one go.
      const runStart = i;
      let c = 0;
      while (i < n) {
        c = src[i] as number;
        if (c === 34 || c === 92 || c < 0x20 || (isKey && c >= 0xee)) break;
        i++;
      }
      const run = i - runStart;
      if (run > 128) buf.set(src.subarray(runStart, i), o);
      else for (let k = 0; k < run; k++) buf[o + k] = src[runStart + k] as number;
      o += run;
      if (i >= n || c < 0x20) return false;
      if (c === 34) break;
      if (c !== 92) {
        flags |= HIGH;
        buf[o++] = c;
        i++;
        continue;
      }
      const e = src[i + 1];
      if (e === 34 || e === 92 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        // Escapes JSON.stringify writes the same way.
        buf[o++] = 92;
        buf[o++] = e;
        flags |= ESCAPED;
        i += 2;
        continue;
      }
      if (e === 47) {
        buf[o++] = 47;
        i += 2;
        continue;
      }
      if (e !== 117) return false;
      let cp = hex4(src, i + 2);
      if (cp < 0) return false;
      i += 6;
      if (cp >= 0xd800 && cp <= 0xdfff) {
        if (cp > 0xdbff || src[i] !== 92 || src[i + 1] !== 117) return false;
        const low = hex4(src, i + 2);
        if (low < 0xdc00 || low > 0xdfff) return false;
        i += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      }
      if (cp < 0x20) {
        buf[o++] = 92;
        flags |= ESCAPED;
        if (cp === 8) buf[o++] = 98;
        else if (cp === 9) buf[o++] = 116;
        else if (cp === 10) buf[o++] = 110;
        else if (cp === 12) buf[o++] = 102;
        else if (cp === 13) buf[o++] = 114;
        else {
          buf[o++] = 117;
          buf[o++] = 48;
          buf[o++] = 48;
          buf[o++] = cp < 0x10 ? 48 : 49;
          const low = cp & 0xf;
          buf[o++] = low < 10 ? 48 + low : 87 + low;
        }
      } else if (cp === 34 || cp === 92) {
        buf[o++] = 92;
        buf[o++] = cp;
        flags |= ESCAPED;
      } else if (cp < 0x80) {
        buf[o++] = cp;
      } else if (cp < 0x800) {
        buf[o++] = 0xc0 | (cp >> 6);
        buf[o++] = 0x80 | (cp & 0x3f);
      } else if (cp < 0x10000) {
        if (cp >= 0xe000) flags |= HIGH;
        buf[o++] = 0xe0 | (cp >> 12);
        buf[o++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[o++] = 0x80 | (cp & 0x3f);
      } else {
        flags |= HIGH;
        buf[o++] = 0xf0 | (cp >> 18);
        buf[o++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[o++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[o++] = 0x80 | (cp & 0x3f);
      }
    }
    buf[o++] = 34;
    this.i = i + 1;
    this.o = o;
    this.keyFlags = flags;
    return true;
  }

  private number(): boolean {
    const src = this.src;
    const s = this.i;
    let j = s;
    let c = src[j];
    const negative = c === 45;
    if (negative) c = src[++j];
    if (c === 48) {
      c = src[++j];
    } else if (c !== undefined && c > 48 && c <= 57) {
      do c = src[++j];
      while (c !== undefined && c >= 48 && c <= 57);
    } else {
      return false;
    }
    const digits = j - s - (negative ? 1 : 0);
    let integer = true;
    let fracStart = 0;
    let fracEnd = 0;
    let exponent = false;
    if (c === 46) {
      integer = false;
      fracStart = j + 1;
      c = src[++j];
      if (c === undefined || c < 48 || c > 57) return false;
      do c = src[++j];
      while (c !== undefined && c >= 48 && c <= 57);
      fracEnd = j;
    }
    if (c === 101 || c === 69) {
      integer = false;
      exponent = true;
      c = src[++j];
      if (c === 43 || c === 45) c = src[++j];
      if (c === undefined || c < 48 || c > 57) return false;
      do c = src[++j];
      while (c !== undefined && c >= 48 && c <= 57);
    }
    this.i = j;
    const negativeZero = negative && digits === 1 && src[s + 1] === 48;
    let verbatim = false;
    if (integer) {
      // Integers print as written: below 10^15 for jcs; in the u64/i64 range for serde_json.
      verbatim = !negativeZero && digits <= 15;
      if (!verbatim && !this.jcs && !negativeZero) {
        const t = digits >= 19 ? src.toString("latin1", negative ? s + 1 : s, j) : "";
        verbatim = negative
          ? digits < 19 || (digits === 19 && t <= I64_MIN_ABS)
          : digits < 20 || (digits === 20 && t <= U64_MAX);
      }
    } else if (!exponent) {
      verbatim = this.plainDecimalIsCanonical(
        s + (negative ? 1 : 0),
        digits,
        fracStart,
        fracEnd,
        negativeZero,
      );
    }
    if (verbatim) {
      this.ensure(j - s);
      const buf = this.buf;
      let o = this.o;
      for (let k = s; k < j; k++) buf[o++] = src[k] as number;
      this.o = o;
      return true;
    }
    const v = Number(src.toString("latin1", s, j));
    if (!Number.isFinite(v)) return false;
    const text = this.jcs ? formatEs6(v) : formatRyu(v);
    this.ensure(text.length);
    const buf = this.buf;
    let o = this.o;
    for (let k = 0; k < text.length; k++) buf[o++] = text.charCodeAt(k);
    this.o = o;
    return true;
  }

  /**
   * True when a decimal without exponent is already what the profile prints: at most 15
   * significant digits (so it is the shortest round-trip text), no trailing fraction zeros (serde
   * keeps a lone `.0`), and inside the fixed-notation range (jcs: >= 1e-6; ryu: >= 1e-5).
   */
  private plainDecimalIsCanonical(
    intStart: number,
    intDigits: number,
    fracStart: number,
    fracEnd: number,
    negativeZero: boolean,
  ): boolean {
    const src = this.src;
    const fracDigits = fracEnd - fracStart;
    const lastZero = src[fracEnd - 1] === 48;
    if (this.jcs ? lastZero : lastZero && (fracDigits !== 1 || negativeZero)) return false;
    if (src[intStart] !== 48) return intDigits + fracDigits <= 15;
    let zeros = 0;
    while (zeros < fracDigits && src[fracStart + zeros] === 48) zeros++;
    if (zeros === fracDigits) return !this.jcs; // 0.0 and -0.0 stay for serde; jcs prints 0
    return fracDigits - zeros <= 15 && zeros <= (this.jcs ? 5 : 4);
  }

  /** Orders the members from slot `base` on by key; false on a duplicate key. */
  private closeObject(base: number): boolean {
    const count = this.m - base;
    this.m = base;
    if (count < 2) return true;
    let sorted = true;
    for (let k = base + 1; k < base + count; k++) {
      const cmp = this.compare(k - 1, k);
      if (cmp === 0) return false;
      if (cmp > 0) sorted = false;
    }
    if (sorted) return true;
    if (this.order.length < count) this.order = new Int32Array(count * 2);
    const order = this.order;
    // Insertion sort: objects are small, and it needs no comparator closure.
    for (let k = 0; k < count; k++) {
      const slot = base + k;
      let x = k - 1;
      while (x >= 0) {
        const cmp = this.compare(order[x] as number, slot);
        if (cmp === 0) return false;
        if (cmp < 0) break;
        order[x + 1] = order[x] as number;
        x--;
      }
      order[x + 1] = slot;
    }
    const from = this.mStart[base] as number;
    const to = this.mEnd[base + count - 1] as number;
    if (this.scratch.length < to - from)
      this.scratch = Buffer.allocUnsafe(Math.max(to - from, this.scratch.length * 2));
    const scratch = this.scratch;
    const buf = this.buf;
    scratch.set(buf.subarray(from, to));
    let w = from;
    for (let k = 0; k < count; k++) {
      const slot = order[k] as number;
      if (k > 0) buf[w++] = 44;
      const a = (this.mStart[slot] as number) - from;
      const b = (this.mEnd[slot] as number) - from;
      if (b - a < 24) for (let x = a; x < b; x++) buf[w++] = scratch[x] as number;
      else {
        buf.set(scratch.subarray(a, b), w);
        w += b - a;
      }
    }
    return true;
  }

  /** Compares two member keys in the profile's order, from their canonical bytes. */
  private compare(a: number, b: number): number {
    const pa = this.mPrefix[a] as number;
    const pb = this.mPrefix[b] as number;
    const flags = (this.mFlags[a] as number) | (this.mFlags[b] as number);
    const buf = this.buf;
    const sa = (this.mStart[a] as number) + 1;
    const ea = (this.mKeyEnd[a] as number) - 1;
    const sb = (this.mStart[b] as number) + 1;
    const eb = (this.mKeyEnd[b] as number) - 1;
    if ((flags & ESCAPED) !== 0 || (this.jcs && (flags & HIGH) !== 0)) {
      const ka = JSON.parse(buf.toString("utf8", sa - 1, ea + 1)) as string;
      const kb = JSON.parse(buf.toString("utf8", sb - 1, eb + 1)) as string;
      if (ka === kb) return 0;
      return this.jcs ? (ka < kb ? -1 : 1) : compareCodePoints(ka, kb);
    }
    // UTF-8 byte order is code-point order, and equals UTF-16 order below U+E000.
    if (pa !== pb) return pa < pb ? -1 : 1;
    const la = ea - sa;
    const lb = eb - sb;
    const len = Math.min(la, lb);
    for (let k = 0; k < len; k++) {
      const x = buf[sa + k] as number;
      const y = buf[sb + k] as number;
      if (x !== y) return x - y;
    }
    return la - lb;
  }
}

function hex4(src: Buffer, at: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = src[at + k];
    if (c === undefined) return -1;
    if (c >= 48 && c <= 57) v = v * 16 + c - 48;
    else if (c >= 97 && c <= 102) v = v * 16 + c - 87;
    else if (c >= 65 && c <= 70) v = v * 16 + c - 55;
    else return -1;
  }
  return v;
}

/** Orders strings by Unicode code point, which is UTF-8 byte order. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.codePointAt(k) as number;
    const y = b.codePointAt(k) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) k++;
  }
  return a.length - b.length;
}

const shared = new ByteCanonicalizer();

/**
 * Appends the canonical form of the JSON text `src` to `out` and returns true, or returns false
 * (leaving `out.len` unchanged) when the input needs the lossless reader's attention.
 */
export function canonicalizeBytes(
  src: Buffer,
  profile: "jcs" | "openagents",
  out: ByteSink,
  maxDepth = 512,
): boolean {
  return shared.run(src, profile, out, maxDepth);
}
