/**
 * Layer C (published) copies of replay files, as ADR-0017 defines them: raw tool inputs and
 * outputs removed with only their hashes kept (hashes added where the file had none), every
 * remaining string scrubbed by the privacy preset's `Scrubber` (ADR-0016), unknown content
 * dropped (fail closed), and what was done recorded in the copy's header.
 *
 * Rules shared by every format:
 * - Raw content members (`RAW_KEYS`: `params`, `input`, `output`, `result`, `content`, `stdout`,
 *   `stderr`, `messages`, `payload`, …) are removed at any depth; when no sibling `<name>_hash`
 *   exists one is added, the hash of the removed value (openagents profile; replaykit for `.rpk`).
 * - Hash members are never changed: the copy still matches the original's receipt.
 * - Structural members (discriminator, ids, timestamps and timings, statuses, versions, hashes)
 *   are kept; ids, timestamps and hashes of an event's own top level are not scrubbed.
 * - Unknown event types keep only structural members plus the preset's allow-list; unknown
 *   members of known events are dropped unless the preset allows them.
 * - `paranoid` keeps only structural members (and the ones the format's schema requires, so the
 *   copy still reads), everywhere.
 * - `.rpk` copies follow ReplayKit's own redaction instead (values masked in place, step hashes and
 *   checksum recomputed, the original ones recorded): see `redactReplaykit`.
 */
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ByteLine,
  ByteSink,
  canonicalHash,
  canonicalize,
  canonicalizeValueAt,
  checkValueAt,
  DEFAULT_MAX_DEPTH,
  decodeUtf8,
  isBlankBytes,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  memberPath,
  type Profile,
  readByteLines,
  readJson,
  SHA256_TAG,
  setMember,
  sha256Tag,
} from "../canonical/index.js";
import { CanonicalizationError, ReplayPipelineError } from "../errors.js";
import { SPAN_FIELDS } from "../formats/braintrust.js";
import type { LayerCOrigin } from "../formats/layer-c-record.js";
import { detectFormat } from "../formats/registry.js";
import { REPLAY_DIALECTS } from "../formats/replay-jsonl.js";
import {
  computeChecksum,
  computeStepHash,
  LEGACY_VERSION,
  RUN_KEYS,
  STEP_KEYS,
  stepContent,
} from "../formats/replaykit.js";
import type { FormatId } from "../formats/types.js";
import { remembered } from "../memo.js";
import { mapLines, type ParallelOptions } from "../parallel/line-pool.js";
import type { LineTask } from "../parallel/tasks.js";
import type { Preset } from "./presets.js";
import { type RedactionSummary, Scrubber, type ScrubOptions } from "./scrub.js";

/** A Layer C failure (unknown format, unreadable line); `location` names the line. */
export class RedactError extends ReplayPipelineError {}

/** What `redactFile` needs. */
export interface LayerCOptions {
  /** File name, for messages. */
  file: string;
  /** Privacy preset (ADR-0016); default `private_repo`. */
  preset?: Preset;
  /** Key for the scrubber's keyed pseudonyms. */
  key?: Uint8Array;
  /** Longest JSON Lines line, bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole-document input (`.rpk`, ReplayBundle), bytes (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Folder for the spool file of JSON Lines inputs (default the OS temp folder). */
  tmpDir?: string;
  /** Worker threads for large JSON Lines files (default: one per core). */
  parallel?: ParallelOptions;
  /**
   * The input's own verdict, recorded in the copy (`original`). Awaited once the input has been
   * read and before the first byte of the copy is given out, so a rejection (a refused input, see
   * `redactChecked`) leaves no output at all.
   */
  original: LayerCOrigin | Promise<LayerCOrigin>;
}

/** What Layer C needs of a `Scrubber` (`./scrub.ts`). */
export interface StringScrubber {
  scrub(value: string, path: string, key?: string): string;
  scrubKey(name: string, path: string): string;
  summary(): RedactionSummary;
  /** The counts since the last call, counting afresh after it. */
  takeSummary(): RedactionSummary;
}

/** What a Layer C copy records about its redaction (in its header and for `--json`). */
export interface LayerCSummary {
  layer: "C";
  format: FormatId;
  preset: Preset;
  /** Events (lines), steps or timeline entries written; always the input's count. */
  events: number;
  /** Counts per rule: the scrubber's rules plus `layer_c.*` (removals, fail-closed drops). */
  by_rule: Record<string, number>;
  /** Counts per JSON path inside an event (array positions written `[*]`). */
  by_path: Record<string, number>;
  /** Members removed or dropped, by path. */
  removed_fields: Record<string, number>;
  /** Hash members added for removed values that had none, by path. */
  hashes_added: Record<string, number>;
  /** Sum of `by_rule`. */
  total: number;
  /**
   * What the copy says of its original: that file's hash and own verdict, and for `.rpk` what the
   * copy's recomputed hashes replaced (the original checksum and every original step hash, in step
   * order, null where there was none).
   */
  original: LayerCOrigin & { checksum?: string | null; step_hashes?: (string | null)[] };
  /** `.rpk` only: the original signature covered the unredacted content and was removed. */
  signature?: "removed";
}

/** The running redaction of one file: read `chunks` to the end, then `summary()`. */
export interface LayerCRedaction {
  /** The Layer C copy's bytes. Nothing is yielded for JSON Lines until the whole input was read. */
  chunks: AsyncGenerator<Uint8Array>;
  /** The summary; throws until `chunks` has been read to the end. */
  summary(): LayerCSummary;
}

/** Members holding raw content: removed at any depth, their hash kept. */
export const RAW_KEYS: ReadonlySet<string> = new Set([
  "params",
  "input",
  "output",
  "result",
  "results",
  "content",
  "stdout",
  "stderr",
  "messages",
  "payload",
  "prompt",
  "completion",
  "body",
  "arguments",
  "expected",
  "request",
  "response",
  "diff",
  "patch",
  "text",
]);

/** Required free-text members `paranoid` replaces with `PARANOID_TEXT` (REPLAY events). */
const PARANOID_REPLACED: ReadonlySet<string> = new Set(["command", "commands", "task"]);
/** What `paranoid` writes in place of a required free-text value. */
export const PARANOID_TEXT = "[REDACTED]";

/**
 * Members of UNKNOWN event types (REPLAY lines, ReplayBundle timeline entries) that a preset keeps
 * beside the structural ones; `paranoid` keeps none. `open_source` also keeps unknown scalar
 * members of known events.
 */
export const UNKNOWN_EVENT_ALLOW: Record<Preset, ReadonlySet<string>> = {
  open_source: new Set(["name", "tool", "kind", "phase", "model", "runtime_event_type", "event_type"]),
  private_repo: new Set(["tool", "kind", "phase", "runtime_event_type", "event_type"]),
  paranoid: new Set(),
};

