/**
 * The worker thread side of `mapLines`: `serveLineTasks` builds the task `workerData` names from
 * the ones given, says it is ready, then answers each batch with one result per line and the
 * task's state for the batch (`finish`). An exception is reported as the batch's error, never
 * swallowed. The worker entry that lists the tasks (shared/worker-tasks.ts) calls it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { WorkerPoolError } from "../errors.js";
import type { LineTaskModule, WorkerInit } from "./task.js";

interface Request {
  id: number;
  buf: Uint8Array;
  ends: Int32Array;
  lines: Int32Array;
}

/**
 * Serves batches on this worker thread with the task `workerData` names among `tasks`. A name
 * missing from `tasks` throws (the worker fails before it is ready, and the pool leaves it out).
 */
export function serveLineTasks(tasks: readonly LineTaskModule<unknown>[]): void {
  const port = parentPort;
  if (port === null)
    throw new WorkerPoolError("worker.not_a_thread", "the line worker runs only as a worker thread");
  const { task: name, init } = workerData as WorkerInit;
  const module = tasks.find((t) => t.name === name);
  if (module === undefined) {
    throw new WorkerPoolError(
      "worker.unknown_task",
      `unknown line task ${JSON.stringify(name)}; expected one of ${tasks.map((t) => JSON.stringify(t.name)).join(", ")}`,
    );
  }
  const task = module.create(init);
  // Batches go to a worker once it says it is ready (a message without an id).
  port.postMessage({ ready: true });

  port.on("message", (request: Request) => {
    try {
      const { buf, ends, lines } = request;
      const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
      const results: unknown[] = new Array(ends.length);
      const line = task.wireLine ?? task.line;
      let start = 0;
      for (let k = 0; k < ends.length; k++) {
        const end = ends[k] as number;
        results[k] = line.call(task, bytes.subarray(start, end), lines[k] as number);
        start = end;
      }
      const wire = task.toWire === undefined ? results : task.toWire(results);
      port.postMessage({ id: request.id, results: wire, state: task.finish() });
    } catch (error) {
      port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
