/**
 * Layer C conformance: every corpus replay under every preset gives a copy that parses, keeps
 * every original hash value, contains none of the removed raw values, and reads back with
 * `inspect` (REPLAY: not invalid). `.rpk` copies mask raw content in place instead of removing it:
 * redact-replaykit.test.ts.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  canonicalize,
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { corpusBytes, corpusList } from "../support/corpus.js";
import { ALL_PRESETS, redactBytes } from "../unit/redact/layer-c/helpers.js";

const HASH_RE = /sha256:[0-9a-f]{64}/g;

/** Every `sha256:` value of the original bytes. */
function hashesIn(text: string): Set<string> {
  return new Set(text.match(HASH_RE) ?? []);
}

/** Every string (5 characters or more) inside a removed raw member: the copy must not hold them as values. */
function rawValues(value: JsonValue, keys: ReadonlySet<string>, out: string[] = [], inRaw = false): string[] {
  if (typeof value === "string") {
    if (inRaw && value.length >= 5) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) rawValues(v, keys, out, inRaw);
  } else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) rawValues(v, keys, out, inRaw || keys.has(k));
  }
  return out;
}

/** Raw members of the copy that are still there. */
function rawMembersLeft(
  value: JsonValue,
  keys: ReadonlySet<string>,
  path = "$",
  out: string[] = [],
): string[] {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) rawMembersLeft(v, keys, `${path}[${i}]`, out);
  } else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (keys.has(k)) out.push(`${path}.${k}`);
      else rawMembersLeft(v, keys, `${path}.${k}`, out);
    }
  }
  return out;
}

/** The value with every raw member deleted, as canonical text: what may legitimately remain. */
function withoutRaw(value: JsonValue, keys: ReadonlySet<string>): string {
  const strip = (v: JsonValue): JsonValue => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isJsonObject(v)) return v;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (!keys.has(k)) out[k] = strip(x);
    return out;
  };
  return canonicalize(strip(value), "openagents");
}

function parseAll(text: string, lines: boolean): JsonValue[] {
  if (!lines) return [readJson(decodeUtf8(Buffer.from(text)), { rejectLoneSurrogates: false })];
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => readJson(decodeUtf8(Buffer.from(l))));
}

interface Case {
  name: string;
  parts: string[];
  lines: boolean;
  raw: ReadonlySet<string>;
}

const cases: Case[] = [
  ...corpusList("openagents", "replays-type-ts")
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => ({
      name: `openagents/${f}`,
      parts: ["openagents", "replays-type-ts", f],
      lines: true,
      raw: new Set(["params", "output", "payload"]),
    })),
  {
    name: "openagents/replaybundle-sample.json",
    parts: ["openagents", "replaybundle-sample.json"],
    lines: false,
    raw: new Set(["input", "result"]),
  },
  ...corpusList("dynamo")
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => ({
      name: `dynamo/${f}`,
      parts: ["dynamo", f],
      lines: true,
      raw: new Set(["input", "output"]),
    })),
];

describe.each(cases)("$name", ({ parts, lines, raw }) => {
  const original = corpusBytes(...parts);
  const originalText = original.toString("utf8");
  const originalValues = parseAll(originalText, lines);

  it.each(ALL_PRESETS)("%s: parses, keeps hashes, drops raw values, reads back", async (preset) => {
    const { text, summary } = await redactBytes(original, { preset, file: parts.join("/") });
    const copy = parseAll(text, lines);
    expect(copy.length).toBe(originalValues.length);
    expect(summary.preset).toBe(preset);

    for (const hash of hashesIn(originalText)) expect(text, hash).toContain(hash);
    expect(rawMembersLeft(copy as unknown as JsonValue, raw)).toEqual([]);
    // A removed string may also be kept elsewhere in the file (an id in step metadata).
    const kept = withoutRaw(originalValues as unknown as JsonValue, raw);
    // Our own record holds words of its own ("failed" as a count's name): leave it out here.
    const body = JSON.stringify(copy, (k, v) => (k === "redaction" ? undefined : v));
    for (const value of rawValues(originalValues as unknown as JsonValue, raw)) {
      const token = JSON.stringify(value);
      if (kept.includes(token)) continue;
      expect(body, value).not.toContain(token);
    }

    const report = (await inspect(Readable.from([Buffer.from(text)]), { file: "copy" })).report;
    expect(report.verdict, JSON.stringify(report.errors)).not.toBe("invalid");
    expect(report.format).not.toBeNull();
    if (report.format?.startsWith("replay-") === true && report.format !== "replay-bundle") {
      expect(report.checks_total.failed).toBe(0);
    }
  });
});