const HASH_KEY = /^(hash|checksum)$|_hash$/;
const ID_KEY = /^(id|seq|idempotency_key|span_parents)$|_ids?$/;
const TIME_KEY = /^(ts|t|created|timestamp|start|end)$|_at$|_ms$|_ns$|_seconds$/;
const STATUS_KEY =
  /^(type|event|ok|success|outcome|exit_code|exit_codes|is_error|is_root|version)$|(^|_)status$|_version$/;

const IS_HASH = 1;
const IS_STRUCTURAL = 2;
const IS_VERBATIM = 4;

/** What a member name is (IS_* bits): the same few names come on every line. */
const keyKind = remembered((key: string): number => {
  const hash = HASH_KEY.test(key);
  const idOrTime = ID_KEY.test(key) || TIME_KEY.test(key);
  return (
    (hash ? IS_HASH : 0) |
    (hash || idOrTime || STATUS_KEY.test(key) ? IS_STRUCTURAL : 0) |
    (hash || idOrTime || key === "type" || key === "event" ? IS_VERBATIM : 0)
  );
});

/** Structural member names: kept by every preset (ADR-0016 `paranoid`: types, ids, timings, statuses, hashes). */
export function isStructuralKey(key: string): boolean {
  return (keyKind(key) & IS_STRUCTURAL) !== 0;
}

/** Values never scrubbed on an event's own top level: they identify it for receipts. */
function isVerbatimKey(key: string): boolean {
  return (keyKind(key) & IS_VERBATIM) !== 0;
}

/** True for a hash-like member name (`hash`, `checksum`, `…_hash`). */
function isHashKey(key: string): boolean {
  return (keyKind(key) & IS_HASH) !== 0;
}

class Counter {
  counts: Record<string, number> = {};
  add(key: string, n = 1): void {
    this.counts[key] = (this.counts[key] ?? 0) + n;
  }
  /** Counting starts afresh. */
  reset(): void {
    this.counts = {};
  }
}

/** Path inside an event for the summary: array positions folded to `[*]`. */
function child(path: string, key: string): string {
  return path + segmentOf(key);
}
const segmentOf = remembered(memberPath);

/** Per-file redaction state: the scrubber, the counters and the hashing profile. */
class Context {
  readonly scrubber: StringScrubber;
  readonly rules = new Counter();
  readonly paths = new Counter();
  readonly removed = new Counter();
  readonly added = new Counter();
  readonly paranoid: boolean;
  readonly allow: ReadonlySet<string>;
  profile: Profile = "openagents";

  constructor(
    readonly preset: Preset,
    scrubber: StringScrubber,
  ) {
    this.scrubber = scrubber;
    this.paranoid = preset === "paranoid";
    this.allow = UNKNOWN_EVENT_ALLOW[preset] ?? new Set<string>();
  }

  scrub(value: string, path: string, key: string): string {
    return this.scrubber.scrub(value, path, key);
  }

  scrubKey(name: string, path: string): string {
    return this.scrubber.scrubKey(name, path);
  }

  drop(path: string, rule: string): void {
    this.rules.add(rule);
    this.paths.add(path);
    this.removed.add(path);
  }

  hash(value: JsonValue): string {
    return canonicalHash(value, this.profile);
  }

  /**
   * Removes raw member `key` of `source` into `out`, adding `<key>_hash` unless `source` has it.
   * `known` is the hash of the removed value when the reader already computed it (`LineRedactor`'s
   * fast read, whose `source[key]` is then only a placeholder).
   */
  removeRaw(source: JsonObject, out: JsonObject, key: string, path: string, known?: string): void {
    this.drop(child(path, key), "layer_c.raw_removed");
    const hashKey = `${key}_hash`;
    if (Object.hasOwn(source, hashKey)) return;
    setMember(out, hashKey, known ?? this.hash(source[key] as JsonValue));
    this.added.add(child(path, hashKey));
    this.rules.add("layer_c.hash_added");
  }

  /** What was counted so far, as plain JSON. */
  counts(events: number): LayerCCounts {
    return {
      events,
      scrubbed: this.scrubber.summary(),
      rules: { ...this.rules.counts },
      paths: { ...this.paths.counts },
      removed: { ...this.removed.counts },
      added: { ...this.added.counts },
    };
  }

  /** What was counted since the last call (as `counts`); counting starts afresh. */
  takeCounts(events: number): LayerCCounts {
    const counts = this.counts(events);
    this.scrubber.takeSummary();
    for (const counter of [this.rules, this.paths, this.removed, this.added]) counter.reset();
    return counts;
  }

  summary(format: FormatId, events: number, original: LayerCOrigin): LayerCSummary {
    return layerCSummary(format, this.preset, this.counts(events), original);
  }
}

/**
 * The counts behind a `LayerCSummary`, as plain JSON (numbers and string-keyed records only): what
 * `LineRedactor.snapshot` returns, what `mergeCounts` adds up and `layerCSummary` turns into the
 * summary. Every record lists its keys in the order they were first counted.
 */
export interface LayerCCounts {
  /** Events (lines) redacted. */
  events: number;
  /** The scrubber's replacements (`Scrubber.summary()`). */
  scrubbed: RedactionSummary;
  /** Layer C's own counts per rule (`layer_c.*`). */
  rules: Record<string, number>;
  /** Layer C's own counts per JSON path. */
  paths: Record<string, number>;
  /** Members removed or dropped, by path. */
  removed: Record<string, number>;
  /** Hash members added, by path. */
  added: Record<string, number>;
}

/** Adds the counts of `from` to `into`; keys new to `into` go last, in `from`'s order. */
function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

/**
 * The counts of several `LineRedactor`s that redacted consecutive parts of one file, merged in the
 * order given (the file's order), so that the result equals what one instance redacting the
 * whole file would have counted, key order included. The snapshots are not changed.
 */
export function mergeCounts(snapshots: readonly LayerCCounts[]): LayerCCounts {
  const out: LayerCCounts = {
    events: 0,
    scrubbed: { by_rule: {}, by_path: {}, total: 0 },
    rules: {},
    paths: {},
    removed: {},
    added: {},
  };
  for (const s of snapshots) {
    out.events += s.events;
    addCounts(out.scrubbed.by_rule, s.scrubbed.by_rule);
    addCounts(out.scrubbed.by_path, s.scrubbed.by_path);
    out.scrubbed.total += s.scrubbed.total;
    addCounts(out.rules, s.rules);
    addCounts(out.paths, s.paths);
    addCounts(out.removed, s.removed);
    addCounts(out.added, s.added);
  }
  return out;
}

/**
 * The summary of a Layer C copy from its counts (one snapshot, or `mergeCounts` of several):
 * `by_rule` and `by_path` are the scrubber's counts followed by Layer C's own.
 */
