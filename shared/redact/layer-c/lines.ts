/**
 * Layer C of JSON Lines, one line at a time (`LineRedactor`), with the fast read that leaves raw
 * members unread (`readLazily`), and the summary written into the carrier line (`withSummary`).
 */
import {
  ByteCanonicalizer,
  ByteSink,
  canonicalize,
  cutsOfSplit,
  DEFAULT_MAX_DEPTH,
  decodeUtf8,
  hashOf,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  type RawCuts,
  rawContainers,
  readJson,
  readSplit,
  type SplitView,
  setMember,
  sha256Tag,
} from "../../canonical/index.js";
import { RedactError, ReplayPipelineError } from "../../errors.js";
import type { FormatId, ReplayEventFields } from "../../formats/index.js";
import { REPLAY_EVENT_FIELDS, SPAN_FIELD_SET } from "../../formats/index.js";
import type { LearnedSecret } from "../detect/recurrence.js";
import type { Preset } from "../presets.js";
import type { PackRule } from "../rule-types.js";
import { Scrubber, type ScrubOptions } from "../scrub.js";
import { Context } from "./context.js";
import { RAW_KEYS } from "./policy.js";
import { NOT_WRITTEN, SplitEventWriter, WRITTEN_HEADER } from "./split-event.js";
import { type LayerCCounts, type LayerCSummary, summaryValue } from "./summary.js";
import { isRootShaped, redactEvent, redactReplayEvent } from "./transform.js";
import { WrittenPaths } from "./written-path.js";

/** The JSON Lines formats: the REPLAY dialects and Braintrust spans. */
export type LinesFormat = "replay-v1" | "replay-dsrs" | "replay-adr0003" | "braintrust-spans";

/** True for a format `LineRedactor` reads. */
export function isLinesFormat(format: FormatId): format is LinesFormat {
  return format !== "replaykit-rpk" && format !== "replay-bundle";
}

/** The scrubber's key and a rule pack's rules of `o`, only those given (what each redaction passes on). */
export function scrubSettings(o: {
  key?: Uint8Array | undefined;
  packRules?: readonly PackRule[] | undefined;
}): { key?: Uint8Array; packRules?: readonly PackRule[] } {
  return {
    ...(o.key === undefined ? {} : { key: o.key }),
    ...(o.packRules === undefined || o.packRules.length === 0 ? {} : { packRules: o.packRules }),
  };
}

/** What a `LineRedactor` needs beside the format and preset. */
export interface LineRedactorOptions {
  /** File name, for error locations. */
  file: string;
  /** Key for the scrubber's keyed pseudonyms. */
  key?: Uint8Array;
  /** A rule pack's secret rules, beside the built-in ones. */
  packRules?: readonly PackRule[];
  /**
   * Read lines with the fast path (raw top-level objects and arrays checked, and hashed when a hash
   * must be added, at byte level, never read). Default true; false reads every line with the
   * lossless reader only (the output is the same; tests compare the two).
   */
  fastRead?: boolean;
}

/** One redacted line. */
export interface RedactedLine {
  /**
   * The canonical (openagents) redacted event and a final `\n`, as bytes, or as the string of
   * them (what a worker's answer holds: the spool encodes it as it copies it in).
   */
  text: Uint8Array | string;
  /**
   * True when this line can carry the summary: a ReplayHeader (REPLAY dialects) or a root-shaped
   * span (Braintrust). The first carrier of the file gets it (`withSummary`), else its first line.
   */
  carrier: boolean;
  /**
   * The secrets the line revealed (values long enough to recur by intent, with their rules), for
   * the lines after it: the writer redacts them there, in file order, whichever thread redacted
   * them. Absent or empty when none.
   */
  learned?: readonly LearnedSecret[];
}

/** What lines of a batch revealed, between threads: `[index in the batch, secrets]`, for those that did. */
export type LearnedByLine = [number, readonly LearnedSecret[]][];

