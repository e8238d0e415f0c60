/**
 * The `split` line task: `splitLine` (the fast read `inspect` uses for JSON Lines) as a `mapLines`
 * task, so large files are split on worker threads, and the wire form its lines cross threads in.
 */

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  DIGIT_0,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  startsNumber,
} from "../bytes.js";
import {
  ByteSink,
  JsonNumber,
  type JsonObject,
  type MemberHashes,
  nameBytes,
  readJson,
  type SplitLine,
  SplitView,
  setMember,
  splitInto,
  splitLine,
} from "../canonical/index.js";
import type { LineTaskModule } from "./task.js";

/** What the split task is built from: the members `splitLine` leaves lazy (hashed, not read). */
export interface SplitTaskInit {
  lazy: string[];
}

/**
 * The split task: per line, `splitLine`, null (not undefined) marking a line the fast path declined
 * (the caller reads it fully). On a worker each line is written straight into the batch's wire
 * form (`SplitWire`), one JSON string.
 */
export const splitTask: LineTaskModule<SplitTaskInit> = {
  name: "split",
  // A small young generation and two batches in flight keep a 2 GB `inspect` under the 256 MB
  // bound (docs/performance.md, "Worker tuning").
  tuning: { youngGenerationMb: 4, batchesInFlight: 2 },
  create(init) {
    const lazy = new Set(init.lazy);
    const view = new SplitView();
    const wire = new SplitWire(lazy);
    return {
      line: (bytes) => splitLine(bytes, lazy, view) ?? null,
      wireLine: (bytes) => wire.add(splitInto(bytes, lazy, view) ? view : null),
      finish: () => null,
      toWire: () => wire.take(),
      fromWire: (texts) => splitsFromWire(texts as SplitTexts),
    };
  },
};

/**
 * Lines per JSON text of a batch's wire form: the receiving thread reads one text at a time as it
 * comes to its lines, so it never holds a whole batch of decoded lines (which would outlive the
 * young generation and be copied and promoted by the collector).
 */
const LINES_PER_TEXT = 64;

/**
 * A batch of split lines being written in their wire form: JSON arrays of `LINES_PER_TEXT` lines
 * with, per line, 0 for a declined line, else `[object, hashes, numbers, texts]`, the last two
 * left out when empty (`numbers` as `{}` when only `texts` has any). `object` is the line's
 * canonical text with each lazy container as `{}` or `[]`, its values copied byte for byte from
 * the split (so `JSON.parse` reads its strings and names as `readView` does); `hashes` holds each
 * lazy member's hash, `numbers` each top-level number's canonical text, and `texts` each
 * container's that holds a number (`JSON.parse` would not keep those exact), all three by name;
 * `splitsFromWire` puts them back. Written as bytes, with no string per line.
 */
export class SplitWire {
  private readonly out = new ByteSink(1 << 16);
  /** Lines in the current text. */
  private count = 0;
  /** Where each finished text of the batch ends in its string (UTF-16 code units). */
  private ends: number[] = [];
  /** Where the current text starts in `out`. */
  private closed = 0;

  constructor(private readonly lazy: ReadonlySet<string>) {}

