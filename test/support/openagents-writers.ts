/**
 * The OpenAgents REPLAY.jsonl writers, reproduced byte for byte from their code
 * (github.com/OpenAgentsInc/openagents), so that tests read exactly what each one writes:
 *
 * - `typeTsRuntimeReplay`: apps/runtime/src/artifacts.rs `build_replay_jsonl` as of 7353f77d
 *   (`"type"`/`"ts"`, serde structs in declaration order, RuntimeEvent lines without
 *   idempotency_key). It reproduces the corpus files in replays-type-ts/.
 * - `eventTRuntimeReplay`: the same function as of 12e84f20 (`"event"`/`"t"`, every line
 *   canonical JSON, RuntimeEvent lines with idempotency_key, tool/verification/payment run events
 *   turned into ToolCall+ToolResult, Verification and Payment lines). It reproduces the
 *   replay_hash values of apps/runtime/fixtures/history_compat/run_workflow_histories_v1.json.
 * - `codingLoopReplay`: crates/adjutant/src/coding_agent_loop.rs `execute_coding_agent_loop`
 *   through `ReplayWriter::emit` (`"event"`/`"t"`, canonical JSON, chrono's `...Z` timestamps).
 *
 * Numbers follow serde_json: `serde_json::to_value` widens an f32 to f64 (0.2f32 is written
 * 0.20000000298023224) and an f64 with no fraction keeps `.0`.
 */
