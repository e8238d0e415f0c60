/**
 * The GitHub Action's entry (action.yml runs it as `node dist/action.js`): reads the inputs the
 * runner hands over as `INPUT_<NAME>` variables, pushes the matching files to the pipeline with
 * the CLI's own `push` code, and reports as a step should: annotations on the files' lines, the
 * job summary, a JUnit file, and the step outputs `verdict`, `exit-code`, `attestations`, `junit`.
 * Its exit code is `push --wait`'s: 0 passed, 1 failed or invalid, 3 unverifiable, 2 could not run.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { getBooleanInput, getInput, setOutput } from "@actions/core";
import { create } from "@actions/glob";
import { ReplayPipelineError } from "#shared/errors.js";
import { intOption } from "./args.js";
import { awsFailure } from "./aws-errors.js";
import { exitCodeOf } from "./commands/inspect.js";
import { checkPushFiles, emitPush, PUSH_NEEDS, pushFiles } from "./commands/remote.js";
import { UsageError } from "./errors.js";
import { outputError } from "./io.js";
import { writeStepSummary } from "./output/github.js";
import { EXIT, escapeData, exitCodeOfError, formatOption, renderError, renderJunit } from "./output/index.js";
import { checkName, connect } from "./remote.js";

const COMMAND = "replay-pipeline action";

/** The action's inputs, as action.yml declares them (its defaults repeated for a run without them). */
interface Inputs {
  files: string[];
  tenant: string;
  session: string;
  stack: string;
  ingestBucket: string;
  reportsBucket: string;
  table: string;
  region: string;
  wait: boolean;
  timeout: number;
  format: "github" | "text" | "json";
  junit: string;
  attest: string;
  localDir: string;
}

/** Reads every input the action declares (action.yml's `role-to-assume` is its own step's). */
function readInputs(): Inputs {
  const format = formatOption(COMMAND, { format: getInput("format") || "github" });
  if (format === "junit")
    throw new UsageError(
      `${COMMAND}: format is the log's (github, text or json); the JUnit file has its own input, junit`,
    );
  let wait = true;
  if (getInput("wait") !== "") {
    try {
      wait = getBooleanInput("wait");
    } catch {
      throw new UsageError(`${COMMAND}: wait '${getInput("wait")}' is not a boolean; expected true or false`);
    }
  }
  return {
    // Newlines or spaces between globs: a path with a space is matched by a `?` in its glob.
    files: getInput("files")
      .split(/\s+/)
      .filter((p) => p !== ""),
    tenant: checkName(COMMAND, "tenant", getInput("tenant") || undefined),
    session: checkName(COMMAND, "session", getInput("session") || undefined),
    stack: getInput("stack"),
    ingestBucket: getInput("ingest-bucket"),
    reportsBucket: getInput("reports-bucket"),
    table: getInput("table"),
    region: getInput("region"),
    wait,
    timeout: intOption(COMMAND, "timeout", getInput("timeout") || undefined) ?? 300,
    format,
    junit: getInput("junit"),
    attest: getInput("attest"),
    localDir: getInput("local-dir"),
  };
}

/** The files the globs match, relative to the working folder (so annotations name them as the repository does). */
async function matchFiles(patterns: string[]): Promise<string[]> {
  if (patterns.length === 0)
    throw new UsageError(`${COMMAND}: the files input is empty; give one glob or more`);
  const globber = await create(patterns.join("\n"), { matchDirectories: false });
  const found = (await globber.glob()).map((p) => relative(process.cwd(), p)).sort();
  if (found.length === 0)
    throw new UsageError(`${COMMAND}: no file matches the files input (${patterns.join(" ")})`);
  return found;
}

