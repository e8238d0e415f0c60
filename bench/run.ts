/**
 * Benchmark harness (`npm run bench`, bundled to dist/bench.js): canonicalize + SHA-256
 * throughput of each profile on a generated OpenAgents REPLAY.jsonl, beside a JSON.parse +
 * JSON.stringify floor, the `canonicalize` npm package and Python's json module.
 *
 * Every run of every measurement happens in a fresh child process (`--one <name>`), under
 * `/usr/bin/time -v` when it exists, so each row gets its own peak RSS. To add a row, append to
 * MEASUREMENTS: a name, a label, and an async function over a file path returning bytes processed.
 *
 *   npm run bench                         100 MB file, every measurement, writes bench/results.md
 *   npm run bench -- --size 5             quick run
 *   npm run bench -- --only jcs,python    some rows
 *   npm run bench -- --only redact-secrets-dense,redact-secrets-dense-1t,process-secrets-dense,process-secrets-dense-1t
 *                                         the rows on the file dense in secrets
 *   npm run bench -- --only secret-recall the secret recall tables alone (no input file)
 *   npm run bench -- --only receipt-settle a receipt arriving in a session of 1,000 replays (no input file)
 *   npm run bench -- --only view-diff     viewer page of 10 and 100 MB sessions, diff of two (own inputs)
 *   npm run bench -- --only reprocess    10,000 small files through the reprocess path (no input file)
 *   npm run bench -- --only catalogue    one publish and one withdrawal at 1,000 and 5,000 copies (no input file)
 *
 * A `report` row is not a throughput: it runs in the harness's own process, once, and prints a section of
 * its own after the table (`secret-recall`: bench/secret-recall.ts on gitleaks' samples, bench/heldout-recall.ts on Nose Parker's and Kingfisher's).
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, release, tmpdir, totalmem, type } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import canonicalizeNpm from "canonicalize";
import { canonicalJsonLines, type Profile } from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { defaultWorkers } from "#shared/parallel/index.js";
import { processObject } from "#shared/pipeline/index.js";
import { inspectRedactTask, redactChecked, redactFile } from "#shared/redact/index.js";
import { folderPorts } from "../cli/adapters/files.js";
import { parallelOptions } from "../cli/worker-script.js";
import { adversarialReport } from "./adversarial.js";
import { catalogueReport } from "./catalogue.js";
import { lastLineOf } from "./child.js";
import {
  DATASET_SHAPES,
  type DatasetMeta,
  type DatasetShape,
  ensureReplayFile,
  GENERATOR_VERSION,
} from "./generate.js";
import { SCANNER_SETS, type ScannerExample, scannerRecall, scannerRecallMarkdown } from "./heldout-recall.js";
import { receiptSettleReport } from "./receipt-settle.js";
import { reprocessReport } from "./reprocess.js";
import { leaveFamilyOut, leaveFamilyOutMarkdown, parseSamples, truePositives } from "./secret-recall.js";
import { viewDiffReport } from "./view-diff.js";

// ---- measurements ----------------------------------------------------------------------------

/** What one run reports: bytes processed, optionally its own timing and an output digest. */
export interface RunResult {
  bytes: number;
  /** Seconds measured by the run itself (external programs); else the harness's wall time. */
  seconds?: number;
  /** `sha256:<hex>` of the output, to check runs (and implementations) agree. */
  digest?: string;
  /** Peak RSS the run saw itself (kB), used when `/usr/bin/time` is unavailable. */
  maxRssKb?: number;
  /**
   * CPU seconds (user and system, every thread) of a `--one` run's timed part: what to compare
   * two builds by on a shared machine, where wall time follows the neighbours' load.
   */
  cpuSeconds?: number;
}

interface MeasurementBase {
  /** Used by `--only` and `--one`. */
  name: string;
  /** Row text in the table. */
  label: string;
  /** Input size as a multiple of `--size` (default 1); e.g. 5 for a 500 MB row at the default. */
  scale?: number;
  /**
   * Which generated file (default `default`; `dense`: a tool call per 1.1 KB; `secrets-dense`: kept
   * text and params dense in secrets).
   */
  shape?: DatasetShape;
}

