/**
 * Many inputs in every output format, through the binary: the exit-code table's ranking over
 * files (2 over 1 over 3 over 0), GitHub annotations for every file, one JUnit document with a
 * testsuite per file, --attest with several files.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileWriter, runCli } from "../../support/cli.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
const dir = tempDir("cli-many-output-");
const FIX = EX("fix-auth.REPLAY.jsonl");
const TAMPERED = EX("tampered.REPLAY.jsonl");
/** Well formed, nothing to recompute: unverifiable (exit 3). */
const BUNDLE = EX("autopilot.bundle.json");
const MISSING = join(dir, "missing.REPLAY.jsonl");

const run = runCli;
const file = fileWriter(dir);

/** The suites of a JUnit document, parsed strictly (expat throws on anything not well-formed). */
function suitesOf(xml: string): { name: string; tests: number; failures: number; errors: number }[] {
  const script = `
import json, sys, xml.dom.minidom as m
doc = m.parseString(sys.stdin.buffer.read())
print(json.dumps([{"name": s.getAttribute("name"), "tests": int(s.getAttribute("tests")),
  "failures": int(s.getAttribute("failures")), "errors": int(s.getAttribute("errors"))}
  for s in doc.getElementsByTagName("testsuite")]))
`;
  const result = spawnSync("python3", ["-c", script], { input: xml });
  if (result.status !== 0) throw new Error(`not well-formed XML: ${result.stderr.toString()}`);
  return JSON.parse(result.stdout.toString());
}

describe("the exit-code table over many files: 2 over 1 over 3 over 0", () => {
  it("inspect: unverifiable alone 3, with a failed file 1, with a missing file 2", () => {
    expect(run(["inspect", BUNDLE, FIX, "-q"]).code).toBe(3);
    expect(run(["inspect", BUNDLE, TAMPERED, FIX, "-q"]).code).toBe(1);
    expect(run(["inspect", BUNDLE, TAMPERED, MISSING, "-q"]).code).toBe(2);
  });

  it("canon: a file that is not valid JSON is bad input (1) among good ones, a missing one 2", () => {
    const good = file("good.json", '{"b":1,"a":2}');
    const bad = file("bad.json", '{"a":');
    const out = run(["canon", good, bad]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('{"a":2,"b":1}\n');
    expect(out.stderr).toMatch(new RegExp(`^${bad.replaceAll(".", "\\.")}:1:\\d+: error json\\.`, "m"));
    expect(run(["canon", good, bad, MISSING]).code).toBe(2);
  });
});

describe("--format github over many files", () => {
  it("annotates every file, a missing one too, and writes one job summary with a row per file", () => {
    const summary = join(dir, "summary.md");
    const out = run(["inspect", FIX, TAMPERED, BUNDLE, MISSING, "--format", "github"], {
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(`${FIX}: PASSED`);
    expect(out.stdout).toContain(`${TAMPERED}: FAILED`);
    expect(out.stdout).toContain(`${BUNDLE}: UNVERIFIABLE`);
    expect(out.stdout).toMatch(
      /^::error file=[^,]*tampered\.REPLAY\.jsonl,line=3,.*title=check\.params_hash::/m,
    );
    expect(out.stdout).toMatch(
      /^::error file=[^,]*missing\.REPLAY\.jsonl,title=io\.not_found::no such file$/m,
    );
    // The summary line goes to stderr: stdout holds only workflow commands and status lines.
    expect(out.stderr).toContain("4 file(s): 1 passed, 1 unverifiable, 1 failed, 1 error");
    const table = readFileSync(summary, "utf8");
    expect(table.match(/^### /gm)).toHaveLength(1);
    expect(table.match(/^\| `/gm)).toHaveLength(4);
    expect(table).toContain(`| \`${MISSING}\` | ❌ not read |`);
  });
});

describe("--format junit over many files", () => {
  it("inspect: one document, a testsuite per file, a missing file as an error suite", () => {
    const out = run(["inspect", FIX, TAMPERED, MISSING, "--format", "junit"]);
    expect(out.code).toBe(2);
    expect(out.stdout.match(/<\?xml/g)).toHaveLength(1);
    const suites = suitesOf(out.stdout);
    expect(suites.map((s) => s.name)).toEqual([
      `inspect ${FIX}`,
      `inspect ${TAMPERED}`,
      `inspect ${MISSING}`,
    ]);
    expect(suites.map((s) => [s.failures, s.errors])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
  });

  it("verify of a folder pairs the receipt and writes one document", () => {
    const runs = join(dir, "runs");
    mkdirSync(runs);
    for (const name of ["fix-auth.REPLAY.jsonl", "fix-auth.RECEIPT.json", "tampered.REPLAY.jsonl"])
      writeFileSync(join(runs, name), readFileSync(EX(name)));
    const out = run(["verify", runs, "--format", "junit"]);
    expect(out.code).toBe(1);
    expect(suitesOf(out.stdout).map((s) => s.name)).toEqual([
      `verify ${join(runs, "fix-auth.REPLAY.jsonl")}`,
      `verify ${join(runs, "tampered.REPLAY.jsonl")}`,
    ]);
  });

  it("scan and process take --format junit and github too", () => {
    const scan = run(["scan", FIX, TAMPERED, "--format", "junit"]);
    expect(scan.code).toBe(1);
    expect(suitesOf(scan.stdout).map((s) => s.name)).toEqual([`inspect ${FIX}`, `inspect ${TAMPERED}`]);
    const processed = run(["process", FIX, TAMPERED, "--out", join(dir, "out"), "--format", "github"]);
    expect(processed.code).toBe(1);
    expect(processed.stdout).toContain(`${FIX}: PASSED`);
    expect(processed.stdout).toMatch(
      /^::error file=[^,]*tampered\.REPLAY\.jsonl,line=3,.*title=check\.params_hash::/m,
    );
  });
});

describe("--attest with several files", () => {
  it("needs a folder: a file path is a usage error before any work", () => {
    const target = join(dir, "one.intoto.json");
    const out = run(["inspect", FIX, TAMPERED, "--attest", target]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("error cli.usage: inspect: --attest");
    expect(out.stderr).toContain("is not a folder");
    expect(existsSync(target)).toBe(false);
  });

  it("writes <folder>/<file name>.intoto.json for each file, each checkable on its own", () => {
    const folder = join(dir, "attestations");
    mkdirSync(folder);
    expect(
      run(["verify", FIX, TAMPERED, "--receipt", EX("fix-auth.RECEIPT.json"), "--attest", folder, "-q"]).code,
    ).toBe(1);
    const passed = join(folder, "fix-auth.REPLAY.jsonl.intoto.json");
    const failed = join(folder, "tampered.REPLAY.jsonl.intoto.json");
    expect(run(["verify-attestation", passed, "--replay", FIX]).code).toBe(0);
    expect(run(["verify-attestation", failed, "--replay", TAMPERED]).code).toBe(1);
    expect(JSON.parse(readFileSync(failed, "utf8")).predicate.verificationResult).toBe("FAILED");
  });

  it("refuses two files of the same name (their statements would overwrite each other)", () => {
    const other = join(dir, "other");
    mkdirSync(other);
    writeFileSync(join(other, "fix-auth.REPLAY.jsonl"), readFileSync(FIX));
    const out = run(["inspect", FIX, join(other, "fix-auth.REPLAY.jsonl"), "--attest", dir]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("have the same file name");
  });
});
