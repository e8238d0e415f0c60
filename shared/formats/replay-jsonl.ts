import { z } from "zod";
import { canonicalHash, isJsonObject, type JsonObject, type JsonValue } from "../canonical/index.js";
import {
  emptySummary,
  type Findings,
  type FormatId,
  type LineConsumer,
  type LineFormat,
  type RuntimeEventRecord,
  type Session,
  type ToolCallRecord,
} from "./types.js";
import {
  describe,
  numberMember,
  numberOf,
  stringMember,
  validate,
  zCount,
  zHash,
  zInteger,
  zNumber,
  zRange,
  zTimestamp,
} from "./validate.js";

/**
 * The OpenAgents REPLAY.jsonl family: three dialects that share a line-per-event layout, a
 * ReplayHeader first, tool calls matched by results, and a SessionEnd last. They differ in the
 * discriminator (`type` or `event`), the time field (`ts`, `t`, none), the key that pairs a result
 * with its call (`step_id` or `id`) and their event fields.
 */
interface Dialect {
  id: "replay-v1" | "replay-dsrs" | "replay-adr0003";
  typeKey: "type" | "event";
  callKey: "step_id" | "id";
  /** Schemas of the known event types; each lists the fields it knows (others are notices). */
  events: Record<string, z.ZodObject>;
}

const str = () => z.string({ error: "expected a string" });
const nonEmpty = () => str().min(1, "expected a non-empty string");
const obj = () => z.record(z.string(), z.unknown(), { error: "expected an object" });
const strings = () => z.array(str(), { error: "expected an array of strings" });

const RUNTIME_EVENT = z.looseObject({
  type: z.literal("RuntimeEvent"),
  ts: zTimestamp(),
  session_id: str().optional(),
  seq: zCount(),
  runtime_event_type: nonEmpty(),
  payload: z.unknown().optional(),
  payload_hash: zHash().optional(),
  idempotency_key: z.union([str(), z.null()]).optional(),
});

const V1: Dialect = {
  id: "replay-v1",
  typeKey: "type",
  callKey: "step_id",
  events: {
    ReplayHeader: z.looseObject({
      type: z.literal("ReplayHeader"),
      replay_version: zInteger().pipe(z.literal(1, { error: "expected replay_version 1" })),
      producer: nonEmpty(),
      created_at: zTimestamp(),
      // The Layer C redaction summary our `redact` adds.
      redaction: obj().optional(),
    }),
    SessionStart: z.looseObject({
      type: z.literal("SessionStart"),
      ts: zTimestamp(),
      session_id: nonEmpty(),
      policy_bundle_id: nonEmpty(),
      repo: obj().optional(),
      lane: str().optional(),
    }),
    ToolCall: z.looseObject({
      type: z.literal("ToolCall"),
      ts: zTimestamp(),
      session_id: str().optional(),
      step_id: nonEmpty(),
      tool: nonEmpty(),
      params: obj().optional(),
      params_hash: zHash(),
    }),
    ToolResult: z.looseObject({
      type: z.literal("ToolResult"),
      ts: zTimestamp(),
      session_id: str().optional(),
      step_id: nonEmpty(),
      ok: z.boolean({ error: "expected true or false" }),
      output: z.unknown().optional(),
      output_hash: zHash(),
      latency_ms: zNumber().pipe(z.number().min(0, "expected 0 or more")),
      side_effects: strings(),
      error: obj().nullable().optional(),
      step_utility: zRange(-1, 1).optional(),
    }),
    Verification: z.looseObject({
      type: z.literal("Verification"),
      ts: zTimestamp(),
      session_id: str().optional(),
      command: nonEmpty(),
      exit_code: zInteger(),
      cwd: str().optional(),
      duration_ms: zNumber().optional(),
      verification_delta: zNumber().optional(),
    }),
    SessionEnd: z.looseObject({
      type: z.literal("SessionEnd"),
      ts: zTimestamp(),
      session_id: str().optional(),
      status: z.enum(["success", "failure", "failed", "cancelled", "canceled", "timeout"], {
        error: "expected success, failure, cancelled or timeout",
      }),
      confidence: zRange(0, 1),
      summary: str().optional(),
      total_tool_calls: zCount().optional(),
      total_latency_ms: zNumber().optional(),
    }),
    RuntimeEvent: RUNTIME_EVENT,
  },
};

