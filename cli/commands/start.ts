import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { constants } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { ReplayPipelineError } from "#shared/errors.js";
import { scrubbedKey } from "#shared/pipeline/index.js";
import { Scrubber } from "#shared/redact/index.js";
import { s3DocumentReader } from "../../functions/adapters/audit-source.js";
import { auditKeyBase, runAudit, storeAudit } from "../../functions/lib/audit-job.js";
import type { FileRecord } from "../../shared/pipeline/index.js";
import { intOption, parseCommandArgs } from "../args.js";
import { LocalStackError, UsageError } from "../errors.js";
import { outputError, packageFile, toInputError, writeOut } from "../io.js";
import { hasLegacyProvider } from "../local/servers.js";
import { LocalStack, type StackOutcome } from "../local/stack.js";
import type { TornObject } from "../local/torn-objects.js";
import { stackSource, startWebUi, type WebUi } from "../local/web-ui.js";

/** Help text of `start`. */
export const START_HELP = `Usage: replay-pipeline start [options]      (npm start -- [options])

Runs the pipeline on this machine: an S3 server (s3rver) and a DynamoDB server (dynalite) on
127.0.0.1, the ingest, published and reports buckets and the index table, and the ingest Lambda's
handler behind a queue with SQS's semantics (batches, retries after a visibility delay, a
dead-letter folder after --max-receives). Uploads the examples, prints each verdict as it lands,
and keeps processing whatever is dropped into the ingest bucket (replay-pipeline push --local, or
any S3 client with --endpoint-url) until Ctrl-C. Endpoints and names go to DIR/stack.json.

Once the examples have their verdicts it writes the audit report of the day (the scheduled audit's
JSON, Markdown and HTML) to DIR/reports/ and to the reports bucket (audits/<day>.*), and prints
where.

Unless --no-ui, it also serves a read-only web UI on 127.0.0.1 (its address is in the banner):
sessions by tenant, day and verdict, a session's files and receipt checks, each published copy's
viewer page, a diff of two files (/d?a=KEY&b=KEY) and the audit reports.

Options:
  --once               process the examples and exit: 0 when each got a recorded verdict
                       (whatever it is), 1 when one has none (dead-lettered, or pending at
                       --timeout), 2 when the stack cannot start
  --memory             keep no data (default: DIR/data, kept between runs)
  --dir DIR            the stack's folder (default .local)
  --examples DIR       what to upload first (default ./examples, or the installed package's
                       examples when there is none; key examples/<name up to its first dot>/<name>)
  --s3-port N          S3 port (default 4569; 0 picks a free one)
  --dynamo-port N      DynamoDB port (default 4570; 0 picks a free one)
  --max-receives N     receives before a record goes to DIR/dlq (default 3)
  --timeout S          with --once, seconds to wait for verdicts (default 120)
  --ui-port N          port of the read-only web UI on 127.0.0.1 (default 0: a free one)
  --no-ui              serve no web UI
  --viewer-pages       write each published copy's viewer page beside it
                       (<copy key>.view.html), linked from the tenant's catalogue
  --verbose            print the handler's JSON logs too
  -h, --help           this help

s3rver needs Node's legacy OpenSSL provider: npm start sets --openssl-legacy-provider, and
without it the stack runs in a child process of node with it.`;

const OPTIONS = {
  once: { type: "boolean" },
  memory: { type: "boolean" },
  dir: { type: "string" },
  examples: { type: "string" },
  "s3-port": { type: "string" },
  "dynamo-port": { type: "string" },
  "max-receives": { type: "string" },
  timeout: { type: "string" },
  verbose: { type: "boolean" },
  "ui-port": { type: "string" },
  "no-ui": { type: "boolean" },
  "viewer-pages": { type: "boolean" },
} as const;

/**
 * One line of the live table. The key is shown as the scrubber passes it: an upload's key is the
 * uploader's text (`t/s/token=ghp_….jsonl`), and a terminal's scrollback is shared and logged.
 */
export function liveRow(outcome: StackOutcome, now = new Date()): string {
  const time = now.toISOString().slice(11, 19);
  const key = shownKey(outcome.key);
  if (outcome.type === "dead-letter")
    return `${time}  ${"DEAD-LETTER".padEnd(12)}  ${key}  (receive ${outcome.receives}; ${outcome.path})\n`;
  if (outcome.type === "retry")
    return `${time}  ${"RETRY".padEnd(12)}  ${key}  (receive ${outcome.receives})\n`;
  const r: FileRecord = outcome.record;
  const what = [r.kind, r.format, `${r.ms} ms`].filter((x) => x !== null).join(", ");
  const where = r.layer_c_key === null ? "" : `  → published ${r.layer_c_key}`;
  const why = r.first_error === null ? "" : `  ${r.first_error.code}`;
  return `${time}  ${r.verdict.toUpperCase().padEnd(12)}  ${key}  (${what})${why}${where}\n`;
}

