/**
 * The per-line tasks `mapLines` can run on worker threads. A task is built from a plain,
 * cloneable `TaskInit` the same way on the calling thread and in every worker, so a line's
 * result never depends on where it ran.
 */
import { type SplitLine, splitLine } from "../canonical/shallow.js";
import { type RedactTaskInit, redactTask } from "../redact/layer-c.js";

/** What a task is built from (sent to each worker as `workerData`). */
export type TaskInit = { task: "split"; lazy: string[] } | RedactTaskInit;

/**
 * Per-line work: `line` for each selected line; `finish` returns the state gathered since the
 * last `finish` (plain, cloneable data such as counters) and starts afresh. A batch's results can
 * travel back from a worker in a compact form: `toWire` (in the worker) and `fromWire` (on the
 * calling thread). One string or buffer per batch clones far cheaper than thousands of small
 * objects, which the receiving heap would also have to collect.
 */
export interface LineTask {
  line(bytes: Buffer, line: number): unknown;
  finish(): unknown;
  toWire?(results: unknown[]): unknown;
  fromWire?(wire: unknown): unknown[];
}

/** Builds the task `init` names. */
export function createTask(init: TaskInit): LineTask {
  switch (init.task) {
    case "split": {
      const lazy = new Set(init.lazy);
      return {
        // null, not undefined, marks a line the fast path declined (the caller reads it fully).
        line: (bytes) => splitLine(bytes, lazy) ?? null,
        finish: () => null,
        toWire: (results) =>
          JSON.stringify(
            (results as (SplitLine | null)[]).map((s) =>
              s === null ? 0 : [s.keys, s.kinds, s.texts, [...s.hashes]],
            ),
          ),
        fromWire: (wire) =>
          (JSON.parse(wire as string) as (0 | [string[], number[], string[], [string, string][]])[]).map(
            (s): SplitLine | null =>
              s === 0 ? null : { keys: s[0], kinds: s[1], texts: s[2], hashes: new Map(s[3]) },
          ),
      };
    }
    case "redact":
      return redactTask(init);
  }
}
