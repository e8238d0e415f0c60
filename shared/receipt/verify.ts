import type { JsonValue } from "../canonical/index.js";
import {
  type CheckRow,
  type CheckStatus,
  type Finding,
  Findings,
  type InspectReport,
  type InspectResult,
  type Session,
  type ToolCallRecord,
  type Verdict,
} from "../formats/index.js";
import {
  normalizeReplaySideEffect,
  type Receipt,
  type ReceiptToolCall,
  readReceipt,
  shapeName,
} from "./read.js";

/** The replay as `inspect(..., {keepToolCalls: true})` returns it. */
export type Inspected = Pick<InspectResult, "report" | "session">;

const MISSING_IN_REPLAY = "missing in replay";
const MISSING_IN_RECEIPT = "missing in receipt";

/** Adds a row comparing two optional values; null on both sides adds nothing (notice). */
function compareValues(
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

/** A value Layer C replaced whole: `[REDACTED]` (ReplayKit's mask, `paranoid`) or `[REDACTED:<rule>…]`. */
const MASKED = /^\[REDACTED(?::[A-Za-z0-9-]+(?::[0-9a-f]{8})?)?\]$/;

function notice(findings: Findings, code: string, path: string, message: string): void {
  findings.notice({ line: null, column: null, path, code, message });
}

/** How a call is named in rows: its id, else its step_id, else its position. */
function receiptCallName(call: ReceiptToolCall): string {
  return call.id ?? call.step_id ?? `#${call.index}`;
}

function replayCallName(call: ToolCallRecord, index: number): string {
  return call.id ?? call.step_id ?? `#${index}${call.line === null ? "" : ` (line ${call.line})`}`;
}

/**
 * Pairs receipt calls with replay calls. A receipt call with an `id` is matched by `id` when the
 * replay's calls carry ids, else one with a `step_id` by `step_id` when the replay's carry step
 * ids; a keyed call with no replay call of that key is missing. Calls without a usable key are
 * paired in order with the replay calls left over.
 */
export function matchToolCalls(
  receiptCalls: readonly ReceiptToolCall[],
  replayCalls: readonly ToolCallRecord[],
): {
  pairs: [ReceiptToolCall, ToolCallRecord, number][];
  missingInReplay: ReceiptToolCall[];
  missingInReceipt: [ToolCallRecord, number][];
} {
  const byId = new Map<string, number>();
  const byStep = new Map<string, number>();
  replayCalls.forEach((c, k) => {
    if (c.id !== null && !byId.has(c.id)) byId.set(c.id, k);
    if (c.step_id !== null && !byStep.has(c.step_id)) byStep.set(c.step_id, k);
  });
  const used = new Set<number>();
  const pairs: [ReceiptToolCall, ToolCallRecord, number][] = [];
  const missingInReplay: ReceiptToolCall[] = [];
  const unkeyed: ReceiptToolCall[] = [];
  for (const call of receiptCalls) {
    let index: number | undefined;
    let keyed = false;
    if (call.id !== null && byId.size > 0) {
      keyed = true;
      index = byId.get(call.id);
    } else if (call.step_id !== null && byStep.size > 0) {
      keyed = true;
      index = byStep.get(call.step_id);
    }
    if (!keyed) {
      unkeyed.push(call);
    } else if (index === undefined || used.has(index)) {
      missingInReplay.push(call);
    } else {
      used.add(index);
      pairs.push([call, replayCalls[index] as ToolCallRecord, index]);
    }
  }
  const rest = replayCalls.map((c, k) => [c, k] as [ToolCallRecord, number]).filter(([, k]) => !used.has(k));
  let next = 0;
  for (const call of unkeyed) {
    const replay = rest[next++];
    if (replay === undefined) missingInReplay.push(call);
    else pairs.push([call, replay[0], replay[1]]);
  }
  missingInReplay.sort((a, b) => a.index - b.index);
  const missingInReceipt = rest.slice(next);
  return { pairs, missingInReplay, missingInReceipt };
}

function setString(values: readonly string[]): string {
  return JSON.stringify([...new Set(values)].sort());
}

function verifyToolCalls(receipt: Receipt, session: Session, findings: Findings): void {
  if (receipt.tool_calls === null) {
    notice(
      findings,
      "receipt.no_tool_calls",
      "$.tool_calls",
      "the receipt lists no tool_calls; none compared",
    );
    return;
  }
  const { pairs, missingInReplay, missingInReceipt } = matchToolCalls(receipt.tool_calls, session.tool_calls);
  for (const [rc, call, k] of pairs) {
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
  for (const rc of missingInReplay) {
    findings.check({
      check: "tool_call",
      subject: `tool call ${receiptCallName(rc)} (receipt #${rc.index})`,
      expected: `${rc.tool ?? "(no tool)"} ${receiptCallName(rc)}`,
      actual: MISSING_IN_REPLAY,
      status: "failed",
    });
  }
  for (const [call, k] of missingInReceipt) {
    findings.check({
      check: "tool_call",
      subject: `tool call ${replayCallName(call, k)} (replay #${k})`,
      expected: MISSING_IN_RECEIPT,
      actual: `${call.tool ?? "(no tool)"} ${replayCallName(call, k)}`,
      status: "failed",
    });
  }
}

function verifyVerification(receipt: Receipt, session: Session, findings: Findings): void {
  if (receipt.verification === null) {
    notice(
      findings,
      "receipt.no_verification",
      "$.verification",
      "the receipt lists no verification; none compared",
    );
    return;
  }
  const replay = session.summary.verification;
  const used = new Set<number>();
  const unmatched: number[] = [];
  receipt.verification.forEach((v, i) => {
    const k = replay.findIndex((r, j) => !used.has(j) && r.command === v.command);
    if (k < 0) {
      unmatched.push(i);
      return;
    }
    used.add(k);
    const r = replay[k];
    const subject = `verification ${JSON.stringify(v.command)} (receipt #${i}, replay #${k})`;
    findings.check({
      check: "verification.command",
      subject,
      expected: v.command,
      actual: r?.command ?? null,
      status: "passed",
    });
    compareValues(
      findings,
      "verification.exit_code",
      subject,
      v.exit_code === null ? null : String(v.exit_code),
      r?.exit_code === null || r?.exit_code === undefined ? null : String(r.exit_code),
    );
  });
  // A Layer C copy scrubs commands (paranoid replaces them) and may drop what it cannot vouch for:
  // the rest pair up in order, the text unverifiable, the exit code still compared; what is left
  // over cannot be told apart from a dropped entry, so it is unverifiable rather than failed.
  const copy = session.original !== undefined;
  const leftover = copy ? replay.map((_, k) => k).filter((k) => !used.has(k)) : [];
  for (const i of unmatched) {
    const v = receipt.verification[i];
    const k = leftover.shift();
    if (k !== undefined) {
      used.add(k);
      const r = replay[k];
      const subject = `verification receipt #${i}, replay #${k} (paired in order: the Layer C copy rewrote the command)`;
      findings.check({
        check: "verification.command",
        subject,
        expected: v?.command ?? null,
        actual: r?.command ?? null,
        status: "unverifiable",
      });
      compareValues(
        findings,
        "verification.exit_code",
        subject,
        v?.exit_code === null || v?.exit_code === undefined ? null : String(v.exit_code),
        r?.exit_code === null || r?.exit_code === undefined ? null : String(r.exit_code),
      );
      continue;
    }
    findings.check({
      check: "verification.command",
      subject: `verification receipt #${i}${copy ? " (not in the Layer C copy)" : ""}`,
      expected: v?.command ?? null,
      actual: MISSING_IN_REPLAY,
      status: copy ? "unverifiable" : "failed",
    });
  }
  replay.forEach((r, k) => {
    if (used.has(k)) return;
    findings.check({
      check: "verification.command",
      subject: `verification replay #${k}`,
      expected: MISSING_IN_RECEIPT,
      actual: r.command,
      status: "failed",
    });
  });
}

/**
 * The `trajectory_hash` row. A value recomputed from partial runtime events (the lines leave out
 * members the runtime hashed, see InspectReport.trajectory_hash_gap) that differs from the
 * receipt's proves nothing: unverifiable, with the reason. An equal one passes: it could not be
 * equal unless the members left out were what the recomputation assumed (null, `{}`).
 */
function verifyTrajectory(expected: string, report: InspectReport, findings: Findings): void {
  const actual = report.trajectory_hash;
  if (actual === null) {
    findings.check({
      check: "trajectory_hash",
      subject: "runtime events (the replay carries no runtime events)",
      expected,
      actual: null,
      status: "unverifiable",
    });
  } else if (report.trajectory_hash_gap !== null && actual !== expected) {
    findings.check({
      check: "trajectory_hash",
      subject: `runtime events (partial: ${report.trajectory_hash_gap})`,
      expected,
      actual,
      status: "unverifiable",
    });
  } else {
    findings.compare("trajectory_hash", "runtime events", expected, actual);
  }
}

/**
 * Compares a read receipt (expected) with the inspected replay (actual), adding rows to
 * `findings`: `replay_hash`; `trajectory_hash` (unverifiable when the replay carries no runtime
 * events, or only partial ones that give another value); `session_id`; per matched tool call `tool`, `params_hash`, `output_hash`, `ok`,
 * `side_effects` (sets of strings); `tool_call` rows for calls missing on either side;
 * `verification.command`/`verification.exit_code` matched by command text; and an unverifiable
 * `signature` row when the receipt is signed (no receipt signing scheme is specified).
 */
export function verifyReceipt(receipt: Receipt, inspected: Inspected, findings: Findings): void {
  const { report, session } = inspected;
  if (receipt.replay_hash !== null) {
    // A Layer C copy's bytes are not the original's: its record names the original's hash.
    const original = session?.original;
    if (original === undefined)
      findings.compare("replay_hash", "replay bytes", receipt.replay_hash, report.replay_hash);
    else
      findings.compare(
        "replay_hash",
        "original's replay bytes (taken from the Layer C copy's record, not recomputed)",
        receipt.replay_hash,
        original.replay_hash,
      );
  } else {
    notice(
      findings,
      "receipt.no_replay_hash",
      "$.replay_hash",
      "the receipt has no replay_hash (ADR-0003); the replay's bytes are not bound to it",
    );
  }
  if (receipt.trajectory_hash !== null) verifyTrajectory(receipt.trajectory_hash, report, findings);
  if (receipt.session_id !== null)
    compareValues(findings, "session_id", "session", receipt.session_id, session?.summary.session_id ?? null);
  if (receipt.policy_bundle_id !== null) {
    const replayPolicy = session?.summary.policy_bundle_id ?? null;
    // A value the replay's format does not record is a notice, not a row (DESIGN.md).
    if (replayPolicy === null)
      notice(
        findings,
        "receipt.policy_not_compared",
        "$.policy_bundle_id",
        "the replay does not record policy_bundle_id; not compared",
      );
    else compareValues(findings, "policy_bundle_id", "session", receipt.policy_bundle_id, replayPolicy);
  }
  if (session !== null) {
    verifyToolCalls(receipt, session, findings);
    verifyVerification(receipt, session, findings);
  }
  if (receipt.signature !== undefined && receipt.signature !== null) {
    findings.check({
      check: "signature",
      subject: "receipt (no signing scheme or key is specified for receipts)",
      expected: signatureText(receipt.signature),
      actual: null,
      status: "unverifiable",
    });
  }
}

function signatureText(signature: JsonValue): string {
  const text = typeof signature === "string" ? signature : JSON.stringify(signature);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The `verify --json` object. */
export interface VerifyReport {
  verdict: Verdict;
  /** The replay's own inspect report. */
  replay: InspectReport;
  /** `openagents.receipt.v1`, `session-receipt`, `adr0003` (`+replay_hash` when also carried), or null. */
  receipt_shape: string | null;
  /** The receipt rows (the replay's own rows are in `replay.checks`). */
  checks: CheckRow[];
  checks_total: Record<CheckStatus, number>;
  errors: Finding[];
  errors_total: number;
  notices: Finding[];
}

/**
 * Verifies a replay against its receipt. `receiptValue` null means no receipt was given: one
 * unverifiable `receipt` row, never passed (pass `receiptUnreadable` when a receipt was given
 * but could not be read, its errors already in `findings`). The verdict combines the replay's own
 * verdict and the receipt's: invalid if either is invalid (receipt errors included), failed if
 * any row failed, unverifiable if any row could not be evaluated, else passed.
 */
export function verifyReplay(
  inspected: Inspected,
  receiptValue: JsonValue | null,
  findings = new Findings(),
  options: { receiptUnreadable?: boolean } = {},
): VerifyReport {
  let receipt: Receipt | null = null;
  if (receiptValue !== null) {
    receipt = readReceipt(receiptValue, findings);
    if (receipt !== null) verifyReceipt(receipt, inspected, findings);
  } else if (options.receiptUnreadable !== true) {
    findings.check({
      check: "receipt",
      subject: "RECEIPT.json",
      expected: "a receipt for this replay",
      actual: "no receipt given",
      status: "unverifiable",
    });
  }
  return {
    verdict: combinedVerdict(inspected.report, findings),
    replay: inspected.report,
    receipt_shape: receipt === null ? null : shapeName(receipt),
    checks: findings.checks,
    checks_total: { ...findings.checkCounts },
    errors: findings.errors,
    errors_total: findings.errorCount,
    notices: findings.notices,
  };
}

/**
 * The verify verdict from the replay's report and the receipt findings: invalid if either is
 * invalid (receipt errors included), failed if any row failed, unverifiable if any row could not be
 * evaluated or neither side has a row, else passed. The replay's own "nothing to recompute" does not
 * make the whole unverifiable when the receipt's rows checked it.
 */
export function combinedVerdict(
  replay: Pick<InspectReport, "verdict" | "checks_total">,
  findings: Findings,
): Verdict {
  if (replay.verdict === "invalid" || findings.errorCount > 0) return "invalid";
  const own = replay.checks_total;
  const receipt = findings.checkCounts;
  if (own.failed + receipt.failed > 0) return "failed";
  if (own.unverifiable + receipt.unverifiable > 0) return "unverifiable";
  return own.passed + receipt.passed > 0 ? "passed" : "unverifiable";
}
