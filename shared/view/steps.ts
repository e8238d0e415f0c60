/**
 * The timeline of a session, the same for every format: tool calls (REPLAY.jsonl, ReplayBundle,
 * span traces), model turns of span traces, ReplayKit steps and OpenAgents runtime events, each with
 * the hashes the file records and what the check rows recomputed.
 */
import { createHash } from "node:crypto";
import { isJsonObject, JsonNumber, type JsonValue } from "../canonical/index.js";
import type { CheckRow, FormatId, Session, ToolCallRecord, Turn } from "../formats/index.js";
import { member, numberMember, stringMember } from "../formats/index.js";
import type { RedactionMarker, RedactionRecord, StepHash, StepStatus, ViewStep } from "./types.js";

/** Longest excerpt of a turn's text kept in the view. */
const EXCERPT = 240;
/** A scrubber's tag in a kept string: `[REDACTED:<rule>]` or `[REDACTED:<rule>:<mac>]`. */
const TAG = /\[REDACTED:([A-Za-z0-9-]+)(?::[0-9a-f]{8})?\]/g;
/** Members that hold a tool call's or span's raw content (what Layer C removes). */
const CONTENT_MEMBERS: ReadonlySet<string> = new Set([
  "params",
  "output",
  "input",
  "result",
  "arguments",
  "content",
  "messages",
  "stdout",
  "stderr",
  "payload",
]);

/** What the timeline is built from: the inspected session, its rows, and what the capture kept. */
interface StepSources {
  format: FormatId | null;
  session: Session | null;
  /** Every listed check row; those a step claims are moved to it, the rest stay in `rest`. */
  rows: CheckRow[];
  /** The document of a document format (null otherwise). */
  document: JsonValue | null;
  redaction: RedactionRecord | null;
}

/** Steps and the rows no step claimed. */
interface BuiltSteps {
  steps: ViewStep[];
  rest: CheckRow[];
}

/** The timeline of `sources` (see the module comment), with the rows each step claims. */
export function buildSteps(sources: StepSources): BuiltSteps {
  const rows = new RowIndex(sources.rows);
  const steps =
    sources.format === "replaykit-rpk"
      ? replaykitSteps(sources.document, rows)
      : sessionSteps(sources.session, rows);
  steps.forEach((step, i) => {
    step.n = i + 1;
    step.markers = markersOf(step, sources.format, sources.redaction);
  });
  return { steps, rest: rows.unclaimed() };
}

/** Check rows by what their subject names: a line, a call key, a step label, a runtime seq. */
class RowIndex {
  private readonly byLine = new Map<number, CheckRow[]>();
  private readonly byKey = new Map<string, CheckRow[]>();
  private readonly claimed = new Set<CheckRow>();

  constructor(private readonly rows: CheckRow[]) {
    for (const row of rows) {
      // `line 3 ToolCall tc_001 params`, `line 9 RuntimeEvent 4 payload`, `step step-001`.
      const lined = /^line (\d+) (\S+) (.+) (\S+)$/.exec(row.subject);
      if (lined !== null) {
        push(this.byLine, Number(lined[1]), row);
        push(this.byKey, `${lined[2]}:${lined[3]}`, row);
        continue;
      }
      const step = /^step (.+)$/.exec(row.subject);
      if (step !== null) push(this.byKey, `step:${step[1]}`, row);
    }
  }

  /** The rows of `keys` (each `<kind>:<key>`) and `line`, marked as claimed. */
  take(line: number | null, ...keys: string[]): CheckRow[] {
    const found = new Set<CheckRow>(line === null ? [] : (this.byLine.get(line) ?? []));
    for (const key of keys) for (const row of this.byKey.get(key) ?? []) found.add(row);
    for (const row of found) this.claimed.add(row);
    return [...found];
  }

  unclaimed(): CheckRow[] {
    return this.rows.filter((row) => !this.claimed.has(row));
  }
}

