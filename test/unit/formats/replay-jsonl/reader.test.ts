import { describe, expect, it } from "vitest";
import { canonicalHash, type JsonValue, readJson } from "#shared/canonical/index.js";
import { Findings, MAX_ROWS } from "#shared/formats/index.js";
import {
  detectReplayDialect,
  replayAdr0003Format,
  replayDsrsFormat,
  replayV1Format,
} from "#shared/formats/replay-jsonl/index.js";
import type { LineFormat } from "#shared/formats/types.js";

const hashOf = (v: unknown) => canonicalHash(readJson(JSON.stringify(v)), "openagents");

function run(format: LineFormat, lines: unknown[]) {
  const findings = new Findings();
  const consumer = format.begin(findings, {});
  lines.forEach((l, k) => {
    consumer.line(k + 1, readJson(typeof l === "string" ? l : JSON.stringify(l)) as JsonValue);
  });
  const session = consumer.end();
  return { findings, session, codes: findings.errors.map((e) => e.code) };
}

const params = { path: "src/a.rs" };
const output = { content: "ok", error: null, success: true };
const dsrs = (): unknown[] => [
  {
    event: "ReplayHeader",
    replay_version: 1,
    producer: "adjutant@1.2.3",
    created_at: "2026-01-13T10:00:00Z",
  },
  { event: "SessionStart", t: "2026-01-13T10:00:00Z", session_id: "sess_1", policy_version: "v1" },
  {
    event: "ToolCall",
    t: "2026-01-13T10:00:01Z",
    id: "tc_1",
    tool: "file_read",
    params,
    params_hash: hashOf(params),
    step_id: "s1",
  },
  {
    event: "ToolResult",
    t: "2026-01-13T10:00:02Z",
    id: "tc_1",
    output,
    output_hash: hashOf(output),
    step_utility: 0.5,
    latency_ms: 40,
  },
  { event: "StepComplete", t: "2026-01-13T10:00:03Z", step_id: "s1", status: "Success", iterations: 1 },
  {
    event: "Verification",
    t: "2026-01-13T10:00:04Z",
    commands: ["cargo test"],
    exit_codes: [0],
    verification_delta: 2,
  },
  {
    event: "SessionEnd",
    t: "2026-01-13T10:00:05Z",
    status: "Success",
    confidence: 0.9,
    total_tool_calls: 1,
    total_latency_ms: 40,
  },
];