/** Runs inside a `node dist/bench.js --one <name>` child; timed by the harness. */
interface NodeMeasurement extends MeasurementBase {
  kind: "node";
  run: (file: string) => Promise<number | RunResult>;
}

/** Another program; prints a RunResult as JSON on stdout (with its own `seconds`). */
interface ExternalMeasurement extends MeasurementBase {
  kind: "external";
  command: (file: string) => string[];
  /** Why it cannot run on this machine, or undefined when it can. */
  unavailable?: () => string | undefined;
}

/** Not a throughput: runs in the harness's process, once, and gives a Markdown section of its own. */
interface ReportMeasurement extends MeasurementBase {
  kind: "report";
  /** The section's text (with its heading), or why it cannot run here. */
  report: () => Promise<{ text: string } | { skipped: string }> | { text: string } | { skipped: string };
}

type Measurement = NodeMeasurement | ExternalMeasurement | ReportMeasurement;
type FileMeasurement = NodeMeasurement | ExternalMeasurement;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DATA_DIR = join(ROOT, "bench", ".data");
const RESULTS = join(ROOT, "bench", "results.md");
const READ_CHUNK = 1 << 20;
const HASH_BATCH = 1 << 20;

/** The file as a stream of 1 MiB chunks, counting bytes read into `counter`. */
async function* readChunks(file: string, counter: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK })) {
    const buf = chunk as Buffer;
    counter.bytes += buf.length;
    yield buf;
  }
}

/**
 * The file's lines as strings, for the peer rows (kept here rather than borrowed from the library
 * so those rows stay fixed while the library changes). Blank lines are skipped, as the library does.
 */
async function* textLines(file: string, counter: { bytes: number }): AsyncGenerator<string> {
  let rest: Buffer | undefined;
  for await (const chunk of readChunks(file, counter)) {
    const buf = rest === undefined ? (chunk as Buffer) : Buffer.concat([rest, chunk]);
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
      const text = buf.toString("utf8", start, nl);
      if (!BLANK.test(text)) yield text;
      start = nl + 1;
    }
    rest = start < buf.length ? Buffer.from(buf.subarray(start)) : undefined;
  }
  if (rest !== undefined) {
    const text = rest.toString("utf8");
    if (!BLANK.test(text)) yield text;
  }
}

const BLANK = /^[ \t\r]*$/;

/** SHA-256 of a concatenation: strings are gathered into ~1 MB batches, byte chunks fed as they come. */
class BatchedSha256 {
  private readonly hash = createHash("sha256");
  private batch = "";

  add(data: string | Uint8Array): void {
    if (typeof data !== "string") {
      this.flush();
      this.hash.update(data);
      return;
    }
    this.batch += data;
    if (this.batch.length >= HASH_BATCH) this.flush();
  }

  digest(): string {
    this.flush();
    return `sha256:${this.hash.digest("hex")}`;
  }

  private flush(): void {
    if (this.batch.length > 0) this.hash.update(this.batch);
    this.batch = "";
  }
}

function profileRun(profile: Profile): (file: string) => Promise<RunResult> {
  return async (file) => {
    const counter = { bytes: 0 };
    const hash = new BatchedSha256();
    // Yields canonical lines (strings) or ~1 MB byte batches, depending on the library version.
    for await (const out of canonicalJsonLines(readChunks(file, counter), profile, { file })) hash.add(out);
    return { bytes: counter.bytes, digest: hash.digest() };
  };
}

function pythonUnavailable(): string | undefined {
  const probe = spawnSync("python3", ["--version"], { encoding: "utf8" });
  return probe.error !== undefined || probe.status !== 0 ? "python3 not found" : undefined;
}

/** What the label of a row on the `secrets-dense` file adds. */
const SECRETS_DENSE_LABEL = ", kept text and params dense in secrets";

/** What the label of a row adds for the file it reads. */
const SHAPE_LABELS: Record<DatasetShape, string> = {
  default: "",
  dense: ", a tool call per 1.1 KB",
  "secrets-dense": SECRETS_DENSE_LABEL,
  "escape-heavy": ", file contents and diffs heavy in escapes",
  "non-ascii": ", text mostly non-ASCII (CJK, emoji, accents)",
  "small-calls": ", tool calls of at most 1 KB with nested params",
  "large-outputs": ", outputs of about 100 KB",
};

