import type { z } from "zod";
import {
  canonicalHash,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  memberPath,
  SHA256_TAG,
} from "../../canonical/index.js";
import { ReplayPipelineError } from "../../errors.js";
import { layerCOriginOf } from "../layer-c-record.js";
import {
  type DocumentFormat,
  emptySummary,
  type Findings,
  type Session,
  type ToolCallRecord,
  type VerificationRecord,
} from "../types.js";
import { describe, member, numberMember, stringMember, unknownKeys, validate } from "../validate.js";
import {
  BUNDLE_EVENT_TYPES,
  bundleSchema,
  CLOSING_TYPES,
  ENTRY_FIELDS,
  entrySchema,
  KNOWN_TYPES,
  METADATA_FIELDS,
  metadataSchema,
  RECEIPT_FIELDS,
  receiptsSchema,
  TOP_FIELDS,
} from "./schema.js";

/**
 * The OpenAgents `ReplayBundle` (crates/autopilot-core `replay.rs`): one JSON document with
 * `version`, `id`, `created_at`, `metadata`, `timeline[]` of `{t, type, tool?, data}` (t in
 * milliseconds from the start) and `receipts`. It is the runtime's demo/publishing form that
 * ADR-0003 asks to export to REPLAY.jsonl v1 (see `export.ts`).
 *
 * The bundle carries no hashes, so reading it yields no check rows: only errors, notices and the
 * normalized session. The `params_hash`/`output_hash` of its tool calls are computed here.
 */

/** One timeline entry that passed validation. */
export interface BundleEntry {
  /** Index in `timeline`, for paths (`$.timeline[3]`). */
  index: number;
  /** Milliseconds from `created_at`. */
  t: number;
  type: string;
  /** `tool`, or `data.tool` when the entry has none. */
  tool: string | null;
  data: JsonValue;
}

/** What `readBundle` recovered from a bundle; fields are null when missing or invalid. */
export interface BundleView {
  id: string | null;
  version: string | null;
  createdAt: string | null;
  metadata: JsonObject | null;
  receipts: JsonObject | null;
  /** Number of timeline entries, valid or not. */
  eventCount: number;
  /** The valid entries, in timeline order. */
  entries: BundleEntry[];
}

/** A `tool_call` and the `tool_result` paired with it, under the id both REPLAY lines carry. */
export interface PairedToolCall {
  /** Deterministic id from the call's position among tool calls: `tc_001`, `tc_002`, … */
  id: string;
  call: BundleEntry;
  result: BundleEntry | null;
}

/** The id of the n-th (1-based) tool call; stable across runs so exports are byte-identical. */
function toolCallId(n: number): string {
  return `tc_${String(n).padStart(3, "0")}`;
}

/**
 * Cheap detection for `inspect`: an object with a `timeline` array and a `version` or `id`
 * (the other formats are JSON Lines, or documents without `timeline`).
 */
export function isReplayBundle(value: JsonValue): boolean {
  return (
    isJsonObject(value) &&
    Array.isArray(value.timeline) &&
    (Object.hasOwn(value, "version") || Object.hasOwn(value, "id"))
  );
}

function unknownFieldNotices(
  value: JsonValue | undefined,
  known: ReadonlySet<string>,
  base: string,
  findings: Findings,
) {
  if (!isJsonObject(value)) return;
  for (const key of unknownKeys(value, known)) {
    const path = `${base}${memberPath(key)}`;
    findings.notice({
      line: null,
      column: null,
      path,
      code: "bundle.unknown_field",
      message: `${path}: field not in the ReplayBundle format; ignored`,
    });
  }
}

/**
 * Validates a bundle and reports into `findings` (errors for what is missing or mistyped, notices
 * for unknown fields and event types); returns what could be recovered so reading goes on past a
 * bad entry. Shared by the reader and the exporter so both accept exactly the same input.
 */
