import type { FormatId, Verdict } from "../formats/index.js";
import type { StepKind } from "../view/index.js";

/** A step as a diff names it. */
export interface StepRef {
  /** 1-based position in its session's timeline. */
  n: number;
  kind: StepKind;
  id: string | null;
  name: string;
}

/** One field that differs between two aligned steps (hash values are the recomputed ones when known). */
export interface FieldChange {
  field: string;
  a: string | null;
  b: string | null;
}

/** Two aligned steps and what differs; `fields` is empty for an entry that only moved. */
export interface ChangedStep {
  a: StepRef;
  b: StepRef;
  fields: FieldChange[];
}

/** One entry of the aligned timelines, in order. */
export type DiffEntry =
  | { op: "equal"; a: StepRef; b: StepRef }
  | { op: "changed"; a: StepRef; b: StepRef; fields: FieldChange[] }
  | { op: "removed"; a: StepRef }
  | { op: "added"; b: StepRef };

/** A side of the diff: the file and what its header says. */
export interface DiffSide {
  file: string;
  format: FormatId | null;
  /** The file's verdict; for a Layer C copy, its original's (a copy's own is never `passed`). */
  verdict: Verdict;
  replay_hash: string;
  layer_c: boolean;
  steps: number;
}

/** What `diffSessions` finds (the `diff --json` object, less the envelope). */
export interface SessionDiff {
  a: DiffSide;
  b: DiffSide;
  equal: boolean;
  /** How steps were paired: by call id (`ids` shared), then by kind, name and params hash. */
  alignment: { shared_ids: number; exact: boolean };
  /** Header fields that differ (verdict, session id); only failed or invalid on one side makes the sessions differ. */
  header: FieldChange[];
  /** The first entry that is not equal, with its position in each timeline. */
  first_divergence: DiffEntry | null;
  changed: ChangedStep[];
  added: StepRef[];
  removed: StepRef[];
  counts: { equal: number; changed: number; added: number; removed: number; moved: number };
  /** The aligned timelines, in order (for side-by-side rendering). */
  entries: DiffEntry[];
}