/**
 * The redaction of the lines of one JSON Lines file, one line at a time: each `line` call is a
 * synchronous function of that line's bytes (plus the counts so far), so consecutive batches of
 * lines can be redacted by separate instances (on worker threads) and their `snapshot`s merged in
 * order with `mergeCounts`; what each line revealed (`learned`) is redacted from the lines after
 * it where they are written in file order (`learn`, `redactKnown`); `layerCSummary` then gives the file's summary and `withSummary` writes
 * it into the carrier line. An instance holds its own scrubber and counters and shares nothing
 * mutable with other instances. `snapshot` counts every line the instance redacted, so give each
 * batch its own instance (cheap: a fraction of a millisecond once the module is loaded), or merge
 * one snapshot per instance whose lines were consecutive.
 *
 * Raw top-level members (`RAW_KEYS`) that are objects or arrays, the bulk of most lines, are only
 * checked and canonicalized at byte level, never read (their `<name>_hash`, when one is added, is
 * the hash of those bytes); the rest of the line is read losslessly, in its own member order, so
 * the output and the counts are exactly those of reading the whole line. Any line the fast path
 * does not accept is read whole with `readJson`, which gives today's value or exact error.
 */
export class LineRedactor {
  private readonly ctx: Context;
  private readonly replay: ReplayEventFields | undefined;
  private readonly file: string;
  private readonly fastRead: boolean;
  /** Output buffer of the byte canonicalizer, for the raw values of the fast read. */
  private readonly sink = new ByteSink(1 << 16);
  /** The byte canonicalizer of this redactor's lines (its working arrays kept from line to line). */
  private readonly canonicalizer = new ByteCanonicalizer();
  /** Writes the REPLAY lines taken from their split. */
  private readonly splitEvents = new SplitEventWriter();
  /** Where `line` writes its line before copying it out. */
  private readonly scratch = new ByteSink(1 << 12);
  private events = 0;

  /** `format` must be a JSON Lines format (`isLinesFormat`); throws `RedactError` otherwise. */
  constructor(
    readonly format: LinesFormat,
    readonly preset: Preset,
    options: LineRedactorOptions,
  ) {
    if (!isLinesFormat(format)) {
      throw new RedactError("format.not_lines", `${format} is a document format, not JSON Lines`, {
        file: options.file,
      });
    }
    const scrubOptions: ScrubOptions = { preset, ...scrubSettings(options) };
    this.ctx = new Context(preset, new Scrubber(scrubOptions));
    this.replay = format === "braintrust-spans" ? undefined : REPLAY_EVENT_FIELDS[format];
    this.file = options.file;
    this.fastRead = options.fastRead ?? true;
  }

  /**
   * Redacts one non-blank line (`bytes` without its line break; `line` is its 1-based number in the
   * file, for errors). Throws what the lossless reader throws for an unreadable line (located at
   * `file` and `line`), `RedactError` `redact.not_object` for a line that is not an object, and
   * `CanonicalizationError` for a value the openagents profile cannot serialize. `split`, when the
   * line was just split (`splitLine`), spares the fast read its own scan of the raw members.
   */
  line(bytes: Buffer, line: number, split?: SplitView): RedactedLine & { text: Buffer } {
    const scratch = this.scratch;
    scratch.clear();
    const carrier = this.lineInto(bytes, line, split, scratch);
    const learned = this.takeLearned();
    const text = Buffer.from(scratch.view());
    return learned.length === 0 ? { text, carrier } : { text, carrier, learned };
  }

  /** The secrets the line `lineInto` wrote last revealed (see `RedactedLine.learned`). */
  takeLearned(): readonly LearnedSecret[] {
    return this.ctx.scrubber.takeLearned();
  }

  /**
   * `line`, written into `out` (after what it holds) rather than returned; returns the carrier
   * flag. A REPLAY line just split is redacted from the split's bytes (`SplitEventWriter`) when
   * that path takes it; any other line through the event object. What the line revealed is then
   * `takeLearned`.
   */
  lineInto(bytes: Buffer, line: number, split: SplitView | undefined, out: ByteSink): boolean {
    // Each line on its own: what earlier lines revealed is redacted from it where it is written.
    this.ctx.scrubber.forgetKnown();
    const start = out.len;
    const epoch = this.ctx.scrubber.epoch();
    const carrier = this.writeLine(bytes, line, split, out);
    if (this.ctx.scrubber.epoch() !== epoch) this.redactLearned(out, start, epoch);
    return carrier;
  }

