/**
 * `replay-pipeline reprocess`: runs the per-file job again on stored originals when rules change.
 * Selects records from the day index (no scan), writes the run's manifest to the reports bucket
 * (`reprocess/<run-id>/manifest.json`), then runs it: on AWS (`--stack`) through the stack's Step
 * Functions Distributed Map, on the local stack (`--local`) through its queue like an upload, or
 * (`--in-process`, and for a target named by environment variables) in this process over the
 * target's buckets and table. The first two are followed (items done and failed, ETA) and their
 * results read back into the same change report. A run stopped midway and started again with its
 * `--run-id` reads its manifest back and does only what it had not finished (each record is
 * replaced once per run id).
 */
import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { GetObjectCommand, NoSuchKey, PutObjectCommand } from "@aws-sdk/client-s3";
import { SFNClient } from "@aws-sdk/client-sfn";
import { readConfig } from "../../functions/lib/config.js";
import { makeReprocessHandler, RUN_ID } from "../../functions/lib/reprocess.js";
import type { Verdict } from "../../shared/formats/index.js";
import type { RulePack } from "../../shared/pipeline/index.js";
import {
  manifestKey,
  type ReprocessItem,
  type ReprocessReport,
  reportOf,
  rulesDigest,
  runItems,
  selectItems,
} from "../../shared/pipeline/index.js";
import { isPreset, type Preset } from "../../shared/redact/index.js";
import { intOption, parseCommandArgs } from "../args.js";
import { LocalStackError, UsageError } from "../errors.js";
import { toolVersion, writeOut } from "../io.js";
import { countProgress } from "../progress.js";
import { checkName, connect, TARGET_HELP, TARGET_OPTIONS, type Target } from "../remote.js";
import {
  followStatus,
  localInputKey,
  localStatusKey,
  type RunInput,
  type RunStatus,
  readRunResults,
  readText,
} from "../reprocess-results.js";
import { runStatus, STATE_MACHINE_OUTPUT, startRun } from "../reprocess-sfn.js";

/** Help text of `reprocess`. */
export const REPROCESS_HELP = `Usage: replay-pipeline reprocess (--tenant T | --all-tenants) [--since D] [--until D]
         [--verdict V,...] [--stale] [--dry-run] [--run-id ID] [--max-concurrency N] [--preset P]
         [--in-process] [--json] [--local | --local-dir DIR | --stack NAME]

Runs the pipeline's per-file job again on the stored originals (the version each record names)
and replaces their records, verdict documents, attestations and published copies; reports what
changed: verdicts, copies re-published, copies withdrawn because they now fail or now redact more.

Selection (from the index's day index, processed_at):
  --tenant T            one tenant's records
  --all-tenants         every tenant the index lists on each day (operator)
  --since D, --until D  processed from day D (default: 365 days ago) to day D (default: today)
  --verdict V,...       only these verdicts (passed, failed, unverifiable, invalid)
  --stale               only records made by other rules than the ones that run (rules digest
                        differs): the local stack's (its stack.json), else --preset's
  --preset P            the Layer C preset the pipeline runs (default private_repo): the rules

Run:
  --dry-run             print the selection, change nothing
  --run-id ID           the run's id (default: a new one, printed); give it again to resume a
                        stopped run: its manifest is read back and finished files are skipped
  --max-concurrency N   files at once with --in-process (default 4)
  --in-process          run the files in this process, not through the stack's own queue or
                        state machine (the only way for a target given by environment variables)
  --json                print the report as one JSON line
${TARGET_HELP}
With --stack the run goes through the stack's state machine (output ${STATE_MACHINE_OUTPUT}); with
--local through the local stack's queue, like an upload. Both are followed until they end (items
done and failed, ETA) and their results read back into the report; Ctrl-C stops following only.

Exit codes: 0 done (or dry run), 1 some files failed or the run stopped early, 2 usage or configuration error.`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  tenant: { type: "string" },
  "all-tenants": { type: "boolean" },
  since: { type: "string" },
  until: { type: "string" },
  verdict: { type: "string" },
  stale: { type: "boolean" },
  preset: { type: "string" },
  "dry-run": { type: "boolean" },
  "run-id": { type: "string" },
  "max-concurrency": { type: "string" },
  "in-process": { type: "boolean" },
  json: { type: "boolean" },
} as const;

const VERDICTS: readonly Verdict[] = ["passed", "failed", "unverifiable", "invalid"];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What a caller other than the command line (a test) may add: a stop signal, a rule pack, a poll interval. */
export interface ReprocessHooks {
  /**
   * In process: stops taking files once aborted (SIGINT does the same); the run can be resumed by
   * its id. Through a stack's queue or state machine: stops following (the run goes on).
   */
  signal?: AbortSignal;
  /** The rules an in-process run runs instead of `--preset`'s (a test's rule pack). */
  rules?: RulePack;
  /** How often a run on a stack is polled, ms (default 5000 on AWS, 250 locally). */
  pollMs?: number;
}

