import { CanonicalizationError, type ErrorCode } from "../errors.js";
import { remembered } from "../memo.js";
import { isJsonObject, JsonNumber, type JsonValue } from "./json-value.js";
import {
  compareCodePoints,
  fitsSerdeInteger,
  formatEs6,
  formatPythonFloat,
  formatRyu,
  roundTo12Significant,
} from "./numbers.js";
import {
  isPathKey,
  isTimestampKey,
  normalizePath,
  normalizeTimestamp,
  UNORDERED_LIST_KEYS,
  VOLATILE_KEYS,
} from "./replaykit-rules.js";

/** The canonical JSON dialects of the producers we verify (see specs/HASHING-NOTES.md). */
export const PROFILES = ["jcs", "openagents", "replaykit"] as const;

/** `jcs` (RFC 8785), `openagents` (serde_json, sorted keys), `replaykit` (Python json.dumps + rules). */
export type Profile = (typeof PROFILES)[number];

/** True when `name` is one of `PROFILES`. */
export function isProfile(name: string): name is Profile {
  return (PROFILES as readonly string[]).includes(name);
}

/** Options of `canonicalize`. */
export interface CanonicalOptions {
  /** ReplayKit step hashing: drop volatile keys (`duration_ms`, `request_id`, …) at any depth. */
  stripVolatile?: boolean;
  /** Deepest nesting serialized; guards values that did not come from `readJson`. Default 512. */
  maxDepth?: number;
}

/** True when the profile's producer refuses unpaired surrogates (Python accepts them). */
export function rejectsLoneSurrogates(profile: Profile): boolean {
  return profile !== "replaykit";
}

/**
 * Serializes `value` exactly as the profile's producer does, so its SHA-256 equals the producer's
 * hash. Throws `CanonicalizationError` (with the JSON path) for values the producer cannot hash:
 * NaN or overflowing numbers, unpaired surrogates (jcs, openagents), out-of-range timestamps.
 */
export function canonicalize(value: JsonValue, profile: Profile, options: CanonicalOptions = {}): string {
  const maxDepth = options.maxDepth ?? 512;
  try {
    if (profile === "replaykit") return replaykit(value, "", options.stripVolatile === true, maxDepth);
    return sortedJson(value, profile === "jcs" ? jcsNumber : serdeNumber, profile === "jcs", maxDepth);
  } catch (error) {
    if (error instanceof Failure) {
      throw new CanonicalizationError(error.code, error.message, { path: pathTo(value, error.subject) });
    }
    throw error;
  }
}

/** Internal signal carrying the offending node; `canonicalize` turns it into a located error. */
class Failure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly subject: unknown,
  ) {
    super(message);
  }
}

function jcsNumber(n: JsonNumber): string {
  const v = Number(n.text);
  if (!Number.isFinite(v))
    throw new Failure(
      "canonical.non_finite",
      `number ${n.text} is outside the IEEE-754 double range; RFC 8785 has no Infinity`,
      n,
    );
  return formatEs6(v);
}

/** serde_json (no arbitrary_precision): u64/i64 integers print as written, everything else as f64. */
function serdeNumber(n: JsonNumber): string {
  const t = n.text;
  if (n.isIntegerText && t !== "-0") {
    const negative = t.charCodeAt(0) === 45;
    if (fitsSerdeInteger(negative ? t.slice(1) : t, negative)) return t;
  }
  const v = Number(t);
  if (!Number.isFinite(v))
    throw new Failure("canonical.non_finite", `number ${t} is out of range for serde_json (f64)`, n);
  return formatRyu(v);
}

const HAS_UPPER_BMP = /[\ud800-\uffff]/;

/** Sorts member names by Unicode code point (UTF-8 byte order), as Rust's BTreeMap and Python do. */
function sortByCodePoint(keys: string[]): string[] {
  keys.sort();
  // UTF-16 order differs from code-point order only between surrogates and U+E000..U+FFFF.
  for (const k of keys) {
    if (HAS_UPPER_BMP.test(k)) return keys.sort(compareCodePoints);
  }
  return keys;
}