  /**
   * A secret found in a later member of the event may stand in an earlier one, already written:
   * the event's copy is read back and every occurrence of what was learned replaced.
   */
  private redactLearned(out: ByteSink, start: number, epoch: number): void {
    if (!this.ctx.scrubber.mayHoldLearned(out.buf.subarray(start, out.len), epoch)) return;
    const written = out.buf.toString("utf8", start, out.len);
    const fixed = this.ctx.scrubber.redactLearned(written, "$", epoch);
    if (fixed === written) return;
    out.len = start;
    out.appendText(fixed);
  }

  private writeLine(bytes: Buffer, line: number, split: SplitView | undefined, out: ByteSink): boolean {
    if (split !== undefined && this.replay !== undefined && this.fastRead) {
      const written = this.splitEvents.redact(split, this.ctx, this.replay, out);
      if (written !== NOT_WRITTEN) {
        this.events++;
        return written === WRITTEN_HEADER;
      }
    }
    const { text, carrier } = this.lineText(bytes, line, split);
    out.appendText(text);
    return carrier;
  }

  /** `line` through the event object, with the text as a string. */
  private lineText(bytes: Buffer, line: number, split?: SplitView): { text: string; carrier: boolean } {
    const { value, hashes } = this.read(bytes, line, split);
    if (!isJsonObject(value)) {
      throw new RedactError("redact.not_object", "expected an event object on every line", {
        file: this.file,
        line,
      });
    }
    const replay = this.replay;
    const out =
      replay === undefined
        ? redactEvent(value, "$", this.ctx, SPAN_FIELD_SET, hashes)
        : redactReplayEvent(value, this.ctx, replay, hashes);
    this.events++;
    const carrier = replay === undefined ? isRootShaped(value) : value[replay.typeKey] === "ReplayHeader";
    return { text: `${canonicalize(out, "openagents")}\n`, carrier };
  }

  /** The counts so far (lines, scrubber, Layer C's own), as a new plain JSON value. */
  snapshot(): LayerCCounts {
    return this.ctx.counts(this.events);
  }

  /** Starts knowing `secrets`, revealed by earlier lines (`RedactedLine.learned`, in file order). */
  learn(secrets: readonly LearnedSecret[]): void {
    this.ctx.scrubber.learnAll(secrets);
  }

  /**
   * A line's copy with every secret this instance learned (`learn`) replaced where it stands as a
   * chunk of a string (see `Scrubber.redactKnown`): `text` itself when it holds none.
   */
  redactKnown(text: Uint8Array | string): Uint8Array | string {
    const paths = new WrittenPaths();
    return this.ctx.scrubber.redactKnown(text, (json, at) => paths.at(json, at)) ?? text;
  }

  /** The counts since the last call (as `snapshot`), counting afresh after it. */
  takeSnapshot(): LayerCCounts {
    const counts = this.ctx.takeCounts(this.events);
    this.events = 0;
    return counts;
  }

  private read(
    bytes: Buffer,
    line: number,
    split: SplitView | undefined,
  ): { value: JsonValue; hashes?: ReadonlyMap<string, string> } {
    if (this.fastRead) {
      if (split !== undefined) {
        const value = readSplit(split, RAW_KEYS);
        if (value !== undefined) return { value, hashes: cutHashes(value, split) };
      }
      let fast: ReturnType<typeof readLazily>;
      try {
        fast = readLazily(bytes, this.sink, this.canonicalizer, split);
      } catch {
        // Whatever the fast read trips on, the lossless reader decides (and words the error).
        fast = undefined;
      }
      if (fast !== undefined) return fast;
    }
    try {
      return { value: readJson(decodeUtf8(bytes)) };
    } catch (error) {
      if (error instanceof ReplayPipelineError) error.locate({ file: this.file, lineOffset: line - 1 });
      throw error;
    }
  }
}

/**
 * The carrier line `text` (a `RedactedLine`'s) with the summary written in: the ReplayHeader's
 * `redaction` (REPLAY dialects) or the span's `metadata.redaction` (Braintrust); canonical, with
 * its final `\n`.
 */