export function layerCSummary(
  format: FormatId,
  preset: Preset,
  counts: LayerCCounts,
  original: LayerCOrigin,
): LayerCSummary {
  const byRule: Record<string, number> = { ...counts.scrubbed.by_rule };
  addCounts(byRule, counts.rules);
  const byPath: Record<string, number> = { ...counts.scrubbed.by_path };
  addCounts(byPath, counts.paths);
  return {
    layer: "C",
    format,
    preset,
    events: counts.events,
    by_rule: byRule,
    by_path: byPath,
    removed_fields: { ...counts.removed },
    hashes_added: { ...counts.added },
    total: Object.values(byRule).reduce((a, b) => a + b, 0),
    original: { ...original, checks_total: { ...original.checks_total } },
  };
}

// ---------------------------------------------------------------------------------------------
// Values

/**
 * Free content: every member kept except raw ones (removed, hash kept); strings and member
 * names scrubbed. In `paranoid` this is never used: see `structural`.
 */
function freeValue(value: JsonValue, path: string, key: string, ctx: Context): JsonValue {
  if (typeof value === "string") return ctx.scrub(value, path, key);
  if (Array.isArray(value)) return value.map((v) => freeValue(v, `${path}[*]`, key, ctx));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (RAW_KEYS.has(k)) {
      ctx.removeRaw(value, out, k, path);
      continue;
    }
    const name = ctx.scrubKey(k, path);
    const at = child(path, name);
    // A hash keeps its exact value wherever it is.
    if (isHashKey(k) && typeof v === "string" && HASH_VALUE.test(v)) setMember(out, name, v);
    else setMember(out, name, freeValue(v, at, k, ctx));
  }
  return out;
}

/**
 * Structural content only: structural members at any depth, with the objects and arrays that
 * lead to them; raw members removed (hash kept); everything else dropped under `rule`.
 * Undefined when nothing is left.
 */
function structuralValue(
  value: JsonValue,
  path: string,
  key: string,
  ctx: Context,
  rule: string,
  keyIsStructural: boolean,
): JsonValue | undefined {
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const v of value) {
      const kept = structuralValue(v, `${path}[*]`, key, ctx, rule, keyIsStructural);
      if (kept !== undefined) out.push(kept);
    }
    return out.length === 0 && value.length > 0 ? undefined : out;
  }
  if (!isJsonObject(value)) {
    if (!keyIsStructural) {
      ctx.drop(path, rule);
      return undefined;
    }
    return typeof value === "string" && !(isHashKey(key) && HASH_VALUE.test(value))
      ? ctx.scrub(value, path, key)
      : value;
  }
  const out: JsonObject = {};
  let kept = 0;
  for (const [k, v] of Object.entries(value)) {
    if (RAW_KEYS.has(k)) {
      ctx.removeRaw(value, out, k, path);
      kept++;
      continue;
    }
    const name = ctx.scrubKey(k, path);
    const r = structuralValue(v, child(path, name), k, ctx, rule, isStructuralKey(k));
    if (r !== undefined) {
      setMember(out, name, r);
      kept++;
    }
  }
  return kept === 0 && Object.keys(value).length > 0 ? undefined : out;
}

/** How an event-like object's members are treated. */
interface ObjectRules {
  /** Members the format knows for this object; undefined when the whole object is unknown. */
  known?: ReadonlySet<string>;
  /** Known members the format requires: kept even in `paranoid`. */
  required?: ReadonlySet<string>;
  /** Members kept free beside the structural ones when the object is unknown. */
  allow?: ReadonlySet<string>;
}

/**
 * One event, span, step or entry. Top-level ids, timestamps and hashes are kept verbatim; raw
 * members removed; known members kept (scrubbed) unless `paranoid`; unknown ones fail closed.
 * `hashes`: the openagents hash of top-level raw members the reader left as placeholders.
 */
function redactEvent(
  event: JsonObject,
  path: string,
  ctx: Context,
  rules: ObjectRules,
  hashes?: ReadonlyMap<string, string>,
): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(event)) {
    if (RAW_KEYS.has(k)) {
      ctx.removeRaw(event, out, k, path, hashes?.get(k));
      continue;
    }
    const known = rules.known?.has(k) === true;
    const required = rules.required?.has(k) === true;
    // A member the format does not define is untrusted down to its name: the name is scrubbed
    // before it is written anywhere (the copy or its summary), and its value is never verbatim.
    if (known && isVerbatimKey(k) && isScalarOrScalars(v) && verbatimSafe(k, v)) {
      setMember(out, k, v);
      continue;
    }
    const name = known ? k : ctx.scrubKey(k, path);
    const at = child(path, name);
    if (ctx.paranoid) {
      if (required && PARANOID_REPLACED.has(k)) {
        setMember(out, k, Array.isArray(v) ? v.map(() => PARANOID_TEXT) : PARANOID_TEXT);
        ctx.rules.add("layer_c.paranoid_text");
        ctx.paths.add(at);
        continue;
      }
      if (required && !isJsonObject(v) && !Array.isArray(v)) {
        setMember(out, k, typeof v === "string" ? ctx.scrub(v, at, k) : v);
        continue;
      }
      const kept = structuralValue(v, at, k, ctx, "layer_c.paranoid", isStructuralKey(k));
      if (kept !== undefined) setMember(out, name, kept);
      else if (required) setMember(out, k, Array.isArray(v) ? [] : {});
      continue;
    }
    const allowed =
      known ||
      (rules.known === undefined
        ? rules.allow?.has(k) === true
        : ctx.preset === "open_source" && !isJsonObject(v) && !Array.isArray(v));
    if (allowed) {
      setMember(out, name, freeValue(v, at, k, ctx));
      continue;
    }
    const kept = structuralValue(v, at, k, ctx, "layer_c.fail_closed", isStructuralKey(k));
    if (kept !== undefined) setMember(out, name, kept);
  }
  return out;
}

/**
 * A hash member is copied verbatim only when it holds a hash (receipts match on the exact value);
 * anything else under a hash-like or id-like name is scrubbed like free text.
 */
function verbatimSafe(key: string, value: JsonValue): boolean {
  if (!isHashKey(key)) return true;
  const values = Array.isArray(value) ? value : [value];
  return values.every((v) => typeof v !== "string" || HASH_VALUE.test(v));
}

const HASH_VALUE = /^(?:sha256:|hmac-sha256:)?[0-9a-f]{64}$/;

/** The summary as a JSON value (numbers as `JsonNumber`), to write into the copy. */
function summaryValue(summary: LayerCSummary): JsonValue {
  const convert = (v: unknown): JsonValue => {
    if (typeof v === "number") return new JsonNumber(String(v));
    if (typeof v === "string" || typeof v === "boolean" || v === null) return v;
    if (Array.isArray(v)) return v.map(convert);
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) setMember(out, k, convert(x));
    return out;
  };
  return convert(summary);
}

/** A scalar, or an array of scalars (`span_parents`, `exit_codes`). */
function isScalarOrScalars(v: JsonValue): boolean {
  const scalar = (x: JsonValue): boolean => !Array.isArray(x) && !isJsonObject(x);
  return Array.isArray(v) ? v.every(scalar) : scalar(v);
}

// ---------------------------------------------------------------------------------------------
// REPLAY.jsonl

interface EventRules {
  typeKey: string;
  byType: Map<string, ObjectRules>;
}

