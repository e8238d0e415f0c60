/**
 * `npm start` through the binary: `--once` with every example's verdict and the audit report, a
 * file that fails (a verdict, exit 0), a record that goes to the dead-letter folder or is still
 * pending at --timeout (exit 1), a stack that cannot start (exit 2, one clear line), and the
 * long-running mode's report once the examples settle, then a clean stop on SIGINT.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { PROJECT_ROOT } from "../support/corpus.js";
import { tempDir } from "../support/temp.js";

const EXAMPLES = join(PROJECT_ROOT, "examples");
const VERDICT = /^\d\d:\d\d:\d\d {2}(PASSED|FAILED|UNVERIFIABLE|INVALID) +(\S+)/gm;

/** `replay-pipeline start --once` on free ports; `node` flags first. */
function start(args: string[], nodeFlags = ["--openssl-legacy-provider"]) {
  const result = spawnSync(process.execPath, [...nodeFlags, "bin/replay-pipeline.js", "start", ...args], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const freePorts = ["--s3-port", "0", "--dynamo-port", "0"];

/** The verdict of each key in the live table. */
function verdicts(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(VERDICT)].map((m) => [m[2], m[1]]));
}

/** The report paths printed under "audit report". */
function reportPaths(stdout: string): string[] {
  const at = stdout.indexOf("audit report (");
  expect(at, stdout).toBeGreaterThanOrEqual(0);
  return stdout
    .slice(at)
    .split("\n")
    .slice(1)
    .filter((l) => l.startsWith("  "))
    .map((l) => l.trim());
}

/** A folder with the stack's data, where the reports bucket cannot store one example's verdict document. */
function brokenReportsStore(example: string): string {
  const dir = tempDir("start-broken-");
  // s3rver keeps a key as a path under its bucket's folder: a file where a folder must be fails each write.
  mkdirSync(join(dir, "data", "s3", "reports", "results", "examples"), { recursive: true });
  writeFileSync(join(dir, "data", "s3", "reports", "results", "examples", example), "not a folder");
  return dir;
}

