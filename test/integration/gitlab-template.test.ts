/**
 * The GitLab CI template's job runs as written against the local stack: its before_script (the
 * ID token traded for credentials by a stand-in `aws`, which fails without the token) and its
 * script, through a shell that stops at the first failing line as GitLab's does, with `--local-dir`
 * standing in for `--stack`. The job's exit is the worst verdict; the JUnit report is where the
 * template's artifacts look for it.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../cli/local/stack.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { FAKE_CREDENTIALS, jobVariables, standIns, templateJob } from "../support/gitlab-template.js";
import { parseJunit } from "../support/junit-xml.js";

const job = templateJob();
const made: string[] = [];
let stack: LocalStack;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "gitlab-stack-"));
  made.push(root);
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
});

afterAll(async () => {
  await stack?.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Runs the job in a folder holding `replays/` with `files` (name → example), with the ID token given. */
function runJob(files: Record<string, string>, pipelineId: string, idToken: string) {
  const dir = mkdtempSync(join(tmpdir(), "gitlab-job-"));
  const bin = standIns("the-id-token");
  made.push(dir, bin);
  mkdirSync(join(dir, "replays"));
  for (const [name, example] of Object.entries(files))
    copyFileSync(join(PROJECT_ROOT, "examples", example), join(dir, "replays", name));
  const lines = [...job.before_script, ...job.script].map((l) => l.trim());
  const push = lines.findIndex((l) => l.includes("npx replay-pipeline push"));
  expect(lines[push]).toContain('--stack "$REPLAY_PIPELINE_STACK"');
  lines[push] = (lines[push] as string).replace('--stack "$REPLAY_PIPELINE_STACK"', `--local-dir "${root}"`);
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AWS_"))),
    ...jobVariables(job, { CI_PIPELINE_ID: pipelineId }),
    REPLAY_PIPELINE_TENANT: "gitlab",
    REPLAY_PIPELINE_ROLE_ARN: "arn:aws:iam::123456789012:role/replays",
    [Object.keys(job.id_tokens)[0] as string]: idToken,
    CI_PROJECT_ID: "7",
    CI_PIPELINE_ID: pipelineId,
    PATH: `${bin}:${process.env.PATH}`,
  };
  return new Promise<{ code: number | null; stderr: string; dir: string; bin: string }>((resolve) => {
    // The stack runs in this process: the job must not block it.
    const child = spawn("/bin/sh", ["-e", "-c", lines.join("\n")], { cwd: dir, env });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    child.on("close", (code) => resolve({ code, stderr, dir, bin }));
  });
}

describe("ci/gitlab/replay-pipeline.gitlab-ci.yml, run as written", () => {
  it("passes (exit 0) a replay with its receipt, with the credentials from the ID token exported", async () => {
    const out = await runJob(
      { "fix-auth.REPLAY.jsonl": "fix-auth.REPLAY.jsonl", "fix-auth.RECEIPT.json": "fix-auth.RECEIPT.json" },
      "501",
      "the-id-token",
    );
    expect(out.code, out.stderr).toBe(0);
    const junit = parseJunit(readFileSync(join(out.dir, job.artifacts.reports.junit), "utf8"));
    expect(junit.suites.map((s) => s.name).sort()).toEqual([
      "push replays/fix-auth.RECEIPT.json",
      "push replays/fix-auth.REPLAY.jsonl",
    ]);
    expect(junit.suites.every((s) => s.failures === 0)).toBe(true);
    const env = readFileSync(join(out.bin, "npx.env"), "utf8");
    expect(env).toContain(`AWS_ACCESS_KEY_ID=${FAKE_CREDENTIALS[0]}`);
    expect(env).toContain(`AWS_SESSION_TOKEN=${FAKE_CREDENTIALS[2]}`);
    expect(
      readFileSync(join(out.dir, "attestations", "fix-auth.REPLAY.jsonl.intoto.json"), "utf8"),
    ).toContain("payload");
  });

  it("fails (exit 1) a tampered replay, the failure in the JUnit report", async () => {
    const out = await runJob({ "tampered.REPLAY.jsonl": "tampered.REPLAY.jsonl" }, "502", "the-id-token");
    expect(out.code, out.stderr).toBe(1);
    const [suite] = parseJunit(readFileSync(join(out.dir, job.artifacts.reports.junit), "utf8")).suites;
    expect(suite?.failures).toBeGreaterThan(0);
  });

  it("stops before the push when the ID token is not accepted", async () => {
    const out = await runJob({ "fix-auth.REPLAY.jsonl": "fix-auth.REPLAY.jsonl" }, "503", "wrong-token");
    expect(out.code).toBe(254);
    expect(out.stderr).toContain("no ID token");
  });
});
