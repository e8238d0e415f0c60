/** The per-file state of a Layer C redaction: its scrubber and counters. */
import {
  canonicalHash,
  type JsonObject,
  type JsonValue,
  type Profile,
  setMember,
} from "../../canonical/index.js";
import type { FormatId, LayerCOrigin } from "../../formats/index.js";
import type { LearnedSecret } from "../detect/recurrence.js";
import type { Preset } from "../presets.js";
import type { RedactionSummary } from "../scrub.js";
import { child, UNKNOWN_EVENT_ALLOW } from "./policy.js";
import { Counter, type LayerCCounts, type LayerCSummary, layerCSummary } from "./summary.js";

/** What Layer C needs of a `Scrubber` (`./scrub.ts`). */
export interface StringScrubber {
  scrub(value: string, path: string, key?: string): string;
  /** Scrubs an array of strings as one command line (see `Scrubber.scrubArgs`). */
  scrubArgs(parts: readonly string[], path: string, key?: string): string[];
  scrubKey(name: string, path: string): string;
  summary(): RedactionSummary;
  /** The counts since the last call, counting afresh after it. */
  takeSummary(): RedactionSummary;
  /** A mark of the secrets learned so far. */
  epoch(): number;
  /** Written output with the secrets learned after `epoch` replaced (see `Scrubber.redactLearned`). */
  redactLearned(text: string, path: string, epoch: number): string;
  /** May UTF-8 `written` hold a secret learned after `epoch` (see `Scrubber.mayHoldLearned`)? */
  mayHoldLearned(written: Buffer, epoch: number): boolean;
  /** The secrets learned since the last call (see `Scrubber.takeLearned`). */
  takeLearned(): readonly LearnedSecret[];
  /** Forgets the secrets learned so far, taken or not (see `Scrubber.forgetKnown`). */
  forgetKnown(): void;
  /** Starts knowing secrets earlier lines of the file revealed (see `Scrubber.learnAll`). */
  learnAll(secrets: readonly LearnedSecret[]): void;
  /** Written JSON with the known secrets it holds replaced (see `Scrubber.redactKnown`). */
  redactKnown(written: Uint8Array | string, pathAt: (json: string, at: number) => string): string | undefined;
}

/** Per-file redaction state: the scrubber, the counters and the hashing profile. */
export class Context {
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

  scrubArgs(parts: readonly string[], path: string, key: string): string[] {
    return this.scrubber.scrubArgs(parts, path, key);
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
    if (Object.hasOwn(source, `${key}_hash`)) return;
    const hash = known ?? this.hash(source[key] as JsonValue);
    setMember(out, this.hashAdded(key, path), hash);
  }

  /** Counts `<key>_hash` added in place of raw member `key` (see `removeRaw`); returns that name. */
  hashAdded(key: string, path: string): string {
    const hashKey = `${key}_hash`;
    this.added.add(child(path, hashKey));
    this.rules.add("layer_c.hash_added");
    return hashKey;
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
