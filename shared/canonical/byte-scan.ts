/**
 * Byte-level scanning of one JSON object line, without reading it: where strings, values and
 * numbers end, and which top-level members to cut out (`rawContainers`). Layer C's fast read uses
 * it to leave its raw members unread.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  CR,
  LF,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  startsNumber,
  TAB,
} from "../bytes.js";
import type { ByteCanonicalizer, ByteSink } from "./byte-canonical.js";
import { DEFAULT_MAX_DEPTH } from "./json-reader.js";
import { inputOrder, type SplitView } from "./shallow.js";

/** The cut top-level members whose value is an object or array: names, and where the values are. */
export interface RawCuts {
  keys: string[];
  /** Where each value starts in the line, and where it ends (whitespace after it included). */
  starts: number[];
  ends: number[];
  /**
   * Where each value's canonical bytes are in the sink: start and end, in turn; -1 and -1 for a
   * value only checked (`checkValueAt`) because the line seems to carry its hash.
   */
  canonical: number[];
  /** How many member names the line has outside the cut values (strings followed by `:`). */
  names: number;
  /** Where each number outside the cut values starts and ends in the line, in document order. */
  numbers: number[];
}

/**
 * Finds, in document order, the top-level members of the JSON object line `b` named in `cut`
 * whose value is an object or array, and appends each one's openagents canonical bytes to `sink` (false
 * when one does not canonicalize). `cut` maps each name to the quoted name of its hash member
 * (`"params_hash"`): when the line holds that, the value is only checked, not canonicalized.
 * Everything else is only delimited (strings by their unescaped quotes, containers by their
 * brackets): on a malformed line the result means nothing, and the caller must then read the line
 * losslessly. False when the line does not even scan as an object. `canonicalizer` is the
 * caller's, kept from line to line.
 */
export function rawContainers(
  b: Buffer,
  cuts: RawCuts,
  sink: ByteSink,
  cut: ReadonlyMap<string, Buffer>,
  canonicalizer: ByteCanonicalizer,
): boolean {
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_BRACE) return false;
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return true;
  for (;;) {
    if (b[i] !== QUOTE) return false;
    const keyStart = i;
    i = stringEnd(b, i);
    if (i < 0) return false;
    const keyEnd = i;
    i = skipSpace(b, i);
    if (b[i] !== COLON) return false;
    i = skipSpace(b, i + 1);
    cuts.names++;
    const start = i;
    const open = b[i];
    const key = open === OPEN_BRACE || open === OPEN_BRACKET ? memberName(b, keyStart, keyEnd) : "";
    const hashName = cut.get(key);
    if (hashName !== undefined) {
      // A second one is a duplicate name, which the lossless reader reports (and searching the
      // line for its hash again and again would make such a line cost quadratic time).
      if (cuts.keys.includes(key)) return false;
      // The value sits one level down in the line: it may nest one level less. Its canonical bytes
      // are only needed for a hash the line lacks; most lines carry `<key>_hash`, usually last.
      if (b.lastIndexOf(hashName) >= 0) {
        i = canonicalizer.checkValueAt(b, start, "openagents", sink, { maxDepth: DEFAULT_MAX_DEPTH - 1 });
        cuts.canonical.push(-1, -1);
      } else {
        const from = sink.len;
        i = canonicalizer.valueAt(b, start, "openagents", sink, { maxDepth: DEFAULT_MAX_DEPTH - 1 });
        cuts.canonical.push(from, sink.len);
      }
      if (i < 0) return false;
      cuts.keys.push(key);
      cuts.starts.push(start);
      cuts.ends.push(i);
    } else {
      i = valueEnd(b, i, cuts);
      if (i < 0) return false;
    }
    i = skipSpace(b, i);
    if (b[i] === CLOSE_BRACE) return true;
    if (b[i] !== COMMA) return false;
    i = skipSpace(b, i + 1);
  }
}

/**
 * `rawContainers` for a line that `splitLine` has read whole (`view`): the same cuts, names and
 * numbers, but each cut value is taken as the canonicalizer left it (its canonical bytes are at
 * `canonical` in `view.buf`, not in a sink) instead of being scanned again. The values not cut
 * are only delimited, as there. False when a value does not delimit.
 */
export function cutsOfSplit(
  b: Buffer,
  view: SplitView,
  cuts: RawCuts,
  cut: ReadonlyMap<string, Buffer>,
): boolean {
  const { keys, starts, ends, sourceStarts, sourceEnds } = view.members;
  const n = keys.length;
  // The view lists members in canonical order; the cuts go in input order.
  const order = inputOrder(view);
  cuts.names += n;
  for (let o = 0; o < n; o++) {
    const k = order[o] as number;
    const start = sourceStarts[k] as number;
    const open = b[start];
    const key = keys[k] as string;
    if ((open === OPEN_BRACE || open === OPEN_BRACKET) && cut.has(key)) {
      cuts.keys.push(key);
      cuts.starts.push(start);
      cuts.ends.push(sourceEnds[k] as number);
      cuts.canonical.push(starts[k] as number, ends[k] as number);
    } else if (valueEnd(b, start, cuts) < 0) return false;
  }
  return true;
}

/** The name of a member from its quoted bytes `[start, end)`; "" when they do not read. */
function memberName(b: Buffer, start: number, end: number): string {
  const raw = b.toString("utf8", start + 1, end - 1);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return "";
  }
}

/** The index after JSON whitespace from `i`. */
function skipSpace(b: Buffer, i: number): number {
  for (;;) {
    const c = b[i];
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) return i;
    i++;
  }
}

/** The index after the string whose opening quote is at `i`; -1 when it does not close. */
function stringEnd(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * The index after the value starting at `i`; -1 when it does not end. Counts the member names in
 * it into `cuts.names` and records where its numbers are in `cuts.numbers` (meaningful only for a
 * value that reads: in JSON, a string followed by `:` is a name, and `-` or a digit outside
 * strings starts a number).
 */
function valueEnd(b: Buffer, i: number, cuts: RawCuts): number {
  const n = b.length;
  const first = b[i];
  if (first === QUOTE) return stringEnd(b, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return scalarEnd(b, i, cuts);
  let depth = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c === QUOTE) {
      i = stringEnd(b, i);
      if (i < 0) return -1;
      if (b[skipSpace(b, i)] === COLON) cuts.names++;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    } else if (startsNumber(c)) {
      i = scalarEnd(b, i, cuts);
      continue;
    }
    i++;
  }
  return -1;
}

/** The index after the number or literal at `i` (the next delimiter); a number is recorded. */
function scalarEnd(b: Buffer, i: number, cuts: RawCuts): number {
  const n = b.length;
  const start = i;
  while (i < n) {
    const c = b[i];
    if (
      c === COMMA ||
      c === CLOSE_BRACE ||
      c === CLOSE_BRACKET ||
      c === SPACE ||
      c === TAB ||
      c === LF ||
      c === CR
    )
      break;
    i++;
  }
  const c = b[start] as number;
  if (startsNumber(c)) cuts.numbers.push(start, i);
  return i;
}
