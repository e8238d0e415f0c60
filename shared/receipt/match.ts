/**
 * A receipt's tool calls matched with a replay's while the replay is read: the replay's calls go
 * by once, and only those the receipt can still pair with are kept, so memory is bounded by the
 * receipt (itself bounded), not by the replay.
 */
import {
  type Findings,
  fillResult,
  MAX_ROWS,
  type ToolCallRecord,
  type ToolCallSink,
  type ToolResultFields,
} from "../formats/index.js";
import { normalizeReplaySideEffect, type ReceiptToolCall } from "./read.js";

const MISSING_IN_REPLAY = "missing in replay";
const MISSING_IN_RECEIPT = "missing in receipt";

/** A value Layer C replaced whole: `[REDACTED]` (ReplayKit's mask, `paranoid`) or `[REDACTED:<rule>…]`. */
const MASKED = /^\[REDACTED(?::[A-Za-z0-9-]+(?::[0-9a-f]{8})?)?\]$/;

/** Adds a row comparing two optional values; null on both sides adds nothing (notice). */
export function compareValues(
  findings: Findings,
  check: string,
  subject: string,
  expected: string | null,
  actual: string | null,
): void {
  if (expected === null && actual === null) return;
  if (expected !== null && actual === null) {
    findings.check({
      check,
      subject: `${subject} (the replay does not carry it)`,
      expected,
      actual: null,
      status: "unverifiable",
    });
    return;
  }
  if (actual !== null && expected !== actual && MASKED.test(actual)) {
    // A Layer C copy masked the value: it can no longer be compared, which is not a mismatch.
    findings.check({
      check,
      subject: `${subject} (masked in the replay)`,
      expected,
      actual,
      status: "unverifiable",
    });
    return;
  }
  findings.check({ check, subject, expected, actual, status: expected === actual ? "passed" : "failed" });
}

/** How a call is named in rows: its id, else its step_id, else its position. */
function receiptCallName(call: ReceiptToolCall): string {
  return call.id ?? call.step_id ?? `#${call.index}`;
}

function replayCallName(call: ToolCallRecord, index: number): string {
  return call.id ?? call.step_id ?? `#${index}${call.line === null ? "" : ` (line ${call.line})`}`;
}

function setString(values: readonly string[]): string {
  return JSON.stringify([...new Set(values)].sort());
}

/**
 * Pairs receipt calls with replay calls and adds the rows. A receipt call with an `id` is matched
 * by `id` when the replay's calls carry ids, else one with a `step_id` by `step_id` when the
 * replay's carry step ids, each with the first replay call of that key; a keyed call with no
 * replay call of that key (or whose call an earlier receipt call took) is missing. Calls without
 * a usable key are paired in order with the replay calls left over. Rows: per pair `tool`,
 * `params_hash`, `output_hash`, `ok`, `side_effects` (keyed pairs in receipt order, then the
 * others); a `tool_call` row per receipt call missing in the replay (receipt order), then per
 * replay call missing in the receipt (replay order).
 *
 * Give it the replay's calls in order (`call`, `result`), then `finish`. A replay call can be
 * paired only if it is the first with a key the receipt lists, or one of the first n others,
 * where n is how many receipt calls may still end up without a usable key (paired in order):
 * those are kept. Every later call is missing in the receipt, whatever comes after, and only the
 * first `MAX_ROWS` of them are kept for their rows (more would never be listed: the rest are
 * counted).
 */
export class ToolCallMatcher implements ToolCallSink {
  private readonly ids: ReadonlySet<string>;
  private readonly steps: ReadonlySet<string>;
  private readonly firstById = new Map<string, number>();
  private readonly firstByStep = new Map<string, number>();
  /** Replay calls that may still be paired, by position, in order. */
  private readonly kept = new Map<number, ToolCallRecord>();
  /** The same, by line, for their results. */
  private readonly keptByLine = new Map<number, ToolCallRecord>();
  /** The first of the calls that are surely missing in the receipt, by position. */
  private readonly surplus: [ToolCallRecord, number][] = [];
  private surplusCount = 0;
  /** Calls not kept as the first with a receipt key. */
  private others = 0;
  private count = 0;
  private hasIds = false;
  private hasSteps = false;
  /** Receipt calls by the keys they carry: neither, a step id only, an id only, both. */
  private readonly carrying = { neither: 0, step: 0, id: 0, both: 0 };
  /** How many receipt calls may still be paired in order (see `unkeyedAtMost`). */
  private unkeyed: number;

  constructor(private readonly receiptCalls: readonly ReceiptToolCall[]) {
    this.ids = new Set(receiptCalls.flatMap((c) => (c.id === null ? [] : [c.id])));
    this.steps = new Set(receiptCalls.flatMap((c) => (c.step_id === null ? [] : [c.step_id])));
    for (const c of receiptCalls) {
      if (c.id === null) this.carrying[c.step_id === null ? "neither" : "step"]++;
      else this.carrying[c.step_id === null ? "id" : "both"]++;
    }
    this.unkeyed = this.unkeyedAtMost();
  }