export function readBundle(value: JsonValue, findings: Findings): BundleView {
  const view: BundleView = {
    id: null,
    version: null,
    createdAt: null,
    metadata: null,
    receipts: null,
    eventCount: 0,
    entries: [],
  };
  const where = { line: null, code: "bundle" };
  const top = validate(bundleSchema, value, findings, where);
  if (!isJsonObject(value)) return view;
  unknownFieldNotices(value, TOP_FIELDS, "$", findings);
  unknownFieldNotices(value.metadata, METADATA_FIELDS, "$.metadata", findings);
  unknownFieldNotices(value.receipts, RECEIPT_FIELDS, "$.receipts", findings);

  // A field is kept only when the whole document validated or that field is well typed, so a
  // bad `metadata` does not hide a good `id`.
  const ok = (schema: z.ZodType, v: JsonValue | undefined): boolean =>
    top !== undefined || (v !== undefined && schema.safeParse(v).success);
  if (ok(bundleSchema.shape.id, value.id)) view.id = stringMember(value, "id");
  if (ok(bundleSchema.shape.version, value.version)) view.version = stringMember(value, "version");
  if (ok(bundleSchema.shape.created_at, value.created_at)) view.createdAt = stringMember(value, "created_at");
  if (isJsonObject(value.metadata) && ok(metadataSchema, value.metadata)) view.metadata = value.metadata;
  if (isJsonObject(value.receipts) && ok(receiptsSchema, value.receipts)) view.receipts = value.receipts;

  if (view.version !== null && !/^1(\.\d+)*$/.test(view.version)) {
    findings.notice({
      line: null,
      column: null,
      path: "$.version",
      code: "bundle.unknown_version",
      message: `$.version: bundle version ${JSON.stringify(view.version)} is not the 1.x this reader knows; read as 1.x`,
      expected: "1.x",
      found: describe(view.version),
    });
  }

  const timeline = value.timeline;
  if (!Array.isArray(timeline)) return view;
  view.eventCount = timeline.length;
  view.entries = timelineEntries(timeline, findings);
  return view;
}

/**
 * The timeline's valid entries, each validated and checked (see `entryNotices`); an entry whose `t`
 * steps back from the last in-order entry is an error but is kept.
 */
function timelineEntries(timeline: readonly JsonValue[], findings: Findings): BundleEntry[] {
  const entries: BundleEntry[] = [];
  let previous: BundleEntry | null = null;
  for (let i = 0; i < timeline.length; i++) {
    const raw = timeline[i] as JsonValue;
    const base = `$.timeline[${i}]`;
    unknownFieldNotices(raw, ENTRY_FIELDS, base, findings);
    const entry = validate(entrySchema, raw, findings, { line: null, code: "bundle", base });
    if (entry === undefined || !isJsonObject(raw)) continue;
    const tool = entry.tool ?? stringMember(entry.data, "tool");
    const dataTool = stringMember(entry.data, "tool");
    entryNotices(entry, dataTool, base, findings);
    // The producer computes t from ordered log timestamps, so a step back means a damaged or
    // hand-edited timeline, and every duration derived from it would be wrong.
    if (previous !== null && entry.t < previous.t) {
      findings.error({
        line: null,
        column: null,
        path: `${base}.t`,
        code: "bundle.timeline_order",
        message: `${base}.t: expected ${previous.t} or more (t of $.timeline[${previous.index}]; the timeline is in time order), found number ${entry.t}`,
        expected: `a value >= ${previous.t}`,
        found: `number ${entry.t}`,
      });
    }
    const kept: BundleEntry = { index: i, t: entry.t, type: entry.type, tool, data: entry.data };
    entries.push(kept);
    if (previous === null || entry.t >= previous.t) previous = kept;
  }
  return entries;
}

/** Notices for an entry whose `data.tool` disagrees with its `tool`, or whose type the producer never writes. */
function entryNotices(
  entry: z.infer<typeof entrySchema>,
  dataTool: string | null,
  base: string,
  findings: Findings,
): void {
  if (entry.tool != null && dataTool !== null && dataTool !== entry.tool) {
    findings.notice({
      line: null,
      column: null,
      path: `${base}.data.tool`,
      code: "bundle.tool_mismatch",
      message: `${base}.data.tool: ${JSON.stringify(dataTool)} differs from ${base}.tool ${JSON.stringify(entry.tool)}; ${base}.tool is used`,
      expected: JSON.stringify(entry.tool),
      found: describe(dataTool),
    });
  }
  if (!KNOWN_TYPES.has(entry.type)) {
    findings.notice({
      line: null,
      column: null,
      path: `${base}.type`,
      code: "bundle.unknown_event_type",
      message: `${base}.type: event type ${JSON.stringify(entry.type)} is not one the producer writes (${BUNDLE_EVENT_TYPES.join(", ")}); kept in counts, otherwise ignored`,
      expected: BUNDLE_EVENT_TYPES.join(" | "),
      found: describe(entry.type),
    });
  }
}

