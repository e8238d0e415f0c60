import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { corpusBytes, corpusPath, PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");

function run(...args: string[]): { code: number | null; stdout: string; stderr: string; raw: Buffer } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT });
  return {
    code: result.status,
    stdout: result.stdout.toString("utf8"),
    stderr: result.stderr.toString("utf8"),
    raw: result.stdout,
  };
}

const dir = tempDir("replay-cli-");
function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("replay-pipeline canon", () => {
  it("prints RFC 8785 output/weird.json byte for byte, without a trailing newline", () => {
    const result = run("canon", corpusPath("rfc8785", "input", "weird.json"));
    expect(result.code).toBe(0);
    expect(result.raw.equals(corpusBytes("rfc8785", "output", "weird.json"))).toBe(true);
  });

  it("canonicalizes JSON Lines line by line with the chosen profile", () => {
    const result = run(
      "canon",
      file("a.jsonl", '{"b":1.0,"a":[1e2]}\n{"x":"\\u00e9"}\n'),
      "--profile",
      "openagents",
    );
    expect(result.stdout).toBe('{"a":[100.0],"b":1.0}\n{"x":"é"}\n');
  });

  it("reads a non-.jsonl name as JSON Lines with --jsonl", () => {
    expect(run("canon", file("lines.txt", "[1]\n[2]\n"), "--jsonl").stdout).toBe("[1]\n[2]\n");
  });

  it("applies the replaykit rules", () => {
    const result = run(
      "canon",
      corpusPath("replaykit", "fuzz_corpus", "canonical", "path_timestamp_mixed.json"),
      "--profile",
      "replaykit",
    );
    expect(JSON.parse(result.stdout)).toEqual({
      cwd: "/c/Users/alice/repo/",
      nested: {
        file_path: "/logs/trace.txt",
        labels: ["alpha", "beta"],
        updated_at: "2026-02-21T16:02:03.123456Z",
      },
      tags: ["a", "m", "z"],
      timestamp: "2026-02-23T01:10:00.000000Z",
    });
  });
});

describe("replay-pipeline hash", () => {
  const replay = corpusPath("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl");

  it("--raw gives the replay_hash the producer recorded", () => {
    expect(run("hash", replay, "--raw").stdout).toBe(
      "sha256:d0f58fa2c0aef7d87ac809d6420852c6fd8f37b8e24fb489b551867323beec69\n",
    );
  });

  it("hashes exactly what canon prints", () => {
    for (const profile of ["jcs", "openagents", "replaykit"]) {
      const canon = run("canon", replay, "--profile", profile).raw;
      const expected = `sha256:${createHash("sha256").update(canon).digest("hex")}\n`;
      expect(run("hash", replay, "--profile", profile).stdout).toBe(expected);
    }
  });

  it("reads standard input with -", () => {
    const result = spawnSync(process.execPath, [BIN, "hash", "-"], { input: '{"b":2,"a":1}' });
    expect(result.stdout.toString()).toBe(
      `sha256:${createHash("sha256").update('{"a":1,"b":2}').digest("hex")}\n`,
    );
  });
});