/** Known and required members of every event type of a REPLAY dialect, from its schemas. */
function replayRules(format: "replay-v1" | "replay-dsrs" | "replay-adr0003"): EventRules {
  const dialect = REPLAY_DIALECTS[format];
  const byType = new Map<string, ObjectRules>();
  for (const [type, rule] of dialect.rules) byType.set(type, { known: rule.fields, required: rule.required });
  return { typeKey: dialect.typeKey, byType };
}

function redactReplayEvent(
  value: JsonObject,
  ctx: Context,
  rules: EventRules,
  hashes?: ReadonlyMap<string, string>,
): JsonObject {
  const type = value[rules.typeKey];
  const known = typeof type === "string" ? rules.byType.get(type) : undefined;
  return redactEvent(value, "$", ctx, known ?? { allow: ctx.allow }, hashes);
}

// ---------------------------------------------------------------------------------------------
// Braintrust spans

/** Span members the Braintrust reader knows (`SPAN_FIELDS`); the rest fail closed. */
const SPAN_RULES: ObjectRules = { known: SPAN_FIELDS, required: new Set(["span_id"]) };

function isRootShaped(span: JsonObject): boolean {
  const parents = span.span_parents;
  if (parents === undefined || parents === null) return true;
  if (!Array.isArray(parents)) return false;
  return parents.length === 0 || parents.includes(span.span_id as JsonValue);
}

// ---------------------------------------------------------------------------------------------
// JSON Lines

/** The JSON Lines formats: the REPLAY dialects and Braintrust spans. */
export type LinesFormat = "replay-v1" | "replay-dsrs" | "replay-adr0003" | "braintrust-spans";

/** True for a format `LineRedactor` reads. */
export function isLinesFormat(format: FormatId): format is LinesFormat {
  return format !== "replaykit-rpk" && format !== "replay-bundle";
}

/** What a `LineRedactor` needs beside the format and preset. */
export interface LineRedactorOptions {
  /** File name, for error locations. */
  file: string;
  /** Key for the scrubber's keyed pseudonyms. */
  key?: Uint8Array;
  /**
   * Read lines with the fast path (raw top-level objects and arrays checked, and hashed when a hash
   * must be added, at byte level, never read). Default true; false reads every line with the
   * lossless reader only (the output is the same; tests compare the two).
   */
  fastRead?: boolean;
}

/** One redacted line. */
export interface RedactedLine {
  /** The canonical (openagents) redacted event and a final `\n`. */
  text: Buffer;
  /**
   * True when this line can carry the summary: a ReplayHeader (REPLAY dialects) or a root-shaped
   * span (Braintrust). The first carrier of the file gets it (`withSummary`), else its first line.
   */
  carrier: boolean;
}

