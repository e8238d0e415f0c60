import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { sha256Tag } from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

const DIR = join(PROJECT_ROOT, "test", "fixtures", "bad-inputs");

interface Expectation {
  verdict: "passed" | "failed" | "invalid" | "unverifiable";
  /** An error (or with `notice`, a notice) that must be reported, located exactly. */
  code?: string;
  line?: number | null;
  column?: number | null;
  path?: string;
  notice?: boolean;
}

// Each file of test/fixtures/bad-inputs and the exact finding it must get.
const CASES: [string, Expectation][] = [
  ["good.REPLAY.jsonl", { verdict: "passed" }],
  ["good.REPLAY.jsonl.gz", { verdict: "passed" }],
  ["truncated-last-line.REPLAY.jsonl", { verdict: "invalid", code: "json.syntax", line: 5, column: 108 }],
  ["invalid-utf8.REPLAY.jsonl", { verdict: "invalid", code: "json.invalid_utf8", line: 2, column: 44 }],
  ["bom.REPLAY.jsonl", { verdict: "invalid", code: "json.bom", line: 1, column: 1 }],
  ["crlf.REPLAY.jsonl", { verdict: "passed", code: "jsonl.crlf", line: 1, notice: true }],
  ["blank-lines.REPLAY.jsonl", { verdict: "passed", code: "jsonl.blank_line", line: 2, notice: true }],
  [
    "missing-header.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.missing_header", line: 1, path: "$.event" },
  ],
  ["late-header.REPLAY.jsonl", { verdict: "invalid", code: "replay.late_header", line: 2 }],
  ["duplicate-header.REPLAY.jsonl", { verdict: "invalid", code: "replay.duplicate_header", line: 3 }],
  ["duplicate-keys.REPLAY.jsonl", { verdict: "invalid", code: "json.duplicate_key", line: 2, column: 64 }],
  ["nan.REPLAY.jsonl", { verdict: "invalid", code: "json.non_finite", line: 4 }],
  ["lone-surrogate.REPLAY.jsonl", { verdict: "invalid", code: "json.lone_surrogate", line: 3 }],
  ["int-2-60.REPLAY.jsonl", { verdict: "passed" }],
  [
    "malformed-hash.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.invalid_field", line: 3, path: "$.params_hash" },
  ],
  ["tampered-params.REPLAY.jsonl", { verdict: "failed" }],
  [
    "result-without-call.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.result_without_call", line: 3, path: "$.id" },
  ],
  ["duplicate-result.REPLAY.jsonl", { verdict: "invalid", code: "replay.duplicate_result", line: 5 }],
  ["after-session-end.REPLAY.jsonl", { verdict: "invalid", code: "replay.after_session_end", line: 5 }],
  [
    "missing-session-end.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.missing_session_end", line: null },
  ],
  ["bad-timestamp.REPLAY.jsonl", { verdict: "invalid", code: "replay.invalid_field", line: 2, path: "$.t" }],
  [
    "wrong-type.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.invalid_field", line: 4, path: "$.latency_ms" },
  ],
  [
    "step-utility-range.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.invalid_field", line: 4, path: "$.step_utility" },
  ],
  [
    "missing-field.REPLAY.jsonl",
    { verdict: "invalid", code: "replay.missing_field", line: 3, path: "$.tool" },
  ],
  ["control-character.REPLAY.jsonl", { verdict: "invalid", code: "json.control_character", line: 3 }],
  ["deep-nesting.REPLAY.jsonl", { verdict: "invalid", code: "json.too_deep", line: 3, column: 553 }],
  ["empty.REPLAY.jsonl", { verdict: "invalid", code: "input.empty", line: null }],
  ["only-blank-lines.jsonl", { verdict: "invalid", code: "input.empty", line: null }],
  ["binary-garbage.bin", { verdict: "invalid", code: "input.binary", line: 1, column: 1 }],
  ["not-json.txt", { verdict: "invalid", code: "json.syntax", line: 1, column: 1 }],
  ["top-level-array.json", { verdict: "invalid", code: "format.unknown", line: 1 }],
  ["unknown-object.jsonl", { verdict: "invalid", code: "format.unknown", line: 1 }],
  ["corrupt.REPLAY.jsonl.gz", { verdict: "invalid", code: "gzip.corrupt" }],
  ["pretty-printed.REPLAY.jsonl", { verdict: "invalid", code: "format.not_lines", line: 1 }],
  [
    "unknown-major.rpk",
    { verdict: "invalid", code: "rpk.unsupported_major", line: 3, column: 14, path: "$.version" },
  ],
  ["tampered-step.rpk", { verdict: "failed" }],
  ["spans-two-roots.jsonl", { verdict: "invalid", code: "spans.multiple_roots", line: 2 }],
  [
    "spans-unknown-parent.jsonl",
    { verdict: "invalid", code: "spans.unknown_parent", line: 3, path: "$.span_parents[0]" },
  ],
  [
    "bundle-time-backwards.json",
    { verdict: "invalid", code: "bundle.timeline_order", line: 37, column: 12, path: "$.timeline[2].t" },
  ],
];