/**
 * Pairs each `tool_call` with the next `tool_result` of the same tool that no earlier call took
 * (first in, first out per tool name): the bundle has no call ids, and the producer logs a
 * result after its call. Results with no open call of their tool are returned as `orphans`.
 */
export function pairToolCalls(entries: readonly BundleEntry[]): {
  calls: PairedToolCall[];
  orphans: BundleEntry[];
} {
  const calls: PairedToolCall[] = [];
  const orphans: BundleEntry[] = [];
  const open = new Map<string | null, PairedToolCall[]>();
  for (const entry of entries) {
    if (entry.type === "tool_call") {
      const paired: PairedToolCall = { id: toolCallId(calls.length + 1), call: entry, result: null };
      calls.push(paired);
      const queue = open.get(entry.tool);
      if (queue === undefined) open.set(entry.tool, [paired]);
      else queue.push(paired);
    } else if (entry.type === "tool_result") {
      const paired = open.get(entry.tool)?.shift();
      if (paired === undefined) orphans.push(entry);
      else paired.result = entry;
    }
  }
  return { calls, orphans };
}

/** True for a value that reports an error: a non-empty string, an object, true. */
function isErrorValue(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === "string") return v.trim() !== "";
  return true;
}

/**
 * Whether a `tool_result` reports success. The bundle has no `ok` field; `data.result` is the
 * tool's own output (Claude tool results, the coding loop's `{content, error, success}`), so
 * failure is read from the usual signals there or on `data`: `is_error: true`, `success: false`,
 * `ok: false`, a non-zero `exit_code`, a non-empty `error`. A result with none of them is a
 * success: the tool returned and reported nothing wrong.
 */
export function toolResultOk(data: JsonValue): boolean {
  for (const v of [member(data, "result"), data]) {
    if (!isJsonObject(v)) continue;
    if (v.is_error === true || v.success === false || v.ok === false) return false;
    const exit = numberMember(v, "exit_code");
    if (exit !== null && exit !== 0) return false;
    if (isErrorValue(v.error)) return false;
  }
  return true;
}

/** Normalized session status, as the summary spells it. */
type BundleStatus = "success" | "failed" | "cancelled" | "timeout" | "unknown";

/** How the run ended, with the event it was read from and any error text. */
export interface BundleOutcome {
  status: BundleStatus;
  /** Index in `timeline` of the event the status was read from; null when unknown. */
  from: number | null;
  /** Error or summary text of a failed run, when the bundle has one. */
  message: string | null;
}

function normalizeStatusWord(word: string): BundleStatus | null {
  const w = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (/^(success|succeeded|successful|complete|completed|done|passed|ok)$/.test(w)) return "success";
  if (/^(fail|failed|failure|error|errored|crashed|aborted)$/.test(w)) return "failed";
  if (/^(cancel|cancelled|canceled|interrupted)$/.test(w)) return "cancelled";
  if (/^(timeout|timed_out|time_out)$/.test(w)) return "timeout";
  return null;
}

const SUCCESS_TEXT = /\b(success|successful|successfully|succeeded|completed|passed|done)\b/i;
const FAILURE_TEXT = /\b(fail|failed|failure|error|errors|errored|crashed|aborted)\b/i;

/** Status stated by one closing event, or null when it states none. */
function closingStatus(entry: BundleEntry): { status: BundleStatus; message: string | null } | null {
  const data = entry.data;
  const errorText = stringMember(data, "error") ?? stringMember(member(data, "error"), "message");
  if (entry.type === "error")
    return { status: "failed", message: errorText ?? stringMember(data, "message") };
  for (const key of ["status", "outcome"]) {
    const word = stringMember(data, key);
    const status = word === null ? null : normalizeStatusWord(word);
    if (status !== null) return { status, message: status === "failed" ? errorText : null };
  }
  const success = member(data, "success");
  if (typeof success === "boolean") return { status: success ? "success" : "failed", message: errorText };
  if (isErrorValue(member(data, "error"))) return { status: "failed", message: errorText };
  // autopilot-core's phase_end carries only a free-text summary ("Completed successfully"). It
  // decides only when it says one thing: success words and failure words together stay unknown.
  const summary = stringMember(data, "summary");
  if (summary !== null) {
    const ok = SUCCESS_TEXT.test(summary);
    const bad = FAILURE_TEXT.test(summary);
    if (ok && !bad) return { status: "success", message: null };
    if (bad && !ok) return { status: "failed", message: summary };
  }
  return null;
}