describe("replay-dsrs", () => {
  it("passes a well-formed replay with a row per recomputable hash and a full summary", () => {
    const { findings, session } = run(replayDsrsFormat, dsrs());
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => [c.check, c.subject, c.status])).toEqual([
      ["params_hash", "line 3 ToolCall tc_1 params", "passed"],
      ["output_hash", "line 4 ToolResult tc_1 output", "passed"],
    ]);
    expect(session.summary).toMatchObject({
      session_id: "sess_1",
      producer: "adjutant@1.2.3",
      started_at: "2026-01-13T10:00:00Z",
      ended_at: "2026-01-13T10:00:05Z",
      status: "success",
      confidence: 0.9,
      total_latency_ms: 40,
      mean_step_utility: 0.5,
      verification: [{ command: "cargo test", exit_code: 0 }],
      counts: { events: 6, tool_calls: 1, failed_tool_calls: 0 },
    });
    expect(session.tool_calls[0]).toMatchObject({
      id: "tc_1",
      tool: "file_read",
      params_hash: hashOf(params),
      ok: true,
      latency_ms: 40,
    });
  });

  it("lists the first rows of each status past the cap and counts the rest, subjects as written", () => {
    const head = dsrs().slice(0, 2);
    const calls: unknown[] = [];
    // Every seventh call tampered: failed rows come in among the passed ones, and both pass the cap.
    for (let k = 0; k < 8 * MAX_ROWS; k++) {
      const p = { path: `src/${k}.rs` };
      calls.push({
        event: "ToolCall",
        t: "2026-01-13T10:00:01Z",
        id: `tc_${k}`,
        tool: "file_read",
        params: p,
        params_hash: hashOf(k % 7 === 0 ? { tampered: k } : p),
        step_id: `s${k}`,
      });
    }
    const { findings } = run(replayDsrsFormat, [...head, ...calls]);
    const failed = Math.ceil((8 * MAX_ROWS) / 7);
    expect(findings.checkCounts).toEqual({ passed: 8 * MAX_ROWS - failed, failed, unverifiable: 0 });
    const listed = (status: string) => findings.checks.filter((c) => c.status === status);
    expect(listed("passed")).toHaveLength(MAX_ROWS);
    expect(listed("failed")).toHaveLength(MAX_ROWS);
    expect(listed("passed").at(-1)?.subject).toBe(
      `line ${3 + MAX_ROWS + Math.ceil(MAX_ROWS / 6) - 1} ToolCall tc_${MAX_ROWS + Math.ceil(MAX_ROWS / 6) - 1} params`,
    );
    expect(listed("failed").at(-1)?.subject).toBe(
      `line ${3 + 7 * (MAX_ROWS - 1)} ToolCall tc_${7 * (MAX_ROWS - 1)} params`,
    );
  });

  it("fails the row of a tampered params value", () => {
    const lines = dsrs();
    (lines[2] as { params: unknown }).params = { path: "src/b.rs" };
    const { findings } = run(replayDsrsFormat, lines);
    const row = findings.checks.find((c) => c.check === "params_hash");
    expect(row).toMatchObject({
      status: "failed",
      subject: "line 3 ToolCall tc_1 params",
      expected: hashOf(params),
      actual: hashOf({ path: "src/b.rs" }),
    });
  });

  it.each([
    ["result without call", (l: unknown[]) => l.splice(2, 1), "replay.result_without_call"],
    ["missing header", (l: unknown[]) => l.splice(0, 1), "replay.missing_header"],
    ["missing SessionEnd", (l: unknown[]) => l.pop(), "replay.missing_session_end"],
    ["event after SessionEnd", (l: unknown[]) => l.push(l[4]), "replay.after_session_end"],
    ["late header", (l: unknown[]) => l.splice(2, 0, l[0]), "replay.duplicate_header"],
    [
      "malformed hash",
      (l: unknown[]) => Object.assign(l[2] as object, { params_hash: "sha256:ABC" }),
      "replay.invalid_field",
    ],
    [
      "step_utility above 1",
      (l: unknown[]) => Object.assign(l[3] as object, { step_utility: 1.5 }),
      "replay.invalid_field",
    ],
    [
      "confidence below 0",
      (l: unknown[]) => Object.assign(l[6] as object, { confidence: -0.1 }),
      "replay.invalid_field",
    ],
    [
      "bad timestamp",
      (l: unknown[]) => Object.assign(l[1] as object, { t: "yesterday" }),
      "replay.invalid_field",
    ],
    [
      "a status that is not a string",
      (l: unknown[]) => Object.assign(l[6] as object, { status: 1 }),
      "replay.invalid_field",
    ],
    ["missing tool", (l: unknown[]) => delete (l[2] as { tool?: string }).tool, "replay.missing_field"],
    [
      "commands and exit codes differ",
      (l: unknown[]) => Object.assign(l[5] as object, { exit_codes: [0, 1] }),
      "replay.verification_mismatch",
    ],
  ])("reports %s", (_name, mutate, code) => {
    const lines = dsrs();
    mutate(lines);
    expect(run(replayDsrsFormat, lines).codes).toContain(code);
  });

  it("names line, JSON path, expected and found for a field error", () => {
    const lines = dsrs();
    Object.assign(lines[3] as object, { latency_ms: "fast" });
    const error = run(replayDsrsFormat, lines).findings.errors[0];
    expect(error).toMatchObject({
      line: 4,
      path: "$.latency_ms",
      code: "replay.invalid_field",
      found: 'string "fast"',
    });
    expect(error?.expected).toMatch(/number/);
  });

  it("keeps unknown events and fields as notices, not errors", () => {
    const lines = dsrs();
    lines.splice(5, 0, { event: "Heartbeat", t: "2026-01-13T10:00:04Z" });
    Object.assign(lines[2] as object, { extra: 1 });
    const { findings, session } = run(replayDsrsFormat, lines);
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toEqual(
      expect.arrayContaining(["replay.unknown_event", "replay.unknown_field"]),
    );
    expect(session.summary.counts.steps_by_type.Heartbeat).toBe(1);
  });

  it.each([
    ["SessionEnd", "Done", 6],
    ["SessionEnd", "toString", 6],
    ["StepComplete", "Paused", 4],
  ])("takes %s status %j outside the vocabulary as a notice, not an error", (type, word, index) => {
    // Prepare
    const lines = dsrs();
    Object.assign(lines[index] as object, { status: word });
    // Act
    const { findings, session } = run(replayDsrsFormat, lines);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.notices).toEqual([
      expect.objectContaining({ line: index + 1, path: "$.status", code: "replay.unknown_word" }),
    ]);
    expect(findings.notices[0]?.message).toContain(`${type} status ${JSON.stringify(word)} is none of`);
    expect(session.summary.status).toBe(type === "SessionEnd" ? "unknown" : "success");
  });

  it("reads the runtime's SessionStart (policy_bundle_id, issue_number null) and lower-case statuses", () => {
    // Prepare
    const lines = dsrs();
    lines[1] = {
      event: "SessionStart",
      t: "2026-02-01T00:00:00+00:00",
      session_id: "run-1",
      issue_number: null,
      policy_bundle_id: "policy.history.v1",
    };
    // Act
    const results = ["success", "failure", "cancelled"].map((status) => {
      Object.assign(lines[6] as object, { status });
      return run(replayDsrsFormat, lines);
    });
    // Assess
    for (const { findings } of results) {
      expect(findings.errors).toEqual([]);
      expect(findings.notices).toEqual([]);
    }
    expect(results.map((r) => r.session.summary.status)).toEqual(["success", "failed", "cancelled"]);
    expect(results[0]?.session.summary.policy_bundle_id).toBe("policy.history.v1");
  });

  it("notes hashes whose input is not carried (Layer C) instead of making rows", () => {
    const lines = dsrs();
    delete (lines[2] as { params?: unknown }).params;
    delete (lines[3] as { output?: unknown }).output;
    const { findings } = run(replayDsrsFormat, lines);
    expect(findings.checks).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toEqual(
      expect.arrayContaining(["replay.params_not_carried", "replay.output_not_carried"]),
    );
  });
});

