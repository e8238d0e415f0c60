/**
 * The per-line tasks `mapLines` can run on worker threads. A task is built from a plain,
 * cloneable `TaskInit` the same way on the calling thread and in every worker, so a line's
 * result never depends on where it ran.
 */
import { type SplitLine, splitLine } from "../canonical/shallow.js";
import { ReplayPipelineError } from "../errors.js";
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

/**
 * A worker's young generation for the task, in MB. Measured on 2 cores: a 2 GB `inspect` peaked at
 * 246-254 MiB with 16 MB and 237-244 MiB with 4 (the bound is 256 MB); `redact`, which builds a
 * new tree per line, ran about 5% slower with 4 and stays near 220 MiB with 16.
 */
export function youngGenerationMb(init: TaskInit): number {
  return init.task === "redact" ? 16 : 4;
}

/**
 * Batches kept on each worker. Measured on 2 cores: `redact` (heavy per line, small results) ran
 * 6.4-6.6 s on 500 MB with 4 against 6.9-8.4 s with 2; `inspect` with 4 took a 2 GB file to 327
 * MiB peak (more results crossing to the main thread's heap) against about 250 with 2.
 */
export function batchesInFlight(init: TaskInit): number {
  return init.task === "redact" ? 4 : 2;
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
    default:
      // A TaskInit from elsewhere (a worker's workerData) is not checked by the compiler.
      throw new ReplayPipelineError(
        "worker.unknown_task",
        `unknown line task ${JSON.stringify((init as { task?: unknown }).task)}; expected "split" or "redact"`,
      );
  }
}
