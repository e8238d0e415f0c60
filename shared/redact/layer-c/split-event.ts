/**
 * Layer C of a REPLAY event straight from its split line (`splitInto`): each member goes through
 * `redactMember` and `Context.removeRaw`'s counting exactly as the object path sends it, in the
 * line's own member order, but a member kept unchanged is written as the canonical bytes the split
 * already holds. The common event thus costs neither an event object nor a second serialization.
 */

import {
  CLOSE_BRACE,
  COMMA,
  DIGIT_0,
  DIGIT_9,
  LF,
  LOWER_A,
  LOWER_F,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "../../bytes.js";
import {
  type ByteSink,
  canonicalize,
  compareCodePoints,
  hashOf,
  inputOrder,
  type JsonValue,
  memberValue,
  nameBytes,
  type SplitView,
  sha256Tag,
} from "../../canonical/index.js";
import type { ReplayEventFields } from "../../formats/index.js";
import type { Context } from "./context.js";
import { child, isHashKey, isVerbatimKey, RAW_KEYS } from "./policy.js";
import { type ObjectRules, redactMember } from "./transform.js";

/** `SplitEventWriter.redact`'s answers: not written (the caller takes the object path), written, written and a ReplayHeader. */
export const NOT_WRITTEN = 0;
/** See `NOT_WRITTEN`. */
export const WRITTEN = 1;
/** See `NOT_WRITTEN`. */
export const WRITTEN_HEADER = 2;

/** What a member's name alone decides under one type's rules (`nameBits`). */
const RAW = 1;
/** A known member whose name is kept verbatim (see `redactMember`'s first rule). */
const VERBATIM = 2;
/** A hash-like name (`isHashKey`). */
const HASH = 4;
/** A raw member whose `<name>_hash` the line holds (none is added). */
const HASHED = 8;

/** `RAW`, `VERBATIM`, `HASH` and `HASHED` of member `key` of a line named `keys`, under `rules`. */
function nameBits(key: string, rules: ObjectRules, keys: readonly string[]): number {
  const raw = RAW_KEYS.has(key);
  return (
    (raw ? RAW : 0) |
    (raw && keys.includes(`${key}_hash`) ? HASHED : 0) |
    (rules.known?.has(key) === true && isVerbatimKey(key) ? VERBATIM : 0) |
    (isHashKey(key) ? HASH : 0)
  );
}

/** The names of a type's latest line, each one's `nameBits` and its `nameBytes`. */
interface LineNames {
  keys: string[];
  bits: Uint8Array;
  labels: Buffer[];
}

/** True when `kept` is `value` as read, or an array of its very elements. */
function sameValue(kept: JsonValue, value: JsonValue): boolean {
  if (kept === value) return true;
  if (!Array.isArray(kept) || !Array.isArray(value) || kept.length !== value.length) return false;
  for (let k = 0; k < kept.length; k++) if (kept[k] !== value[k]) return false;
  return true;
}

/**
 * Writes Layer C lines of REPLAY events from their splits. One per line reader (its fields are the
 * working state of the line being written, reused from line to line): what is kept of each
 * member under its own name (by slot: the member's slot when its bytes are written as they are,
 * else the canonical text kept); and whether anything is kept under another name (a scrubbed
 * name, an added hash), in which case `sequence` lists every name and value kept, in the order the
 * object path sets them.
 */
export class SplitEventWriter {
  private slots: (number | string | undefined)[] = [];
  private renamed = false;
  private readonly sequence: (number | string)[] = [];
  /**
   * The length of `sequence` for this line: the list itself is never emptied, since emptying it
   * freed its backing store, to be allocated again as the next line fills it.
   */
  private sequenced = 0;
  /** The member `redactMember` is deciding on: its slot, value and name. */
  private member = 0;
  private memberValue: JsonValue = null;
  private memberKey = "";
  /**
   * Per known type's rules, its latest line's names: the lines of a type repeat the same names (the
   * same strings, from the split's recent names), so what the names decide is reused, not looked up
   * again member by member.
   */
  private readonly names = new Map<ObjectRules, LineNames>();
  /** The names of the line being written; undefined for an unknown type. */
  private lineNames: LineNames | undefined;

  /** Keeps a member for the copy (see `slots`); `redactMember`'s callback, made once. */
  private readonly keep = (name: string, value: JsonValue, verbatim: boolean): void => {
    const kept =
      verbatim || sameValue(value, this.memberValue) ? this.member : canonicalize(value, "openagents");
    this.sequence[this.sequenced++] = name;
    this.sequence[this.sequenced++] = kept;
    if (name === this.memberKey) this.slots[this.member] = kept;
    else this.renamed = true;
  };

  /**
   * Writes the Layer C line of the REPLAY event `view` holds (canonical, with its final `\n`) into
   * `out`, counting into `ctx` what `redactReplayEvent` would count for it. `NOT_WRITTEN`, with
   * nothing written or counted, for a line this path does not take: `paranoid` (whose structural
   * walk reads nested values), or a member that is an object or an array holding containers but not
   * a raw one (the split has those in canonical order, not the line's).
   */
  redact(view: SplitView, ctx: Context, fields: ReplayEventFields, out: ByteSink): number {
    if (ctx.paranoid) return NOT_WRITTEN;
    const { keys, starts, ends } = view.members;
    const buf = view.buf;
    const n = keys.length;
    if (this.slots.length < n) this.slots = new Array<number | string | undefined>(2 * n);
    const { slots } = this;
    let type: JsonValue | undefined;
    for (let k = 0; k < n; k++) {
      const key = keys[k] as string;
      if (RAW_KEYS.has(key)) continue;
      const start = starts[k] as number;
      const end = ends[k] as number;
      const open = buf[start];
      if (open === OPEN_BRACE) return NOT_WRITTEN;
      if (open === OPEN_BRACKET && holdsBracket(buf, start + 1, end)) return NOT_WRITTEN;
      if (key === fields.typeKey) type = memberValue(view, k);
    }
    const known = typeof type === "string" ? fields.byType.get(type) : undefined;
    const rules: ObjectRules = known ?? { allow: ctx.allow };
    const names = known === undefined ? undefined : this.namesOf(known, keys);
    this.lineNames = names;
    // The line's member order: it decides the counts' key order, and which of two names that scrub
    // alike is written.
    const order = inputOrder(view);
    // A loop: `fill` is a builtin call that costs more than a line's few slots.
    for (let k = 0; k < n; k++) slots[k] = undefined;
    this.sequenced = 0;
    this.renamed = false;
    for (let o = 0; o < n; o++) {
      const k = order[o] as number;
      const key = keys[k] as string;
      const bits = names === undefined ? nameBits(key, rules, keys) : (names.bits[k] as number);
      if ((bits & RAW) !== 0) {
        ctx.drop(child("$", key), "layer_c.raw_removed");
        if ((bits & HASHED) !== 0) continue;
        const hash =
          hashOf(view.hashes, key) ?? sha256Tag(buf.subarray(starts[k] as number, ends[k] as number));
        this.sequence[this.sequenced++] = ctx.hashAdded(key, "$");
        this.sequence[this.sequenced++] = `"${hash}"`;
        this.renamed = true;
        continue;
      }
      const start = starts[k] as number;
      const end = ends[k] as number;
      // `redactMember`'s first rule, read on the bytes: a known verbatim member holding one scalar
      // (a hash under a hash name) is kept as it is, with nothing counted.
      if ((bits & VERBATIM) !== 0 && verbatimScalar(buf, start, end, (bits & HASH) !== 0)) {
        this.sequence[this.sequenced++] = key;
        this.sequence[this.sequenced++] = k;
        slots[k] = k;
        continue;
      }
      this.member = k;
      this.memberKey = key;
      this.memberValue = memberValue(view, k);
      redactMember(key, this.memberValue, "$", ctx, rules, this.keep);
    }
    this.write(view, out);
    return type === "ReplayHeader" ? WRITTEN_HEADER : WRITTEN;
  }

  /** `rules`' entry of `names`, made again when the line's names are not its latest line's. */
  private namesOf(rules: ObjectRules, keys: readonly string[]): LineNames {
    let names = this.names.get(rules);
    const n = keys.length;
    let same = names !== undefined && names.keys.length === n;
    for (let k = 0; same && k < n; k++) same = names?.keys[k] === keys[k];
    if (names === undefined || !same) {
      names = {
        keys: keys.slice(),
        bits: Uint8Array.from(keys, (key) => nameBits(key, rules, keys)),
        labels: keys.map(nameBytes),
      };
      this.names.set(rules, names);
    }
    return names;
  }

  /** The kept members, in code-point order of their names, as a canonical object line. */
  private write(view: SplitView, out: ByteSink): void {
    const { slots, sequence } = this;
    out.reserve(1);
    out.buf[out.len++] = OPEN_BRACE;
    const { keys } = view.members;
    let first = true;
    if (!this.renamed) {
      // Kept under their own names only: the split's member order is the copy's.
      const labels = this.lineNames?.labels;
      for (let k = 0; k < keys.length; k++) {
        const value = slots[k];
        if (value === undefined) continue;
        if (!first) out.buf[out.len++] = COMMA;
        first = false;
        writeMember(
          view,
          out,
          labels === undefined ? nameBytes(keys[k] as string) : (labels[k] as Buffer),
          value,
        );
      }
    } else {
      // As the object path sets them: a later member kept under a name replaces an earlier one.
      const kept = new Map<string, number | string>();
      for (let i = 0; i < this.sequenced; i += 2)
        kept.set(sequence[i] as string, sequence[i + 1] as number | string);
      for (const name of [...kept.keys()].sort(compareCodePoints)) {
        if (!first) out.buf[out.len++] = COMMA;
        first = false;
        writeMember(view, out, nameBytes(name), kept.get(name) as number | string);
      }
    }
    out.reserve(2);
    out.buf[out.len++] = CLOSE_BRACE;
    out.buf[out.len++] = LF;
  }
}

/** `label` (`"name":`, `nameBytes`) and the value: a member's canonical bytes by its slot, or a canonical text. */
function writeMember(view: SplitView, out: ByteSink, label: Buffer, value: number | string): void {
  out.append(label, 0, label.length);
  if (typeof value === "string") out.appendText(value);
  else out.append(view.buf, view.members.starts[value] as number, view.members.ends[value] as number);
  // Room for the comma or closing brace after it.
  out.reserve(1);
}

/** True when `buf[start, end)` holds `{` or `[` (in a string too: a conservative test). */
function holdsBracket(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return true;
  }
  return false;
}

