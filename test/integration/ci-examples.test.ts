/**
 * The CI snippets of examples/ci/ (and their copies in docs/pipeline.md) run as written against the
 * local stack: their `push … --wait` command through a shell, with `--local-dir` standing in for
 * `--stack` and the CI system's run id filled in; the job's exit is the worst verdict.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../cli/local/stack.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { tempDir } from "../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
let stack: LocalStack;
let root: string;

beforeAll(async () => {
  root = tempDir("ci-examples-");
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
});

afterAll(async () => {
  await stack?.close();
});

/** The snippet's push command: its lines from `npx replay-pipeline push` to the one with `--wait`. */
function pushLines(file: string): string[] {
  const lines = readFileSync(join(PROJECT_ROOT, "examples", "ci", file), "utf8").split("\n");
  const from = lines.findIndex((l) => l.includes("npx replay-pipeline push"));
  const to = lines.findIndex((l, n) => n >= from && l.includes("--wait"));
  expect(from, file).toBeGreaterThan(0);
  expect(to, file).toBeGreaterThanOrEqual(from);
  return lines.slice(from, to + 1).map((l) => l.trim());
}

/** Replaces `from` (which must be there) by `to`. */
function swap(command: string, from: string, to: string): string {
  expect(command).toContain(from);
  return command.replace(from, to);
}

/** Runs the snippet's command in a job folder holding `replays/` with `replay` and its receipt. */
function runJob(command: string, replay: string, env: Record<string, string>) {
  const job = tempDir("ci-job-");
  mkdirSync(join(job, "replays"));
  copyFileSync(EX(replay), join(job, "replays", "REPLAY.jsonl"));
  copyFileSync(EX("fix-auth.RECEIPT.json"), join(job, "replays", "RECEIPT.json"));
  return new Promise<{ code: number | null; stdout: string; job: string }>((resolve) => {
    // Through a shell, as the CI runner does: it expands replays/*.jsonl and $CI_PIPELINE_ID.
    const child = spawn("/bin/sh", ["-c", command], { cwd: job, env: { ...process.env, ...env } });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += String(d);
    });
    child.on("close", (code) => resolve({ code, stdout, job }));
  });
}

const SNIPPETS = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax, as the snippet has it
  { file: "github-actions.yml", runId: "${{ github.run_id }}" },
  { file: "gitlab-ci.yml", runId: "$CI_PIPELINE_ID" },
];

describe.each(SNIPPETS)("examples/ci/$file", ({ file, runId }) => {
  function command(id: string): string {
    let text = pushLines(file).join(" ");
    text = swap(text, "npx replay-pipeline", `"${process.execPath}" "${BIN}"`);
    text = swap(text, "--stack ReplayPipeline", `--local-dir "${root}"`);
    // GitHub fills its expression in before the shell runs; GitLab's variable is the shell's.
    return runId.startsWith("$CI") ? text : swap(text, runId, id);
  }

  it("is shown in docs/pipeline.md as written", () => {
    const readme = readFileSync(join(PROJECT_ROOT, "docs", "pipeline.md"), "utf8");
    const at = readme.indexOf(`\`examples/ci/${file}\``);
    expect(at).toBeGreaterThan(0);
    let from = at;
    for (const line of pushLines(file)) {
      from = readme.indexOf(line, from);
      expect(from, line).toBeGreaterThan(at);
    }
  });

  /** What the job reported: GitHub's annotations and status lines, or the JUnit file it wrote. */
  function report(out: { stdout: string; job: string }): string {
    return file === "gitlab-ci.yml" ? readFileSync(join(out.job, "replays.junit.xml"), "utf8") : out.stdout;
  }

  it("passes the job (exit 0) for a replay that matches its receipt", async () => {
    const id = `${file.length}01`;
    const out = await runJob(command(id), "fix-auth.REPLAY.jsonl", { CI_PIPELINE_ID: id });
    expect(out.code).toBe(0);
    const text = report(out);
    if (file === "gitlab-ci.yml") {
      expect(text).toContain('<testsuite name="push replays/REPLAY.jsonl"');
      expect(text).not.toContain("<failure");
    } else {
      expect(text).toContain("replays/REPLAY.jsonl: PASSED");
      expect(text).not.toContain("::error");
    }
    // The pipeline's attestation of the replay, saved as the artifact.
    // Unsigned here (the local stack has no KMS key): an envelope with no signature.
    const envelope = JSON.parse(
      readFileSync(join(out.job, "attestations", "REPLAY.jsonl.intoto.json"), "utf8"),
    );
    expect(envelope.signatures).toEqual([]);
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(statement.predicate.verificationResult).toBe("PASSED");
  });

  it("fails the job (exit 1) for a tampered replay", async () => {
    const id = `${file.length}02`;
    const out = await runJob(command(id), "tampered.REPLAY.jsonl", { CI_PIPELINE_ID: id });
    expect(out.code).toBe(1);
    const text = report(out);
    if (file === "gitlab-ci.yml") expect(text).toMatch(/<failure message="expected sha256:[0-9a-f]{64}/);
    else {
      expect(text).toContain("replays/REPLAY.jsonl: FAILED");
      expect(text).toMatch(/^::error file=replays\/REPLAY\.jsonl,line=3,title=check\.params_hash::/m);
    }
  });
});