/** The line of an object found torn at start (a crash mid-upload) and set aside. */
export function tornRow(torn: TornObject): string {
  const where = torn.setAsideIn === null ? "" : `; set aside in ${torn.setAsideIn}`;
  return `torn object s3://${torn.bucket}/${shownKey(torn.key)}: ${torn.reason}${where}\n`;
}

/** One scrubber for every key the console shows. */
let consoleScrubber: Scrubber | undefined;
function shownKey(key: string): string {
  consoleScrubber ??= new Scrubber({ preset: "private_repo" });
  return scrubbedKey(key, consoleScrubber);
}

/** The examples to upload: key `examples/<stem>/<name>` so each example is its own session. */
async function examplesOf(dir: string): Promise<{ path: string; key: string }[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (error) {
    throw toInputError(dir, error);
  }
  return names
    .sort()
    .map((name) => ({ path: join(dir, name), key: `examples/${name.split(".")[0]}/${name}` }));
}

/** ./examples, or the package's own (an installed CLI run from a folder that has none). */
function defaultExamples(): string {
  return existsSync("examples") ? "examples" : fileURLToPath(packageFile("examples"));
}

const LEGACY_FLAG = /--openssl-legacy-provider\b/;

/**
 * Runs this `start` again in a child node with `--openssl-legacy-provider` (the installed binary's
 * `#!/usr/bin/env node` cannot pass it) and returns its exit code. The child gets a process group
 * of its own: signals reach it forwarded from here, never twice.
 */
async function withLegacyProvider(argv: string[]): Promise<number> {
  const script = process.argv[1];
  if (script === undefined) throw new LocalStackError("start: cannot find the script to run again");
  const child = spawn(
    process.execPath,
    ["--openssl-legacy-provider", ...process.execArgv, script, "start", ...argv],
    { stdio: "inherit", detached: true },
  );
  // Each signal once: npx and a terminal may both deliver a Ctrl-C, and a second SIGINT would kill
  // the child mid-stop instead of letting it close its servers.
  const forwarded = new Set<NodeJS.Signals>();
  const forward = (signal: NodeJS.Signals) => {
    if (!forwarded.has(signal)) child.kill(signal);
    forwarded.add(signal);
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const signal of signals) process.on(signal, forward);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", (error) =>
        reject(new LocalStackError(`start: node could not be run again: ${error.message}`, error)),
      );
      child.once("exit", (code, signal) =>
        resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])),
      );
    });
  } finally {
    for (const signal of signals) process.off(signal, forward);
  }
}

