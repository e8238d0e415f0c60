/**
 * ReplayBundle → REPLAY.jsonl v1, as ADR-0003 asks of `autopilot export`, in two dialects: `v1`
 * (the default, see `exportV1`: the `"type"`/`"ts"` REPLAY.jsonl v1 with params_hash and
 * output_hash) and `adr0003`, described here: accept a ReplayBundle, write the ADR-0003 REPLAY.jsonl (`"type"`-tagged lines: ReplayHeader, SessionStart, ToolCall,
 * ToolResult, Verification, SessionEnd), refuse a bundle that lacks a required field, and return
 * the `replay_hash` (sha256 of the exact bytes) that RECEIPT.json records.
 *
 * Mapping, one line per event, in timeline order:
 * - header: `{type: "ReplayHeader", version: "1.0.0", session_id: id, started_at}`; the bundle has
 *   no policy bundle, so `policy_bundle_id` is left out.
 * - `{type: "SessionStart", task, context}`: `task` is `metadata.task`, else `metadata.issue_url`
 *   (autopilot works an issue), else `autopilot session <id>` with a warning; `context` keeps the
 *   bundle version, model and issue/PR URLs.
 * - `tool_call` → `{type: "ToolCall", id: "tc_001", tool, params: data.input}`.
 * - `tool_result` → `{type: "ToolResult", id, output: data.result, latency_ms}`, paired as
 *   `pairToolCalls` does; `latency_ms` = result t − call t.
 * - `Verification` only when the bundle has test counts before and after the run, which
 *   autopilot-core's receipts do not (see `verification`); otherwise a warning names them.
 * - `{type: "SessionEnd", ended_at: created_at + last t, outcome}`: `success`, `failure` or
 *   `timeout` from `bundleOutcome`; a cancelled run or one whose end is not recorded is
 *   `failure` with an `error_message` saying which (ADR-0003 has no other values).
 * `phase_start`, `phase_end` and `assistant` have no REPLAY event: they decide the outcome and
 * are otherwise dropped; unknown types are dropped with a warning.
 */
import {
  canonicalHash,
  canonicalize,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  sha256Tag,
} from "../canonical/index.js";
import { ExportError, ReplayPipelineError } from "../errors.js";
import { detectFormat } from "./registry.js";
import {
  type BundleEntry,
  type BundleView,
  bundleOutcome,
  offsetTimestamp,
  pairToolCalls,
  readBundle,
  receiptVerification,
  toolResultOk,
} from "./replay-bundle/index.js";
import type { FormatId } from "./types.js";
import { Findings } from "./types.js";
import { describe, member, stringMember } from "./validate.js";

/** The REPLAY.jsonl text, its `replay_hash`, and what the export had to leave out or assume. */
export interface ExportResult {
  /** One canonical JSON line per event, each ending with `\n`. */
  text: string;
  /** `sha256:<hex>` of the UTF-8 bytes of `text`, as RECEIPT.json's `replay_hash`. */
  replayHash: string;
  warnings: string[];
}

/** ADR-0003's REPLAY.jsonl version string. */
const EXPORT_VERSION = "1.0.0";

const num = (n: number): JsonNumber => new JsonNumber(String(n));

function fail(path: string, expected: string, found: string, more = 0): never {
  const extra = more > 0 ? ` (and ${more} more problem${more === 1 ? "" : "s"})` : "";
  const wanted = expected.startsWith("expected") ? expected : `expected ${expected}`;
  throw new ExportError(`cannot export the ReplayBundle: ${wanted}, found ${found}${extra}`, path);
}

/**
 * The canonical line of `event`. A value the openagents form cannot hold (a number beyond f64)
 * is reported at its place in the bundle: `field` of the event came from `source`.
 */
function line(event: JsonObject, field?: string, source?: string): string {
  try {
    return `${canonicalize(event, "openagents")}\n`;
  } catch (error) {
    if (!(error instanceof ReplayPipelineError) || field === undefined || source === undefined) throw error;
    const at = error.location.path ?? "$";
    const path = at.startsWith(`$.${field}`) ? `${source}${at.slice(field.length + 2)}` : source;
    throw new ExportError(`cannot export the ReplayBundle: ${error.detail}`, path);
  }
}