/** A row name's part for its file: none for the default one. */
function shapeSuffix(shape: DatasetShape): string {
  return shape === "default" ? "" : `-${shape}`;
}

/** The rows, in table order. */
export const MEASUREMENTS: Measurement[] = [
  { kind: "node", name: "jcs", label: "replay-pipeline `jcs` + SHA-256", run: profileRun("jcs") },
  {
    kind: "node",
    name: "openagents",
    label: "replay-pipeline `openagents` + SHA-256",
    run: profileRun("openagents"),
  },
  {
    kind: "node",
    name: "replaykit",
    label: "replay-pipeline `replaykit` + SHA-256",
    run: profileRun("replaykit"),
  },
  {
    kind: "node",
    name: "floor",
    label: "floor: `JSON.parse` + `JSON.stringify` per line, no hash",
    run: async (file) => {
      const counter = { bytes: 0 };
      let chars = 0;
      for await (const text of textLines(file, counter)) chars += JSON.stringify(JSON.parse(text)).length;
      if (chars === 0) throw new Error(`${file}: no JSON lines`);
      return counter.bytes;
    },
  },
  {
    kind: "node",
    name: "canonicalize",
    label: `\`canonicalize\`${packageVersion("canonicalize")} (npm, JCS) per line + SHA-256`,
    run: async (file) => {
      const counter = { bytes: 0 };
      const hash = new BatchedSha256();
      for await (const text of textLines(file, counter)) {
        const out = canonicalizeNpm(JSON.parse(text));
        if (out === undefined) throw new Error(`${file}: canonicalize returned undefined`);
        hash.add(`${out}\n`);
      }
      return { bytes: counter.bytes, digest: hash.digest() };
    },
  },
  {
    kind: "external",
    name: "python",
    label: "Python `json.loads` + `json.dumps(sort_keys=True)` per line + hashlib",
    command: (file) => ["python3", join(ROOT, "bench", "peers", "python_hash.py"), file],
    unavailable: pythonUnavailable,
  },
  // On one core the default is one thread: the parallel rows would repeat the one-thread rows.
  ...(defaultWorkers() > 0 ? [true, false] : [false]).flatMap((parallel): NodeMeasurement[] => {
    const workers = parallel ? defaultWorkers() : 0;
    const threads = workers === 0 ? "one thread" : `${workers} worker thread${workers > 1 ? "s" : ""} + main`;
    const suffix = parallel ? "" : "-1t";
    return [
      ...DATASET_SHAPES.map(
        (shape): NodeMeasurement => ({
          kind: "node",
          name: `inspect${shapeSuffix(shape)}${suffix}`,
          label: `replay-pipeline \`inspect\` (validate, rehash every hash, summary)${SHAPE_LABELS[shape]}, ${threads}`,
          scale: shape === "default" ? 5 : 1,
          shape,
          run: async (file) => {
            const counter = { bytes: 0 };
            const { report } = await inspect(readChunks(file, counter), {
              file,
              keepToolCalls: false,
              parallel: parallelOptions(workers),
            });
            // A benchmark of a path that rejects its input would measure the wrong thing.
            if (report.verdict !== "passed")
              throw new Error(
                `${file}: inspect verdict ${report.verdict}: ${JSON.stringify(report.errors.slice(0, 3))}`,
              );
            return { bytes: counter.bytes, digest: report.replay_hash };
          },
        }),
      ),
      ...(["default", "secrets-dense"] as const).map(
        (shape): NodeMeasurement => ({
          kind: "node",
          name: `redact${shape === "secrets-dense" ? "-secrets-dense" : ""}${suffix}`,
          label: `replay-pipeline \`redact\` (inspect + Layer C, private_repo preset, one read)${shape === "secrets-dense" ? SECRETS_DENSE_LABEL : ""}, ${threads}`,
          scale: shape === "secrets-dense" ? 1 : 5,
          shape,
          run: async (file) => {
            const counter = { bytes: 0 };
            const hash = new BatchedSha256();
            const result = redactChecked(readChunks(file, counter), {
              task: inspectRedactTask,
              file,
              parallel: parallelOptions(workers),
            });
            for await (const chunk of result.chunks) hash.add(chunk);
            if (result.summary().total === 0 || result.summary().original.verdict !== "passed")
              throw new Error(
                `${file}: redact removed nothing or its input did not pass; wrong thing measured`,
              );
            return { bytes: counter.bytes, digest: hash.digest() };
          },
        }),
      ),
      {
        kind: "node",
        name: `layer-c${suffix}`,
        label: `replay-pipeline Layer C transform alone (\`redact\` without its inspection), ${threads}`,
        scale: 5,
        run: async (file) => {
          const counter = { bytes: 0 };
          const hash = new BatchedSha256();
          // The verdict recorded is a stand-in: this row measures the transform, not the check.
          const original = {
            replay_hash: "sha256:unknown",
            verdict: "passed",
            checks_total: { passed: 0, failed: 0, unverifiable: 0 },
            errors_total: 0,
          } as const;
          const result = redactFile(readChunks(file, counter), {
            file,
            parallel: parallelOptions(workers),
            original,
          });
          for await (const chunk of result.chunks) hash.add(chunk);
          if (result.summary().total === 0)
            throw new Error(`${file}: redact removed nothing; the benchmark would measure the wrong thing`);
          return { bytes: counter.bytes, digest: hash.digest() };
        },
      },
      ...DATASET_SHAPES.map(
        (shape): NodeMeasurement => ({
          kind: "node",
          name: `process${shapeSuffix(shape)}${suffix}`,
          label: `replay-pipeline \`process\` (the whole per-file job, one read, files in and out)${SHAPE_LABELS[shape]}, ${threads}`,
          scale: shape === "default" || shape === "dense" ? 5 : 1,
          shape,
          run: (file) => processRun(file, workers),
        }),
      ),
    ];
  }),
  {
    kind: "report",
    name: "secret-recall",
    label:
      "secret recall: leave-family-out (gitleaks' samples, generic layers alone); Nose Parker's and Kingfisher's samples",
    report: secretRecallReport,
  },
  {
    kind: "report",
    name: "adversarial-text",
    label: "adversarial text: the scrubber's time on 30 KB and 120 KB of repeated rule starts",
    report: adversarialReport,
  },
  {
    kind: "report",
    name: "receipt-settle",
    label: "a receipt arriving in a session of 1,000 replays: time to settle at one vCPU",
    report: () => receiptSettleReport(ROOT),
  },
  {
    kind: "report",
    name: "view-diff",
    label: "viewer page of 10 and 100 MB sessions; diff of two 100 MB sessions (time, peak RSS)",
    report: () => viewDiffReport(ROOT, DATA_DIR, VIEW_DIFF_SIZES_MB),
  },
  {
    kind: "report",
    name: "catalogue",
    label: "the catalogue: bytes and requests of one publish and one withdrawal at 1,000 and 5,000 copies",
    report: catalogueReport,
  },
  {
    kind: "report",
    name: "reprocess",
    label: "reprocess 10,000 small files (memory ports): files per second, CPU per file, peak heap",
    report: () => reprocessReport(ROOT),
  },
];

