/**
 * Verdicts a CI job can trust, through the binary: a key means a signature is required, Layer C
 * never launders a bad file, a copy verifies against its original's receipt, and nothing the
 * commands print repeats a secret from the input.
 */
import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalize, decodeUtf8, type JsonObject, readJson } from "#shared/canonical/index.js";
import { corpusPath, PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const dir = tempDir("replay-trust-");

function run(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
  });
  return {
    code: result.status,
    stdout: result.stdout.toString("utf8"),
    stderr: result.stderr.toString("utf8"),
  };
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const EXAMPLE = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8");
/** The example with one hashed param changed: its params_hash row fails. */
const TAMPERED = EXAMPLE.replace('"params":{"path":"src/auth.rs"}', '"params":{"path":"src/evil.rs"}');

describe("a key means a signature is required", () => {
  const KEY = "dev-signing-key";
  const rpk = readJson(
    decodeUtf8(readFileSync(join(PROJECT_ROOT, "examples", "summarize.rpk"))),
  ) as JsonObject;
  const { version, metadata, payload, checksum } = rpk;
  const text = canonicalize({ version, metadata, payload, checksum } as JsonObject, "replaykit");
  const value = `hmac-sha256:${createHmac("sha256", KEY).update(text).digest("hex")}`;
  const signed = file(
    "signed.rpk",
    JSON.stringify({ ...rpk, signature: { algorithm: "hmac-sha256", key_id: "k", value } }),
  );
  const stripped = file("stripped.rpk", JSON.stringify(rpk));
  const keyFile = file("key.bin", KEY);

  it("inspect, verify and scan pass the signed artifact and fail the one whose signature was removed", () => {
    for (const [command, extra] of [
      ["inspect", []],
      ["verify", []],
    ] as const) {
      expect(run([command, signed, "--hmac-key-file", keyFile, ...extra]).stdout, command).toMatch(
        /signature|PASSED|UNVERIFIABLE/,
      );
      const bad = run([command, stripped, "--hmac-key-file", keyFile, "--json"]);
      expect(bad.code, command).toBe(1);
      expect(bad.stdout, command).toMatch(/"check":"signature".*"actual":"no signature".*"status":"failed"/);
    }
    expect(run(["inspect", signed, "--hmac-key-file", keyFile]).code).toBe(0);
    // Without a key the stripped artifact is simply unsigned.
    expect(run(["inspect", stripped]).code).toBe(0);
    const folder = mkdtempSync(join(dir, "scan-"));
    writeFileSync(join(folder, "stripped.rpk"), readFileSync(stripped));
    const scan = run(["scan", folder, "--json", "--hmac-key-env", "RP_KEY"], { RP_KEY: KEY });
    expect(scan.code).toBe(1);
    expect(JSON.parse(scan.stdout)).toMatchObject({ verdict: "failed", exit_code: 1 });
  });
});

