import {
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  memberPath,
} from "../../canonical/index.js";
import { type LayerCOrigin, layerCOriginOf } from "../layer-c-record.js";
import {
  emptySummary,
  Findings,
  type FormatOptions,
  type LineConsumer,
  type LineFormat,
  type Session,
  type SessionSummary,
  type ToolCallRecord,
  type Turn,
} from "../types.js";
import { describe, member, numberMember, stringMember, validate } from "../validate.js";
import { KNOWN_METRICS, SPAN_FIELDS, SPAN_TYPES, zSpan } from "./schema.js";

/*
 * Braintrust-style span traces as ai-dynamo/dynamo's trace replay reads them
 * (lib/llm/src/storage/trace_replay.rs, `parse_trace_content` and `replay_trace`). Field types come
 * from Braintrust's published `ProjectLogsEvent` schema (test/corpus/braintrust/); the turn
 * rules (root, turns, user input, answer, tool calls, response id chain) follow the producer.
 */

/** What the end-of-file checks and the summary need from one span; the rest is dropped. */
interface SpanRecord {
  line: number;
  spanId: string;
  rootSpanId: string | null;
  parents: string[];
  /** `span_parents` missing, null, empty or listing the span itself (the producer's root rule). */
  rootShaped: boolean;
  type: string | null;
  name: string | null;
  created: string | null;
  createdMs: number | null;
  start: number | null;
  end: number | null;
  durationMs: number | null;
  /** false when the span reports failure, true when it reports success, null when silent. */
  ok: boolean | null;
  sessionId: string | null;
  /** The turn's user message, extracted as the producer does (only kept for `task` spans). */
  userInput: string | null;
  /** `output.content` when a string (only kept for `llm` spans). */
  answer: string | null;
  toolName: string | null;
}

/** A notice reported once per file for a repeated oddity, with how often it occurred. */
interface Repeated {
  firstLine: number;
  count: number;
  path: string;
  code: string;
  message: string;
}

/**
 * A cheap content test for detection: an object with a string `span_id` and either
 * `root_span_id` or a Braintrust row `id` (a lone root span may omit its root id).
 */
export function isBraintrustSpan(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.span_id === "string" && (typeof v.root_span_id === "string" || typeof v.id === "string");
}

/**
 * Braintrust-style span traces (one span per line), the format ai-dynamo/dynamo replays: validates
 * each span and the tree (one root, known parents, one root_span_id, no duplicates or cycles) and
 * derives the conversation turns and their `previous_response_id` chain the way the producer does.
 */
export const braintrustFormat: LineFormat = {
  id: "braintrust-spans",
  kind: "lines",
  begin(findings: Findings, _options: FormatOptions): LineConsumer {
    return new BraintrustConsumer(findings);
  },
};

class BraintrustConsumer implements LineConsumer {
  private readonly spans: SpanRecord[] = [];
  private readonly byId = new Map<string, SpanRecord>();
  private readonly repeated = new Map<string, Repeated>();
  private lines = 0;
  /** A Layer C copy's record of its original (the carrier span's `metadata.redaction.original`). */
  private original: LayerCOrigin | undefined;

  constructor(private readonly findings: Findings) {}

  line(line: number, value: JsonValue): void {
    this.lines++;
    if (!isJsonObject(value)) {
      this.findings.error({
        line,
        column: null,
        path: "$",
        code: "spans.not_object",
        message: `a span must be a JSON object, found ${describe(value)}`,
        expected: "an object",
        found: describe(value),
      });
      return;
    }
    // One error per path: zod keeps checking after a failed check, so the shared zTimestamp
    // reports both its format and its calendar check for one bad `created`.
    const issues = new Findings();
    validate(zSpan, value, issues, { line, code: "spans" });
    const paths = new Set<string>();
    for (const issue of issues.errors) {
      if (!paths.has(issue.path)) this.findings.error(issue);
      paths.add(issue.path);
    }
    // Issues past the scratch list's limit are still counted.
    this.findings.errorCount += issues.errorCount - issues.errors.length;
    this.noticeOddities(line, value);

    // Spans with a usable id are kept even when another field is bad, so that their children do
    // not all turn into `unknown_parent` errors as well.
    const spanId = value.span_id;
    if (typeof spanId !== "string" || spanId === "") return;
    const first = this.byId.get(spanId);
    if (first !== undefined) {
      this.findings.error({
        line,
        column: null,
        path: "$.span_id",
        code: "spans.duplicate_span",
        message: `span_id ${JSON.stringify(spanId)} was already used on line ${first.line}`,
        expected: "a span_id not used by another line",
        found: describe(spanId),
      });
      return;
    }
    const record = toRecord(line, spanId, value);
    this.original ??= layerCOriginOf(member(member(value, "metadata"), "redaction")) ?? undefined;
    this.spans.push(record);
    this.byId.set(spanId, record);
  }