function push<K>(map: Map<K, CheckRow[]>, key: K, row: CheckRow): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [row]);
  else list.push(row);
}

/** A hash of a step from what the file records and the rows that checked it. */
function hashOf(field: string, recorded: string | null, rows: CheckRow[], check: string): StepHash {
  const row = rows.find((r) => r.check === check);
  if (row === undefined) return { field, recorded, actual: null, status: null };
  return { field, recorded: recorded ?? row.expected, actual: row.actual, status: row.status };
}

function statusOf(ok: boolean | null): StepStatus {
  return ok === null ? "unknown" : ok ? "ok" : "error";
}

function sessionSteps(session: Session | null, rows: RowIndex): ViewStep[] {
  if (session === null) return [];
  const turns = session.summary.turns ?? [];
  if (turns.length > 0) return traceSteps(turns, session.tool_calls, rows);
  const calls = session.tool_calls.map((call, k) => toolStep(call, k, rows));
  if (calls.length > 0 || session.runtime_events.length === 0) return calls;
  return session.runtime_events.map((event) => {
    const seq = event.seq instanceof JsonNumber ? event.seq.text : String(event.seq);
    const own = rows.take(null, `RuntimeEvent:${seq}`);
    const payload = hashOf("payload", null, own, "payload_hash");
    return step({
      kind: "step",
      id: seq,
      name: typeof event.event_type === "string" ? event.event_type : "RuntimeEvent",
      hashes: [payload],
      status: own.some((r) => r.status === "failed") ? "error" : "unknown",
    });
  });
}

function toolStep(call: ToolCallRecord, k: number, rows: RowIndex): ViewStep {
  const keys = [call.id, call.step_id].flatMap((k) =>
    k === null ? [] : [`ToolCall:${k}`, `ToolResult:${k}`],
  );
  const own = rows.take(call.line, ...keys);
  return step({
    kind: "tool",
    id: call.id ?? call.step_id,
    name: call.tool ?? "(unnamed tool)",
    line: call.line,
    call: k,
    status: statusOf(call.ok),
    duration_ms: call.latency_ms,
    hashes: [
      hashOf("params", call.params_hash, own, "params_hash"),
      hashOf("output", call.output_hash, own, "output_hash"),
    ],
  });
}

/** A span trace: each turn, then its tool calls; tool calls of no turn follow in file order. */
function traceSteps(turns: Turn[], calls: ToolCallRecord[], rows: RowIndex): ViewStep[] {
  const bySpan = new Map(calls.map((c) => [c.id, c]));
  const position = new Map(calls.map((c, k) => [c, k]));
  const placed = new Set<ToolCallRecord>();
  const out: ViewStep[] = [];
  for (const turn of turns) {
    const text = [turn.user_input, turn.assistant_output].filter((t) => t !== null).join(" → ");
    out.push(
      step({
        kind: "turn",
        id: turn.span_id,
        // One name for every turn, so filters and charts group them; the number leads the text.
        name: "turn",
        text: excerpt(`#${turn.turn_number}${text === "" ? "" : ` ${text}`}`),
        // The turn's text is compared by its hash: a trace carries none of its own.
        hashes: [{ field: "text", recorded: text === "" ? null : sha256(text), actual: null, status: null }],
      }),
    );
    for (const ref of turn.tool_calls) {
      const call = bySpan.get(ref.span_id);
      if (call === undefined || placed.has(call)) continue;
      placed.add(call);
      out.push(toolStep(call, position.get(call) ?? 0, rows));
    }
  }
  calls.forEach((call, k) => {
    if (!placed.has(call)) out.push(toolStep(call, k, rows));
  });
  return out;
}

