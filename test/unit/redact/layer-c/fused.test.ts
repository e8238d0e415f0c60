/**
 * The fused path (`redactChecked`: one read, `inspect` feeding the Layer C writer, one line task
 * that splits and redacts each line) against `inspect` and the Layer C transform run separately
 * on the same bytes: the same report, the same copy and summary, the same errors, with and
 * without workers.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ReplayPipelineError } from "#shared/errors.js";
import { contentShape, findingOf, type InspectReport, inspect } from "#shared/formats/index.js";
import type { ParallelOptions } from "#shared/parallel/index.js";
import { poolStats } from "#shared/parallel/line-pool.js";
import { originOf } from "#shared/redact/checked.js";
import { inspectRedactTask, redactChecked, redactFile } from "#shared/redact/index.js";
import { tapOf } from "#shared/redact/layer-c/fused.js";
import { LayerCWriter } from "#shared/redact/layer-c/writer.js";
import { DEFAULT_SEED, ReplayGenerator } from "../../../../bench/generate.js";
import { CORPUS, PROJECT_ROOT } from "../../../support/corpus.js";
import { LINE_WORKER } from "../../../support/worker.js";

const ONE_THREAD: ParallelOptions = { workers: 0 };
/** Every batch on a worker, small batches: the worker's results and counts are what is merged. */
const WORKERS: ParallelOptions = {
  workers: 1,
  threshold: 0,
  batchBytes: 4096,
  waitForWorkers: true,
  workerScript: LINE_WORKER,
};

/** Every file under `dir`, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

/** A generated OpenAgents replay: `pairs` tool calls, small ones when `dense`. */
function generated(pairs: number, dense: boolean, seed = DEFAULT_SEED): string {
  const gen = new ReplayGenerator(seed);
  const lines = [gen.header(), gen.sessionStart()];
  for (let k = 0; k < pairs; k++) lines.push(...(dense ? gen.nextSmallEvents() : gen.nextEvents()));
  lines.push(gen.sessionEnd());
  return `${lines.join("\n")}\n`;
}

/** `text` with one ToolCall's params changed after its hash was taken: a `failed` replay. */
function tampered(text: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.includes('"type":"ToolCall"'));
  lines[at] = (lines[at] as string).replace('"params":{', '"params":{"injected":"rm -rf /",');
  return lines.join("\n");
}

const GENERATED: Record<string, Buffer> = {
  "generated.REPLAY.jsonl": Buffer.from(generated(60, false)),
  "generated-dense.REPLAY.jsonl": Buffer.from(generated(200, true)),
  "tampered.REPLAY.jsonl": Buffer.from(tampered(generated(40, false))),
  "generated.REPLAY.jsonl.gz": gzipSync(generated(30, false)),
  "blank-and-crlf.REPLAY.jsonl": Buffer.from(`\n${generated(20, true).replaceAll("\n", "\r\n")}\n\n`),
};

async function* chunksOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  // Uneven pieces, so lines span chunks.
  for (let at = 0; at < bytes.length; at += 7001) yield bytes.subarray(at, at + 7001);
}

/**
 * What a copy came to: its bytes and summary, or why there is none (the transform's findings, as
 * `redactFile` gives them; a gzip stream that does not decompress).
 */
type Outcome = { copy: string; summary: string } | { errors: string } | { gzip: "corrupt" };

async function drain(chunks: AsyncIterable<Uint8Array>, summary: () => unknown): Promise<Outcome> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  } catch (error) {
    if (!(error instanceof ReplayPipelineError) || error.kind !== "input") throw error;
    if (error.code === "gzip.corrupt") return { gzip: "corrupt" };
    return { errors: JSON.stringify([findingOf(error)]) };
  }
  return { copy: Buffer.concat(parts).toString("utf8"), summary: JSON.stringify(summary()) };
}

const isGzip = (bytes: Buffer): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;

/** `inspect`, then the Layer C transform (`redactFile`) on a second read of the bytes. */
async function separately(
  name: string,
  bytes: Buffer,
  parallel: ParallelOptions,
): Promise<{ report: InspectReport; copy: Outcome }> {
  const { report } = await inspect(chunksOf(bytes), { file: name, keepToolCalls: false, parallel });
  // The transform reads what inspect reads: gzip undone.
  let plain = bytes;
  if (isGzip(bytes)) {
    try {
      plain = gunzipSync(bytes);
    } catch {
      return { report, copy: { gzip: "corrupt" } };
    }
  }
  const redaction = redactFile(chunksOf(plain), { file: name, original: originOf(report), parallel });
  const parts: Buffer[] = [];
  for await (const chunk of redaction.chunks) parts.push(Buffer.from(chunk));
  if (redaction.errors.length > 0) return { report, copy: { errors: JSON.stringify(redaction.errors) } };
  return {
    report,
    copy: { copy: Buffer.concat(parts).toString("utf8"), summary: JSON.stringify(redaction.summary()) },
  };
}

/** `redactChecked` (copying failed and invalid inputs too, as the transform alone would). */
async function fused(
  name: string,
  bytes: Buffer,
  parallel: ParallelOptions,
): Promise<{ report: InspectReport; copy: Outcome }> {
  const result = redactChecked(chunksOf(bytes), {
    task: inspectRedactTask,
    file: name,
    allowUnverified: true,
    parallel,
  });
  const copy = await drain(result.chunks, () => result.summary());
  return { report: await result.report, copy };
}

async function expectParity(name: string, bytes: Buffer, parallel: ParallelOptions): Promise<void> {
  const alone = await separately(name, bytes, parallel);
  const together = await fused(name, bytes, parallel);
  // Stringified: member order is part of the output.
  expect(JSON.stringify(together.report)).toBe(JSON.stringify(alone.report));
  expect(together.copy).toEqual(alone.copy);
}

