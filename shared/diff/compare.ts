/**
 * Two sessions of any formats compared step by step: steps paired by call id where both share one,
 * the rest by kind, name and params hash with a minimal-edit alignment (not by position); what
 * differs is what the hashes say, so two Layer C copies compare through the hashes they keep.
 */
import type { Verdict } from "../formats/index.js";
import type { SessionView, ViewStep } from "../view/index.js";
import { type AlignOptions, align } from "./align.js";
import type { ChangedStep, DiffEntry, DiffSide, FieldChange, SessionDiff, StepRef } from "./types.js";

/**
 * What is compared of a step: its kind, name and result status, and each hash by the value its
 * content gives (the recomputed one where a check row has it, else the recorded one). A ReplayKit
 * step of a Layer C copy is compared by its original's step hash, which the copy keeps. Durations
 * are not compared: they differ between any two runs.
 */
function fieldsOf(step: ViewStep): Map<string, string | null> {
  const fields = new Map<string, string | null>([
    ["kind", step.kind],
    ["name", step.name],
    ["status", step.status],
  ]);
  const original = step.hashes.find((h) => h.field === "original_step");
  for (const h of step.hashes) {
    if (h.field === "original_step") continue;
    const source = h.field === "step" && original !== undefined ? original : h;
    fields.set(h.field, source.actual ?? source.recorded);
  }
  return fields;
}

/** A step's key for the alignment: its id when both sides share it, else kind, name, params. */
function keyOf(step: ViewStep, shared: ReadonlySet<string>): string {
  if (step.id !== null && shared.has(step.id)) return `id\u0000${step.id}`;
  const fields = fieldsOf(step);
  const params =
    fields.get("params") ?? fields.get("step") ?? fields.get("payload") ?? fields.get("text") ?? "";
  return `k\u0000${step.kind}\u0000${step.name}\u0000${params}`;
}

/** Ids that occur exactly once on each side. */
function sharedIds(a: ViewStep[], b: ViewStep[]): Set<string> {
  const once = (steps: ViewStep[]): Set<string> => {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const s of steps) if (s.id !== null) (seen.has(s.id) ? twice : seen).add(s.id);
    for (const id of twice) seen.delete(id);
    return seen;
  };
  const inB = once(b);
  return new Set([...once(a)].filter((id) => inB.has(id)));
}

function refOf(step: ViewStep): StepRef {
  return { n: step.n, kind: step.kind, id: step.id, name: step.name };
}

function changesOf(a: ViewStep, b: ViewStep): FieldChange[] {
  const fa = fieldsOf(a);
  const fb = fieldsOf(b);
  const out: FieldChange[] = [];
  for (const field of new Set([...fa.keys(), ...fb.keys()])) {
    const x = fa.get(field) ?? null;
    const y = fb.get(field) ?? null;
    // A hash one side does not carry at all (a format without it) is not a difference.
    if (x !== y && !(isHash(field) && (x === null || y === null))) out.push({ field, a: x, b: y });
  }
  return out;
}

function isHash(field: string): boolean {
  return field !== "kind" && field !== "name" && field !== "status";
}

/**
 * A verdict that says the content does not hold together. Only this side of a verdict makes two
 * sessions differ: `passed` against `unverifiable` is a difference of formats (a ReplayBundle
 * carries no hash to check), not of what ran.
 */
function bad(verdict: Verdict): boolean {
  return verdict === "failed" || verdict === "invalid";
}

function sideOf(view: SessionView): DiffSide {
  return {
    file: view.file,
    format: view.format,
    verdict: view.original?.verdict ?? view.verdict,
    replay_hash: view.replay_hash,
    layer_c: view.original !== null,
    steps: view.steps.length,
  };
}