function jsonString(s: string): string {
  if (!s.isWellFormed())
    throw new Failure(
      "canonical.lone_surrogate",
      "string holds an unpaired surrogate; expected well-formed Unicode",
      s,
    );
  return JSON.stringify(s);
}

/** A member name's JSON text: the same few names come in every object of a kind. */
const keyText = remembered(jsonString);

function sortedJson(
  v: JsonValue,
  num: (n: JsonNumber) => string,
  utf16Order: boolean,
  depthLeft: number,
): string {
  if (typeof v === "string") return jsonString(v);
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof JsonNumber) return num(v);
  if (depthLeft <= 0) throw new Failure("canonical.too_deep", "nesting is deeper than the depth limit", v);
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      out += sortedJson(v[i] as JsonValue, num, utf16Order, depthLeft - 1);
    }
    return `${out}]`;
  }
  const keys = Object.keys(v);
  if (utf16Order) keys.sort();
  else sortByCodePoint(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (i > 0) out += ",";
    out += `${keyText(k)}:${sortedJson(v[k] as JsonValue, num, utf16Order, depthLeft - 1)}`;
  }
  return `${out}}`;
}

const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_ALL = /[\u007f-\uffff]/g;

/** Python `json.dumps(..., ensure_ascii=True)` string text. */
function pythonString(s: string): string {
  const j = JSON.stringify(s);
  return NON_ASCII.test(j)
    ? j.replace(NON_ASCII_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : j;
}

/**
 * ReplayKit canonical_json: the value normalized as `_canonicalize` does (`key` is the member name
 * the value sits under, "[]" inside a list, "" at the root), then printed as Python json.dumps.
 */
function replaykit(v: JsonValue, key: string, strip: boolean, depthLeft: number): string {
  if (typeof v === "string") {
    let s = v.includes("\r") ? v.replace(/\r\n?/g, "\n") : v;
    if (key !== "") {
      const lower = key.toLowerCase();
      if (isPathKey(lower)) s = normalizePath(s);
      else if (isTimestampKey(lower)) {
        try {
          s = normalizeTimestamp(s);
        } catch (error) {
          if (error instanceof CanonicalizationError) throw new Failure(error.code, error.detail, v);
          throw error;
        }
      }
    }
    return pythonString(s);
  }
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof JsonNumber) {
    if (v.isIntegerText) return v.text === "-0" ? "0" : v.text;
    const f = Number(v.text);
    if (!Number.isFinite(f))
      throw new Failure(
        "canonical.non_finite",
        `number ${v.text} overflows a Python float; ReplayKit rejects infinity`,
        v,
      );
    return formatPythonFloat(roundTo12Significant(f));
  }
  if (depthLeft <= 0) throw new Failure("canonical.too_deep", "nesting is deeper than the depth limit", v);
  if (Array.isArray(v)) {
    const items = v.map((item) => replaykit(item, "[]", strip, depthLeft - 1));
    // Sorted by each item's own canonical text, as `_stable_item_sort_key` does.
    if (UNORDERED_LIST_KEYS.has(key.toLowerCase())) items.sort();
    return `[${items.join(",")}]`;
  }
  const keys = sortByCodePoint(Object.keys(v));
  let out = "{";
  let first = true;
  for (const k of keys) {
    if (strip && VOLATILE_KEYS.has(k.toLowerCase())) continue;
    if (!first) out += ",";
    first = false;
    out += `${pythonString(k)}:${replaykit(v[k] as JsonValue, k, strip, depthLeft - 1)}`;
  }
  return `${out}}`;
}

/** JSON path (`$.a[2].b`) of the first node identical to `subject`, searched without recursion. */
function pathTo(root: JsonValue, subject: unknown): string {
  const stack: [JsonValue, string][] = [[root, "$"]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [JsonValue, string];
    if (node === subject) return path;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i] as JsonValue, `${path}[${i}]`]);
    } else if (isJsonObject(node)) {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        if (subject === k) return `${path}${memberPath(k)}`;
        stack.push([node[k] as JsonValue, `${path}${memberPath(k)}`]);
      }
    }
  }
  return "$";
}

/** One step of a JSON path: `.name` for identifiers, `["odd name"]` otherwise. */
export function memberPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
