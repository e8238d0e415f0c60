import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { exampleReplays } from "../../support/corpus.js";

const dir = mkdtempSync(join(tmpdir(), "replay-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIX = "examples/fix-auth.REPLAY.jsonl";
const TAMPERED = "examples/tampered.REPLAY.jsonl";

describe("replay-pipeline diff", () => {
  it("names the tampered step and exits 1", () => {
    const run = runCli(["diff", FIX, TAMPERED]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("first divergence: a#1 b#1 tool file_read tc_001: changed params");
  });

  it("names it too between the two Layer C copies, which hold no params", () => {
    const a = join(dir, "fix-auth.layer-c.jsonl");
    const b = join(dir, "tampered.layer-c.jsonl");
    expect(runCli(["redact", FIX, "-o", a, "-q"]).code).toBe(0);
    expect(runCli(["redact", TAMPERED, "-o", b, "-q", "--allow-unverified"]).code).toBe(0);
    expect(readFileSync(b, "utf8")).not.toContain('"params":{');
    const run = runCli(["diff", a, b, "--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.equal).toBe(false);
    expect(report.changed).toHaveLength(1);
    expect(report.changed[0].b).toMatchObject({ id: "tc_001", name: "file_read" });
    expect(report.changed[0].fields[0]).toMatchObject({ field: "params" });
  });

  it.each(exampleReplays())("finds examples/%s equal to itself (exit 0)", (name) => {
    const run = runCli(["diff", `examples/${name}`, `examples/${name}`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^equal: \d+ steps$/m);
  });

  it("writes the side-by-side page with --html", () => {
    const page = join(dir, "diff.html");
    expect(runCli(["diff", FIX, TAMPERED, "--html", "-o", page]).code).toBe(1);
    expect(readFileSync(page, "utf8")).toContain('<tr class="changed">');
  });

  it("exits 2 when it cannot compare", () => {
    expect(runCli(["diff", FIX]).code).toBe(2);
    expect(runCli(["diff", FIX, join(dir, "missing.jsonl")]).code).toBe(2);
    const notReplay = runCli(["diff", "package.json", FIX]);
    expect(notReplay.code).toBe(2);
    expect(notReplay.stderr).toContain("cli.not_comparable");
    expect(runCli(["diff", FIX, TAMPERED, "--json", "--html"]).code).toBe(2);
  });
});
