/**
 * The GitHub Action's entry (dist/action.js, what action.yml runs) as the runner runs it: inputs
 * as `INPUT_<NAME>` variables, `GITHUB_WORKSPACE`, `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT`
 * pointing at files the step writes, against the local stack (the `local-dir` input standing in
 * for `stack`).
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../cli/local/stack.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { parseJunit } from "../support/junit-xml.js";

const ENTRY = join(PROJECT_ROOT, "dist", "action.js");
const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
const made: string[] = [];
let stack: LocalStack;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "action-stack-"));
  made.push(root);
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
});

afterAll(async () => {
  await stack?.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The runner's name for an input: `INPUT_` and the name upper-cased, spaces to `_` (hyphens kept). */
const inputVariable = (name: string) => `INPUT_${name.replaceAll(" ", "_").toUpperCase()}`;

/**
 * Parses `$GITHUB_OUTPUT` as the runner does: `name=value` lines, and `name<<DELIMITER` heredocs
 * whose value is every line up to the delimiter alone on a line.
 */
function parseOutputs(text: string): Record<string, string> {
  const lines = text.split("\n");
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string];
      const end = lines.indexOf(delimiter, i + 1);
      if (end === -1) throw new Error(`output ${name}: no closing delimiter ${delimiter}`);
      out[name] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const at = line.indexOf("=");
    if (at <= 0) throw new Error(`not an output line: ${line}`);
    out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

interface Step {
  code: number | null;
  stdout: string;
  stderr: string;
  workspace: string;
  outputs: Record<string, string>;
  summary: string;
}

/**
 * Runs the entry as a step: a workspace holding `files` (name in the workspace → example), the
 * runner's files, and `inputs` as the runner's variables; the working folder is elsewhere, as the
 * entry must go by GITHUB_WORKSPACE.
 */
function runStep(files: Record<string, string>, inputs: Record<string, string>): Promise<Step> {
  const workspace = mkdtempSync(join(tmpdir(), "action-workspace-"));
  const runner = mkdtempSync(join(tmpdir(), "action-runner-"));
  made.push(workspace, runner);
  for (const [name, example] of Object.entries(files)) {
    mkdirSync(join(workspace, name, ".."), { recursive: true });
    copyFileSync(EX(example), join(workspace, name));
  }
  const summaryFile = join(runner, "step_summary");
  const outputFile = join(runner, "output");
  writeFileSync(summaryFile, "");
  writeFileSync(outputFile, "");
  // No INPUT_ variable of the test's own environment leaks into the step.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("INPUT_")));
  Object.assign(env, {
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: outputFile,
    "INPUT_LOCAL-DIR": root,
  });
  for (const [name, value] of Object.entries(inputs)) env[inputVariable(name)] = value;
  return new Promise((resolve) => {
    // The stack runs in this process: the step must not block it.
    const child = spawn(process.execPath, [ENTRY], { cwd: runner, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += String(d);
    });
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    child.on("close", (code) =>
      resolve({
        code,
        stdout,
        stderr,
        workspace,
        outputs: parseOutputs(readFileSync(outputFile, "utf8")),
        summary: readFileSync(summaryFile, "utf8"),
      }),
    );
  });
}

const DEFAULTS = { wait: "true", timeout: "60", format: "github", junit: "replay-pipeline.junit.xml" };

