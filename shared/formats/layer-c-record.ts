import type { JsonValue } from "../canonical/index.js";
import type { LayerCOrigin, Verdict } from "./types.js";
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
  return {
    replay_hash: replayHash,
    verdict: verdict as Verdict,
    checks_total: { passed, failed, unverifiable },
    errors_total: errors,
  };
}