describe("replay-v1 (type/ts)", () => {
  const payload = { source: "runtime" };
  const lines = () => [
    {
      type: "ReplayHeader",
      replay_version: 1,
      producer: "openagents-runtime",
      created_at: "2026-02-01T00:00:00+00:00",
    },
    { type: "SessionStart", ts: "2026-02-01T00:00:00+00:00", session_id: "s", policy_bundle_id: "p" },
    {
      type: "RuntimeEvent",
      ts: "2026-02-01T00:00:01+00:00",
      session_id: "s",
      seq: 1,
      runtime_event_type: "run.started",
      payload_hash: hashOf(payload),
      payload,
    },
    {
      type: "ToolCall",
      ts: "2026-02-01T00:00:02Z",
      step_id: "st1",
      tool: "shell",
      params,
      params_hash: hashOf(params),
    },
    {
      type: "ToolResult",
      ts: "2026-02-01T00:00:03Z",
      step_id: "st1",
      ok: false,
      output_hash: hashOf(output),
      latency_ms: 12,
      side_effects: ["fs_read"],
    },
    { type: "Verification", ts: "2026-02-01T00:00:04Z", command: "npm test", exit_code: 1 },
    '{"type":"SessionEnd","ts":"2026-02-01T00:00:05+00:00","session_id":"s","status":"failure","confidence":1.0,"total_tool_calls":1}',
  ];

  it("rehashes RuntimeEvent payloads, pairs results by step_id, and counts failures", () => {
    const { findings, session } = run(replayV1Format, lines());
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => c.check)).toEqual(["payload_hash", "params_hash"]);
    expect(session.summary).toMatchObject({
      status: "failed",
      confidence: 1,
      counts: { failed_tool_calls: 1 },
      verification: [{ command: "npm test", exit_code: 1 }],
    });
    expect(session.tool_calls[0]).toMatchObject({ step_id: "st1", ok: false, side_effects: ["fs_read"] });
    expect(session.runtime_events).toEqual([
      {
        seq: expect.anything(),
        event_type: "run.started",
        payload: expect.anything(),
        idempotency_key: null,
        recorded_at: "2026-02-01T00:00:01+00:00",
      },
    ]);
  });

  it("takes a SessionEnd status outside the vocabulary as a notice, summarized as unknown", () => {
    const l = lines();
    l[6] = JSON.stringify({ ...JSON.parse(l[6] as string), status: "Success" });
    const { findings, session } = run(replayV1Format, l);
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toContain("replay.unknown_word");
    expect(session.summary.status).toBe("unknown");
  });

  it("calls the trajectory partial: type/ts RuntimeEvent lines leave out idempotency_key", () => {
    const { findings, session } = run(replayV1Format, lines());
    expect(session.trajectory_gap).toBe("1 RuntimeEvent line(s) leave out idempotency_key");
    expect(findings.notices.map((n) => n.code)).toContain("replay.trajectory_partial");
  });

  it("requires replay_version 1", () => {
    const l = lines();
    Object.assign(l[0] as object, { replay_version: 2 });
    expect(run(replayV1Format, l).codes).toContain("replay.invalid_field");
  });
});

