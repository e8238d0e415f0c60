import { LOWER_F, LOWER_N, LOWER_T, OPEN_BRACE, OPEN_BRACKET, QUOTE, startsNumber } from "../bytes.js";
import { remembered } from "../memo.js";
import { ByteCanonicalizer, ByteSink, type TopLevelMembers } from "./byte-canonical.js";
import { sha256Tag } from "./hash.js";
import { DEFAULT_MAX_DEPTH, readJson } from "./json-reader.js";
import { JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";
import { RecentTexts } from "./recent-texts.js";

/**
 * The fast read of one JSON Lines event in two halves. `splitInto` does the byte work: the byte
 * canonicalizer validates the whole line (any doubt sends the caller to the lossless reader, which
 * reports the exact error) and tells where each top-level member's canonical value is; `lazy`
 * members (large tool inputs and outputs) are hashed from those bytes. `readView` turns that into
 * the event object, lazy objects and arrays as empty placeholders of their JSON type, and
 * `readSplit` into the object Layer C reads. On worker threads the split goes to the reading
 * thread as wire text instead (`../parallel/split-task.ts`).
 */

/** One line as `splitLine` read it, for a reader. */
export interface SplitLine {
  /** The event object, members in canonical order, lazy containers as `{}` or `[]`. */
  value: JsonObject;
  /** openagents `sha256:` hash of each lazy member's canonical value, by name (scalars too). */
  hashes: MemberHashes;
}

/** Hashes by member name, as a plain object (read them with `hashOf`). */
export type MemberHashes = Readonly<Record<string, string>>;

/** The hash `hashes` holds for member `name`, if any (never one an object inherits). */
export function hashOf(hashes: MemberHashes | undefined, name: string): string | undefined {
  return hashes !== undefined && Object.hasOwn(hashes, name) ? hashes[name] : undefined;
}

/**
 * A line reader's split of its latest line, and the working space that makes it (owned by the
 * reader, one per read, never shared): the canonicalizer's output buffer, holding each top-level
 * member's canonical value at `members.starts`/`ends`, and where each value is in the line
 * (`members.sourceStarts`/`sourceEnds`), for a second reader of the same line (Layer C cuts
 * members out of it rather than scan it again). Each `splitInto` with this view replaces them.
 */
export class SplitView {
  /** The canonical bytes of the latest split (a view of `sink`'s buffer). */
  buf: Buffer = Buffer.alloc(0);
  readonly members: Required<TopLevelMembers> = {
    keys: [],
    starts: [],
    ends: [],
    sourceStarts: [],
    sourceEnds: [],
  };
  /** The split's lazy members' hashes (`SplitLine.hashes`). */
  hashes: MemberHashes = {};
  /**
   * The member values `readView` read from this split, by slot (undefined for a lazy container's
   * placeholder), so a second reader of the line (Layer C) decodes none of them again. Valid
   * while `valuesRead` is true: each split clears it.
   */
  readonly values: (JsonValue | undefined)[] = [];
  valuesRead = false;
  /** `inputOrder`'s answer, reused from line to line. */
  order = new Int32Array(64);
  readonly sink = new ByteSink(1 << 16);
  readonly canonicalizer = new ByteCanonicalizer();
  /** String values of recent lines (see `RecentTexts`). */
  readonly texts = new RecentTexts();
}

/**
 * The byte half: canonicalizes the line and hashes its lazy members into `view`; false when the
 * line needs the lossless reader.
 */
export function splitInto(bytes: Buffer, lazy: ReadonlySet<string>, view: SplitView): boolean {
  const { sink, members } = view;
  sink.clear();
  view.valuesRead = false;
  if (!view.canonicalizer.canonicalize(bytes, "openagents", sink, { maxDepth: DEFAULT_MAX_DEPTH, members }))
    return false;
  const buf = sink.buf;
  if (buf[0] !== OPEN_BRACE) return false;
  const hashes: Record<string, string> = {};
  const { keys, starts, ends } = members;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    if (lazy.has(key))
      setMember(hashes, key, sha256Tag(buf.subarray(starts[k] as number, ends[k] as number)));
  }
  view.buf = buf;
  view.hashes = hashes;
  return true;
}

/**
 * `splitInto`, then the line read from `view` (`readView`); undefined when the line needs the
 * lossless reader.
 */
export function splitLine(
  bytes: Buffer,
  lazy: ReadonlySet<string>,
  view: SplitView = new SplitView(),
): SplitLine | undefined {
  if (!splitInto(bytes, lazy, view)) return undefined;
  return { value: readView(view, lazy), hashes: view.hashes };
}

/** The event object of a split line: members in canonical order, lazy containers as `{}` or `[]`. */
function readView(view: SplitView, lazy: ReadonlySet<string>): JsonObject {
  const value: JsonObject = {};
  const { keys, starts, ends } = view.members;
  const { buf, values, texts } = view;
  // Only grown: its entries past the line's members are never read.
  if (values.length < keys.length) values.length = keys.length;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const start = starts[k] as number;
    const open = buf[start];
    if ((open === OPEN_BRACE || open === OPEN_BRACKET) && lazy.has(key)) {
      setMember(value, key, open === OPEN_BRACE ? {} : []);
      values[k] = undefined;
    } else {
      const member = valueAt(buf, start, ends[k] as number, texts);
      setMember(value, key, member);
      values[k] = member;
    }
  }
  view.valuesRead = true;
  return value;
}

