import type { JsonValue } from "../canonical/index.js";
import {
  type CheckRow,
  type CheckStatus,
  type Finding,
  Findings,
  type FormatOptions,
  type InspectReport,
  type InspectResult,
  type Session,
  type Verdict,
} from "../formats/index.js";
import { compareValues, ToolCallMatcher } from "./match.js";
import { type Receipt, readReceipt, shapeName } from "./read.js";

/** The replay as `inspect(..., {keepToolCalls: true})` returns it. */
export type Inspected = Pick<InspectResult, "report" | "session">;

const MISSING_IN_REPLAY = "missing in replay";
const MISSING_IN_RECEIPT = "missing in receipt";

function notice(findings: Findings, code: string, path: string, message: string): void {
  findings.notice({ line: null, column: null, path, code, message });
}

/**
 * The tool call rows (see `ToolCallMatcher`). `matcher` was fed the replay's calls while it was
 * read; the calls its reader listed instead (`Session.tool_calls`) are given to it now.
 */
function verifyToolCalls(
  receipt: Receipt,
  session: Session,
  findings: Findings,
  matcher: ToolCallMatcher | undefined,
): void {
  if (receipt.tool_calls === null) {
    notice(
      findings,
      "receipt.no_tool_calls",
      "$.tool_calls",
      "the receipt lists no tool_calls; none compared",
    );
    return;
  }
  const calls = matcher ?? new ToolCallMatcher(receipt.tool_calls);
  for (const call of session.tool_calls) calls.call(call);
  calls.finish(findings);
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
  const unmatched = pairByCommand(receipt.verification, replay, used, findings);
  pairInOrder(receipt.verification, replay, unmatched, used, session.original !== undefined, findings);
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

type ReceiptVerifications = NonNullable<Receipt["verification"]>;
type ReplayVerifications = Session["summary"]["verification"];

/**
 * Pairs each receipt entry with the first unused replay entry of the same command, marking it in
 * `used`, and compares their exit codes; returns the receipt entries left without a pair.
 */
function pairByCommand(
  receipt: ReceiptVerifications,
  replay: ReplayVerifications,
  used: Set<number>,
  findings: Findings,
): number[] {
  const unmatched: number[] = [];
  receipt.forEach((v, i) => {
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
  return unmatched;
}

// A Layer C copy scrubs commands (paranoid replaces them) and may drop what it cannot vouch for:
// the rest pair up in order, the text unverifiable, the exit code still compared; what is left
// over cannot be told apart from a dropped entry, so it is unverifiable rather than failed.
function pairInOrder(
  receipt: ReceiptVerifications,
  replay: ReplayVerifications,
  unmatched: readonly number[],
  used: Set<number>,
  copy: boolean,
  findings: Findings,
): void {
  const leftover = copy ? replay.map((_, k) => k).filter((k) => !used.has(k)) : [];
  for (const i of unmatched) {
    const v = receipt[i];
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
function verifyReceipt(
  receipt: Receipt,
  inspected: Inspected,
  findings: Findings,
  matcher?: ToolCallMatcher,
): void {
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
    verifyToolCalls(receipt, session, findings, matcher);
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

/** What `beginVerify` and `verifyReplay` take beside the receipt. */
export interface VerifyOptions {
  /** A receipt was given but could not be read (its errors are in `findings` already). */
  receiptUnreadable?: boolean;
}

/**
 * A receipt check begun before its replay is read: read the replay with `readOptions` (they feed
 * the replay's tool calls to the check as they come, or keep none when none are compared), then
 * `end` it once.
 */
export interface ReceiptCheck {
  readonly readOptions: Required<Pick<FormatOptions, "keepToolCalls">> & Pick<FormatOptions, "toolCalls">;
  end(inspected: Inspected): VerifyReport;
}

/**
 * Reads the receipt (`receiptValue`, null when none was given) into `findings` and begins its
 * check of a replay not read yet: the replay's tool calls are matched while they are read, so a
 * replay of millions of calls is checked in memory bounded by the receipt. See `verifyReplay`.
 */
export function beginVerify(
  receiptValue: JsonValue | null,
  findings = new Findings(),
  options: VerifyOptions = {},
): ReceiptCheck {
  let receipt: Receipt | null = null;
  if (receiptValue !== null) {
    receipt = readReceipt(receiptValue, findings);
  } else if (options.receiptUnreadable !== true) {
    findings.check({
      check: "receipt",
      subject: "RECEIPT.json",
      expected: "a receipt for this replay",
      actual: "no receipt given",
      status: "unverifiable",
    });
  }
  const calls = receipt?.tool_calls;
  const matcher = calls === null || calls === undefined ? undefined : new ToolCallMatcher(calls);
  return {
    readOptions:
      matcher === undefined ? { keepToolCalls: false } : { keepToolCalls: true, toolCalls: matcher },
    end(inspected: Inspected): VerifyReport {
      if (receipt !== null) verifyReceipt(receipt, inspected, findings, matcher);
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
    },
  };
}

/**
 * Verifies a replay (read with its tool calls) against its receipt. `receiptValue` null means no
 * receipt was given: one unverifiable `receipt` row, never passed (pass `receiptUnreadable` when a
 * receipt was given but could not be read, its errors already in `findings`). The verdict
 * combines the replay's own verdict and the receipt's: invalid if either is invalid (receipt
 * errors included), failed if any row failed, unverifiable if any row could not be evaluated,
 * else passed.
 */
export function verifyReplay(
  inspected: Inspected,
  receiptValue: JsonValue | null,
  findings = new Findings(),
  options: VerifyOptions = {},
): VerifyReport {
  return beginVerify(receiptValue, findings, options).end(inspected);
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
