import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  canonicalize,
  type JsonObject,
  type JsonValue,
  readJson,
  sha256Tag,
} from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { verifyReplay } from "#shared/receipt/index.js";
import { corpusBytes, corpusText } from "../support/corpus.js";
import {
  codingLoopReplay,
  eventTRuntimeReplay,
  type RuntimeRun,
  rfc3339,
  runsOfHistoryFixtures,
  runtimeReceipt,
  runtimeTrajectoryHash,
  typeTsRuntimeReplay,
} from "../support/openagents-writers.js";

async function inspectText(text: string | Buffer, file = "REPLAY.jsonl") {
  const bytes = Buffer.from(text);
  return inspect(
    (async function* () {
      yield bytes;
    })(),
    { file, keepToolCalls: true },
  );
}

/** A receipt as verify reads it back from its JSON. */
const receiptValue = (receipt: JsonObject): JsonValue => readJson(canonicalize(receipt, "openagents"));

const HISTORIES = runsOfHistoryFixtures(corpusText("openagents", "run_workflow_histories_v1.type-ts.json"));

// The replay_hash values apps/runtime/fixtures/history_compat/run_workflow_histories_v1.json holds
// (commit 12e84f20) for the runtime's "event"/"t" files of the same three runs.
const EVENT_T_REPLAY_HASH: Record<string, string> = {
  run_happy_path_v1: "sha256:d4e7362dfad2ffe1a3e88ac544c32337298ee25829d2c6307845358c05f2958c",
  run_cancel_flow_v1: "sha256:8c3d66d584b50f7ddf9382d84fc9069d8f8262f54d299f36e011dcf1738e29ec",
  run_failure_from_canceling_v1: "sha256:8a031059df5c8ce33ffd5b26b583618bc39455c1b1f86e1578b2beccc2dfb5fd",
};

const SUMMARY_STATUS: Record<string, string> = {
  succeeded: "success",
  canceled: "cancelled",
  failed: "failed",
};

describe("the test writers reproduce the runtime's own files", () => {
  it.each(HISTORIES.map((h) => [h.id, h] as const))(
    "%s: type/ts bytes are the corpus file",
    (id, { run }) => {
      expect(typeTsRuntimeReplay(run)).toBe(
        corpusBytes("openagents", "replays-type-ts", `${id}.REPLAY.jsonl`).toString("utf8"),
      );
    },
  );

  it.each(HISTORIES.map((h) => [h.id, h] as const))(
    "%s: event/t bytes hash to the runtime fixture's replay_hash",
    (id, { run }) => {
      expect(sha256Tag(eventTRuntimeReplay(run))).toBe(EVENT_T_REPLAY_HASH[id]);
    },
  );
});