  /**
   * Receipt calls that may end up without a usable key: an id is usable once a replay call had
   * one, a step id once a replay call had one, and those never become unusable again.
   */
  private unkeyedAtMost(): number {
    const c = this.carrying;
    const stepUnusable = this.hasSteps ? 0 : c.step;
    const idUnusable = this.hasIds ? 0 : c.id + (this.hasSteps ? 0 : c.both);
    return c.neither + stepUnusable + idUnusable;
  }

  /** Replay calls held (for tests that hold memory to the receipt's size). */
  get held(): number {
    return this.kept.size + this.surplus.length;
  }

  call(record: ToolCallRecord): void {
    const k = this.count++;
    const { id, step_id: step } = record;
    let first = false;
    if ((id !== null && !this.hasIds) || (step !== null && !this.hasSteps)) {
      this.hasIds ||= id !== null;
      this.hasSteps ||= step !== null;
      this.unkeyed = this.unkeyedAtMost();
    }
    if (id !== null) {
      if (this.ids.has(id) && !this.firstById.has(id)) {
        this.firstById.set(id, k);
        first = true;
      }
    }
    if (step !== null) {
      if (this.steps.has(step) && !this.firstByStep.has(step)) {
        this.firstByStep.set(step, k);
        first = true;
      }
    }
    if (!first && this.others++ >= this.unkeyed) {
      // Enough calls before it to pair with every receipt call paired in order: it is left over.
      this.surplusCount++;
      if (this.surplus.length < MAX_ROWS) this.surplus.push([record, k]);
      return;
    }
    this.kept.set(k, record);
    if (record.line !== null) this.keptByLine.set(record.line, record);
  }

  result(line: number, fields: ToolResultFields): void {
    const record = this.keptByLine.get(line);
    if (record !== undefined) fillResult(record, fields);
  }

  /** Pairs what was given and adds the rows to `findings`. */
  finish(findings: Findings): void {
    const used = new Set<number>();
    const pairs: [ReceiptToolCall, ToolCallRecord, number][] = [];
    const missingInReplay: ReceiptToolCall[] = [];
    const unkeyed: ReceiptToolCall[] = [];
    for (const call of this.receiptCalls) {
      let index: number | undefined;
      let keyed = false;
      if (call.id !== null && this.hasIds) {
        keyed = true;
        index = this.firstById.get(call.id);
      } else if (call.step_id !== null && this.hasSteps) {
        keyed = true;
        index = this.firstByStep.get(call.step_id);
      }
      if (!keyed) {
        unkeyed.push(call);
      } else if (index === undefined || used.has(index)) {
        missingInReplay.push(call);
      } else {
        used.add(index);
        pairs.push([call, this.kept.get(index) as ToolCallRecord, index]);
      }
    }
    // Map order is insertion order: the kept calls in replay order.
    const rest = [...this.kept].filter(([k]) => !used.has(k));
    let next = 0;
    for (const call of unkeyed) {
      const replay = rest[next++];
      if (replay === undefined) missingInReplay.push(call);
      else pairs.push([call, replay[1], replay[0]]);
    }
    missingInReplay.sort((a, b) => a.index - b.index);
    for (const [rc, call, k] of pairs) pairRows(findings, rc, call, k);
    for (const rc of missingInReplay) {
      findings.check({
        check: "tool_call",
        subject: `tool call ${receiptCallName(rc)} (receipt #${rc.index})`,
        expected: `${rc.tool ?? "(no tool)"} ${receiptCallName(rc)}`,
        actual: MISSING_IN_REPLAY,
        status: "failed",
      });
    }
    const left = rest.slice(next);
    let s = 0;
    for (let r = 0; r < left.length || s < this.surplus.length; ) {
      const kept = left[r];
      const more = this.surplus[s];
      if (more === undefined || (kept !== undefined && kept[0] < more[1])) {
        const [k, call] = kept as [number, ToolCallRecord];
        missingRow(findings, call, k);
        r++;
      } else {
        missingRow(findings, more[0], more[1]);
        s++;
      }
    }
    findings.countUnlisted("failed", this.surplusCount - this.surplus.length);
  }
}

/** The rows comparing one receipt call with the replay call it was paired with. */
function pairRows(findings: Findings, rc: ReceiptToolCall, call: ToolCallRecord, k: number): void {
  const subject = `tool call ${receiptCallName(rc)} (receipt #${rc.index}, replay ${replayCallName(call, k)})`;
  compareValues(findings, "tool", subject, rc.tool, call.tool);
  compareValues(findings, "params_hash", subject, rc.params_hash, call.params_hash);
  compareValues(findings, "output_hash", subject, rc.output_hash, call.output_hash);
  if (rc.ok !== null)
    compareValues(findings, "ok", subject, String(rc.ok), call.ok === null ? null : String(call.ok));
  if (rc.side_effects !== null) {
    compareValues(
      findings,
      "side_effects",
      subject,
      setString(rc.side_effects),
      setString(call.side_effects.map(normalizeReplaySideEffect)),
    );
  }
}

/** The row of a replay call (`k`th) the receipt does not list. */
function missingRow(findings: Findings, call: ToolCallRecord, k: number): void {
  findings.check({
    check: "tool_call",
    subject: `tool call ${replayCallName(call, k)} (replay #${k})`,
    expected: MISSING_IN_RECEIPT,
    actual: `${call.tool ?? "(no tool)"} ${replayCallName(call, k)}`,
    status: "failed",
  });
}