describe("the action's entry, run as the runner runs it", () => {
  it("passes a replay with its receipt: verdict passed, exit 0, summary, JUnit, attestations", async () => {
    const step = await runStep(
      {
        "replays/fix-auth.REPLAY.jsonl": "fix-auth.REPLAY.jsonl",
        "replays/RECEIPT.json": "fix-auth.RECEIPT.json",
      },
      {
        ...DEFAULTS,
        // Newline-separated globs, as a YAML block gives them.
        files: "replays/*.jsonl\nreplays/*.json\n",
        tenant: "action",
        session: "run-1",
        junit: "reports/replays.junit.xml",
        attest: "attestations",
      },
    );
    expect(step.code, step.stderr).toBe(0);
    expect(step.outputs).toEqual({
      verdict: "passed",
      "exit-code": "0",
      attestations: "attestations/fix-auth.REPLAY.jsonl.intoto.json",
      junit: "reports/replays.junit.xml",
    });
    expect(step.stdout).toContain("replays/fix-auth.REPLAY.jsonl: PASSED");
    expect(step.stdout).not.toContain("::error");
    expect(step.summary).toContain("### replay-pipeline push action/run-1");
    expect(step.summary).toContain("| `replays/fix-auth.REPLAY.jsonl` | ✅ passed |");
    expect(step.summary).toContain("| `replays/RECEIPT.json` | ✅ passed |");
    const junit = parseJunit(readFileSync(join(step.workspace, "reports", "replays.junit.xml"), "utf8"));
    // A testsuite per file, each with its test cases named by the file, and nothing failed.
    expect(junit.suites.map((s) => s.name).sort()).toEqual([
      "push replays/RECEIPT.json",
      "push replays/fix-auth.REPLAY.jsonl",
    ]);
    for (const suite of junit.suites) {
      expect(suite.cases.length).toBeGreaterThan(0);
      expect(new Set(suite.cases.map((c) => c.classname))).toEqual(new Set([suite.name.slice(5)]));
      expect(suite.failures).toBe(0);
    }
    const envelope = JSON.parse(
      readFileSync(join(step.workspace, "attestations", "fix-auth.REPLAY.jsonl.intoto.json"), "utf8"),
    );
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(statement.predicate.verificationResult).toBe("PASSED");
  });

  it("fails a tampered replay: verdict failed, exit 1, an ::error annotation on its line", async () => {
    const step = await runStep(
      {
        "replays/tampered.REPLAY.jsonl": "tampered.REPLAY.jsonl",
        "replays/fix-auth.REPLAY.jsonl": "fix-auth.REPLAY.jsonl",
      },
      {
        ...DEFAULTS,
        // Space-separated, a literal path and a glob.
        files: "replays/tampered.REPLAY.jsonl replays/fix-*.jsonl",
        tenant: "action",
        session: "run-2",
      },
    );
    expect(step.code, step.stderr).toBe(1);
    expect(step.outputs.verdict).toBe("failed");
    expect(step.outputs["exit-code"]).toBe("1");
    expect(step.outputs.attestations).toBe("");
    expect(step.stdout).toMatch(
      /^::error file=replays\/tampered\.REPLAY\.jsonl,line=3,title=check\.params_hash::/m,
    );
    expect(step.stdout).not.toMatch(/^::error file=replays\/fix-auth/m);
    expect(step.summary).toContain("| `replays/tampered.REPLAY.jsonl` | ❌ failed |");
    const junit = parseJunit(readFileSync(join(step.workspace, "replay-pipeline.junit.xml"), "utf8"));
    const tampered = junit.suites.find((s) => s.name === "push replays/tampered.REPLAY.jsonl");
    expect(tampered?.failures).toBeGreaterThan(0);
    expect(tampered?.cases.find((c) => c.child === "failure")?.name).toMatch(/^params_hash line 3 /);
  });

  it("a files input that matches nothing: exit 2, an annotation, exit-code 2 and no verdict", async () => {
    const step = await runStep(
      {},
      { ...DEFAULTS, files: "replays/*.jsonl", tenant: "action", session: "run-3" },
    );
    expect(step.code).toBe(2);
    expect(step.outputs).toEqual({ "exit-code": "2" });
    expect(step.stdout).toMatch(
      /^::error file=replay-pipeline,title=cli\.usage::.*no file matches the files input \(replays\/\*\.jsonl\)/m,
    );
    // The JUnit file holds the error: a report that vanished would read as nothing wrong.
    const junit = parseJunit(readFileSync(join(step.workspace, "replay-pipeline.junit.xml"), "utf8"));
    expect(junit.suites[0]?.cases[0]?.child).toBe("error");
    expect(existsSync(join(step.workspace, "attestations"))).toBe(false);
  });

  it("names what is missing when neither a stack nor all of the buckets and table are given", async () => {
    const step = await runStep(
      { "replays/fix-auth.REPLAY.jsonl": "fix-auth.REPLAY.jsonl" },
      {
        ...DEFAULTS,
        files: "replays/*.jsonl",
        tenant: "action",
        session: "run-4",
        "local-dir": "",
        "ingest-bucket": "ingest",
        "reports-bucket": "reports",
      },
    );
    expect(step.code).toBe(2);
    expect(step.outputs).toEqual({ "exit-code": "2" });
    expect(step.stdout).toMatch(/^::error .*give stack, or all of ingest-bucket, reports-bucket and table/m);
  });
});