describe('the runtime\'s "event"/"t" files (artifacts.rs build_replay_jsonl, 12e84f20)', () => {
  it.each(HISTORIES.map((h) => [h.id, h] as const))(
    "%s: passed, with the fixture's trajectory_hash recomputed in full",
    async (_id, { run, expected }) => {
      // Act
      const { report } = await inspectText(eventTRuntimeReplay(run));
      // Assess
      expect(report.errors).toEqual([]);
      expect(report.format).toBe("replay-dsrs");
      expect(report.verdict).toBe("passed");
      expect(report.trajectory_hash).toBe(expected.trajectory_hash);
      expect(report.trajectory_hash_complete).toBe(true);
      expect(report.trajectory_hash_gap).toBeNull();
      expect(report.notices.map((n) => n.code)).toEqual([]);
      expect(report.checks.map((c) => [c.check, c.status])).toEqual(
        run.events.map(() => ["payload_hash", "passed"]),
      );
      expect(report.summary).toMatchObject({
        session_id: run.id,
        producer: "openagents-runtime",
        policy_bundle_id: run.metadata.policy_bundle_id,
        started_at: run.created_at,
        ended_at: run.updated_at,
        status: SUMMARY_STATUS[run.status],
        confidence: run.status === "succeeded" ? 1 : 0,
        total_latency_ms: 0,
        counts: { events: run.events.length + 2, tool_calls: 0 },
      });
    },
  );

  it.each(HISTORIES.map((h) => [h.id, h] as const))(
    "%s: verifies passed against the runtime's receipt, and fails when its trajectory_hash changes",
    async (_id, { run, expected }) => {
      // Prepare
      const inspected = await inspectText(eventTRuntimeReplay(run));
      const receipt = runtimeReceipt(run);
      expect(receipt.trajectory_hash).toBe(expected.trajectory_hash);
      // Act
      const report = verifyReplay(inspected, receiptValue(receipt));
      const edited = verifyReplay(
        inspected,
        receiptValue({ ...receipt, trajectory_hash: `sha256:${"0".repeat(64)}` }),
      );
      // Assess
      expect(report.errors).toEqual([]);
      expect(report.checks.find((c) => c.check === "trajectory_hash")).toMatchObject({
        status: "passed",
        expected: expected.trajectory_hash,
      });
      expect(report.verdict).toBe("passed");
      expect(edited.verdict).toBe("failed");
      expect(edited.checks.filter((c) => c.status === "failed").map((c) => c.check)).toEqual([
        "trajectory_hash",
      ]);
    },
  );

  // A run with every kind of run event the writer turns into other lines, and the fallbacks it
  // writes: sha256:unknown for a tool event without output_hash, "runtime.seq:N" ids, a
  // RuntimeEvent for a tool event whose payload is not an object.
  const params = readJson('{"path":"README.md"}');
  const mixed: RuntimeRun = {
    id: "01951d2a-6c15-7000-8000-000000000001",
    status: "failed",
    metadata: { policy_bundle_id: "policy.mixed.v1" },
    created_at: "2026-02-25T10:00:00+00:00",
    updated_at: "2026-02-25T10:00:09.250+00:00",
    events: [
      { seq: 1, event_type: "run.started", payload: readJson('{"source":"runtime"}'), idempotency_key: null },
      {
        seq: 2,
        event_type: "tool",
        payload: readJson(
          `{"tool":"read_file","params":{"path":"README.md"},"output_hash":"sha256:${"a".repeat(64)}","latency_ms":42,"exit_code":0,"step_utility":0.2,"step_id":"step-1"}`,
        ),
        idempotency_key: "tool:1",
      },
      {
        seq: 3,
        event_type: "tool",
        payload: readJson('{"tool":"bash","latency_ms":7}'),
        idempotency_key: null,
      },
      { seq: 4, event_type: "tool", payload: "not an object", idempotency_key: null },
      {
        seq: 5,
        event_type: "verification",
        payload: readJson('{"command":"cargo test","exit_code":101}'),
        idempotency_key: null,
      },
      {
        seq: 6,
        event_type: "payment",
        payload: readJson(
          '{"rail":"lightning","asset_id":"btc","amount_msats":1000,"payment_proof":{"preimage":"00"}}',
        ),
        idempotency_key: "pay:1",
      },
      {
        seq: 7,
        event_type: "run.finished",
        payload: readJson('{"status":"failed"}'),
        idempotency_key: "finish",
      },
    ].map((e, k) => ({ ...e, recorded_at: rfc3339(`2026-02-25T10:00:0${k + 1}.250Z`) })),
  };

  it("reads every line the writer makes of tool, verification and payment run events", async () => {
    // Act
    const { report, session } = await inspectText(eventTRuntimeReplay(mixed));
    // Assess
    expect(report.errors).toEqual([]);
    expect(report.verdict).toBe("passed");
    expect(report.summary?.counts.steps_by_type).toEqual({
      ReplayHeader: 1,
      SessionStart: 1,
      RuntimeEvent: 3,
      ToolCall: 2,
      ToolResult: 2,
      Verification: 1,
      Payment: 1,
      SessionEnd: 1,
    });
    expect(report.summary).toMatchObject({
      status: "failed",
      policy_bundle_id: "policy.mixed.v1",
      total_latency_ms: 49,
      verification: [{ command: "cargo test", exit_code: 101 }],
      counts: { tool_calls: 2, failed_tool_calls: 0 },
    });
    expect(session?.tool_calls.map((c) => [c.id, c.step_id, c.tool, c.output_hash])).toEqual([
      ["tool:1", "step-1", "read_file", `sha256:${"a".repeat(64)}`],
      ["runtime.seq:3", "runtime.seq:3", "bash", null],
    ]);
    expect(report.checks.filter((c) => c.check === "params_hash").map((c) => c.status)).toEqual([
      "passed",
      "passed",
    ]);
    expect(report.checks.find((c) => c.check === "params_hash")?.expected).toBe(
      canonicalHash(params, "openagents"),
    );
    expect(report.notices.map((n) => n.code)).toEqual([
      "replay.output_not_carried",
      "replay.output_hash_unknown",
      "replay.trajectory_partial",
    ]);
  });

  it("calls its trajectory partial and a receipt's trajectory_hash unverifiable, not failed", async () => {
    // Prepare
    const inspected = await inspectText(eventTRuntimeReplay(mixed));
    const trajectory = runtimeTrajectoryHash(mixed.events);
    // Act
    const report = verifyReplay(
      inspected,
      receiptValue({ schema: "openagents.receipt.v1", session_id: mixed.id, trajectory_hash: trajectory }),
    );
    // Assess
    expect(inspected.report.trajectory_hash_complete).toBe(false);
    expect(inspected.report.trajectory_hash).not.toBe(trajectory);
    expect(inspected.report.trajectory_hash_gap).toBe(
      "4 run event(s) are written as ToolCall, Verification, Payment lines, without seq, payload and idempotency_key",
    );
    expect(report.checks.find((c) => c.check === "trajectory_hash")).toMatchObject({
      status: "unverifiable",
      expected: trajectory,
      subject: expect.stringContaining("4 run event(s) are written as ToolCall"),
    });
    expect(report.verdict).toBe("unverifiable");
  });
});

