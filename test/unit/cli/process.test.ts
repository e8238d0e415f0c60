import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReplayGenerator } from "../../../bench/generate.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
function run(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT });
  return { code: r.status, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

describe("replay-pipeline process", () => {
  const root = tempDir("replay-process-");
  const session = join(root, "in", "sess-1");
  mkdirSync(session, { recursive: true });
  copyFileSync(
    join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"),
    join(session, "fix-auth.REPLAY.jsonl"),
  );
  const tampered = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8").replace(
    '"params":{"path":"src/auth.rs"}',
    '"params":{"path":"src/evil.rs"}',
  );
  mkdirSync(join(root, "in", "sess-2"));
  writeFileSync(join(root, "in", "sess-2", "REPLAY.jsonl"), tampered);
  expect(
    run("receipt", join(session, "fix-auth.REPLAY.jsonl"), "-o", join(session, "RECEIPT.json")).code,
  ).toBe(0);
  const out = join(root, "out");

  it("runs the whole job on folders: copies, verdict documents, index; exit is the worst verdict", () => {
    const result = run("process", join(root, "in"), "--out", out, "--tenant", "acme", "--workers", "0");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /fix-auth\.REPLAY\.jsonl: PASSED \(replay, replay-dsrs\) as acme\/sess-1\/fix-auth\.REPLAY\.jsonl/,
    );
    expect(result.stdout).toMatch(/receipt check against acme\/sess-1\/RECEIPT\.json: PASSED/);
    expect(result.stdout).toMatch(
      /REPLAY\.jsonl: FAILED .* as acme\/sess-2\/REPLAY\.jsonl\n {2}not published: the file is failed/,
    );
    expect(existsSync(join(out, "published", "acme", "sess-1", "fix-auth.REPLAY.layer-c.jsonl"))).toBe(true);
    expect(existsSync(join(out, "published", "acme", "sess-2"))).toBe(false);
    const document = JSON.parse(
      readFileSync(join(out, "reports", "results", "acme", "sess-2", "REPLAY.jsonl.json"), "utf8"),
    );
    expect(document).toMatchObject({
      schema: "replay-pipeline.verdict.v1",
      verdict: "failed",
      layer_c: null,
    });
    const index = readFileSync(join(out, "index.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(
      index
        .filter((r) => r.type === "file")
        .map((r) => [r.ref.key, r.verdict])
        .sort(),
    ).toEqual([
      ["acme/sess-1/RECEIPT.json", "passed"],
      ["acme/sess-1/fix-auth.REPLAY.jsonl", "passed"],
      ["acme/sess-2/REPLAY.jsonl", "failed"],
    ]);
    expect(index.filter((r) => r.type === "check")).toHaveLength(1);
  });

  it("--workers 1 on a replay over 8 MiB (worker threads start) writes what one thread writes", () => {
    const gen = new ReplayGenerator(11);
    const lines = [gen.header(), gen.sessionStart()];
    let size = 0;
    while (size < 9 * 1024 * 1024) {
      for (const line of gen.nextEvents()) {
        lines.push(line);
        size += line.length + 1;
      }
    }
    lines.push(gen.sessionEnd());
    const big = join(root, "big", "s");
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, "REPLAY.jsonl"), `${lines.join("\n")}\n`);
    const copies = ["1", "0"].map((workers) => {
      const dir = join(root, `out-workers-${workers}`);
      const result = run("process", big, "--out", dir, "--workers", workers);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const [record] = readFileSync(join(dir, "index.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((r) => r.type === "file");
      return {
        record: { verdict: record.verdict, checks: record.checks_total, hash: record.replay_hash },
        copy: readFileSync(join(dir, "published", "local", "s", "REPLAY.layer-c.jsonl")),
      };
    });
    expect(copies[0]?.record.verdict).toBe("passed");
    expect(copies[0]?.record.checks.passed).toBeGreaterThan(1000);
    expect(copies[0]).toEqual(copies[1]);
  });

  it("--json prints one verdict document per file; usage errors exit 2", () => {
    const result = run("process", session, "--out", join(root, "out-json"), "--json", "--workers", "0");
    const docs = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(docs.map((d) => d.verdict)).toEqual(["passed", "passed"]);
    expect(result.code).toBe(0);
    expect(run("process", session).code).toBe(2);
    expect(run("process", "--out", out).code).toBe(2);
  });
});