/**
 * The value of `view`'s member in slot `k`: the one `readView` read when it did (the same object:
 * its readers only read it), else read from the canonical bytes.
 */
export function memberValue(view: SplitView, k: number): JsonValue {
  const read = view.valuesRead ? view.values[k] : undefined;
  return read !== undefined
    ? read
    : valueAt(view.buf, view.members.starts[k] as number, view.members.ends[k] as number, view.texts);
}

/** A member's name as JSON, and the colon after it: the same few names come on every line. */
export const nameBytes = remembered((key: string): Buffer => Buffer.from(`${JSON.stringify(key)}:`));

/** The canonical value at `buf[start, end)`, a short string from `texts` when it is there. */
function valueAt(buf: Buffer, start: number, end: number, texts?: RecentTexts): JsonValue {
  if (buf[start] === QUOTE) {
    // A string without escapes is its text between the quotes: decoded once, with no copy.
    const inner =
      texts === undefined
        ? buf.toString("utf8", start + 1, end - 1)
        : texts.text(
            buf,
            start + 1,
            end - 1,
            (buf[start + 1] as number) * 0x10000 + (buf[end - 2] as number),
          );
    if (!inner.includes("\\")) return inner;
  }
  // Canonical text: its first byte tells a literal, with no text to decode.
  const first = buf[start];
  if (first === LOWER_T) return true;
  if (first === LOWER_F) return false;
  if (first === LOWER_N) return null;
  return readCanonical(buf.toString("utf8", start, end));
}

/**
 * One canonical value other than a literal, read without the full reader where its first
 * character says what it is.
 */
function readCanonical(text: string): JsonValue {
  const first = text.charCodeAt(0);
  // Canonical text is valid JSON: a string's JSON.parse is exact, a number keeps its text.
  if (first === QUOTE) return JSON.parse(text) as string;
  if (startsNumber(first)) return new JsonNumber(text);
  if (first === OPEN_BRACKET && !text.includes("\\")) {
    // An array of strings and literals (`side_effects`, labels) without escapes: JSON.parse reads
    // it exactly, at a fraction of the lossless reader's cost per call. Numbers and containers
    // (whose number text or member order JSON.parse would lose) go to the lossless reader.
    const items = JSON.parse(text) as unknown[];
    if (items.every(isStringOrLiteral)) return items as JsonValue[];
  }
  return readJson(text);
}

/** True for a string, `true`, `false` or `null`: what JSON.parse reads as the lossless reader does. */
function isStringOrLiteral(item: unknown): boolean {
  return typeof item === "string" || typeof item === "boolean" || item === null;
}

/**
 * The slots of `view`'s members (listed in canonical order) in the line's own order, in the
 * view's `order` array: the view's next split replaces it. An insertion sort: a line has a few
 * members, often in order already (the engine's sort past 32, where it would be quadratic).
 */
export function inputOrder(view: SplitView): Int32Array {
  const { sourceStarts } = view.members;
  const n = view.members.keys.length;
  if (view.order.length < n) view.order = new Int32Array(2 * n);
  const order = view.order;
  if (n > 32) {
    const slots = order.subarray(0, n);
    for (let k = 0; k < n; k++) slots[k] = k;
    slots.sort((a, b) => (sourceStarts[a] as number) - (sourceStarts[b] as number));
    return order;
  }
  for (let k = 0; k < n; k++) {
    const at = sourceStarts[k] as number;
    let x = k - 1;
    while (x >= 0 && (sourceStarts[order[x] as number] as number) > at) {
      order[x + 1] = order[x] as number;
      x--;
    }
    order[x + 1] = k;
  }
  return order;
}

/**
 * The object a split line reads as, by `readJson`'s rules, from its canonical members alone (no
 * second scan of the line): members set in input order, as `readJson` sets them, each value read
 * from its canonical text, and each member named in `cut` whose value is an object or array as an
 * empty one of its type. Undefined, and the caller reads the line itself, where the canonical text
 * cannot show the input order: an object not cut (its members are in canonical order there), or
 * an array that may hold one. Numbers keep their canonical text, which canonicalizes to itself.
 */
export function readSplit(view: SplitView, cut: ReadonlySet<string>): JsonObject | undefined {
  const { keys, starts, ends } = view.members;
  const buf = view.buf;
  const n = keys.length;
  const order = inputOrder(view);
  const value: JsonObject = {};
  for (let o = 0; o < n; o++) {
    const k = order[o] as number;
    const key = keys[k] as string;
    const start = starts[k] as number;
    const end = ends[k] as number;
    const open = buf[start];
    if (open === OPEN_BRACE || open === OPEN_BRACKET) {
      if (cut.has(key)) {
        setMember(value, key, open === OPEN_BRACE ? {} : []);
        continue;
      }
      if (open === OPEN_BRACE || holds(buf, OPEN_BRACE, start, end)) return undefined;
    }
    setMember(value, key, valueAt(buf, start, end));
  }
  return value;
}

/** True when `buf[start, end)` holds `byte` (a loop: `indexOf` would search to the buffer's end). */
function holds(buf: Buffer, byte: number, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] === byte) return true;
  return false;
}
