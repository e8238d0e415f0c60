import { isUtf8 } from "node:buffer";
import {
  ByteCanonicalBase,
  type ByteProfile,
  type ByteSink,
  copy,
  DEFAULT_DEPTH,
  type DepthOption,
  type DocumentOptions,
  EMPTY,
  EMPTY_VIEW,
  grow,
  hex4,
  isCanonicalControlEscape,
  type Job,
  type TopLevelMembers,
} from "./byte-canonical-base.js";
import { compareCodePoints } from "./numbers.js";
import { RecentTexts } from "./recent-texts.js";

export { ByteSink, type TopLevelMembers } from "./byte-canonical-base.js";

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

/** Largest buffer a canonicalizer keeps its view of between runs (a chunk of lines, not a huge line). */
const KEEP_VIEW_BYTES = 1 << 22;

/** `string`'s slot for a string that is a value, not a member name. */
const NOT_A_KEY = -1;
/** Members an object may have for its keys to be ordered by insertion; more are merge-sorted. */
const SMALL_OBJECT = 32;

const ESCAPED = 1; // the key's canonical text holds a backslash: byte order may differ from code-point order
const HIGH = 2; // the key holds U+E000 or above: UTF-16 order (jcs) may differ from byte order

/**
 * The byte canonicalizer of one reader: whoever reads lines makes one and keeps it for the read,
 * so its working arrays are allocated once, not per line, and no two readers share one. The
 * scanner's state lives in fields, so no closure is made per call and the hot loops stay fast. Output is lazy: input bytes that are already canonical (most of them) are not copied one
 * by one but left as a pending span `[from, i)` of the input, copied in one native call when
 * something different must be written (whitespace dropped, a number reformatted, an escape
 * rewritten) or when an object's members must be reordered. The logical output position is
 * therefore `o + (i - from)`.
 */
export class ByteCanonicalizer extends ByteCanonicalBase {
  // Open containers: 1 for an object, 0 for an array; and where each object's members begin.
  /** Where `src` starts in `view`, a view of its whole buffer. */
  private viewBase = 0;
  private kinds = new Int32Array(64);
  private bases = new Int32Array(64);
  private depth = 0;
  // Members of the open objects: logical output offsets of the member's start and end; where the
  // key's canonical text (without quotes) can be read (in src when it was copied as is, else in
  // buf); its flags; and its first four bytes, big-endian, which settle most comparisons.
  private mStart = new Int32Array(256);
  private mEnd = new Int32Array(256);
  private kStart = new Int32Array(256);
  private kEnd = new Int32Array(256);
  private kInSrc = new Int32Array(256);
  private kFlags = new Int32Array(256);
  private kPrefix = new Uint32Array(256);
  private m = 0;
  private order = new Int32Array(256);
  private members: TopLevelMembers | null = null;
  /** Whether this run's `members` were filled (by `recordMembers`). */
  private membersRecorded = false;
  /** Where each top-level member's value is in `src` (by slot, which is input order there). */
  private topStarts: number[] = [];
  private topEnds: number[] = [];
  /** Top-level names repeat line after line: recent ASCII ones, so most need no decoding. */
  private readonly names = new RecentTexts();

  /**
   * Canonicalizes `src` into `sink` as `job` says; returns the offset where reading stopped, or
   * -1. For a `value` (or `check`) job the value may be followed by more text (the offset is past
   * the value and any whitespace after it); for a `document` it must be all of `src`.
   */
  private run(src: Buffer, sink: ByteSink, job: Job): number {
    const members = job.members ?? null;
    const prefix = job.kind !== "document";
    const check = job.kind === "check";
    const start = job.start ?? 0;
    this.members = members;
    this.check = check;
    // The member lists are filled in place by `recordMembers` (when the top-level object closes)
    // and emptied after the run otherwise: emptying them first would free their backing stores,
    // one allocation per list and line.
    this.membersRecorded = false;
    if (!prefix && !isUtf8(src)) return -1;
    this.src = src;
    // A view of the whole buffer, kept while the lines come from the same chunk: a view per line
    // cost about as much as the word-at-a-time string scan saves on short lines.
    if (this.view.buffer !== src.buffer) this.view = new DataView(src.buffer);
    this.viewBase = src.byteOffset;
    this.n = src.length;
    this.i = start;
    this.from = start;
    this.prefix = prefix;
    this.sink = sink;
    sink.reserve(src.length - start + 64);
    this.buf = sink.buf;
    this.o = sink.len;
    this.jcs = job.profile === "jcs";
    this.depth = 0;
    this.m = 0;
    // A prefix's bytes are checked once its end is known.
    const ok =
      this.document(job.maxDepth ?? DEFAULT_DEPTH) && (!prefix || isUtf8(src.subarray(start, this.i)));
    if (members !== null && !this.membersRecorded) truncateMembers(members, 0);
    if (ok && !check) {
      this.flush();
      sink.len = this.o;
    }
    const end = this.i;
    // Drop references so a large input is not kept alive by a canonicalizer its owner keeps.
    this.src = EMPTY;
    this.buf = EMPTY;
    if (src.buffer.byteLength > KEEP_VIEW_BYTES) this.view = EMPTY_VIEW;
    return ok ? end : -1;
  }