export function withSummary(format: LinesFormat, text: Buffer, summary: LayerCSummary): Buffer {
  const end = text[text.length - 1] === 0x0a ? text.length - 1 : text.length;
  const value = readJson(decodeUtf8(text.subarray(0, end))) as JsonObject;
  if (format === "braintrust-spans") {
    const metadata = isJsonObject(value.metadata) ? value.metadata : {};
    setMember(metadata, "redaction", summaryValue(summary));
    setMember(value, "metadata", metadata);
  } else {
    setMember(value, "redaction", summaryValue(summary));
  }
  return Buffer.from(`${canonicalize(value, "openagents")}\n`);
}

/**
 * The openagents hash of each raw container `readSplit` left empty in `value` that has no
 * `<name>_hash` sibling (the only ones `removeRaw` hashes): the split's own hash of a lazy member,
 * else one of its canonical bytes.
 */
function cutHashes(value: JsonObject, split: SplitView): ReadonlyMap<string, string> {
  const hashes = new Map<string, string>();
  const { keys, starts, ends } = split.members;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    if (!RAW_KEYS.has(key) || Object.hasOwn(value, `${key}_hash`)) continue;
    const start = starts[k] as number;
    const open = split.buf[start];
    if (open !== 0x7b && open !== 0x5b) continue;
    hashes.set(key, hashOf(split.hashes, key) ?? sha256Tag(split.buf.subarray(start, ends[k] as number)));
  }
  return hashes;
}

/**
 * The fast read of one line: undefined unless it is an object with raw top-level members
 * (`RAW_KEYS`) that are objects or arrays, and the line reads cleanly. Those values are cut out
 * while they are checked and canonicalized at byte level in one pass (`canonicalizeValueAt`,
 * which gives up on anything the lossless reader could see differently); the rest of the line is
 * read as `readJson` reads it (by `JSON.parse` where `nativeRead` shows that equal), the cut values
 * as `{}` or `[]`, so every other member is exactly what `readJson` reads of the whole line, in the
 * same order (which decides the summary's key order,
 * and which of two members whose names scrub alike is written). `hashes` holds the openagents
 * hash of each cut value that has no `<name>_hash` sibling (the only ones `removeRaw` hashes).
 */
