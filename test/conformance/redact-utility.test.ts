/**
 * What the scrubber costs a replay's readers (issue 20, item 5): on the producers' real files of the
 * conformance corpus (openagents REPLAY.jsonl files and its ReplayBundle sample, ReplayKit `.rpk` runs, dynamo's
 * Braintrust spans), every string Layer C keeps (values and member names outside the raw members it removes,
 * `RAW_KEYS`, or masks: a `.rpk` step's content) goes through `Scrubber.scrub` with its member name as `key` (names through `scrubKey`), as
 * `freeValue` does. These files hold no planted secret, so every string changed is a false positive or a
 * privacy replacement (`private_repo`: e-mails, home paths); `.local/redact-utility.md` gets the counts per file
 * and per rule, with examples.
 *
 * The scrubber runs on each string rather than through `redactFile`: the copy's members and paths change (raw
 * members dropped, hashes added, `.rpk` content masked), so a string of the copy cannot be told from the one it
 * came from; one scrub per string names the rules that changed it.
 *
 * Ids, timestamps, types, statuses and hash values must never change (their member names: `id`, `*_id`, `ts`,
 * `timestamp`, `created_at`, `type`, `status`, `*_hash`; and any `sha256:` value): receipts and readers match on
 * them. Layer C copies most of them verbatim on an event's top level, but not deeper down.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeUtf8, isJsonObject, type JsonValue, readJson } from "#shared/canonical/index.js";
import { Scrubber } from "#shared/redact/index.js";
import { RAW_KEYS } from "#shared/redact/layer-c/policy.js";
import { corpusBytes, corpusList, PROJECT_ROOT } from "../support/corpus.js";

interface CorpusFile {
  name: string;
  values: JsonValue[];
}

/**
 * Is member `k` of the object at `path` raw content Layer C removes (or, in a `.rpk`, masks)? Every `RAW_KEYS`
 * member, but a `.rpk`'s top-level `payload`: that holds the run, whose members Layer C keeps (only each
 * step's content is masked).
 */
const isRaw = (file: string, path: string, k: string): boolean =>
  RAW_KEYS.has(k) && !(file.endsWith(".rpk") && path === "$" && k === "payload");

const lines = (bytes: Buffer): JsonValue[] =>
  bytes
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => readJson(decodeUtf8(Buffer.from(l))));
const whole = (bytes: Buffer): JsonValue[] => [readJson(decodeUtf8(bytes), { rejectLoneSurrogates: false })];

/** The conformance corpus's replay files, as the conformance tests list them, parsed. */
function corpusFiles(): CorpusFile[] {
  return [
    ...corpusList("openagents", "replays-type-ts")
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => ({
        name: `openagents/${f}`,
        values: lines(corpusBytes("openagents", "replays-type-ts", f)),
      })),
    {
      name: "openagents/replaybundle-sample.json",
      values: whole(corpusBytes("openagents", "replaybundle-sample.json")),
    },
    ...corpusList("replaykit", "runs")
      .filter((f) => f.endsWith(".rpk"))
      .map((f) => ({ name: `replaykit/runs/${f}`, values: whole(corpusBytes("replaykit", "runs", f)) })),
    ...corpusList("dynamo")
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => ({ name: `dynamo/${f}`, values: lines(corpusBytes("dynamo", f)) })),
  ];
}

/** Member names whose values identify or order what a replay holds. */
const PROTECTED_KEY = /^(id|ts|timestamp|created_at|type|status)$|_id$|_hash$/;
const HASH_TAG = /^sha256:[0-9a-f]{64}$/;

/** One string the scrubber changed. */
interface Change {
  file: string;
  path: string;
  /** The member name it sits under (or is, for a name). */
  key: string;
  /** A member name, not a value. */
  name: boolean;
  before: string;
  after: string;
  rules: string[];
}

interface FileUtility {
  file: string;
  strings: number;
  changes: Change[];
}

/**
 * Scrubs every kept string of `values` (one per line or the whole document) with `scrubber`, member names
 * through `scrubKey`; returns how many strings there were and those that changed, with the rules that did it.
 */
function utilityOf(file: string, values: readonly JsonValue[], scrubber: Scrubber): FileUtility {
  const changes: Change[] = [];
  let strings = 0;
  scrubber.takeSummary();
  const note = (path: string, key: string, name: boolean, before: string, after: string): void => {
    strings++;
    const rules = Object.keys(scrubber.takeSummary().by_rule).sort();
    if (after !== before) changes.push({ file, path, key, name, before, after, rules });
  };
  const visit = (v: JsonValue, path: string, key: string): void => {
    if (typeof v === "string") note(path, key, false, v, scrubber.scrub(v, path, key));
    else if (Array.isArray(v)) for (const x of v) visit(x, `${path}[*]`, key);
    else if (isJsonObject(v))
      for (const [k, x] of Object.entries(v)) {
        if (isRaw(file, path, k)) continue;
        note(`${path}.${k}`, k, true, k, scrubber.scrubKey(k, path));
        visit(x, `${path}.${k}`, k);
      }
  };
  for (const v of values) visit(v, "$", "");
  return { file, strings, changes };
}