/** Session sizes of the `view-diff` row, MB (`VIEW_DIFF_SIZES_MB=1,5` for a quick run). */
const VIEW_DIFF_SIZES_MB = (process.env.VIEW_DIFF_SIZES_MB ?? "10,100").split(",").map(Number);

/** The scanners' samples, beside the project as the conformance tests read them (test/support/corpus.ts). */
const SECRETS_DIR = resolve(ROOT, "test", "corpus", "secrets");
const GITLEAKS_SAMPLES = resolve(SECRETS_DIR, "gitleaks-samples.jsonl");

/**
 * The `secret-recall` row: the leave-family-out table of bench/secret-recall.ts and the scanner
 * sets of bench/heldout-recall.ts (Nose Parker's, development; Kingfisher's, held out), timed.
 */
function secretRecallReport(): { text: string } | { skipped: string } {
  const files = [GITLEAKS_SAMPLES, ...Object.values(SCANNER_SETS).map((f) => resolve(SECRETS_DIR, f))];
  const missing = files.find((f) => !existsSync(f));
  if (missing !== undefined) return { skipped: `${missing} missing` };
  const started = performance.now();
  const tps = truePositives(parseSamples(readFileSync(GITLEAKS_SAMPLES, "utf8")));
  const table = leaveFamilyOutMarkdown(leaveFamilyOut(tps));
  const scanner = (file: string) =>
    scannerRecall(parseSamples(readFileSync(resolve(SECRETS_DIR, file), "utf8")) as ScannerExample[]);
  const sets = scannerRecallMarkdown([
    ["Nose Parker (development)", scanner(SCANNER_SETS.development)],
    ["Kingfisher (held-out)", scanner(SCANNER_SETS.heldOut)],
  ]);
  const seconds = (performance.now() - started) / 1000;
  return {
    text: [
      "## Secret recall, leave-family-out",
      "",
      `${tps.length.toLocaleString("en-US")} tp texts of \`gitleaks-samples.jsonl\`, and the samples of \`noseyparker-examples.jsonl\` and \`kingfisher-examples.jsonl\`, measured in ${fmt(seconds)} s (\`npm run bench -- --only secret-recall\`; docs/secret-recall.md).`,
      "",
      table,
      "",
      "## Secret recall on other scanners' samples",
      "",
      sets,
    ].join("\n"),
  };
}

