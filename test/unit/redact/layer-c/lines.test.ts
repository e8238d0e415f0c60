/**
 * `LineRedactor`, the line-at-a-time redaction of JSON Lines files:
 * - its fast read (raw top-level objects and arrays checked and hashed at byte level, never read),
 *   and its read of a line already split (`splitInto`, as the fused task does), give exactly what
 *   the lossless read gives: the same bytes, the same carrier flags, the same
 *   counts in the same key order, and the same error for a line that does not read; over random
 *   sessions of every JSON Lines format written in random styles (member order, whitespace,
 *   escapes, with and without their `<name>_hash` members), and over malformed lines;
 * - snapshots of instances that redacted consecutive batches of a file, sent through JSON and
 *   merged in order (`mergeCounts`, `layerCSummary`, `withSummary`), give `redactFile`'s copy and
 *   summary byte for byte.
 * Runs: LINE_REDACTOR_RUNS (default 60 per format and property).
 */

import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import {
  canonicalHash,
  decodeUtf8,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  readJson,
  SplitView,
  splitInto,
} from "#shared/canonical/index.js";
import type { LayerCOrigin } from "#shared/formats/index.js";
import { PRESETS, type Preset } from "#shared/redact/index.js";
import { LineRedactor, type LinesFormat, withSummary } from "#shared/redact/layer-c/lines.js";
import { RAW_KEYS } from "#shared/redact/layer-c/policy.js";
import { type LayerCCounts, layerCSummary, mergeCounts } from "#shared/redact/layer-c/summary.js";
import { FORMATS, plantsArb, type Session } from "../leak-formats.generators.js";
import { redactBytes } from "./helpers.js";

const RUNS = Number(process.env.LINE_REDACTOR_RUNS ?? 60);
const LINE_FORMATS: LinesFormat[] = ["replay-v1", "replay-dsrs", "replay-adr0003", "braintrust-spans"];

const presetArb = fc.constantFrom<Preset>(...PRESETS);
const keyArb = fc.option(fc.uint8Array({ minLength: 16, maxLength: 32 }), { nil: undefined, freq: 3 });

/** How a line is written: member order, whitespace, string escapes, hash members kept or not. */
interface Style {
  seed: number;
  shuffle: boolean;
  spaces: boolean;
  escape: boolean;
  dropHashes: boolean;
}
const styleArb: fc.Arbitrary<Style> = fc.record({
  seed: fc.integer({ min: 1, max: 0x7fffffff }),
  shuffle: fc.boolean(),
  spaces: fc.boolean(),
  escape: fc.boolean(),
  dropHashes: fc.boolean(),
});