/**
 * The redaction of the lines of one JSON Lines file, one line at a time: each `line` call is a
 * synchronous function of that line's bytes (plus the counts so far), so consecutive batches of
 * lines can be redacted by separate instances (on worker threads) and their `snapshot`s merged in
 * order with `mergeCounts`; `layerCSummary` then gives the file's summary and `withSummary` writes
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
  private readonly replay: EventRules | undefined;
  private readonly file: string;
  private readonly fastRead: boolean;
  /** Output buffer of the byte canonicalizer, for the raw values of the fast read. */
  private sink = new ByteSink(1 << 16);
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
    const scrubOptions: ScrubOptions = options.key === undefined ? { preset } : { preset, key: options.key };
    this.ctx = new Context(preset, new Scrubber(scrubOptions));
    this.replay = format === "braintrust-spans" ? undefined : replayRules(format);
    this.file = options.file;
    this.fastRead = options.fastRead ?? true;
  }

  /**
   * Redacts one non-blank line (`bytes` without its line break; `line` is its 1-based number in the
   * file, for errors). Throws what the lossless reader throws for an unreadable line (located at
   * `file` and `line`), `RedactError` `redact.not_object` for a line that is not an object, and
   * `CanonicalizationError` for a value the openagents profile cannot serialize.
   */
  line(bytes: Buffer, line: number): RedactedLine {
    const { value, hashes } = this.read(bytes, line);
    if (!isJsonObject(value)) {
      throw new RedactError("redact.not_object", "expected an event object on every line", {
        file: this.file,
        line,
      });
    }
    const replay = this.replay;
    const out =
      replay === undefined
        ? redactEvent(value, "$", this.ctx, SPAN_RULES, hashes)
        : redactReplayEvent(value, this.ctx, replay, hashes);
    this.events++;
    const carrier = replay === undefined ? isRootShaped(value) : value[replay.typeKey] === "ReplayHeader";
    return { text: Buffer.from(`${canonicalize(out, "openagents")}\n`), carrier };
  }

  /** The counts so far (lines, scrubber, Layer C's own), as a new plain JSON value. */
  snapshot(): LayerCCounts {
    return this.ctx.counts(this.events);
  }

  /** The counts since the last call (as `snapshot`), counting afresh after it. */
  takeSnapshot(): LayerCCounts {
    const counts = this.ctx.takeCounts(this.events);
    this.events = 0;
    return counts;
  }

  private read(bytes: Buffer, line: number): { value: JsonValue; hashes?: ReadonlyMap<string, string> } {
    if (this.fastRead) {
      let fast: ReturnType<typeof readLazily>;
      try {
        fast = readLazily(bytes, this.sink);
      } catch {
        // Whatever the fast read trips on, the lossless reader decides (and words the error).
        fast = undefined;
      }
      // Do not keep a buffer the size of one huge line.
      if (this.sink.buf.length > 1 << 24) this.sink = new ByteSink(1 << 16);
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
): { value: JsonObject; hashes: ReadonlyMap<string, string> } | undefined {
  const cuts: RawCuts = { keys: [], starts: [], ends: [], canonical: [], names: 0, numbers: [] };
  sink.len = 0;
  if (!rawContainers(bytes, cuts, sink) || cuts.keys.length === 0) return undefined;
  // The line reads as JSON exactly when the line with each cut value replaced by an empty one
  // does (read below) and each cut value does on its own (checked by the scan): swapping a value
  // for another at a value position keeps a document valid. `readJson` of the whole line would
  // then give this value with the cut values in place of the placeholders.
  const parts: Buffer[] = [];
  let from = 0;
  for (let c = 0; c < cuts.keys.length; c++) {
    const start = cuts.starts[c] as number;
    parts.push(bytes.subarray(from, start), bytes[start] === 0x7b ? EMPTY_OBJECT : EMPTY_ARRAY);
    from = cuts.ends[c] as number;
  }
  parts.push(bytes.subarray(from));
  let value: JsonValue;
  try {
    const text = decodeUtf8(Buffer.concat(parts));
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
    let from = cuts.canonical[2 * c] as number;
    let to = cuts.canonical[2 * c + 1] as number;
    if (from < 0) {
      // Only checked: the `<key>_hash` found in the line was not a member beside it.
      from = sink.len;
      if (canonicalizeValueAt(bytes, start, "openagents", sink, DEFAULT_MAX_DEPTH - 1) < 0) return undefined;
      to = sink.len;
    }
    hashes.set(key, sha256Tag(sink.buf.subarray(from, to)));
  }
  return { value, hashes };
}

const EMPTY_OBJECT = Buffer.from("{}");
const EMPTY_ARRAY = Buffer.from("[]");

/** Top-level raw members whose value is an object or array: names, and where the values are. */
interface RawCuts {
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

/**
 * Finds, in document order, the top-level members of the JSON object line `b` named in `RAW_KEYS`
 * whose value is an object or array, and appends each one's canonical bytes to `sink` (false
 * when one does not canonicalize). Everything else is only delimited (strings by their unescaped
 * quotes, containers by their brackets): on a malformed line the result means nothing, and
 * `readLazily` then rejects the line. False when the line does not even scan as an object.
 */
function rawContainers(b: Buffer, cuts: RawCuts, sink: ByteSink): boolean {
  let i = skipSpace(b, 0);
  if (b[i] !== 0x7b) return false;
  i = skipSpace(b, i + 1);
  if (b[i] === 0x7d) return true;
  for (;;) {
    if (b[i] !== 0x22) return false;
    const keyStart = i;
    i = stringEnd(b, i);
    if (i < 0) return false;
    const keyEnd = i;
    i = skipSpace(b, i);
    if (b[i] !== 0x3a) return false;
    i = skipSpace(b, i + 1);
    cuts.names++;
    const start = i;
    const open = b[i];
    const key = open === 0x7b || open === 0x5b ? memberName(b, keyStart, keyEnd) : "";
    if (RAW_KEYS.has(key)) {
      // A second one is a duplicate name, which the lossless reader reports (and searching the
      // line for its hash again and again would make such a line cost quadratic time).
      if (cuts.keys.includes(key)) return false;
      // The value sits one level down in the line: it may nest one level less. Its canonical bytes
      // are only needed for a hash the line lacks; most lines carry `<key>_hash`, usually last.
      if (b.lastIndexOf(hashKeyText(key)) >= 0) {
        i = checkValueAt(b, start, "openagents", sink, DEFAULT_MAX_DEPTH - 1);
        cuts.canonical.push(-1, -1);
      } else {
        const from = sink.len;
        i = canonicalizeValueAt(b, start, "openagents", sink, DEFAULT_MAX_DEPTH - 1);
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
    if (b[i] === 0x7d) return true;
    if (b[i] !== 0x2c) return false;
    i = skipSpace(b, i + 1);
  }
}

const HASH_KEY_TEXTS = new Map([...RAW_KEYS].map((k) => [k, Buffer.from(`"${k}_hash"`)]));

/** `"<key>_hash"` as bytes, for a raw key. */
function hashKeyText(key: string): Buffer {
  return HASH_KEY_TEXTS.get(key) as Buffer;
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
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** The index after the string whose opening quote is at `i`; -1 when it does not close. */
function stringEnd(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(0x22, from);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === 0x5c) k--;
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
  if (first === 0x22) return stringEnd(b, i);
  if (first !== 0x7b && first !== 0x5b) return scalarEnd(b, i, cuts);
  let depth = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c === 0x22) {
      i = stringEnd(b, i);
      if (i < 0) return -1;
      if (b[skipSpace(b, i)] === 0x3a) cuts.names++;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
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
    if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break;
    i++;
  }
  const c = b[start] as number;
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) cuts.numbers.push(start, i);
  return i;
}

/** How `mapLines` builds the line redaction, on this thread and on workers. */
export interface RedactTaskInit {
  task: "redact";
  format: LinesFormat;
  preset: Preset;
  file: string;
  key?: Uint8Array;
}

/**
 * The redaction of lines as a `mapLines` task: each line's `RedactedLine`, and as state the counts
 * since the last `finish`, which `mergeCounts` adds up in file order. Between threads a batch's
 * texts travel in one buffer.
 */
export function redactTask(init: RedactTaskInit): LineTask {
  const redactor = new LineRedactor(
    init.format,
    init.preset,
    init.key === undefined ? { file: init.file } : { file: init.file, key: init.key },
  );
  return {
    line: (bytes, line) => redactor.line(bytes, line),
    finish: () => redactor.takeSnapshot(),
    // A batch's texts in one buffer, cut again into views on arrival.
    toWire: (results) => {
      const lines = results as RedactedLine[];
      const ends = new Int32Array(lines.length);
      const carriers = new Uint8Array(lines.length);
      let at = 0;
      lines.forEach((r, k) => {
        at += r.text.length;
        ends[k] = at;
        carriers[k] = r.carrier ? 1 : 0;
      });
      const texts = new Uint8Array(at);
      lines.forEach((r, k) => {
        texts.set(r.text, (ends[k] as number) - r.text.length);
      });
      return { texts, ends, carriers };
    },
    fromWire: (wire) => {
      const { texts, ends, carriers } = wire as { texts: Uint8Array; ends: Int32Array; carriers: Uint8Array };
      const all = Buffer.from(texts.buffer, texts.byteOffset, texts.byteLength);
      const lines: RedactedLine[] = [];
      let start = 0;
      ends.forEach((end, k) => {
        lines.push({ text: all.subarray(start, end), carrier: carriers[k] === 1 });
        start = end;
      });
      return lines;
    },
  };
}

/**
 * The Layer C copy of a JSON Lines file, its lines redacted on worker threads when the file is
 * large (`mapLines`). Redacted lines go to a spool file so the header (or root span) can carry the
 * final counts; only that one line is held in memory.
 */
async function* redactLines(
  first: ByteLine,
  rest: AsyncIterator<ByteLine>,
  format: LinesFormat,
  preset: Preset,
  options: LayerCOptions,
  done: (summary: LayerCSummary) => void,
): AsyncGenerator<Uint8Array> {
  const init: RedactTaskInit =
    options.key === undefined
      ? { task: "redact", format, preset, file: options.file }
      : { task: "redact", format, preset, file: options.file, key: options.key };
  const counts: LayerCCounts[] = [];
  const lines = mapLines(
    prepend(first, rest),
    (line) => !isBlankBytes(line.bytes),
    redactTask(init),
    init,
    options.parallel,
    (state) => counts.push(state as LayerCCounts),
  );
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), "layer-c-"));
  const spoolPath = join(dir, "spool.jsonl");
  try {
    /** The line that carries the summary (the ReplayHeader or root span, else the first line). */
    let carrier: { start: number; text: Buffer } | undefined;
    let firstText: Buffer | undefined;
    let written = 0;
    const spool = await open(spoolPath, "w");
    // Up to 4 chunk writes in flight: the work goes on while the disk takes them.
    const writes: Promise<unknown>[] = [];
    const write = async (chunk: Buffer, at: number): Promise<void> => {
      if (writes.length >= 4) await writes.shift();
      const request = spool.write(chunk, 0, chunk.length, at).then(({ bytesWritten }) => {
        if (bytesWritten !== chunk.length)
          throw new RedactError(
            "redact.spool_short_write",
            `the spool file took ${bytesWritten} of ${chunk.length} bytes`,
          );
      });
      // Handled now (it may fail before its turn to be awaited), thrown when awaited.
      request.catch(() => undefined);
      writes.push(request);
    };
    let failure: { error: unknown } | undefined;
    try {
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      for await (const { result } of lines) {
        if (result === undefined) continue;
        const { text, carrier: isCarrier } = result as RedactedLine;
        if (firstText === undefined) firstText = text;
        if (carrier === undefined && isCarrier) carrier = { start: written, text };
        pending.push(text);
        pendingBytes += text.length;
        written += text.length;
        if (pendingBytes >= 1 << 20) {
          await write(Buffer.concat(pending, pendingBytes), written - pendingBytes);
          pending = [];
          pendingBytes = 0;
        }
      }
      if (pendingBytes > 0) await write(Buffer.concat(pending, pendingBytes), written - pendingBytes);
    } catch (error) {
      failure = { error };
    }
    // Every write settles before the file closes; the first error (the work's, else a write's,
    // else the close's) is thrown.
    for (const r of await Promise.allSettled(writes))
      if (r.status === "rejected") failure ??= { error: r.reason };
    try {
      await spool.close();
    } catch (error) {
      failure ??= { error };
    }
    if (failure !== undefined) throw failure.error;
    const target = carrier ?? (firstText === undefined ? undefined : { start: 0, text: firstText });
    const summary = layerCSummary(format, preset, mergeCounts(counts), await options.original);
    const reader = await open(spoolPath, "r");
    try {
      // The spool as it is, with the target line swapped for its copy carrying the summary.
      if (target !== undefined) {
        yield* spooled(reader, 0, target.start);
        yield withSummary(format, target.text, summary);
        yield* spooled(reader, target.start + target.text.length, written);
      }
    } finally {
      await reader.close();
    }
    done(summary);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bytes `[from, to)` of an open file, in chunks of up to 1 MiB. */
async function* spooled(file: FileHandle, from: number, to: number): AsyncGenerator<Uint8Array> {
  for (let at = from; at < to; ) {
    const chunk = Buffer.allocUnsafeSlow(Math.min(1 << 20, to - at));
    const { bytesRead } = await file.read(chunk, 0, chunk.length, at);
    if (bytesRead === 0) throw new RedactError("redact.spool_truncated", "the spool file ended early");
    at += bytesRead;
    yield chunk.subarray(0, bytesRead);
  }
}

/** `first`, then the rest of the lines (a plain iterator: no generator step per line). */
function prepend(first: ByteLine, rest: AsyncIterator<ByteLine>): AsyncIterator<ByteLine> {
  let pending: ByteLine | undefined = first;
  return {
    next: () => {
      if (pending === undefined) return rest.next();
      const value = pending;
      pending = undefined;
      return Promise.resolve({ value, done: false });
    },
  };
}

const NEWLINE = Buffer.from("\n");

// ---------------------------------------------------------------------------------------------
// Documents

/** The `.rpk` layout (replaykit.ts) plus the 0.9 names; step input/output are handled apart. */
const RPK_RUN_KNOWN: ReadonlySet<string> = new Set([...RUN_KEYS, "env_fingerprint", "runtime"]);
const RPK_STEP_KNOWN: ReadonlySet<string> = new Set(
  [...STEP_KEYS, "step_hash"].filter((k) => k !== "input" && k !== "output"),
);
/** A step's raw content: 1.x `input`/`output`, 0.9 `request`/`response`. */
const RPK_STEP_RAW: ReadonlySet<string> = new Set(["input", "output", "request", "response"]);

/** ReplayKit's mask (`replaypack/capture/redaction.py`, `RedactionPolicy.mask`), written in place of a masked value. */
export const RPK_MASK = "[REDACTED]";

/**
 * `metadata.redaction_policy_version` of a `.rpk` copy. ReplayKit writes its policy's version there
 * (`bundle.py`: "1.0", "1.0-none", "1.0-custom"); ours names these Layer C rules, so a reader can
 * tell which masking a copy had.
 */
export const RPK_REDACTION_POLICY_VERSION = "replay-pipeline-layer-c-1";

/**
 * A ReplayKit artifact, redacted the way ReplayKit's own bundle export redacts one
 * (`bundle.py` `redact_run_for_bundle` with `redaction.py` `redact_payload`, then
 * `build_artifact_envelope`), so the copy is a valid, self-consistent artifact ReplayKit replays,
 * diffs and migrates as what it is:
 * - values are masked in place (`rpkValue`): every member and array item stays, step input/output
 *   (0.9 request/response) are raw content (ADR-0017), so their values become `RPK_MASK`;
 * - each step hash (`computeStepHash`) and the checksum (`computeChecksum`) are recomputed over the
 *   copy, and metadata gets ReplayKit's bundle markers (`bundle`, `source_run_id`,
 *   `redaction_profile` = the preset, `redaction_policy_version`);
 * - `metadata.redaction` holds our summary, with `original`: every original step hash (in step
 *   order, null where a step had none) and the original checksum, which link the copy to its
 *   original and to the original's receipt;
 * - a signature is dropped (recorded as `signature: "removed"`): it covered the unredacted content,
 *   and ReplayKit's bundle never carries the source's signature over either.
 */
function redactReplaykit(
  doc: JsonObject,
  ctx: Context,
  original: LayerCOrigin,
): { value: JsonObject; events: number } {
  ctx.profile = "replaykit";
  const legacy = doc.version === LEGACY_VERSION;
  const run = isJsonObject(doc.payload) && isJsonObject(doc.payload.run) ? doc.payload.run : undefined;
  const rawSteps = run !== undefined && Array.isArray(run.steps) ? run.steps : [];
  const base = "$.payload.run.steps[*]";
  const originalHashes: (string | null)[] = [];
  const steps = rawSteps.map((raw, index): JsonValue => {
    if (!isJsonObject(raw)) {
      originalHashes.push(null);
      return rpkValue(raw, base, "steps", ctx, true);
    }
    const recorded = legacy ? (raw.step_hash ?? raw.hash) : raw.hash;
    originalHashes.push(typeof recorded === "string" && SHA256_TAG.test(recorded) ? recorded : null);
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(raw)) {
      if (RPK_STEP_RAW.has(k) && (legacy || k === "input" || k === "output"))
        setMember(out, k, rpkValue(v, child(base, k), k, ctx, true));
      else rpkMember(out, k, v, base, RPK_STEP_KNOWN, ctx);
    }
    // A 0.9 step keeps its own hash members (`step_hash`, which the migration reads first, and/or
    // `hash`); each gets the new hash, so none still holds the original's.
    const hash = stepHashAt(out, legacy, index);
    const hashKeys = legacy ? ["step_hash", "hash"].filter((k) => Object.hasOwn(raw, k)) : [];
    for (const k of hashKeys.length === 0 ? ["hash"] : hashKeys) setMember(out, k, hash);
    return out;
  });
  let payload: JsonValue | undefined = doc.payload;
  let runId: JsonValue | undefined;
  if (run !== undefined && isJsonObject(doc.payload)) {
    const redactedRun: JsonObject = {};
    for (const [k, v] of Object.entries(run)) {
      if (k === "steps") setMember(redactedRun, k, steps);
      else rpkMember(redactedRun, k, v, "$.payload.run", RPK_RUN_KNOWN, ctx);
    }
    runId = redactedRun.id;
    payload = { run: redactedRun };
    for (const k of Object.keys(doc.payload))
      if (k !== "run") ctx.drop(child("$.payload", ctx.scrubKey(k, "$.payload")), "layer_c.fail_closed");
  } else if (payload !== undefined) {
    payload = structuralValue(payload, "$.payload", "payload", ctx, "layer_c.fail_closed", true) ?? {};
  }
  const rawMetadata = isJsonObject(doc.metadata) ? doc.metadata : {};
  const metadata = rpkValue(rawMetadata, "$.metadata", "metadata", ctx, ctx.paranoid) as JsonObject;
  for (const k of Object.keys(doc)) {
    if (k === "version" || k === "metadata" || k === "payload" || k === "checksum") continue;
    ctx.drop(
      child("$", ctx.scrubKey(k, "$")),
      k === "signature" ? "layer_c.signature_removed" : "layer_c.fail_closed",
    );
  }
  const summary = ctx.summary("replaykit-rpk", rawSteps.length, original);
  const checksum = doc.checksum;
  summary.original = {
    ...summary.original,
    checksum: typeof checksum === "string" && SHA256_TAG.test(checksum) ? checksum : null,
    step_hashes: originalHashes,
  };
  if (Object.hasOwn(doc, "signature")) summary.signature = "removed";
  // ReplayKit's bundle markers (`write_bundle_artifact`): a redacted export of run `source_run_id`.
  setMember(metadata, "bundle", true);
  if (typeof runId === "string") setMember(metadata, "source_run_id", runId);
  setMember(metadata, "redaction_profile", ctx.preset);
  setMember(metadata, "redaction_policy_version", RPK_REDACTION_POLICY_VERSION);
  setMember(metadata, "redaction", summaryValue(summary));
  const out: JsonObject = {};
  setMember(out, "version", doc.version ?? null);
  setMember(out, "metadata", metadata);
  if (payload !== undefined) setMember(out, "payload", payload);
  setMember(out, "checksum", computeChecksum(out.version ?? null, metadata, payload ?? null));
  return { value: out, events: rawSteps.length };
}

