/**
 * Spreads the per-line byte work of large JSON Lines files over worker threads while the caller
 * keeps everything that depends on order (validation state, summaries, output order).
 *
 * `mapLines` runs a `LineTask` over a stream of lines and yields each line with its result, in
 * input order. The first `threshold` bytes are handled on the calling thread, so small files
 * never pay for starting workers; past it, lines are copied into batches of about `batchBytes`,
 * each batch goes to the least busy worker (which runs the same task, built from the same init),
 * a few batches per worker are in flight (as the task's tuning says), and the calling thread works
 * on the batches after them while it waits, at most a fixed number ahead, which bounds memory.
 * Workers run the script the caller names (`ParallelOptions.workerScript`): the pool knows no task
 * and no domain module. A machine with one core runs everything on the calling thread.
 * A task's per-part state (`LineTask.finish`: counters) comes back for each part of the input in
 * input order, so the caller can merge it exactly as one thread would have counted.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { setImmediate } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { WorkerPoolError } from "../errors.js";
import type { LineTask, LineTaskModule, WorkerInit } from "./task.js";

/** How `mapLines` spreads work. */
export interface ParallelOptions {
  /**
   * Worker threads; 0 keeps all work on the calling thread. Default: `defaultWorkers()` when a
   * `workerScript` is given, else 0. Workers asked for without a script that exists fail with
   * `WorkerPoolError` `worker.no_script`.
   */
  workers?: number;
  /**
   * The bundled worker entry that lists the tasks (dist/line-worker.js). The caller knows where
   * its bundle put it; the pool never guesses.
   */
  workerScript?: URL | string;
  /** Line bytes handled on the calling thread before workers start (default 8 MiB). */
  threshold?: number;
  /** Bytes per batch sent to a worker (default 512 KiB: as fast as 1 MiB, less memory in flight). */
  batchBytes?: number;
  /**
   * Queue batches on workers that are still starting. Default false: until a worker has built its
   * task, the calling thread works alone rather than wait for it (a worker takes a few hundred
   * milliseconds to start). Tests set it so that every batch runs on a worker.
   */
  waitForWorkers?: boolean;
}

/**
 * One worker per core beyond the first (the calling thread works too); none on a single core,
 * where they would only cost.
 */
export function defaultWorkers(): number {
  return Math.min(availableParallelism() - 1, 7);
}

/**
 * The worker script of `options` when `workers` threads were asked for; throws `worker.no_script`
 * when there is none, so a missing bundle is a configuration error, not a silent single thread.
 */
function scriptFor(workers: number, options: ParallelOptions): URL | string | undefined {
  if (workers <= 0) return undefined;
  const script = options.workerScript;
  const path = script instanceof URL ? fileURLToPath(script) : script;
  if (path === undefined || !existsSync(path)) {
    throw new WorkerPoolError(
      "worker.no_script",
      `${workers} worker thread(s) asked for, but ${path === undefined ? "no worker script was given" : `the worker script ${path} does not exist`}; expected the bundled line worker (npm run build) or 0 workers`,
    );
  }
  return script;
}

/**
 * Lines the calling thread runs at a time while the oldest batch is still on a worker, and the
 * most it holds run ahead of that batch. Lines, not bytes: what it holds is a few objects per line
 * (every one copied by each collection it lives through), so a file of short lines needs the
 * tighter bound. 256 lines with 512 ahead held the dense file's peak lower than byte-sized
 * batches at the same speed (docs/performance.md, "Worker tuning").
 */
const LOCAL_LINES = 256;
const LOCAL_LINES_AHEAD = 512;

/** Statistics of the pools started in this process, for tests and the benchmark. */
export const poolStats = { pools: 0, batches: 0, ready: 0, failedToStart: 0 };

/**
 * What a worker answers for one batch: a result per line (as the task's `toWire` encoded them,
 * when `encoded`) and the task's state for the batch.
 */
interface BatchResult {
  results: unknown;
  encoded: boolean;
  state: unknown;
}

interface Pending {
  resolve: (result: BatchResult) => void;
  reject: (error: Error) => void;
  worker: number;
}

/**
 * How much V8 lets a heap grow past its live data before the next full collection, while workers
 * run: to twice what it held after the last one, against V8's default of up to 4 times. The
 * calling thread keeps what it read and ran ahead until the workers' earlier answers arrive, long
 * enough to be promoted and die old, so its heap grew to 3-4 times its live data (dense file: about
 * 30 MB live, 124 MB before a collection). The flag is the process's (V8 has one per process) and
 * stays set; it costs collections, not memory (docs/performance.md, "Heap growth with workers").
 */