function readLazily(
  bytes: Buffer,
  sink: ByteSink,
  canonicalizer: ByteCanonicalizer,
  split?: SplitView,
): { value: JsonObject; hashes: ReadonlyMap<string, string> } | undefined {
  const cuts: RawCuts = { keys: [], starts: [], ends: [], canonical: [], names: 0, numbers: [] };
  sink.clear();
  // A split line's cut values are canonical in the split's buffer already; else the scan writes
  // them to `sink`.
  const ok =
    split === undefined
      ? rawContainers(bytes, cuts, sink, RAW_CUTS, canonicalizer)
      : cutsOfSplit(bytes, split, cuts, RAW_CUTS);
  if (!ok || cuts.keys.length === 0) return undefined;
  const canonical = split === undefined ? sink : { buf: split.buf };
  // The line reads as JSON exactly when the line with each cut value replaced by an empty one
  // does (read below) and each cut value does on its own (checked by the scan): swapping a value
  // for another at a value position keeps a document valid. `readJson` of the whole line would
  // then give this value with the cut values in place of the placeholders.
  let value: JsonValue;
  try {
    const text =
      split === undefined ? decodeUtf8(withPlaceholders(bytes, cuts)) : placeholderText(bytes, cuts);
    value = nativeRead(text, bytes, cuts) ?? readJson(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const hashes = new Map<string, string>();
  for (let c = 0; c < cuts.keys.length; c++) {
    const key = cuts.keys[c] as string;
    const start = cuts.starts[c] as number;
    const placeholder = value[key];
    const isEmpty =
      bytes[start] === 0x7b
        ? isJsonObject(placeholder) && Object.keys(placeholder).length === 0
        : Array.isArray(placeholder) && placeholder.length === 0;
    if (!isEmpty) return undefined;
    if (Object.hasOwn(value, `${key}_hash`)) continue;
    const from = cuts.canonical[2 * c] as number;
    if (from < 0) {
      // Only checked: the `<key>_hash` found in the line was not a member beside it.
      const at = sink.len;
      if (canonicalizer.valueAt(bytes, start, "openagents", sink, { maxDepth: DEFAULT_MAX_DEPTH - 1 }) < 0)
        return undefined;
      hashes.set(key, sha256Tag(sink.buf.subarray(at, sink.len)));
    } else hashes.set(key, sha256Tag(canonical.buf.subarray(from, cuts.canonical[2 * c + 1] as number)));
  }
  return { value, hashes };
}

const EMPTY_OBJECT = Buffer.from("{}");
const EMPTY_ARRAY = Buffer.from("[]");

/** The line with each cut value replaced by an empty one of its type. */
function withPlaceholders(bytes: Buffer, cuts: RawCuts): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let c = 0; c < cuts.keys.length; c++) {
    const start = cuts.starts[c] as number;
    parts.push(bytes.subarray(from, start), bytes[start] === 0x7b ? EMPTY_OBJECT : EMPTY_ARRAY);
    from = cuts.ends[c] as number;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/**
 * `withPlaceholders` as text, for a line the byte canonicalizer has accepted (so it is valid
 * UTF-8, and the strict decoding `decodeUtf8` does would decode it the same); the cuts fall on
 * ASCII brackets, never inside a character.
 */
function placeholderText(bytes: Buffer, cuts: RawCuts): string {
  let text = "";
  let from = 0;
  for (let c = 0; c < cuts.keys.length; c++) {
    const start = cuts.starts[c] as number;
    text += bytes.toString("utf8", from, start) + (bytes[start] === 0x7b ? "{}" : "[]");
    from = cuts.ends[c] as number;
  }
  return text + bytes.toString("utf8", from);
}

/**
 * What `readJson` reads of `text` (the line `line` with its cut values replaced), by the native
 * parser; undefined when that cannot be shown equal, and the caller reads `text` with `readJson`.
 * For JSON that `JSON.parse` accepts, the two differ only in numbers (`readJson` keeps their
 * text: here the scan's texts, in order), duplicate names (`JSON.parse` keeps the last: here the
 * member count must equal the scan's name count), lone surrogates (only from `\u` escapes, which
 * send the text to `readJson`), nesting past the limit, and member order when a name is an array
 * index (both send the text to `readJson`).
 */
function nativeRead(text: string, line: Buffer, cuts: RawCuts): JsonValue | undefined {
  if (text.includes("\\u")) return undefined;
  const value = JSON.parse(text) as unknown;
  const state = { names: 0, number: 0 };
  if (!lossless(value, line, cuts.numbers, state, DEFAULT_MAX_DEPTH)) return undefined;
  return state.names === cuts.names && 2 * state.number === cuts.numbers.length
    ? (value as JsonValue)
    : undefined;
}

/**
 * Walks a `JSON.parse` value in document order, putting back each number as a `JsonNumber` of its
 * text in the line and counting member names; false on a name that could reorder members (an array
 * index), a number whose text does not match, or nesting past `depth`.
 */
function lossless(
  value: unknown,
  line: Buffer,
  numbers: readonly number[],
  state: { names: number; number: number },
  depth: number,
): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (depth <= 0) return false;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const v = value[k] as unknown;
      if (typeof v === "number") {
        const n = numberAt(v, line, numbers, state);
        if (n === undefined) return false;
        value[k] = n;
      } else if (!lossless(v, line, numbers, state, depth - 1)) return false;
    }
    return true;
  }
  const object = value as JsonObject;
  for (const key of Object.keys(object)) {
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return false;
    state.names++;
    const v = object[key] as unknown;
    if (typeof v === "number") {
      const n = numberAt(v, line, numbers, state);
      if (n === undefined) return false;
      setMember(object, key, n);
    } else if (!lossless(v, line, numbers, state, depth - 1)) return false;
  }
  return true;
}

/** The next number of the scan as a `JsonNumber`, if it is `v`'s text. */
function numberAt(
  v: number,
  line: Buffer,
  numbers: readonly number[],
  state: { names: number; number: number },
): JsonNumber | undefined {
  const k = state.number++;
  if (2 * k + 1 >= numbers.length) return undefined;
  const text = line.toString("latin1", numbers[2 * k] as number, numbers[2 * k + 1] as number);
  return Number(text) === v ? new JsonNumber(text) : undefined;
}

/** The raw members the fast read cuts out, each with its hash member's quoted name (`"params_hash"`). */
const RAW_CUTS: ReadonlyMap<string, Buffer> = new Map(
  [...RAW_KEYS].map((k) => [k, Buffer.from(`"${k}_hash"`)]),
);