describe("Layer C never launders a bad file", () => {
  it("redact refuses a failed input (exit 1, the failed row named, nothing written)", () => {
    const input = file("tampered.REPLAY.jsonl", TAMPERED);
    const out = join(dir, "tampered.layer-c.jsonl");
    const result = run(["redact", input, "-o", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/params_hash \(line 3 ToolCall tc_001 params\) failed/);
    expect(result.stderr).toMatch(/\[redact\.refused\]/);
    expect(existsSync(out)).toBe(false);
  });

  it("redact refuses an invalid input with inspect's findings", () => {
    const input = file("invalid.REPLAY.jsonl", EXAMPLE.split("\n").slice(0, 3).join("\n"));
    const result = run(["redact", input]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the input is invalid.*no SessionEnd/);
    expect(result.stdout).toBe("");
  });

  it("with --allow-unverified the copy is made and its record says failed; it differs from the clean copy", () => {
    const clean = join(dir, "clean.layer-c.jsonl");
    const dirty = join(dir, "dirty.layer-c.jsonl");
    expect(run(["redact", file("clean.REPLAY.jsonl", EXAMPLE), "-o", clean]).code).toBe(0);
    expect(
      run(["redact", file("dirty.REPLAY.jsonl", TAMPERED), "-o", dirty, "--allow-unverified"]).code,
    ).toBe(0);
    const record = (path: string) =>
      JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string).redaction.original;
    expect(record(clean)).toMatchObject({ verdict: "passed", checks_total: { failed: 0 } });
    expect(record(dirty)).toMatchObject({ verdict: "failed", checks_total: { failed: 1 } });
    expect(readFileSync(dirty)).not.toEqual(readFileSync(clean));
    // The copy itself says what it is and never reads as passed.
    const inspected = JSON.parse(run(["inspect", dirty, "--json"]).stdout);
    expect(inspected.verdict).toBe("unverifiable");
    expect(inspected.original).toMatchObject({ verdict: "failed" });
    expect(inspected.notices.map((n: { code: string }) => n.code)).toContain("layer_c.copy");
  });

  it("a copy verifies against the original's receipt: hashes as usual, replay_hash from the record", () => {
    const original = file("orig.REPLAY.jsonl", EXAMPLE);
    const receipt = join(dir, "orig.RECEIPT.json");
    const copy = join(dir, "orig.layer-c.jsonl");
    expect(run(["receipt", original, "-o", receipt]).code).toBe(0);
    expect(run(["redact", original, "-o", copy]).code).toBe(0);
    const result = run(["verify", copy, "--receipt", receipt, "--json"]);
    const report = JSON.parse(result.stdout);
    expect(report.checks.filter((c: { status: string }) => c.status !== "passed")).toEqual([]);
    expect(report.checks).toContainEqual(
      expect.objectContaining({
        check: "replay_hash",
        status: "passed",
        subject: expect.stringMatching(/Layer C copy's record/),
      }),
    );
    expect(report.checks.filter((c: { check: string }) => c.check === "params_hash").length).toBeGreaterThan(
      0,
    );
    expect(report.verdict).toBe("passed");
    expect(result.code).toBe(0);
    // The copy's own bytes are not the original's: a receipt for them would not match.
    expect(report.replay.replay_hash).not.toBe(
      report.checks.find((c: { check: string }) => c.check === "replay_hash").expected,
    );
  });
});

describe("our own output never repeats a secret", () => {
  const AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const GITHUB = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
  const URL_PASSWORD = "hunter2-Secret-9";
  const leaky = EXAMPLE.replace(
    /"commands":\[[^\]]*\]/,
    `"commands":["AWS_SECRET_ACCESS_KEY=${AWS} cargo test","git push https://x-access-token:${GITHUB}@github.com/o/r","psql postgres://admin:${URL_PASSWORD}@db.internal:5432/app"]`,
  ).replace(/"exit_codes":\[[^\]]*\]/, '"exit_codes":[0,0,0]');
  const path = file("leaky.REPLAY.jsonl", leaky);
  const secrets = [AWS, GITHUB, URL_PASSWORD];

  it("the input really carries them, in commands inspect prints", () => {
    for (const s of secrets) expect(leaky).toContain(s);
  });

  it.each([
    ["inspect", [path]],
    ["inspect", [path, "--json"]],
    ["verify", [path]],
    ["verify", [path, "--json"]],
  ])("%s %j prints none of them, and still names the verification runs", (command, args) => {
    const result = run([command, ...args]);
    const printed = result.stdout + result.stderr;
    for (const s of secrets) expect(printed).not.toContain(s);
    // The human verify report lists rows, not the session's commands.
    if (command === "inspect" || args.includes("--json")) {
      expect(printed).toMatch(/cargo test/);
      expect(printed).toMatch(/REDACTED/);
    }
    // Hashes stay: a report must still be checkable.
    expect(printed).toMatch(/sha256:[0-9a-f]{64}/);
  });

  it("scan and error messages print none of them", () => {
    const folder = mkdtempSync(join(dir, "leaky-"));
    writeFileSync(join(folder, "leaky.REPLAY.jsonl"), leaky);
    writeFileSync(join(folder, "bad.jsonl"), `{"event":"ReplayHeader","${GITHUB}":1,"${GITHUB}":2}\n`);
    const scan = run(["scan", folder, "--json"]);
    const hashed = run(["canon", join(folder, "bad.jsonl")]);
    expect(hashed.code).toBe(1);
    expect(hashed.stderr).toMatch(/duplicate member name/);
    for (const s of secrets) {
      expect(scan.stdout + scan.stderr).not.toContain(s);
      expect(hashed.stderr).not.toContain(s);
    }
  });
});

describe("corpus receipts and copies read cleanly by our own commands", () => {
  it("a runtime replay's copy verifies against the original's receipt without a false failed", () => {
    const replay = corpusPath("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl");
    const receipt = join(dir, "happy.RECEIPT.json");
    const copy = join(dir, "happy.layer-c.jsonl");
    expect(run(["receipt", replay, "-o", receipt]).code).toBe(0);
    expect(run(["redact", replay, "-o", copy]).code).toBe(0);
    const report = JSON.parse(run(["verify", copy, "--receipt", receipt, "--json"]).stdout);
    expect(report.checks.filter((c: { status: string }) => c.status === "failed")).toEqual([]);
    expect(report.verdict).not.toBe("failed");
  });
});