/** The openagents hash of a value taken from the bundle at `source`; errors point there. */
function hashOf(value: JsonValue, source: string): string {
  try {
    return canonicalHash(value, "openagents");
  } catch (error) {
    if (!(error instanceof ReplayPipelineError)) throw error;
    throw new ExportError(
      `cannot export the ReplayBundle: ${error.detail}`,
      `${source}${(error.location.path ?? "$").slice(1)}`,
    );
  }
}

/** `data.key` of a timeline entry, or an ExportError naming the path and what is expected. */
function required(entry: BundleEntry, key: string, expected: string): JsonValue {
  const v = member(entry.data, key);
  if (v === undefined) fail(`$.timeline[${entry.index}].data.${key}`, expected, "nothing (missing)");
  return v;
}

function task(view: BundleView, id: string, warnings: string[]): string {
  const metadata = view.metadata ?? undefined;
  const stated = stringMember(metadata, "task") ?? stringMember(metadata, "issue_url");
  if (stated !== null && stated !== "") return stated;
  warnings.push(
    `SessionStart.task: the bundle names no task (metadata.task, metadata.issue_url); wrote "autopilot session ${id}"`,
  );
  return `autopilot session ${id}`;
}

function context(view: BundleView): JsonObject {
  const out: JsonObject = { bundle_version: view.version ?? "" };
  for (const key of ["model", "issue_url", "pr_url"]) {
    const v = stringMember(view.metadata ?? undefined, key);
    if (v !== null) out[key] = v;
  }
  return out;
}

/**
 * The Verification line, when the bundle records what an ADR-0003 Verification needs: test counts before and
 * after the run. autopilot-core's `receipts` keep only the counts after (`tests_run`,
 * `tests_passed`) and `ci_status`; `tests_before` and `delta` are required numbers, and guessing
 * them would put an invented verification in a file meant for audit. So a Verification is written
 * only when `receipts.tests_before` is present (no producer writes it today) next to
 * `tests_passed`; otherwise the receipt values are named in a warning and left out.
 */
function verification(view: BundleView, warnings: string[]): JsonObject | null {
  const receipts = view.receipts;
  if (receipts === null) return null;
  const before = receipts.tests_before;
  const after = receipts.tests_passed;
  const ci = stringMember(receipts, "ci_status");
  if (
    before instanceof JsonNumber &&
    after instanceof JsonNumber &&
    before.isIntegerText &&
    after.isIntegerText
  ) {
    const event: JsonObject = {
      type: "Verification",
      tests_before: before,
      tests_after: after,
      delta: num(Number(after.text) - Number(before.text)),
    };
    if (ci !== null) event.ci_status = ci;
    return event;
  }
  const recorded = ["tests_run", "tests_passed", "ci_status"].flatMap((key) => {
    const v = receipts[key];
    return v instanceof JsonNumber || typeof v === "string"
      ? [`${key} ${v instanceof JsonNumber ? v.text : JSON.stringify(v)}`]
      : [];
  });
  if (recorded.length > 0) {
    warnings.push(
      `Verification: not written; the receipts (${recorded.join(", ")}) have no test count before the run, which an ADR-0003 Verification requires (tests_before, delta)`,
    );
  }
  return null;
}

const OUTCOMES = { success: "success", failed: "failure", timeout: "timeout" } as const;

/**
 * Converts a ReplayBundle (as read by `readJson`) to ADR-0003 REPLAY.jsonl. Every line is the
 * `openagents` canonical form of its event (sorted keys, numbers as the bundle wrote them), so the
 * same bundle always gives the same bytes and the same `replayHash`. Throws `ExportError` when
 * the bundle is invalid or lacks what a REPLAY line requires (id, created_at, a tool call's name
 * and input, a result's output).
 */
export function exportReplayBundle(bundle: JsonValue, options: ExportOptions = {}): ExportResult {
  const format = detectFormat(bundle);
  if (format !== null && format !== "replay-bundle") throw notBundle(format, "document");
  return options.dialect === "adr0003" ? exportAdr0003(bundle) : exportV1(bundle);
}

