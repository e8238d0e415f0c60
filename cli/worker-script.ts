/**
 * Where the line worker is: the CLI and the benchmark are bundles in dist/, and the build puts
 * dist/line-worker.js beside them. The pool (shared/parallel/) is handed this path, never guesses.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defaultWorkers, type ParallelOptions } from "#shared/parallel/index.js";

/**
 * dist/line-worker.js beside the bundle this module is part of; from the source tree (tests import
 * cli/ unbundled) the one the build left in dist/. When neither exists, the path beside the bundle,
 * so that asking for workers fails naming it.
 */
const LINE_WORKER_SCRIPT: URL = ((): URL => {
  const beside = new URL("./line-worker.js", import.meta.url);
  const built = new URL("../dist/line-worker.js", import.meta.url);
  return existsSync(fileURLToPath(beside)) || !existsSync(fileURLToPath(built)) ? beside : built;
})();

/** The pool options of a command: `workers` threads (default one per core) on the bundled worker. */
export function parallelOptions(workers?: number): ParallelOptions {
  return workers === undefined
    ? { workerScript: LINE_WORKER_SCRIPT }
    : { workers, workerScript: LINE_WORKER_SCRIPT };
}

/**
 * The worker threads `process` takes when none were asked for: `defaultWorkers()`, but none on two
 * cores or fewer. There the worker cannot pay for itself: `process` with a worker spent 1.5 to 1.7
 * times the CPU of one thread (the split's wire form made and read again, a second heap), so with
 * two cores it gains at most a few percent on a quiet machine and loses as soon as anything else
 * runs (docs/performance.md, "The worker on two cores").
 */
export function processWorkers(): number {
  return availableParallelism() <= 2 ? 0 : defaultWorkers();
}
