/**
 * The worker script is the caller's to give (`ParallelOptions.workerScript`): workers asked for
 * without a script that exists are a configuration error, never a silent single thread; no worker
 * needs no script.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ByteLine, readByteLineGroups } from "#shared/canonical/index.js";
import { kindOf, WorkerPoolError } from "#shared/errors.js";
import { mapLines, type ParallelOptions, splitTask } from "#shared/parallel/index.js";
import { poolStats } from "#shared/parallel/line-pool.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { LINE_WORKER } from "../../support/worker.js";

const TEXT = Buffer.from('{"params":{"b":1,"a":2},"n":1}\n{"output":[1,2]}\n');

/** The split task's results over TEXT with `options` (everything on workers once they run). */
async function split(options: ParallelOptions): Promise<unknown[]> {
  async function* source(): AsyncGenerator<Uint8Array> {
    yield TEXT;
  }
  const lines = readByteLineGroups(source())[Symbol.asyncIterator]();
  const out: unknown[] = [];
  const wanted = (line: ByteLine) => line.bytes.length > 0;
  for await (const { items, results } of mapLines(
    lines,
    wanted,
    splitTask,
    { lazy: ["params", "output"] },
    options,
  ))
    for (let k = 0; k < items.length; k++) out.push(results[k]);
  return out;
}

describe("the worker script option", () => {
  it("fails with a typed config error when workers are asked for and no script is given", async () => {
    const failure = split({ workers: 1, threshold: 0 });
    await expect(failure).rejects.toBeInstanceOf(WorkerPoolError);
    await expect(failure).rejects.toMatchObject({ code: "worker.no_script", kind: "config" });
  });

  it("fails the same way when the script given does not exist", async () => {
    const missing = join(PROJECT_ROOT, "dist", "no-such-worker.js");
    const error = await split({ workers: 2, workerScript: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerPoolError);
    expect(error).toMatchObject({ code: "worker.no_script" });
    expect(kindOf(error)).toBe("config");
    expect((error as Error).message).toContain(missing);
  });

  it("needs no script with 0 workers, nor by default without one: the calling thread does the work", async () => {
    const pools = poolStats.pools;
    const alone = await split({ workers: 0, threshold: 0 });
    expect(await split({ threshold: 0 })).toEqual(alone);
    expect(poolStats.pools).toBe(pools);
    expect(alone).toHaveLength(2);
  });

  it("runs on the workers of the script given, with the calling thread's results", async () => {
    const batches = poolStats.batches;
    const onWorkers = await split({
      workers: 1,
      threshold: 0,
      batchBytes: 1,
      waitForWorkers: true,
      workerScript: LINE_WORKER,
    });
    expect(poolStats.batches).toBeGreaterThan(batches);
    expect(onWorkers).toEqual(await split({ workers: 0 }));
  });
});
