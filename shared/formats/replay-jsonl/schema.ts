import { z } from "zod";
import { isJsonObject, isSha256Tag, type JsonValue } from "../../canonical/index.js";
import {
  numberOf,
  type Quick,
  qArray,
  qCount,
  qHash,
  qInteger,
  qLooseObject,
  qNull,
  qNullable,
  qNumber,
  qOptional,
  qRange,
  qTimestamp,
  qUnion,
  qUnknown,
  quick,
  zInteger,
  zNumber,
} from "../validate.js";

/**
 * The OpenAgents REPLAY.jsonl family: three dialects that share a line-per-event layout, a
 * ReplayHeader first, tool calls matched by results, and a SessionEnd last. They differ in the
 * discriminator (`type` or `event`), the time field (`ts`, `t`, none), the key that pairs a result
 * with its call (`step_id` or `id`) and their event fields.
 */
export interface Dialect {
  id: "replay-v1" | "replay-dsrs" | "replay-adr0003";
  typeKey: "type" | "event";
  callKey: "step_id" | "id";
  /** The known event types (see EventRule), by type; fields they do not know are notices. */
  rules: ReadonlyMap<string, EventRule>;
  /**
   * Event types the OpenAgents runtime writes in place of a run event, without the members
   * trajectory_hash covers (seq, payload, idempotency_key): a file holding them beside
   * RuntimeEvent lines does not carry its whole trajectory.
   */
  runEventStandIns: ReadonlySet<string>;
}

/** One known event type as ReplayConsumer checks it, line after line. */
export interface EventRule {
  schema: z.ZodObject;
  /** True only for events `schema` accepts: when it holds, the zod parse is skipped (see Quick). */
  accepts: Quick["accepts"];
  /** The members `schema` knows. */
  fields: ReadonlySet<string>;
  /** The members `schema` requires. */
  required: ReadonlySet<string>;
  /** Members holding a word of the producers' vocabulary (see `word`), with the known words. */
  vocabulary: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A member's schema and quick check; `known` marks a vocabulary member (see `word`). */
type Field = Quick & { readonly known?: ReadonlySet<string> };

/** A dialect from the fields of each event type, each a zod schema with its quick check. */
function dialect(
  id: Dialect["id"],
  typeKey: Dialect["typeKey"],
  callKey: Dialect["callKey"],
  runEventStandIns: readonly string[],
  shapes: Record<string, Record<string, Field>>,
): Dialect {
  const rules = new Map<string, EventRule>();
  for (const [type, shape] of Object.entries(shapes)) {
    const { schema, accepts } = qLooseObject(shape);
    const names = Object.keys(shape);
    const required = names.filter((name) => shape[name]?.schema._zod.optin !== "optional");
    const vocabulary = new Map<string, ReadonlySet<string>>();
    for (const [name, field] of Object.entries(shape)) if (field.known) vocabulary.set(name, field.known);
    rules.set(type, { schema, accepts, fields: new Set(names), required: new Set(required), vocabulary });
  }
  return { id, typeKey, callKey, rules, runEventStandIns: new Set(runEventStandIns) };
}

// Field schemas: each pairs the zod schema that findings come from with its quick check (see Quick).
const text = () => z.string({ error: "expected a string" });
const str = () => quick(text(), (v) => typeof v === "string");
const nonEmpty = () =>
  quick(text().min(1, "expected a non-empty string"), (v) => typeof v === "string" && v !== "");
const bool = () => quick(z.boolean({ error: "expected true or false" }), (v) => typeof v === "boolean");
const strings = () => qArray(str(), { error: "expected an array of strings" });
const literal = (value: string, params?: { error: string }) =>
  quick(z.literal(value, params), (v) => v === value);
/**
 * A word of the producers' vocabulary, such as a status. No hash covers it and the verdict does
 * not depend on it, so any string is valid; a word outside `known` is a notice, and the summary
 * says `unknown` for it (writers add words before readers learn them).
 */
const word = (known: readonly string[]): Field => ({ ...str(), known: new Set(known) });
/** A latency: any number from 0. */
const nonNegative = () =>
  quick(zNumber().pipe(z.number().min(0, "expected 0 or more")), (v) => (numberOf(v) ?? -1) >= 0);

/**
 * A JSON object. `z.record` wants a "plain" object, judged by its `constructor`: one inherited from
 * Object.prototype passes; an own `constructor` member is left to zod's rules.
 */
const obj = () =>
  quick(
    z.record(z.string(), z.unknown(), { error: "expected an object" }),
    (v) =>
      isJsonObject(v) && Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, "constructor"),
  );