const DSRS: Dialect = {
  id: "replay-dsrs",
  typeKey: "event",
  callKey: "id",
  events: {
    ReplayHeader: z.looseObject({
      event: z.literal("ReplayHeader"),
      replay_version: zCount(),
      producer: nonEmpty(),
      created_at: zTimestamp(),
      // The Layer C redaction summary our `redact` adds.
      redaction: obj().optional(),
    }),
    SessionStart: z.looseObject({
      event: z.literal("SessionStart"),
      t: zTimestamp(),
      session_id: nonEmpty(),
      issue_number: z.union([zInteger(), z.null()]).optional(),
      policy_version: str(),
    }),
    PlanStart: z.looseObject({
      event: z.literal("PlanStart"),
      t: zTimestamp(),
      plan_hash: zHash(),
      step_count: zCount(),
    }),
    ToolCall: z.looseObject({
      event: z.literal("ToolCall"),
      t: zTimestamp(),
      id: nonEmpty(),
      tool: nonEmpty(),
      params: z.unknown().optional(),
      params_hash: zHash(),
      step_id: nonEmpty(),
    }),
    ToolResult: z.looseObject({
      event: z.literal("ToolResult"),
      t: zTimestamp(),
      id: nonEmpty(),
      output: z.unknown().optional(),
      output_hash: zHash(),
      exit_code: z.union([zInteger(), z.null()]).optional(),
      step_utility: zRange(-1, 1),
      latency_ms: zCount(),
    }),
    StepComplete: z.looseObject({
      event: z.literal("StepComplete"),
      t: zTimestamp(),
      step_id: nonEmpty(),
      status: z.enum(["Success", "Failed", "Skipped", "MaxIterationsReached"], {
        error: "expected Success, Failed, Skipped or MaxIterationsReached",
      }),
      iterations: zCount(),
    }),
    Verification: z.looseObject({
      event: z.literal("Verification"),
      t: zTimestamp(),
      commands: strings(),
      exit_codes: z.array(zInteger(), { error: "expected an array of integers" }),
      verification_delta: zInteger(),
    }),
    SessionEnd: z.looseObject({
      event: z.literal("SessionEnd"),
      t: zTimestamp(),
      status: z.enum(["Success", "Failed", "Cancelled", "Timeout"], {
        error: "expected Success, Failed, Cancelled or Timeout",
      }),
      confidence: zRange(0, 1),
      total_tool_calls: zCount(),
      total_latency_ms: zCount(),
    }),
  },
};

const ADR0003: Dialect = {
  id: "replay-adr0003",
  typeKey: "type",
  callKey: "id",
  events: {
    ReplayHeader: z.looseObject({
      type: z.literal("ReplayHeader"),
      version: z.literal("1.0.0", { error: 'expected version "1.0.0"' }),
      session_id: nonEmpty(),
      started_at: zTimestamp(),
      policy_bundle_id: str().optional(),
      // The Layer C redaction summary our `redact` adds.
      redaction: obj().optional(),
    }),
    SessionStart: z.looseObject({
      type: z.literal("SessionStart"),
      task: str(),
      context: obj().optional(),
      instructions: str().optional(),
    }),
    ToolCall: z.looseObject({
      type: z.literal("ToolCall"),
      id: nonEmpty(),
      tool: nonEmpty(),
      // Optional: a Layer C copy removes it (ADR-0017) and keeps or adds params_hash.
      params: z.unknown().optional(),
      params_hash: zHash().optional(),
    }),
    ToolResult: z.looseObject({
      type: z.literal("ToolResult"),
      id: nonEmpty(),
      output: z.unknown().optional(),
      output_hash: zHash().optional(),
      step_utility: zRange(-1, 1).optional(),
      latency_ms: zNumber().pipe(z.number().min(0, "expected 0 or more")).optional(),
      side_effects: z.array(z.unknown()).optional(),
    }),
    Verification: z.looseObject({
      type: z.literal("Verification"),
      tests_before: zCount(),
      tests_after: zCount(),
      delta: zInteger(),
      ci_status: str().optional(),
    }),
    SessionEnd: z.looseObject({
      type: z.literal("SessionEnd"),
      ended_at: zTimestamp(),
      outcome: z.enum(["success", "failure", "timeout"], { error: "expected success, failure or timeout" }),
      error_message: str().optional(),
    }),
  },
};

