import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ByteLine, JsonNumber, readByteLineGroups, type SplitLine } from "#shared/canonical/index.js";
import { WorkerPoolError } from "#shared/errors.js";
import { inspect } from "#shared/formats/index.js";
import { mapLines, type ParallelOptions, splitTask } from "#shared/parallel/index.js";
import { poolStats } from "#shared/parallel/line-pool.js";
import type { SplitTaskInit } from "#shared/parallel/split-task.js";
import { ReplayGenerator } from "../../../bench/generate.js";
import { corpusBytes, corpusList, PROJECT_ROOT } from "../../support/corpus.js";
import { LINE_WORKER } from "../../support/worker.js";
import { ALL_PRESETS, redactBytes } from "../redact/layer-c/helpers.js";

/** A generated REPLAY.jsonl of about `bytes` bytes, with real hashes. */
function generatedReplay(bytes: number, seed = 7): Buffer {
  const gen = new ReplayGenerator(seed);
  const lines = [gen.header(), gen.sessionStart()];
  let size = lines.join("\n").length;
  while (size < bytes) {
    for (const line of gen.nextEvents()) {
      lines.push(line);
      size += line.length + 1;
    }
  }
  lines.push(gen.sessionEnd());
  return Buffer.from(`${lines.join("\n")}\n`);
}

async function* chunks(bytes: Buffer, size = 64 * 1024): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const EVERY_LINE_ON_WORKERS = {
  workers: 2,
  threshold: 0,
  batchBytes: 16 * 1024,
  waitForWorkers: true,
  workerScript: LINE_WORKER,
};

async function report(bytes: Buffer, parallel: ParallelOptions) {
  return (await inspect(chunks(bytes), { file: "f", parallel })).report;
}

