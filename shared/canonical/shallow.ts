import { ByteSink, canonicalizeBytes, type TopLevelMembers } from "./byte-canonical.js";
import { sha256Tag } from "./hash.js";
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

let sink = new ByteSink(1 << 16);
const members: TopLevelMembers = { keys: [], starts: [], ends: [] };

/** The fast read of one line; undefined when the line needs the lossless reader. */
export function readShallow(bytes: Buffer, lazy: ReadonlySet<string>): ShallowLine | undefined {
  // Do not keep a buffer the size of one huge line.
  if (sink.buf.length > 1 << 24) sink = new ByteSink(1 << 16);
  sink.len = 0;
  if (!canonicalizeBytes(bytes, "openagents", sink, DEFAULT_MAX_DEPTH, members)) return undefined;
  const buf = sink.buf;
  if (buf[0] !== 0x7b) return undefined;
  const value: JsonObject = {};
  const hashes = new Map<string, string>();
  const { keys, starts, ends } = members;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const start = starts[k] as number;
    const end = ends[k] as number;
    const first = buf[start];
    if (lazy.has(key)) {
      hashes.set(key, sha256Tag(buf.subarray(start, end)));
      if (first === 0x7b || first === 0x5b) {
        setMember(value, key, first === 0x7b ? {} : []);
        continue;
      }
    }
    setMember(value, key, readCanonical(buf.toString("utf8", start, end)));
  }
  return { value, hashes };
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
