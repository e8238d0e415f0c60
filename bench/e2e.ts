/**
 * The local end-to-end benchmark (`npm run bench:e2e`, bundled to dist/bench-e2e.js; the full
 * `npm run bench` runs it after its own rows): the real local stack of `npm start` (s3rver, the
 * queue with SQS's semantics, the ingest handler, dynalite, all in one process) and `processObject`
 * as a 1-vCPU Lambda runs it.
 *
 *   latency   upload-to-verdict p50/p95 of 1 MB replays, one at a time: from PutObject to the
 *             verdict record being readable (the stack reads it back before it reports it)
 *   mixed     files per second for 500 files of every format (the examples, receipts included),
 *             uploaded 16 at a time, until the last verdict record
 *   lambda    `processObject` on a 100 MB replay with worker threads off, pinned to one CPU
 *             (`taskset -c 0`) where it exists, over file-backed ports (no network)
 *
 * Each runs in a fresh child process (`--one NAME`) that reports its own peak RSS. The section is
 * written into bench/results.md between its markers (kept when the rest of the file is rewritten
 * by the full run, which calls this after writing its table).
 *
 *   npm run bench:e2e                              every row; writes the section
 *   npm run bench:e2e -- --only latency --no-write one row, printed only
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { processObject } from "#shared/pipeline/index.js";
import { folderPorts } from "../cli/adapters/files.js";
import { LocalStack } from "../cli/local/stack.js";
import { lastLineOf } from "./child.js";
import { ensureReplayFile } from "./generate.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DATA_DIR = join(ROOT, "bench", ".data");
const RESULTS = join(ROOT, "bench", "results.md");
const EXAMPLES = join(ROOT, "examples");
const START = "<!-- e2e:start -->";
const END = "<!-- e2e:end -->";

const LATENCY_FILES = 40;
const LATENCY_WARMUP = 3;
const MIXED_FILES = 500;
const MIXED_IN_FLIGHT = 16;
const LAMBDA_BYTES = 100_000_000;
const LAMBDA_RUNS = 3;

/** What a child prints as its last line. */
interface ChildResult {
  /** The row's figures, already formatted. */
  result: string;
  /** Peak RSS of the child, kB (`process.resourceUsage().maxRSS`). */
  maxRssKb: number;
  /** Extra facts for the notes under the table. */
  note?: string;
}

interface Measurement {
  name: "latency" | "mixed" | "lambda";
  label: string;
  run: () => Promise<Omit<ChildResult, "maxRssKb">>;
  /** Run pinned to one CPU (a 1-vCPU Lambda). */
  oneCpu?: boolean;
}

function log(message: string): void {
  process.stderr.write(`bench-e2e: ${message}\n`);
}

function percentile(sorted: number[], p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at] as number;
}

/** A local stack in memory on free ports, resolving each key's verdict as its record lands. */
async function stackWithVerdicts(): Promise<{
  stack: LocalStack;
  verdict: (key: string) => Promise<number>;
}> {
  const waiting = new Map<string, (at: number) => void>();
  const landed = new Map<string, number>();
  const root = mkdtempSync(join(tmpdir(), "bench-e2e-"));
  const stack = await LocalStack.start({
    root,
    memory: true,
    s3Port: 0,
    dynamoPort: 0,
    onOutcome: (outcome) => {
      if (outcome.type === "dead-letter") {
        log(`${outcome.key} went to the dead-letter folder: the figures would be wrong`);
        process.exit(1);
      }
      if (outcome.type !== "verdict") return;
      const at = performance.now();
      const resolve = waiting.get(outcome.key);
      if (resolve === undefined) landed.set(outcome.key, at);
      else resolve(at);
    },
  });
  const verdict = (key: string) =>
    new Promise<number>((resolve) => {
      const at = landed.get(key);
      if (at === undefined) waiting.set(key, resolve);
      else resolve(at);
    });
  return { stack, verdict };
}

