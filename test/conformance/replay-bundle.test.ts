import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalize, decodeUtf8, readJson } from "../../shared/canonical/index.js";
import { exportReplayBundle } from "../../shared/formats/export.js";
import { isReplayBundle, replayBundleFormat } from "../../shared/formats/replay-bundle.js";
import { replayAdr0003Format } from "../../shared/formats/replay-jsonl.js";
import { Findings } from "../../shared/formats/types.js";
import { corpusBytes } from "../support/corpus.js";

// openagents @64914e4 demo/sample-replay.json: a ReplayBundle the producer published.
const SAMPLE = ["openagents", "replaybundle-sample.json"] as const;
const sample = () => readJson(decodeUtf8(corpusBytes(...SAMPLE)));

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

  it("exports to a REPLAY.jsonl whose replay hash is the sha256 of its bytes", () => {
    const { text, replayHash } = exportReplayBundle(sample());
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
    const { text } = exportReplayBundle(sample());
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

  it("exports twice to identical bytes", () => {
    const a = exportReplayBundle(sample());
    const b = exportReplayBundle(sample());
    expect(Buffer.from(b.text).equals(Buffer.from(a.text))).toBe(true);
    expect(b.replayHash).toBe(a.replayHash);
  });
});
