import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  canonicalize,
  decodeUtf8,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { exportReplayBundle, Findings, inspect } from "#shared/formats/index.js";
import { isReplayBundle, replayBundleFormat } from "#shared/formats/replay-bundle/index.js";
import { replayAdr0003Format, replayV1Format } from "#shared/formats/replay-jsonl/index.js";
import { corpusBytes } from "../support/corpus.js";

// openagents @64914e4 demo/sample-replay.json: a ReplayBundle the producer published.
const SAMPLE = ["openagents", "replaybundle-sample.json"] as const;
const sample = () => readJson(decodeUtf8(corpusBytes(...SAMPLE)));

const ADR = { dialect: "adr0003" } as const;

describe("corpus ReplayBundle (openagents demo/sample-replay.json)", () => {
  it("is detected and reads with no errors", () => {
    const value = sample();
    expect(isReplayBundle(value)).toBe(true);
    const findings = new Findings();
    const session = replayBundleFormat.read(value, findings, {});
    expect(findings.errors).toEqual([]);
    expect(findings.checks).toEqual([]);
    expect(findings.notices.filter((n) => n.code !== "bundle.hashes_computed")).toEqual([]);
    expect(session.summary).toMatchObject({
      format: "replay-bundle",
      session_id: "replay_test123",
      producer: "claude-sonnet-4-5-20250929",
      started_at: "2025-12-26T12:00:00.000Z",
      ended_at: "2025-12-26T12:00:15.000Z",
      status: "success",
      counts: { events: 6, tool_calls: 2, failed_tool_calls: 0 },
      total_latency_ms: 2000,
    });
    expect(session.tool_calls.map((c) => [c.id, c.tool, c.latency_ms, c.ok])).toEqual([
      ["tc_001", "Read", 1000, true],
      ["tc_002", "Edit", 1000, true],
    ]);
  });

  it("exports to an ADR-0003 REPLAY.jsonl whose replay hash is the sha256 of its bytes", () => {
    const { text, replayHash } = exportReplayBundle(sample(), ADR);
    const bytes = Buffer.from(text, "utf8");
    expect(replayHash).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    for (const line of lines) expect(line).toBe(canonicalize(readJson(line), "openagents"));
    expect(lines.map((l) => JSON.parse(l).type)).toEqual([
      "ReplayHeader",
      "SessionStart",
      "ToolCall",
      "ToolResult",
      "ToolCall",
      "ToolResult",
      "SessionEnd",
    ]);
    expect(JSON.parse(lines[2] as string)).toEqual({
      type: "ToolCall",
      id: "tc_001",
      tool: "Read",
      params: { file_path: "src/main.rs" },
    });
    expect(JSON.parse(lines.at(-1) as string)).toEqual({
      type: "SessionEnd",
      ended_at: "2025-12-26T12:00:15.000Z",
      outcome: "success",
    });
  });

  it("exports a REPLAY.jsonl that our ADR-0003 reader accepts with no errors and the same session", () => {
    const { text } = exportReplayBundle(sample(), ADR);
    const findings = new Findings();
    const consumer = replayAdr0003Format.begin(findings, {});
    text
      .slice(0, -1)
      .split("\n")
      .forEach((line, i) => {
        consumer.line(i + 1, readJson(line));
      });
    const session = consumer.end();
    expect(findings.errors).toEqual([]);
    expect(findings.checks.filter((c) => c.status !== "passed")).toEqual([]);
    expect(session.summary).toMatchObject({
      session_id: "replay_test123",
      started_at: "2025-12-26T12:00:00.000Z",
      ended_at: "2025-12-26T12:00:15.000Z",
      status: "success",
      counts: { tool_calls: 2, failed_tool_calls: 0 },
    });
  });

  it("exports twice to identical ADR-0003 bytes", () => {
    const a = exportReplayBundle(sample(), ADR);
    const b = exportReplayBundle(sample(), ADR);
    expect(Buffer.from(b.text).equals(Buffer.from(a.text))).toBe(true);
    expect(b.replayHash).toBe(a.replayHash);
  });
});

/** The sample as exported by default (REPLAY.jsonl v1), as bytes and lines. */
function exportV1(value: JsonValue = sample()) {
  const result = exportReplayBundle(value);
  const bytes = Buffer.from(result.text, "utf8");
  return { ...result, bytes, lines: result.text.slice(0, -1).split("\n") };
}