  /**
   * Appends the canonical form of the JSON text `src` to `out` and returns true, or returns false
   * (leaving `out.len` unchanged) when the input needs the lossless reader's attention. With
   * `members`, records where the top-level object's member values are, and leaves that object's
   * members in input order (each value canonical): for callers that hash member values.
   */
  canonicalize(src: Buffer, profile: ByteProfile, out: ByteSink, options: DocumentOptions = {}): boolean {
    return (
      this.run(src, out, {
        kind: "document",
        profile,
        maxDepth: options.maxDepth,
        members: options.members,
      }) >= 0
    );
  }

  /**
   * Appends the canonical form of the one JSON value that starts at `src[start]` (more text may
   * follow it) to `out` and returns the offset just past the value and any whitespace after it; or
   * returns -1 (leaving `out.len` unchanged) when the value needs the lossless reader's attention.
   * For callers that cut a large member out of a line while canonicalizing it in the same pass.
   */
  valueAt(
    src: Buffer,
    start: number,
    profile: ByteProfile,
    out: ByteSink,
    options: DepthOption = {},
  ): number {
    return this.run(src, out, { kind: "value", profile, start, maxDepth: options.maxDepth });
  }

  /**
   * `valueAt` without the output: the same offset or -1 for the same input, and `scratch.len`
   * unchanged (its buffer serves as working space). For callers that must know a value reads but
   * not its canonical bytes, such as a removed member whose hash the line carries.
   */
  checkValueAt(
    src: Buffer,
    start: number,
    profile: ByteProfile,
    scratch: ByteSink,
    options: DepthOption = {},
  ): number {
    return this.run(src, scratch, { kind: "check", profile, start, maxDepth: options.maxDepth });
  }