/** The error for another format given to the exporter: what it is, and what was expected. */
export function notBundle(format: FormatId, shape: "document" | "JSON Lines file"): ExportError {
  return new ExportError(
    `this is a ${format} ${shape}, not a ReplayBundle; expected a ReplayBundle JSON document (version, id, created_at, metadata, timeline[])${format.startsWith("replay-") && format !== "replay-bundle" ? " (a REPLAY.jsonl needs no export: inspect and verify read it as it is)" : ""}`,
    "$",
    "export.not_bundle",
  );
}

/** Options of `exportReplayBundle`. */
export interface ExportOptions {
  /**
   * `v1` (default): the `"type"`/`"ts"` REPLAY.jsonl v1 (specs/REPLAY-jsonl-v1.md), with
   * `params_hash` and `output_hash` on every call and result. `adr0003`: the variant ADR-0003
   * sketches (header `version` "1.0.0", `task`, `outcome`), which carries no hashes.
   */
  dialect?: "v1" | "adr0003";
}

/** The validated bundle and its start and end times, or an ExportError. */
function prepare(bundle: JsonValue): {
  view: BundleView;
  id: string;
  startedAt: string;
  endedAt: string;
} {
  const findings = new Findings();
  const view = readBundle(bundle, findings);
  const first = findings.errors[0];
  if (first !== undefined) {
    fail(
      first.path,
      first.expected ?? first.message,
      first.found ?? "an invalid value",
      findings.errorCount - 1,
    );
  }
  if (view.id === null) fail("$.id", "expected a string (the bundle id)", "nothing usable");
  if (view.createdAt === null) fail("$.created_at", "expected an ISO-8601 timestamp", "nothing usable");
  const last = view.entries.at(-1);
  const startedAt = offsetTimestamp(view.createdAt, 0);
  const endedAt = offsetTimestamp(view.createdAt, last?.t ?? 0);
  if (startedAt === null) fail("$.created_at", "expected a timestamp within years 0000-9999", view.createdAt);
  if (endedAt === null)
    fail(`$.timeline[${last?.index ?? 0}].t`, "expected created_at + t within years 0000-9999", `${last?.t}`);
  return { view, id: view.id, startedAt, endedAt };
}

const V1_STATUS = {
  success: "success",
  failed: "failure",
  timeout: "failure",
  cancelled: "cancelled",
} as const;

/**
 * REPLAY.jsonl v1 (`"type"`/`"ts"`): ReplayHeader, SessionStart, ToolCall/ToolResult pairs with
 * `step_id` = `tc_001`…, `params_hash`/`output_hash` computed with the openagents profile (the
 * outputs are kept: this is a Layer B file), a Verification per receipt the bundle records, and
 * SessionEnd. Values v1 requires that a bundle does not record are written as the weakest true
 * statement and named in a warning: `policy_bundle_id` "unspecified", `confidence` 0.
 */
function exportV1(bundle: JsonValue): ExportResult {
  const { view, id, startedAt, endedAt } = prepare(bundle);
  const warnings: string[] = [];
  const at = (t: number): string => offsetTimestamp(view.createdAt as string, t) ?? startedAt;
  const metadata = view.metadata ?? undefined;
  const stated = stringMember(metadata, "policy_bundle_id");
  const policy = stated === null || stated === "" ? null : stated;
  if (policy === null) {
    const why = member(metadata, "policy_bundle_id") === undefined ? "none" : "no usable one";
    warnings.push(`SessionStart.policy_bundle_id: the bundle records ${why}; wrote "unspecified"`);
  }
  const lines: string[] = [
    line({
      type: "ReplayHeader",
      replay_version: num(1),
      producer: `replay-pipeline export (ReplayBundle ${view.version ?? "?"})`,
      created_at: startedAt,
    }),
    line({ type: "SessionStart", ts: startedAt, session_id: id, policy_bundle_id: policy ?? "unspecified" }),
  ];
  let toolLatency = 0;
  const callCount = walkTimeline(view, warnings, {
    call: (entry, stepId, tool, params, source) => {
      const event: JsonObject = {
        type: "ToolCall",
        ts: at(entry.t),
        session_id: id,
        step_id: stepId,
        tool,
        params,
      };
      event.params_hash = hashOf(params, source);
      lines.push(line(event, "params", source));
    },
    result: (entry, stepId, latency, output, source) => {
      toolLatency += latency;
      const event: JsonObject = {
        type: "ToolResult",
        ts: at(entry.t),
        session_id: id,
        step_id: stepId,
        ok: toolResultOk(entry.data),
        output,
        output_hash: hashOf(output, source),
        latency_ms: num(latency),
        side_effects: [],
      };
      lines.push(line(event, "output", source));
    },
  });
  lines.push(...v1Verifications(view, id, endedAt, warnings));
  lines.push(v1SessionEnd(view, id, endedAt, callCount, toolLatency, warnings));
  const text = lines.join("");
  return { text, replayHash: sha256Tag(text), warnings };
}