/** A small deterministic generator (xorshift), so a style always writes a line the same way. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/** JSON text of `value` in `style`: same value, other bytes. */
function write(value: JsonValue, style: Style, rnd: () => number, top = true): string {
  const gap = (): string => (style.spaces && rnd() < 0.3 ? (rnd() < 0.5 ? " " : "\t ") : "");
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") {
    const text = JSON.stringify(value);
    if (!style.escape) return text;
    // Non-ASCII as \u escapes, and some slashes as \/.
    return text.replace(/[^\x20-\x7e]|\//g, (c) =>
      c === "/" ? (rnd() < 0.5 ? "\\/" : "/") : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${gap()}${value.map((v) => write(v, style, rnd, false)).join(`${gap()},${gap()}`)}${gap()}]`;
  let keys = Object.keys(value);
  if (top && style.dropHashes)
    keys = keys.filter((k) => !(k.endsWith("_hash") && RAW_KEYS.has(k.slice(0, -5))));
  if (style.shuffle) {
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      const swap = keys[i] as string;
      keys[i] = keys[j] as string;
      keys[j] = swap;
    }
  }
  const members = keys.map(
    (k) =>
      `${write(k, style, rnd, false)}${gap()}:${gap()}${write(value[k] as JsonValue, style, rnd, false)}`,
  );
  return `{${gap()}${members.join(`${gap()},${gap()}`)}${gap()}}`;
}

/** The session's lines, rewritten in `style`. */
function styledLines(session: Session, style: Style): Buffer[] {
  const rnd = random(style.seed);
  return (session.value as JsonObject[]).map((event) => Buffer.from(write(event, style, rnd)));
}

type Outcome = { text: string; carrier: boolean } | { error: string };

/** The members `inspect`'s readers leave lazy (split and hashed, not read). */
const SPLIT_LAZY: ReadonlySet<string> = new Set(["params", "output", "input"]);

function outcome(redactor: LineRedactor, bytes: Buffer, line: number, view?: SplitView): Outcome {
  try {
    const { text, carrier } = redactor.line(bytes, line, view);
    return { text: text.toString("utf8"), carrier };
  } catch (error) {
    const e = error as Error & { code?: string };
    return { error: `${e.name} ${e.code ?? ""} ${e.message}` };
  }
}

/** Both reads of the same lines: outcomes line by line, then the counts (key order included). */
function compareReads(
  format: LinesFormat,
  preset: Preset,
  key: Uint8Array | undefined,
  lines: readonly Buffer[],
): { outcomes: Outcome[]; counts: string } {
  const make = (fastRead: boolean): LineRedactor =>
    new LineRedactor(
      format,
      preset,
      key === undefined ? { file: "f", fastRead } : { file: "f", key, fastRead },
    );
  const fast = make(true);
  const lossless = make(false);
  // The fused task's read: the line split first (`splitInto`), Layer C reading the split's members.
  const split = make(true);
  const view = new SplitView();
  const outcomes: Outcome[] = [];
  lines.forEach((bytes, i) => {
    const a = outcome(fast, bytes, i + 1);
    const b = outcome(lossless, bytes, i + 1);
    const c = outcome(split, bytes, i + 1, splitInto(bytes, SPLIT_LAZY, view) ? view : undefined);
    expect(a, `line ${i + 1}: ${bytes.toString("utf8").slice(0, 200)}`).toEqual(b);
    expect(c, `line ${i + 1} split: ${bytes.toString("utf8").slice(0, 200)}`).toEqual(b);
    outcomes.push(a);
  });
  const counts = JSON.stringify(fast.snapshot());
  expect(counts).toBe(JSON.stringify(lossless.snapshot()));
  expect(JSON.stringify(split.snapshot())).toBe(counts);
  return { outcomes, counts };
}

describe("LineRedactor fast read equals the lossless read", () => {
  for (const format of LINE_FORMATS) {
    it(`${format}: same bytes, carriers and counts for random sessions in random styles (${RUNS})`, () => {
      fc.assert(
        fc.property(
          FORMATS[format](plantsArb()),
          styleArb,
          presetArb,
          keyArb,
          (session, style, preset, key) => {
            compareReads(format, preset, key, styledLines(session, style));
          },
        ),
        { numRuns: RUNS },
      );
    });
  }

  it("hashes a cut value exactly as the removed value's canonical hash", () => {
    const params = { b: [1, 2.5, "é\u2028"], a: { z: null, y: true, "\u00e9": -0.0 } };
    const line = Buffer.from(
      `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s1","tool":"bash","params": ${JSON.stringify(params, null, 2).replace(/\n/g, " ")}}`,
    );
    const [result] = compareReads("replay-v1", "private_repo", undefined, [line]).outcomes;
    const out = readJson((result as { text: string }).text.trim()) as JsonObject;
    const read = readJson(decodeUtf8(line)) as JsonObject;
    expect(out.params_hash).toBe(canonicalHash(read.params as JsonValue, "openagents"));
    expect(out.params).toBeUndefined();
  });

  it("keeps the line's member order: of two names that scrub alike, the later one is written", () => {
    // Unknown members named by secrets scrub to the same name; open_source keeps unknown scalars,
    // so the copy holds one of them: the later one in the line, whatever the names' sorted order.
    const a = `ghp_${"a1B2c3".repeat(6)}`;
    const z = `ghp_${"z".repeat(36)}`;
    for (const [first, second] of [
      [z, a],
      [a, z],
    ]) {
      const line = Buffer.from(
        `{"type":"ToolResult","ts":"2026-02-01T00:00:02Z","step_id":"s1","ok":true,"output":{"x":[1,{"y":"z"}]},` +
          `"${first}":"one","${second}":"two"}`,
      );
      const { outcomes } = compareReads("replay-v1", "open_source", undefined, [line]);
      const out = readJson((outcomes[0] as { text: string }).text.trim()) as JsonObject;
      expect(out["[REDACTED:github-token]"]).toBe("two");
    }
  });

  const head = `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s1","tool":"bash"`;
  const deep = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`;
  const malformed: [string, string | Buffer][] = [
    ["invalid escape", `${head},"params":{"a":"x\\qy"}}`],
    ["lone surrogate", `${head},"params":{"a":"\\ud800"}}`],
    [
      "lone surrogate, hash present",
      `${head},"params":{"a":"\\udc00"},"params_hash":"sha256:${"a".repeat(64)}"}`,
    ],
    ["control character", `${head},"params":{"a":"x\ty"}}`],
    ["leading zero", `${head},"params":{"a":01}}`],
    ["bare dot", `${head},"params":{"a":.5}}`],
    ["NaN", `${head},"params":{"a":NaN}}`],
    ["single quotes", `${head},"params":{'a':1}}`],
    ["trailing comma", `${head},"params":{"a":1,}}`],
    ["duplicate member inside", `${head},"params":{"a":1,"a":2}}`],
    ["duplicate raw member", `${head},"params":{"a":1},"params":[2]}`],
    ["overflowing number, no hash", `${head},"params":{"a":1e999}}`],
    [
      "overflowing number, hash present",
      `${head},"params":{"a":1e999},"params_hash":"sha256:${"b".repeat(64)}"}`,
    ],
    ["nesting at the limit", `${head},"params":${deep(511)}}`],
    ["nesting past the limit", `${head},"params":${deep(512)}}`],
    ["unclosed value", `${head},"params":{"a":[1,2}}`],
    ["unclosed line", `${head},"params":{"a":1}`],
    ["trailing content", `${head},"params":{"a":1}} x`],
    ["escaped name", `${head},"par\\u0061ms":{"a":"q\\"uo\\\\te\\\\"}}`],
    ["bad escape in a name", `${head},"p\\x":{"a":1},"params":{"b":2}}`],
    ["spaces and CR", ` ${head} , "output" :\t[ {"a" : 1 } ] ,"ok":true }\r`],
    [
      "byte order mark",
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${head},"params":{}}`)]),
    ],
    [
      "invalid UTF-8 inside",
      Buffer.concat([Buffer.from(`${head},"params":{"a":"`), Buffer.from([0xc3, 0x28]), Buffer.from(`"}}`)]),
    ],
    [
      "UTF-8 surrogate inside",
      Buffer.concat([
        Buffer.from(`${head},"params":["`),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from(`"]}`),
      ]),
    ],
    ["not an object", `[${head}}]`],
    ["array raw value at the end", `${head},"params":[{"a":"}"},"]",{"b":"\\\\"}]}`],
    // A `params_hash` in the line that is not params' sibling: params must still be hashed.
    ["a params_hash only inside params", `${head},"params":{"params_hash":"x","b":[1.50,{"z":1,"a":2}]}}`],
    ["a params_hash only in another member", `${head},"params":{"b":1e0},"meta":{"params_hash":"x"}}`],
    ["params_hash before params", `${head},"params_hash":"sha256:${"c".repeat(64)}","params":{"b":[2,1]}}`],
    // The rest of the line is read natively when that is provably what the lossless reader reads.
    ["a duplicate name outside the raw values", `${head},"tool":"ls","params":{"a":1}}`],
    [
      "a duplicate name nested outside the raw values",
      `${head},"meta":{"a":1,"b":{"c":2,"c":2}},"params":[]}`,
    ],
    [
      "numbers in every form outside the raw values",
      `${head},"seq":1,"n":[-0,0.10,1E+5,-2.5e-3,12345678901234567890,1e400],"params":{"a":1}}`,
    ],
    // Array-index names come first in a JS object: equal numbers with other texts must not swap.
    [
      "array-index names outside the raw values",
      `${head},"metadata":{"b":1.0,"2":1,"a":[1.50,1.5]},"params":[1]}`,
    ],
    ["array-index names at the top level", `${head},"meta":{"b":1,"10":2,"9":3},"2":4,"params":[1]}`],
    [
      "__proto__ names outside the raw values",
      `${head},"__proto__":{"x":1},"meta":{"__proto__":[2]},"params":{}}`,
    ],
    [
      "escapes outside the raw values",
      `${head},"summary":"\\u00e9\\ud83d\\ude00 \\\\u","params":{"a":"\\u0041"}}`,
    ],
    ["a lone surrogate outside the raw values", `${head},"summary":"\\udc00","params":{"a":1}}`],
    ["nesting past the limit outside the raw values", `${head},"meta":${deep(512)},"params":{}}`],
    ["two raw members, one hash", `${head},"params":{"b":2.50},"output":[{"y":1,"x":0}],"output_hash":"x"}`],
    // A hash name keeps its value verbatim only when it holds a hash: else it is scrubbed.
    ["a secret under a hash name", `${head},"params":{},"params_hash":"ghp_${"a1B2c3".repeat(6)}"}`],
    ["an upper-case hash", `${head},"params":{},"params_hash":"sha256:${"AB".repeat(32)}"}`],
    ["a short hash", `${head},"params":{},"params_hash":"sha256:${"ab".repeat(31)}"}`],
    [
      "an HMAC hash and a bare one",
      `${head},"params":{},"params_hash":"hmac-sha256:${"0f".repeat(32)}","hash":"${"9".repeat(64)}"}`,
    ],
    ["an escaped hash", `${head},"params":{},"params_hash":"sha256:\u0061${"a".repeat(63)}"}`],
    [
      "a number, true and null under hash names",
      `${head},"params":{},"params_hash":12,"hash":true,"checksum":null}`,
    ],
  ];
  for (const [name, text] of malformed) {
    it(`same result for a line with ${name}`, () => {
      const bytes = typeof text === "string" ? Buffer.from(text) : text;
      for (const preset of PRESETS) compareReads("replay-v1", preset, undefined, [bytes]);
      compareReads("braintrust-spans", "private_repo", undefined, [bytes]);
    });
  }

  it("searches a line for each raw member's hash at most once per name, however often it repeats", () => {
    // Prepare: 5,000 duplicate raw members, no hash anywhere.
    const line = Buffer.from(`${head},${'"params":[],'.repeat(5000)}"output":{"a":1},"output":[2]}`);
    const search = vi.spyOn(Buffer.prototype, "lastIndexOf");
    try {
      // Act
      const { outcomes } = compareReads("replay-v1", "private_repo", undefined, [line]);
      // Assess: the duplicate name's error, and a bounded number of searches (both reads ran).
      expect(outcomes[0]).toMatchObject({ error: expect.stringContaining("duplicate member name") });
      expect(search.mock.calls.length).toBeLessThanOrEqual(RAW_KEYS.size);
    } finally {
      search.mockRestore();
    }
  });

  it("locates errors at the file and line", () => {
    const redactor = new LineRedactor("replay-v1", "private_repo", { file: "in.jsonl" });
    expect(() => redactor.line(Buffer.from(`${head},"params":{"a":01}}`), 7)).toThrow(/^in\.jsonl: line 7, /);
    expect(() => redactor.line(Buffer.from("[1]"), 9)).toThrow("in.jsonl: line 9: expected an event object");
  });
});

describe("LineRedactor snapshots merged in order", () => {
  /**
   * The copy assembled from batches, each redacted by its own instance, as worker threads would.
   * A worker does not know the secrets the lines before its batch taught, so each instance here
   * first reads the lines before its batch, output and counts dropped (`takeSnapshot`); what the
   * lines revealed is redacted from the lines after them by the writer's own instance, in file
   * order, as `LayerCWriter` does (a value under a secret member's name recurring later without
   * one is caught there and only there), then from the lines before the last line that revealed
   * one, as its revisit does.
   */
  function assemble(
    format: LinesFormat,
    preset: Preset,
    key: Uint8Array | undefined,
    lines: readonly Buffer[],
    cuts: readonly number[],
    original: LayerCOrigin,
  ): { text: string; summary: ReturnType<typeof layerCSummary> } {
    const bounds = [...new Set([0, ...cuts.map((c) => c % (lines.length + 1)), lines.length])].sort(
      (a, b) => a - b,
    );
    const texts: Buffer[] = [];
    const snapshots: LayerCCounts[] = [];
    let carrier: number | undefined;
    // The writer's instance: what each line revealed, redacted from the lines after it in file
    // order (`LayerCWriter`), its counts merged after the lines' own.
    const known = new LineRedactor(format, preset, key === undefined ? { file: "f" } : { file: "f", key });
    const knownSnapshots: LayerCCounts[] = [];
    let revealed = 0;
    for (let b = 0; b + 1 < bounds.length; b++) {
      const redactor = new LineRedactor(
        format,
        preset,
        key === undefined ? { file: "f" } : { file: "f", key },
      );
      for (let i = 0; i < (bounds[b] as number); i++) redactor.line(lines[i] as Buffer, i + 1);
      redactor.takeSnapshot();
      for (let i = bounds[b] as number; i < (bounds[b + 1] as number); i++) {
        const { text, carrier: isCarrier, learned } = redactor.line(lines[i] as Buffer, i + 1);
        if (carrier === undefined && isCarrier) carrier = i;
        const fixed = known.redactKnown(text);
        if (fixed !== text) knownSnapshots.push(known.takeSnapshot());
        if (learned !== undefined && learned.length > 0) {
          known.learn(learned);
          revealed = i;
        }
        texts.push(Buffer.from(fixed));
      }
      // Through JSON, as across threads.
      snapshots.push(JSON.parse(JSON.stringify(redactor.takeSnapshot())) as LayerCCounts);
    }
    for (let i = 0; i < revealed; i++) {
      const line = (texts[i] as Buffer).subarray(0, -1);
      const fixed = known.redactKnown(line);
      if (fixed === line) continue;
      knownSnapshots.push(known.takeSnapshot());
      texts[i] = Buffer.from(`${Buffer.from(fixed).toString("utf8")}\n`);
    }
    const counts = mergeCounts([mergeCounts(snapshots), mergeCounts(knownSnapshots)]);
    const summary = layerCSummary(format, preset, counts, original);
    const target = carrier ?? 0;
    texts[target] = withSummary(format, texts[target] as Buffer, summary);
    return { text: Buffer.concat(texts).toString("utf8"), summary };
  }

  for (const format of LINE_FORMATS) {
    it(`${format}: equal redactFile's copy and summary, key order included (${RUNS})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          FORMATS[format](plantsArb()),
          styleArb,
          presetArb,
          keyArb,
          fc.array(fc.nat(), { maxLength: 4 }),
          async (session, style, preset, key, cuts) => {
            const lines = styledLines(session, style);
            const whole = await redactBytes(
              `${lines.map((l) => l.toString("utf8")).join("\n")}\n`,
              key === undefined ? { preset } : { preset, key },
            );
            const merged = assemble(format, preset, key, lines, cuts, whole.summary.original);
            expect(merged.text).toBe(whole.text);
            expect(JSON.stringify(merged.summary)).toBe(JSON.stringify(whole.summary));
          },
        ),
        { numRuns: RUNS },
      );
    });
  }

  it("a snapshot is plain JSON and merging does not change it", () => {
    const redactor = new LineRedactor("replay-v1", "private_repo", { file: "f" });
    redactor.line(
      Buffer.from(`{"type":"ToolCall","ts":"t","step_id":"s","tool":"x","params":{"k":"a@b.co"}}`),
      1,
    );
    const snapshot = redactor.snapshot();
    const copy = JSON.parse(JSON.stringify(snapshot)) as LayerCCounts;
    expect(copy).toEqual(snapshot);
    const merged = mergeCounts([snapshot, snapshot]);
    expect(snapshot).toEqual(copy);
    expect(merged.events).toBe(2);
    expect(merged.removed["$.params"]).toBe(2);
    expect(isJsonObject(readJson(JSON.stringify(merged)))).toBe(true);
  });

  it("takeSnapshot gives the counts since the last one; merged in order they equal one snapshot of the whole", () => {
    const token = `ghp_${"b".repeat(36)}`;
    const lines = [1, 2, 3, 4, 5].map((n) =>
      Buffer.from(
        `{"type":"ToolCall","ts":"t","step_id":"s${n}","tool":"run ${n % 2 === 0 ? token : "ls"}","params":{"k":${n}}}`,
      ),
    );
    const whole = new LineRedactor("replay-v1", "private_repo", { file: "f" });
    const parts = new LineRedactor("replay-v1", "private_repo", { file: "f" });
    const taken: LayerCCounts[] = [];
    lines.forEach((line, i) => {
      expect(parts.line(line, i + 1).text).toEqual(whole.line(line, i + 1).text);
      if (i === 1 || i === 4) taken.push(parts.takeSnapshot());
    });
    expect(taken[0]?.events).toBe(2);
    expect(taken[1]?.events).toBe(3);
    expect(taken[0]?.scrubbed.total).toBe(1);
    expect(taken[1]?.scrubbed.total).toBe(1);
    expect(JSON.stringify(mergeCounts(taken))).toBe(JSON.stringify(whole.snapshot()));
    expect(parts.takeSnapshot()).toMatchObject({ events: 0, scrubbed: { total: 0 }, removed: {} });
  });

  it("refuses a document format", () => {
    expect(() => new LineRedactor("replay-bundle" as LinesFormat, "private_repo", { file: "f" })).toThrow(
      /document format/,
    );
  });
});