/**
 * The hash of step `index` of a `.rpk` copy. A value ReplayKit cannot hash (an out-of-range
 * timestamp) is reported at its path in the file, not in the hashed `{type, input, output, metadata}`.
 */
function stepHashAt(step: JsonObject, legacy: boolean, index: number): string {
  try {
    return computeStepHash(stepContent(step, legacy));
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    const path = `$.payload.run.steps[${index}]${(error.location.path ?? "$").slice(1)}`;
    throw new CanonicalizationError(error.code, error.detail, { ...error.location, path }, { cause: error });
  }
}

/**
 * One member of a `.rpk` step or run (other than the ones handled apart): a member the format
 * knows is masked in place (`rpkValue`; verbatim when it is an id, type, timestamp or hash, as
 * `redactEvent` keeps those); an unknown one fails closed (`redactEvent`), and an unknown raw-named
 * one is dropped whole, since ReplayKit would not carry it over (`Step.from_dict`, `Run.from_dict`).
 */
function rpkMember(
  out: JsonObject,
  key: string,
  value: JsonValue,
  path: string,
  known: ReadonlySet<string>,
  ctx: Context,
): void {
  const isKnown = known.has(key);
  if (isKnown && !(isVerbatimKey(key) && isScalarOrScalars(value) && verbatimSafe(key, value))) {
    setMember(out, key, rpkValue(value, child(path, key), key, ctx, ctx.paranoid));
  } else if (!isKnown && RAW_KEYS.has(key)) {
    ctx.drop(child(path, ctx.scrubKey(key, path)), "layer_c.fail_closed");
  } else {
    const one = redactEvent({ [key]: value }, path, ctx, { known, required: known });
    for (const [k, v] of Object.entries(one)) setMember(out, k, v);
  }
}