describe("bad-input corpus", () => {
  it("has at least 30 files, every one listed", () => {
    const listed = new Set(CASES.map(([name]) => name));
    const files = readdir();
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
  });

  it.each(CASES)("%s", async (name, want) => {
    const { report } = await inspect(createReadStream(join(DIR, name)), { file: name });
    expect(report.verdict).toBe(want.verdict);
    if (want.code !== undefined) {
      const list = want.notice === true ? report.notices : report.errors;
      const found = list.find((f) => f.code === want.code);
      expect(found, `${want.code} in ${JSON.stringify(list)}`).toBeDefined();
      if (want.line !== undefined) expect(found?.line).toBe(want.line);
      if (want.column !== undefined) expect(found?.column).toBe(want.column);
      if (want.path !== undefined) expect(found?.path).toBe(want.path);
    }
    if (want.verdict === "failed") expect(report.checks.some((c) => c.status === "failed")).toBe(true);
    // The replay hash always covers the exact bytes, after gunzip for a (readable) gzip file.
    const raw = readFileSync(join(DIR, name));
    const plain =
      name === "corrupt.REPLAY.jsonl.gz" ? undefined : name.endsWith(".gz") ? gunzipSync(raw) : raw;
    if (plain !== undefined) {
      expect(report.bytes).toBe(plain.length);
      expect(report.replay_hash).toBe(sha256Tag(plain));
    }
  });
});

function readdir(): string[] {
  return readdirSync(DIR).sort();
}

describe("hostile sizes", () => {
  it("stops a gzip bomb by its expansion ratio, in bounded time and memory", async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20));
    const { report } = await inspect(
      (async function* () {
        yield bomb;
      })(),
      { file: "bomb.jsonl.gz" },
    );
    expect(report.verdict).toBe("invalid");
    expect(report.errors.map((e) => e.code)).toContain("gzip.ratio");
  });

  it("caps the decompressed size", async () => {
    const data = gzipSync(Buffer.from('{"event":"ReplayHeader"}\n'.repeat(100_000)));
    const { report } = await inspect(
      (async function* () {
        yield data;
      })(),
      { file: "big.jsonl.gz", maxDecompressedBytes: 1_000_000 },
    );
    expect(report.errors.map((e) => e.code)).toContain("gzip.too_large");
  });

  it("reports a 100 MB single line as too long and still hashes every byte", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const head = Buffer.from('{"event":"ReplayHeader","x":"');
    const tail = Buffer.from('"}\n');
    const lines = (async function* () {
      yield head;
      for (let i = 0; i < 100; i++) yield chunk;
      yield tail;
    })();
    const { report } = await inspect(lines, { file: "long.jsonl" });
    expect(report.errors[0]).toMatchObject({ code: "jsonl.line_too_long", line: 1 });
    expect(report.bytes).toBe(head.length + 100 * chunk.length + tail.length);
  });
});