async function* chunks(bytes: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const T0 = "2025-12-26T12:00:00.000Z";
const at = (seconds: number) => `2025-12-26T12:00:${String(seconds).padStart(2, "0")}.000Z`;

describe("corpus ReplayBundle exported to REPLAY.jsonl v1 (the default dialect)", () => {
  it("writes the v1 events in order, each line canonical, replay hash the sha256 of the bytes", () => {
    const { text, bytes, lines, replayHash } = exportV1();
    expect(replayHash).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
    expect(text.endsWith("\n")).toBe(true);
    for (const line of lines) expect(line).toBe(canonicalize(readJson(line), "openagents"));
    const events = lines.map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual([
      "ReplayHeader",
      "SessionStart",
      "ToolCall",
      "ToolResult",
      "ToolCall",
      "ToolResult",
      "Verification",
      "Verification",
      "SessionEnd",
    ]);
    expect(events[0]).toEqual({
      type: "ReplayHeader",
      replay_version: 1,
      producer: "replay-pipeline export (ReplayBundle 1.0)",
      created_at: T0,
    });
    expect(events[1]).toEqual({
      type: "SessionStart",
      ts: T0,
      session_id: "replay_test123",
      policy_bundle_id: "unspecified",
    });
    expect(events[2]).toEqual({
      type: "ToolCall",
      ts: at(5),
      session_id: "replay_test123",
      step_id: "tc_001",
      tool: "Read",
      params: { file_path: "src/main.rs" },
      params_hash: canonicalHash(readJson('{"file_path":"src/main.rs"}'), "openagents"),
    });
    expect(events[3]).toEqual({
      type: "ToolResult",
      ts: at(6),
      session_id: "replay_test123",
      step_id: "tc_001",
      ok: true,
      output: { content: 'fn main() { println!("Hello"); }' },
      output_hash: canonicalHash(
        readJson('{"content":"fn main() { println!(\\"Hello\\"); }"}'),
        "openagents",
      ),
      latency_ms: 1000,
      side_effects: [],
    });
    expect(events.slice(6, 8)).toEqual([
      {
        type: "Verification",
        ts: at(15),
        session_id: "replay_test123",
        command: "tests: 42 of 42 passed (bundle receipts)",
        exit_code: 0,
      },
      {
        type: "Verification",
        ts: at(15),
        session_id: "replay_test123",
        command: "ci: success (bundle receipts)",
        exit_code: 0,
      },
    ]);
    expect(events[8]).toMatchObject({
      type: "SessionEnd",
      ts: at(15),
      session_id: "replay_test123",
      status: "success",
      confidence: 0,
      total_tool_calls: 2,
    });
    expect(events[8]).not.toHaveProperty("summary");
  });

  it("hashes params and output with the openagents profile, and pairs step_ids with latency from t", () => {
    const events = exportV1().lines.map((l) => readJson(l) as JsonObject);
    const calls = events.filter((e) => e.type === "ToolCall");
    const results = events.filter((e) => e.type === "ToolResult");
    for (const c of calls) expect(c.params_hash).toBe(canonicalHash(c.params as JsonValue, "openagents"));
    for (const r of results) expect(r.output_hash).toBe(canonicalHash(r.output as JsonValue, "openagents"));
    expect(calls.map((c) => [c.step_id, c.tool])).toEqual([
      ["tc_001", "Read"],
      ["tc_002", "Edit"],
    ]);
    expect(results.map((r) => [r.step_id, Number(String(r.latency_ms)), r.ok])).toEqual([
      ["tc_001", 1000, true],
      ["tc_002", 1000, true],
    ]);
    // The hashes are those the bundle reader computes from the bundle itself.
    const session = replayBundleFormat.read(sample(), new Findings(), {});
    expect(calls.map((c) => c.params_hash)).toEqual(session.tool_calls.map((c) => c.params_hash));
    expect(results.map((r) => r.output_hash)).toEqual(session.tool_calls.map((c) => c.output_hash));
  });

  it("exports twice to identical bytes", () => {
    const a = exportV1();
    const b = exportV1();
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.replayHash).toBe(a.replayHash);
  });

  it("reads back with our v1 reader: no errors, one passed row per hash, the same session", () => {
    const findings = new Findings();
    const consumer = replayV1Format.begin(findings, {});
    exportV1().lines.forEach((line, i) => {
      consumer.line(i + 1, readJson(line));
    });
    const session = consumer.end();
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => [c.check, c.subject, c.status])).toEqual([
      ["params_hash", "line 3 ToolCall tc_001 params", "passed"],
      ["output_hash", "line 4 ToolResult tc_001 output", "passed"],
      ["params_hash", "line 5 ToolCall tc_002 params", "passed"],
      ["output_hash", "line 6 ToolResult tc_002 output", "passed"],
    ]);
    expect(session.summary).toMatchObject({
      format: "replay-v1",
      session_id: "replay_test123",
      started_at: T0,
      ended_at: at(15),
      status: "success",
      confidence: 0,
      counts: { tool_calls: 2, failed_tool_calls: 0 },
      verification: [
        { command: "tests: 42 of 42 passed (bundle receipts)", exit_code: 0 },
        { command: "ci: success (bundle receipts)", exit_code: 0 },
      ],
    });
  });

  it("inspects as replay-v1 with verdict passed and the same replay hash", async () => {
    const { bytes, replayHash } = exportV1();
    // Small chunks, so lines are split across reads.
    const { report } = await inspect(chunks(bytes, 97), { file: "REPLAY.jsonl" });
    expect(report.format).toBe("replay-v1");
    expect(report.errors).toEqual([]);
    expect(report.verdict).toBe("passed");
    expect(report.checks_total).toEqual({ passed: 4, failed: 0, unverifiable: 0 });
    expect(report.checks.every((c) => c.status === "passed")).toBe(true);
    expect(report.checks.map((c) => c.check).sort()).toEqual([
      "output_hash",
      "output_hash",
      "params_hash",
      "params_hash",
    ]);
    expect(report.replay_hash).toBe(replayHash);
    expect(report.bytes).toBe(bytes.length);
  });

  it("warns that the sample records no policy_bundle_id or confidence, and not when its metadata does", () => {
    expect(exportV1().warnings).toEqual([
      expect.stringContaining("policy_bundle_id"),
      expect.stringContaining("confidence"),
    ]);
    const value = sample() as JsonObject;
    const metadata = value.metadata as JsonObject;
    metadata.policy_bundle_id = "policy.autopilot.v1";
    metadata.confidence = readJson("0.9");
    const { warnings, lines } = exportV1(value);
    expect(warnings).toEqual([]);
    expect(JSON.parse(lines[1] as string).policy_bundle_id).toBe("policy.autopilot.v1");
    expect(JSON.parse(lines.at(-1) as string).confidence).toBe(0.9);
  });
});