  private document(maxDepth: number): boolean {
    const src = this.src;
    this.skipWs();
    for (;;) {
      // A value starts at i.
      const c = src[this.i];
      if (c === 34) {
        if (!this.string(NOT_A_KEY)) return false;
      } else if (c === 123 || c === 91) {
        if (this.depth >= maxDepth) return false;
        this.i++;
        this.skipWs();
        if (src[this.i] === c + 2) {
          this.i++;
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
        if (src[this.i + 1] !== 0x72 || src[this.i + 2] !== 0x75 || src[this.i + 3] !== 0x65) return false;
        this.i += 4;
      } else if (c === 102) {
        if (
          src[this.i + 1] !== 0x61 ||
          src[this.i + 2] !== 0x6c ||
          src[this.i + 3] !== 0x73 ||
          src[this.i + 4] !== 0x65
        )
          return false;
        this.i += 5;
      } else if (c === 110) {
        if (src[this.i + 1] !== 0x75 || src[this.i + 2] !== 0x6c || src[this.i + 3] !== 0x6c) return false;
        this.i += 4;
      } else if (!this.number()) {
        return false;
      }

      // A value ended: go on in its container, closing containers as they end.
      for (;;) {
        this.skipWs();
        if (this.depth === 0) return this.prefix || this.i === this.n;
        const d = src[this.i];
        const isObject = this.kinds[this.depth - 1] === 1;
        if (isObject) {
          this.mEnd[this.m - 1] = this.o + this.i - this.from;
          if (this.depth === 1) this.topEnds[this.m - 1] = this.i;
        }
        if (d === 44) {
          this.i++;
          this.skipWs();
          if (isObject && !this.key()) return false;
          break;
        }
        if (d !== (isObject ? 125 : 93)) return false;
        this.depth--;
        if (isObject && !this.closeObject(this.bases[this.depth] as number)) return false;
        this.i++;
      }
    }
  }

  private key(): boolean {
    if (this.src[this.i] !== 34) return false;
    if (this.m === this.mStart.length) {
      this.mStart = grow(this.mStart);
      this.mEnd = grow(this.mEnd);
      this.kStart = grow(this.kStart);
      this.kEnd = grow(this.kEnd);
      this.kInSrc = grow(this.kInSrc);
      this.kFlags = grow(this.kFlags);
      const prefix = new Uint32Array(this.kPrefix.length * 2);
      prefix.set(this.kPrefix);
      this.kPrefix = prefix;
    }
    const slot = this.m++;
    this.mStart[slot] = this.o + this.i - this.from;
    if (!this.string(slot)) return false;
    const text = this.kInSrc[slot] === 1 ? this.src : this.buf;
    const at = this.kStart[slot] as number;
    const len = (this.kEnd[slot] as number) - at;
    // Keys hold no raw NUL (control characters are escaped), so zero padding sorts short keys first.
    this.kPrefix[slot] =
      ((len > 0 ? (text[at] as number) : 0) * 0x1000000 +
        (len > 1 ? (text[at + 1] as number) : 0) * 0x10000 +
        (len > 2 ? (text[at + 2] as number) : 0) * 0x100 +
        (len > 3 ? (text[at + 3] as number) : 0)) >>>
      0;
    this.skipWs();
    if (this.src[this.i] !== 58) return false;
    this.i++;
    this.skipWs();
    if (this.depth === 1) this.topStarts[slot] = this.i;
    return true;
  }

  /**
   * Handles the string at src[i] === '"'. For a key (`slot` >= 0) records where its canonical
   * text is and its flags.
   */
  private string(slot: number): boolean {
    const src = this.src;
    const n = this.n;
    const start = this.i + 1;
    const view = this.view;
    const base = this.viewBase;
    let k = start;
    let flags = 0;
    // Scan in JavaScript up to the closing quote, a backslash or a raw control byte (rejected):
    // most strings are short, and a native search per string (or per byte class) costs more.
    for (;;) {
      // Four bytes at a time while none of them stops the scan ("Bit Twiddling Hacks": for t <= 0x80,
      // `(x - t * 0x01010101) & ~x & 0x80808080` is non-zero iff some byte of x is below t; a quote
      // or backslash byte is a zero byte of `v ^ 0x22222222` or `v ^ 0x5c5c5c5c`).
      while (k + 4 <= n) {
        const v = view.getInt32(base + k);
        const q = v ^ 0x22222222;
        const b = v ^ 0x5c5c5c5c;
        if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((v - 0x20202020) & ~v)) & 0x80808080) break;
        k += 4;
      }
      // Then byte by byte to the stop. The `k < n` bound (not a read past the end) keeps this loop
      // fast.
      for (; k < n; k++) {
        const c = src[k] as number;
        if (c === 34 || c === 92 || c < 0x20) break;
      }
      const c = src[k];
      if (c === 34) break;
      if (c !== 92) return false;
      // The escapes JSON.stringify also writes (\n, \", \u001f, …) leave the string canonical;
      // \/ and other \u escapes need rewriting.
      const e = src[k + 1];
      if (e === 110 || e === 34 || e === 92 || e === 116 || e === 114 || e === 98 || e === 102) k += 2;
      else if (e === 117 && isCanonicalControlEscape(src, k)) k += 6;
      else {
        this.flush();
        return this.escapedString(slot);
      }
      flags = ESCAPED;
    }
    if (slot >= 0) this.keyInSrc(slot, start, k, flags);
    this.i = k + 1;
    return true;
  }

  /** Records a key whose canonical text is `src[start, end)`. */
  private keyInSrc(slot: number, start: number, end: number, flags: number): void {
    const src = this.src;
    if (this.jcs) for (let k = start; k < end; k++) if ((src[k] as number) >= 0xee) flags |= HIGH;
    this.kStart[slot] = start;
    this.kEnd[slot] = end;
    this.kInSrc[slot] = 1;
    this.kFlags[slot] = flags;
  }

  /** Writes the string at src[i] === '"', which holds escapes, in canonical form. */
  // Long because: the byte loop of every escaped string, one state machine over one escape at a time; the
  // position and output cursor stay in locals, which a call per escape kind would write back to the object.
  private escapedString(slot: number): boolean {
    const src = this.src;
    const n = this.n;
    // A canonical string is never longer than its source text.
    this.ensure(n - this.i);
    const buf = this.buf;
    let i = this.i + 1;
    let o = this.o;
    let flags = 0;
    buf[o++] = 34;
    const textStart = o;
    for (;;) {
      // Copy the plain run up to the next backslash or closing quote. HIGH matters only for jcs
      // keys but costs nothing to track.
      for (; i < n; i++) {
        const c = src[i] as number;
        if (c === 34 || c === 92 || c < 0x20) break;
        if (c >= 0xee) flags |= HIGH;
        buf[o++] = c;
      }
      const c = src[i];
      if (c === 34) break;
      if (c !== 92) return false;
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
    if (slot >= 0) {
      this.kStart[slot] = textStart;
      this.kEnd[slot] = o;
      this.kInSrc[slot] = 0;
      this.kFlags[slot] = flags;
    }
    buf[o++] = 34;
    this.i = i + 1;
    this.from = this.i;
    this.o = o;
    return true;
  }

  /**
   * Puts the slots of the `count` members from `base` in key order into `order`; whether they were
   * in order already, undefined on a duplicate key. An insertion sort: objects are small, it needs
   * no comparator closure, and on members already in order it makes the one comparison per pair
   * that checking sortedness would.
   */
  private insertionOrder(base: number, count: number): boolean | undefined {
    const order = this.order;
    let sorted = true;
    for (let k = 0; k < count; k++) {
      const slot = base + k;
      let x = k - 1;
      while (x >= 0) {
        const cmp = this.compare(order[x] as number, slot);
        if (cmp === 0) return undefined;
        if (cmp < 0) break;
        order[x + 1] = order[x] as number;
        x--;
      }
      if (x !== k - 1) sorted = false;
      order[x + 1] = slot;
    }
    return sorted;
  }

  /**
   * `insertionOrder` for a large object, by the engine's sort: an insertion sort moves each member
   * past all those before it, and an object of 60,000 members out of order took seconds.
   */
  private mergeOrder(base: number, count: number): boolean | undefined {
    const order = this.order.subarray(0, count);
    for (let k = 0; k < count; k++) order[k] = base + k;
    order.sort((a, b) => this.compare(a, b));
    let sorted = order[0] === base;
    for (let k = 1; k < count; k++) {
      if (this.compare(order[k - 1] as number, order[k] as number) === 0) return undefined;
      if (order[k] !== base + k) sorted = false;
    }
    return sorted;
  }

  /** Orders the members from slot `base` on by key; false on a duplicate key. */
  private closeObject(base: number): boolean {
    const count = this.m - base;
    this.m = base;
    const top = this.depth === 0 ? this.members : null;
    if (count < 2 && top === null) return true;
    if (this.order.length < count) this.order = new Int32Array(count * 2);
    const sorted = count <= SMALL_OBJECT ? this.insertionOrder(base, count) : this.mergeOrder(base, count);
    if (sorted === undefined) return false;
    if (this.check) return true;
    if (top !== null) {
      // The caller wants the member values, not the top-level object itself: leave its members
      // where they are (their values are canonical) and skip moving every byte of the line.
      this.recordMembers(top, count);
      return true;
    }
    if (sorted) return true;
    const from = this.mStart[base] as number;
    const to = this.mEnd[base + count - 1] as number;
    // Write out what precedes the object if it is still pending, so the object starts the pending
    // span or is partly written.
    if (this.o < from) {
      const len = from - this.o;
      this.ensure(len);
      copy(this.src, this.from, this.from + len, this.buf, this.o);
      this.from += len;
      this.o = from;
    }
    // Assemble the members in order. When none of the object is written yet, its bytes are all in
    // src and go straight to their place; otherwise they are assembled in the unused output past
    // `to`, then moved into place (copyWithin, unlike a copy from another buffer, makes no view).
    const inPlace = this.o === from;
    this.ensure(to - this.o + (inPlace ? 0 : to - from));
    const buf = this.buf;
    let w = inPlace ? from : to;
    const order = this.order;
    for (let k = 0; k < count; k++) {
      const slot = order[k] as number;
      if (k > 0) buf[w++] = 44;
      w = this.copyLogical(w, this.mStart[slot] as number, this.mEnd[slot] as number);
    }
    if (!inPlace) buf.copyWithin(from, to, w);
    this.from = this.i;
    this.o = to;
    return true;
  }

  /** Where each member value of the top-level object is in the output, keys in sorted order. */
  private recordMembers(top: TopLevelMembers, count: number): void {
    const { keys, starts, ends, sourceStarts, sourceEnds } = top;
    for (let k = 0; k < count; k++) {
      const slot = this.order[k] as number;
      const text = this.kInSrc[slot] === 1 ? this.src : this.buf;
      const ks = this.kStart[slot] as number;
      const ke = this.kEnd[slot] as number;
      keys[k] =
        (this.kFlags[slot] as number) & ESCAPED
          ? (JSON.parse(`"${text.toString("utf8", ks, ke)}"`) as string)
          : this.names.text(text, ks, ke, this.kPrefix[slot] as number);
      // Member text is `"key":value`; the key's canonical text is its bytes plus two quotes.
      starts[k] = (this.mStart[slot] as number) + (ke - ks) + 3;
      ends[k] = this.mEnd[slot] as number;
      if (sourceStarts !== undefined) sourceStarts[k] = this.topStarts[slot] as number;
      if (sourceEnds !== undefined) sourceEnds[k] = this.topEnds[slot] as number;
    }
    truncateMembers(top, count);
    this.membersRecorded = true;
  }

  /** Copies logical output bytes [start, end) (written, or still pending in src) to the output at w. */
  private copyLogical(w: number, start: number, end: number): number {
    const o = this.o;
    const buf = this.buf;
    if (start < o) {
      const stop = Math.min(end, o);
      // copyWithin makes no view, so it beats a byte loop sooner than `copy` does.
      if (stop - start > 12) buf.copyWithin(w, start, stop);
      else for (let x = start; x < stop; x++) buf[w + x - start] = buf[x] as number;
      w += stop - start;
    }
    if (end > o) {
      const s0 = this.from + (Math.max(start, o) - o);
      const s1 = this.from + (end - o);
      copy(this.src, s0, s1, buf, w);
      w += s1 - s0;
    }
    return w;
  }

  /** Compares two member keys in the profile's order, from their canonical bytes. */
  private compare(a: number, b: number): number {
    const flags = (this.kFlags[a] as number) | (this.kFlags[b] as number);
    const ta = this.kInSrc[a] === 1 ? this.src : this.buf;
    const tb = this.kInSrc[b] === 1 ? this.src : this.buf;
    const sa = this.kStart[a] as number;
    const ea = this.kEnd[a] as number;
    const sb = this.kStart[b] as number;
    const eb = this.kEnd[b] as number;
    if ((flags & ESCAPED) !== 0 || (this.jcs && (flags & HIGH) !== 0)) {
      const ka = JSON.parse(`"${ta.toString("utf8", sa, ea)}"`) as string;
      const kb = JSON.parse(`"${tb.toString("utf8", sb, eb)}"`) as string;
      if (ka === kb) return 0;
      return this.jcs ? (ka < kb ? -1 : 1) : compareCodePoints(ka, kb);
    }
    // UTF-8 byte order is code-point order, and equals UTF-16 order below U+E000.
    const pa = this.kPrefix[a] as number;
    const pb = this.kPrefix[b] as number;
    if (pa !== pb) return pa < pb ? -1 : 1;
    const la = ea - sa;
    const lb = eb - sb;
    const len = Math.min(la, lb);
    for (let k = 4; k < len; k++) {
      const x = ta[sa + k] as number;
      const y = tb[sb + k] as number;
      if (x !== y) return x - y;
    }
    return la - lb;
  }
}

/**
 * `new ByteCanonicalizer().canonicalize(…)`, for a caller with one text to canonicalize; a caller
 * with many (a line reader) keeps its own `ByteCanonicalizer`.
 */
export function canonicalizeBytes(
  src: Buffer,
  profile: ByteProfile,
  out: ByteSink,
  options: DocumentOptions = {},
): boolean {
  return new ByteCanonicalizer().canonicalize(src, profile, out, options);
}

/**
 * Cuts `members`' lists to `count` entries: from one line to the next they shrink by a few
 * entries, which keeps their backing stores (V8 frees a list's store only when it shrinks a lot).
 */
function truncateMembers(members: TopLevelMembers, count: number): void {
  if (members.keys.length === count) return;
  members.keys.length = count;
  members.starts.length = count;
  members.ends.length = count;
  if (members.sourceStarts !== undefined) members.sourceStarts.length = count;
  if (members.sourceEnds !== undefined) members.sourceEnds.length = count;
}
