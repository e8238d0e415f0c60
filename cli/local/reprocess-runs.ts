/**
 * The local stack's stand-in for the reprocess state machine: a start request written to the
 * reports bucket (`reprocess/<run-id>/executions/<name>/input.json`, what `reprocess --local`
 * writes instead of calling StartExecution) has the manifest's items queued on the stack's queue,
 * beside the uploads, for the reprocess handler; as they finish, the execution's status is
 * rewritten (item counts, what DescribeMapRun gives on AWS), and at its end its results are
 * written in the ResultWriter's shape, so the CLI reads a local run and a deployed one alike.
 */
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { ReprocessChange, ReprocessItem } from "../../shared/pipeline/index.js";
import {
  type ChildResult,
  localResultsPrefix,
  localStatusKey,
  parseLocalInputKey,
  type RunInput,
  type RunStatus,
  readText,
} from "../reprocess-results.js";

/** One item's event as the reprocess handler takes it. */
interface ItemEvent {
  run_id: string;
  item: ReprocessItem;
}

/** One execution in progress. */
interface Execution {
  runId: string;
  name: string;
  total: number;
  succeeded: ChildResult[];
  failed: ChildResult[];
  /** Its status document needs writing. */
  dirty: boolean;
  /** The status write in flight: the last status waits for it, so it cannot be overwritten. */
  writing: Promise<void>;
}

/** Least time between two writes of an execution's status, ms. */
const STATUS_EVERY_MS = 250;

/** The executions of one local stack. */
export class LocalRuns {
  private readonly executions = new Map<string, Execution>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    /** Queues one item's event (JSON text) for execution `name`. */
    private readonly enqueue: (execution: string, body: string) => void,
  ) {}

  /** Whether `key` (an object created in the reports bucket) is a start request. */
  static isStart(key: string): boolean {
    return parseLocalInputKey(key) !== null;
  }

  /** Starts the execution `key` requests: its manifest read, its items queued, its status written. */
  async start(key: string): Promise<void> {
    const names = parseLocalInputKey(key);
    if (names === null || this.executions.has(names.execution)) return;
    const input = JSON.parse((await readText(this.s3, { bucket: this.bucket, key })) ?? "null") as RunInput;
    const items = JSON.parse((await readText(this.s3, input.manifest)) ?? "[]") as ReprocessItem[];
    const execution: Execution = {
      runId: input.run_id,
      name: names.execution,
      total: items.length,
      succeeded: [],
      failed: [],
      dirty: true,
      writing: Promise.resolve(),
    };
    this.executions.set(execution.name, execution);
    for (const item of items) {
      const event: ItemEvent = { run_id: input.run_id, item };
      this.enqueue(execution.name, JSON.stringify(event));
    }
    await this.settleIfDone(execution);
    this.schedule();
  }

  /** One item of `execution` ended: its change, or (after its last try) its fault. */
  async ended(
    execution: string,
    body: string,
    outcome: { ok: true; change: ReprocessChange } | { ok: false; error: unknown },
  ): Promise<void> {
    const run = this.executions.get(execution);
    if (run === undefined) return;
    if (outcome.ok)
      run.succeeded.push({ Input: body, Output: JSON.stringify(outcome.change), Status: "SUCCEEDED" });
    else {
      const error = outcome.error as { name?: string; message?: string } | undefined;
      run.failed.push({
        Input: body,
        Status: "FAILED",
        Error: error?.name ?? "Error",
        Cause: error?.message ?? String(outcome.error),
      });
    }
    run.dirty = true;
    await this.settleIfDone(run);
    this.schedule();
  }

  /** Stops writing statuses (the stack closes; its executions end unfinished). */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private status(run: Execution, status: string, results: RunStatus["results"]): RunStatus {
    const done = run.succeeded.length + run.failed.length;
    return {
      status,
      items: {
        total: run.total,
        succeeded: run.succeeded.length,
        failed: run.failed.length,
        pending: 0,
        running: run.total - done,
      },
      results,
    };
  }

  /** An execution all of whose items ended: results, then its last status; forgotten. */
  private async settleIfDone(run: Execution): Promise<void> {
    if (run.succeeded.length + run.failed.length < run.total) return;
    this.executions.delete(run.name);
    await run.writing;
    const prefix = localResultsPrefix(run.runId, run.name);
    const files: Record<string, { Key: string }[]> = { SUCCEEDED: [], FAILED: [], PENDING: [] };
    for (const [status, children] of [
      ["SUCCEEDED", run.succeeded],
      ["FAILED", run.failed],
    ] as const) {
      if (children.length === 0) continue;
      const key = `${prefix}${status}_0.json`;
      await this.put(key, JSON.stringify(children));
      files[status]?.push({ Key: key });
    }
    const manifest = `${prefix}manifest.json`;
    await this.put(manifest, JSON.stringify({ DestinationBucket: this.bucket, ResultFiles: files }));
    await this.put(
      localStatusKey(run.runId, run.name),
      JSON.stringify(this.status(run, "SUCCEEDED", { bucket: this.bucket, key: manifest })),
    );
  }

  /** Writes the status of each execution that changed, at most every `STATUS_EVERY_MS`. */
  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const changed = [...this.executions.values()].filter((run) => run.dirty);
      for (const run of changed) {
        run.dirty = false;
        const status = JSON.stringify(this.status(run, "RUNNING", null));
        run.writing = run.writing
          .then(() => this.put(localStatusKey(run.runId, run.name), status))
          .catch(() => {
            // A status write lost (the stack closing): the next one, or the results, say more.
          });
      }
      if (changed.length > 0) this.schedule();
    }, STATUS_EVERY_MS);
  }

  private async put(key: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: "application/json" }),
    );
  }
}
