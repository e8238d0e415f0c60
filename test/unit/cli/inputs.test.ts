import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const EXAMPLES = join(PROJECT_ROOT, "examples");

/** The environment of a run: no CI variable unless a test sets one. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { CI: _, ...rest } = process.env;
  return { ...rest, ...extra };
}

function run(args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: env(extra) });
  return {
    code: r.status,
    stdout: r.stdout.toString("utf8"),
    stderr: r.stderr.toString("utf8"),
    raw: r.stdout,
  };
}

const sha = (bytes: Buffer | string): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const root = tempDir("replay-inputs-");
const FIX_AUTH = readFileSync(join(EXAMPLES, "fix-auth.REPLAY.jsonl"));
const TAMPERED = readFileSync(join(EXAMPLES, "tampered.REPLAY.jsonl"));
// dirA: a replay and its receipt, a gzip-compressed failed replay, a JSON file that is no replay.
const dirA = join(root, "a");
mkdirSync(dirA);
copyFileSync(join(EXAMPLES, "fix-auth.REPLAY.jsonl"), join(dirA, "fix-auth.REPLAY.jsonl"));
copyFileSync(join(EXAMPLES, "fix-auth.RECEIPT.json"), join(dirA, "fix-auth.RECEIPT.json"));
writeFileSync(join(dirA, "tampered.REPLAY.jsonl.gz"), gzipSync(TAMPERED));
writeFileSync(join(dirA, "package.json"), '{"name":"not-a-replay","version":"1.0.0"}');
// dirB: a ReplayBundle under the .bundle extension and a ReplayKit .rpk.
const dirB = join(root, "b");
mkdirSync(dirB);
copyFileSync(join(EXAMPLES, "autopilot.bundle.json"), join(dirB, "autopilot.bundle"));
copyFileSync(join(EXAMPLES, "summarize.rpk"), join(dirB, "summarize.rpk"));

describe("many inputs: files and folders, one report each, the worst exit code, a summary line", () => {
  it("inspect reads both folders, finds .gz and .bundle, pairs the receipt, skips other JSON with a notice", () => {
    const result = run(["inspect", dirA, dirB]);
    expect(result.code).toBe(1);
    const out = result.stdout;
    expect(out).toContain(`${dirA}/fix-auth.REPLAY.jsonl: PASSED (replay-dsrs`);
    expect(out).toContain(
      `  receipt ${dirA}/fix-auth.RECEIPT.json: PASSED (15 passed, 0 failed, 0 unverifiable)`,
    );
    expect(out).toContain(`${dirA}/tampered.REPLAY.jsonl.gz: FAILED (replay-dsrs, 1553 bytes, gzip)`);
    expect(out).toContain(`${dirB}/autopilot.bundle: UNVERIFIABLE (replay-bundle`);
    expect(out).toContain(`${dirB}/summarize.rpk: PASSED (replaykit-rpk`);
    // The receipt is checked, not reported as an invalid replay; package.json is skipped.
    expect(out).not.toContain("fix-auth.RECEIPT.json: INVALID");
    expect(out).not.toContain("package.json:");
    expect(result.stderr).toContain(`skipped ${dirA}/package.json: JSON, but not a replay format`);
    expect(out.endsWith("5 file(s): 2 passed, 1 unverifiable, 1 failed, 1 skipped\n")).toBe(true);
  });

  it("inspect --json: one object per file with the paired receipt's check; the summary on stderr", () => {
    const result = run(["inspect", dirA, "--json", "--quiet"]);
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.file, r.verdict, r.receipt_check?.verdict ?? null])).toEqual([
      [`${dirA}/fix-auth.REPLAY.jsonl`, "passed", "passed"],
      [`${dirA}/tampered.REPLAY.jsonl.gz`, "failed", null],
    ]);
    // --quiet: no skip notice; the summary line stays.
    expect(result.stderr).toBe("3 file(s): 1 passed, 1 failed, 1 skipped\n");
  });

  it("a file that cannot be read is an error of its own: the others are reported, exit 2", () => {
    const missing = join(root, "missing.jsonl");
    const result = run(["inspect", join(dirA, "fix-auth.REPLAY.jsonl"), missing]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("fix-auth.REPLAY.jsonl: PASSED");
    expect(result.stderr).toContain(`${missing}:0:0: error io.not_found: no such file\n`);
    expect(result.stdout.endsWith("2 file(s): 1 passed, 1 error\n")).toBe(true);
  });

  it("a folder with nothing to check is an error (exit 2), as scan's is", () => {
    const empty = tempDir("replay-inputs-empty-");
    writeFileSync(join(empty, "notes.txt"), "not a replay");
    const result = run(["inspect", empty]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/error io\.no_files: inspect: no \.jsonl, \.json, \.rpk or \.bundle file /);
  });

  it("a named file prints as given and is always reported (no skip, no pairing for one file)", () => {
    const result = run(["inspect", join(dirA, "package.json")]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/package\.json: INVALID \(unknown format/);
    expect(result.stdout).not.toMatch(/file\(s\)/);
  });

  it("verify pairs each replay with the RECEIPT.json beside it; an edited receipt fails (exit 1)", () => {
    const dirC = join(root, "c");
    mkdirSync(dirC);
    writeFileSync(join(dirC, "REPLAY.jsonl"), FIX_AUTH);
    const receipt = JSON.parse(readFileSync(join(EXAMPLES, "fix-auth.RECEIPT.json"), "utf8"));
    receipt.replay_hash = `sha256:${"0".repeat(64)}`;
    writeFileSync(join(dirC, "RECEIPT.json"), JSON.stringify(receipt));
    const result = run([
      "verify",
      join(dirA, "fix-auth.REPLAY.jsonl"),
      join(dirA, "fix-auth.RECEIPT.json"),
      dirC,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${dirA}/fix-auth.REPLAY.jsonl vs ${dirA}/fix-auth.RECEIPT.json: PASSED`);
    expect(result.stdout).toContain(`${dirC}/REPLAY.jsonl vs ${dirC}/RECEIPT.json: FAILED`);
    expect(result.stdout).toMatch(/FAILED replay_hash/);
    expect(result.stdout.endsWith("2 file(s): 1 passed, 1 failed\n")).toBe(true);
  });

  it("redact with -o DIR writes one copy per file; a failed file is refused, the others copied", () => {
    const out = join(root, "copies");
    const result = run(["redact", dirA, "-o", out]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `${dirA}/fix-auth.REPLAY.jsonl: copied to ${out}/fix-auth.REPLAY.layer-c.jsonl`,
    );
    const copy = readFileSync(join(out, "fix-auth.REPLAY.layer-c.jsonl"), "utf8");
    expect(JSON.parse(copy.split("\n")[0] as string).redaction.original.verdict).toBe("passed");
    expect(result.stderr).toMatch(/tampered\.REPLAY\.jsonl\.gz: the input is failed.*\[redact\.refused\]/);
    expect(existsSync(join(out, "tampered.REPLAY.layer-c.jsonl"))).toBe(false);
    expect(result.stdout.endsWith("3 file(s): 1 done, 1 failed, 1 skipped\n")).toBe(true);
  });

  it("redact of several files without -o DIR is a usage error (exit 2)", () => {
    const result = run(["redact", join(dirA, "fix-auth.REPLAY.jsonl"), join(dirB, "summarize.rpk")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/several inputs need -o DIR/);
  });

  it("scan dir1 dir2 reads both, scan file works, and the receipt check is in the row", () => {
    const both = run(["scan", dirA, dirB, "--json"]);
    const rows = both.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.file)).toEqual([
      `${dirA}/fix-auth.REPLAY.jsonl`,
      `${dirA}/tampered.REPLAY.jsonl.gz`,
      `${dirB}/autopilot.bundle`,
      `${dirB}/summarize.rpk`,
    ]);
    expect(rows[0].receipt).toEqual({
      file: `${dirA}/fix-auth.RECEIPT.json`,
      verdict: "passed",
      checks: { passed: 15, failed: 0, unverifiable: 0 },
    });
    // gzip is read gunzipped for the canonical hashes, as inspect reads it.
    expect(rows[1].canonical.jcs).toMatch(/^sha256:/);
    expect(both.code).toBe(1);
    const one = run(["scan", join(dirB, "summarize.rpk")]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`| ${dirB}/summarize.rpk | replaykit-rpk | passed |`);
  });
});

describe("hash and canon over many files, and gzip everywhere", () => {
  const plain = join(dirA, "fix-auth.REPLAY.jsonl");
  const zipped = join(root, "fix-auth.REPLAY.jsonl.gz");
  writeFileSync(zipped, gzipSync(FIX_AUTH));

  it("hash of several files prints sha256sum-style lines and a summary on stderr", () => {
    const rpk = join(dirB, "summarize.rpk");
    const result = run(["hash", "--raw", plain, rpk]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${sha(FIX_AUTH)}  ${plain}\n${sha(readFileSync(rpk))}  ${rpk}\n`);
    expect(result.stderr).toBe("2 file(s): 2 done\n");
  });

  it("hash --raw of a gzip file hashes the bytes as stored and says so; --decompressed the gunzipped ones", () => {
    const stored = run(["hash", "--raw", zipped]);
    expect(stored.stdout).toBe(`${sha(readFileSync(zipped))}\n`);
    expect(stored.stderr).toMatch(/is gzip: hashed its compressed bytes as stored/);
    const inflated = run(["hash", "--raw", "--decompressed", zipped]);
    expect(inflated.stdout).toBe(`${sha(FIX_AUTH)}\n`);
    expect(inflated.stderr).toMatch(/is gzip: hashed its decompressed bytes/);
    // A plain file: the same hash either way, and no note.
    expect(run(["hash", "--decompressed", plain])).toMatchObject({
      stdout: `${sha(FIX_AUTH)}\n`,
      stderr: "",
    });
  });

  it("canon and hash read gzip as inspect does (no 'invalid UTF-8 byte 0x8b')", () => {
    const fromGzip = run(["canon", zipped]);
    expect(fromGzip.code).toBe(0);
    expect(fromGzip.raw.equals(run(["canon", plain]).raw)).toBe(true);
    expect(run(["hash", zipped]).stdout).toBe(run(["hash", plain]).stdout);
    const doc = join(root, "doc.json.gz");
    writeFileSync(doc, gzipSync('{"b":1,"a":2}'));
    expect(run(["canon", doc]).stdout).toBe('{"a":2,"b":1}');
  });

  it("canon of several files prints JSON Lines: one document per line, lines as they are", () => {
    const one = join(root, "one.json");
    writeFileSync(one, '{"z":1,"y":[2]}');
    const lines = join(root, "two.jsonl");
    writeFileSync(lines, '{"b":1}\n{"a":2}\n');
    const result = run(["canon", one, lines]);
    expect(result.stdout).toBe('{"y":[2],"z":1}\n{"b":1}\n{"a":2}\n');
    expect(result.stderr).toBe("2 file(s): 2 done\n");
  });

  it("export reads a gzip-compressed bundle", () => {
    const bundle = join(root, "bundle.json.gz");
    writeFileSync(bundle, gzipSync(readFileSync(join(EXAMPLES, "autopilot.bundle.json"))));
    const fromGzip = run(["export", bundle]);
    expect(fromGzip.code).toBe(0);
    expect(fromGzip.stdout).toBe(run(["export", join(EXAMPLES, "autopilot.bundle.json")]).stdout);
  });
});

describe("a progress line on stderr for files over 64 MiB, on a terminal only", () => {
  const big = join(root, "big.bin");
  writeFileSync(big, Buffer.alloc(65 * 1024 * 1024, 0x61));
  const expected = `${sha(readFileSync(big))}`;
  /** The command run under `script`, so its standard error is a pseudo-terminal. */
  function onTerminal(args: string[], extra: Record<string, string> = {}) {
    const command = [process.execPath, BIN, ...args].join(" ");
    const r = spawnSync("script", ["-qec", command, "/dev/null"], { cwd: PROJECT_ROOT, env: env(extra) });
    return { code: r.status, out: r.stdout.toString("utf8") };
  }

  it("shows bytes, MB/s and ETA on a terminal, then erases the line", () => {
    const result = onTerminal(["hash", "--raw", big]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /big\.bin: \d+\.\d MiB of 65\.0 MiB \(\d+%\), \d+\.\d MB\/s, ETA (\d+:\d\d|\?)/,
    );
    expect(result.out).toContain("\r\x1b[K");
    expect(result.out).toContain(expected);
  });

  it("is off with --quiet, in CI, and when stderr is not a terminal", () => {
    for (const result of [
      onTerminal(["hash", "--raw", big, "--quiet"]),
      onTerminal(["hash", "--raw", big], { CI: "true" }),
    ]) {
      expect(result.out).toContain(expected);
      expect(result.out).not.toMatch(/MB\/s/);
    }
    const piped = run(["hash", "--raw", big]);
    expect(piped.stdout).toBe(`${expected}\n`);
    expect(piped.stderr).toBe("");
  });
});
