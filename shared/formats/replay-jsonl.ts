import { z } from "zod";
import {
  canonicalHash,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  SHA256_TAG,
} from "../canonical/index.js";
import { type LayerCOrigin, layerCOriginOf } from "./layer-c-record.js";
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
  stringMember,
  validate,
  zInteger,
  zNumber,
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
interface EventRule {
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
const UNKNOWN_HASH = "sha256:unknown";

/** An output_hash: a hash, or the runtime's UNKNOWN_HASH mark. */
const outputHash = () =>
  quick(
    z
      .string({ error: "expected a string" })
      .regex(
        /^sha256:(?:[0-9a-f]{64}|unknown)$/,
        "expected sha256: followed by 64 lowercase hex digits (or sha256:unknown)",
      ),
    (v) => typeof v === "string" && (v === UNKNOWN_HASH || SHA256_TAG.test(v)),
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
const STATUS: ReadonlyMap<string, string> = new Map([
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

const V1 = dialect("replay-v1", "type", "step_id", [], {
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
const DSRS = dialect("replay-dsrs", "event", "id", ["ToolCall", "Verification", "Payment"], {
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

const ADR0003 = dialect("replay-adr0003", "type", "id", [], {
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

/** A side effect as a tool call record lists it: a string as is, any other value as JSON. */
const effectText = (effect: JsonValue): string =>
  typeof effect === "string" ? effect : JSON.stringify(effect);

/** When the event happened: `ts` (v1) or `t` (dsrs); ADR-0003 events carry no time. */
function eventTime(event: JsonObject): string | null {
  return stringMember(event, "ts") ?? stringMember(event, "t");
}

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
  /** A Layer C copy's record of its original (the header's `redaction.original`). */
  private original: LayerCOrigin | undefined;
  private headerLine = 0;
  private endLine = 0;
  private firstLine = 0;
  private utilitySum = 0;
  private utilityCount = 0;
  private latencySum = 0;
  private resultsWithoutOutput = 0;
  private callsWithoutParams = 0;
  private unknownOutputHashes = 0;
  // What keeps trajectory_hash from being recomputed in full (see trajectoryGap).
  private runtimeEventsWithoutKey = 0;
  private runtimeEventsWithoutPayload = 0;
  private standInLines = 0;

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
    // A Map, not `events[type]`: a type such as "toString" must be unknown, not Object.prototype's.
    const rule = dialect.rules.get(type);
    this.summary.counts.steps_by_type[type] = (this.summary.counts.steps_by_type[type] ?? 0) + 1;
    if (type !== "ReplayHeader") this.summary.counts.events++;
    if (rule === undefined) {
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
      if (!rule.fields.has(key)) {
        this.noticeOnce(`field:${type}.${key}`, {
          line,
          column: null,
          path: `$.${key}`,
          code: "replay.unknown_field",
          message: `unknown field ${JSON.stringify(key)} in ${type} kept as is (first at this line)`,
        });
      }
    }
    // Almost every line is valid: the quick check clears those; zod reports on the rest.
    if (
      !rule.accepts(value) &&
      validate(rule.schema, value, findings, { line, code: "replay" }) === undefined
    )
      return;
    if (rule.vocabulary.size > 0) this.checkWords(line, type, value, rule.vocabulary);
    this.apply(line, rule, type, value);
  }

  /** A notice for each vocabulary member whose word is not a known one (see `word`). */
  private checkWords(
    line: number,
    type: string,
    value: JsonObject,
    vocabulary: EventRule["vocabulary"],
  ): void {
    for (const [key, words] of vocabulary) {
      const w = value[key];
      if (typeof w === "string" && !words.has(w)) {
        this.noticeOnce(`word:${type}.${key}`, {
          line,
          column: null,
          path: `$.${key}`,
          code: "replay.unknown_word",
          message: `${type} ${key} ${JSON.stringify(w)} is none of ${[...words].join(", ")}; kept as is, read as unknown (first at this line)`,
        });
      }
    }
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

  private apply(line: number, rule: EventRule, type: string, event: JsonObject): void {
    const { dialect, findings, summary } = this;
    if (dialect.runEventStandIns.has(type)) this.standInLines++;
    switch (type) {
      case "ReplayHeader":
        this.original = layerCOriginOf(event.redaction) ?? undefined;
        summary.producer = stringMember(event, "producer");
        summary.policy_bundle_id ??= stringMember(event, "policy_bundle_id");
        summary.session_id ??= stringMember(event, "session_id");
        summary.started_at = stringMember(event, "started_at") ?? stringMember(event, "created_at");
        break;
      case "SessionStart": {
        summary.session_id = stringMember(event, "session_id") ?? summary.session_id;
        summary.policy_bundle_id = stringMember(event, "policy_bundle_id") ?? summary.policy_bundle_id;
        const time = eventTime(event);
        if (time !== null) summary.started_at = time;
        break;
      }
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
        const outputHash = stringMember(event, "output_hash");
        const unknownHash = outputHash === UNKNOWN_HASH;
        if (unknownHash) this.unknownOutputHashes++;
        if (call !== undefined) {
          call.output_hash = unknownHash ? null : outputHash;
          call.latency_ms = latency;
          call.ok = ok;
          const effects = event.side_effects;
          if (Array.isArray(effects)) call.side_effects = effects.map(effectText);
        }
        if (!ok) summary.counts.failed_tool_calls++;
        if (latency !== null) this.latencySum += latency;
        const utility = numberMember(event, "step_utility");
        if (utility !== null) {
          this.utilitySum += utility;
          this.utilityCount++;
        }
        if (!unknownHash)
          this.rehash(line, event, "output", "output_hash", `line ${line} ToolResult ${key} output`);
        if (!Object.hasOwn(event, "output") && Object.hasOwn(event, "output_hash") && !unknownHash)
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
        summary.ended_at = eventTime(event) ?? stringMember(event, "ended_at");
        const key = Object.hasOwn(event, "status") ? "status" : "outcome";
        const status = stringMember(event, key);
        const known = status !== null && rule.vocabulary.get(key)?.has(status) === true;
        summary.status = status === null ? null : (known && STATUS.get(status)) || "unknown";
        summary.confidence = numberMember(event, "confidence");
        const total = numberMember(event, "total_latency_ms");
        if (total !== null) summary.total_latency_ms = total;
        break;
      }
      case "RuntimeEvent": {
        const ts = eventTime(event) as string;
        // The runtime writes every member (a JSON null payload included); one left out was
        // removed (a Layer C copy drops payload) or never written (type/ts idempotency_key).
        const hasPayload = Object.hasOwn(event, "payload");
        const hasKey = Object.hasOwn(event, "idempotency_key");
        if (!hasPayload) this.runtimeEventsWithoutPayload++;
        if (!hasKey) this.runtimeEventsWithoutKey++;
        this.runtime.push({
          seq: event.seq as JsonValue,
          event_type: event.runtime_event_type as JsonValue,
          payload: hasPayload ? (event.payload as JsonValue) : {},
          idempotency_key: hasKey ? (event.idempotency_key as JsonValue) : null,
          recorded_at: ts.endsWith("Z") ? `${ts.slice(0, -1)}+00:00` : ts,
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
    if (this.unknownOutputHashes > 0) {
      findings.notice({
        line: null,
        column: null,
        path: "$",
        code: "replay.output_hash_unknown",
        message: `${this.unknownOutputHashes} output_hash value(s) are ${UNKNOWN_HASH}: the runtime had no output hash for those tool calls; nothing to compare`,
      });
    }
    const trajectoryGap = this.trajectoryGap();
    if (trajectoryGap !== undefined) {
      findings.notice({
        line: null,
        column: null,
        path: "$",
        code: "replay.trajectory_partial",
        message: `trajectory_hash is recomputed from partial runtime events: ${trajectoryGap}; the runtime hashed members these lines do not carry, so its value may differ without any tampering`,
      });
    }
    if (summary.total_latency_ms === null && this.latencySum > 0) summary.total_latency_ms = this.latencySum;
    summary.mean_step_utility = this.utilityCount === 0 ? null : this.utilitySum / this.utilityCount;
    if (summary.status === null) summary.status = this.endLine === 0 ? "running" : "unknown";
    const session: Session = { summary, tool_calls: this.toolCalls, runtime_events: this.runtime };
    if (this.original !== undefined) session.original = this.original;
    if (trajectoryGap !== undefined) session.trajectory_gap = trajectoryGap;
    return session;
  }

  /**
   * Why the RuntimeEvent lines do not carry every member of every run event that the runtime's
   * trajectory_hash covers ({seq, event_type, payload, idempotency_key, recorded_at} of each run
   * event, apps/runtime/src/artifacts.rs trajectory_hash); undefined when they do, or when there
   * are none (no trajectory to recompute).
   */
  private trajectoryGap(): string | undefined {
    if (this.runtime.length === 0) return undefined;
    const gaps: string[] = [];
    if (this.runtimeEventsWithoutKey > 0)
      gaps.push(`${this.runtimeEventsWithoutKey} RuntimeEvent line(s) leave out idempotency_key`);
    if (this.runtimeEventsWithoutPayload > 0)
      gaps.push(`${this.runtimeEventsWithoutPayload} RuntimeEvent line(s) leave out payload`);
    if (this.standInLines > 0)
      gaps.push(
        `${this.standInLines} run event(s) are written as ${[...this.dialect.runEventStandIns].join(", ")} lines, without seq, payload and idempotency_key`,
      );
    return gaps.length === 0 ? undefined : gaps.join("; ");
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
