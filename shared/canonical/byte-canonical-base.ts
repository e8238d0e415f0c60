/**
 * What the byte canonicalizer (`byte-canonical.ts`) builds on: the output buffer, the pending span
 * of input bytes that are already canonical, whitespace, and numbers, which either stay as written
 * or are printed again in the profile's form.
 */
import { isAscii } from "node:buffer";
import { fitsSerdeInteger, formatEs6, formatRyu } from "./numbers.js";

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

  /** Appends `src[from, to)`. */
  append(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.reserve(n);
    copy(src, from, to, this.buf, this.len);
    this.len += n;
  }

  /** Appends `text` as UTF-8. */
  appendText(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    this.reserve(3 * text.length);
    this.len += this.buf.write(text, this.len, "utf8");
  }

  /** How many UTF-16 code units bytes `[from, to)` decode to (the bytes when they are ASCII). */
  utf16Length(from: number, to: number): number {
    return isAscii(this.buf.subarray(from, to)) ? to - from : this.buf.toString("utf8", from, to).length;
  }

  /** Empties the sink, dropping a buffer grown past 16 MiB (one huge line or batch) for a small one. */
  clear(): void {
    this.len = 0;
    if (this.buf.length > 1 << 24) this.buf = Buffer.allocUnsafe(1 << 16);
  }

  /** The bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** An empty input, held between runs so a large one is not kept alive. */
export const EMPTY = Buffer.alloc(0);
/** A view of `EMPTY`. */
export const EMPTY_VIEW: DataView = new DataView(new ArrayBuffer(0));

/**
 * The scanner state and the value writers that do not depend on member order. Output is lazy:
 * input bytes that are already canonical are left as a pending span `[from, i)` of the input and
 * copied in one call when something different must be written, so the logical output position
 * is `o + (i - from)`.
 */
export class ByteCanonicalBase {
  protected src: Buffer = EMPTY;
  protected view: DataView = EMPTY_VIEW;
  protected n = 0;
  protected i = 0;
  protected from = 0;
  protected sink: ByteSink = new ByteSink(0);
  protected buf: Buffer = EMPTY;
  protected o = 0;
  protected jcs = true;
  /** The value may be followed by more text (`canonicalizeValueAt`). */
  protected prefix = false;
  /** Check only (`checkValueAt`): accept and reject exactly as canonicalizing, write nothing. */
  protected check = false;

  protected ensure(k: number): void {
    if (this.o + k > this.buf.length) {
      // reserve keeps the first `len` bytes; len goes back after, so a failed run leaves it as is.
      const len = this.sink.len;
      this.sink.len = this.o;
      this.sink.reserve(k);
      this.sink.len = len;
      this.buf = this.sink.buf;
    }
  }

  /** Copies the pending span `[from, i)` to the output. */
  protected flush(): void {
    const len = this.i - this.from;
    if (len === 0) return;
    if (this.check) {
      // Logically written: offsets stay those of a canonicalizing run.
      this.o += len;
      this.from = this.i;
      return;
    }
    this.ensure(len);
    copy(this.src, this.from, this.i, this.buf, this.o);
    this.o += len;
    this.from = this.i;
  }

  /** Skips whitespace, which is not copied: the pending span is flushed first. */
  protected skipWs(): void {
    const src = this.src;
    let c = src[this.i];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
    this.flush();
    let i = this.i;
    do c = src[++i];
    while (c === 32 || c === 10 || c === 13 || c === 9);
    this.i = i;
    this.from = i;
  }