describe("mapLines", () => {
  const init: SplitTaskInit = { lazy: ["params", "output"] };
  const text = Buffer.from(
    [
      '{"b":1,"a":{"y":[1.50,true],"x":null},"params":{"z":1,"a":"é"}}',
      "",
      "not json",
      '{"output":"plain","n":-0.0}',
      '["an array"]',
    ].join("\n"),
  );

  async function collect(options: ParallelOptions) {
    const lines = readByteLineGroups(chunks(text, 7))[Symbol.asyncIterator]();
    const out: { line: number; result: unknown }[] = [];
    const wanted = (l: ByteLine) => l.bytes.length > 0;
    for await (const { items, results } of mapLines(lines, wanted, splitTask, init, {
      ...options,
      workerScript: LINE_WORKER,
    }))
      for (let k = 0; k < items.length; k++)
        out.push({ line: (items[k] as ByteLine).line, result: results[k] });
    return out;
  }

  it("yields every line in order with the result the calling thread computes, from workers", async () => {
    // Prepare
    const before = poolStats.batches;
    // Act
    const local = await collect({ workers: 0 });
    const parallel = await collect({ workers: 2, threshold: 0, batchBytes: 1, waitForWorkers: true });
    // Assess: workers ran batches, and their results match the calling thread's.
    expect(poolStats.batches - before).toBeGreaterThanOrEqual(4);
    expect(parallel.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
    expect(local.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
    expect(parallel[1]?.result).toBeUndefined();
    expect(parallel[2]?.result).toBeNull();
    expect(parallel[4]?.result).toBeNull();
    const first = parallel[0]?.result as SplitLine;
    const here = local[0]?.result as SplitLine;
    expect(first.hashes.params).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first.hashes).toEqual(here.hashes);
    const value = first.value;
    expect(value.params).toEqual({});
    expect(value.b).toEqual(new JsonNumber("1"));
    expect(value.a).toEqual({ x: null, y: [new JsonNumber("1.5"), true] });
    expect(parallel).toEqual(local);
  });

  /** Every result of `task` (by default the split task) over `input`. */
  async function resultsOf(
    input: AsyncIterable<Uint8Array>,
    options: ParallelOptions,
    task = splitTask,
  ): Promise<unknown[]> {
    const lines = readByteLineGroups(input)[Symbol.asyncIterator]();
    const out: unknown[] = [];
    for await (const { items, results } of mapLines(lines, () => true, task, init, {
      ...options,
      workerScript: LINE_WORKER,
    }))
      for (let k = 0; k < items.length; k++) out.push(results[k]);
    return out;
  }

  /**
   * `bytes` in 4 KiB chunks, as from a slow stream: from offset `from` on, each chunk only once
   * `until()` holds (or after about 10 s, when the caller's assertions fail).
   */
  async function* slowly(bytes: Buffer, from: number, until: () => boolean): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < bytes.length; at += 4096) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (let waited = 0; at >= from && !until() && waited < 10_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      yield bytes.subarray(at, at + 4096);
    }
  }

  it("goes on alone while its workers start, then hands them batches: same results", async () => {
    const bytes = generatedReplay(1_000_000, 3);
    const ready = poolStats.ready;
    const before = poolStats.batches;
    // The last third of the input comes once the worker said it is ready.
    const input = slowly(bytes, (bytes.length * 2) / 3, () => poolStats.ready > ready);
    const parallel = await resultsOf(input, { workers: 1, threshold: 0, batchBytes: 4096 });
    expect(poolStats.batches - before).toBeGreaterThan(0);
    expect(parallel).toEqual(await resultsOf(chunks(bytes), { workers: 0 }));
  });

  it("leaves out a worker that fails before it is ready: the calling thread does its share", async () => {
    // The worker entry lists no task of that name: the worker fails as it starts.
    const broken = { ...splitTask, name: "no-such-task" };
    const bytes = generatedReplay(300_000, 4);
    const failed = poolStats.failedToStart;
    const before = poolStats.batches;
    // The second half of the input comes once the worker has failed.
    const input = slowly(bytes, bytes.length / 2, () => poolStats.failedToStart > failed);
    const parallel = await resultsOf(input, { workers: 1, threshold: 0, batchBytes: 4096 }, broken);
    expect(poolStats.failedToStart).toBe(failed + 1);
    expect(poolStats.batches).toBe(before);
    expect(parallel).toEqual(await resultsOf(chunks(bytes), { workers: 0 }));
  });

  it("keeps everything on the calling thread below the threshold", async () => {
    const before = poolStats.pools;
    await collect({ workers: 2, threshold: 1 << 20 });
    expect(poolStats.pools).toBe(before);
  });

  it("sends no more batches than a slow reader of its results takes, whatever its workers' speed", async () => {
    // 100-byte lines, 10 to a batch; the split task keeps 2 batches on each worker.
    const line = `{"k":"${"x".repeat(90)}"}`;
    const bytes = Buffer.from(`${Array.from({ length: 2000 }, () => line).join("\n")}\n`);
    const lines = readByteLineGroups(chunks(bytes))[Symbol.asyncIterator]();
    const before = poolStats.batches;
    let read = 0;
    let most = 0;
    for await (const { items } of mapLines(lines, () => true, splitTask, init, {
      workers: 1,
      threshold: 0,
      batchBytes: 1000,
      waitForWorkers: true,
      workerScript: LINE_WORKER,
    })) {
      for (let k = 0; k < items.length; k++) {
        read++;
        // Sent but not yet read (lines the calling thread ran count as read batches too, so this
        // errs low; without the bound it reached 82): at most 2 in flight and 2 answered waiting.
        most = Math.max(most, poolStats.batches - before - Math.floor(read / 10));
        if (read % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    expect(read).toBe(2000);
    expect(poolStats.batches - before).toBeGreaterThan(10);
    expect(most).toBeLessThanOrEqual(5);
  });

  it("fails with a typed error when a worker cannot start its task", async () => {
    const broken = { ...splitTask, name: "no-such-task" };
    const lines = readByteLineGroups(chunks(text))[Symbol.asyncIterator]();
    const run = async () => {
      for await (const _ of mapLines(lines, () => true, broken, init, {
        workers: 1,
        threshold: 0,
        waitForWorkers: true,
        workerScript: LINE_WORKER,
      })) {
        // consumed
      }
    };
    await expect(run()).rejects.toBeInstanceOf(WorkerPoolError);
  });
});

describe("inspect on worker threads gives the report the calling thread gives", () => {
  it("on a generated 2 MB replay with real hashes", async () => {
    const bytes = generatedReplay(2_000_000);
    const before = poolStats.batches;
    const parallel = await report(bytes, EVERY_LINE_ON_WORKERS);
    expect(poolStats.batches - before).toBeGreaterThan(5);
    expect(parallel.verdict).toBe("passed");
    expect(parallel.checks_total.passed).toBeGreaterThan(500);
    expect(parallel).toEqual(await report(bytes, { workers: 0 }));
  });

  it("on the same replay with one params value changed: the same failed row", async () => {
    const bytes = generatedReplay(500_000, 11);
    const text = bytes.toString("utf8");
    const at = text.indexOf('"params":{') + 12;
    const tampered = Buffer.from(`${text.slice(0, at)}X${text.slice(at + 1)}`);
    const parallel = await report(tampered, EVERY_LINE_ON_WORKERS);
    expect(parallel.verdict).toBe("failed");
    expect(parallel.checks.filter((c) => c.status === "failed")).toHaveLength(1);
    expect(parallel).toEqual(await report(tampered, { workers: 0 }));
  });

  const badInputs = join(PROJECT_ROOT, "test", "fixtures", "bad-inputs");
  it.each(readdirSync(badInputs))("on bad input %s", async (name) => {
    const bytes = readFileSync(join(badInputs, name));
    expect(await report(bytes, EVERY_LINE_ON_WORKERS)).toEqual(await report(bytes, { workers: 0 }));
  });

  it.each(corpusList("openagents", "replays-type-ts"))("on corpus replay %s", async (name) => {
    const bytes = corpusBytes("openagents", "replays-type-ts", name);
    const parallel = await report(bytes, EVERY_LINE_ON_WORKERS);
    expect(parallel.verdict).toBe("passed");
    expect(parallel).toEqual(await report(bytes, { workers: 0 }));
  });
});

describe("redact on worker threads gives the copy and summary the calling thread gives", () => {
  // A secret in a kept string, so the scrubber's counts are part of what must merge exactly.
  const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
  const planted = generatedReplay(1_000_000, 5)
    .toString("utf8")
    .replaceAll('"command":"', `"command":"--token ${secret} `);
  const bytes = Buffer.from(planted);

  it.each(ALL_PRESETS)("%s: same bytes, same summary (key order included), secret gone", async (preset) => {
    const before = poolStats.batches;
    const parallel = await redactBytes(bytes, { preset, parallel: EVERY_LINE_ON_WORKERS });
    expect(poolStats.batches - before).toBeGreaterThan(5);
    const single = await redactBytes(bytes, { preset, parallel: { workers: 0 } });
    expect(parallel.text).toBe(single.text);
    expect(JSON.stringify(parallel.summary)).toBe(JSON.stringify(single.summary));
    expect(planted).toContain(secret);
    expect(parallel.text).not.toContain(secret);
    expect(parallel.summary.events).toBe(planted.trimEnd().split("\n").length);
  });

  it.each(corpusList("dynamo"))("on the span trace %s", async (name) => {
    const input = corpusBytes("dynamo", name);
    const parallel = await redactBytes(input, {
      parallel: {
        workers: 2,
        threshold: 0,
        batchBytes: 512,
        waitForWorkers: true,
        workerScript: LINE_WORKER,
      },
    });
    const single = await redactBytes(input, { parallel: { workers: 0 } });
    expect(parallel.text).toBe(single.text);
    expect(JSON.stringify(parallel.summary)).toBe(JSON.stringify(single.summary));
  });

  it("throws the calling thread's typed error, located, for a bad line a worker met", async () => {
    const lines = planted.trimEnd().split("\n");
    lines.splice(200, 1, `${(lines[200] as string).slice(0, -1)},}`);
    const broken = Buffer.from(`${lines.join("\n")}\n`);
    const failure = async (parallel: ParallelOptions) => {
      try {
        await redactBytes(broken, { parallel });
      } catch (error) {
        return error as Error & { code?: string; location?: unknown };
      }
      throw new Error("expected the redaction to fail");
    };
    const fromWorker = await failure(EVERY_LINE_ON_WORKERS);
    const here = await failure({ workers: 0 });
    expect(fromWorker).not.toBeInstanceOf(WorkerPoolError);
    expect(fromWorker.constructor).toBe(here.constructor);
    expect(fromWorker.code).toBe(here.code);
    expect(fromWorker.message).toBe(here.message);
    expect(fromWorker.location).toEqual(here.location);
    expect(here.location).toMatchObject({ file: "input", line: 201 });
  });
});
