/**
 * Whether a session has settled: every readable replay checked against every readable receipt,
 * each at the version recorded now. A receipt's record is written before it checks the session's
 * replays, so a verdict read as soon as that record exists misses the checks still to come.
 */
import type { FileRecord, ObjectRef, ReceiptCheckRecord } from "./ports.js";

/** A session's receipt checks against what its records call for. */
export interface Settlement {
  /** True when every (replay, receipt) pair of the recorded versions has a check. */
  settled: boolean;
  /** Pairs the records call for. */
  expected: number;
  /** Of them, pairs with a check recorded. */
  recorded: number;
  /** The checks of the recorded versions (a check of an older version of either file is left out). */
  current: ReceiptCheckRecord[];
}

const readable = (kind: FileRecord["kind"]) => (r: FileRecord) => r.kind === kind && r.verdict !== "invalid";

/** A key and its version as `isVersionOf` tells versions apart: version id, else ETag, else sequencer. */
function versionOf(ref: ObjectRef): string {
  const version =
    ref.versionId !== null
      ? `v:${ref.versionId}`
      : ref.etag !== null
        ? `e:${ref.etag}`
        : `s:${ref.sequencer}`;
  return JSON.stringify([ref.key, version]);
}

/** The settlement of a session from its file records and its receipt checks (any order). */
export function settlementOf(
  files: readonly FileRecord[],
  checks: readonly ReceiptCheckRecord[],
): Settlement {
  const replays = new Set(files.filter(readable("replay")).map((r) => versionOf(r.ref)));
  const receipts = new Set(files.filter(readable("receipt")).map((r) => versionOf(r.ref)));
  const current = checks.filter(
    (c) => replays.has(versionOf(c.replay)) && receipts.has(versionOf(c.receipt)),
  );
  const pairs = new Set(current.map((c) => `${versionOf(c.replay)}\n${versionOf(c.receipt)}`));
  const expected = replays.size * receipts.size;
  return { settled: pairs.size === expected, expected, recorded: pairs.size, current };
}
