import type { JsonValue } from "../canonical/index.js";
import type { CheckStatus, Verdict } from "./types.js";
import { member, numberOf, stringMember } from "./validate.js";

/**
 * What a Layer C copy (our `redact`) records of the file it was made from, in its redaction record
 * (`original`): that file's exact-bytes hash and its own `inspect` verdict. A copy has no raw
 * content left to recompute, so this is how it links to the original and its receipt, and why it
 * never reads as cleaner than the original.
 */
export interface LayerCOrigin {
  replay_hash: string;
  verdict: Verdict;
  checks_total: Record<CheckStatus, number>;
  errors_total: number;
}

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
