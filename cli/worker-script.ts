/**
 * Where the line worker is: the CLI and the benchmark are bundles in dist/, and the build puts
 * dist/line-worker.js beside them. The pool (shared/parallel/) is handed this path, never guesses.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ParallelOptions } from "#shared/parallel/index.js";

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
