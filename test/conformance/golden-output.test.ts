/**
 * Holds every output byte-identical to the one the code gave when `golden-output.json` was
 * written: the SHA-256 of each canonical profile's output (`canonicalJsonLines`,
 * `canonicalDocument`), of each `inspect` report and session, and of each Layer C copy and its
 * summary (`redactFile`, `redactChecked`, each preset), over every file of the conformance corpus
 * (test/corpus/) and a small generated file of each benchmark shape (bench/generate.ts, fixed
 * seed). A refactoring that changes one byte fails here. On the bench files the worker path
 * (every line on a worker) must give the same digests as the calling thread (`inspect`, and the
 * `private_repo` copies).
 *
 * The golden file has two sections: `canonical` (profiles and inspect) and `layerC` (the copies),
 * kept apart because tuning secret detection legitimately changes Layer C copies and nothing else.
 * When a change of output is intended, rewrite the file and review its diff:
 *
 *   UPDATE_GOLDEN=1 npx vitest run test/conformance/golden-output.test.ts
 *
 * (the test then writes the file and fails, so an update is never mistaken for a pass).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalDocument, canonicalJsonLines, PROFILES } from "#shared/canonical/index.js";
import { ReplayPipelineError } from "#shared/errors.js";
import { inspect } from "#shared/formats/index.js";
import type { ParallelOptions } from "#shared/parallel/index.js";
import { inspectRedactTask, type Preset, redactChecked, redactFile } from "#shared/redact/index.js";
import { DATASET_SHAPES, replayLines } from "../../bench/generate.js";
import { CORPUS, PROJECT_ROOT } from "../support/corpus.js";
import { LINE_WORKER } from "../support/worker.js";

const GOLDEN = join(PROJECT_ROOT, "test", "conformance", "golden-output.json");
const UPDATE = process.env.UPDATE_GOLDEN === "1";
const PRESETS: Preset[] = ["open_source", "private_repo", "paranoid"];
/** Each bench file's size: large enough for the worker path's batches, small enough for a test. */
const BENCH_BYTES = 1_500_000;
const ON_WORKERS: ParallelOptions = {
  workers: 2,
  threshold: 0,
  batchBytes: 64 * 1024,
  waitForWorkers: true,
  workerScript: LINE_WORKER,
};

/** Digests by input, then by output. */
type Digests = Record<string, Record<string, string>>;
interface Golden {
  canonical: Digests;
  layerC: Digests;
}

/** Every corpus file, by its path under test/corpus/ (licenses and notes too: they are inputs like any). */
function corpusFiles(dir = CORPUS): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? corpusFiles(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

const INPUTS: [string, () => Buffer][] = [
  ...corpusFiles().map((path): [string, () => Buffer] => [
    `corpus/${relative(CORPUS, path)}`,
    () => readFileSync(path),
  ]),
  ...DATASET_SHAPES.map((shape): [string, () => Buffer] => [
    `bench/${shape}`,
    () => Buffer.from(`${[...replayLines(BENCH_BYTES, { shape, seed: 2026 })].join("\n")}\n`),
  ]),
];

async function* chunks(bytes: Buffer, size = 256 * 1024): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function sha(...parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** The digest of what `run` gives, or the stable code of the error it throws. */
async function digestOf(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ReplayPipelineError) return `error:${error.code}`;
    throw error;
  }
}

async function copyDigest(copy: AsyncIterable<Uint8Array>, rest: () => unknown): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of copy) hash.update(chunk);
  hash.update(JSON.stringify(rest()));
  return hash.digest("hex");
}

async function canonicalDigests(name: string, bytes: Buffer, parallel?: ParallelOptions) {
  const out: Record<string, string> = {};
  if (parallel === undefined) {
    for (const profile of PROFILES) {
      out[`lines:${profile}`] = await digestOf(async () => {
        const hash = createHash("sha256");
        for await (const batch of canonicalJsonLines(chunks(bytes), profile, { file: name }))
          hash.update(batch);
        return hash.digest("hex");
      });
      out[`document:${profile}`] = await digestOf(async () =>
        sha(canonicalDocument(bytes, profile, { file: name })),
      );
    }
  }
  out.inspect = await digestOf(async () => {
    const { report, session } = await inspect(chunks(bytes), {
      file: name,
      keepToolCalls: true,
      ...(parallel === undefined ? {} : { parallel }),
    });
    return sha(JSON.stringify(report), JSON.stringify(session));
  });
  return out;
}