/** Where the pipeline is: the local stack's folder, a CloudFormation stack, or the named buckets and table. */
function targetValues(inputs: Inputs): { "local-dir"?: string; stack?: string; region?: string } {
  const region = inputs.region === "" ? {} : { region: inputs.region };
  if (inputs.localDir !== "") return { "local-dir": inputs.localDir, ...region };
  const names = [inputs.ingestBucket, inputs.reportsBucket, inputs.table];
  if (inputs.stack !== "" && names.some((n) => n !== ""))
    throw new UsageError(`${COMMAND}: give stack, or ingest-bucket, reports-bucket and table; not both`);
  if (inputs.stack !== "") return { stack: inputs.stack, ...region };
  if (names.some((n) => n === ""))
    throw new UsageError(
      `${COMMAND}: where is the pipeline? give stack, or all of ingest-bucket, reports-bucket and table`,
    );
  // connect() reads the names from the environment, as the CLI's users give them.
  process.env.INGEST_BUCKET = inputs.ingestBucket;
  process.env.REPORTS_BUCKET = inputs.reportsBucket;
  process.env.TABLE_NAME = inputs.table;
  return region;
}

/** Writes a report file, its folder too. */
async function writeReport(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    throw outputError(path, error);
  }
}

/** The run: its exit code and the outputs it sets (`verdict` only once there is one). */
async function run(): Promise<number> {
  // The runner starts a step in the workspace; a run by hand may name it.
  const workspace = process.env.GITHUB_WORKSPACE;
  if (workspace !== undefined && workspace !== "") process.chdir(workspace);
  const inputs = readInputs();
  if (inputs.attest !== "" && !inputs.wait)
    throw new UsageError(`${COMMAND}: attest saves the attestations of the verdicts; it needs wait: true`);
  const files = await matchFiles(inputs.files);
  await checkPushFiles(inputs.tenant, inputs.session, files);
  const t = await connect(COMMAND, targetValues(inputs), PUSH_NEEDS);
  try {
    const outcome = await pushFiles(t, {
      tenant: inputs.tenant,
      session: inputs.session,
      paths: files,
      wait: inputs.wait,
      timeout: inputs.timeout * 1000,
      attest: inputs.attest === "" ? undefined : inputs.attest,
      withReports: true,
      onUploaded: async (key) => {
        process.stdout.write(`pushed s3://${t.ingestBucket}/${key}\n`);
      },
    });
    if (outcome.verdict === null) return EXIT.ok;
    // github: annotations and the job summary; text or json: the log, and the summary still.
    await emitPush(inputs.format, { ...outcome, verdict: outcome.verdict });
    if (inputs.format !== "github") await writeStepSummary(outcome.views, outcome.title);
    if (inputs.junit !== "") {
      await writeReport(inputs.junit, renderJunit(outcome.views, outcome.title));
      setOutput("junit", inputs.junit);
    }
    setOutput("verdict", outcome.verdict);
    setOutput("attestations", outcome.attestations.join("\n"));
    return exitCodeOf(outcome.verdict);
  } finally {
    t.close();
  }
}

/**
 * Runs the action. An error that stops it is an annotation, a JUnit file holding it (a test
 * report that only vanished would read as nothing wrong) and exit 2, or 1 for an input's content;
 * an unforeseen one (a bug) is 2 as well, with its stack on standard error.
 */
async function main(): Promise<number> {
  try {
    return await run();
  } catch (error) {
    const known = error instanceof ReplayPipelineError ? error : awsFailure(error, COMMAND);
    if (known === undefined) {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.stdout.write(
        `::error title=${COMMAND}::${escapeData(String((error as Error).message ?? error))}\n`,
      );
      return EXIT.cannot_run;
    }
    const shown = renderError(known, "github");
    process.stderr.write(shown.stderr);
    process.stdout.write(shown.stdout);
    const junit = getInput("junit");
    // Best effort: the error being reported is the one the job must see, not this write's.
    if (junit !== "") await writeReport(junit, renderError(known, "junit").stdout).catch(() => undefined);
    return exitCodeOfError(known);
  }
}

const code = await main();
setOutput("exit-code", code);
process.exitCode = code;