function dayOption(name: string, value: string | undefined, fallback: Date): string {
  const day = value ?? fallback.toISOString().slice(0, 10);
  if (!DAY.test(day) || Number.isNaN(Date.parse(day)))
    throw new UsageError(`reprocess: --${name} '${day}' is not a day; expected YYYY-MM-DD`);
  return day;
}

/** A new run id: the time and a random tail. */
function newRunId(): string {
  return `rp-${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}-${randomBytes(3).toString("hex")}`;
}

/** The run's manifest, read back from the reports bucket; null when there is none yet. */
async function readManifest(t: Target, runId: string): Promise<ReprocessItem[] | null> {
  try {
    const out = await t.s3.send(new GetObjectCommand({ Bucket: t.reportsBucket, Key: manifestKey(runId) }));
    return JSON.parse((await out.Body?.transformToString("utf8")) ?? "[]") as ReprocessItem[];
  } catch (error) {
    if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return null;
    throw error;
  }
}

/** What `reprocess` selects and runs with, from its options, checked. */
function selection(
  values: ReturnType<typeof parseReprocessArgs>["values"],
  positionals: string[],
  hooks: ReprocessHooks,
) {
  if (positionals.length > 0) throw new UsageError(`reprocess: unexpected argument '${positionals[0]}'`);
  if ((values.tenant === undefined) === (values["all-tenants"] !== true))
    throw new UsageError("reprocess: give --tenant T or --all-tenants (one of them)");
  const tenant = values.tenant === undefined ? null : checkName("reprocess", "tenant", values.tenant);
  const now = new Date();
  const since = dayOption("since", values.since, new Date(now.getTime() - 365 * 86_400_000));
  const until = dayOption("until", values.until, now);
  const verdicts = (values.verdict?.split(",") ?? []).map((v) => v.trim()).filter((v) => v !== "");
  for (const v of verdicts)
    if (!(VERDICTS as readonly string[]).includes(v))
      throw new UsageError(`reprocess: --verdict '${v}'; expected ${VERDICTS.join(", ")}`);
  const preset = values.preset ?? "private_repo";
  if (!isPreset(preset))
    throw new UsageError(`reprocess: --preset '${preset}'; expected open_source, private_repo or paranoid`);
  const rules = hooks.rules ?? { preset: preset as Preset };
  const runId = values["run-id"] ?? newRunId();
  if (!RUN_ID.test(runId))
    throw new UsageError(`reprocess: --run-id '${runId}'; expected 1-80 of A-Z a-z 0-9 . _ -`);
  const concurrency = intOption("reprocess", "max-concurrency", values["max-concurrency"]) ?? 4;
  return { tenant, since, until, verdicts, rules, runId, concurrency };
}

const parseReprocessArgs = (argv: string[]) => parseCommandArgs("reprocess", argv, OPTIONS);

/** `replay-pipeline reprocess`. */
export async function reprocessCommand(argv: string[], hooks: ReprocessHooks = {}): Promise<number> {
  const { values, positionals } = parseReprocessArgs(argv);
  if (values.help === true) {
    await writeOut(`${REPROCESS_HELP}\n`);
    return 0;
  }
  const { tenant, since, until, verdicts, rules, runId, concurrency } = selection(values, positionals, hooks);

  const t = await connect("reprocess", values);
  try {
    const queued = t.localRules !== undefined && values["in-process"] !== true;
    if (values.stack !== undefined && values["in-process"] === true)
      throw new UsageError(
        "reprocess: --in-process runs over a stack's buckets, not its state machine: give one",
      );
    // What runs decides what is stale: the local stack's handlers run its own rules.
    const digest =
      queued && hooks.rules === undefined && t.localRules?.rulesDigest
        ? t.localRules.rulesDigest
        : (rules.rulesDigest ?? rulesDigest(rules.preset, rules.packRules));
    let items = await readManifest(t, runId);
    const resumed = items !== null;
    if (items === null) {
      const filter = {
        tenant,
        since: `${since}T00:00:00.000Z`,
        // The whole last day: until is excluded, so the next day's midnight.
        until: new Date(Date.parse(`${until}T00:00:00.000Z`) + 86_400_000).toISOString(),
        verdicts: verdicts as Verdict[],
        stale: values.stale === true,
        rulesDigest: digest,
      };
      items = await selectItems(t.index, filter);
    }
    process.stderr.write(
      `reprocess: run ${runId}${resumed ? " (resumed: its manifest read back)" : ""}: ${items.length} file(s) selected; rules ${digest}\n`,
    );
    if (values["dry-run"] === true) {
      const report = reportOf(runId, digest, items.length, []);
      await writeOut(
        values.json === true ? `${JSON.stringify({ dry_run: true, ...report, items })}\n` : dryRunText(items),
      );
      return 0;
    }
    if (!resumed)
      await t.s3.send(
        new PutObjectCommand({
          Bucket: t.reportsBucket,
          Key: manifestKey(runId),
          Body: JSON.stringify(items),
          ContentType: "application/json",
        }),
      );
    let report: ReprocessReport;
    if (values.stack !== undefined) {
      const run = await startOnAws(t, values.stack, values.region, runId);
      try {
        report = await followed(
          t,
          runId,
          digest,
          items.length,
          run.poll,
          hooks.pollMs ?? 5_000,
          hooks.signal,
        );
      } finally {
        run.close();
      }
    } else if (queued) {
      const poll = await startOnLocalStack(t, runId);
      report = await followed(t, runId, digest, items.length, poll, hooks.pollMs ?? 250, hooks.signal);
    } else report = await runHere(t, values.region, runId, items, concurrency, rules, digest, hooks.signal);
    await writeOut(values.json === true ? `${JSON.stringify(report)}\n` : reportText(report));
    return report.failed.length > 0 || report.remaining > 0 ? 1 : 0;
  } finally {
    t.close();
  }
}