/** Compares `a` with `b` (see the module comment). */
export function diffSessions(a: SessionView, b: SessionView, options: AlignOptions = {}): SessionDiff {
  const shared = sharedIds(a.steps, b.steps);
  const alignment = align(
    a.steps.map((s) => keyOf(s, shared)),
    b.steps.map((s) => keyOf(s, shared)),
    options,
  );
  const entries = pairRuns(a.steps, b.steps, alignment.pairs, shared);
  const sa = sideOf(a);
  const sb = sideOf(b);
  const header: FieldChange[] = [];
  if (sa.verdict !== sb.verdict) header.push({ field: "verdict", a: sa.verdict, b: sb.verdict });
  if (a.session_id !== b.session_id) header.push({ field: "session_id", a: a.session_id, b: b.session_id });
  const changed: ChangedStep[] = [];
  const added: StepRef[] = [];
  const removed: StepRef[] = [];
  let equal = 0;
  let moved = 0;
  for (const e of entries) {
    if (e.op === "equal") equal++;
    else if (e.op === "changed") {
      changed.push({ a: e.a, b: e.b, fields: e.fields });
      if (e.fields.some((f) => f.field === "position")) moved++;
    } else if (e.op === "added") added.push(e.b);
    else removed.push(e.a);
  }
  const stepsDiffer = changed.length + added.length + removed.length > 0;
  return {
    a: sa,
    b: sb,
    equal: !stepsDiffer && bad(sa.verdict) === bad(sb.verdict),
    alignment: { shared_ids: shared.size, exact: alignment.exact },
    header,
    first_divergence: entries.find((e) => e.op !== "equal") ?? null,
    changed,
    added,
    removed,
    counts: { equal, changed: changed.length, added: added.length, removed: removed.length, moved },
    entries,
  };
}

/**
 * The entries from the alignment's pairs. Within each run of unpaired steps between two matches, a
 * removed and an added step that are the same step (the same shared id: it moved) or the same kind
 * and name (the same tool called with other params) become one changed entry; an id that moved
 * farther than its run is paired in a last pass over what is left, with a `position` change.
 */
function pairRuns(
  a: ViewStep[],
  b: ViewStep[],
  pairs: readonly (readonly [number, number])[],
  shared: ReadonlySet<string>,
): DiffEntry[] {
  const out: DiffEntry[] = [];
  let run: (readonly [number, number])[] = [];
  const flush = (): void => {
    if (run.length > 0) out.push(...pairRun(a, b, run));
    run = [];
  };
  for (const p of pairs) {
    if (p[0] >= 0 && p[1] >= 0) {
      flush();
      const x = a[p[0]] as ViewStep;
      const y = b[p[1]] as ViewStep;
      const fields = changesOf(x, y);
      out.push(
        fields.length === 0
          ? { op: "equal", a: refOf(x), b: refOf(y) }
          : { op: "changed", a: refOf(x), b: refOf(y), fields },
      );
    } else run.push(p);
  }
  flush();
  return movedIds(a, b, out, shared);
}

function pairRun(a: ViewStep[], b: ViewStep[], run: (readonly [number, number])[]): DiffEntry[] {
  const removed = run.filter((p) => p[0] >= 0).map((p) => a[p[0]] as ViewStep);
  const added = run.filter((p) => p[1] >= 0).map((p) => b[p[1]] as ViewStep);
  const taken = new Set<ViewStep>();
  const out: DiffEntry[] = [];
  for (const x of removed) {
    const y = added.find(
      (s) => !taken.has(s) && ((x.id !== null && s.id === x.id) || (s.kind === x.kind && s.name === x.name)),
    );
    if (y === undefined) {
      out.push({ op: "removed", a: refOf(x) });
      continue;
    }
    taken.add(y);
    // The same id unpaired by the alignment: the step moved past others.
    const position: FieldChange[] =
      x.id !== null && y.id === x.id ? [{ field: "position", a: String(x.n), b: String(y.n) }] : [];
    out.push({ op: "changed", a: refOf(x), b: refOf(y), fields: [...position, ...changesOf(x, y)] });
  }
  for (const y of added) if (!taken.has(y)) out.push({ op: "added", b: refOf(y) });
  return out;
}

/** Pairs a removed and an added entry of the same shared id (a step that moved), in place. */
function movedIds(
  a: ViewStep[],
  b: ViewStep[],
  entries: DiffEntry[],
  shared: ReadonlySet<string>,
): DiffEntry[] {
  const addedAt = new Map<string, number>();
  entries.forEach((e, i) => {
    if (e.op === "added" && e.b.id !== null && shared.has(e.b.id)) addedAt.set(e.b.id, i);
  });
  if (addedAt.size === 0) return entries;
  const drop = new Set<number>();
  const out = entries.map((e): DiffEntry => {
    if (e.op !== "removed" || e.a.id === null) return e;
    const at = addedAt.get(e.a.id);
    if (at === undefined) return e;
    const y = entries[at] as Extract<DiffEntry, { op: "added" }>;
    drop.add(at);
    const fields = changesOf(a[e.a.n - 1] as ViewStep, b[y.b.n - 1] as ViewStep);
    return {
      op: "changed",
      a: e.a,
      b: y.b,
      fields: [{ field: "position", a: String(e.a.n), b: String(y.b.n) }, ...fields],
    };
  });
  return out.filter((_, i) => !drop.has(i));
}