/**
 * How the run ended: from the last closing event (`phase_end`, or `complete`/`session_end`/
 * `error` from other producers) that states it, unless a `phase_start` follows it (a later phase
 * began and never reported an end, so the run's end is not recorded). `unknown` otherwise.
 */
export function bundleOutcome(entries: readonly BundleEntry[]): BundleOutcome {
  let outcome: BundleOutcome = { status: "unknown", from: null, message: null };
  for (const entry of entries) {
    if (entry.type === "phase_start") outcome = { status: "unknown", from: null, message: null };
    else if (CLOSING_TYPES.has(entry.type)) {
      const stated = closingStatus(entry);
      if (stated !== null) outcome = { ...stated, from: entry.index };
    }
  }
  return outcome;
}

/**
 * `timestamp` plus `offsetMs` milliseconds, in UTC `YYYY-MM-DDTHH:MM:SS.mmm[more digits]Z`.
 * Fraction digits below the millisecond are kept (chrono writes nanoseconds, JavaScript dates
 * stop at milliseconds). Null when the input is not a timestamp or the result leaves years
 * 0000–9999.
 */
export function offsetTimestamp(timestamp: string, offsetMs: number): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(timestamp);
  if (m === null) return null;
  const [, date, time, fraction = "", zone = "Z"] = m;
  const millis = fraction.padEnd(3, "0").slice(0, 3);
  const finer = fraction.slice(3).replace(/0+$/, "");
  const ms = Date.parse(`${date}T${time}.${millis}${zone.toUpperCase()}`) + offsetMs;
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return null;
  const iso = d.toISOString();
  return finer === "" ? iso : `${iso.slice(0, -1)}${finer}Z`;
}

/**
 * The verification the bundle records, from its `receipts` (ReplayReceipts is the producer's
 * "results and verification info"). The bundle keeps counts, not commands, so `command` names
 * the source and `exit_code` is what a runner would return: 0 when every test passed (or CI
 * succeeded), 1 otherwise, null when the counts or status are missing.
 */
export function receiptVerification(receipts: JsonObject | null): VerificationRecord[] {
  if (receipts === null) return [];
  const out: VerificationRecord[] = [];
  const run = numberMember(receipts, "tests_run");
  const passed = numberMember(receipts, "tests_passed");
  if (run !== null || passed !== null) {
    out.push({
      command: `tests: ${passed ?? "?"} of ${run ?? "?"} passed (bundle receipts)`,
      exit_code: run !== null && passed !== null ? (passed === run ? 0 : 1) : null,
    });
  }
  const ci = stringMember(receipts, "ci_status");
  if (ci !== null) {
    const status = normalizeStatusWord(ci);
    out.push({
      command: `ci: ${ci} (bundle receipts)`,
      exit_code: status === "success" ? 0 : status === null ? null : 1,
    });
  }
  return out;
}

/**
 * The `openagents` hash of `value`, or null with an error finding when it cannot be
 * canonicalized (a number serde_json cannot hold).
 */
function hashOf(value: JsonValue, path: string, findings: Findings): string | null {
  try {
    return canonicalHash(value, "openagents");
  } catch (error) {
    if (!(error instanceof ReplayPipelineError)) throw error;
    const at = `${path}${(error.location.path ?? "$").slice(1)}`;
    findings.error({
      line: null,
      column: null,
      path: at,
      code: "bundle.unhashable",
      message: `${at}: ${error.detail}`,
      expected: "a value the openagents canonical form can serialize",
      found: describe(value),
    });
    return null;
  }
}

/**
 * The openagents hash of the entry's `data[key]`. A Layer C copy (our `redact`) carries
 * `data.<key>_hash` in place of the removed value: that hash is taken as recorded, and where both
 * are present they must agree (a row). With neither, a notice says the hash is unknown.
 */
function dataHash(entry: BundleEntry, key: "input" | "result", findings: Findings): string | null {
  const path = `$.timeline[${entry.index}].data.${key}`;
  const value = member(entry.data, key);
  const recorded = stringMember(entry.data, `${key}_hash`);
  const carried = recorded !== null && SHA256_TAG.test(recorded) ? recorded : null;
  if (value === undefined) {
    if (carried !== null) return carried;
    findings.notice({
      line: null,
      column: null,
      path,
      code: "bundle.missing_data",
      message: `${path}: ${entry.type} without data.${key}; its ${key === "input" ? "params_hash" : "output_hash"} is unknown`,
      expected: key === "input" ? "the tool's input" : "the tool's result",
      found: "nothing (missing)",
    });
    return null;
  }
  const actual = hashOf(value, path, findings);
  if (carried !== null && actual !== null)
    findings.compare(`${key}_hash`, `timeline[${entry.index}] ${entry.type} data.${key}`, carried, actual);
  return actual;
}