/** ReplayKit steps (current `payload.run.steps` or legacy `steps`), and a copy's original hashes. */
function replaykitSteps(doc: JsonValue | null, rows: RowIndex): ViewStep[] {
  if (doc === null) return [];
  const raw = member(member(member(doc, "payload"), "run"), "steps") ?? member(doc, "steps");
  if (!Array.isArray(raw)) return [];
  const originals = member(member(member(member(doc, "metadata"), "redaction"), "original"), "step_hashes");
  return raw.map((s, index) => {
    const idValue = member(s, "id");
    const id = typeof idValue === "string" ? idValue : idValue instanceof JsonNumber ? idValue.text : null;
    const own = rows.take(null, `step:${id ?? `#${index}`}`);
    const recorded = stringMember(s, "hash") ?? stringMember(s, "step_hash");
    const hashes = [hashOf("step", recorded, own, "step_hash")];
    const original = Array.isArray(originals) ? originals[index] : undefined;
    if (typeof original === "string")
      hashes.push(hashOf("original_step", original, own, "original_step_hash"));
    const metadata = member(s, "metadata");
    const error = member(s, "error") ?? member(member(s, "output"), "error");
    return step({
      kind: "step",
      id,
      name: stringMember(s, "type") ?? "step",
      duration_ms: numberMember(metadata, "duration_ms") ?? numberMember(metadata, "latency_ms"),
      status: error !== undefined && error !== null ? "error" : "unknown",
      hashes,
    });
  });
}

function step(fields: Partial<ViewStep> & Pick<ViewStep, "kind" | "name">): ViewStep {
  return {
    n: 0,
    id: null,
    line: null,
    status: "unknown",
    duration_ms: null,
    hashes: [],
    markers: [],
    text: null,
    call: null,
    receipt: [],
    ...fields,
  };
}

/**
 * A step's redaction markers: on a Layer C copy, the content members its record says were removed
 * (the rule that removes raw content) or, for an `.rpk`, masked in place; and, on any file, the
 * scrubber's tags found in the strings the step shows.
 */
function markersOf(
  s: ViewStep,
  format: FormatId | null,
  redaction: RedactionRecord | null,
): RedactionMarker[] {
  const markers: RedactionMarker[] = [];
  if (redaction !== null) {
    if (format === "replaykit-rpk") {
      markers.push({ what: "input, output", how: "masked", rule: `preset ${redaction.preset ?? "?"}` });
    } else {
      const rule = Object.keys(redaction.by_rule).find((r) => r.startsWith("layer_c.")) ?? "layer_c";
      const removed = new Set<string>();
      for (const path of Object.keys(redaction.removed_fields)) {
        const last = /\.([A-Za-z_]+)$/.exec(path)?.[1];
        if (last !== undefined && CONTENT_MEMBERS.has(last)) removed.add(last);
      }
      for (const what of removed) markers.push({ what, how: "removed", rule });
    }
  }
  for (const text of [s.name, s.id ?? "", s.text ?? ""])
    for (const tag of text.matchAll(TAG)) markers.push({ what: "text", how: "scrubbed", rule: tag[1] ?? "" });
  return markers;
}

function excerpt(text: string): string {
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text;
}

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** The redaction record of a Layer C copy, from the values that may carry one; null when none. */
export function redactionOf(format: FormatId | null, values: JsonValue[]): RedactionRecord | null {
  for (const value of values) {
    const record =
      format === "braintrust-spans" || format === "replaykit-rpk" || format === "replay-bundle"
        ? member(member(value, "metadata"), "redaction")
        : member(value, "redaction");
    if (record === undefined || !isJsonObject(record) || stringMember(record, "layer") !== "C") continue;
    return {
      preset: stringMember(record, "preset"),
      by_rule: counts(member(record, "by_rule")),
      by_path: counts(member(record, "by_path")),
      removed_fields: counts(member(record, "removed_fields")),
      hashes_added: counts(member(record, "hashes_added")),
    };
  }
  return null;
}

function counts(value: JsonValue | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isJsonObject(value)) return out;
  for (const [key, n] of Object.entries(value)) if (n instanceof JsonNumber) out[key] = Number(n.text);
  return out;
}