import {
  canonicalHash,
  canonicalize,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";

/** A run event as the runtime keeps it (apps/runtime/src/types.rs `RunEvent`). */
export interface RunEvent {
  seq: number;
  event_type: string;
  payload: JsonValue;
  idempotency_key: string | null;
  /** `recorded_at.to_rfc3339()`: `+00:00`, and the fraction chrono prints (none, 3, 6 or 9 digits). */
  recorded_at: string;
}

/** A run (apps/runtime/src/types.rs `RuntimeRun`); times as `to_rfc3339()` prints them. */
export interface RuntimeRun {
  id: string;
  status: "succeeded" | "failed" | "canceled" | "running";
  metadata: JsonObject;
  created_at: string;
  updated_at: string;
  events: RunEvent[];
}

/** chrono's `to_rfc3339()` of a UTC time given as `...Z`. */
export const rfc3339 = (utc: string): string => utc.replace(/Z$/, "+00:00");

/** An f64 as serde_json writes it: `1.0`, `0.5`. */
export const f64 = (x: number): JsonNumber => new JsonNumber(Number.isInteger(x) ? `${x}.0` : String(x));

/** An f32 as `serde_json::to_value` then the canonical writer print it (widened to f64). */
export const f32 = (x: number): JsonNumber => f64(Math.fround(x));

const int = (n: number): JsonNumber => new JsonNumber(String(n));

/** JSON text in member order, as serde_json (with `preserve_order`) writes a `Value`. */
function serdeText(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(serdeText).join(",")}]`;
  if (isJsonObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${serdeText(v)}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** The runtime's `replay_status` and `replay_confidence` (artifacts.rs). */
function replayStatus(status: RuntimeRun["status"]): [string, JsonNumber] {
  if (status === "succeeded") return ["success", f64(1)];
  if (status === "failed") return ["failure", f64(0)];
  if (status === "canceled") return ["cancelled", f64(0)];
  return ["success", f64(0.5)];
}

const policyOf = (run: RuntimeRun): string => {
  const id = run.metadata.policy_bundle_id;
  return typeof id === "string" ? id : "runtime.default";
};

const endTime = (run: RuntimeRun): string => run.events.at(-1)?.recorded_at ?? run.updated_at;

/** artifacts.rs `build_replay_jsonl` as of 7353f77d: serde structs, `"type"`/`"ts"`. */
export function typeTsRuntimeReplay(run: RuntimeRun): string {
  const [status, confidence] = replayStatus(run.status);
  const lines = [
    serdeText({
      type: "ReplayHeader",
      replay_version: int(1),
      producer: "openagents-runtime",
      created_at: run.created_at,
    }),
    serdeText({
      type: "SessionStart",
      ts: run.created_at,
      session_id: run.id,
      policy_bundle_id: policyOf(run),
    }),
    ...run.events.map((e) =>
      serdeText({
        type: "RuntimeEvent",
        ts: e.recorded_at,
        session_id: run.id,
        seq: int(e.seq),
        runtime_event_type: e.event_type,
        payload_hash: canonicalHash(e.payload, "openagents"),
        payload: e.payload,
      }),
    ),
    serdeText({
      type: "SessionEnd",
      ts: endTime(run),
      session_id: run.id,
      status,
      confidence,
      total_tool_calls: int(0),
    }),
  ];
  return `${lines.join("\n")}\n`;
}

const member = (payload: JsonObject, key: string): JsonValue | undefined =>
  Object.hasOwn(payload, key) ? payload[key] : undefined;
const text = (payload: JsonObject, key: string): string | undefined => {
  const v = member(payload, key);
  return typeof v === "string" ? v : undefined;
};
/** serde_json `as_i64`/`as_u64`/`as_f64` of a member, as a JS number. */
const num = (payload: JsonObject, key: string): number | undefined => {
  const v = member(payload, key);
  return v instanceof JsonNumber ? Number(v.text) : undefined;
};

/** artifacts.rs `build_replay_jsonl` as of 12e84f20: `"event"`/`"t"`, canonical lines. */
export function eventTRuntimeReplay(run: RuntimeRun): string {
  const lines: string[] = [];
  const push = (event: JsonObject) => lines.push(canonicalize(event, "openagents"));
  push({
    event: "ReplayHeader",
    replay_version: int(1),
    producer: "openagents-runtime",
    created_at: run.created_at,
  });
  push({
    event: "SessionStart",
    t: run.created_at,
    session_id: run.id,
    issue_number: null,
    policy_bundle_id: policyOf(run),
  });
  let toolCalls = 0;
  let latency = 0;
  for (const e of run.events) {
    const t = e.recorded_at;
    const payload = isJsonObject(e.payload) ? e.payload : undefined;
    if (e.event_type === "tool" && payload !== undefined) {
      const id = e.idempotency_key ?? `runtime.seq:${e.seq}`;
      const params = member(payload, "params") ?? {};
      const exitCode = num(payload, "exit_code");
      const utility = num(payload, "step_utility");
      const latencyMs = num(payload, "latency_ms") ?? 0;
      toolCalls++;
      latency += latencyMs;
      push({
        event: "ToolCall",
        t,
        id,
        tool: text(payload, "tool") ?? "unknown",
        params,
        params_hash: text(payload, "params_hash") ?? canonicalHash(params, "openagents"),
        step_id: text(payload, "step_id") ?? id,
      });
      push({
        event: "ToolResult",
        t,
        id,
        output_hash: text(payload, "output_hash") ?? "sha256:unknown",
        exit_code: exitCode === undefined ? null : int(exitCode),
        step_utility: f32(utility ?? 0),
        latency_ms: int(latencyMs),
      });
    } else if (e.event_type === "verification" && payload !== undefined) {
      push({
        event: "Verification",
        t,
        commands: [text(payload, "command") ?? "unknown"],
        exit_codes: [int(num(payload, "exit_code") ?? -1)],
        verification_delta: int(num(payload, "verification_delta") ?? 0),
      });
    } else if (e.event_type === "payment" && payload !== undefined) {
      push({
        event: "Payment",
        t,
        rail: text(payload, "rail") ?? "unknown",
        asset_id: text(payload, "asset_id") ?? "unknown",
        amount_msats: int(num(payload, "amount_msats") ?? 0),
        payment_proof: member(payload, "payment_proof") ?? null,
        job_hash: text(payload, "job_hash") ?? null,
        status: text(payload, "status") ?? "released",
      });
    } else {
      push({
        event: "RuntimeEvent",
        t,
        session_id: run.id,
        seq: int(e.seq),
        runtime_event_type: e.event_type,
        payload_hash: canonicalHash(e.payload, "openagents"),
        payload: e.payload,
        idempotency_key: e.idempotency_key,
      });
    }
  }
  const [status, confidence] = replayStatus(run.status);
  push({
    event: "SessionEnd",
    t: endTime(run),
    status,
    confidence,
    total_tool_calls: int(toolCalls),
    total_latency_ms: int(latency),
  });
  return `${lines.join("\n")}\n`;
}

/** artifacts.rs `trajectory_hash`: over every run event, whatever line it became. */
export function runtimeTrajectoryHash(events: readonly RunEvent[]): string {
  return canonicalHash(
    events.map((e) => ({
      seq: int(e.seq),
      event_type: e.event_type,
      payload: e.payload,
      idempotency_key: e.idempotency_key,
      recorded_at: e.recorded_at,
    })),
    "openagents",
  );
}

/**
 * artifacts.rs `build_receipt` (12e84f20) for a run of RuntimeEvent lines only (its tool_calls,
 * verification and payments come from tool, verification and payment run events).
 */
export function runtimeReceipt(run: RuntimeRun): JsonObject {
  return {
    schema: "openagents.receipt.v1",
    session_id: run.id,
    trajectory_hash: runtimeTrajectoryHash(run.events),
    policy_bundle_id: policyOf(run),
    created_at: run.created_at,
    event_count: int(run.events.length),
    first_seq: int(run.events[0]?.seq ?? 0),
    last_seq: int(run.events.at(-1)?.seq ?? 0),
    metrics: {
      tool_calls: int(0),
      tool_latency_ms_total: int(0),
      verification_passed: null,
      payments_msats_total: int(0),
    },
    tool_calls: [],
    verification: [],
    payments: [],
  };
}

/** The history fixtures (run_workflow_histories_v1.json) as history_compat.rs `verify_fixture` runs them. */
export function runsOfHistoryFixtures(
  fixturesText: string,
): { id: string; run: RuntimeRun; expected: JsonObject }[] {
  const corpus = readJson(fixturesText) as JsonObject;
  return (corpus.fixtures as JsonObject[]).map((f) => {
    const events = (f.events as JsonObject[]).map(
      (e): RunEvent => ({
        seq: Number((e.seq as JsonNumber).text),
        event_type: e.event_type as string,
        payload: e.payload ?? {},
        idempotency_key: (e.idempotency_key as string | undefined) ?? null,
        recorded_at: rfc3339(e.recorded_at as string),
      }),
    );
    const expected = f.expected as JsonObject;
    const run: RuntimeRun = {
      id: f.run_id as string,
      status: expected.final_status as RuntimeRun["status"],
      metadata: (f.metadata as JsonObject | undefined) ?? {},
      created_at: rfc3339(f.created_at as string),
      updated_at: events.at(-1)?.recorded_at ?? rfc3339(f.created_at as string),
      events,
    };
    return { id: f.id as string, run, expected };
  });
}

/** One tool call of the coding loop, as it decides, runs and scores it. */
export interface LoopToolCall {
  /** `Utc::now()` at the ToolCall and at the ToolResult, chrono's serde form (`...Z`). */
  t: string;
  tResult: string;
  id: string;
  tool: string;
  params: JsonValue;
  output: { success: boolean; content: string; error: string | null };
  exit_code: number | null;
  /** Before the loop's clamp to -1..1. */
  step_utility: number;
  latency_ms: number;
}

/** What one coding-loop session did, in the order `execute_coding_agent_loop` writes it. */
export interface LoopSession {
  session_id: string;
  started_at: string;
  issue_number: number | null;
  policy_bundle_id: string;
  plan: { t: string; value: JsonValue; steps: number };
  steps: {
    id: string;
    calls: LoopToolCall[];
    t: string;
    status: "Success" | "Failed" | "Skipped" | "MaxIterationsReached";
    iterations: number;
  }[];
  verification: { t: string; commands: string[]; exit_codes: number[] };
  end: { t: string; status: "Success" | "Failed"; confidence: number };
}

/** coding_agent_loop.rs `execute_coding_agent_loop` through `ReplayWriter::emit`. */
export function codingLoopReplay(s: LoopSession): string {
  const lines: string[] = [];
  const emit = (event: JsonObject) => lines.push(canonicalize(event, "openagents"));
  emit({ event: "ReplayHeader", replay_version: int(1), producer: "adjutant", created_at: s.started_at });
  emit({
    event: "SessionStart",
    t: s.started_at,
    session_id: s.session_id,
    issue_number: s.issue_number === null ? null : int(s.issue_number),
    policy_bundle_id: s.policy_bundle_id,
  });
  emit({
    event: "PlanStart",
    t: s.plan.t,
    plan_hash: canonicalHash(s.plan.value, "openagents"),
    step_count: int(s.plan.steps),
  });
  let count = 0;
  let latency = 0;
  for (const step of s.steps) {
    for (const c of step.calls) {
      count++;
      latency += c.latency_ms;
      emit({
        event: "ToolCall",
        t: c.t,
        id: c.id,
        tool: c.tool,
        params: c.params,
        params_hash: canonicalHash(c.params, "openagents"),
        step_id: step.id,
      });
      emit({
        event: "ToolResult",
        t: c.tResult,
        id: c.id,
        output_hash: canonicalHash(c.output, "openagents"),
        exit_code: c.exit_code === null ? null : int(c.exit_code),
        step_utility: f32(Math.min(1, Math.max(-1, c.step_utility))),
        latency_ms: int(c.latency_ms),
      });
    }
    emit({
      event: "StepComplete",
      t: step.t,
      step_id: step.id,
      status: step.status,
      iterations: int(step.iterations),
    });
  }
  emit({
    event: "Verification",
    t: s.verification.t,
    commands: s.verification.commands,
    exit_codes: s.verification.exit_codes.map(int),
    verification_delta: int(0),
  });
  emit({
    event: "SessionEnd",
    t: s.end.t,
    status: s.end.status,
    confidence: f32(s.end.confidence),
    total_tool_calls: int(count),
    total_latency_ms: int(latency),
  });
  return `${lines.join("\n")}\n`;
}
