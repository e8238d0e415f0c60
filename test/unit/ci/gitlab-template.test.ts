/**
 * The GitLab CI template parses, gets AWS credentials from the job's OIDC ID token only, keeps the
 * JUnit report its push writes, and gives `push` only options push's own parser takes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PUSH_HELP } from "../../../cli/commands/remote.js";
import { jobVariables, standIns, TEMPLATE, templateJob } from "../../support/gitlab-template.js";

const job = templateJob();
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The script line that runs push. */
function pushLine(): string {
  const lines = job.script.filter((l) => l.includes("npx replay-pipeline push"));
  expect(lines).toHaveLength(1);
  return (lines[0] as string).trim();
}

describe("ci/gitlab/replay-pipeline.gitlab-ci.yml", () => {
  it("trades the job's OIDC ID token for credentials with assume-role-with-web-identity; no stored keys", () => {
    const tokens = Object.entries(job.id_tokens);
    expect(tokens).toHaveLength(1);
    const [name, token] = tokens[0] as [string, { aud: string }];
    expect(token.aud).toBe("sts.amazonaws.com");
    const assume = job.before_script.find((l) => l.includes("aws sts assume-role-with-web-identity"));
    expect(assume).toContain(`--web-identity-token "$${name}"`);
    expect(assume).toContain('--role-arn "$REPLAY_PIPELINE_ROLE_ARN"');
    expect(Object.keys(job.variables)).not.toContain("AWS_SECRET_ACCESS_KEY");
    expect(Object.keys(job.variables)).not.toContain("AWS_ACCESS_KEY_ID");
    expect(job.image).toBe("node:22");
  });

  it("keeps as the JUnit report the file push writes, and the attestations, even when the job fails", () => {
    const line = pushLine();
    expect(line).toContain("--format junit");
    expect(line).toContain("--wait");
    expect(line.trim().endsWith(`> ${job.artifacts.reports.junit}`)).toBe(true);
    expect(job.artifacts.when).toBe("always");
    expect(line).toContain("--attest attestations");
    expect(job.artifacts.paths).toEqual(["attestations/"]);
    // The job's exit code is push's: nothing after it in the script swallows it.
    expect(job.script.at(-1)?.trim()).toBe(line);
    expect(line).not.toMatch(/\|\||; *exit|\|\s*tee/);
  });

  it("gives push only options its parser takes, as the job's shell expands them", () => {
    for (const option of pushLine().match(/ --[a-z-]+/g) ?? [])
      expect(PUSH_HELP, option).toContain(option.trim());
    // The real check: push's strict parser reads the line (with the variables filled in) and
    // answers --help only when every option is one it has and each has its value.
    const dir = mkdtempSync(join(tmpdir(), "gitlab-job-"));
    made.push(dir);
    mkdirSync(join(dir, "replays"));
    writeFileSync(join(dir, "replays", "a.REPLAY.jsonl"), "");
    const bin = standIns("token");
    made.push(bin);
    const env = {
      ...process.env,
      ...jobVariables(job, { CI_PIPELINE_ID: "42" }),
      REPLAY_PIPELINE_TENANT: "my-team",
      PATH: `${bin}:${process.env.PATH}`,
    };
    const script = (extra: string) =>
      job.script.map((l) => (l.trim() === pushLine() ? `${pushLine()} ${extra}` : l)).join("\n");
    const ok = spawnSync("/bin/sh", ["-e", "-c", script("--help")], { cwd: dir, env });
    expect(ok.status, ok.stderr.toString()).toBe(0);
    expect(readFileSync(join(dir, job.artifacts.reports.junit), "utf8")).toContain(
      "Usage: replay-pipeline push",
    );
    // And the same check fails for an option push does not have.
    const bad = spawnSync("/bin/sh", ["-e", "-c", `${pushLine()} --no-such-option --help`], {
      cwd: dir,
      env,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toContain("unknown option '--no-such-option'");
  });

  it("is the file docs/pipeline.md names", () => {
    const readme = readFileSync(join(TEMPLATE, "..", "..", "..", "docs", "pipeline.md"), "utf8");
    expect(readme).toContain("`ci/gitlab/replay-pipeline.gitlab-ci.yml`");
    expect(readme).toContain("extends: .replay-pipeline-push");
  });
});