/** A Verification line per receipt verification whose result the receipts state. */
function v1Verifications(view: BundleView, id: string, endedAt: string, warnings: string[]): string[] {
  const lines: string[] = [];
  for (const v of receiptVerification(view.receipts)) {
    // A result the receipts do not state is not a failed check: leave it out and say so.
    if (v.exit_code === null) {
      warnings.push(`Verification "${v.command}": the receipts do not say whether it passed; not written`);
      continue;
    }
    lines.push(
      line({
        type: "Verification",
        ts: endedAt,
        session_id: id,
        command: v.command,
        exit_code: num(v.exit_code),
      }),
    );
  }
  return lines;
}

/**
 * The SessionEnd line: the bundle's outcome (v1 has no timeout status: a timeout is a failure with
 * the fact in the summary) and its stated confidence, 0 with a warning when it states none.
 */
function v1SessionEnd(
  view: BundleView,
  id: string,
  endedAt: string,
  callCount: number,
  toolLatency: number,
  warnings: string[],
): string {
  const metadata = view.metadata ?? undefined;
  const outcome = bundleOutcome(view.entries);
  const statedConfidence = member(metadata, "confidence");
  const value = statedConfidence instanceof JsonNumber ? Number(statedConfidence.text) : Number.NaN;
  const confidence = value >= 0 && value <= 1 ? (statedConfidence as JsonNumber) : null;
  if (confidence === null) {
    const why = statedConfidence === undefined ? "none" : "no usable one (a number from 0 to 1)";
    warnings.push(`SessionEnd.confidence: the bundle records ${why}; wrote 0 (no claim of confidence)`);
  }
  const end: JsonObject = {
    type: "SessionEnd",
    ts: endedAt,
    session_id: id,
    status: outcome.status === "unknown" ? "failure" : V1_STATUS[outcome.status],
    confidence: confidence ?? num(0),
    total_tool_calls: num(callCount),
    // As the bundle reader and dsrs count it: the tools' time, not the run's length.
    total_latency_ms: num(toolLatency),
  };
  if (outcome.status === "unknown") {
    end.summary = "outcome not recorded in the ReplayBundle";
    warnings.push(
      'SessionEnd.status: the bundle does not say how the run ended; wrote "failure" with summary "outcome not recorded in the ReplayBundle"',
    );
  } else if (outcome.status === "timeout") {
    // v1 has no timeout status: keep the fact in the summary.
    end.summary = outcome.message === null ? "timeout" : `timeout: ${outcome.message}`;
  } else if (outcome.message !== null) {
    end.summary = outcome.message;
  }
  return line(end);
}

/** What each dialect writes for a tool call and a tool result of the timeline. */
interface TimelineVisitor {
  call(entry: BundleEntry, id: string, tool: string, params: JsonObject, source: string): void;
  result(entry: BundleEntry, id: string, latencyMs: number, output: JsonValue, source: string): void;
}

/**
 * Walks the timeline for both dialects: pairs calls with results (`pairToolCalls`), refuses a
 * call without tool name or input object and a result without output, warns about unanswered
 * calls, orphan results and unknown event types, and hands each call and result to `visit`.
 * Returns the number of calls.
 */
