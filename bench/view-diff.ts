/**
 * The `view-diff` row of `npm run bench`: the viewer page of generated sessions (page size, time to
 * read and to build, peak RSS of `view`), and `diff` of two generated sessions that differ in a few
 * steps (time and peak RSS). Each command runs as the CLI runs, in a child process; its peak RSS is
 * the child's own (`process.resourceUsage().maxRSS` at exit).
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";
import { type ViewStep, viewerPage } from "#shared/view/index.js";
import { ensureReplayFile } from "./generate.js";

/** Prints the child's peak RSS (kB) and CPU time (µs, every thread) on standard error as it exits. */
const PEAK_RSS =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("bench-maxrss-kb:"+u.maxRSS+" cpu-us:"+(u.userCPUTime+u.systemCPUTime)+"\\n")})';

/** Edits of the second diff input, as shares of its tool calls: params changed there, one call removed. */
const CHANGED_AT = [0.01, 0.22, 0.66];
const REMOVED_AT = 0.44;

interface Run {
  seconds: number;
  cpuSeconds: number;
  maxRssKb: number;
  code: number | null;
  stdout: string;
}

function runCli(root: string, args: string[]): Run {
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    ["--import", PEAK_RSS, join(root, "bin", "replay-pipeline.js"), ...args],
    {
      cwd: root,
      maxBuffer: 1 << 30,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const stderr = child.stderr.toString("utf8");
  const rss = /bench-maxrss-kb:(\d+) cpu-us:(\d+)/.exec(stderr);
  if (rss === null) throw new Error(`view-diff: ${args.join(" ")} gave no peak RSS: ${stderr.slice(0, 500)}`);
  return {
    seconds,
    cpuSeconds: Number(rss[2]) / 1e6,
    maxRssKb: Number(rss[1]),
    code: child.status,
    stdout: child.stdout.toString("utf8"),
  };
}

/**
 * `source` (about `total` tool calls) with the params of the calls at `CHANGED_AT` changed after
 * their hash was taken, and the call at `REMOVED_AT` removed with its result (results follow their
 * call directly).
 */
async function editedCopy(source: string, target: string, total: number): Promise<void> {
  const changed = CHANGED_AT.map((share) => Math.max(1, Math.round(share * total)));
  const removed = Math.round(REMOVED_AT * total);
  const out = createWriteStream(target);
  let calls = 0;
  let skipResult = false;
  for await (const line of createInterface({
    input: createReadStream(source),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    let text = line;
    if (line.includes('"type":"ToolCall"')) {
      calls++;
      if (calls === removed) {
        skipResult = true;
        continue;
      }
      if (changed.includes(calls)) text = line.replace('"params":{', '"params":{"bench_edit":1,');
    } else if (skipResult && line.includes('"type":"ToolResult"')) {
      skipResult = false;
      continue;
    }
    if (!out.write(`${text}\n`)) await once(out, "drain");
  }
  out.end();
  await finished(out);
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** Seconds and bytes of `viewerPage` alone for a synthetic session of `n` tool calls (no reading). */
function pageBuild(n: number): { seconds: number; bytes: number } {
  const hash = (k: number): string => `sha256:${k.toString(16).padStart(64, "0")}`;
  const steps: ViewStep[] = Array.from({ length: n }, (_, i) => ({
    n: i + 1,
    kind: "tool",
    id: `step-${String(i + 1).padStart(6, "0")}`,
    name: ["read_file", "shell", "write_file", "grep"][i % 4] as string,
    line: 2 * i + 3,
    status: "ok",
    duration_ms: i % 1000,
    hashes: [
      { field: "params", recorded: hash(2 * i), actual: null, status: null },
      { field: "output", recorded: hash(2 * i + 1), actual: null, status: null },
    ],
    markers: [],
    text: null,
    call: null,
    receipt: [],
  }));
  const started = performance.now();
  const page = viewerPage({
    file: "synthetic.REPLAY.jsonl",
    format: "replay-v1",
    verdict: "passed",
    replay_hash: hash(0),
    trajectory_hash: null,
    bytes: 0,
    session_id: "synthetic",
    producer: null,
    checks: [],
    checks_total: { passed: 2 * n, failed: 0, unverifiable: 0 },
    errors: [],
    errors_total: 0,
    original: null,
    redaction: null,
    receipt: null,
    steps,
  });
  return { seconds: (performance.now() - started) / 1000, bytes: Buffer.byteLength(page) };
}

/** Debian's Chromium, driven by playwright-core when both are there. */
const CHROMIUM = "/usr/bin/chromium";

/**
 * Seconds from navigation to the first timeline row in headless Chromium, for each page; null
 * when Chromium or playwright-core is missing here.
 */
async function firstRenders(pages: string[]): Promise<number[] | null> {
  if (!existsSync(CHROMIUM)) return null;
  let chromium: typeof import("playwright-core").chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    return null;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const out: number[] = [];
    for (const page of pages) {
      const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const started = performance.now();
      await tab.goto(`file://${page}`, { waitUntil: "commit" });
      await tab.waitForSelector("#steps tbody tr", { timeout: 120_000 });
      out.push((performance.now() - started) / 1000);
      await tab.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** The section: a table for `view` at each size, and the diff of two sessions of the largest. */
export async function viewDiffReport(
  root: string,
  dataDir: string,
  sizesMb: number[],
): Promise<{ text: string }> {
  const lines = [
    "## Viewer page and diff of generated sessions",
    "",
    "Generated OpenAgents REPLAY.jsonl files of the `dense` shape (a tool call per 1.1 KB), each command run as the CLI runs (a child process, default workers).",
    "",
  ];
  const rows: string[] = [];
  const pages: string[] = [];
  let largest = "";
  let largestCalls = 0;
  for (const size of sizesMb) {
    const file = join(dataDir, `openagents-dense-replay-${size * 1_000_000}.jsonl`);
    const meta = await ensureReplayFile(file, size * 1_000_000, { shape: "dense" });
    const page = `${file}.view.html`;
    const run = runCli(root, ["view", file, "-o", page, "-q"]);
    if (run.code !== 0) throw new Error(`view-diff: view ${file} exited ${run.code}`);
    const calls = Math.round((meta.lines - 3) / 2);
    rows.push(
      `| ${mb(meta.bytes)} MB | ~${calls.toLocaleString("en-US")} | ${run.seconds.toFixed(2)} s (CPU ${run.cpuSeconds.toFixed(2)} s) | ${mb(statSync(page).size)} MB | ${(run.maxRssKb / 1024).toFixed(0)} MB |`,
    );
    pages.push(page);
    largest = file;
    largestCalls = calls;
  }
  const renders = await firstRenders(pages);
  const built = pageBuild(100_000);
  lines.push(
    `| session | tool calls | \`view\` wall time (CPU) | page size | \`view\` peak RSS |${renders === null ? "" : " first rows in Chromium |"}`,
    `|---|---|---|---|---|${renders === null ? "" : "---|"}`,
    ...rows.map((row, i) => (renders === null ? row : `${row} ${(renders[i] ?? 0).toFixed(2)} s |`)),
  );
  const edited = `${largest}.edited.jsonl`;
  if (!existsSync(edited) || statSync(edited).mtimeMs < statSync(largest).mtimeMs)
    await editedCopy(largest, edited, largestCalls);
  const diff = runCli(root, ["diff", largest, edited, "--json", "-q"]);
  if (diff.code !== 1) throw new Error(`view-diff: diff exited ${diff.code}, expected 1 (they differ)`);
  const report = JSON.parse(diff.stdout) as { counts: Record<string, number>; alignment: { exact: boolean } };
  const same = runCli(root, ["diff", largest, largest, "-q"]);
  if (same.code !== 0) throw new Error(`view-diff: diff of a file with itself exited ${same.code}`);
  const c = report.counts;
  lines.push(
    "",
    `\`diff\` of two ${mb(statSync(largest).size)} MB sessions (the second with ${CHANGED_AT.length} tool calls' params changed and one call removed): **${diff.seconds.toFixed(2)} s** (CPU ${diff.cpuSeconds.toFixed(2)} s, every thread), peak RSS **${(diff.maxRssKb / 1024).toFixed(0)} MB**; found ${c.changed} changed, ${c.added} added, ${c.removed} removed, ${c.equal} equal (${report.alignment.exact ? "minimal alignment" : "windowed alignment"}). The file against itself: ${same.seconds.toFixed(2)} s (CPU ${same.cpuSeconds.toFixed(2)} s), ${(same.maxRssKb / 1024).toFixed(0)} MB. Load average during the run: ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores: wall time on a shared machine is mostly waiting; CPU time is the cost.`,
    "",
    `\`viewerPage\` alone (no reading), a synthetic session of 100,000 tool calls: ${built.seconds.toFixed(2)} s, ${mb(built.bytes)} MB.`,
    "",
    renders === null
      ? `Time to first render in Chromium not measured: ${CHROMIUM} or playwright-core is missing.`
      : "First rows in Chromium: headless, from navigation of the `file://` page to the first timeline row in the DOM.",
  );
  return { text: lines.join("\n") };
}