/**
 * 1 at the bytes of a lowercase hex digit: one load per digit where two ranges were four
 * comparisons and their branches (every ToolCall and ToolResult holds a hash of 64).
 */
const LOWER_HEX: Readonly<Uint8Array> = (() => {
  const table = new Uint8Array(256);
  for (let c = DIGIT_0; c <= DIGIT_9; c++) table[c] = 1;
  for (let c = LOWER_A; c <= LOWER_F; c++) table[c] = 1;
  return table;
})();

const SHA256_PREFIX = Buffer.from("sha256:");
const HMAC_PREFIX = Buffer.from("hmac-sha256:");

/**
 * True when the canonical value `buf[start, end)` is a scalar the object path would keep verbatim
 * under a known verbatim name (`isScalarOrScalars` and `verbatimSafe`): a number, `true`, `false`
 * or `null`, or a string, which under a hash name (`hash`) must hold a hash (`HASH_VALUE`). False
 * leaves the member to `redactMember`, which decides on the value itself.
 */
function verbatimScalar(buf: Buffer, start: number, end: number, hash: boolean): boolean {
  const open = buf[start] as number;
  if (open === OPEN_BRACE || open === OPEN_BRACKET) return false;
  if (open !== QUOTE || !hash) return true;
  // `(sha256:|hmac-sha256:)?` and 64 lowercase hex digits, between the quotes.
  let i = start + 1;
  const last = end - 1;
  if (last - i === 64 + 7 && hasPrefix(buf, i, SHA256_PREFIX)) i += 7;
  else if (last - i === 64 + 12 && hasPrefix(buf, i, HMAC_PREFIX)) i += 12;
  if (last - i !== 64) return false;
  // Without a branch per digit (see `isSha256Tag`).
  let hex = 1;
  for (; i < last; i++) hex &= LOWER_HEX[buf[i] as number] as number;
  return hex === 1;
}

/** True when `buf` holds `prefix` at `at` (a loop: `Buffer.compare` is a native call per hash). */
function hasPrefix(buf: Buffer, at: number, prefix: Buffer): boolean {
  for (let k = 0; k < prefix.length; k++) if (buf[at + k] !== prefix[k]) return false;
  return true;
}