/** Runs the items in this process over the target's buckets and table, `concurrency` at once. */
async function runHere(
  t: Target,
  region: string | undefined,
  runId: string,
  items: ReprocessItem[],
  concurrency: number,
  rules: NonNullable<ReprocessHooks["rules"]>,
  digest: string,
  signal?: AbortSignal,
): Promise<ReprocessReport> {
  const config = readConfig({
    AWS_REGION: region ?? process.env.AWS_REGION ?? "us-east-1",
    INGEST_BUCKET: t.ingestBucket,
    PUBLISHED_BUCKET: t.publishedBucket,
    REPORTS_BUCKET: t.reportsBucket,
    TABLE_NAME: t.tableName,
    // Republished copies get viewer pages as the pipeline's own do (its setting, from here).
    VIEWER_PAGES: process.env.VIEWER_PAGES,
  });
  const handle = makeReprocessHandler({
    config,
    s3: t.s3,
    dynamo: t.dynamo,
    logger: new Logger({ serviceName: "replay-pipeline-reprocess", logLevel: "SILENT" }),
    toolVersion: toolVersion(),
    rules,
  });
  // Ctrl-C stops taking files: those in flight finish, and the run resumes by its id.
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once("SIGINT", interrupt);
  signal?.addEventListener("abort", interrupt, { once: true });
  const progress = countProgress(`reprocess ${runId}`, items.length);
  try {
    const { changes, failed } = await runItems(items, (item) => handle({ run_id: runId, item }), {
      concurrency,
      signal: stop.signal,
      onProgress: (done) => progress.update(done),
    });
    return reportOf(runId, digest, items.length, changes, failed);
  } finally {
    progress.end();
    process.removeListener("SIGINT", interrupt);
  }
}

/** Starts the stack's state machine on the run's manifest; its status poll and a way to let go. */
async function startOnAws(
  t: Target,
  stack: string,
  region: string | undefined,
  runId: string,
): Promise<{ poll: () => Promise<RunStatus>; close: () => void }> {
  const settings = region === undefined ? {} : { region };
  const cfn = new CloudFormationClient(settings);
  const out = await cfn.send(new DescribeStacksCommand({ StackName: stack })).finally(() => cfn.destroy());
  const arn = out.Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STATE_MACHINE_OUTPUT)?.OutputValue;
  if (arn === undefined)
    throw new UsageError(`reprocess: stack ${stack} has no output ${STATE_MACHINE_OUTPUT}`);
  const sfn = new SFNClient(settings);
  try {
    const input = { run_id: runId, manifest: { bucket: t.reportsBucket, key: manifestKey(runId) } };
    const execution = await startRun(sfn, arn, input);
    process.stderr.write(`reprocess: started ${execution}\n`);
    return { poll: () => runStatus(sfn, execution), close: () => sfn.destroy() };
  } catch (error) {
    sfn.destroy();
    throw error;
  }
}

/**
 * Starts the run on the local stack: a start request beside the manifest, which the stack turns
 * into queued items for its reprocess handler; the poll reads the status the stack keeps.
 */