/**
 * What the runtime writes as the output_hash of a tool run event whose payload had none
 * (apps/runtime/src/artifacts.rs, build_replay_jsonl): a mark, not a hash.
 */
export const UNKNOWN_HASH = "sha256:unknown";

/** An output_hash: a hash, or the runtime's UNKNOWN_HASH mark. */
const outputHash = () =>
  quick(
    z
      .string({ error: "expected a string" })
      .regex(
        /^sha256:(?:[0-9a-f]{64}|unknown)$/,
        "expected sha256: followed by 64 lowercase hex digits (or sha256:unknown)",
      ),
    (v) => typeof v === "string" && (v === UNKNOWN_HASH || isSha256Tag(v)),
  );

/**
 * A RuntimeEvent line of the runtime's writers (apps/runtime/src/artifacts.rs,
 * build_replay_jsonl): one run event, keyed `type`/`ts` in the older writer, `event`/`t` in the
 * newer one, which also writes idempotency_key (null when the run event has none).
 */
const runtimeEvent = (typeKey: Dialect["typeKey"], timeKey: "ts" | "t"): Record<string, Field> => ({
  [typeKey]: literal("RuntimeEvent"),
  [timeKey]: qTimestamp(),
  session_id: qOptional(str()),
  seq: qCount(),
  runtime_event_type: nonEmpty(),
  payload: qOptional(qUnknown()),
  payload_hash: qOptional(qHash()),
  idempotency_key: qOptional(qUnion(str(), qNull())),
});

/** SessionEnd statuses and what the summary calls them (SessionSummary.status). */
export const STATUS: ReadonlyMap<string, string> = new Map([
  ["success", "success"],
  ["Success", "success"],
  ["failure", "failed"],
  ["failed", "failed"],
  ["Failed", "failed"],
  ["cancelled", "cancelled"],
  ["canceled", "cancelled"],
  ["Cancelled", "cancelled"],
  ["timeout", "timeout"],
  ["Timeout", "timeout"],
]);

/** REPLAY.jsonl v1: `type` discriminator, `ts` times, results paired by `step_id`. */
export const V1 = dialect("replay-v1", "type", "step_id", [], {
  ReplayHeader: {
    type: literal("ReplayHeader"),
    replay_version: quick(
      zInteger().pipe(z.literal(1, { error: "expected replay_version 1" })),
      (v) => numberOf(v) === 1,
    ),
    producer: nonEmpty(),
    created_at: qTimestamp(),
    // The Layer C redaction summary our `redact` adds.
    redaction: qOptional(obj()),
  },
  SessionStart: {
    type: literal("SessionStart"),
    ts: qTimestamp(),
    session_id: nonEmpty(),
    policy_bundle_id: nonEmpty(),
    repo: qOptional(obj()),
    lane: qOptional(str()),
  },
  ToolCall: {
    type: literal("ToolCall"),
    ts: qTimestamp(),
    session_id: qOptional(str()),
    step_id: nonEmpty(),
    tool: nonEmpty(),
    params: qOptional(obj()),
    params_hash: qHash(),
  },
  ToolResult: {
    type: literal("ToolResult"),
    ts: qTimestamp(),
    session_id: qOptional(str()),
    step_id: nonEmpty(),
    ok: bool(),
    output: qOptional(qUnknown()),
    output_hash: qHash(),
    latency_ms: nonNegative(),
    side_effects: strings(),
    error: qOptional(qNullable(obj())),
    step_utility: qOptional(qRange(-1, 1)),
  },
  Verification: {
    type: literal("Verification"),
    ts: qTimestamp(),
    session_id: qOptional(str()),
    command: nonEmpty(),
    exit_code: qInteger(),
    cwd: qOptional(str()),
    duration_ms: qOptional(qNumber()),
    verification_delta: qOptional(qNumber()),
  },
  SessionEnd: {
    type: literal("SessionEnd"),
    ts: qTimestamp(),
    session_id: qOptional(str()),
    status: word(["success", "failure", "failed", "cancelled", "canceled", "timeout"]),
    confidence: qRange(0, 1),
    summary: qOptional(str()),
    total_tool_calls: qOptional(qCount()),
    total_latency_ms: qOptional(qNumber()),
  },
  RuntimeEvent: runtimeEvent("type", "ts"),
});

/**
 * The `event`/`t` dialect. Its writers (none writes `policy_version`, which dsrs REPLAY.md asks
 * for): the runtime (apps/runtime/src/artifacts.rs, build_replay_jsonl: RuntimeEvent lines, its
 * tool, verification and payment run events as ToolCall+ToolResult, Verification and Payment
 * lines, lower-case SessionEnd statuses) and the coding loop (crates/adjutant/src/
 * coding_agent_loop.rs, execute_coding_agent_loop: PlanStart, StepComplete, `Success`-style
 * statuses).
 */
