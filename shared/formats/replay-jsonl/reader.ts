/** The REPLAY.jsonl reader: each dialect's lines validated, rehashed and summed up into a session. */
import {
  canonicalHash,
  hashOf,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type MemberHashes,
} from "../../canonical/index.js";
import { type LayerCOrigin, layerCOriginOf } from "../layer-c-record.js";
import {
  emptySummary,
  type Findings,
  fillResult,
  type LineConsumer,
  type LineFormat,
  type RuntimeEventRecord,
  type Session,
  type ToolCallRecord,
  type ToolCallSink,
  type ToolResultFields,
} from "../types.js";
import { describe, numberMember, numberOf, stringMember, validate } from "../validate.js";
import { CallIds } from "./call-ids.js";
import { ADR0003, type Dialect, DSRS, type EventRule, STATUS, UNKNOWN_HASH, V1 } from "./schema.js";

/** A side effect as a tool call record lists it: a string as is, any other value as JSON. */
const effectText = (effect: JsonValue): string =>
  typeof effect === "string" ? effect : JSON.stringify(effect);

/** When the event happened: `ts` (v1) or `t` (dsrs); ADR-0003 events carry no time. */
function eventTime(event: JsonObject): string | null {
  return stringMember(event, "ts") ?? stringMember(event, "t");
}

/** The calls of a session in a list, each completed by its result: what `keepToolCalls` returns. */
class ToolCallList implements ToolCallSink {
  readonly records: ToolCallRecord[] = [];

  call(record: ToolCallRecord): void {
    this.records.push(record);
  }

  result(line: number, fields: ToolResultFields): void {
    // Records are in line order: a binary search, so no map of them all.
    let lo = 0;
    let hi = this.records.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const record = this.records[mid] as ToolCallRecord;
      const at = record.line as number;
      if (at === line) {
        fillResult(record, fields);
        return;
      }
      if (at < line) lo = mid + 1;
      else hi = mid - 1;
    }
  }
}

