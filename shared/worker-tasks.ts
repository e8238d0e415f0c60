/**
 * The line worker (bundled to dist/line-worker.js): every task `mapLines` may run on a worker
 * thread, by name. The pool (shared/parallel/) knows none of them; the CLI and the benchmark hand
 * it this script's path.
 */
import { serveLineTasks, splitTask } from "./parallel/index.js";
// The task modules themselves, not redact/index.js: a worker loads only what its tasks need.
import { inspectRedactTask } from "./redact/layer-c/fused.js";
import { redactTask } from "./redact/layer-c/task.js";

serveLineTasks([splitTask, redactTask, inspectRedactTask]);
