import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { exampleReplays } from "../../support/corpus.js";

const dir = mkdtempSync(join(tmpdir(), "replay-view-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("replay-pipeline view", () => {
  it.each(exampleReplays())("writes the page of examples/%s and of its Layer C copy", (name) => {
    const page = join(dir, `${name}.html`);
    const run = runCli(["view", `examples/${name}`, "-o", page]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<script type="application/json" id="data">');
    const copy = join(dir, `${name}.layer-c`);
    expect(runCli(["redact", `examples/${name}`, "-o", copy, "-q"]).code).toBe(0);
    const copied = runCli(["view", copy]);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toContain("<h2>Layer C copy</h2>");
    expect(copied.stdout).toContain("redactions by rule");
  });

  it("shows the receipt's checks with --receipt", () => {
    const run = runCli([
      "view",
      "examples/fix-auth.REPLAY.jsonl",
      "--receipt",
      "examples/fix-auth.RECEIPT.json",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /<h2>Receipt examples\/fix-auth\.RECEIPT\.json <span class="verdict passed">passed<\/span><\/h2>/,
    );
  });

  it("shows a tampered file's failed step hash, recorded and recomputed", () => {
    const run = runCli(["view", "examples/tampered.REPLAY.jsonl"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('<span class="verdict failed">failed</span>');
    expect(run.stdout).toMatch(/\["params","sha256:2432e75f[0-9a-f]+","sha256:7bb8939a[0-9a-f]+","failed"\]/);
  });

  it("exits 2 when it cannot run", () => {
    expect(runCli(["view", join(dir, "missing.jsonl")]).code).toBe(2);
    expect(runCli(["view"]).code).toBe(2);
    expect(runCli(["view", "examples/fix-auth.REPLAY.jsonl", "--receipt", join(dir, "none.json")]).code).toBe(
      2,
    );
  });

  it("is listed in the help", () => {
    const help = runCli(["--help"]).stdout;
    expect(help).toMatch(/^ {2}view {2,}write a self-contained HTML page/m);
    expect(help).toMatch(/^ {2}diff {2,}compare two sessions/m);
  });
});
