import type { JsonValue } from "../canonical/index.js";
import { type CheckRow, type LayerCOrigin, MAX_FAILED_KEPT, type Verdict } from "./types.js";
import { member, numberOf, stringMember } from "./validate.js";

export type { LayerCOrigin };

const VERDICTS: ReadonlySet<string> = new Set(["passed", "failed", "unverifiable", "invalid"]);
const HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * The `original` of a redaction record (a ReplayHeader's `redaction`, a `metadata.redaction`), or
 * null when `record` is not one of ours or lacks it. Read leniently: it is a claim the copy makes,
 * shown as such, never a check of its own.
 */
export function layerCOriginOf(record: JsonValue | undefined): LayerCOrigin | null {
  if (stringMember(record, "layer") !== "C") return null;
  const original = member(record, "original");
  const replayHash = stringMember(original, "replay_hash");
  const verdict = stringMember(original, "verdict");
  const totals = member(original, "checks_total");
  const count = (key: string): number | null => numberOf(member(totals, key));
  const passed = count("passed");
  const failed = count("failed");
  const unverifiable = count("unverifiable");
  const errors = numberOf(member(original, "errors_total"));
  if (replayHash === null || !HASH.test(replayHash) || verdict === null || !VERDICTS.has(verdict))
    return null;
  if (passed === null || failed === null || unverifiable === null || errors === null) return null;
  const failedChecks = failedRowsOf(member(original, "failed_checks"));
  return {
    replay_hash: replayHash,
    verdict: verdict as Verdict,
    checks_total: { passed, failed, unverifiable },
    errors_total: errors,
    ...(failedChecks.length === 0 ? {} : { failed_checks: failedChecks }),
  };
}

/** The well-formed failed rows of a record's `failed_checks` (others are left out, not guessed). */
function failedRowsOf(rows: JsonValue | undefined): CheckRow[] {
  if (!Array.isArray(rows)) return [];
  const out: CheckRow[] = [];
  for (const row of rows.slice(0, MAX_FAILED_KEPT)) {
    const check = stringMember(row, "check");
    const subject = stringMember(row, "subject");
    if (check === null || subject === null) continue;
    out.push({
      check,
      subject,
      expected: stringMember(row, "expected"),
      actual: stringMember(row, "actual"),
      status: "failed",
    });
  }
  return out;
}