/**
 * The tool calls as records. `params_hash` and `output_hash` are computed by us (the producer's
 * bundle carries none; see `dataHash` for a Layer C copy's): the `openagents` canonical hash of `data.input` and of `data.result`, as
 * HASHING-NOTES defines them for REPLAY.jsonl, so they can be compared with a RECEIPT.json.
 */
function toolCallRecords(view: BundleView, findings: Findings): ToolCallRecord[] {
  const { calls, orphans } = pairToolCalls(view.entries);
  for (const orphan of orphans) {
    const path = `$.timeline[${orphan.index}]`;
    findings.notice({
      line: null,
      column: null,
      path,
      code: "bundle.orphan_tool_result",
      message: `${path}: tool_result for ${JSON.stringify(orphan.tool)} has no earlier unanswered tool_call of that tool; not counted as a call`,
    });
  }
  return calls.map(({ id, call, result }) => {
    const paramsHash = dataHash(call, "input", findings);
    const outputHash = result === null ? null : dataHash(result, "result", findings);
    if (result === null) {
      const path = `$.timeline[${call.index}]`;
      findings.notice({
        line: null,
        column: null,
        path,
        code: "bundle.unanswered_tool_call",
        message: `${path}: tool_call ${JSON.stringify(call.tool)} has no later tool_result of that tool`,
      });
    }
    return {
      id,
      step_id: null,
      tool: call.tool,
      params_hash: paramsHash,
      output_hash: outputHash,
      latency_ms: result === null ? null : result.t - call.t,
      ok: result === null ? null : toolResultOk(result.data),
      side_effects: [],
      line: null,
    };
  });
}

function read(value: JsonValue, findings: Findings): Session {
  const view = readBundle(value, findings);
  const summary = emptySummary("replay-bundle");
  summary.session_id = view.id;
  summary.producer = stringMember(view.metadata ?? undefined, "model") ?? "autopilot";
  // Both ends in the same UTC millisecond form, so they compare as strings (indexes sort on them).
  summary.started_at = view.createdAt === null ? null : offsetTimestamp(view.createdAt, 0);
  const last = view.entries.at(-1);
  summary.ended_at = view.createdAt === null ? null : offsetTimestamp(view.createdAt, last?.t ?? 0);
  summary.status = bundleOutcome(view.entries).status;
  summary.counts.events = view.eventCount;
  for (const entry of view.entries) {
    summary.counts.steps_by_type[entry.type] = (summary.counts.steps_by_type[entry.type] ?? 0) + 1;
  }
  if (view.eventCount === 0 && view.createdAt !== null) {
    findings.notice({
      line: null,
      column: null,
      path: "$.timeline",
      code: "bundle.empty_timeline",
      message: "$.timeline: no events; the session has no steps",
    });
  }
  const tool_calls = toolCallRecords(view, findings);
  if (tool_calls.length > 0) {
    findings.notice({
      line: null,
      column: null,
      path: "$.timeline",
      code: "bundle.hashes_computed",
      message:
        "params_hash and output_hash are computed from data.input and data.result (openagents canonical form); the bundle carries no hashes to check them against",
    });
  }
  summary.counts.tool_calls = tool_calls.length;
  summary.counts.failed_tool_calls = tool_calls.filter((c) => c.ok === false).length;
  const latencies = tool_calls.flatMap((c) => (c.latency_ms === null ? [] : [c.latency_ms]));
  summary.total_latency_ms = latencies.length === 0 ? null : latencies.reduce((a, b) => a + b, 0);
  summary.verification = receiptVerification(view.receipts);
  const session: Session = { summary, tool_calls, runtime_events: [] };
  const original = layerCOriginOf(member(view.metadata ?? undefined, "redaction"));
  if (original !== null) session.original = original;
  return session;
}

/**
 * Reader of the OpenAgents ReplayBundle (`replay-bundle`). No check rows: the bundle carries no
 * hashes, so the verdict comes from the errors alone.
 */
export const replayBundleFormat: DocumentFormat = { id: "replay-bundle", kind: "document", read };