/**
 * A free-form `.rpk` value masked in place, as ReplayKit's `redaction.py` `_redact` does: every
 * member and array item stays where it was (member names scrubbed for secrets). Under `masking`
 * (raw content: step input/output, any raw-named member, and in `paranoid` everything free-form)
 * a string or number becomes `RPK_MASK`, except under a name Layer C keeps everywhere (structural:
 * types, ids, timings, statuses, hashes; and the preset's allow-list, such as `tool`); null and
 * booleans stay, because a mask would read as a truthy value (`error: false`). Kept strings are
 * scrubbed, hashes kept verbatim.
 */
function rpkValue(value: JsonValue, path: string, key: string, ctx: Context, masking: boolean): JsonValue {
  if (Array.isArray(value)) return value.map((v) => rpkValue(v, `${path}[*]`, key, ctx, masking));
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const name = ctx.scrubKey(k, path);
      setMember(out, name, rpkValue(v, child(path, name), k, ctx, masking || RAW_KEYS.has(k)));
    }
    return out;
  }
  if (value === null || typeof value === "boolean") return value;
  if (masking && !isStructuralKey(key) && !ctx.allow.has(key)) {
    ctx.rules.add("layer_c.raw_masked");
    ctx.paths.add(path);
    return RPK_MASK;
  }
  if (typeof value !== "string" || (isHashKey(key) && HASH_VALUE.test(value))) return value;
  return ctx.scrub(value, path, key);
}

/** Free-form metadata: kept scrubbed (structural only in `paranoid`), raw members removed. */
function metadataOf(metadata: JsonObject, path: string, ctx: Context): JsonObject {
  if (ctx.paranoid) {
    const kept = structuralValue(metadata, path, "metadata", ctx, "layer_c.paranoid", true);
    return isJsonObject(kept ?? null) ? (kept as JsonObject) : {};
  }
  return freeValue(metadata, path, "metadata", ctx) as JsonObject;
}

const BUNDLE_TOP: ObjectRules = {
  known: new Set(["version", "id", "created_at", "metadata", "timeline", "receipts"]),
  required: new Set(["version", "id", "created_at", "timeline"]),
};
const BUNDLE_ENTRY_TYPES: ReadonlySet<string> = new Set([
  "phase_start",
  "phase_end",
  "tool_call",
  "tool_result",
  "assistant",
]);

/**
 * A ReplayBundle: `data.input` and `data.result` (and any other raw member) removed with their
 * openagents hashes (`data.input_hash` equals the reader's `params_hash`, `data.result_hash` its
 * `output_hash`); entries keep `t`, `type`, `tool`; unknown entry types fail closed; the summary
 * goes to `metadata.redaction`.
 */