/** The dialects by format id. */
export const REPLAY_DIALECTS: Record<Dialect["id"], Dialect> = {
  "replay-v1": V1,
  "replay-dsrs": DSRS,
  "replay-adr0003": ADR0003,
};

/**
 * Which dialect a REPLAY.jsonl line belongs to, from its content: `event` is the dsrs
 * discriminator; a `type` header with a string `version` is ADR-0003; `type` otherwise is v1.
 * Undefined when the value is not a REPLAY event at all.
 */
export function detectReplayDialect(value: JsonValue): Dialect["id"] | undefined {
  if (!isJsonObject(value)) return undefined;
  if (typeof value.event === "string") return "replay-dsrs";
  if (typeof value.type !== "string") return undefined;
  if (value.type === "ReplayHeader")
    return typeof value.version === "string" ? "replay-adr0003" : "replay-v1";
  if (Object.hasOwn(value, "ts")) return "replay-v1";
  return Object.hasOwn(V1.events, value.type) || Object.hasOwn(ADR0003.events, value.type)
    ? "replay-adr0003"
    : undefined;
}

const STATUS: Record<string, string> = {
  success: "success",
  Success: "success",
  failure: "failed",
  failed: "failed",
  Failed: "failed",
  cancelled: "cancelled",
  canceled: "cancelled",
  Cancelled: "cancelled",
  timeout: "timeout",
  Timeout: "timeout",
};

class ReplayConsumer implements LineConsumer {
  private readonly summary;
  /** Every call, in order: kept only when asked (receipt checks), so memory stays flat otherwise. */
  private readonly toolCalls: ToolCallRecord[] = [];
  /** Calls still waiting for their result. */
  private readonly open = new Map<string, ToolCallRecord>();
  /** The line of every call id seen, to tell a duplicate result from a result without a call. */
  private readonly callLines = new Map<string, number>();
  private readonly runtime: RuntimeEventRecord[] = [];
  private readonly seenNotices = new Set<string>();
  private headerLine = 0;
  private endLine = 0;
  private firstLine = 0;
  private utilitySum = 0;
  private utilityCount = 0;
  private latencySum = 0;
  private resultsWithoutOutput = 0;
  private callsWithoutParams = 0;

  constructor(
    private readonly dialect: Dialect,
    private readonly findings: Findings,
    private readonly keepToolCalls: boolean,
  ) {
    this.summary = emptySummary(dialect.id);
  }

  private hashes: ReadonlyMap<string, string> | undefined;