/** Changes to an id, a timestamp, a type, a status or a hash value (a name itself may change: it is text). */
function protectedChanges(changes: readonly Change[]): string[] {
  return changes
    .filter((c) => !c.name && (PROTECTED_KEY.test(c.key) || HASH_TAG.test(c.before)))
    .map(
      (c) =>
        `${c.file} ${c.path}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)} (${c.rules.join(", ")})`,
    );
}

/** Up to 80 characters of `before` and `after` around where they first differ. */
function snippet(before: string, after: string): string {
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  const from = Math.max(0, at - 20);
  const cut = (s: string) => {
    const part = s.slice(from, from + 80);
    return `${from > 0 ? "…" : ""}${part}${from + 80 < s.length ? "…" : ""}`;
  };
  const cell = (s: string) =>
    `\`${JSON.stringify(cut(s)).slice(1, -1).replaceAll("`", "'").replaceAll("|", "\\|")}\``;
  return `${cell(before)} → ${cell(after)}`;
}

/** The report: one row per file, then up to 5 examples per rule. */
function markdown(files: readonly FileUtility[]): string {
  const byRule = (changes: readonly Change[]): Map<string, Change[]> => {
    const out = new Map<string, Change[]>();
    for (const c of changes)
      for (const rule of c.rules.length === 0 ? ["?"] : c.rules) out.set(rule, [...(out.get(rule) ?? []), c]);
    return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
  };
  const rulesCell = (changes: readonly Change[]) =>
    [...byRule(changes)].map(([rule, cs]) => `${rule} ×${cs.length}`).join(", ") || "–";
  const all = files.flatMap((f) => f.changes);
  const strings = files.reduce((n, f) => n + f.strings, 0);
  return [
    "# Redaction utility on the conformance corpus",
    "",
    "Every string Layer C keeps (values and member names outside raw members), `Scrubber` with `private_repo`, its member name as `key`. These files plant no secret: each change is a false positive or a privacy replacement.",
    "",
    `All: ${all.length} of ${strings} strings changed (${((100 * all.length) / Math.max(1, strings)).toFixed(2)}%).`,
    "",
    "| file | strings | changed | by rule |",
    "| --- | ---: | ---: | --- |",
    ...files.map((f) => `| ${f.file} | ${f.strings} | ${f.changes.length} | ${rulesCell(f.changes)} |`),
    `| **all** | ${strings} | ${all.length} | ${rulesCell(all)} |`,
    "",
    "## Examples (up to 5 per rule)",
    "",
    ...[...byRule(all)].flatMap(([rule, cs]) => [
      `### ${rule} (${cs.length})`,
      "",
      ...cs.slice(0, 5).map((c) => `- ${c.file} \`${c.path}\`: ${snippet(c.before, c.after)}`),
      "",
    ]),
  ].join("\n");
}

describe("redaction utility on the conformance corpus (private_repo)", () => {
  const files = corpusFiles();
  const scrubber = new Scrubber({ preset: "private_repo" });
  const measured = files.map((f) => utilityOf(f.name, f.values, scrubber));

  it("reads every corpus replay", () => {
    for (const prefix of ["openagents/", "openagents/replaybundle", "replaykit/", "dynamo/"])
      expect(
        files.some((f) => f.name.startsWith(prefix)),
        prefix,
      ).toBe(true);
    for (const f of measured) expect(f.strings, f.file).toBeGreaterThan(0);
    const dir = join(PROJECT_ROOT, ".local");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "redact-utility.md"), `${markdown(measured)}\n`);
  });

  it("never changes an id, a timestamp, a type, a status or a hash value", () => {
    expect(protectedChanges(measured.flatMap((f) => f.changes))).toEqual([]);
  });
});

describe("the utility check can fail", () => {
  it("a secret-shaped id is reported", () => {
    const token = `ghp_${"aB3dE5fG7h".repeat(3)}123456`;
    const doc = {
      type: "ToolResult",
      step_id: token,
      error: { message: "ok", trace_hash: `sha256:${"a".repeat(64)}` },
    };
    const { changes, strings } = utilityOf("synthetic", [doc], new Scrubber());
    expect(strings).toBe(9);
    expect(protectedChanges(changes)).toEqual([
      expect.stringContaining(`synthetic $.step_id: ${JSON.stringify(token)} →`),
    ]);
  });
});
