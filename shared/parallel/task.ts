/**
 * What `mapLines` runs: a kind of per-line work, named so the worker entry can build it in each
 * worker from the same plain, cloneable init as the calling thread does, so a line's result never
 * depends on where it ran. The pool knows tasks only through this interface.
 */

/**
 * Per-line work: `line` for each selected line; `finish` returns the state gathered since the
 * last `finish` (plain, cloneable data such as counters) and starts afresh. A batch's results can
 * travel back from a worker in a compact form: `toWire` (in the worker) and `fromWire` (on the
 * calling thread). One string or buffer per batch clones far cheaper than thousands of small
 * objects, which the receiving heap would also have to collect.
 */
export interface LineTask {
  line(bytes: Buffer, line: number): unknown;
  /**
   * On a worker, in place of `line` when given: the line's result in a form `toWire` takes (a
   * string, say), so a batch's results need not stay alive as objects until it is encoded.
   */
  wireLine?(bytes: Buffer, line: number): unknown;
  finish(): unknown;
  toWire?(results: unknown[]): unknown;
  /** A batch's results, in order, from `toWire`'s form; read as the caller comes to each line. */
  fromWire?(wire: unknown): Iterable<unknown>;
}

/** How workers are sized and fed for a task: its own measurements decide. */
interface TaskTuning {
  /** A worker's young generation, in MB: small keeps its memory near its live data. */
  youngGenerationMb: number;
  /** Batches kept on each worker at once. */
  batchesInFlight: number;
}

/** A kind of line task, built from `Init` (sent to each worker as `workerData`). */
export interface LineTaskModule<Init> {
  /** The name the worker entry lists the task under. */
  readonly name: string;
  readonly tuning: TaskTuning;
  /** Builds the task; called on the calling thread and in every worker with equal `init`s. */
  create(init: Init): LineTask;
}

/** What a worker is started with: the task's name and its init. */
export interface WorkerInit {
  task: string;
  init: unknown;
}
