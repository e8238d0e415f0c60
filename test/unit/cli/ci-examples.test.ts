/**
 * The CI templates in examples/ci run as written: the inspect-only variants' scripts run here on
 * example replays (with `npx replay-pipeline` pointed at this build), the push variants use only
 * options push has, and docs/pipeline.md's CI section quotes them.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PUSH_HELP } from "../../../cli/commands/remote.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const CI = join(PROJECT_ROOT, "examples", "ci");
const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const yamlOf = (name: string) => parse(readFileSync(join(CI, name), "utf8"));

/** A job folder with replays/ (a passing replay, a tampered one, the receipt) and an `npx` that runs this build. */
function workspace(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("ci-job-");
  mkdirSync(join(dir, "replays"));
  mkdirSync(join(dir, "bin"));
  copyFileSync(
    join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"),
    join(dir, "replays", "fix-auth.REPLAY.jsonl"),
  );
  copyFileSync(
    join(PROJECT_ROOT, "examples", "tampered.REPLAY.jsonl"),
    join(dir, "replays", "tampered.REPLAY.jsonl"),
  );
  copyFileSync(join(PROJECT_ROOT, "examples", "fix-auth.RECEIPT.json"), join(dir, "replays", "RECEIPT.json"));
  const npx = join(dir, "bin", "npx");
  writeFileSync(npx, `#!/bin/sh\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(npx, 0o755);
  const summary = join(dir, "summary.md");
  writeFileSync(summary, "");
  return { dir, env: { PATH: `${join(dir, "bin")}:${process.env.PATH}`, GITHUB_STEP_SUMMARY: summary } };
}

describe("examples/ci", () => {
  it("github-actions-inspect.yml: annotations on the tampered replay, attestations, the job fails with 1", () => {
    const steps = yamlOf("github-actions-inspect.yml").jobs.inspect.steps as {
      run?: string;
      name?: string;
    }[];
    const script = steps.find((s) => s.name === "inspect and verify the replays")?.run as string;
    const { dir, env } = workspace();
    const out = spawnSync("bash", ["-e", "-c", script], { cwd: dir, env });
    expect(out.status).toBe(1);
    expect(out.stdout.toString()).toMatch(
      /^::error file=replays\/tampered\.REPLAY\.jsonl,line=3,title=check\.params_hash::/m,
    );
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toContain(
      "| `replays/fix-auth.REPLAY.jsonl` | ✅ passed |",
    );
    expect(readdirSync(join(dir, "attestations")).sort()).toEqual([
      "fix-auth.REPLAY.jsonl.intoto.json",
      "tampered.REPLAY.jsonl.intoto.json",
    ]);
  });

  it("gitlab-ci-inspect.yml: one JUnit file per replay, the job fails with 1", () => {
    const job = yamlOf("gitlab-ci-inspect.yml")["verify-replays"];
    const { dir, env } = workspace();
    // `npm ci` installs the tool in the real job; here `npx` already runs this build.
    const script = (job.script as string[]).filter((line) => line !== "npm ci").join("\n");
    expect(script).not.toContain("npm ");
    const out = spawnSync("bash", ["-e", "-c", script], { cwd: dir, env });
    expect(out.status).toBe(1);
    expect(job.artifacts.reports.junit).toBe("junit/*.xml");
    const tampered = readFileSync(join(dir, "junit", "tampered.REPLAY.jsonl.xml"), "utf8");
    expect(tampered).toMatch(/<testsuites [^>]*failures="[1-9]/);
    expect(readFileSync(join(dir, "junit", "fix-auth.REPLAY.jsonl.xml"), "utf8")).toMatch(
      /<testsuites [^>]*failures="0"/,
    );
  });

  it("the push templates use options push has, and docs/pipeline.md quotes them", () => {
    const readme = readFileSync(join(PROJECT_ROOT, "docs", "pipeline.md"), "utf8");
    const gh = (yamlOf("github-actions.yml").jobs.verify.steps as { run?: string }[])
      .map((s) => s.run ?? "")
      .join("\n");
    const gl = (yamlOf("gitlab-ci.yml")["verify-replays"].script as string[]).join("\n");
    for (const command of [gh, gl]) {
      expect(command).toContain("npx replay-pipeline push");
      for (const option of command.match(/ --[a-z-]+/g) ?? [])
        expect(PUSH_HELP, option).toContain(option.trim());
    }
    expect(gh).toContain("--format github");
    expect(gl).toContain("--format junit");
    expect(readme).toContain("--wait --timeout 600 --format github --attest attestations");
    expect(readme).toContain("--wait --timeout 600 --format junit --attest attestations > replays.junit.xml");
  });
});