const corpus = filesUnder(CORPUS);
const badInputs = filesUnder(join(PROJECT_ROOT, "test", "fixtures", "bad-inputs"));
const examples = filesUnder(join(PROJECT_ROOT, "examples")).filter((p) => !p.endsWith(".md"));

describe("redactChecked (fused) against inspect and the Layer C transform separately", () => {
  it("covers real inputs of every kind (the lists are not empty)", () => {
    expect(badInputs.filter((p) => p.endsWith(".jsonl")).length).toBeGreaterThan(20);
    expect(corpus.length).toBeGreaterThan(20);
    expect(badInputs.length).toBeGreaterThan(20);
    expect(examples.length).toBeGreaterThan(2);
  });

  for (const [name, bytes] of Object.entries(GENERATED)) {
    it(`${name}: the same report, copy and summary on one thread and on workers`, async () => {
      await expectParity(name, bytes, ONE_THREAD);
      await expectParity(name, bytes, WORKERS);
    });
  }

  it("the corpus replays: the same on one thread", async () => {
    for (const path of corpus) await expectParity(path, readFileSync(path), ONE_THREAD);
  });

  it("the corpus JSON Lines replays: the same on workers", async () => {
    const lines = corpus.filter((p) => p.endsWith(".jsonl"));
    expect(lines.length).toBeGreaterThan(4);
    for (const path of lines) await expectParity(path, readFileSync(path), WORKERS);
  });

  for (const path of badInputs) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    it(`bad input ${name}: the same findings and errors, on one thread and on workers`, async () => {
      await expectParity(path, readFileSync(path), ONE_THREAD);
      // Only a JSON Lines file gets as far as the workers.
      if (/\.jsonl(\.gz)?$/.test(name)) await expectParity(path, readFileSync(path), WORKERS);
    });
  }

  it("the examples: the same on one thread", async () => {
    for (const path of examples) await expectParity(path, readFileSync(path), ONE_THREAD);
  });

  it("reads a JSON Lines file once: one worker pool for inspect and Layer C together", async () => {
    const before = poolStats.pools;
    const result = redactChecked(chunksOf(GENERATED["generated.REPLAY.jsonl"] as Buffer), {
      task: inspectRedactTask,
      file: "one-pool",
      parallel: WORKERS,
    });
    for await (const _ of result.chunks) {
      // read to the end
    }
    expect((await result.report).verdict).toBe("passed");
    expect(poolStats.pools - before).toBe(1);
  });

  it("refuses a failed input as before: RedactRefusedError with inspect's report, no byte of a copy", async () => {
    const bytes = GENERATED["tampered.REPLAY.jsonl"] as Buffer;
    const result = redactChecked(chunksOf(bytes), {
      task: inspectRedactTask,
      file: "tampered",
      parallel: WORKERS,
    });
    const copy = await drain(result.chunks, () => result.summary());
    expect(copy).toEqual({ errors: expect.stringContaining('"code":"redact.refused"') });
    expect((await result.report).verdict).toBe("failed");
  });
});

describe("tapOf", () => {
  it("fails the writer when inspect stops before the end of the file (no short copy)", async () => {
    const writer = new LayerCWriter({ file: "short" }, "private_repo");
    const tap = tapOf(writer, "short");
    const bytes = Buffer.from(generated(1, true).split("\n")[0] as string);
    // As inspect does: the shape of the first readable line, then the line.
    tap.shape?.(contentShape(bytes));
    await tap.line({ line: 1, bytes, terminated: true }, undefined);
    expect(writer.failed).toBe(false);
    tap.end({ complete: false });
    expect(writer.failed).toBe(true);
    const copy = writer.copy(originOf(await reportOf("x")), () => undefined);
    const thrown = await copy.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(ReplayPipelineError);
    const { code, kind } = thrown as ReplayPipelineError;
    expect([code, kind]).toEqual(["redact.incomplete", "bug"]);
  });

  it("makes the copy of the shape its front end gave, and refuses a readable line given without one", async () => {
    const line = {
      line: 1,
      bytes: Buffer.from(generated(1, true).split("\n")[0] as string),
      terminated: true,
    };
    // A line of a known format, given as JSON of no format: the writer goes by the shape.
    const told = new LayerCWriter({ file: "told" }, "private_repo");
    told.shape({ kind: "unknown", value: null });
    await told.line(line);
    const unknown = await told
      .copy(originOf(await reportOf("t")), () => undefined)
      .next()
      .catch((e: unknown) => e);
    expect((unknown as ReplayPipelineError).code).toBe("format.unknown");
    const untold = new LayerCWriter({ file: "untold" }, "private_repo");
    await untold.line(line);
    const refused = await untold
      .copy(originOf(await reportOf("u")), () => undefined)
      .next()
      .catch((e: unknown) => e);
    expect([(refused as ReplayPipelineError).code, (refused as ReplayPipelineError).kind]).toEqual([
      "redact.incomplete",
      "bug",
    ]);
  });

  it("passes inspect's source error to the writer, which throws it in place of a copy", async () => {
    const writer = new LayerCWriter({ file: "broken" }, "private_repo");
    const tap = tapOf(writer, "broken");
    const cause = new ReplayPipelineError("gzip.corrupt", "gzip data is corrupt");
    tap.end({ error: cause, complete: false });
    await expect(writer.copy(originOf(await reportOf("y")), () => undefined).next()).rejects.toBe(cause);
  });
});

/** A report to take an origin from. */
async function reportOf(name: string): Promise<InspectReport> {
  return (await inspect(chunksOf(Buffer.from(generated(2, true))), { file: name })).report;
}