describe("npm start -- --once", () => {
  it("shows every example's verdict, writes the audit report, and exits 0", () => {
    const dir = tempDir("start-once-");
    const out = start(["--once", "--memory", "--dir", dir, ...freePorts]);
    expect(out.stderr).not.toMatch(/Error/);
    expect(out.code).toBe(0);
    const names = readdirSync(EXAMPLES).filter((n) => n.includes("."));
    expect(Object.keys(verdicts(out.stdout)).sort()).toEqual(
      names.map((n) => `examples/${n.split(".")[0]}/${n}`).sort(),
    );
    expect(verdicts(out.stdout)).toMatchObject({
      "examples/tampered/tampered.REPLAY.jsonl": "FAILED",
      "examples/fix-auth/fix-auth.RECEIPT.json": "PASSED",
      "examples/fix-auth/fix-auth.REPLAY.jsonl": "PASSED",
    });
    expect(out.stdout).toContain(`every example (${names.length}) has a recorded verdict`);
    expect(out.stdout).toContain(join(dir, "stack.json"));
    // The web UI's address is in the banner (a free port by default).
    expect(out.stdout).toMatch(/^web UI \(read-only\): http:\/\/127\.0\.0\.1:\d+\/$/m);
    // Removed on stop: its endpoints are gone, and `--local` must not find them.
    expect(existsSync(join(dir, "stack.json"))).toBe(false);

    const day = new Date().toISOString().slice(0, 10);
    const paths = reportPaths(out.stdout);
    expect(paths).toEqual([
      ...["json", "md", "html"].map((ext) => join(dir, "reports", `audit-${day}.${ext}`)),
      ...["json", "md", "html"].map((ext) => `s3://reports/audits/${day}.${ext}`),
    ]);
    const report = JSON.parse(readFileSync(paths[0] as string, "utf8"));
    expect(report.totals).toMatchObject({ files: names.length, tenants: 1 });
    expect(report.totals.verdicts.failed).toBe(1);
    expect(report.failed_checks.map((c: { key: string }) => c.key)).toContain(
      "examples/tampered/tampered.REPLAY.jsonl",
    );
    expect(readFileSync(paths[1] as string, "utf8")).toMatch(/^# Replay audit/);
    expect(readFileSync(paths[2] as string, "utf8")).toMatch(/<svg/);
  });

  it("a file that fails or is invalid is a verdict like any other: exit 0", () => {
    const examples = tempDir("start-examples-");
    copyFileSync(join(EXAMPLES, "tampered.REPLAY.jsonl"), join(examples, "tampered.REPLAY.jsonl"));
    writeFileSync(join(examples, "garbage.jsonl"), "{not json\n");
    const dir = tempDir("start-once-");
    const out = start(["--once", "--memory", "--dir", dir, "--examples", examples, "--no-ui", ...freePorts]);
    expect(out.stdout).not.toContain("web UI");
    expect(out.code).toBe(0);
    expect(verdicts(out.stdout)).toEqual({
      "examples/garbage/garbage.jsonl": "INVALID",
      "examples/tampered/tampered.REPLAY.jsonl": "FAILED",
    });
    expect(out.stdout).toContain("every example (2) has a recorded verdict");
  });

  it("a record that keeps failing goes to the dead-letter folder: named with its file, exit 1", () => {
    const dir = brokenReportsStore("tampered");
    const out = start(["--once", "--dir", dir, "--max-receives", "2", ...freePorts]);
    expect(out.code).toBe(1);
    const key = "examples/tampered/tampered.REPLAY.jsonl";
    const [letter] = readdirSync(join(dir, "dlq"));
    const path = join(dir, "dlq", letter as string);
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ key, receives: 2 });
    expect(out.stdout).toMatch(new RegExp(`RETRY +${key}  \\(receive 1\\)`));
    expect(out.stdout).toContain(`DEAD-LETTER   ${key}  (receive 2; ${path})`);
    expect(out.stdout).toContain(`no verdict recorded for ${key}: dead-lettered (${path})`);
    expect(out.stdout).not.toContain("every example");
    // The others are processed, and the report of what was recorded is still written.
    expect(verdicts(out.stdout)["examples/fix-auth/fix-auth.REPLAY.jsonl"]).toBe("PASSED");
    expect(verdicts(out.stdout)[key]).toBeUndefined();
    expect(existsSync(join(dir, "reports", `audit-${new Date().toISOString().slice(0, 10)}.html`))).toBe(
      true,
    );
  });

  it("a record still being retried at --timeout: exit 1, named", () => {
    const dir = brokenReportsStore("tampered");
    const out = start(["--once", "--dir", dir, "--max-receives", "100", "--timeout", "3", ...freePorts]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("timed out after 3 s");
    expect(out.stdout).toContain(
      "no verdict recorded for examples/tampered/tampered.REPLAY.jsonl: still being processed",
    );
    expect(existsSync(join(dir, "dlq"))).toBe(false);
  });
});

describe("npm start: a data folder a crash left torn", () => {
  it("names the torn object and where it was set aside, and starts: exit 0", () => {
    const dir = tempDir("start-torn-");
    const folder = join(dir, "data", "s3", "ingest", "t", "s1");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "x.REPLAY.jsonl._S3rver_object"),
      readFileSync(join(EXAMPLES, "fix-auth.REPLAY.jsonl")),
    );
    writeFileSync(join(folder, "x.REPLAY.jsonl._S3rver_metadata.json"), "");
    const examples = tempDir("start-examples-");
    copyFileSync(join(EXAMPLES, "fix-auth.REPLAY.jsonl"), join(examples, "fix-auth.REPLAY.jsonl"));
    const out = start(["--once", "--dir", dir, "--examples", examples, ...freePorts]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^torn object s3:\/\/ingest\/t\/s1\/x\.REPLAY\.jsonl: its metadata file is empty; set aside in .*torn.*\/ingest\/t\/s1$/m,
    );
    expect(verdicts(out.stdout)).toEqual({ "examples/fix-auth/fix-auth.REPLAY.jsonl": "PASSED" });
  });
});