  end(): Session {
    for (const r of this.repeated.values()) {
      this.findings.notice({
        line: r.firstLine,
        column: null,
        path: r.path,
        code: r.code,
        message: `${r.message} (${r.count === 1 ? "on line" : `on ${r.count} lines, first`} ${r.firstLine})`,
      });
    }
    if (this.lines === 0) {
      this.findings.error({
        line: null,
        column: null,
        path: "$",
        code: "spans.empty",
        message: "the trace has no spans",
        expected: "at least one span",
        found: "no lines",
      });
    }
    const root = this.checkTree();
    const turns = root === null ? [] : this.turns(root);
    const session: Session = {
      summary: this.summary(root, turns),
      tool_calls: this.toolCalls(),
      runtime_events: [],
    };
    if (this.original !== undefined) session.original = this.original;
    return session;
  }

  /** Counts an oddity once per key per file; the notices are written at `end`. */
  private once(key: string, line: number, make: () => Omit<Repeated, "firstLine" | "count">): void {
    const seen = this.repeated.get(key);
    if (seen !== undefined) seen.count++;
    else this.repeated.set(key, { firstLine: line, count: 1, ...make() });
  }

  private noticeOddities(line: number, value: JsonObject): void {
    for (const key of Object.keys(value)) {
      if (SPAN_FIELDS.has(key)) continue;
      this.once(`field:${key}`, line, () => ({
        path: `$${memberPath(key)}`,
        code: "spans.unknown_field",
        message: `field ${JSON.stringify(key)} is not a Braintrust span field; kept, not checked`,
      }));
    }
    const metrics = member(value, "metrics");
    if (isJsonObject(metrics)) {
      for (const [key, v] of Object.entries(metrics)) {
        if (KNOWN_METRICS.has(key) || v instanceof JsonNumber || v === null) continue;
        this.once(`metric:${key}`, line, () => ({
          path: `$.metrics${memberPath(key)}`,
          code: "spans.metric_not_number",
          message: `metrics.${key} is ${describe(v)}; Braintrust metrics are numbers (read leniently)`,
        }));
      }
    }
    const type = stringMember(member(value, "span_attributes"), "type");
    if (type !== null && !SPAN_TYPES.has(type)) {
      this.once(`type:${type}`, line, () => ({
        path: "$.span_attributes.type",
        code: "spans.unknown_span_type",
        message: `span type ${JSON.stringify(type)} is not one of Braintrust's span types`,
      }));
    }
  }

  /** The tree checks; returns the root (the first one when there are several, as the producer). */
  private checkTree(): SpanRecord | null {
    const roots = this.spans.filter((s) => s.rootShaped);
    const root = roots[0] ?? null;
    if (root === null && this.spans.length > 0) {
      this.findings.error({
        line: null,
        column: null,
        path: "$",
        code: "spans.no_root",
        message: "no span is a root (every span lists a parent other than itself)",
        expected: "exactly one span without span_parents",
        found: "none",
      });
    }
    for (const extra of roots.slice(1)) {
      this.findings.error({
        line: extra.line,
        column: null,
        path: "$.span_parents",
        code: "spans.multiple_roots",
        message: `span ${JSON.stringify(extra.spanId)} is a second root; the root is ${JSON.stringify(root?.spanId)} on line ${root?.line}`,
        expected: "exactly one span without span_parents",
        found: `${roots.length} roots`,
      });
    }
    for (const s of this.spans) {
      if (s.rootSpanId !== null) continue;
      if (s.rootShaped) {
        this.findings.notice({
          line: s.line,
          column: null,
          path: "$.root_span_id",
          code: "spans.own_root",
          message: `root span ${JSON.stringify(s.spanId)} has no root_span_id; taken as its own root`,
        });
      } else {
        this.findings.error({
          line: s.line,
          column: null,
          path: "$.root_span_id",
          code: "spans.missing_field",
          message: `span ${JSON.stringify(s.spanId)} has parents but no root_span_id`,
          expected: "the trace's root span id",
          found: "nothing (missing)",
        });
      }
    }
    // With several roots, "the root's root_span_id" is ambiguous: the error above says enough.
    if (root !== null && roots.length === 1) {
      const expected = root.rootSpanId ?? root.spanId;
      for (const s of this.spans) {
        if (s.rootSpanId === null || s.rootSpanId === expected) continue;
        this.findings.error({
          line: s.line,
          column: null,
          path: "$.root_span_id",
          code: "spans.foreign_root",
          message: `line ${s.line}: span ${JSON.stringify(s.spanId)} belongs to root ${JSON.stringify(s.rootSpanId)}, not to this trace's root ${JSON.stringify(expected)}`,
          expected: JSON.stringify(expected),
          found: describe(s.rootSpanId),
        });
      }
    }
    for (const s of this.spans) {
      s.parents.forEach((p, i) => {
        if (p === s.spanId || this.byId.has(p)) return;
        this.findings.error({
          line: s.line,
          column: null,
          path: `$.span_parents[${i}]`,
          code: "spans.unknown_parent",
          message: `parent ${JSON.stringify(p)} of span ${JSON.stringify(s.spanId)} is not a span of this trace`,
          expected: "the span_id of a span in the file",
          found: describe(p),
        });
      });
    }
    this.checkCycles();
    return root;
  }

