import { hash as nodeHash } from "node:crypto";
import { ByteSink, canonicalizeBytes, type TopLevelMembers } from "./byte-canonical.js";
import { DEFAULT_MAX_DEPTH, readJson } from "./json-reader.js";
import { JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";

/**
 * The fast read of one JSON Lines event: the byte canonicalizer validates the whole line (any
 * doubt sends the caller to the lossless reader, which reports the exact error) and tells where
 * each top-level member's canonical value is. Small members are read; large `lazy` members that
 * are objects or arrays are hashed from those bytes and passed on as empty placeholders of their
 * JSON type. On worker threads (`../parallel/line-pool.ts`) the result crosses to the calling
 * thread by structured clone, which keeps plain data only: `boxNumbers` and `unboxNumbers` carry
 * the `JsonNumber`s across.
 */

/** One line read by `readShallow`. */
export interface ShallowLine {
  /** The event, with lazy containers as `{}` or `[]`. */
  value: JsonObject;
  /** openagents `sha256:` hash of each lazy member's canonical value, by name (scalars too). */
  hashes: Map<string, string>;
}

const sink = new ByteSink(1 << 16);
const members: TopLevelMembers = { keys: [], starts: [], ends: [] };

/** `sha256:<hex>` of bytes, with the one-shot hash (no Hash object per value). */
function tag(bytes: Uint8Array): string {
  return `sha256:${nodeHash("sha256", bytes, "hex")}`;
}

/** One line's members as `splitLine` read them, before `materialize`. */
export interface SplitLine {
  /** Member names in canonical order. */
  keys: string[];
  /** Per member: 0 for a value in `texts`, 1 for a lazy object, 2 for a lazy array. */
  kinds: number[];
  /** Per member: the canonical value's text (empty for lazy containers). */
  texts: string[];
  /** openagents `sha256:` hash of each lazy member's canonical value, by name (scalars too). */
  hashes: Map<string, string>;
}

/**
 * The byte half of `readShallow`: undefined when the line is not a well-formed JSON object the
 * fast path accepts (the caller then reads it with `readJson` for the exact error or value).
 */
export function splitLine(bytes: Buffer, lazy: ReadonlySet<string>): SplitLine | undefined {
  sink.len = 0;
  if (!canonicalizeBytes(bytes, "openagents", sink, DEFAULT_MAX_DEPTH, members)) return undefined;
  const buf = sink.buf;
  if (buf[0] !== 0x7b) return undefined;
  const { keys, starts, ends } = members;
  const kinds: number[] = [];
  const texts: string[] = [];
  const hashes = new Map<string, string>();
  for (let k = 0; k < keys.length; k++) {
    const start = starts[k] as number;
    const end = ends[k] as number;
    const first = buf[start];
    if (lazy.has(keys[k] as string)) {
      hashes.set(keys[k] as string, tag(buf.subarray(start, end)));
      if (first === 0x7b || first === 0x5b) {
        kinds.push(first === 0x7b ? 1 : 2);
        texts.push("");
        continue;
      }
    }
    kinds.push(0);
    texts.push(buf.toString("utf8", start, end));
  }
  return { keys: keys.slice(), kinds, texts, hashes };
}

/** The event object of a `SplitLine`: small members read, lazy containers as `{}` or `[]`. */
export function materialize(split: SplitLine): JsonObject {
  const value: JsonObject = {};
  const { keys, kinds, texts } = split;
  for (let k = 0; k < keys.length; k++) {
    const kind = kinds[k];
    setMember(
      value,
      keys[k] as string,
      kind === 1 ? {} : kind === 2 ? [] : readCanonical(texts[k] as string),
    );
  }
  return value;
}

/** The fast read of one line; undefined when the line needs the lossless reader. */
export function readShallow(bytes: Buffer, lazy: ReadonlySet<string>): ShallowLine | undefined {
  const split = splitLine(bytes, lazy);
  return split === undefined ? undefined : { value: materialize(split), hashes: split.hashes };
}

/**
 * Replaces every `JsonNumber` in `value` by a `String` object holding its text, in place: boxed
 * strings survive structured cloning and never occur in JSON values, so `unboxNumbers` can tell
 * them apart from real strings.
 */
export function boxNumbers(value: JsonValue): JsonValue {
  return mapNumbers(value, (n) => new String((n as JsonNumber).text) as unknown as JsonValue);
}

/** Undoes `boxNumbers` on a structured clone, in place. */
export function unboxNumbers(value: JsonValue): JsonValue {
  return mapNumbers(value, (n) => new JsonNumber(String(n)));
}

/** `value` with `f` applied to each number (JsonNumber or boxed), in place. */
function mapNumbers(value: JsonValue, f: (n: object) => JsonValue): JsonValue {
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof JsonNumber || value instanceof String) return f(value);
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) value[k] = mapNumbers(value[k] as JsonValue, f);
    return value;
  }
  for (const key of Object.keys(value)) {
    const v = value[key] as JsonValue;
    if (typeof v === "object" && v !== null) setMember(value, key, mapNumbers(v, f));
  }
  return value;
}

/** One canonical value, read without the full reader where its first character says what it is. */
function readCanonical(text: string): JsonValue {
  const first = text.charCodeAt(0);
  // Canonical text is valid JSON: a string's JSON.parse is exact, a number keeps its text.
  if (first === 0x22) return JSON.parse(text) as string;
  if (first === 0x2d || (first >= 0x30 && first <= 0x39)) return new JsonNumber(text);
  if (first === 0x74) return true;
  if (first === 0x66) return false;
  if (first === 0x6e) return null;
  return readJson(text);
}