const HEAP_GROWING_PERCENT = 100;

/** A fixed set of workers running one task. */
class Pool {
  private readonly workers: Worker[] = [];
  /**
   * Each worker's state: starting, ready (it built its task; from the start when batches may wait
   * for it), or gone (it failed while starting, and is left out).
   */
  private readonly status: ("starting" | "ready" | "gone")[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(
    script: URL | string,
    workerData: WorkerInit,
    youngGenerationMb: number,
    size: number,
    waitForWorkers: boolean,
  ) {
    poolStats.pools++;
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    for (let w = 0; w < size; w++) {
      // A small young generation keeps each worker's memory near its live data (see TaskTuning).
      const worker = new Worker(script, {
        workerData,
        resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
      });
      worker.on("message", (message: { id?: number; results?: unknown; state?: unknown; error?: string }) => {
        if (message.id === undefined) {
          // The worker built its task.
          poolStats.ready++;
          if (this.status[w] === "starting") this.status[w] = "ready";
          return;
        }
        const job = this.pending.get(message.id);
        if (job === undefined) return;
        this.pending.delete(message.id);
        if (message.error !== undefined) job.reject(new WorkerPoolError("worker.task_failed", message.error));
        // Kept encoded until its turn: decoded now, a batch's many small objects would live
        // through collections while earlier batches are read.
        else job.resolve({ results: message.results, encoded: true, state: message.state });
      });
      worker.on("error", (error) => this.lost(w, error));
      worker.on("exit", (code) => {
        // An exit is a failure unless it is clean with nothing left to answer (terminate()
        // exits with 1, but only once nothing is pending).
        if (code !== 0 || this.held(w) > 0) this.lost(w, new Error(`worker exited with code ${code}`));
      });
      this.workers.push(worker);
      this.status.push(waitForWorkers ? "ready" : "starting");
    }
  }

  /**
   * Worker `w` is gone. One that never became ready held no batch: it is left out, and the other
   * threads do its share (as with fewer workers). Otherwise the pool fails.
   */
  private lost(w: number, cause: Error): void {
    // Its "error" and then its "exit" both come here.
    if (this.status[w] === "starting") {
      this.status[w] = "gone";
      poolStats.failedToStart++;
    }
    if (this.status[w] === "ready") this.fail(cause);
  }

  private fail(cause: Error): void {
    this.failure ??= new WorkerPoolError(
      "worker.crashed",
      `a worker thread failed: ${cause.message}`,
      {},
      { cause },
    );
    for (const job of this.pending.values()) job.reject(this.failure);
    this.pending.clear();
  }

  /** Runs the task over the batch's lines on the least busy ready worker (there must be one). */
  run(batch: Batch): Promise<BatchResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    let w = -1;
    let least = Number.POSITIVE_INFINITY;
    for (let k = 0; k < this.workers.length; k++) {
      const held = this.status[k] === "ready" ? this.held(k) : Number.POSITIVE_INFINITY;
      if (held < least) {
        w = k;
        least = held;
      }
    }
    if (w < 0) return Promise.reject(new WorkerPoolError("worker.none_ready", "no worker has started yet"));
    const id = this.nextId++;
    poolStats.batches++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: w });
      // The batch buffer is the worker's now: moved, not copied.
      this.workers[w]?.postMessage({ id, ...batch }, [batch.buf.buffer]);
    });
  }

  size(): number {
    return this.workers.length;
  }

  /** Batches worker `w` holds (a few per worker, so counting them beats keeping a second tally). */
  private held(w: number): number {
    let n = 0;
    for (const job of this.pending.values()) if (job.worker === w) n++;
    return n;
  }

  /** Workers that take batches now. */
  readySize(): number {
    let n = 0;
    for (const s of this.status) if (s === "ready") n++;
    return n;
  }

  /** Throws the pool's failure, if a ready worker failed. */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Batches sent and not answered yet. */
  inFlight(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/** Lines copied into one buffer: line k is `buf[ends[k-1] .. ends[k])`, numbered `lines[k]`. */
interface Batch {
  buf: Uint8Array<ArrayBuffer>;
  ends: Int32Array;
  lines: Int32Array;
}

/** A line as `mapLines` reads it: its number and bytes, plus whatever the caller carries along. */
export interface MappedLine {
  line: number;
  bytes: Buffer;
}

/** A group of consecutive items and its answer (settled at once when run on this thread). */
interface Group<T> {
  items: T[];
  selected: boolean[];
  answer: Promise<BatchResult>;
  settled: boolean;
  /** Run on the calling thread (else on a worker). */
  here: boolean;
}

/** Consecutive items and their results, in order (undefined for an item not selected). */
export interface MappedGroup<T> {
  items: T[];
  results: unknown[];
}

/**
 * Items, and bytes of lines run here, yielded at a time: each group's results stay alive until the
 * caller has read the group, so a small bound keeps them out of the collections that run
 * meanwhile, and a promise per group costs nothing next to its lines.
 */
const GROUP_LINES = 64;
const GROUP_BYTES = 64 * 1024;

/**
 * Runs `task` built from `init` over the lines of `groups` that `wanted` selects (on the calling
 * thread, or on workers that build the same task from the same init) and yields every item, in
 * order and in groups, with its result (undefined for items not selected). `onState` gets the
 * task's `finish()` state for each consecutive part of the input, in order. While the oldest batch
 * is still on a worker, the calling thread runs the next batch itself rather than wait, so with
 * one worker both cores of a two-core machine stay busy. When a worker's task throws, the batch is
 * run again on the calling thread, so the caller gets the task's own typed error.
 */
// Long because: one scheduling loop whose state (the queue, `done`, the groups here and batches on
// workers) every step reads and changes, yielding results in input order as they settle.
export async function* mapLines<T extends MappedLine, Init>(
  groups: AsyncIterator<T[]>,
  wanted: (item: T) => boolean,
  task: LineTaskModule<Init>,
  init: Init,
  options: ParallelOptions = {},
  onState?: (state: unknown) => void,
): AsyncGenerator<MappedGroup<T>> {
  const workers = options.workers ?? (options.workerScript === undefined ? 0 : defaultWorkers());
  const threshold = options.threshold ?? 8 * 1024 * 1024;
  const batchBytes = options.batchBytes ?? 512 * 1024;
  const script = scriptFor(workers, options);
  const local = task.create(init);
  // The input group being read, and the next item of it to take.
  let rest: T[] = [];
  let at = 0;
  let pool: Pool | undefined;
  try {
    // Below the threshold (or without workers): the task runs here, a group at a time.
    const budget = script === undefined ? Number.POSITIVE_INFINITY : threshold;
    let seen = 0;
    while (seen < budget) {
      if (at === rest.length) {
        const next = await groups.next();
        if (next.done === true) {
          onState?.(local.finish());
          return;
        }
        rest = next.value;
        at = 0;
        continue;
      }
      const from = at;
      const results: unknown[] = [];
      let bytes = 0;
      try {
        while (at < rest.length && at - from < GROUP_LINES && bytes < GROUP_BYTES && seen < budget) {
          const item = rest[at] as T;
          if (wanted(item)) {
            seen += item.bytes.length;
            bytes += item.bytes.length;
            results[at - from] = local.line(item.bytes, item.line);
          }
          at++;
        }
      } catch (error) {
        // The lines before the one that threw come first, as they would one at a time.
        if (at > from) yield { items: rest.slice(from, at), results };
        throw error;
      }
      yield { items: rest.slice(from, at), results };
    }
    onState?.(local.finish());
    const running = new Pool(
      script as URL | string,
      { task: task.name, init },
      task.tuning.youngGenerationMb,
      workers,
      options.waitForWorkers === true,
    );
    pool = running;
    let done = false;
    /** The next group of consecutive items, up to about `batchBytes` of selected lines. */
    const read = async (
      maxLines = 4096,
    ): Promise<{ items: T[]; selected: boolean[]; bytes: number } | undefined> => {
      const group: T[] = [];
      const selected: boolean[] = [];
      let bytes = 0;
      while (bytes < batchBytes && group.length < maxLines) {
        if (at === rest.length) {
          const next = await groups.next();
          if (next.done === true) {
            done = true;
            break;
          }
          rest = next.value;
          at = 0;
          continue;
        }
        const item = rest[at++] as T;
        const want = wanted(item);
        group.push(item);
        selected.push(want);
        if (want) bytes += item.bytes.length;
      }
      return group.length === 0 ? undefined : { items: group, selected, bytes };
    };
    const queue: Group<T>[] = [];
    // Groups and lines run here waiting in `queue`, and the workers' batches there (answered or not).
    let groupsHere = 0;
    let linesHere = 0;
    let batchesThere = 0;
    while (!done || queue.length > 0) {
      running.check();
      // Keep every ready worker that many batches deep; answers waiting here count too, so a
      // thread slower than its workers does not pile them up.
      const limit = task.tuning.batchesInFlight * running.readySize();
      while (!done && running.inFlight() < limit && batchesThere < 2 * limit) {
        const g = await read();
        if (g === undefined) break;
        const entry: Group<T> = {
          items: g.items,
          selected: g.selected,
          answer: running.run(pack(g)),
          settled: false,
          here: false,
        };
        entry.answer.then(
          () => {
            entry.settled = true;
          },
          // Awaited in order below; a batch still out when an earlier one fails is dropped.
          () => undefined,
        );
        queue.push(entry);
        batchesThere++;
      }
      // Let answers that arrived be delivered first: a worker's message needs an event loop turn,
      // and this thread, busy with the lines, may not have given it one since.
      if (queue[0] !== undefined && !queue[0].settled) await setImmediate();
      const head = queue[0];
      // Rather than wait: the next lines, here, up to one group per worker plus one and at most
      // LOCAL_LINES_AHEAD beyond the workers' batches. With no worker ready yet, this thread just
      // goes on alone.
      const ahead = groupsHere <= running.size() && linesHere < LOCAL_LINES_AHEAD;
      if (head === undefined || (!head.settled && !done && ahead)) {
        if (done) break;
        // A worker's "ready" arrives as an event: let the event loop turn (input already in memory
        // would never yield to it).
        if (running.readySize() === 0) await setImmediate();
        const g = await read(LOCAL_LINES);
        if (g !== undefined) {
          queue.push(runHere(g, local));
          groupsHere++;
          linesHere += g.items.length;
        }
        continue;
      }
      queue.shift();
      if (head.here) {
        groupsHere--;
        linesHere -= head.items.length;
      } else batchesThere--;
      const answer = await answerOf(head, local);
      const { state } = answer;
      const results = (
        answer.encoded && local.fromWire !== undefined ? local.fromWire(answer.results) : answer.results
      ) as Iterable<unknown>;
      const result = results[Symbol.iterator]();
      // Decoded a group at a time, as the caller comes to it.
      for (let from = 0; from < head.items.length; from += GROUP_LINES) {
        const items = head.items.slice(from, from + GROUP_LINES);
        const out: unknown[] = new Array(items.length);
        for (let k = 0; k < items.length; k++)
          if (head.selected[from + k] === true) out[k] = result.next().value;
        yield { items, results: out };
      }
      onState?.(state);
    }
  } finally {
    await pool?.close();
  }
}

/**
 * Runs a group on the calling thread: a settled entry with the task's state for the group. A
 * line that throws fails the entry, not the call, so earlier batches still come first.
 */
function runHere<T extends MappedLine>(g: { items: T[]; selected: boolean[] }, local: LineTask): Group<T> {
  let answer: Promise<BatchResult>;
  try {
    const results: unknown[] = [];
    g.items.forEach((item, k) => {
      if (g.selected[k] === true) results.push(local.line(item.bytes, item.line));
    });
    answer = Promise.resolve({ results, encoded: false, state: local.finish() });
  } catch (error) {
    answer = Promise.reject(error);
    answer.catch(() => undefined);
  }
  return { items: g.items, selected: g.selected, answer, settled: true, here: true };
}

/**
 * A batch's answer; when the worker's task threw, the batch's lines run here so the task throws
 * its own error with its own type (the worker could only send the message).
 */
async function answerOf<T extends MappedLine>(batch: Group<T>, local: LineTask): Promise<BatchResult> {
  try {
    return await batch.answer;
  } catch (error) {
    if (!(error instanceof WorkerPoolError) || error.code !== "worker.task_failed") throw error;
    await runHere(batch, local).answer;
    throw error;
  }
}

/** Copies the selected lines of a group into one transferable buffer. */
function pack<T extends MappedLine>({
  items: group,
  selected,
  bytes,
}: {
  items: T[];
  selected: boolean[];
  bytes: number;
}): Batch {
  const count = selected.filter(Boolean).length;
  // Not from Buffer's shared pool: the buffer is transferred to the worker.
  const buf = new Uint8Array(bytes);
  const ends = new Int32Array(count);
  const lines = new Int32Array(count);
  let at = 0;
  let k = 0;
  for (let g = 0; g < group.length; g++) {
    if (selected[g] !== true) continue;
    const item = group[g] as T;
    buf.set(item.bytes, at);
    at += item.bytes.length;
    ends[k] = at;
    lines[k] = item.line;
    k++;
  }
  return { buf, ends, lines };
}
