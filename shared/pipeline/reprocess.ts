/**
 * Reprocessing when rules change: which records a run selects (filters, staleness), the manifest
 * item of each, what re-running one changed, and the run's report. Pure, over the ports: the CLI,
 * the local stack and the Step Functions item handler share it.
 */
import type { Verdict } from "../formats/index.js";
import type { FileRecord, Publisher, PutOutcome } from "./ports.js";

/** Which records a reprocess run selects. */
export interface ReprocessFilter {
  /** `processed_at` from this time on (ISO-8601), included. */
  since: string;
  /** `processed_at` before this time (ISO-8601), excluded. */
  until: string;
  /** Only records of these verdicts; empty or absent: any. */
  verdicts?: readonly Verdict[];
  /** Only records made by other rules than `rulesDigest` (or by unknown rules: no provenance). */
  stale?: boolean;
  /** The digest of the running rules (`rulesDigest`), what `stale` compares with. */
  rulesDigest: string;
}

/**
 * Whether `filter` selects `record`. A rejected key is never selected: its record is filed under
 * its scrubbed key, not the object's, and key rules are checked at upload.
 */
export function selects(record: FileRecord, filter: ReprocessFilter): boolean {
  if (record.kind === "rejected") return false;
  if (record.processed_at < filter.since || record.processed_at >= filter.until) return false;
  if (
    filter.verdicts !== undefined &&
    filter.verdicts.length > 0 &&
    !filter.verdicts.includes(record.verdict)
  )
    return false;
  return filter.stale !== true || isStale(record, filter.rulesDigest);
}

/** Whether other rules than `rulesDigest` made `record` (a record without provenance: unknown ones). */
export function isStale(record: Pick<FileRecord, "provenance">, rulesDigest: string): boolean {
  return record.provenance?.rules_digest !== rulesDigest;
}

/** One object of a run's manifest: the version its record names. */
export interface ReprocessItem {
  key: string;
  tenant: string;
  session: string;
  version_id: string | null;
  etag: string | null;
}

/** The manifest item of a selected record. */
export function itemOf(record: FileRecord): ReprocessItem {
  return {
    key: record.ref.key,
    tenant: record.tenant,
    session: record.session,
    version_id: record.ref.versionId,
    etag: record.ref.etag,
  };
}

/** A run's manifest: what `reprocess/<run-id>/manifest.json` holds (a JSON array for the map's reader). */
export function manifestKey(runId: string): string {
  return `reprocess/${runId}/manifest.json`;
}

/** Why a published copy was withdrawn by a reprocess. */
type WithdrawReason = "now-fails" | "redacts-more";

/** What re-running one object changed. */
export interface ReprocessChange {
  key: string;
  /** `written`: replaced now; `duplicate`: this run had replaced it already; `stale`: a newer version is recorded. */
  outcome: PutOutcome;
  verdict_before: Verdict;
  verdict_after: Verdict;
  /** A copy was published again (a new version of the same key); false when the same bytes were kept. */
  republished: boolean;
  /** The old copy was withdrawn (from the bucket and the CDN's cache), and why; null when not. */
  withdrawn: WithdrawReason | null;
}

/** Whether `after` replaced anything more than `before` did, rule by rule. */
function redactsMore(
  before: Readonly<Record<string, number>> | null,
  after: Readonly<Record<string, number>>,
): boolean {
  return Object.entries(after).some(([rule, n]) => n > (before?.[rule] ?? 0));
}

/**
 * What replacing `before` with `after` (the same version, new rules) changed; `kept`: the copy
 * published before was kept, the new rules making the same bytes.
 */
export function changeOf(
  before: FileRecord,
  after: FileRecord,
  outcome: PutOutcome,
  kept = false,
): ReprocessChange {
  const written = outcome === "written";
  const had = before.layer_c_key !== null;
  const has = after.layer_c_key !== null;
  let withdrawn: WithdrawReason | null = null;
  if (written && had && !has) withdrawn = "now-fails";
  else if (written && had && has && redactsMore(before.redactions, after.redactions ?? {}))
    withdrawn = "redacts-more";
  return {
    key: before.ref.key,
    outcome,
    verdict_before: before.verdict,
    verdict_after: written ? after.verdict : before.verdict,
    republished: written && has && !kept,
    withdrawn,
  };
}

/**
 * In reprocess mode (`previous` set), withdraws the copy `previous` published when the new rules
 * publish none (`next` null) or redact more than it (`next` gives the new counts by rule; when they
 * are not known yet, the copy is withdrawn: fail closed). Outside reprocess mode, nothing.
 */
export async function withdrawReplaced(
  publisher: Pick<Publisher, "withdrawCopy">,
  previous: FileRecord | null,
  next: (() => Record<string, number>) | null,
): Promise<void> {
  if (previous === null || previous.layer_c_key === null) return;
  if (next !== null) {
    let counts: Record<string, number> | null = null;
    try {
      counts = next();
    } catch {
      counts = null;
    }
    if (counts !== null && !redactsMore(previous.redactions, counts)) return;
  }
  await publisher.withdrawCopy(previous.layer_c_key);
}

/** The report of a run: counts, and the keys that changed (up to `REPORT_KEYS` of each). */
export interface ReprocessReport {
  run_id: string;
  rules_digest: string;
  selected: number;
  /** Replaced by this invocation. */
  processed: number;
  /** Replaced by an earlier try of the same run (a resumed run skips them). */
  already_done: number;
  /** A newer version of the key is recorded: nothing to reprocess. */
  superseded: number;
  /** Selected but not reached (a stopped run): resume it with the same `--run-id`. */
  remaining: number;
  verdicts_changed: { key: string; from: Verdict; to: Verdict }[];
  republished: number;
  withdrawn: { key: string; reason: WithdrawReason }[];
  /** Per-object faults (the object stays selected for a resumed run). */
  failed: { key: string; error: string }[];
}

/** Keys listed per change kind in a report; the counts are always whole. */
const REPORT_KEYS = 1000;

/** The report of `changes` (and `failed`) out of `selected` items. */
export function reportOf(
  runId: string,
  rulesDigest: string,
  selected: number,
  changes: readonly ReprocessChange[],
  failed: ReprocessReport["failed"] = [],
): ReprocessReport {
  const by = (o: PutOutcome) => changes.filter((c) => c.outcome === o).length;
  const changed = changes.filter((c) => c.verdict_before !== c.verdict_after);
  const withdrawn = changes.filter((c) => c.withdrawn !== null);
  return {
    run_id: runId,
    rules_digest: rulesDigest,
    selected,
    processed: by("written"),
    already_done: by("duplicate"),
    superseded: by("stale"),
    remaining: Math.max(0, selected - changes.length - failed.length),
    verdicts_changed: changed
      .slice(0, REPORT_KEYS)
      .map((c) => ({ key: c.key, from: c.verdict_before, to: c.verdict_after })),
    republished: changes.filter((c) => c.republished).length,
    withdrawn: withdrawn
      .slice(0, REPORT_KEYS)
      .map((c) => ({ key: c.key, reason: c.withdrawn as WithdrawReason })),
    failed: failed.slice(0, REPORT_KEYS),
  };
}
