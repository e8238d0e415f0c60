/**
 * What Layer C keeps and how it reads a member name: the raw members it removes, what `paranoid`
 * writes, the allow-lists of the presets, the kinds of keys (hash, structural, verbatim), and the
 * objects that name their value by a field.
 */
import { type JsonObject, memberPath } from "../../canonical/index.js";
import { remembered } from "../../memo.js";
import type { Preset } from "../presets.js";

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
export const PARANOID_REPLACED: ReadonlySet<string> = new Set(["command", "commands", "task"]);
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
export function isVerbatimKey(key: string): boolean {
  return (keyKind(key) & IS_VERBATIM) !== 0;
}

/** True for a hash-like member name (`hash`, `checksum`, `…_hash`). */
export function isHashKey(key: string): boolean {
  return (keyKind(key) & IS_HASH) !== 0;
}
/** Path inside an event for the summary: array positions folded to `[*]`. */
export function child(path: string, key: string): string {
  // An event's own members come on every line: their paths are kept whole, not joined again (a
  // new string would also be hashed again by each counter it goes to).
  return path === "$" ? topPathOf(key) : path + segmentOf(key);
}
const segmentOf = remembered(memberPath);
const topPathOf = remembered((key: string) => `$${memberPath(key)}`);

/** A hash value: kept verbatim wherever it is (receipts match on it). */
export const HASH_VALUE = /^(?:sha256:|hmac-sha256:)?[0-9a-f]{64}$/;

/** Members that name another member's value, and the members that hold it. */
const NAME_FIELDS = ["name", "Name", "key", "Key", "ParameterKey", "parameter_key", "ParameterName"];
const VALUE_FIELDS = ["value", "Value", "ParameterValue", "parameter_value", "SecretString", "default"];

/**
 * In an object that names its value by a field (`{"name": "DB_PASSWORD", "value": "x"}` in a
 * container's environment, AWS tags and stack parameters), the value's member and the name it is
 * given: the value is scrubbed as if it stood under that name. Under `cookies` (a browser's saved
 * state, a HAR file) every such value is a cookie's, whatever the cookie's name (`sid`).
 */
export function namedValueField(
  obj: JsonObject,
  parent: string,
): { field: string; name: string } | undefined {
  const nameField = NAME_FIELDS.find((f) => typeof obj[f] === "string");
  if (nameField === undefined) return undefined;
  const field = VALUE_FIELDS.find((f) => typeof obj[f] === "string");
  if (field === undefined) return undefined;
  return { field, name: COOKIES.test(parent) ? "cookie" : (obj[nameField] as string) };
}
const COOKIES = /^(?:cookies|Cookies|cookie_jar|cookieJar)$/;
