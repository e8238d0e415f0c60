import { ByteSink, canonicalizeBytes, type TopLevelMembers } from "./byte-canonical.js";
import { sha256Tag } from "./hash.js";
import { DEFAULT_MAX_DEPTH, readJson } from "./json-reader.js";
import { JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";

/**
 * The fast read of one JSON Lines event in two halves. `splitLine` does the byte work: the byte
 * canonicalizer validates the whole line (any doubt sends the caller to the lossless reader, which
 * reports the exact error) and tells where each top-level member's canonical value is; large
 * `lazy` members that are objects or arrays are hashed from those bytes, every other member's
 * canonical text is kept. `materialize` turns that into the event object, the lazy members as
 * empty placeholders of their JSON type. The byte half runs on worker threads for large files
 * (`../parallel/line-pool.ts`): its plain strings and numbers cross threads cheaply.
 */

/** One line's members as `splitLine` read them. */
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
 * Where `splitLine` left the line it split, for a second reader of the same line (Layer C cuts
 * members out of it rather than scan it again): the canonicalizer's output buffer, holding each
 * top-level member's canonical value at `members.starts`/`ends`, and where each value is in the
 * line (`members.sourceStarts`/`sourceEnds`). Valid until the next `splitLine` call.
 */
export interface SplitView {
  buf: Buffer;
  members: Required<TopLevelMembers>;
}

let sink = new ByteSink(1 << 16);
const members: Required<TopLevelMembers> = {
  keys: [],
  starts: [],
  ends: [],
  sourceStarts: [],
  sourceEnds: [],
};

/**
 * The byte half; undefined when the line needs the lossless reader. `view`, when given, is
 * pointed at the split line's canonical members (see `SplitView`).
 */
export function splitLine(bytes: Buffer, lazy: ReadonlySet<string>, view?: SplitView): SplitLine | undefined {
  // Do not keep a buffer the size of one huge line.
  if (sink.buf.length > 1 << 24) sink = new ByteSink(1 << 16);
  sink.len = 0;
  if (!canonicalizeBytes(bytes, "openagents", sink, DEFAULT_MAX_DEPTH, members)) return undefined;
  const buf = sink.buf;
  if (buf[0] !== 0x7b) return undefined;
  if (view !== undefined) {
    view.buf = buf;
    view.members = members;
  }
  const { keys, starts, ends } = members;
  const kinds: number[] = [];
  const texts: string[] = [];
  const hashes = new Map<string, string>();
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const start = starts[k] as number;
    const end = ends[k] as number;
    const first = buf[start];
    if (lazy.has(key)) {
      hashes.set(key, sha256Tag(buf.subarray(start, end)));
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