class ReplayConsumer implements LineConsumer {
  private readonly summary;
  /** Every call id seen, compact: duplicates, results without a call, calls without a result. */
  private readonly callIds = new CallIds();
  /** Where the calls go when they are kept (a list, or a receipt check reading them as they come). */
  private readonly toolCalls: ToolCallSink | undefined;
  /** The list of calls `Session.tool_calls` returns, when kept in memory. */
  private readonly list: ToolCallList | undefined;
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
    keepToolCalls: boolean,
    sink: ToolCallSink | undefined,
  ) {
    this.summary = emptySummary(dialect.id);
    if (keepToolCalls && sink === undefined) this.list = new ToolCallList();
    this.toolCalls = keepToolCalls ? (sink ?? this.list) : undefined;
  }

  private hashes: MemberHashes | undefined;

  line(line: number, value: JsonValue, hashes?: MemberHashes): void {
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
    // for-in, not Object.keys: no array per line (an event object inherits no enumerable member).
    for (const key in value) {
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
    if (this.dialect.runEventStandIns.has(type)) this.standInLines++;
    switch (type) {
      case "ReplayHeader":
        this.header(event);
        break;
      case "SessionStart":
        this.sessionStart(event);
        break;
      case "ToolCall":
        this.toolCall(line, event);
        break;
      case "ToolResult":
        this.toolResult(line, event);
        break;
      case "Verification":
        this.verification(line, event);
        break;
      case "SessionEnd":
        this.sessionEnd(line, rule, event);
        break;
      case "RuntimeEvent":
        this.runtimeEvent(line, event);
        break;
      default:
        break;
    }
  }

  /** The header: the producer, the Layer C origin of a copy, and defaults a SessionStart may override. */
  private header(event: JsonObject): void {
    const { summary } = this;
    this.original = layerCOriginOf(event.redaction) ?? undefined;
    summary.producer = stringMember(event, "producer");
    summary.policy_bundle_id ??= stringMember(event, "policy_bundle_id");
    summary.session_id ??= stringMember(event, "session_id");
    summary.started_at = stringMember(event, "started_at") ?? stringMember(event, "created_at");
  }

  /** The session's id, policy bundle and start time. */
  private sessionStart(event: JsonObject): void {
    const { summary } = this;
    summary.session_id = stringMember(event, "session_id") ?? summary.session_id;
    summary.policy_bundle_id = stringMember(event, "policy_bundle_id") ?? summary.policy_bundle_id;
    const time = eventTime(event);
    if (time !== null) summary.started_at = time;
  }

  /** A tool call: its id unique, its record kept, its params rehashed. */
  private toolCall(line: number, event: JsonObject): void {
    const { dialect, findings, summary } = this;
    const key = stringMember(event, dialect.callKey) as string;
    const earlier = this.callIds.call(key, line);
    if (earlier !== 0) {
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
    this.toolCalls?.call({
      id: stringMember(event, "id"),
      step_id: stringMember(event, "step_id"),
      tool: stringMember(event, "tool"),
      params_hash: stringMember(event, "params_hash"),
      output_hash: null,
      latency_ms: null,
      ok: null,
      side_effects: [],
      line,
    });
    summary.counts.tool_calls++;
    this.rehash(line, event, "params", "params_hash", "ToolCall", key);
    if (!Object.hasOwn(event, "params")) this.callsWithoutParams++;
  }

  /** A tool result: paired with its call, its outcome, latency and utility summed, its output rehashed. */
  private toolResult(line: number, event: JsonObject): void {
    const { dialect, findings, summary } = this;
    const key = stringMember(event, dialect.callKey) as string;
    // The line of the call this result completes; 0: that call has its result; -1: no call.
    const callLine = this.callIds.result(key);
    if (callLine < 0) {
      findings.error({
        line,
        column: null,
        path: `$.${dialect.callKey}`,
        code: "replay.result_without_call",
        message: `ToolResult for ${dialect.callKey} ${JSON.stringify(key)} has no earlier ToolCall`,
        expected: "a ToolCall with the same id before it",
        found: "none",
      });
    } else if (callLine === 0) {
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
    if (callLine > 0 && this.toolCalls !== undefined) {
      const effects = event.side_effects;
      this.toolCalls.result(callLine, {
        output_hash: unknownHash ? null : outputHash,
        latency_ms: latency,
        ok,
        side_effects: Array.isArray(effects) ? effects.map(effectText) : null,
      });
    }
    if (!ok) summary.counts.failed_tool_calls++;
    if (latency !== null) this.latencySum += latency;
    const utility = numberMember(event, "step_utility");
    if (utility !== null) {
      this.utilitySum += utility;
      this.utilityCount++;
    }
    if (!unknownHash) this.rehash(line, event, "output", "output_hash", "ToolResult", key);
    if (!Object.hasOwn(event, "output") && Object.hasOwn(event, "output_hash") && !unknownHash)
      this.resultsWithoutOutput++;
  }

  /** A verification in any of its three forms (command lists, one command, test counts). */
  private verification(line: number, event: JsonObject): void {
    const { findings, summary } = this;
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
  }

  /** The end: time, status in the dialect's vocabulary, confidence and total latency. */
  private sessionEnd(line: number, rule: EventRule, event: JsonObject): void {
    const { summary } = this;
    this.endLine = line;
    summary.ended_at = eventTime(event) ?? stringMember(event, "ended_at");
    const key = Object.hasOwn(event, "status") ? "status" : "outcome";
    const status = stringMember(event, key);
    const known = status !== null && rule.vocabulary.get(key)?.has(status) === true;
    summary.status = status === null ? null : (known && STATUS.get(status)) || "unknown";
    summary.confidence = numberMember(event, "confidence");
    const total = numberMember(event, "total_latency_ms");
    if (total !== null) summary.total_latency_ms = total;
  }

  /** A runtime event, kept for the trajectory hash, its payload rehashed. */
  private runtimeEvent(line: number, event: JsonObject): void {
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
    this.rehash(line, event, "payload", "payload_hash", "RuntimeEvent", String(event.seq));
  }

  /**
   * Adds a row comparing `event[hashKey]` with the openagents hash of `event[valueKey]`, about the
   * `type` event `id`; past the listing cap only counted, its subject never written.
   */
  private rehash(
    line: number,
    event: JsonObject,
    valueKey: string,
    hashKey: string,
    type: string,
    id: string,
  ): void {
    const expected = event[hashKey];
    if (typeof expected !== "string" || !Object.hasOwn(event, valueKey)) return;
    try {
      // Large members arrive hashed from their canonical bytes (see LineFormat.lazyMembers).
      const actual =
        hashOf(this.hashes, valueKey) ?? canonicalHash(event[valueKey] as JsonValue, "openagents");
      const status = expected === actual ? "passed" : "failed";
      if (this.findings.lists(status))
        this.findings.compare(hashKey, `line ${line} ${type} ${id} ${valueKey}`, expected, actual);
      else this.findings.countUnlisted(status, 1);
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
    const open = this.callIds.openCount;
    if (open > 0) {
      const first = this.callIds.firstOpenLine();
      findings.notice({
        line: first,
        column: null,
        path: "$",
        code: "replay.call_without_result",
        message: `${open} ToolCall(s) have no ToolResult (first at line ${first})`,
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
    const session: Session = { summary, tool_calls: this.list?.records ?? [], runtime_events: this.runtime };
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
    begin: (findings, options) =>
      new ReplayConsumer(dialect, findings, options.keepToolCalls !== false, options.toolCalls),
  };
}

/** REPLAY.jsonl readers, one per dialect. */
export const replayV1Format = dialectFormat(V1);
/** The `event`/`t` dialect (dsrs). */
export const replayDsrsFormat = dialectFormat(DSRS);
/** The ADR-0003 variant. */
export const replayAdr0003Format = dialectFormat(ADR0003);