async function startOnLocalStack(t: Target, runId: string): Promise<() => Promise<RunStatus | null>> {
  const execution = `${runId}-${Date.now().toString(36)}`;
  const input: RunInput = { run_id: runId, manifest: { bucket: t.reportsBucket, key: manifestKey(runId) } };
  await t.s3.send(
    new PutObjectCommand({
      Bucket: t.reportsBucket,
      Key: localInputKey(runId, execution),
      Body: JSON.stringify(input),
      ContentType: "application/json",
    }),
  );
  process.stderr.write(`reprocess: queued on the local stack as ${execution}\n`);
  const started = Date.now();
  let seen = false;
  let failures = 0;
  return async () => {
    let text: string | null;
    try {
      text = await readText(t.s3, { bucket: t.reportsBucket, key: localStatusKey(runId, execution) });
      failures = 0;
    } catch (error) {
      // One read cut short (the local S3 resets a read of a key being rewritten) is read again;
      // several in a row: the stack is gone.
      if (++failures < LOCAL_FAILED_POLLS) return null;
      throw new LocalStackError(
        `reprocess: the local stack stopped during run ${runId}; start it again and resume with --run-id ${runId}`,
        error,
      );
    }
    if (text === null && !seen && Date.now() - started > LOCAL_START_MS)
      throw new LocalStackError(
        `reprocess: the local stack did not take run ${runId} within ${LOCAL_START_MS / 1000} s: is it this version's (npm start)?`,
      );
    if (text === null) return null;
    seen = true;
    try {
      return JSON.parse(text) as RunStatus;
    } catch {
      // Read while the stack rewrote it (the local S3 cuts such a read short): the next poll reads it.
      return null;
    }
  };
}

/** Status reads failed in a row (each after the SDK's own retries) that mean the local stack is gone. */
const LOCAL_FAILED_POLLS = 4;

/** How long a local stack may take to answer a start request with a status, ms. */
const LOCAL_START_MS = 30_000;

/**
 * Follows a run on a stack to its end (items done and failed, ETA on the progress line), then
 * reads its results into the report local runs print; stopped following early (`signal`, Ctrl-C),
 * the report counts what the status said and leaves the rest `remaining`.
 */
async function followed(
  t: Target,
  runId: string,
  digest: string,
  total: number,
  poll: () => Promise<RunStatus | null>,
  everyMs: number,
  signal?: AbortSignal,
): Promise<ReprocessReport> {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once("SIGINT", interrupt);
  signal?.addEventListener("abort", interrupt, { once: true });
  const progress = countProgress(`reprocess ${runId}`, total);
  let end: RunStatus | null;
  try {
    end = await followStatus(
      poll,
      (s) => progress.update(s.items.succeeded + s.items.failed, s.items.failed),
      everyMs,
      stop.signal,
    );
  } finally {
    progress.end();
    process.removeListener("SIGINT", interrupt);
  }
  if (end === null || end.status === "RUNNING") {
    process.stderr.write(
      `reprocess: stopped following run ${runId}; it goes on (resume or look again with --run-id ${runId})\n`,
    );
    return reportOf(runId, digest, total, []);
  }
  if (end.results === null) {
    process.stderr.write(`reprocess: run ${runId} ended ${end.status} without results\n`);
    return reportOf(runId, digest, total, [], [{ key: "(run)", error: `the run ended ${end.status}` }]);
  }
  const { changes, failed } = await readRunResults(t.s3, end.results);
  if (end.status !== "SUCCEEDED") failed.push({ key: "(run)", error: `the run ended ${end.status}` });
  return reportOf(runId, digest, total, changes, failed);
}

function dryRunText(items: ReprocessItem[]): string {
  const shown = items
    .slice(0, 20)
    .map((i) => `  ${i.key}${i.version_id === null ? "" : ` @ ${i.version_id}`}`);
  const more = items.length > shown.length ? [`  … and ${items.length - shown.length} more`] : [];
  return `dry run: ${items.length} file(s) would be reprocessed\n${[...shown, ...more].map((l) => `${l}\n`).join("")}`;
}

function reportText(r: ReprocessReport): string {
  const lines = [
    `run ${r.run_id}: ${r.selected} selected, ${r.processed} reprocessed, ${r.already_done} already done by this run, ${r.superseded} superseded by a newer upload, ${r.failed.length} failed, ${r.remaining} not reached`,
    `verdicts changed: ${r.verdicts_changed.length}; copies re-published: ${r.republished}; copies withdrawn: ${r.withdrawn.length}`,
    ...r.verdicts_changed.map((c) => `  verdict ${c.key}: ${c.from} -> ${c.to}`),
    ...r.withdrawn.map(
      (w) =>
        `  withdrawn ${w.key}: ${w.reason === "now-fails" ? "it now fails" : "the new rules redact more"}`,
    ),
    ...r.failed.map((f) => `  failed ${f.key}: ${f.error}`),
  ];
  if (r.remaining > 0 || r.failed.length > 0)
    lines.push(`resume with: replay-pipeline reprocess --run-id ${r.run_id} …`);
  return `${lines.join("\n")}\n`;
}