  line(line: number, value: JsonValue, hashes?: ReadonlyMap<string, string>): void {
    const { dialect, findings } = this;
    this.hashes = hashes;
    if (this.firstLine === 0) this.firstLine = line;
    if (!isJsonObject(value)) {
      findings.error({
        line,
        column: 1,
        path: "$",
        code: "replay.not_object",
        message: `expected an event object, found ${describe(value)}`,
        expected: "an object",
        found: describe(value),
      });
      return;
    }
    const type = value[dialect.typeKey];
    if (typeof type !== "string") {
      findings.error({
        line,
        column: null,
        path: `$.${dialect.typeKey}`,
        code: "replay.missing_type",
        message: `expected the event type in "${dialect.typeKey}", found ${describe(type)}`,
        expected: `a string field "${dialect.typeKey}"`,
        found: describe(type),
      });
      return;
    }
    this.order(line, type);
    const schema = dialect.events[type];
    this.summary.counts.steps_by_type[type] = (this.summary.counts.steps_by_type[type] ?? 0) + 1;
    if (type !== "ReplayHeader") this.summary.counts.events++;
    if (schema === undefined) {
      this.noticeOnce(`type:${type}`, {
        line,
        column: null,
        path: `$.${dialect.typeKey}`,
        code: "replay.unknown_event",
        message: `unknown event type ${JSON.stringify(type)} kept as is (first at this line)`,
      });
      return;
    }
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(schema.shape, key)) {
        this.noticeOnce(`field:${type}.${key}`, {
          line,
          column: null,
          path: `$.${key}`,
          code: "replay.unknown_field",
          message: `unknown field ${JSON.stringify(key)} in ${type} kept as is (first at this line)`,
        });
      }
    }
    if (validate(schema, value, findings, { line, code: "replay" }) === undefined) return;
    this.apply(line, type, value);
  }

  /** Header first and once; nothing after SessionEnd. */
  private order(line: number, type: string): void {
    const { findings } = this;
    if (type === "ReplayHeader") {
      if (this.headerLine !== 0) {
        findings.error({
          line,
          column: null,
          path: "$",
          code: "replay.duplicate_header",
          message: `second ReplayHeader; the first is at line ${this.headerLine}`,
          expected: "one ReplayHeader",
          found: "another ReplayHeader",
        });
      } else if (line !== this.firstLine) {
        findings.error({
          line,
          column: null,
          path: "$",
          code: "replay.late_header",
          message: `ReplayHeader at line ${line}; it must be the first line`,
          expected: "ReplayHeader on the first line",
          found: "it later",
        });
      }
      if (this.headerLine === 0) this.headerLine = line;
    } else if (this.headerLine === 0 && line === this.firstLine) {
      findings.error({
        line,
        column: null,
        path: `$.${this.dialect.typeKey}`,
        code: "replay.missing_header",
        message: `first line is ${type}; expected a ReplayHeader`,
        expected: "ReplayHeader",
        found: type,
      });
    }
    if (this.endLine !== 0) {
      findings.error({
        line,
        column: null,
        path: "$",
        code: "replay.after_session_end",
        message: `${type} after the SessionEnd at line ${this.endLine}; SessionEnd must be last`,
        expected: "no event after SessionEnd",
        found: type,
      });
    }
  }

  private noticeOnce(key: string, finding: Parameters<Findings["notice"]>[0]): void {
    if (this.seenNotices.has(key)) return;
    this.seenNotices.add(key);
    this.findings.notice(finding);
  }

  private apply(line: number, type: string, event: JsonObject): void {
    const { dialect, findings, summary } = this;
    const time = stringMember(event, "ts") ?? stringMember(event, "t");
    switch (type) {
      case "ReplayHeader":
        summary.producer = stringMember(event, "producer");
        summary.policy_bundle_id ??= stringMember(event, "policy_bundle_id");
        summary.session_id ??= stringMember(event, "session_id");
        summary.started_at = stringMember(event, "started_at") ?? stringMember(event, "created_at");
        break;
      case "SessionStart":
        summary.session_id = stringMember(event, "session_id") ?? summary.session_id;
        summary.policy_bundle_id = stringMember(event, "policy_bundle_id") ?? summary.policy_bundle_id;
        if (time !== null) summary.started_at = time;
        break;
      case "ToolCall": {
        const key = stringMember(event, dialect.callKey) as string;
        const record: ToolCallRecord = {
          id: stringMember(event, "id"),
          step_id: stringMember(event, "step_id"),
          tool: stringMember(event, "tool"),
          params_hash: stringMember(event, "params_hash"),
          output_hash: null,
          latency_ms: null,
          ok: null,
          side_effects: [],
          line,
        };
        const earlier = this.callLines.get(key);
        if (earlier !== undefined) {
          findings.error({
            line,
            column: null,
            path: `$.${dialect.callKey}`,
            code: "replay.duplicate_call",
            message: `ToolCall ${dialect.callKey} ${JSON.stringify(key)} repeats the call at line ${earlier}`,
            expected: "a unique call id",
            found: JSON.stringify(key),
          });
        }
        this.callLines.set(key, line);
        this.open.set(key, record);
        if (this.keepToolCalls) this.toolCalls.push(record);
        summary.counts.tool_calls++;
        this.rehash(line, event, "params", "params_hash", `line ${line} ToolCall ${key} params`);
        if (!Object.hasOwn(event, "params")) this.callsWithoutParams++;
        break;
      }
      case "ToolResult": {
        const key = stringMember(event, dialect.callKey) as string;
        const call = this.open.get(key);
        this.open.delete(key);
        if (call === undefined && !this.callLines.has(key)) {
          findings.error({
            line,
            column: null,
            path: `$.${dialect.callKey}`,
            code: "replay.result_without_call",
            message: `ToolResult for ${dialect.callKey} ${JSON.stringify(key)} has no earlier ToolCall`,
            expected: "a ToolCall with the same id before it",
            found: "none",
          });
        } else if (call === undefined) {
          findings.error({
            line,
            column: null,
            path: `$.${dialect.callKey}`,
            code: "replay.duplicate_result",
            message: `second ToolResult for ${dialect.callKey} ${JSON.stringify(key)}`,
            expected: "one result per call",
            found: "another result",
          });
        }
        const latency = numberMember(event, "latency_ms");
        const exitCode = numberMember(event, "exit_code");
        // ok, else the exit code, else the absence of an error (not the output's content, which
        // large-file reading only hashes).
        const ok =
          typeof event.ok === "boolean"
            ? event.ok
            : exitCode !== null
              ? exitCode === 0
              : event.error === undefined || event.error === null;
        if (call !== undefined) {
          call.output_hash = stringMember(event, "output_hash");
          call.latency_ms = latency;
          call.ok = ok;
          const effects = event.side_effects;
          if (Array.isArray(effects))
            call.side_effects = effects.map((e) => (typeof e === "string" ? e : JSON.stringify(e)));
        }
        if (!ok) summary.counts.failed_tool_calls++;
        if (latency !== null) this.latencySum += latency;
        const utility = numberMember(event, "step_utility");
        if (utility !== null) {
          this.utilitySum += utility;
          this.utilityCount++;
        }
        this.rehash(line, event, "output", "output_hash", `line ${line} ToolResult ${key} output`);
        if (!Object.hasOwn(event, "output") && Object.hasOwn(event, "output_hash"))
          this.resultsWithoutOutput++;
        break;
      }
      case "Verification": {
        const commands = event.commands;
        const codes = event.exit_codes;
        if (Array.isArray(commands) && Array.isArray(codes)) {
          if (commands.length !== codes.length) {
            findings.error({
              line,
              column: null,
              path: "$.exit_codes",
              code: "replay.verification_mismatch",
              message: `${commands.length} commands but ${codes.length} exit codes`,
              expected: `${commands.length} exit codes`,
              found: String(codes.length),
            });
          }
          commands.forEach((command, k) => {
            summary.verification.push({ command: String(command), exit_code: numberOf(codes[k]) });
          });
        } else if (typeof event.command === "string") {
          summary.verification.push({ command: event.command, exit_code: numberMember(event, "exit_code") });
        } else {
          const before = numberMember(event, "tests_before");
          const after = numberMember(event, "tests_after");
          summary.verification.push({
            command: `tests ${before ?? "?"} -> ${after ?? "?"}`,
            exit_code: null,
          });
        }
        break;
      }
      case "SessionEnd": {
        this.endLine = line;
        summary.ended_at = time ?? stringMember(event, "ended_at");
        const status = stringMember(event, "status") ?? stringMember(event, "outcome");
        summary.status = status === null ? null : (STATUS[status] ?? status);
        summary.confidence = numberMember(event, "confidence");
        const total = numberMember(event, "total_latency_ms");
        if (total !== null) summary.total_latency_ms = total;
        break;
      }
      case "RuntimeEvent": {
        this.runtime.push({
          seq: event.seq as JsonValue,
          event_type: event.runtime_event_type as JsonValue,
          payload: event.payload ?? {},
          idempotency_key: event.idempotency_key ?? null,
          recorded_at: (event.ts as string).replace(/Z$/, "+00:00"),
        });
        this.rehash(
          line,
          event,
          "payload",
          "payload_hash",
          `line ${line} RuntimeEvent ${String(event.seq)} payload`,
        );
        break;
      }
      default:
        break;
    }
  }

  /** Adds a row comparing `event[hashKey]` with the openagents hash of `event[valueKey]`. */
  private rehash(line: number, event: JsonObject, valueKey: string, hashKey: string, subject: string): void {
    const expected = event[hashKey];
    if (typeof expected !== "string" || !Object.hasOwn(event, valueKey)) return;
    try {
      // Large members arrive hashed from their canonical bytes (see LineFormat.lazyMembers).
      const actual = this.hashes?.get(valueKey) ?? canonicalHash(event[valueKey] as JsonValue, "openagents");
      this.findings.compare(hashKey, subject, expected, actual);
    } catch (error) {
      this.findings.error({
        line,
        column: null,
        path: `$.${valueKey}`,
        code: "replay.unhashable",
        message: `cannot hash ${valueKey}: ${(error as Error).message}`,
      });
    }
  }

  end(): Session {
    const { findings, summary } = this;
    if (this.firstLine === 0) {
      findings.error({
        line: null,
        column: null,
        path: "$",
        code: "replay.empty",
        message: "no events: the file is empty",
        expected: "a ReplayHeader line",
        found: "nothing",
      });
    } else if (this.endLine === 0) {
      findings.error({
        line: null,
        column: null,
        path: "$",
        code: "replay.missing_session_end",
        message: "no SessionEnd: the replay is incomplete (truncated or still running)",
        expected: "SessionEnd as the last event",
        found: "none",
      });
    }
    const open = [...this.open.values()];
    if (open.length > 0) {
      findings.notice({
        line: open[0]?.line ?? null,
        column: null,
        path: "$",
        code: "replay.call_without_result",
        message: `${open.length} ToolCall(s) have no ToolResult (first at line ${open[0]?.line})`,
      });
    }
    if (this.resultsWithoutOutput > 0) {
      findings.notice({
        line: null,
        column: null,
        path: "$",
        code: "replay.output_not_carried",
        message: `${this.resultsWithoutOutput} output_hash value(s) cannot be recomputed: the outputs are not in the file (Layer B/C)`,
      });
    }
    if (this.callsWithoutParams > 0) {
      findings.notice({
        line: null,
        column: null,
        path: "$",
        code: "replay.params_not_carried",
        message: `${this.callsWithoutParams} params_hash value(s) cannot be recomputed: the params are not in the file (Layer C)`,
      });
    }
    if (summary.total_latency_ms === null && this.latencySum > 0) summary.total_latency_ms = this.latencySum;
    summary.mean_step_utility = this.utilityCount === 0 ? null : this.utilitySum / this.utilityCount;
    if (summary.status === null) summary.status = this.endLine === 0 ? "running" : "unknown";
    return { summary, tool_calls: this.toolCalls, runtime_events: this.runtime };
  }
}

/** Tool inputs and outputs: checked through their hashes only, never read. */
const LAZY_MEMBERS: ReadonlySet<string> = new Set(["params", "output"]);

function dialectFormat(dialect: Dialect): LineFormat {
  return {
    id: dialect.id,
    kind: "lines",
    lazyMembers: LAZY_MEMBERS,
    begin: (findings, options) => new ReplayConsumer(dialect, findings, options.keepToolCalls !== false),
  };
}

/** REPLAY.jsonl readers, one per dialect. */
export const replayV1Format = dialectFormat(V1);
/** The `event`/`t` dialect (dsrs). */
export const replayDsrsFormat = dialectFormat(DSRS);
/** The ADR-0003 variant. */
export const replayAdr0003Format = dialectFormat(ADR0003);

/** Format ids of the REPLAY.jsonl family. */
export const REPLAY_FORMAT_IDS: readonly FormatId[] = ["replay-v1", "replay-dsrs", "replay-adr0003"];
