/** Which version of an object's bytes is newer: what makes every index write idempotent. */
import type { FileRecord, ObjectRef, PutOutcome } from "./ports.js";

/** Compares two sequencers as S3 does: the shorter padded with zeros on the left, then as text. */
function compareSequencers(a: string, b: string): number {
  const width = Math.max(a.length, b.length);
  const x = a.toUpperCase().padStart(width, "0");
  const y = b.toUpperCase().padStart(width, "0");
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * What a conditional write of `next` over `current` does: `duplicate` for the same version of the
 * bytes, `stale` when `current` is newer by sequencer, else `written`.
 */
export function putOutcome(current: ObjectRef | null | undefined, next: ObjectRef): PutOutcome {
  if (current === null || current === undefined) return "written";
  const sameVersion =
    current.versionId !== null && next.versionId !== null
      ? current.versionId === next.versionId
      : current.etag === next.etag && current.sequencer === next.sequencer;
  if (sameVersion) return "duplicate";
  if (
    current.sequencer !== null &&
    next.sequencer !== null &&
    compareSequencers(next.sequencer, current.sequencer) < 0
  )
    return "stale";
  return "written";
}

/**
 * Whether `recorded` is the version `ref` names: the same version id when `ref` has one, else the
 * same ETag, else the same sequencer (what a withdrawal is conditional on).
 */
export function isVersionOf(recorded: ObjectRef, ref: ObjectRef): boolean {
  if (ref.versionId !== null) return recorded.versionId === ref.versionId;
  if (ref.etag !== null) return recorded.etag === ref.etag;
  return recorded.sequencer === ref.sequencer;
}

/**
 * What reprocess run `runId` does to `recorded` for `ref`: `written` when the record is of `ref`'s
 * version and the run has not replaced it yet, `duplicate` when it has, `stale` when the key has
 * no record or one of another version.
 */
export function reprocessOutcome(recorded: FileRecord | null, ref: ObjectRef, runId: string): PutOutcome {
  if (recorded === null || !isVersionOf(recorded.ref, ref)) return "stale";
  return recorded.reprocess_run === runId ? "duplicate" : "written";
}