describe("replay-adr0003", () => {
  it("takes an outcome outside the vocabulary as a notice, summarized as unknown", () => {
    const { findings, session } = run(replayAdr0003Format, [
      { type: "ReplayHeader", version: "1.0.0", session_id: "s9", started_at: "2026-01-01T00:00:00Z" },
      { type: "SessionEnd", ended_at: "2026-01-01T00:10:00Z", outcome: "cancelled" },
    ]);
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => [n.code, n.path])).toEqual([["replay.unknown_word", "$.outcome"]]);
    expect(session.summary.status).toBe("unknown");
  });

  it("reads the ADR-0003 variant", () => {
    const { findings, session } = run(replayAdr0003Format, [
      { type: "ReplayHeader", version: "1.0.0", session_id: "s9", started_at: "2026-01-01T00:00:00Z" },
      { type: "SessionStart", task: "fix the bug" },
      { type: "ToolCall", id: "c1", tool: "Read", params: { file_path: "a" } },
      { type: "ToolResult", id: "c1", output: "text", step_utility: 0.2, latency_ms: 100 },
      { type: "Verification", tests_before: 3, tests_after: 5, delta: 2 },
      { type: "SessionEnd", ended_at: "2026-01-01T00:10:00Z", outcome: "timeout" },
    ]);
    expect(findings.errors).toEqual([]);
    expect(session.summary).toMatchObject({
      session_id: "s9",
      started_at: "2026-01-01T00:00:00Z",
      ended_at: "2026-01-01T00:10:00Z",
      status: "timeout",
    });
  });
});

describe("RuntimeEvent lines of the event/t dialect", () => {
  const header = {
    event: "ReplayHeader",
    replay_version: 1,
    producer: "openagents-runtime",
    created_at: "2026-02-01T00:00:00+00:00",
  };
  const start = {
    event: "SessionStart",
    t: "2026-02-01T00:00:00+00:00",
    session_id: "r",
    issue_number: null,
    policy_bundle_id: "p",
  };
  const end =
    '{"confidence":0.0,"event":"SessionEnd","status":"failure","t":"2026-02-01T00:00:02+00:00","total_latency_ms":0,"total_tool_calls":0}';
  const event = (payload: unknown, idempotency_key: unknown) => ({
    event: "RuntimeEvent",
    t: "2026-02-01T00:00:01+00:00",
    session_id: "r",
    seq: 1,
    runtime_event_type: "run.note",
    payload_hash: hashOf(payload),
    payload,
    idempotency_key,
  });

  it("keeps a null payload null and the idempotency_key as written", () => {
    const { findings, session } = run(replayDsrsFormat, [header, start, event(null, "k-1"), end]);
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => [c.check, c.status])).toEqual([["payload_hash", "passed"]]);
    expect(session.runtime_events).toEqual([
      {
        seq: expect.anything(),
        event_type: "run.note",
        payload: null,
        idempotency_key: "k-1",
        recorded_at: "2026-02-01T00:00:01+00:00",
      },
    ]);
    expect(session.trajectory_gap).toBeUndefined();
  });

  it("calls the trajectory partial when a line leaves out idempotency_key or payload (a Layer C copy)", () => {
    const keyless = event({ a: 1 }, null) as Record<string, unknown>;
    delete keyless.idempotency_key;
    const payloadless = event({ a: 1 }, null) as Record<string, unknown>;
    delete payloadless.payload;
    const { findings, session } = run(replayDsrsFormat, [header, start, keyless, payloadless, end]);
    expect(findings.errors).toEqual([]);
    expect(session.trajectory_gap).toBe(
      "1 RuntimeEvent line(s) leave out idempotency_key; 1 RuntimeEvent line(s) leave out payload",
    );
  });

  it("takes the runtime's sha256:unknown output_hash as no hash: a notice, no row", () => {
    const lines = [
      header,
      start,
      {
        event: "ToolCall",
        t: start.t,
        id: "runtime.seq:1",
        tool: "bash",
        params: {},
        params_hash: hashOf({}),
        step_id: "runtime.seq:1",
      },
      {
        event: "ToolResult",
        t: start.t,
        id: "runtime.seq:1",
        output_hash: "sha256:unknown",
        exit_code: null,
        step_utility: 0,
        latency_ms: 0,
      },
      end,
    ];
    const { findings, session } = run(replayDsrsFormat, lines);
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => c.check)).toEqual(["params_hash"]);
    expect(findings.notices.map((n) => n.code)).toEqual(["replay.output_hash_unknown"]);
    expect(session.tool_calls[0]?.output_hash).toBeNull();
    expect(session.trajectory_gap).toBeUndefined();
  });
});

describe("detectReplayDialect", () => {
  it.each([
    [{ event: "ReplayHeader" }, "replay-dsrs"],
    [{ type: "ReplayHeader", replay_version: 1 }, "replay-v1"],
    [{ type: "ReplayHeader", version: "1.0.0" }, "replay-adr0003"],
    [{ type: "ToolCall", ts: "x" }, "replay-v1"],
    [{ type: "SessionStart", task: "x" }, "replay-adr0003"],
    [{ span_id: "x" }, undefined],
    [[1], undefined],
  ])("%j → %s", (value, id) => {
    expect(detectReplayDialect(readJson(JSON.stringify(value)))).toBe(id);
  });
});
