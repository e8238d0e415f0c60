/**
 * The counts of a Layer C copy and the record it carries (`LayerCSummary`): counted per batch,
 * merged in file order, written into the copy as JSON.
 */
import { JsonNumber, type JsonObject, type JsonValue, setMember } from "../../canonical/index.js";
import type { FormatId, LayerCOrigin } from "../../formats/index.js";
import type { Preset } from "../presets.js";
import type { RedactionSummary } from "../scrub.js";

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

/** Counts by key, in the order keys were first counted. */
export class Counter {
  counts: Record<string, number> = {};
  add(key: string, n = 1): void {
    this.counts[key] = (this.counts[key] ?? 0) + n;
  }
  /** Counting starts afresh. */
  reset(): void {
    this.counts = {};
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

/** The summary as a JSON value (numbers as `JsonNumber`), to write into the copy. */
export function summaryValue(summary: LayerCSummary): JsonValue {
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

/** The summary back from its JSON value. */
export function summaryOf(value: JsonValue | undefined): LayerCSummary {
  return JSON.parse(JSON.stringify(value)) as LayerCSummary;
}