  /** Depth-first over parent links (iterative: a long chain must not overflow the stack). */
  private checkCycles(): void {
    const state = new Map<string, "open" | "done">();
    for (const start of this.spans) {
      if (state.has(start.spanId)) continue;
      const path: { span: SpanRecord; next: number }[] = [{ span: start, next: 0 }];
      state.set(start.spanId, "open");
      while (path.length > 0) {
        const top = path[path.length - 1] as { span: SpanRecord; next: number };
        const index = top.next++;
        const parentId = top.span.parents[index];
        if (parentId === undefined) {
          state.set(top.span.spanId, "done");
          path.pop();
          continue;
        }
        const parent = this.byId.get(parentId);
        if (parent === undefined || parent === top.span) continue;
        const seen = state.get(parentId);
        if (seen === "open") {
          const from = path.findIndex((p) => p.span === parent);
          const loop = [...path.slice(from).map((p) => p.span.spanId), parentId];
          this.findings.error({
            line: top.span.line,
            column: null,
            path: `$.span_parents[${index}]`,
            code: "spans.cycle",
            message: `span parents form a cycle: ${loop.map((id) => JSON.stringify(id)).join(" → ")}`,
            expected: "span parents that lead to the root",
            found: `a cycle of ${loop.length - 1} span(s)`,
          });
        } else if (seen === undefined) {
          state.set(parentId, "open");
          path.push({ span: parent, next: 0 });
        }
      }
    }
  }

  /**
   * Turns as the producer finds them: in file order, each span that lists the root among its
   * parents, has type `task` and a name starting with `Turn`, numbered from 1. Each turn's
   * response id is `resp_<turn span_id>` (what `replay_trace` stores it under) and its
   * previous_response_id is the previous turn's. The root itself is never a turn, even when it
   * lists itself as a parent (the producer's rule would let a self-listing root named "Turn…" in).
   */
  private turns(root: SpanRecord): Turn[] {
    const children = new Map<string, SpanRecord[]>();
    for (const s of this.spans) {
      for (const p of new Set(s.parents)) {
        if (p === s.spanId) continue;
        const list = children.get(p);
        if (list === undefined) children.set(p, [s]);
        else list.push(s);
      }
    }
    const turns: Turn[] = [];
    let previous: string | null = null;
    for (const s of this.spans) {
      if (s === root || s.type !== "task" || !s.name?.startsWith("Turn") || !s.parents.includes(root.spanId))
        continue;
      const kids = children.get(s.spanId) ?? [];
      const answers = kids.filter((k) => k.type === "llm" && k.answer !== null);
      const responseId = `resp_${s.spanId}`;
      turns.push({
        turn_number: turns.length + 1,
        span_id: s.spanId,
        user_input: s.userInput,
        assistant_output: answers[answers.length - 1]?.answer ?? null,
        tool_calls: kids
          .filter((k) => k.type === "tool")
          .map((k) => ({ name: k.toolName ?? "unknown", span_id: k.spanId })),
        timestamp: s.created,
        response_id: responseId,
        previous_response_id: previous,
      });
      previous = responseId;
    }
    return turns;
  }

  private toolCalls(): ToolCallRecord[] {
    return this.spans
      .filter((s) => s.type === "tool")
      .map((s) => ({
        id: s.spanId,
        step_id: s.spanId,
        tool: s.toolName,
        params_hash: null,
        output_hash: null,
        latency_ms: s.durationMs ?? (s.start !== null && s.end !== null ? toMs(s.end - s.start) : null),
        ok: s.ok,
        side_effects: [],
        line: s.line,
      }));
  }

