/**
 * Worker thread entry of `mapLines` (bundled to dist/line-worker.js): builds the task from
 * `workerData`, says it is ready, then answers each batch with one result per line and the task's state for the
 * batch (`finish`). An exception is reported as the batch's error, never swallowed.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createTask, type TaskInit } from "./tasks.js";

interface Request {
  id: number;
  buf: Uint8Array;
  ends: Int32Array;
  lines: Int32Array;
}

const port = parentPort;
if (port === null) throw new Error("line-worker runs only as a worker thread");
const task = createTask(workerData as TaskInit);
// Batches go to a worker once it says it is ready (a message without an id).
port.postMessage({ ready: true });

port.on("message", (request: Request) => {
  try {
    const { buf, ends, lines } = request;
    const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    const results: unknown[] = new Array(ends.length);
    let start = 0;
    for (let k = 0; k < ends.length; k++) {
      const end = ends[k] as number;
      results[k] = task.line(bytes.subarray(start, end), lines[k] as number);
      start = end;
    }
    const wire = task.toWire === undefined ? results : task.toWire(results);
    port.postMessage({ id: request.id, results: wire, state: task.finish() });
  } catch (error) {
    port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
