/**
 * The per-line tasks `mapLines` can run on worker threads. A task is built from a plain,
 * cloneable `TaskInit` the same way on the calling thread and in every worker, so a line's
 * result never depends on where it ran.
 */
import { boxNumbers, readShallow, type ShallowLine, unboxNumbers } from "../canonical/shallow.js";
import { type RedactTaskInit, redactTask } from "../redact/layer-c.js";

/** What a task is built from (sent to each worker as `workerData`). */
export type TaskInit = { task: "split"; lazy: string[] } | RedactTaskInit;

/**
 * Per-line work: `line` for each selected line; `finish` returns the state gathered since the
 * last `finish` (plain, cloneable data such as counters) and starts afresh. A result that does
 * not survive structured cloning as it is goes through `toWire` in the worker and `fromWire` on
 * the calling thread.
 */
export interface LineTask {
  line(bytes: Buffer, line: number): unknown;
  finish(): unknown;
  toWire?(result: unknown): unknown;
  fromWire?(result: unknown): unknown;
}

/** Builds the task `init` names. */
export function createTask(init: TaskInit): LineTask {
  switch (init.task) {
    case "split": {
      const lazy = new Set(init.lazy);
      return {
        // null, not undefined, marks a line the fast path declined (the caller reads it fully).
        line: (bytes) => readShallow(bytes, lazy) ?? null,
        finish: () => null,
        // JsonNumbers would arrive as plain objects.
        toWire: (result) => {
          if (result !== null) boxNumbers((result as ShallowLine).value);
          return result;
        },
        fromWire: (result) => {
          if (result !== null) unboxNumbers((result as ShallowLine).value);
          return result;
        },
      };
    }
    case "redact":
      return redactTask(init);
  }
}