/**
 * `processObject` over the CLI's file ports (`replay-pipeline process`): the file read from disk,
 * the Layer C copy, verdict document and index record written under a temporary folder, removed
 * when the process exits (outside the timing). The digest covers the record's hashes and counts.
 */
async function processRun(file: string, workers: number): Promise<RunResult> {
  const out = mkdtempSync(join(tmpdir(), "bench-process-"));
  process.on("exit", () => rmSync(out, { recursive: true, force: true }));
  const ports = folderPorts(out);
  await ports.index.reset();
  const source = await ports.objects.add("bench/session/REPLAY.jsonl", file);
  const { record } = await processObject(source, ports, {
    toolVersion: "bench",
    parallel: parallelOptions(workers),
  });
  if (record.verdict !== "passed" || record.layer_c_key === null)
    throw new Error(
      `${file}: process verdict ${record.verdict}, copy ${record.layer_c_key}: wrong thing measured`,
    );
  const digest = createHash("sha256")
    .update(JSON.stringify([record.replay_hash, record.checks_total, record.redactions]))
    .digest("hex");
  return { bytes: record.bytes, digest: `sha256:${digest}` };
}

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version === undefined ? "" : ` ${pkg.version}`;
  } catch {
    return "";
  }
}

let pythonVersionCache: string | undefined;
function pythonVersion(): string {
  if (pythonVersionCache === undefined) {
    const probe = spawnSync("python3", ["--version"], { encoding: "utf8" });
    pythonVersionCache =
      probe.status === 0 ? `${probe.stdout}${probe.stderr}`.trim().replace(/^Python\s+/, "") : "";
  }
  return pythonVersionCache;
}

// ---- arguments -------------------------------------------------------------------------------

interface Args {
  sizeMb: number;
  only: string[] | undefined;
  runs: number;
  write: boolean | undefined;
  one: string | undefined;
  file: string | undefined;
}

const USAGE = `usage: node --expose-gc dist/bench.js [--size MB] [--only name,name] [--runs N] [--write | --no-write]
measurements: ${MEASUREMENTS.map((m) => m.name).join(", ")}
bench/results.md is written on a full run (every measurement, default size) or with --write.`;