  protected number(): boolean {
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
    const negativeZero = negative && digits === 1 && src[s + 1] === 48;
    let verbatim = false;
    if (integer) {
      // Integers print as written: below 10^15 for jcs; in the u64/i64 range for serde_json.
      verbatim = !negativeZero && digits <= 15;
      if (!verbatim && !this.jcs && !negativeZero) {
        // Only 19- and 20-digit integers need the exact comparison.
        verbatim = digits < 19 || fitsSerdeInteger(src.toString("latin1", negative ? s + 1 : s, j), negative);
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
      this.i = j;
      return true;
    }
    const v = Number(src.toString("latin1", s, j));
    if (!Number.isFinite(v)) return false;
    if (this.check) {
      this.i = j;
      return true;
    }
    const text = this.jcs ? formatEs6(v) : formatRyu(v);
    this.flush();
    this.ensure(text.length);
    const buf = this.buf;
    let o = this.o;
    for (let k = 0; k < text.length; k++) buf[o++] = text.charCodeAt(k);
    this.o = o;
    this.i = j;
    this.from = j;
    return true;
  }

  /**
   * True when a decimal without exponent is already what the profile prints: at most 15
   * significant digits (so it is the shortest round-trip text), no trailing fraction zeros (serde
   * keeps a lone `.0`), and inside the fixed-notation range (jcs: >= 1e-6; ryu: >= 1e-5).
   */
  protected plainDecimalIsCanonical(
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
}

/**
 * Copies `src[start, end)` to `dst` at `at`. Short runs byte by byte, which beats a native call;
 * longer ones with `Buffer.copy`, a native copy that makes no view (`dst.set(src.subarray(…))`
 * allocates one per call, which cost about three times the copy on runs of a few hundred bytes).
 */
export function copy(src: Uint8Array, start: number, end: number, dst: Buffer, at: number): void {
  if (end - start > 16) BUFFER_COPY.call(src, dst, at, start, end);
  else for (let k = start; k < end; k++) dst[at + k - start] = src[k] as number;
}

/** `Buffer.prototype.copy`, which takes any Uint8Array as its source. */
const BUFFER_COPY = Buffer.prototype.copy;

/**
 * Where the members of a top-level object landed in the output: for each key in canonical order,
 * the offsets in the sink's buffer of its canonical value, so a caller can hash member values
 * (`params`, `output`) without serializing them again.
 */
export interface TopLevelMembers {
  keys: string[];
  starts: number[];
  ends: number[];
  /**
   * When given: where each value is in the input, its first byte and the offset past it (and any
   * whitespace after it), for callers that cut members out of the input line.
   */
  sourceStarts?: number[];
  sourceEnds?: number[];
}

/** The profiles the byte path serves (`replaykit` needs the lossless reader). */
export type ByteProfile = "jcs" | "openagents";

/** Deepest nesting accepted unless a caller says otherwise. */
export const DEFAULT_DEPTH = 512;

/** How deep a value may nest (default 512). */
export interface DepthOption {
  maxDepth?: number | undefined;
}

/** Options of a whole-document run. */
export interface DocumentOptions extends DepthOption {
  /** Where the top-level object's member values land (see `TopLevelMembers`). */
  members?: TopLevelMembers | null;
}

/**
 * What one run does: canonicalize a whole `document`, one `value` at `start` that more text may
 * follow, or only `check` such a value (accept and reject exactly as canonicalizing, write nothing).
 */
export interface Job extends DocumentOptions {
  kind: "document" | "value" | "check";
  profile: ByteProfile;
  start?: number;
}

/** `a`, doubled in length. */
export function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/**
 * True for `\u00XX` (lowercase hex) naming a control character that JSON.stringify writes that
 * way, i.e. not one of \b \t \n \f \r.
 */
export function isCanonicalControlEscape(src: Buffer, at: number): boolean {
  if (src[at + 2] !== 48 || src[at + 3] !== 48) return false;
  const hi = src[at + 4];
  const lo = src[at + 5] as number;
  if (hi !== 48 && hi !== 49) return false;
  const low = lo >= 48 && lo <= 57 ? lo - 48 : lo >= 97 && lo <= 102 ? lo - 87 : -1;
  if (low < 0) return false;
  const cp = (hi === 49 ? 16 : 0) + low;
  return cp !== 8 && cp !== 9 && cp !== 10 && cp !== 12 && cp !== 13;
}

export function hex4(src: Buffer, at: number): number {
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