describe('the runtime\'s "type"/"ts" files (replays-type-ts/, artifacts.rs build_replay_jsonl, 7353f77d)', () => {
  it.each(HISTORIES.map((h) => [h.id, h] as const))(
    "%s: trajectory_hash is reported partial, and a receipt with the runtime's value is unverifiable",
    async (id, { run, expected }) => {
      // Prepare
      const inspected = await inspectText(corpusBytes("openagents", "replays-type-ts", `${id}.REPLAY.jsonl`));
      // Act
      const report = verifyReplay(inspected, receiptValue(runtimeReceipt(run)));
      // Assess
      expect(inspected.report.verdict).toBe("passed");
      expect(inspected.report.trajectory_hash).not.toBe(expected.trajectory_hash);
      expect(inspected.report.trajectory_hash_complete).toBe(false);
      expect(inspected.report.trajectory_hash_gap).toBe(
        `${run.events.length} RuntimeEvent line(s) leave out idempotency_key`,
      );
      expect(inspected.report.notices.map((n) => n.code)).toContain("replay.trajectory_partial");
      expect(report.checks.find((c) => c.check === "trajectory_hash")).toMatchObject({
        status: "unverifiable",
        expected: expected.trajectory_hash,
        actual: inspected.report.trajectory_hash,
        subject: expect.stringContaining("leave out idempotency_key"),
      });
      expect(report.checks.filter((c) => c.status === "failed")).toEqual([]);
      expect(report.verdict).toBe("unverifiable");
    },
  );

  it("run_happy_path_v1: the partial value is the one HASHING-NOTES.md names, the runtime's another", async () => {
    const { report } = await inspectText(
      corpusBytes("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl"),
    );
    expect(report.trajectory_hash).toMatch(/^sha256:c48328ca/);
    expect(HISTORIES[0]?.expected.trajectory_hash).toMatch(/^sha256:d694384b/);
  });
});

describe("the coding loop's files (coding_agent_loop.rs execute_coding_agent_loop)", () => {
  const loop = codingLoopReplay({
    session_id: "sess-7f3c",
    started_at: "2026-03-02T10:15:30.123456789Z",
    issue_number: 42,
    policy_bundle_id: "local-dev",
    plan: { t: "2026-03-02T10:15:31.000000001Z", value: readJson('{"steps":["read"]}'), steps: 1 },
    steps: [
      {
        id: "step-1",
        calls: [
          {
            t: "2026-03-02T10:15:32.500Z",
            tResult: "2026-03-02T10:15:32.750123Z",
            id: "tc_5b0e3c2a-8f43-4f1e-9d55-0d6a1f0c9e11",
            tool: "read_file",
            params: readJson('{"path":"src/lib.rs"}'),
            output: { success: true, content: "fn main() {}", error: null },
            exit_code: null,
            step_utility: 0.2,
            latency_ms: 250,
          },
          {
            t: "2026-03-02T10:15:33.100Z",
            tResult: "2026-03-02T10:15:40.987654321Z",
            id: "tc_0c1d2e3f-4a5b-4c6d-8e7f-901234567890",
            tool: "bash",
            params: readJson('{"command":"cargo test --no-fail-fast"}'),
            output: { success: false, content: "", error: "exit status 101" },
            exit_code: 101,
            step_utility: -3,
            latency_ms: 7887,
          },
        ],
        t: "2026-03-02T10:15:41Z",
        status: "Failed",
        iterations: 2,
      },
    ],
    verification: { t: "2026-03-02T10:15:50.000000002Z", commands: ["cargo check"], exit_codes: [1] },
    end: { t: "2026-03-02T10:15:51.000000003Z", status: "Failed", confidence: 0.85 },
  });

  it("reads as passed, with the policy from SessionStart and the f32 values as written", async () => {
    // Act
    const { report, session } = await inspectText(loop);
    // Assess
    expect(loop).toContain('"step_utility":0.20000000298023224');
    expect(loop).toContain('"confidence":0.8500000238418579');
    expect(report.errors).toEqual([]);
    expect(report.verdict).toBe("passed");
    expect(report.trajectory_hash).toBeNull();
    expect(report.trajectory_hash_complete).toBeNull();
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ["params_hash", "passed"],
      ["params_hash", "passed"],
    ]);
    expect(report.summary).toMatchObject({
      session_id: "sess-7f3c",
      producer: "adjutant",
      policy_bundle_id: "local-dev",
      started_at: "2026-03-02T10:15:30.123456789Z",
      ended_at: "2026-03-02T10:15:51.000000003Z",
      status: "failed",
      confidence: 0.8500000238418579,
      total_latency_ms: 8137,
      verification: [{ command: "cargo check", exit_code: 1 }],
      counts: { tool_calls: 2, failed_tool_calls: 1 },
    });
    expect(session?.tool_calls.map((c) => c.ok)).toEqual([true, false]);
    expect(report.notices.map((n) => n.code)).toEqual(["replay.output_not_carried"]);
  });
});