function redactBundle(
  doc: JsonObject,
  ctx: Context,
  original: LayerCOrigin,
): { value: JsonObject; events: number } {
  const timeline = Array.isArray(doc.timeline) ? doc.timeline : [];
  const { timeline: _t, metadata: rawMeta, ...top } = doc;
  const out = redactEvent(top as JsonObject, "$", ctx, BUNDLE_TOP);
  const entries = timeline.map((entry) => {
    if (!isJsonObject(entry)) return entry;
    const type = typeof entry.type === "string" ? entry.type : "";
    const known = BUNDLE_ENTRY_TYPES.has(type);
    const { data, ...rest } = entry;
    const redacted = redactEvent(rest as JsonObject, "$.timeline[*]", ctx, {
      known: new Set(["t", "type", "tool"]),
      required: new Set(["t", "type"]),
    });
    if (data !== undefined) {
      const at = "$.timeline[*].data";
      let d: JsonValue | undefined;
      if (!isJsonObject(data)) {
        d = known && !ctx.paranoid && !Array.isArray(data) ? freeValue(data, at, "data", ctx) : null;
      } else if (known && !ctx.paranoid) {
        d = freeValue(data, at, "data", ctx);
      } else {
        d = redactEvent(data, at, ctx, { allow: known ? new Set() : ctx.allow });
      }
      setMember(redacted, "data", d ?? {});
    }
    return redacted;
  });
  const metadata = isJsonObject(rawMeta) ? metadataOf(rawMeta, "$.metadata", ctx) : {};
  setMember(out, "timeline", entries);
  const summary = ctx.summary("replay-bundle", timeline.length, original);
  setMember(metadata, "redaction", summaryValue(summary));
  setMember(out, "metadata", metadata);
  return { value: out, events: timeline.length };
}

// ---------------------------------------------------------------------------------------------
// Entry point

/**
 * Writes the Layer C copy of a replay file of any supported format (detected from the first
 * line, or the whole document). JSON Lines (REPLAY dialects, Braintrust spans) are read line by
 * line in flat memory and written as one canonical (openagents) line per input event, in order;
 * the summary goes on the ReplayHeader (`redaction`) or the root span (`metadata.redaction`).
 * Documents (`.rpk`, ReplayBundle) are written as one canonical line (`.rpk`: replaykit profile).
 */
export function redactFile(source: AsyncIterable<Uint8Array>, options: LayerCOptions): LayerCRedaction {
  const preset = options.preset ?? "private_repo";
  let result: LayerCSummary | undefined;
  const done = (summary: LayerCSummary): void => {
    result = summary;
  };
  async function* run(): AsyncGenerator<Uint8Array> {
    const maxDocument = options.maxDocumentBytes ?? 256 * 1024 * 1024;
    const lines = readByteLines(source, { maxLineBytes: options.maxLineBytes })[Symbol.asyncIterator]();
    const parts: Buffer[] = [];
    let size = 0;
    let documentMode = false;
    for (;;) {
      const next = await lines.next();
      if (next.done === true) break;
      const { line, bytes, terminated } = next.value;
      if (documentMode) {
        size += bytes.length + 1;
        if (size > maxDocument) {
          throw new RedactError(
            "document.too_large",
            `document is larger than ${maxDocument} bytes; expected at most that`,
            { file: options.file },
          );
        }
        parts.push(Buffer.from(bytes), terminated ? NEWLINE : Buffer.alloc(0));
        continue;
      }
      if (isBlankBytes(bytes)) continue;
      let value: JsonValue;
      try {
        value = readJson(decodeUtf8(bytes));
      } catch (error) {
        const text = bytes.toString("utf8").trim();
        if (text === "{" || text === "[") {
          documentMode = true;
          parts.push(Buffer.from(bytes), NEWLINE);
          size = bytes.length + 1;
          continue;
        }
        if (error instanceof ReplayPipelineError) error.locate({ file: options.file, lineOffset: line - 1 });
        throw error;
      }
      const format = formatOf(value, options.file, line);
      if (!isLinesFormat(format)) {
        for (;;) {
          const more = await lines.next();
          if (more.done === true) break;
          if (!isBlankBytes(more.value.bytes)) {
            throw new RedactError("document.trailing_content", `more content after the ${format} document`, {
              file: options.file,
              line: more.value.line,
            });
          }
        }
        yield* document(value, format, preset, options, done);
        return;
      }
      yield* redactLines(next.value, lines, format, preset, options, done);
      return;
    }
    if (!documentMode)
      throw new RedactError("input.empty", "the file has no content; expected a replay file", {
        file: options.file,
      });
    let value: JsonValue;
    try {
      value = readJson(decodeUtf8(Buffer.concat(parts)), { rejectLoneSurrogates: false });
    } catch (error) {
      if (error instanceof ReplayPipelineError) error.locate({ file: options.file });
      throw error;
    }
    const format = formatOf(value, options.file, 1);
    if (isLinesFormat(format)) {
      throw new RedactError(
        "format.not_lines",
        `${format} is JSON Lines, but this file is one multi-line document`,
        {
          file: options.file,
        },
      );
    }
    yield* document(value, format, preset, options, done);
  }
  return {
    chunks: run(),
    summary(): LayerCSummary {
      if (result === undefined)
        throw new RedactError(
          "redact.not_finished",
          "the redaction summary is known once every chunk was read",
        );
      return result;
    },
  };
}

function formatOf(value: JsonValue, file: string, line: number): FormatId {
  const format = detectFormat(value);
  if (format === null) {
    throw new RedactError(
      "format.unknown",
      "not a replay format this tool reads; expected a REPLAY.jsonl event, a Braintrust span, a ReplayBundle or a ReplayKit artifact",
      { file, line },
    );
  }
  return format;
}

/** The summary back from its JSON value. */
function summaryOf(value: JsonValue | undefined): LayerCSummary {
  return JSON.parse(JSON.stringify(value)) as LayerCSummary;
}

async function* document(
  value: JsonValue,
  format: "replaykit-rpk" | "replay-bundle",
  preset: Preset,
  options: LayerCOptions,
  done: (summary: LayerCSummary) => void,
): AsyncGenerator<Uint8Array> {
  const { key } = options;
  const scrubOptions: ScrubOptions = key === undefined ? { preset } : { preset, key };
  const ctx = new Context(preset, new Scrubber(scrubOptions));
  const doc = value as JsonObject;
  const original = await options.original;
  const { value: out } =
    format === "replaykit-rpk" ? redactReplaykit(doc, ctx, original) : redactBundle(doc, ctx, original);
  const profile: Profile = format === "replaykit-rpk" ? "replaykit" : "openagents";
  const metadata = out.metadata as JsonObject;
  yield Buffer.from(`${canonicalize(out, profile)}\n`);
  done(summaryOf(metadata.redaction));
}