describe("npm start: a stack that cannot start", () => {
  async function taken(): Promise<{ server: Server; port: string }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { server, port: String((server.address() as { port: number }).port) };
  }

  it.each([
    ["S3", "--s3-port", "--dynamo-port"],
    ["DynamoDB", "--dynamo-port", "--s3-port"],
  ])("%s port in use: one line naming it and the option, exit 2", async (what, option, other) => {
    const { port } = await taken();
    const out = start(["--once", "--memory", "--dir", tempDir("start-"), option, port, other, "0"]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain(
      `replay-pipeline: error cli.local_stack: the ${what} server cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); choose another port with ${option} (0 picks a free one)\n`,
    );
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });

  it("without the legacy OpenSSL provider s3rver needs: runs again in a node with it, exit 0, nothing on stderr", () => {
    const dir = tempDir("start-");
    const out = start(["--once", "--memory", "--dir", dir, ...freePorts], []);
    // Node 22 is the runtime; an older node gets the AWS SDK's warning about it, and only that.
    if (Number(process.versions.node.split(".")[0]) >= 22) expect(out.stderr).toBe("");
    else expect(out.stderr).not.toMatch(/error|legacy/i);
    expect(out.code).toBe(0);
    expect(Object.keys(verdicts(out.stdout))).toHaveLength(
      readdirSync(EXAMPLES).filter((n) => n.includes(".")).length,
    );
  });
});

describe("npm start (long-running)", () => {
  /** Starts the stack in `dir` (kept data) and resolves once `ready` matches its stdout or stderr. */
  async function live(dir: string, ready: RegExp) {
    const child = spawn(
      process.execPath,
      ["--openssl-legacy-provider", "bin/replay-pipeline.js", "start", "--dir", dir, ...freePorts],
      { cwd: PROJECT_ROOT },
    );
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const out = { stdout: "", stderr: "" };
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const seen = () => {
        if (ready.test(out.stdout) || ready.test(out.stderr)) resolve();
      };
      child.stdout.on("data", (d) => {
        out.stdout += String(d);
        seen();
      });
      child.stderr.on("data", (d) => {
        out.stderr += String(d);
        seen();
      });
      child.on("close", () => reject(new Error(`exited first: ${out.stdout}${out.stderr}`)));
    });
    expect(child.exitCode).toBeNull();
    expect(out.stdout).toContain("waiting for uploads");
    const stop = async () => {
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(out.stdout).toMatch(/local stack stopped\n$/);
    };
    return { out, stop };
  }

  it("writes the audit report once the examples settle, keeps running, and stops cleanly on SIGINT", async () => {
    const dir = tempDir("start-live-");
    const { out, stop } = await live(dir, /s3:\/\/reports\/audits\/\S+\.html\n/);
    const paths = reportPaths(out.stdout);
    expect(JSON.parse(readFileSync(paths[0] as string, "utf8")).totals.files).toBe(
      Object.keys(verdicts(out.stdout)).length,
    );
    await stop();
  });

  it("keeps running when the report cannot be stored: a warning, then a clean stop", async () => {
    const dir = tempDir("start-live-");
    // A file where the reports bucket's audits/ folder must be: every report write fails.
    mkdirSync(join(dir, "data", "s3", "reports"), { recursive: true });
    writeFileSync(join(dir, "data", "s3", "reports", "audits"), "not a folder");
    const { out, stop } = await live(dir, /the audit report was not written/);
    expect(out.stderr).toMatch(/^replay-pipeline: start: the audit report was not written: /m);
    expect(out.stdout).not.toContain("audit report (");
    await stop();
  });
});
