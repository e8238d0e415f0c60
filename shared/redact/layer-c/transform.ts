/**
 * The Layer C transform of values and events: raw members removed (their hash kept), known members
 * scrubbed, unknown ones failing closed, and the rules each JSON Lines format's fields give.
 */
import { isJsonObject, type JsonObject, type JsonValue, setMember } from "../../canonical/index.js";
import type { ReplayEventFields } from "../../formats/index.js";
import type { Context } from "./context.js";
import {
  child,
  HASH_VALUE,
  isHashKey,
  isStructuralKey,
  isVerbatimKey,
  namedValueField,
  PARANOID_REPLACED,
  PARANOID_TEXT,
  RAW_KEYS,
} from "./policy.js";

/**
 * Free content: every member kept except raw ones (removed, hash kept); strings and member
 * names scrubbed. In `paranoid` this is never used: see `structural`.
 */
export function freeValue(value: JsonValue, path: string, key: string, ctx: Context): JsonValue {
  if (typeof value === "string") return ctx.scrub(value, path, key);
  if (Array.isArray(value)) {
    // An array of strings may be an argument vector: read together (`["-p", "S3cret"]`).
    if (value.length > 1 && value.every((v) => typeof v === "string")) {
      return ctx.scrubArgs(value as string[], `${path}[*]`, key);
    }
    return value.map((v) => freeValue(v, `${path}[*]`, key, ctx));
  }
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  const named = namedValueField(value, key);
  for (const [k, v] of Object.entries(value)) {
    if (RAW_KEYS.has(k)) {
      ctx.removeRaw(value, out, k, path);
      continue;
    }
    const name = ctx.scrubKey(k, path);
    const at = child(path, name);
    // A hash keeps its exact value wherever it is.
    if (isHashKey(k) && typeof v === "string" && HASH_VALUE.test(v)) setMember(out, name, v);
    else setMember(out, name, freeValue(v, at, named?.field === k ? named.name : k, ctx));
  }
  return out;
}

/**
 * Structural content only: structural members at any depth, with the objects and arrays that
 * lead to them; raw members removed (hash kept); everything else dropped under `rule`.
 * Undefined when nothing is left.
 */
export function structuralValue(
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
export interface ObjectRules {
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
export function redactEvent(
  event: JsonObject,
  path: string,
  ctx: Context,
  rules: ObjectRules,
  hashes?: ReadonlyMap<string, string>,
): JsonObject {
  const out: JsonObject = {};
  const keep: KeepMember = (name, value) => setMember(out, name, value);
  for (const [k, v] of Object.entries(event)) {
    if (RAW_KEYS.has(k)) ctx.removeRaw(event, out, k, path, hashes?.get(k));
    else redactMember(k, v, path, ctx, rules, keep);
  }
  return out;
}

/**
 * Where `redactMember` puts what it keeps of a member: its name in the copy and its value;
 * `verbatim` when the value is the member's own, unchanged.
 */
export type KeepMember = (name: string, value: JsonValue, verbatim: boolean) => void;

/**
 * Layer C of member `k` (not a raw one: see `Context.removeRaw`) of an event at `path`, by
 * `redactEvent`'s rules: gives `keep` what the copy holds of it, if anything.
 */
export function redactMember(
  k: string,
  v: JsonValue,
  path: string,
  ctx: Context,
  rules: ObjectRules,
  keep: KeepMember,
): void {
  const known = rules.known?.has(k) === true;
  const required = rules.required?.has(k) === true;
  // A member the format does not define is untrusted down to its name: the name is scrubbed
  // before it is written anywhere (the copy or its summary), and its value is never verbatim.
  if (known && isVerbatimKey(k) && isScalarOrScalars(v) && verbatimSafe(k, v)) {
    keep(k, v, true);
    return;
  }
  const name = known ? k : ctx.scrubKey(k, path);
  const at = child(path, name);
  if (ctx.paranoid) {
    if (required && PARANOID_REPLACED.has(k)) {
      keep(k, Array.isArray(v) ? v.map(() => PARANOID_TEXT) : PARANOID_TEXT, false);
      ctx.rules.add("layer_c.paranoid_text");
      ctx.paths.add(at);
      return;
    }
    if (required && !isJsonObject(v) && !Array.isArray(v)) {
      keep(k, typeof v === "string" ? ctx.scrub(v, at, k) : v, false);
      return;
    }
    const kept = structuralValue(v, at, k, ctx, "layer_c.paranoid", isStructuralKey(k));
    if (kept !== undefined) keep(name, kept, false);
    else if (required) keep(k, Array.isArray(v) ? [] : {}, false);
    return;
  }
  const allowed =
    known ||
    (rules.known === undefined
      ? rules.allow?.has(k) === true
      : ctx.preset === "open_source" && !isJsonObject(v) && !Array.isArray(v));
  if (allowed) {
    keep(name, freeValue(v, at, k, ctx), false);
    return;
  }
  const kept = structuralValue(v, at, k, ctx, "layer_c.fail_closed", isStructuralKey(k));
  if (kept !== undefined) keep(name, kept, false);
}

/**
 * A hash member is copied verbatim only when it holds a hash (receipts match on the exact value);
 * anything else under a hash-like or id-like name is scrubbed like free text.
 */
export function verbatimSafe(key: string, value: JsonValue): boolean {
  if (!isHashKey(key)) return true;
  const values = Array.isArray(value) ? value : [value];
  return values.every((v) => typeof v !== "string" || HASH_VALUE.test(v));
}

/** A scalar, or an array of scalars (`span_parents`, `exit_codes`). */
export function isScalarOrScalars(v: JsonValue): boolean {
  const scalar = (x: JsonValue): boolean => !Array.isArray(x) && !isJsonObject(x);
  return Array.isArray(v) ? v.every(scalar) : scalar(v);
}

// ---------------------------------------------------------------------------------------------
// REPLAY.jsonl

/**
 * A REPLAY event by its type's fields (`REPLAY_EVENT_FIELDS` of the dialect); an unknown type keeps
 * only structural members and the preset's allow-list.
 */
export function redactReplayEvent(
  value: JsonObject,
  ctx: Context,
  rules: ReplayEventFields,
  hashes?: ReadonlyMap<string, string>,
): JsonObject {
  const type = value[rules.typeKey];
  const known = typeof type === "string" ? rules.byType.get(type) : undefined;
  return redactEvent(value, "$", ctx, known ?? { allow: ctx.allow }, hashes);
}

// ---------------------------------------------------------------------------------------------
// Braintrust spans

/** A span that may be a trace's root: no parents, or itself among them. */
export function isRootShaped(span: JsonObject): boolean {
  const parents = span.span_parents;
  if (parents === undefined || parents === null) return true;
  if (!Array.isArray(parents)) return false;
  return parents.length === 0 || parents.includes(span.span_id as JsonValue);
}
