/**
 * The line worker (bundled to dist/line-worker.js): every task `mapLines` may run on a worker
 * thread, by name. The pool (shared/parallel/) knows none of them; the CLI and the benchmark hand
 * it this script's path.
 */
import { serveLineTasks, splitTask } from "./parallel/index.js";
import { inspectRedactTask, redactTask } from "./redact/index.js";

serveLineTasks([splitTask, redactTask, inspectRedactTask]);
