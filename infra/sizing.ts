/**
 * The ingest function's size, from the benchmark (README "Benchmark", bench/results.md), not guessed.
 *
 * The function runs with worker threads off (functions/lib/ingest.ts), so one core does the work and
 * the one-thread rows apply: `redact` 63.9 MB/s and `inspect` 67.5 MB/s (medians, 500 MB file, AMD
 * EPYC; the machine was shared, so these are on the slow side of its runs). Lambda reads a replay
 * once for both, but the sizing charges them as two passes, one after the other:
 *
 *   2,000 MB / 63.9 MB/s + 2,000 MB / 67.5 MB/s = 31.3 s + 29.6 s = 60.9 s of one core
 *   × 1.5 for a Graviton core slower than the EPYC one                  = 91 s
 *   + uploading a 2 GB Layer C copy from the spool at a modest 50 MB/s   = 40 s
 *   ≈ 131 s for a 2 GB file, pessimistically.
 *
 * A `.gz` upload may decompress to the reader's cap of 4 GiB (shared/formats/inspect.ts), 2.15 times
 * that: ≈ 281 s. Timeout 600 s leaves 4.6× on a 2 GB file and 2.1× at the cap.
 *
 * Memory: the peak RSS of a 2 GB run was 243 MiB (with a worker; 146 MB on one thread at 500 MB), so
 * memory is chosen for CPU, not heap: Lambda gives one full vCPU at 1,769 MB, and with workers off
 * a second vCPU would idle.
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