export const DSRS = dialect("replay-dsrs", "event", "id", ["ToolCall", "Verification", "Payment"], {
  ReplayHeader: {
    event: literal("ReplayHeader"),
    replay_version: qCount(),
    producer: nonEmpty(),
    created_at: qTimestamp(),
    // The Layer C redaction summary our `redact` adds.
    redaction: qOptional(obj()),
  },
  SessionStart: {
    event: literal("SessionStart"),
    t: qTimestamp(),
    session_id: nonEmpty(),
    issue_number: qOptional(qUnion(qInteger(), qNull())),
    policy_bundle_id: qOptional(nonEmpty()),
    policy_version: qOptional(str()),
  },
  PlanStart: {
    event: literal("PlanStart"),
    t: qTimestamp(),
    plan_hash: qHash(),
    step_count: qCount(),
  },
  ToolCall: {
    event: literal("ToolCall"),
    t: qTimestamp(),
    id: nonEmpty(),
    tool: nonEmpty(),
    params: qOptional(qUnknown()),
    params_hash: qHash(),
    step_id: nonEmpty(),
  },
  ToolResult: {
    event: literal("ToolResult"),
    t: qTimestamp(),
    id: nonEmpty(),
    output: qOptional(qUnknown()),
    output_hash: outputHash(),
    exit_code: qOptional(qUnion(qInteger(), qNull())),
    step_utility: qRange(-1, 1),
    latency_ms: qCount(),
  },
  StepComplete: {
    event: literal("StepComplete"),
    t: qTimestamp(),
    step_id: nonEmpty(),
    status: word(["Success", "Failed", "Skipped", "MaxIterationsReached"]),
    iterations: qCount(),
  },
  Verification: {
    event: literal("Verification"),
    t: qTimestamp(),
    commands: strings(),
    exit_codes: qArray(qInteger(), { error: "expected an array of integers" }),
    verification_delta: qInteger(),
  },
  Payment: {
    event: literal("Payment"),
    t: qTimestamp(),
    rail: str(),
    asset_id: str(),
    amount_msats: qCount(),
    payment_proof: qUnknown(),
    job_hash: qOptional(qNullable(str())),
    status: str(),
  },
  RuntimeEvent: runtimeEvent("event", "t"),
  SessionEnd: {
    event: literal("SessionEnd"),
    t: qTimestamp(),
    status: word(["Success", "Failed", "Cancelled", "Timeout", "success", "failure", "cancelled"]),
    confidence: qRange(0, 1),
    total_tool_calls: qCount(),
    total_latency_ms: qCount(),
  },
});

/** The ADR-0003 variant: `type` discriminator, no times, results paired by `id`. */
export const ADR0003 = dialect("replay-adr0003", "type", "id", [], {
  ReplayHeader: {
    type: literal("ReplayHeader"),
    version: literal("1.0.0", { error: 'expected version "1.0.0"' }),
    session_id: nonEmpty(),
    started_at: qTimestamp(),
    policy_bundle_id: qOptional(str()),
    // The Layer C redaction summary our `redact` adds.
    redaction: qOptional(obj()),
  },
  SessionStart: {
    type: literal("SessionStart"),
    task: str(),
    context: qOptional(obj()),
    instructions: qOptional(str()),
  },
  ToolCall: {
    type: literal("ToolCall"),
    id: nonEmpty(),
    tool: nonEmpty(),
    // Optional: a Layer C copy removes it (ADR-0017) and keeps or adds params_hash.
    params: qOptional(qUnknown()),
    params_hash: qOptional(qHash()),
  },
  ToolResult: {
    type: literal("ToolResult"),
    id: nonEmpty(),
    output: qOptional(qUnknown()),
    output_hash: qOptional(qHash()),
    step_utility: qOptional(qRange(-1, 1)),
    latency_ms: qOptional(nonNegative()),
    side_effects: qOptional(qArray(qUnknown())),
  },
  Verification: {
    type: literal("Verification"),
    tests_before: qCount(),
    tests_after: qCount(),
    delta: qInteger(),
    ci_status: qOptional(str()),
  },
  SessionEnd: {
    type: literal("SessionEnd"),
    ended_at: qTimestamp(),
    outcome: word(["success", "failure", "timeout"]),
    error_message: qOptional(str()),
  },
});

/** The format id of a REPLAY dialect. */
export type ReplayFormatId = Dialect["id"];

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
  return V1.rules.has(value.type) || ADR0003.rules.has(value.type) ? "replay-adr0003" : undefined;
}
