/**
 * The ingest function's size, from the benchmark (docs/performance.md, bench/results.md), not guessed.
 *
 * The function runs with worker threads off (functions/lib/ingest.ts), so one core does the work and
 * the one-thread `process` rows apply (the whole job in one read: inspect, Layer C, documents,
 * index; bench/results.md and docs/performance.md, AMD EPYC, Node 20): 84-96 MB/s on the 500 MB
 * file, 90.8 MB/s on a 2 GB file, and 32-40 MB/s on the slowest shape measured, a file with a tool
 * call per 1.1 KB. Sized on the slow shape:
 *
 *   2,000 MB / 32 MB/s                                                   = 62.5 s of one core
 *   × 1.5 for a Graviton core slower than the EPYC one                  = 94 s
 *   + uploading a 2 GB Layer C copy from the spool at a modest 50 MB/s   = 40 s
 *   ≈ 134 s for a 2 GB file, pessimistically.
 *
 * A `.gz` upload may decompress to the reader's cap of 4 GiB (shared/formats/gzip.ts), 2.15 times
 * that: ≈ 288 s. Timeout 600 s leaves 4.5× on a 2 GB file and 2.1× at the cap.
 *
 * Memory: the peak RSS of a one-thread 2 GB `process` run was 208 MB (191 MB on the dense 500 MB
 * file), so memory is chosen for CPU, not heap: Lambda gives one full vCPU at 1,769 MB, and with
 * workers off a second vCPU would idle.
 *
 * Ephemeral storage: the Layer C copy is spooled to /tmp before upload (shared/redact/layer-c); it is
 * at most about the decompressed size, so 5,120 MiB holds a copy of the 4 GiB cap with 25% to spare
 * (and a 2 GB file's copy 2.6 times over).
 */

/** Memory of the ingest function, MB: the smallest size with one full vCPU. */
export const INGEST_MEMORY_MB = 1769;
/** Timeout of the ingest function, seconds (see the arithmetic above). */
export const INGEST_TIMEOUT_SECONDS = 600;
/** /tmp of the ingest function, MiB: the Layer C spool. */
export const INGEST_EPHEMERAL_MIB = 5120;
/**
 * /tmp of the per-file functions with viewer pages on (`VIEWER_PAGES`): while a copy uploads it is
 * kept a second time for its page (shared/pipeline/viewer-pages.ts) beside the Layer C spool, so
 * twice the copy: 2 × 4 GiB with 25% to spare, Lambda's maximum.
 */
export const VIEWER_PAGES_EPHEMERAL_MIB = 10240;

/** The /tmp of a per-file function (ingest, reprocess) given its environment. */
export function perFileEphemeralMib(environment: Record<string, string>): number {
  return environment.VIEWER_PAGES === "true" ? VIEWER_PAGES_EPHEMERAL_MIB : INGEST_EPHEMERAL_MIB;
}

/**
 * Messages per invocation. One: the timeout is sized for one large file, and each record is
 * processed in turn (`processInParallel: false`), so a batch of N would need N times the timeout.
 */
export const INGEST_BATCH_SIZE = 1;
/** SQS's visibility timeout must be at least six times the function's timeout (AWS guidance). */
export const VISIBILITY_FACTOR = 6;
/** Receives before a message moves to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;

/** The audit reads one day of index items and writes three documents: small, short. */
export const AUDIT_MEMORY_MB = 1024;
/** Timeout of the audit function, seconds. */
export const AUDIT_TIMEOUT_SECONDS = 900;