async function latency(): Promise<Omit<ChildResult, "maxRssKb">> {
  const file = join(DATA_DIR, "openagents-replay-1000000.jsonl");
  const meta = await ensureReplayFile(file, 1_000_000, { log });
  const body = await readFile(file);
  const { stack, verdict } = await stackWithVerdicts();
  const times: number[] = [];
  try {
    for (let n = 0; n < LATENCY_WARMUP + LATENCY_FILES; n++) {
      const key = `bench/latency-${n}/REPLAY.jsonl`;
      const landed = verdict(key);
      const started = performance.now();
      await stack.s3.send(new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: key, Body: body }));
      const at = await landed;
      if (n >= LATENCY_WARMUP) times.push(at - started);
    }
  } finally {
    await stack.close();
  }
  times.sort((a, b) => a - b);
  return {
    result: `p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms`,
    note: `latency: ${LATENCY_FILES} uploads of a ${(meta.bytes / 1e6).toFixed(2)} MB OpenAgents REPLAY.jsonl (${meta.lines} lines), each to its own session, one at a time after ${LATENCY_WARMUP} warm-up uploads; min ${times[0]?.toFixed(0)} ms, max ${times.at(-1)?.toFixed(0)} ms.`,
  };
}

async function mixed(): Promise<Omit<ChildResult, "maxRssKb">> {
  const names = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
  const bodies = new Map(
    await Promise.all(names.map(async (n) => [n, await readFile(join(EXAMPLES, n))] as const)),
  );
  // Each session holds one of every example: a receipt beside its replay, a tampered file.
  const uploads = Array.from({ length: MIXED_FILES }, (_, n) => {
    const name = names[n % names.length] as string;
    return { key: `bench/mixed-${Math.floor(n / names.length)}/${name}`, body: bodies.get(name) as Buffer };
  });
  const bytes = uploads.reduce((sum, u) => sum + u.body.length, 0);
  const { stack, verdict } = await stackWithVerdicts();
  let seconds: number;
  let cpuMsPerFile: number;
  try {
    const done = Promise.all(uploads.map((u) => verdict(u.key)));
    const started = performance.now();
    const cpu = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: MIXED_IN_FLIGHT }, async () => {
        while (next < uploads.length) {
          const u = uploads[next++] as (typeof uploads)[number];
          await stack.s3.send(
            new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: u.key, Body: u.body }),
          );
        }
      }),
    );
    const ended = Math.max(...(await done));
    seconds = (ended - started) / 1000;
    const used = process.cpuUsage(cpu);
    cpuMsPerFile = (used.user + used.system) / 1000 / MIXED_FILES;
  } finally {
    await stack.close();
  }
  return {
    result: `${(MIXED_FILES / seconds).toFixed(1)} files/s (${seconds.toFixed(1)} s); ${cpuMsPerFile.toFixed(0)} ms CPU per file`,
    note: `mixed: ${MIXED_FILES} files (${(bytes / 1e6).toFixed(2)} MB) cycling the ${names.length} examples (${names.join(", ")}) over ${Math.ceil(MIXED_FILES / names.length)} sessions, uploaded ${MIXED_IN_FLIGHT} at a time; the stack's queue hands batches of 10 to 2 handler calls at once. CPU per file is the whole process's (servers, queue, handler) user + system time over the run.`,
  };
}