function parseArgs(argv: string[]): Args {
  const args: Args = {
    sizeMb: 100,
    only: undefined,
    runs: 3,
    write: undefined,
    one: undefined,
    file: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) usageError(`${flag} needs a value`);
      return v;
    };
    const positive = (v: string): number => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0)
        usageError(`${flag} expects a positive number, got ${JSON.stringify(v)}`);
      return n;
    };
    if (flag === "--size") args.sizeMb = positive(value());
    else if (flag === "--runs") args.runs = Math.max(1, Math.round(positive(value())));
    else if (flag === "--only")
      args.only = value()
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
    else if (flag === "--write") args.write = true;
    else if (flag === "--no-write") args.write = false;
    else if (flag === "--one") args.one = value();
    else if (flag === "--file") args.file = value();
    else if (flag === "--help" || flag === "-h") {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else usageError(`unknown argument ${JSON.stringify(flag)}`);
  }
  for (const name of [...(args.only ?? []), ...(args.one === undefined ? [] : [args.one])]) {
    if (!MEASUREMENTS.some((m) => m.name === name)) usageError(`unknown measurement ${JSON.stringify(name)}`);
  }
  return args;
}

function usageError(message: string): never {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

// ---- child side ------------------------------------------------------------------------------

/** `--one <name> --file <path>`: one timed run, its RunResult as JSON on stdout. */
async function runOne(name: string, file: string): Promise<void> {
  const m = MEASUREMENTS.find((x) => x.name === name);
  if (m === undefined || m.kind !== "node")
    usageError(`--one needs a node measurement, got ${JSON.stringify(name)}`);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const raw = await m.run(file);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const result: RunResult = typeof raw === "number" ? { bytes: raw } : { ...raw };
  result.seconds = seconds;
  result.cpuSeconds = (used.user + used.system) / 1e6;
  result.maxRssKb = process.resourceUsage().maxRSS;
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---- parent side -----------------------------------------------------------------------------

const TIME = "/usr/bin/time";

interface Measured {
  mbps: number;
  rssMb: number | undefined;
  digest: string | undefined;
}

/** Runs `argv` (under `/usr/bin/time -v` when available); returns its RunResult and peak RSS. */
async function runChild(argv: string[]): Promise<Measured> {
  const timeDir = existsSync(TIME) ? mkdtempSync(join(tmpdir(), "bench-time-")) : undefined;
  const timeFile = timeDir === undefined ? undefined : join(timeDir, "time.txt");
  const full = timeFile === undefined ? argv : [TIME, "-v", "-o", timeFile, ...argv];
  try {
    const last = await lastLineOf(full, argv.join(" "));
    const result = JSON.parse(last) as RunResult;
    if (typeof result.bytes !== "number" || typeof result.seconds !== "number") {
      throw new Error(`${argv.join(" ")} printed no RunResult: ${last}`);
    }
    let rssKb = result.maxRssKb;
    if (timeFile !== undefined) {
      const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, "utf8"));
      if (match !== null) rssKb = Number(match[1]);
    }
    return {
      mbps: result.bytes / 1e6 / result.seconds,
      rssMb: rssKb === undefined ? undefined : (rssKb * 1024) / 1e6,
      digest: result.digest,
    };
  } finally {
    if (timeDir !== undefined) rmSync(timeDir, { recursive: true, force: true });
  }
}

function childArgv(m: FileMeasurement, file: string): string[] {
  if (m.kind === "external") return m.command(file);
  return [process.execPath, "--expose-gc", fileURLToPath(import.meta.url), "--one", m.name, "--file", file];
}

interface Row {
  m: FileMeasurement;
  input: DatasetMeta;
  best: number;
  median: number;
  rssMb: number | undefined;
  digest: string | undefined;
  skipped?: string;
}

/** The generated file a measurement reads: its scale and shape. */
function datasetId(m: Measurement): string {
  return `${m.scale ?? 1}:${m.shape ?? "default"}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

function machine(): string {
  let cpu = cpus()[0]?.model ?? "unknown CPU";
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (model?.[1] !== undefined) cpu = model[1].trim();
  } catch {
    // Not Linux: os.cpus() it is.
  }
  const python = pythonVersion();
  return [
    `CPU: ${cpu}, ${availableParallelism()} cores`,
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`,
    `${type()} ${release()}`,
    `Node ${process.version}`,
    python === "" ? "no python3" : `Python ${python}`,
  ].join("; ");
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

