/**
 * A reprocess run's results as Step Functions' ResultWriter leaves them in the reports bucket (a
 * manifest naming `SUCCEEDED_n.json` and `FAILED_n.json`, each a JSON array of child executions
 * with their `Input` and `Output` as JSON text), and where the local stack keeps a run's
 * executions: its start request, its status while it runs, and its results in the same shape. The
 * CLI reads both into the same change report.
 */
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { ReprocessChange, ReprocessItem } from "../shared/pipeline/index.js";

/** An object in a bucket. */
export interface S3Location {
  bucket: string;
  key: string;
}

/** What starts a run's execution: the state machine's input (the map's reader and selector read it). */
export interface RunInput {
  run_id: string;
  manifest: S3Location;
}

/** Where a run's execution stands: its status and its items' counts. */
export interface RunStatus {
  status: string;
  /** The map run's item counts; zero until the map has started. */
  items: { total: number; succeeded: number; failed: number; pending: number; running: number };
  /** The results' manifest once written (the ResultWriter's details); null before. */
  results: S3Location | null;
}

/** A child execution as the ResultWriter lists it (the members read here). */
export interface ChildResult {
  /** The item's event as JSON text: `{ run_id, item }`. */
  Input?: string;
  /** The reprocess function's result as JSON text: a `ReprocessChange`. */
  Output?: string;
  Status?: string;
  Error?: string;
  Cause?: string;
}

/** The ResultWriter's manifest (the members read here). */
interface ResultManifest {
  ResultFiles?: Partial<Record<"SUCCEEDED" | "FAILED" | "PENDING", { Key: string }[]>>;
}

/** The local stack's folder of one execution of run `runId`. */
function executionPrefix(runId: string, execution: string): string {
  return `reprocess/${runId}/executions/${execution}/`;
}

/** A local execution's start request (its `RunInput`): the stack queues the manifest's items. */
export function localInputKey(runId: string, execution: string): string {
  return `${executionPrefix(runId, execution)}input.json`;
}

/** A local execution's status while it runs (a `RunStatus`), rewritten as items finish. */
export function localStatusKey(runId: string, execution: string): string {
  return `${executionPrefix(runId, execution)}status.json`;
}

/** Where a local execution's results go, as the ResultWriter's prefix. */
export function localResultsPrefix(runId: string, execution: string): string {
  return `${executionPrefix(runId, execution)}results/`;
}

/** The run id and execution name of a local start request's key; null for any other key. */
export function parseLocalInputKey(key: string): { runId: string; execution: string } | null {
  const m = /^reprocess\/([^/]+)\/executions\/([^/]+)\/input\.json$/.exec(key);
  return m === null ? null : { runId: m[1] as string, execution: m[2] as string };
}

/** An object's text; null when it is not there. */
export async function readText(s3: S3Client, at: S3Location): Promise<string | null> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: at.key }));
    return (await out.Body?.transformToString("utf8")) ?? "";
  } catch (error) {
    if ((error as { name?: string }).name === "NoSuchKey") return null;
    throw error;
  }
}

/** The manifest item a child's `Input` names; null when it names none. */
function itemOf(input: string | undefined): ReprocessItem | null {
  try {
    return (JSON.parse(input ?? "null") as { item?: ReprocessItem } | null)?.item ?? null;
  } catch {
    return null;
  }
}

/**
 * The changes and failures of a run's execution, read from its results' manifest (`at`): each
 * succeeded child's output is its change; each failed one (and any still pending) a failure of
 * its item's key with the error it ended with.
 */
export async function readRunResults(
  s3: S3Client,
  at: S3Location,
): Promise<{ changes: ReprocessChange[]; failed: { key: string; error: string }[] }> {
  const text = await readText(s3, at);
  if (text === null) throw new Error(`the run's results are missing: s3://${at.bucket}/${at.key}`);
  const files = (JSON.parse(text) as ResultManifest).ResultFiles ?? {};
  const children = async (list: { Key: string }[] | undefined) => {
    const out: ChildResult[] = [];
    for (const { Key } of list ?? []) {
      const body = await readText(s3, { bucket: at.bucket, key: Key });
      if (body !== null) out.push(...(JSON.parse(body) as ChildResult[]));
    }
    return out;
  };
  const changes = (await children(files.SUCCEEDED)).map(
    (c) => JSON.parse(c.Output ?? "null") as ReprocessChange,
  );
  const failed = [...(await children(files.FAILED)), ...(await children(files.PENDING))].map((c) => ({
    key: itemOf(c.Input)?.key ?? "(unknown item)",
    error:
      [c.Error, c.Cause].filter((s) => s !== undefined && s !== "").join(": ") || (c.Status ?? "not run"),
  }));
  return { changes, failed };
}

/**
 * Polls `poll` every `everyMs` until the run is no longer RUNNING (or `signal` aborts: the status
 * last seen), reporting each status it reads; a null status (not written yet) is waited for.
 */
export async function followStatus(
  poll: () => Promise<RunStatus | null>,
  onStatus: (status: RunStatus) => void,
  everyMs: number,
  signal?: AbortSignal,
): Promise<RunStatus | null> {
  let last: RunStatus | null = null;
  const aborted = () => signal?.aborted === true;
  for (;;) {
    const status = await poll();
    if (status !== null) {
      last = status;
      onStatus(status);
      if (status.status !== "RUNNING") return status;
    }
    if (aborted()) return last;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, everyMs);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      signal?.addEventListener("abort", done, { once: true });
    });
    if (aborted()) return last;
  }
}