/** `replay-pipeline start`: the local stack. */
export async function startCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("start", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${START_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`start: unexpected argument '${positionals[0]}'`);
  if (
    !hasLegacyProvider() &&
    !LEGACY_FLAG.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`)
  )
    return await withLegacyProvider(argv);
  const timeout = (intOption("start", "timeout", values.timeout) ?? 120) * 1000;
  const uiPort = intOption("start", "ui-port", values["ui-port"], 0) ?? 0;
  const examples = await examplesOf(values.examples ?? defaultExamples());
  const root = values.dir ?? ".local";
  const firstDay = new Date().toISOString().slice(0, 10);
  const deadLetters = new Map<string, string>();
  const stack = await LocalStack.start({
    root,
    memory: values.memory === true,
    s3Port: intOption("start", "s3-port", values["s3-port"], 0) ?? 4569,
    dynamoPort: intOption("start", "dynamo-port", values["dynamo-port"], 0) ?? 4570,
    maxReceives: intOption("start", "max-receives", values["max-receives"]) ?? 3,
    viewerPages: values["viewer-pages"] === true,
    logLevel: values.verbose === true ? "INFO" : "SILENT",
    onOutcome: (outcome) => {
      if (outcome.type === "dead-letter") deadLetters.set(outcome.key, outcome.path);
      process.stdout.write(liveRow(outcome));
    },
  }).catch((error: unknown) => {
    if (error instanceof ReplayPipelineError) throw error;
    throw new LocalStackError(`the local stack could not start in ${root}: ${String(error)}`, error);
  });
  const { info } = stack;
  await writeOut(
    `local stack: S3 ${info.s3Endpoint} (buckets ${info.ingestBucket}, ${info.publishedBucket}, ${info.reportsBucket}), DynamoDB ${info.dynamoEndpoint} (table ${info.tableName}); ${join(root, "stack.json")}\n`,
  );
  for (const torn of stack.torn) await writeOut(tornRow(torn));
  let ui: WebUi | null = null;
  try {
    if (values["no-ui"] !== true) {
      ui = await startWebUi(stackSource(stack.s3, stack.index, info), { port: uiPort });
      await writeOut(`web UI (read-only): ${ui.url}\n`);
    }
    await writeOut(`uploading ${examples.length} example(s) to s3://${info.ingestBucket}/examples/\n`);
    for (const { path, key } of examples) {
      await stack.s3.send(
        new PutObjectCommand({ Bucket: info.ingestBucket, Key: key, Body: await readFile(path) }),
      );
    }
    if (values.once === true) return await once(stack, examples, timeout, { root, firstDay, deadLetters });
    await writeOut(
      `waiting for uploads: replay-pipeline push FILE --local --tenant T --session S, or aws s3 cp FILE s3://${info.ingestBucket}/T/S/ --endpoint-url ${info.s3Endpoint}; Ctrl-C stops\n`,
    );
    const stopped = new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    // The report of the examples, once they settle (unless Ctrl-C comes first).
    const first = await Promise.race([stack.settled().then(() => "settled" as const), stopped]);
    // A report that cannot be written is worth a warning, not the running stack.
    if (first === "settled")
      await writeAudit(stack, root, firstDay).catch((error: unknown) =>
        process.stderr.write(`replay-pipeline: start: the audit report was not written: ${String(error)}\n`),
      );
    await stopped;
  } finally {
    await ui?.close();
    await stack.close();
  }
  await writeOut("local stack stopped\n");
  return 0;
}

/** `--once`: waits for the examples' verdicts, writes the audit; 0 when each has a record. */
async function once(
  stack: LocalStack,
  examples: { key: string }[],
  timeout: number,
  run: { root: string; firstDay: string; deadLetters: Map<string, string> },
): Promise<number> {
  const timer = new Promise<"timeout">((resolve) => setTimeout(resolve, timeout, "timeout").unref());
  const outcome = await Promise.race([stack.settled(), timer]);
  const missing: string[] = [];
  for (const { key } of examples) if ((await stack.recordOf(key)) === null) missing.push(key);
  if (outcome === "timeout") await writeOut(`timed out after ${timeout / 1000} s\n`);
  for (const key of missing) {
    const letter = run.deadLetters.get(key);
    await writeOut(
      `no verdict recorded for ${shownKey(key)}: ${letter === undefined ? "still being processed" : `dead-lettered (${letter})`}\n`,
    );
  }
  if (missing.length === 0) await writeOut(`every example (${examples.length}) has a recorded verdict\n`);
  await writeAudit(stack, run.root, run.firstDay);
  return missing.length === 0 ? 0 : 1;
}

/**
 * The scheduled audit's report of the days the stack has run (all tenants), to the reports bucket
 * as the audit function stores it and to `<root>/reports/`; prints where.
 */
async function writeAudit(stack: LocalStack, root: string, firstDay: string): Promise<void> {
  const now = new Date();
  const until = now.toISOString().slice(0, 10);
  const { reportsBucket } = stack.info;
  const audit = await runAudit(stack.index, s3DocumentReader(stack.s3, reportsBucket), {
    since: firstDay,
    until,
    tenant: null,
    now,
    receiptAgeHours: 24,
  });
  const keys = await storeAudit(stack.s3, reportsBucket, audit);
  const dir = join(root, "reports");
  await mkdir(dir, { recursive: true }).catch((error: unknown) => Promise.reject(outputError(dir, error)));
  const files: string[] = [];
  for (const [ext, text] of [
    ["json", audit.json],
    ["md", audit.markdown],
    ["html", audit.html],
  ] as const) {
    const path = join(dir, `audit-${basename(auditKeyBase(audit.report))}.${ext}`);
    await writeFile(path, text).catch((error: unknown) => Promise.reject(outputError(path, error)));
    files.push(path);
  }
  const t = audit.report.totals;
  const where = [...files, ...keys.map((key) => `s3://${reportsBucket}/${key}`)];
  await writeOut(
    `audit report (${t.files} file(s) in ${t.sessions} session(s), ${audit.report.period.since} to ${audit.report.period.until}):\n${where.map((w) => `  ${w}\n`).join("")}`,
  );
}
