/**
 * push, sessions, show and pull through the binary against the local stack (`--local-dir`), and
 * tenant isolation: tenant A never sees tenant B's files, whatever the names.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../cli/local/stack.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { schemaErrors } from "../support/output-schemas.js";
import { tempDir } from "../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
let stack: LocalStack;
let root: string;

/** Runs the binary against the stack; the stack runs in this process, so the child must not block it. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, "--local-dir", root], { cwd: PROJECT_ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += String(d);
    });
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  root = tempDir("cli-remote-");
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
});

afterAll(async () => {
  await stack?.close();
});

describe("push --wait", () => {
  it("exits 0 for passing files with their receipt", async () => {
    const out = await cli(
      "push",
      EX("fix-auth.REPLAY.jsonl"),
      EX("fix-auth.RECEIPT.json"),
      "--tenant",
      "alpha",
      "--session",
      "s1",
      "--wait",
    );
    expect(out.stdout).toMatch(/alpha\/s1\/fix-auth\.REPLAY\.jsonl: PASSED/);
    expect(out.stdout).toMatch(/receipt check .* PASSED/);
    expect(out.code, out.stderr).toBe(0);
  });

  it("exits 1 for a failed file, 3 for an unverifiable one", async () => {
    const failed = await cli(
      "push",
      EX("tampered.REPLAY.jsonl"),
      "--tenant",
      "alpha",
      "--session",
      "s2",
      "--wait",
      "--json",
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout.trim())).toMatchObject({ verdict: "failed", tenant: "alpha" });
    const unverifiable = await cli(
      "push",
      EX("autopilot.bundle.json"),
      "--tenant",
      "alpha",
      "--session",
      "s3",
      "--wait",
    );
    expect(unverifiable.code).toBe(3);
  });

  it("a receipt pushed into a session of many replays waits until every one is checked, and exits 1 when they fail", async () => {
    const dir = tempDir("cli-remote-many-");
    const replays = Array.from({ length: 40 }, (_, n) =>
      join(dir, `r-${String(n).padStart(2, "0")}.REPLAY.jsonl`),
    );
    for (const file of replays) copyFileSync(EX("fix-auth.REPLAY.jsonl"), file);
    const first = await cli(
      "push",
      ...replays,
      "--tenant",
      "alpha",
      "--session",
      "many",
      "--wait",
      "--quiet",
    );
    expect(first.code, first.stderr).toBe(0);
    // A receipt every replay fails (one tool name changed): each check withdraws a published copy.
    const receipt = join(dir, "fix-auth.RECEIPT.json");
    writeFileSync(
      receipt,
      readFileSync(EX("fix-auth.RECEIPT.json"), "utf8").replace(
        '"tool": "file_read"',
        '"tool": "file_write"',
      ),
    );
    const out = await cli("push", receipt, "--tenant", "alpha", "--session", "many", "--wait");
    expect(out.code, out.stderr).toBe(1);
    const failed = out.stdout.match(
      /receipt check alpha\/many\/r-\d\d\.REPLAY\.jsonl .*: FAILED, copy \S+ withdrawn/g,
    );
    expect(failed).toHaveLength(replays.length);
    expect(out.stdout).toMatch(/worst verdict: failed/);
  });

  it("a file the pipeline rejects by its name gets its recorded verdict: exit 1, not a timeout", async () => {
    const dir = tempDir("cli-remote-rejected-");
    const file = join(dir, "REPLAY\u200b.jsonl");
    copyFileSync(EX("fix-auth.REPLAY.jsonl"), file);
    const out = await cli(
      "push",
      file,
      "--tenant",
      "alpha",
      "--session",
      "names",
      "--wait",
      "--timeout",
      "60",
    );
    expect(out.code, out.stderr).toBe(1);
    expect(out.stdout).toMatch(/INVALID .*key\.invisible_character/);
  });

  it("a gzip bomb and a 1 MB receipt each get their recorded verdict: exit 1, not a timeout", async () => {
    const dir = tempDir("cli-remote-hostile-");
    const bomb = join(dir, "bomb.REPLAY.jsonl.gz");
    writeFileSync(bomb, gzipSync(Buffer.alloc(96 * 1024 * 1024), { level: 9 }));
    const bombed = await cli(
      "push",
      bomb,
      "--tenant",
      "alpha",
      "--session",
      "bomb",
      "--wait",
      "--timeout",
      "120",
    );
    expect(bombed.code, bombed.stderr).toBe(1);
    expect(bombed.stdout).toMatch(/INVALID .*gzip\.ratio/);
    const receipt = join(dir, "fix-auth.RECEIPT.json");
    writeFileSync(
      receipt,
      readFileSync(EX("fix-auth.RECEIPT.json"), "utf8").replaceAll(
        /"tool": "[^"]*"/g,
        `"tool": "${"\u20ac".repeat(150_000)}"`,
      ),
    );
    const huge = await cli(
      "push",
      EX("fix-auth.REPLAY.jsonl"),
      receipt,
      "--tenant",
      "alpha",
      "--session",
      "huge",
      "--wait",
      "--timeout",
      "120",
    );
    expect(huge.code, huge.stderr).toBe(1);
    expect(huge.stdout).toMatch(/receipt check alpha\/huge\/fix-auth\.REPLAY\.jsonl .*: FAILED/);
  });

  it("refuses a file whose key holds a secret before uploading it (the pipeline would reject it)", async () => {
    const dir = tempDir("cli-remote-secret-");
    const secret = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
    const file = join(dir, `${secret}.REPLAY.jsonl`);
    copyFileSync(EX("fix-auth.REPLAY.jsonl"), file);
    const out = await cli("push", file, "--tenant", "alpha", "--session", "leak", "--wait");
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("push: the key of file 1 holds text the scrubber redacts");
    expect(out.stderr).not.toContain(secret);
    expect(await stack.recordOf(`alpha/leak/${secret}.REPLAY.jsonl`)).toBeNull();
  });

  it("exits 2 on a usage error", async () => {
    expect((await cli("push", EX("summarize.rpk"), "--tenant", "a/b", "--session", "s")).code).toBe(2);
  });
});

describe("tenant isolation", () => {
  it("show, sessions and pull of tenant A never return tenant B's files", async () => {
    expect(
      (await cli("push", EX("summarize.rpk"), "--tenant", "tenant-b", "--session", "shared", "--wait")).code,
    ).toBe(0);
    expect(
      (
        await cli(
          "push",
          EX("fix-auth.REPLAY.jsonl"),
          "--tenant",
          "tenant-a",
          "--session",
          "shared",
          "--wait",
        )
      ).code,
    ).toBe(0);

    const showA = await cli("show", "tenant-a/shared", "--json");
    const files = (JSON.parse(showA.stdout) as { files: { tenant: string; file: string }[] }).files;
    expect(files.map((f) => [f.tenant, f.file])).toEqual([["tenant-a", "fix-auth.REPLAY.jsonl"]]);

    const sessionsA = await cli("sessions", "--tenant", "tenant-a", "--json");
    const rows = sessionsA.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tenant: string; files: number });
    expect(rows).toEqual([expect.objectContaining({ tenant: "tenant-a", session: "shared", files: 1 })]);

    const stolen = await cli("pull", "tenant-a/shared/summarize.rpk");
    expect(stolen.code).toBe(1);
    expect(stolen.stdout).toBe("");

    const own = await cli("pull", "tenant-b/shared/summarize.rpk");
    expect(own.code).toBe(0);
    expect(own.stdout.length).toBeGreaterThan(0);
    expect(own.stdout).not.toBe(readFileSync(EX("summarize.rpk"), "utf8"));
  });
});

describe("push --wait output for CI", () => {
  it("--json records, sessions and show validate against schemas/", async () => {
    const pushed = await cli(
      "push",
      EX("fix-auth.REPLAY.jsonl"),
      EX("fix-auth.RECEIPT.json"),
      "--tenant",
      "ci",
      "--session",
      "j1",
      "--wait",
      "--json",
    );
    expect(pushed.code).toBe(0);
    const records = pushed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(2);
    for (const r of records) expect(schemaErrors("push", r)).toEqual([]);
    const show = await cli("show", "ci/j1", "--json");
    expect(schemaErrors("show", JSON.parse(show.stdout))).toEqual([]);
    const sessions = await cli("sessions", "--tenant", "ci", "--json");
    for (const l of sessions.stdout.trim().split("\n"))
      expect(schemaErrors("sessions", JSON.parse(l))).toEqual([]);
  });

  it("--format github annotates the failed file and writes the job summary; --format junit reports it", async () => {
    const summary = join(root, "summary.md");
    writeFileSync(summary, "");
    const gh = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          BIN,
          "push",
          EX("tampered.REPLAY.jsonl"),
          "--tenant",
          "ci",
          "--session",
          "j2",
          "--wait",
          "--format",
          "github",
          "--local-dir",
          root,
        ],
        { cwd: PROJECT_ROOT, env: { ...process.env, GITHUB_STEP_SUMMARY: summary } },
      );
      let stdout = "";
      child.stdout.on("data", (d) => {
        stdout += String(d);
      });
      child.on("close", (code) => resolve({ code, stdout }));
    });
    expect(gh.code).toBe(1);
    expect(gh.stdout).toMatch(
      /^::error file=.*tampered\.REPLAY\.jsonl,line=3,title=check\.params_hash::FAILED params_hash/m,
    );
    expect(readFileSync(summary, "utf8")).toMatch(
      /### replay-pipeline push ci\/j2\n[\s\S]*❌ failed \| 3 \| 1 \| 0 \| 0 \|/,
    );
    const junit = await cli(
      "push",
      EX("tampered.REPLAY.jsonl"),
      "--tenant",
      "ci",
      "--session",
      "j3",
      "--wait",
      "--format",
      "junit",
    );
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain(
      '<testsuites name="replay-pipeline push ci/j3" tests="5" failures="1" errors="0" skipped="0">',
    );
  });

  it("--attest DIR saves the pipeline's attestation of each replay's verdict", async () => {
    const dir = join(root, "attestations");
    const out = await cli(
      "push",
      EX("fix-auth.REPLAY.jsonl"),
      "--tenant",
      "ci",
      "--session",
      "j4",
      "--wait",
      "--attest",
      dir,
    );
    expect(out.code, out.stderr).toBe(0);
    // The local stack has no KMS key: a DSSE envelope with no signature, marked so.
    const envelope = JSON.parse(readFileSync(join(dir, "fix-auth.REPLAY.jsonl.intoto.json"), "utf8"));
    expect(envelope).toMatchObject({ payloadType: "application/vnd.in-toto+json", signatures: [] });
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(statement).toMatchObject({
      predicateType: "https://slsa.dev/verification_summary/v1",
      subject: [{ name: "ci/j4/fix-auth.REPLAY.jsonl" }],
      predicate: {
        verificationResult: "PASSED",
        resourceUri: "urn:replay-pipeline:object:ci/j4/fix-auth.REPLAY.jsonl",
      },
    });
    // (cli() adds --local-dir, which verify-attestation, a local command, does not take.)
    const checked = spawnSync(
      process.execPath,
      [
        BIN,
        "verify-attestation",
        join(dir, "fix-auth.REPLAY.jsonl.intoto.json"),
        "--replay",
        EX("fix-auth.REPLAY.jsonl"),
      ],
      { cwd: PROJECT_ROOT },
    );
    expect(checked.status, String(checked.stderr)).toBe(0);
  });
});