describe("errors and usage", () => {
  it("exits 1 (bad input) with one file:line:col: error code: message line", () => {
    const path = file("dup.json", '{"a":1,\n "a":2}');
    const result = run("canon", path);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `${path}:2:2: error json.duplicate_key: duplicate member name "a"; first at column 2 of the line above; expected each name once per object\n`,
    );
  });

  it("names the line of a bad JSON Lines line", () => {
    const result = run("hash", file("bad.jsonl", '{"a":1}\n{"a":\n'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /bad\.jsonl:2:6: error json\.syntax: expected a JSON value, found end of input\n$/,
    );
  });

  it("reports a missing file", () => {
    const result = run("hash", join(dir, "missing.json"));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${join(dir, "missing.json")}:0:0: error io.not_found: no such file\n`);
  });

  it.each([
    [["canon"], "expected at least one input file or folder"],
    [["redact", "a", "b"], "several inputs need -o DIR"],
    [["hash", "x.json", "--profile", "sha1"], "unknown profile 'sha1'"],
    [["canon", "x.json", "--nope"], "unknown option '--nope'"],
    [["frobnicate"], "unknown command 'frobnicate'"],
    // Names every object inherits are no commands either.
    [["constructor"], "unknown command 'constructor'"],
    [["__proto__"], "unknown command '__proto__'"],
    [["hash", "x.json", "--max-depth", "0"], "--max-depth expects a positive integer"],
  ])("rejects %j as a usage error", (args, message) => {
    const result = run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(/^replay-pipeline: error cli\.usage: /);
  });

  it.each(["canon", "hash", "scan"])("%s --help explains its options and exits 0", (command) => {
    const result = run(command, "--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: replay-pipeline ${command}`);
  });

  it.each(["inspect", "push"])(
    "help %s prints that command's help (its chunk loaded) and exits 0",
    (command) => {
      const result = run("help", command);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: replay-pipeline ${command}`);
    },
  );

  it.each(["nope", "toString", "hasOwnProperty"])("help %s prints the command list and exits 0", (topic) => {
    const result = run("help", topic);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: replay-pipeline <command> \[options\]/);
  });

  it("--help lists the commands", () => {
    const result = run("--help");
    expect(result.code).toBe(0);
    for (const command of ["canon", "hash", "scan"]) expect(result.stdout).toContain(command);
  });
});

describe("the local servers' packages (s3rver, dynalite)", () => {
  /** Run before the CLI (--import): at exit, prints how many of their CommonJS files were loaded. */
  const PROBE = `data:text/javascript,${encodeURIComponent(
    `import { createRequire } from "node:module";
     const cache = createRequire(process.cwd() + "/").cache;
     process.on("exit", () => process.stderr.write("loaded " + Object.keys(cache).filter((k) => /node_modules[\\\\/](s3rver|dynalite)[\\\\/]/.test(k)).length + "\\n"));`,
  )}`;
  function loaded(...args: string[]): number {
    const result = spawnSync(
      process.execPath,
      ["--openssl-legacy-provider", "--import", PROBE, BIN, ...args],
      {
        cwd: PROJECT_ROOT,
        encoding: "utf8",
      },
    );
    const count = /^loaded (\d+)$/m.exec(result.stderr)?.[1];
    expect(count, result.stderr).toBeDefined();
    return Number(count);
  }

  it.each([
    ["inspect", "examples/fix-auth.REPLAY.jsonl"],
    ["push", "--help"],
    ["report", "--help"],
    ["start", "--help"],
  ])("are not loaded by %s %s", (...args) => {
    expect(loaded(...args)).toBe(0);
  });

  it("are loaded when start starts its servers", () => {
    const empty = tempDir("replay-cli-start-");
    const freePorts = ["--s3-port", "0", "--dynamo-port", "0"];
    const args = [
      "--once",
      "--memory",
      "--dir",
      join(empty, "stack"),
      "--examples",
      empty,
      "--timeout",
      "30",
    ];
    expect(loaded("start", ...args, ...freePorts)).toBeGreaterThan(0);
  });
});

describe("replay-pipeline scan", () => {
  it("hashes every replay file of a folder and goes on past a bad one", () => {
    const folder = tempDir("replay-scan-");
    writeFileSync(join(folder, "good.jsonl"), '{"a":1}\n');
    writeFileSync(join(folder, "bad.json"), "{");
    const zipped = gzipSync('{"a":2}\n');
    writeFileSync(join(folder, "zipped.jsonl"), zipped);
    const result = run("scan", folder, "--json");
    expect(result.code).toBe(1);
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.file.split("/").pop())).toEqual(["bad.json", "good.jsonl", "zipped.jsonl"]);
    expect(rows[1].raw).toBe(`sha256:${createHash("sha256").update('{"a":1}\n').digest("hex")}`);
    expect(rows[1].bytes).toBe(8);
    // The raw hash is of the file's own bytes, gzip included.
    expect(rows[2].raw).toBe(`sha256:${createHash("sha256").update(zipped).digest("hex")}`);
    expect(rows[2].bytes).toBe(zipped.length);
    expect(rows[0].errors.jcs.code).toBe("json.syntax");
    expect(rows.map((r) => r.verdict)).toEqual(["invalid", "invalid", "invalid"]);
  });

  it("gives every example inspect's verdict (npm start's local stack uploads the same files)", () => {
    const result = run("scan", "examples", "--exit-zero");
    expect(result.code).toBe(0);
    // One example per format family; span traces and bundles carry no hash, so unverifiable; the
    // tampered copy fails its params_hash; the receipt is checked against its replay, not listed.
    const examples: [string, string, string][] = [
      ["fix-auth.REPLAY.jsonl", "replay-dsrs", "passed"],
      ["summarize.rpk", "replaykit-rpk", "passed"],
      ["support-chat.trace.jsonl", "braintrust-spans", "unverifiable"],
      ["autopilot.bundle.json", "replay-bundle", "unverifiable"],
      ["tampered.REPLAY.jsonl", "replay-dsrs", "failed"],
    ];
    for (const [file, format, verdict] of examples) {
      expect(result.stdout).toMatch(
        new RegExp(`${file.replaceAll(".", "\\.")} \\| ${format} \\| ${verdict}`),
      );
    }
    expect(result.stdout).not.toMatch(/\| examples\/fix-auth\.RECEIPT\.json \|/);
    expect(result.stdout).toContain(
      "receipt check: examples/fix-auth.REPLAY.jsonl against examples/fix-auth.RECEIPT.json: PASSED (15/0/0)",
    );
    expect(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).toContain(
      '"start": "npm run build && node --openssl-legacy-provider bin/replay-pipeline.js start"',
    );
  });

  it("exits with the worst verdict, as inspect would for each file, and 2 when there is nothing to check", () => {
    // Without --exit-zero the tampered example decides: 1, the code inspect gives it.
    expect(run("scan", "examples").code).toBe(1);
    const rows = run("scan", "examples", "--json")
      .stdout.trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; verdict: string; exit_code: number });
    for (const row of rows) expect(run("inspect", row.file).code, row.file).toBe(row.exit_code);
    const empty = tempDir("scan-empty-");
    const none = run("scan", empty);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /error scan\.no_files: .*no \.json, \.jsonl, \.rpk or \.bundle file \(or \.gz of one\) to check/,
    );
  });
});