  private summary(root: SpanRecord | null, turns: Turn[]): SessionSummary {
    const summary = emptySummary("braintrust-spans");
    summary.session_id = root === null ? null : (root.sessionId ?? root.spanId);
    summary.producer = "braintrust";
    const [startedAt, endedAt] = this.timeRange();
    summary.started_at = startedAt;
    summary.ended_at = endedAt;
    summary.status =
      this.spans.length === 0 ? "unknown" : this.spans.some((s) => s.ok === false) ? "failed" : "success";
    const tools = this.spans.filter((s) => s.type === "tool");
    summary.counts = {
      events: this.lines,
      tool_calls: tools.length,
      failed_tool_calls: tools.filter((s) => s.ok === false).length,
      turns: turns.length,
      steps_by_type: {},
    };
    for (const s of this.spans) {
      const type = s.type ?? "unknown";
      summary.counts.steps_by_type[type] = (summary.counts.steps_by_type[type] ?? 0) + 1;
    }
    const start = extreme(
      this.spans.map((s) => s.start),
      Math.min,
    );
    const end = extreme(
      this.spans.map((s) => s.end),
      Math.max,
    );
    if (start !== null && end !== null && end >= start) summary.total_latency_ms = toMs(end - start);
    summary.turns = turns;
    return summary;
  }

  /** Earliest and latest `created` as written; without any, metrics start/end (unix seconds). */
  private timeRange(): [string | null, string | null] {
    let first: SpanRecord | null = null;
    let last: SpanRecord | null = null;
    for (const s of this.spans) {
      if (s.createdMs === null) continue;
      if (first === null || s.createdMs < (first.createdMs ?? 0)) first = s;
      if (last === null || s.createdMs > (last.createdMs ?? 0)) last = s;
    }
    if (first !== null && last !== null) return [first.created, last.created];
    const start = extreme(
      this.spans.map((s) => s.start),
      Math.min,
    );
    const end = extreme(
      this.spans.map((s) => s.end ?? s.start),
      Math.max,
    );
    return [start === null ? null : unixToIso(start), end === null ? null : unixToIso(end)];
  }
}

/** Reads what later checks need, leniently: a bad field was already reported by `validate`. */
function toRecord(line: number, spanId: string, value: JsonObject): SpanRecord {
  const rawParents = member(value, "span_parents");
  const parents = Array.isArray(rawParents)
    ? rawParents.filter((p): p is string => typeof p === "string")
    : [];
  const attributes = member(value, "span_attributes");
  const metrics = member(value, "metrics");
  const metadata = member(value, "metadata");
  const type = stringMember(attributes, "type");
  const created = stringMember(value, "created");
  const createdMs = created === null ? Number.NaN : Date.parse(created.replace(" ", "T"));
  const rootSpanId = stringMember(value, "root_span_id");
  return {
    line,
    spanId,
    rootSpanId: rootSpanId === "" ? null : rootSpanId,
    parents,
    // A malformed span_parents (a string, say) is not read as "no parents": that would make the
    // span a second root on top of the type error already reported.
    rootShaped:
      rawParents === undefined ||
      rawParents === null ||
      (Array.isArray(rawParents) && rawParents.length === 0) ||
      parents.includes(spanId),
    type,
    name: stringMember(attributes, "name"),
    created,
    createdMs: Number.isFinite(createdMs) ? createdMs : null,
    start: numberMember(metrics, "start"),
    end: numberMember(metrics, "end"),
    durationMs: numberMember(metrics, "duration_ms"),
    ok: outcome(value),
    sessionId: stringMember(metadata, "session_id"),
    userInput: type === "task" ? userInput(member(value, "input")) : null,
    answer: type === "llm" ? stringMember(member(value, "output"), "content") : null,
    toolName: stringMember(metadata, "tool_name"),
  };
}

/**
 * The user message of a turn, as the producer reads it: the input itself when a string, else the
 * first `{role: "user", content: <string>}` of a messages array. null where the producer would
 * use an empty string, so that "no input" stays distinguishable from an empty message.
 */
function userInput(input: JsonValue | undefined): string | null {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return null;
  for (const item of input) {
    if (stringMember(item, "role") !== "user") continue;
    const content = stringMember(item, "content");
    if (content !== null) return content;
  }
  return null;
}

/**
 * Whether the span reports failure: a non-null `error`, or `metrics.success` false-ish. Real
 * traces write success as a string (`"true"`/`"false"`), so strings and 0/1 are read too.
 */
function outcome(value: JsonObject): boolean | null {
  const error = member(value, "error");
  if (error !== undefined && error !== null && error !== false && error !== "") return false;
  const success = member(member(value, "metrics"), "success");
  if (success === true || success === false) return success;
  if (typeof success === "string") {
    const s = success.trim().toLowerCase();
    if (s === "true" || s === "1") return true;
    if (s === "false" || s === "0") return false;
  }
  if (success instanceof JsonNumber) return Number(success.text) !== 0;
  return null;
}

/** The least or greatest of the present values (no spread: a long trace must not overflow it). */
function extreme(values: (number | null)[], pick: (a: number, b: number) => number): number | null {
  let out: number | null = null;
  for (const v of values) if (v !== null) out = out === null ? v : pick(out, v);
  return out;
}

/** Seconds to whole milliseconds (Braintrust metrics are unix seconds, often fractional). */
function toMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

function unixToIso(seconds: number): string | null {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