function walkTimeline(view: BundleView, warnings: string[], visit: TimelineVisitor): number {
  const { calls } = pairToolCalls(view.entries);
  const callOf = new Map(calls.map((c) => [c.call, c]));
  const resultOf = new Map(calls.flatMap((c) => (c.result === null ? [] : [[c.result, c] as const])));
  const dropped = new Map<string, number>();
  for (const entry of view.entries) {
    const call = callOf.get(entry);
    const result = resultOf.get(entry);
    if (call !== undefined) {
      if (entry.tool === null || entry.tool === "") {
        fail(
          `$.timeline[${entry.index}].tool`,
          "expected the tool name (tool or data.tool)",
          "nothing (missing)",
        );
      }
      const params = required(entry, "input", "expected the tool's input object");
      const source = `$.timeline[${entry.index}].data.input`;
      if (!isJsonObject(params)) fail(source, "expected an object (ToolCall params)", describe(params));
      visit.call(entry, call.id, entry.tool, params, source);
      if (call.result === null) {
        warnings.push(
          `ToolCall ${call.id} ($.timeline[${entry.index}]): no tool_result of ${entry.tool}; no ToolResult written`,
        );
      }
    } else if (result !== undefined) {
      const output = required(entry, "result", "expected the tool's result (ToolResult output)");
      visit.result(
        entry,
        result.id,
        entry.t - result.call.t,
        output,
        `$.timeline[${entry.index}].data.result`,
      );
    } else if (entry.type === "tool_result") {
      warnings.push(
        `$.timeline[${entry.index}]: tool_result of ${JSON.stringify(entry.tool)} follows no unanswered tool_call of that tool; dropped`,
      );
    } else if (!["phase_start", "phase_end", "assistant"].includes(entry.type)) {
      dropped.set(entry.type, (dropped.get(entry.type) ?? 0) + 1);
    }
  }
  warnDropped(dropped, warnings);
  return calls.length;
}

/** One warning per unknown timeline type dropped, in name order. */
function warnDropped(dropped: Map<string, number>, warnings: string[]): void {
  for (const [type, count] of [...dropped].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    warnings.push(
      `${count} timeline event${count === 1 ? "" : "s"} of unknown type ${JSON.stringify(type)} dropped`,
    );
  }
}

/** The ADR-0003 variant (see the module comment for the mapping). */
function exportAdr0003(bundle: JsonValue): ExportResult {
  const { view, id, startedAt, endedAt } = prepare(bundle);
  const warnings: string[] = [];

  const lines: string[] = [
    line({ type: "ReplayHeader", version: EXPORT_VERSION, session_id: id, started_at: startedAt }),
    line({ type: "SessionStart", task: task(view, id, warnings), context: context(view) }),
  ];

  walkTimeline(view, warnings, {
    call: (_entry, callId, tool, params, source) => {
      lines.push(line({ type: "ToolCall", id: callId, tool, params }, "params", source));
    },
    result: (_entry, callId, latency, output, source) => {
      lines.push(
        line({ type: "ToolResult", id: callId, output, latency_ms: num(latency) }, "output", source),
      );
    },
  });

  const check = verification(view, warnings);
  if (check !== null) lines.push(line(check));

  const outcome = bundleOutcome(view.entries);
  const end: JsonObject = { type: "SessionEnd", ended_at: endedAt };
  if (outcome.status === "cancelled") {
    // ADR-0003 knows success, failure and timeout; a cancelled run did not succeed.
    end.outcome = "failure";
    end.error_message = outcome.message ?? "cancelled";
  } else if (outcome.status === "unknown") {
    // ADR-0003 has no "unknown"; a run that cannot be shown to have succeeded is not one, and
    // error_message says the outcome was not recorded rather than that something failed.
    end.outcome = "failure";
    end.error_message = "outcome not recorded in the ReplayBundle";
    warnings.push(
      'SessionEnd.outcome: the bundle does not say how the run ended (no closing phase_end that states it); wrote "failure" with error_message "outcome not recorded in the ReplayBundle"',
    );
  } else {
    end.outcome = OUTCOMES[outcome.status];
    if (outcome.status === "failed" && outcome.message !== null) end.error_message = outcome.message;
  }
  lines.push(line(end));

  const text = lines.join("");
  return { text, replayHash: sha256Tag(text), warnings };
}