async function lambda(): Promise<Omit<ChildResult, "maxRssKb">> {
  const file = join(DATA_DIR, `openagents-replay-${LAMBDA_BYTES}.jsonl`);
  const meta = await ensureReplayFile(file, LAMBDA_BYTES, { log });
  const rates: number[] = [];
  const perCpuSecond: number[] = [];
  for (let run = 0; run < LAMBDA_RUNS; run++) {
    const out = mkdtempSync(join(tmpdir(), "bench-lambda-"));
    try {
      const ports = folderPorts(out);
      await ports.index.reset();
      const source = await ports.objects.add("bench/lambda/REPLAY.jsonl", file);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const result = await processObject(source, ports, { toolVersion: "bench", parallel: { workers: 0 } });
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      if (result.record.layer_c_key === null) throw new Error(`not published: ${result.record.verdict}`);
      rates.push(meta.bytes / 1e6 / seconds);
      perCpuSecond.push(meta.bytes / 1e6 / ((used.user + used.system) / 1e6));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    (globalThis as { gc?: () => void }).gc?.();
  }
  rates.sort((a, b) => a - b);
  perCpuSecond.sort((a, b) => a - b);
  const pinned = process.argv.includes("--pinned");
  return {
    result: `${(rates.at(-1) as number).toFixed(1)} MB/s best, ${percentile(rates, 50).toFixed(1)} median; ${percentile(perCpuSecond, 50).toFixed(1)} MB per CPU-second`,
    note: `lambda: \`processObject\` (inspect, every hash, Layer C copy, verdict document, index record) on a ${(meta.bytes / 1e6).toFixed(1)} MB OpenAgents REPLAY.jsonl over file-backed ports, \`workers: 0\`, ${LAMBDA_RUNS} runs in one process${pinned ? ", pinned to one CPU with `taskset -c 0`" : ""}. MB/s is of wall time (what a Lambda with one vCPU to itself gets); MB per CPU-second (user + system time of the process, median) is what the load of other work on the machine cannot lower.`,
  };
}

const MEASUREMENTS: Measurement[] = [
  { name: "latency", label: "upload-to-verdict latency, 1 MB replay, local stack", run: latency },
  { name: "mixed", label: `${MIXED_FILES} mixed files (every format, receipts), local stack`, run: mixed },
  {
    name: "lambda",
    label: "`processObject`, workers off, one CPU (a 1-vCPU Lambda), 100 MB replay",
    run: lambda,
    oneCpu: true,
  },
];

function taskset(): boolean {
  return existsSync("/usr/bin/taskset") && availableParallelism() > 1;
}

/** Runs `--one name` in a child; its last stdout line is a ChildResult. */
function runChild(m: Measurement): Promise<ChildResult> {
  const argv = [
    process.execPath,
    "--openssl-legacy-provider",
    "--expose-gc",
    fileURLToPath(import.meta.url),
    "--one",
    m.name,
  ];
  const full = m.oneCpu === true && taskset() ? ["/usr/bin/taskset", "-c", "0", ...argv, "--pinned"] : argv;
  return lastLineOf(full, `--one ${m.name}`).then((last) => JSON.parse(last) as ChildResult);
}

/** A Markdown table padded as Biome formats it (so `biome ci` accepts results.md as written). */
function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function load(): string {
  const probe = spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" });
  return probe.status === 0 ? probe.stdout.split(" ").slice(0, 3).join(" ") : "n/a";
}

/** Replaces the section between the markers in results.md, or appends it. */
function writeSection(section: string): void {
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "# Benchmark results\n";
  const block = `${START}\n\n${section}\n\n${END}`;
  const from = current.indexOf(START);
  const to = current.indexOf(END);
  const next =
    from !== -1 && to > from
      ? `${current.slice(0, from)}${block}${current.slice(to + END.length)}`
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, next);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const one = flag("--one");
  if (one !== undefined) {
    const m = MEASUREMENTS.find((x) => x.name === one);
    if (m === undefined) throw new Error(`--one: no measurement ${one}`);
    const result = await m.run();
    process.stdout.write(`${JSON.stringify({ ...result, maxRssKb: process.resourceUsage().maxRSS })}\n`);
    return;
  }
  const only = flag("--only")?.split(",");
  for (const name of only ?? [])
    if (!MEASUREMENTS.some((m) => m.name === name))
      throw new Error(`--only: expected ${MEASUREMENTS.map((m) => m.name).join(", ")}, got ${name}`);
  const selected = MEASUREMENTS.filter((m) => only === undefined || only.includes(m.name));
  const rows: string[][] = [];
  const notes: string[] = [];
  const loadBefore = load();
  for (const m of selected) {
    log(`running ${m.name}`);
    const r = await runChild(m);
    log(`${m.name}: ${r.result}, peak RSS ${((r.maxRssKb * 1024) / 1e6).toFixed(0)} MB`);
    rows.push([m.label, r.result, ((r.maxRssKb * 1024) / 1e6).toFixed(0)]);
    if (r.note !== undefined) notes.push(`- ${r.note}`);
  }
  const section = [
    "## Local end to end",
    "",
    "The local stack of `npm start` (s3rver, the queue, the ingest handler, dynalite) in one process, and `processObject` as a 1-vCPU Lambda runs it. Each row is a fresh process; its peak RSS includes the servers where they run.",
    "",
    markdownTable(["measurement", "result", "peak RSS MB"], rows),
    "",
    ...notes,
    "",
    `Machine: ${cpus()[0]?.model ?? "unknown CPU"}, ${availableParallelism()} cores, Node ${process.version}; load average ${loadBefore} before the run (other work shares the machine).`,
  ].join("\n");
  process.stdout.write(`\n${section}\n`);
  const write = argv.includes("--write") || (only === undefined && !argv.includes("--no-write"));
  if (write) {
    writeSection(section);
    log(`wrote the end-to-end section of ${RESULTS}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench-e2e: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
