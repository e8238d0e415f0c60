/** The session summary of a ReplayKit run. */
import { isJsonObject, type JsonObject, type JsonValue } from "../../canonical/index.js";
import { emptySummary, type Session, type ToolCallRecord } from "../types.js";
import { member, numberMember, stringMember } from "../validate.js";
import type { StepView } from "./step-view.js";

const FAILURE_STATUS = new Set(["error", "failed", "failure"]);

/**
 * True when a tool result reports failure: `error` set, `ok`/`success` false, `status` error or
 * failed, a non-zero `exit_code`, or an HTTP `status_code` of 400 or more. Looked for in `output`
 * and in `output.result`, the two shapes the producer's capture writes.
 */
function reportsFailure(output: JsonValue): boolean {
  for (const v of [output, member(output, "result")]) {
    if (!isJsonObject(v)) continue;
    const err = v.error;
    if (err !== undefined && err !== null && err !== false && err !== "") return true;
    if (v.ok === false || v.success === false) return true;
    const status = stringMember(v, "status");
    if (status !== null && FAILURE_STATUS.has(status.toLowerCase())) return true;
    const exit = numberMember(v, "exit_code");
    if (exit !== null && exit !== 0) return true;
    const http = numberMember(v, "status_code");
    if (http !== null && http >= 400) return true;
  }
  return false;
}

function firstString(candidates: [JsonValue, string][]): string | null {
  for (const [value, key] of candidates) {
    const s = stringMember(value, key);
    if (s !== null && s !== "") return s;
  }
  return null;
}

/** Volatile metadata timings; `latency_ms` first so a step carrying both is not counted twice. */
function stepLatency(step: StepView): number | null {
  return numberMember(step.metadata, "latency_ms") ?? numberMember(step.metadata, "duration_ms");
}

/**
 * Normalizes a run. Status rule (ReplayKit records no run outcome): `failed` when any step is an
 * `error.event`, else `success` when an `output.final` step exists, else `unknown` (a capture
 * that stopped without a final output says nothing about success). A tool call is a
 * `tool.request` step; its result is the next `tool.response` with the same `call_id` or, when
 * either has none, the oldest unanswered request (the producer writes them in order).
 */
export function summarize(
  doc: JsonObject,
  run: JsonValue | undefined,
  runtime: JsonValue | undefined,
  steps: StepView[],
): Session {
  const summary = emptySummary("replaykit-rpk");
  const metadata = member(doc, "metadata");
  summary.session_id = stringMember(run, "id") ?? stringMember(metadata, "run_id");
  // `replaypack` is the producer's package name; some runs record its version under that key.
  const release = stringMember(runtime, "replaykit") ?? stringMember(runtime, "replaypack");
  summary.producer = release === null ? "replaykit" : `replaykit ${release}`;
  summary.started_at = stringMember(run, "timestamp") ?? stringMember(metadata, "created_at");
  let ended: string | null = null;
  for (const step of steps) if (step.timestamp !== null) ended = step.timestamp;
  summary.ended_at = ended;

  const byType: Record<string, number> = {};
  for (const step of steps) byType[step.type] = (byType[step.type] ?? 0) + 1;
  summary.counts.events = steps.length;
  summary.counts.steps_by_type = byType;
  summary.status = byType["error.event"] ? "failed" : byType["output.final"] ? "success" : "unknown";

  let latencySum = 0;
  let latencySeen = false;
  for (const step of steps) {
    const ms = stepLatency(step);
    if (ms !== null) {
      latencySum += ms;
      latencySeen = true;
    }
  }
  summary.total_latency_ms = latencySeen ? latencySum : null;

  const calls: ToolCallRecord[] = [];
  const open: { record: ToolCallRecord; callId: string | null }[] = [];
  for (const step of steps) {
    if (step.type === "tool.request") {
      const callId = stringMember(step.input, "call_id");
      const record: ToolCallRecord = {
        id: callId,
        step_id: step.label.startsWith("#") ? null : step.label,
        tool: firstString([
          [step.input, "tool"],
          [step.input, "name"],
          [step.input, "tool_name"],
          [step.metadata, "tool"],
          [step.metadata, "name"],
          [step.metadata, "tool_name"],
        ]),
        params_hash: null,
        output_hash: null,
        latency_ms: stepLatency(step),
        ok: null,
        side_effects: [],
        line: null,
      };
      calls.push(record);
      open.push({ record, callId });
    } else if (step.type === "tool.response") {
      const failed = reportsFailure(step.output);
      if (failed) summary.counts.failed_tool_calls++;
      const callId = stringMember(step.input, "call_id");
      // The same call id first; otherwise the oldest request that has none to contradict it.
      let at = callId === null ? (open.length > 0 ? 0 : -1) : open.findIndex((o) => o.callId === callId);
      if (at === -1 && callId !== null) at = open.findIndex((o) => o.callId === null);
      const match = at === -1 ? undefined : open.splice(at, 1)[0];
      if (match !== undefined) {
        match.record.ok = !failed;
        match.record.latency_ms = stepLatency(step) ?? match.record.latency_ms;
      }
    }
  }
  summary.counts.tool_calls = calls.length;
  return { summary, tool_calls: calls, runtime_events: [] };
}