  /** Appends one line: `view` just split (`splitInto`), or null for a declined line. */
  add(view: SplitView | null): undefined {
    if (this.count === LINES_PER_TEXT) this.close();
    this.byte(this.count++ === 0 ? OPEN_BRACKET : COMMA);
    if (view === null) {
      this.byte(DIGIT_0);
      return undefined;
    }
    const { buf, members, hashes } = view;
    const { keys, starts, ends } = members;
    const n = keys.length;
    const out = this.out;
    // The object, lazy containers emptied; the members are in canonical order in the view, though
    // not in its buffer.
    this.pair(OPEN_BRACKET, OPEN_BRACE);
    let numbers = 0;
    let texts: Record<string, string> | undefined;
    for (let k = 0; k < n; k++) {
      const key = keys[k] as string;
      const start = starts[k] as number;
      const open = buf[start] as number;
      const name = nameBytes(key);
      if (k > 0) this.byte(COMMA);
      out.append(name, 0, name.length);
      if ((open === OPEN_BRACE || open === OPEN_BRACKET) && this.lazy.has(key)) {
        // `{}` or `[]`: each closing bracket is its opening one plus 2.
        this.pair(open, open + 2);
        continue;
      }
      const end = ends[k] as number;
      out.append(buf, start, end);
      if (startsNumber(open)) numbers++;
      else if ((open === OPEN_BRACE || open === OPEN_BRACKET) && holdsNumber(buf, start, end)) {
        texts ??= {};
        setMember(texts, key, buf.toString("utf8", start, end));
      }
    }
    // `}`, the hashes, then the numbers and texts when there are any.
    this.pair(CLOSE_BRACE, COMMA);
    this.byte(OPEN_BRACE);
    let first = true;
    for (const key in hashes) {
      if (!first) this.byte(COMMA);
      first = false;
      const name = nameBytes(key);
      out.append(name, 0, name.length);
      this.byte(QUOTE);
      this.out.appendText(hashes[key] as string);
      this.byte(QUOTE);
    }
    this.byte(CLOSE_BRACE);
    if (numbers > 0 || texts !== undefined) {
      this.pair(COMMA, OPEN_BRACE);
      first = true;
      for (let k = 0; k < n; k++) {
        const start = starts[k] as number;
        const open = buf[start] as number;
        if (!startsNumber(open)) continue;
        if (!first) this.byte(COMMA);
        first = false;
        const name = nameBytes(keys[k] as string);
        out.append(name, 0, name.length);
        // A number's canonical text needs no escape.
        this.byte(QUOTE);
        out.append(buf, start, ends[k] as number);
        this.byte(QUOTE);
      }
      this.byte(CLOSE_BRACE);
    }
    if (texts !== undefined) this.out.appendText(`,${JSON.stringify(texts)}`);
    this.byte(CLOSE_BRACKET);
    return undefined;
  }

  /** The batch's texts, in order; the next line starts a new batch. */
  take(): SplitTexts {
    if (this.count > 0) this.close();
    const text = this.out.buf.toString("utf8", 0, this.out.len);
    const ends = this.ends;
    this.ends = [];
    this.out.clear();
    this.closed = 0;
    return { text, ends };
  }

  /** Ends the current text, noting where it ends in the batch's string. */
  private close(): void {
    this.byte(CLOSE_BRACKET);
    const { out } = this;
    const end = (this.ends[this.ends.length - 1] ?? 0) + out.utf16Length(this.closed, out.len);
    this.ends.push(end);
    this.closed = out.len;
    this.count = 0;
  }

  /** Writes one byte. */
  private byte(a: number): void {
    this.out.reserve(1);
    this.out.buf[this.out.len++] = a;
  }

  /** Writes two bytes. */
  private pair(a: number, b: number): void {
    this.out.reserve(2);
    this.out.buf[this.out.len++] = a;
    this.out.buf[this.out.len++] = b;
  }
}

/** True when canonical JSON `buf[start, end)` holds a number (a byte of one outside any string). */
function holdsNumber(buf: Buffer, start: number, end: number): boolean {
  let inString = false;
  for (let i = start; i < end; i++) {
    const c = buf[i] as number;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (startsNumber(c)) return true;
  }
  return false;
}

/**
 * One line on the wire: 0 for a declined line, else the object and its hashes, then, when there
 * are any, its top-level numbers' texts and its containers holding numbers, by name.
 */
type WireLine = 0 | [JsonObject, MemberHashes, Record<string, string>?, Record<string, string>?];

/**
 * A batch of split lines on the wire: the JSON texts of `LINES_PER_TEXT` lines each, one after
 * another in one string (one large string, which the collector does not copy while the batch
 * waits its turn), and where each ends.
 */
export interface SplitTexts {
  text: string;
  ends: number[];
}

/** The split lines of a batch's wire texts (`SplitWire`), each text read as its lines are reached. */
export function* splitsFromWire({ text, ends }: SplitTexts): Generator<SplitLine | null> {
  let start = 0;
  for (const end of ends) {
    const part = text.slice(start, end);
    start = end;
    for (const line of JSON.parse(part) as WireLine[]) {
      if (line === 0) {
        yield null;
        continue;
      }
      const [value, hashes, numbers, json] = line;
      // Own members only: `JSON.parse` makes plain objects, and any name may come (`__proto__` too).
      if (numbers !== undefined)
        for (const key of Object.keys(numbers)) setMember(value, key, new JsonNumber(numbers[key] as string));
      if (json !== undefined)
        for (const key of Object.keys(json)) setMember(value, key, readJson(json[key] as string));
      yield { value, hashes };
    }
  }
}