function table(rows: Row[], runs: number): string {
  const header = ["measurement", `MB/s (best of ${runs})`, "MB/s (median)", "peak RSS MB"];
  const defaultBytes = rows[0]?.input.targetBytes;
  const body = rows.map((r) => {
    const label =
      r.input.targetBytes === defaultBytes
        ? r.m.label
        : `${r.m.label} (${fmt(r.input.bytes / 1e6, 0)} MB file)`;
    if (r.skipped !== undefined) return [label, `n/a (${r.skipped})`, "", ""];
    return [label, fmt(r.best), fmt(r.median), r.rssMb === undefined ? "n/a" : fmt(r.rssMb, 0)];
  });
  // Padded as Biome formats Markdown tables, so `biome ci` accepts bench/results.md as written.
  const widths = header.map((h, i) => Math.max(3, h.length, ...body.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.one !== undefined) {
    if (args.file === undefined) usageError("--one needs --file");
    await runOne(args.one, args.file);
    return;
  }

  const chosen =
    args.only === undefined ? MEASUREMENTS : MEASUREMENTS.filter((m) => args.only?.includes(m.name));
  const selected = chosen.filter((m): m is FileMeasurement => m.kind !== "report");
  const reports = chosen.filter((m): m is ReportMeasurement => m.kind === "report");
  const datasets = new Map<string, { path: string; meta: DatasetMeta }>();
  for (const m of selected) {
    const scale = m.scale ?? 1;
    const shape = m.shape ?? "default";
    const id = datasetId(m);
    if (datasets.has(id)) continue;
    const targetBytes = Math.round(args.sizeMb * scale * 1e6);
    const path = join(
      DATA_DIR,
      `openagents-${shape === "default" ? "" : `${shape}-`}replay-${targetBytes}.jsonl`,
    );
    datasets.set(id, { path, meta: await ensureReplayFile(path, targetBytes, { shape, log }) });
  }

  const rows: Row[] = [];
  for (const m of selected) {
    const dataset = datasets.get(datasetId(m)) as { path: string; meta: DatasetMeta };
    const skipped = m.kind === "external" ? m.unavailable?.() : undefined;
    if (skipped !== undefined) {
      log(`${m.name}: skipped (${skipped})`);
      rows.push({ m, input: dataset.meta, best: 0, median: 0, rssMb: undefined, digest: undefined, skipped });
      continue;
    }
    const results: Measured[] = [];
    for (let i = 1; i <= args.runs; i++) {
      const r = await runChild(childArgv(m, dataset.path));
      log(
        `${m.name}: run ${i}/${args.runs}: ${fmt(r.mbps)} MB/s, peak RSS ${r.rssMb === undefined ? "n/a" : `${fmt(r.rssMb, 0)} MB`}`,
      );
      results.push(r);
    }
    const digests = new Set(results.map((r) => r.digest));
    if (digests.size > 1) {
      log(`WARNING ${m.name}: runs disagree on the output digest: ${[...digests].join(", ")}`);
    } else if (results[0]?.digest !== undefined) {
      log(`${m.name}: output ${results[0].digest}`);
    }
    const rss = results.map((r) => r.rssMb).filter((x): x is number => x !== undefined);
    rows.push({
      m,
      input: dataset.meta,
      best: Math.max(...results.map((r) => r.mbps)),
      median: median(results.map((r) => r.mbps)),
      rssMb: rss.length === 0 ? undefined : Math.max(...rss),
      digest: results[0]?.digest,
    });
  }

  const notes: string[] = [];
  const jcs = rows.find((r) => r.m.name === "jcs")?.digest;
  const npm = rows.find((r) => r.m.name === "canonicalize")?.digest;
  if (jcs !== undefined && npm !== undefined) {
    const same = jcs === npm;
    if (!same) log(`WARNING: jcs digest ${jcs} differs from canonicalize (npm) digest ${npm}`);
    notes.push(
      same
        ? `Check: the \`jcs\` output is byte-identical to the \`canonicalize\` package's (both ${jcs.slice(0, 19)}…).`
        : `WARNING: the \`jcs\` output differs from the \`canonicalize\` package's (${jcs} vs ${npm}).`,
    );
  }

  const primary =
    datasets.get("1:default") ??
    [...datasets.values()].find((d) => (d.meta.shape ?? "default") === "default") ??
    [...datasets.values()][0];
  const input =
    primary === undefined
      ? ""
      : `Input: a generated OpenAgents REPLAY.jsonl of ${fmt(primary.meta.bytes / 1e6)} MB, ${primary.meta.lines.toLocaleString("en-US")} lines (generator v${GENERATOR_VERSION}, seed ${primary.meta.seed}).`;
  const dense = [...datasets.values()].find((d) => d.meta.shape === "dense");
  const denseInput =
    dense === undefined
      ? []
      : [
          `The \`dense\` rows read a generated file of ${fmt(dense.meta.bytes / 1e6)} MB with a ToolCall+ToolResult pair per ${fmt(dense.meta.bytes / ((dense.meta.lines - 3) / 2) / 1e3, 2)} KB (${Math.floor((dense.meta.lines - 3) / 2).toLocaleString("en-US")} tool calls).`,
        ];
  const secrets = [...datasets.values()].find((d) => d.meta.shape === "secrets-dense");
  const secretsInput =
    secrets === undefined
      ? []
      : [
          `The \`secrets-dense\` rows read a generated file of ${fmt(secrets.meta.bytes / 1e6)} MB (${secrets.meta.lines.toLocaleString("en-US")} lines) whose kept text (ToolResult \`error.message\`, Verification \`command\`, SessionEnd \`summary\`) and ToolCall \`params\` are log text dense in secrets: assignments, bearer headers, URLs with passwords, JWTs, vendor tokens, base64 blobs, the odd private key, between ordinary lines.`,
        ];
  // The report rows' sections come after the table (or alone, when no throughput row was chosen).
  const sections: string[] = [];
  for (const m of reports) {
    const out = await m.report();
    if ("skipped" in out) log(`${m.name}: skipped (${out.skipped})`);
    else log(`${m.name}: done`);
    sections.push("skipped" in out ? `${m.label}: n/a (${out.skipped}).` : out.text);
  }
  const text = [
    ...(rows.length === 0
      ? []
      : [
          input,
          ...denseInput,
          ...secretsInput,
          `Each run is a fresh process; the canonicalization rows run on one thread, \`inspect\`, \`redact\` and \`process\` with the default worker threads (one per core beyond the first; the main thread works too) and again on one thread (\`--workers 0\`). \`process\` is \`processObject\` over the CLI's file ports (what \`replay-pipeline process\` runs): the file read from disk, its Layer C copy (through the spool), verdict document and index record written to a temporary folder. The other rows stream the file in 1 MiB chunks and hash the canonical output in ~1 MB batches. MB/s = file bytes / 10^6 / wall seconds (Python times itself with \`time.perf_counter\`); peak RSS is the highest over the runs${existsSync(TIME) ? " (`/usr/bin/time -v`)" : " (`process.resourceUsage().maxRSS`)"}.`,
          "",
          table(rows, args.runs),
          "",
          ...(notes.length > 0 ? [...notes, ""] : []),
        ]),
    ...sections.flatMap((section) => [section, ""]),
    `Machine: ${machine()}.`,
  ].join("\n");
  process.stdout.write(`\n${text}\n`);

  const full = args.only === undefined && args.sizeMb === 100;
  if (args.write ?? full) {
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(
      RESULTS,
      `# Benchmark results\n\n<!-- Written by \`npm run bench\` on ${date}; rerun it rather than editing by hand. -->\n\n${text}\n`,
    );
    log(`wrote ${RESULTS}`);
  } else {
    log("bench/results.md not written (partial run; pass --write to force)");
  }
  // A run of every measurement ends with the local end-to-end rows (bench/e2e.ts, own section).
  if (args.only === undefined) await endToEnd(args.write ?? full);
}

/** `dist/bench-e2e.js`, beside this bundle; it writes its section of results.md when `write`. */
function endToEnd(write: boolean): Promise<void> {
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "bench-e2e.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, write ? "--write" : "--no-write"], { stdio: "inherit" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`bench-e2e exited with ${code}`)),
    );
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