async function layerCDigests(name: string, bytes: Buffer, parallel?: ParallelOptions) {
  const out: Record<string, string> = {};
  const withPool = parallel === undefined ? {} : { parallel };
  // On workers one preset: the line task is the same for each, and every run starts two threads.
  for (const preset of parallel === undefined ? PRESETS : ["private_repo" as const]) {
    out[`redactChecked:${preset}`] = await digestOf(async () => {
      const result = redactChecked(chunks(bytes), {
        task: inspectRedactTask,
        file: name,
        preset,
        allowUnverified: true,
        ...withPool,
      });
      return copyDigest(result.chunks, () => result.summary());
    });
    out[`redactFile:${preset}`] = await digestOf(async () => {
      const original = {
        replay_hash: `sha256:${sha(bytes)}`,
        verdict: "passed",
        checks_total: { passed: 0, failed: 0, unverifiable: 0 },
        errors_total: 0,
      } as const;
      const result = redactFile(chunks(bytes), { file: name, preset, original, ...withPool });
      return copyDigest(result.chunks, () => (result.errors.length > 0 ? result.errors : result.summary()));
    });
  }
  return out;
}

const golden: Golden = UPDATE
  ? { canonical: {}, layerC: {} }
  : (JSON.parse(readFileSync(GOLDEN, "utf8")) as Golden);

describe("output is byte-identical to golden-output.json", () => {
  it("covers every input it is run on, no more and no fewer", () => {
    if (UPDATE) return;
    expect(Object.keys(golden.canonical).sort()).toEqual(INPUTS.map(([name]) => name).sort());
    expect(Object.keys(golden.layerC).sort()).toEqual(INPUTS.map(([name]) => name).sort());
  });

  for (const [name, read] of INPUTS) {
    it(`${name}: canonical profiles, inspect, Layer C copies`, async () => {
      // Prepare
      const bytes = read();
      // Act
      const canonical = await canonicalDigests(name, bytes);
      const layerC = await layerCDigests(name, bytes);
      // Assess
      if (UPDATE) {
        golden.canonical[name] = canonical;
        golden.layerC[name] = layerC;
        return;
      }
      expect(canonical).toEqual(golden.canonical[name]);
      expect(layerC).toEqual(golden.layerC[name]);
    });
  }

  for (const shape of DATASET_SHAPES) {
    const name = `bench/${shape}`;
    it(`${name}: on worker threads, the same inspect and Layer C digests`, async () => {
      if (UPDATE) return;
      // Prepare
      const read = INPUTS.find(([n]) => n === name)?.[1];
      if (read === undefined) throw new Error(`${name} missing from the inputs`);
      const bytes = read();
      // Act
      const canonical = await canonicalDigests(name, bytes, ON_WORKERS);
      const layerC = await layerCDigests(name, bytes, ON_WORKERS);
      // Assess
      expect(canonical.inspect).toBe(golden.canonical[name]?.inspect);
      expect(layerC).toEqual({
        "redactChecked:private_repo": golden.layerC[name]?.["redactChecked:private_repo"],
        "redactFile:private_repo": golden.layerC[name]?.["redactFile:private_repo"],
      });
    });
  }

  it("was not asked to rewrite the golden file (UPDATE_GOLDEN=1 writes it and fails)", () => {
    if (UPDATE) {
      writeFileSync(GOLDEN, `${JSON.stringify(golden, null, 2)}\n`);
      throw new Error(`wrote ${GOLDEN}; review its diff, then run again without UPDATE_GOLDEN`);
    }
    expect(golden.canonical).not.toEqual({});
  });
});
