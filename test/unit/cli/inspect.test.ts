import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { canonicalize, readJson } from "#shared/canonical/index.js";
import { ReplayGenerator } from "../../../bench/generate.js";
import { corpusPath, corpusText, PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const dir = tempDir("replay-inspect-");

function run(args: string[], env: Record<string, string> = {}) {
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

describe("replay-pipeline inspect", () => {
  const replay = corpusPath("openagents", "replays-type-ts", "run_cancel_flow_v1.REPLAY.jsonl");

  it("--json prints one object with format, verdict, checks, errors, notices, replay_hash and summary; exit 0", () => {
    const result = run(["inspect", replay, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      format: "replay-v1",
      verdict: "passed",
      errors: [],
      replay_hash: "sha256:8c091d9c93711189e51ca37c8f313e3749b0adb8ba7982c7c4e78ba8641c8010",
      summary: { session_id: "01951d2a-6c15-7f2f-a9da-d132c2341bc8" },
      trajectory_hash: expect.stringMatching(/^sha256:/),
      trajectory_hash_complete: false,
      trajectory_hash_gap: "3 RuntimeEvent line(s) leave out idempotency_key",
    });
    expect(report.checks).toHaveLength(3);
    for (const row of report.checks)
      expect(Object.keys(row).sort()).toEqual(["actual", "check", "expected", "status", "subject"]);
    expect(Array.isArray(report.notices)).toBe(true);
  });

  it("prints a short human report without --json", () => {
    const result = run(["inspect", replay]);
    expect(result.stdout).toMatch(/PASSED \(replay-v1, 1266 bytes\)/);
    expect(result.stdout).toContain("checks: 3 passed, 0 failed, 0 unverifiable");
    expect(result.stdout).toMatch(
      /\n {2}trajectory_hash sha256:[0-9a-f]{64} \(partial: 3 RuntimeEvent line\(s\) leave out idempotency_key; the runtime's value may differ\)\n/,
    );
  });

  it("exits 1 for a failed hash and names the row", () => {
    const path = join(dir, "tampered.REPLAY.jsonl");
    writeFileSync(
      path,
      readFileSync(replay, "utf8").replace('"reason":"operator_request"', '"reason":"operator_requesT"'),
    );
    const result = run(["inspect", path, "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.verdict).toBe("failed");
    expect(report.checks.find((c: { status: string }) => c.status === "failed")).toMatchObject({
      check: "payload_hash",
      subject: "line 4 RuntimeEvent 2 payload",
    });
  });

  it("exits 1 for invalid input with line, column, path and code", () => {
    const path = join(dir, "bad.jsonl");
    writeFileSync(
      path,
      '{"event":"ReplayHeader","replay_version":1,"producer":"p","created_at":"2026-01-01T00:00:00Z"}\n{"event":"SessionStart",}\n',
    );
    const result = run(["inspect", path, "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.verdict).toBe("invalid");
    expect(report.errors[0]).toMatchObject({ line: 2, column: 25, path: "$", code: "json.syntax" });
  });

  it("reads gzip by content, whatever the name", () => {
    const path = join(dir, "replay.data");
    writeFileSync(path, gzipSync(readFileSync(replay)));
    const report = JSON.parse(run(["inspect", path, "--json"]).stdout);
    expect(report).toMatchObject({ verdict: "passed", compressed: true, format: "replay-v1" });
    expect(report.replay_hash).toBe(
      "sha256:8c091d9c93711189e51ca37c8f313e3749b0adb8ba7982c7c4e78ba8641c8010",
    );
  });

  // That workers really take batches is shown in test/unit/parallel/line-pool.test.ts (poolStats);
  // here the CLI option, on a file past the 8 MiB threshold.
  it("gives the same report for a replay past the 8 MiB worker threshold with --workers 2 and --workers 0", () => {
    const gen = new ReplayGenerator(3);
    const lines = [gen.header(), gen.sessionStart()];
    for (let size = 0; size < 9 * 1024 * 1024; ) {
      for (const line of gen.nextEvents()) {
        lines.push(line);
        size += line.length + 1;
      }
    }
    lines.push(gen.sessionEnd());
    const file = join(dir, "large.REPLAY.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const parallel = run(["inspect", file, "--json", "--workers", "2"]);
    const single = run(["inspect", file, "--json", "--workers", "0"]);
    expect(parallel.code).toBe(0);
    expect(JSON.parse(parallel.stdout).verdict).toBe("passed");
    expect(parallel.stdout).toBe(single.stdout);
    // The human report lists the first 10 verification runs and counts the rest.
    const verification = JSON.parse(single.stdout).summary.verification as { exit_code: number }[];
    expect(verification.length).toBeGreaterThan(10);
    const human = run(["inspect", file]).stdout;
    expect(human.match(/^ {4}verification: /gm)).toHaveLength(10);
    const notZero = verification.filter((v) => v.exit_code !== 0).length;
    expect(human).toContain(
      `… ${verification.length - 10} more verification runs (${verification.length} in all, ${notZero} not exit 0; see --json)`,
    );
    const bad = run(["inspect", file, "--workers", "many"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--workers expects an integer of at least 0, got 'many'");
  });

  it("gives the span trace turns in its JSON", () => {
    const trace = corpusPath(
      "dynamo",
      "responses_stateful_integration_test__test_trace_replay_through_storage__trace_content.jsonl",
    );
    const report = JSON.parse(run(["inspect", trace, "--json"]).stdout);
    expect(
      report.summary.turns.map((t: { turn_number: number; user_input: string }) => [
        t.turn_number,
        t.user_input,
      ]),
    ).toEqual([
      [1, "What is 2+2?"],
      [2, "And 3+3?"],
    ]);
  });

  describe("a signed ReplayKit artifact", () => {
    // Sign a real run: HMAC-SHA256 over canonical {version, metadata, payload, checksum}.
    const artifact = readJson(corpusText("replaykit", "runs", "minimal_v1.rpk"), {
      rejectLoneSurrogates: false,
    }) as Record<string, ReturnType<typeof readJson>>;
    const signed = canonicalize(
      {
        version: artifact.version ?? null,
        metadata: artifact.metadata ?? null,
        payload: artifact.payload ?? null,
        checksum: artifact.checksum ?? null,
      },
      "replaykit",
    );
    // The producer writes the signature as an object (replaypack/artifact/signing.py).
    const signature = {
      algorithm: "hmac-sha256",
      key_id: "default",
      value: `hmac-sha256:${createHmac("sha256", "k3y").update(signed).digest("hex")}`,
    };
    const path = join(dir, "signed.rpk");
    writeFileSync(
      path,
      JSON.stringify(
        { ...JSON.parse(corpusText("replaykit", "runs", "minimal_v1.rpk")), signature },
        null,
        2,
      ),
    );

    it("is unverifiable (exit 3) without a key", () => {
      const result = run(["inspect", path, "--json"]);
      expect(result.code).toBe(3);
      expect(
        JSON.parse(result.stdout).checks.find((c: { check: string }) => c.check === "signature"),
      ).toMatchObject({ status: "unverifiable" });
    });

    it("passes with the right key from the environment and fails with a wrong one from a file", () => {
      expect(run(["inspect", path, "--hmac-key-env", "RPK_KEY"], { RPK_KEY: "k3y" }).code).toBe(0);
      const keyFile = join(dir, "wrong.key");
      writeFileSync(keyFile, "other");
      expect(run(["inspect", path, "--hmac-key-file", keyFile]).code).toBe(1);
    });
  });

  it("rejects two key sources and a missing key variable as usage errors", () => {
    expect(run(["inspect", replay, "--hmac-key-env", "X", "--hmac-key-file", "y"]).code).toBe(2);
    expect(run(["inspect", replay, "--hmac-key-env", "SURELY_NOT_SET_VARIABLE"]).stderr).toContain(
      "is not set",
    );
  });
});

describe("replay-pipeline export", () => {
  it("writes a REPLAY.jsonl that inspects as passed and prints its replay_hash", () => {
    const out = join(dir, "REPLAY.jsonl");
    const result = run(["export", corpusPath("openagents", "replaybundle-sample.json"), "-o", out]);
    expect(result.code).toBe(0);
    const hash = /replay_hash: (sha256:[0-9a-f]{64})/.exec(result.stdout)?.[1];
    const report = JSON.parse(run(["inspect", out, "--json"]).stdout);
    expect(report).toMatchObject({ format: "replay-v1", verdict: "passed", replay_hash: hash });
    // v1 carries the hashes: one row per call and per result.
    expect(report.checks_total).toEqual({ passed: 4, failed: 0, unverifiable: 0 });
  });

  it("writes the ADR-0003 variant with --dialect adr0003", () => {
    const out = join(dir, "REPLAY-adr.jsonl");
    expect(
      run(["export", corpusPath("openagents", "replaybundle-sample.json"), "-o", out, "--dialect", "adr0003"])
        .code,
    ).toBe(0);
    // ADR-0003 hashes are optional and the exporter writes none: nothing to recompute.
    const report = JSON.parse(run(["inspect", out, "--json"]).stdout);
    expect(report).toMatchObject({ format: "replay-adr0003", verdict: "unverifiable", errors_total: 0 });
    expect(report.notices.map((n: { code: string }) => n.code)).toContain("verdict.nothing_checked");
    expect(
      run(["export", corpusPath("openagents", "replaybundle-sample.json"), "--dialect", "v2"]).code,
    ).toBe(2);
  });
});

describe("replay-pipeline receipt and verify", () => {
  it("round-trips: a generated receipt verifies passed; an edited one fails; none is unverifiable", () => {
    const replay = corpusPath("openagents", "replays-type-ts", "run_failure_from_canceling_v1.REPLAY.jsonl");
    const receipt = join(dir, "RECEIPT.json");
    expect(run(["receipt", replay, "-o", receipt]).code).toBe(0);
    const passed = run(["verify", replay, "--receipt", receipt, "--json"]);
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout).verdict).toBe("passed");

    const edited = join(dir, "RECEIPT-edited.json");
    const text = readFileSync(receipt, "utf8");
    const replayHash = (JSON.parse(text) as { replay_hash: string }).replay_hash;
    writeFileSync(edited, text.replace(replayHash, `sha256:${"0".repeat(64)}`));
    const failed = run(["verify", replay, "--receipt", edited, "--json"]);
    expect(failed.code).toBe(1);
    const failedRows = JSON.parse(failed.stdout).checks.filter(
      (c: { status: string }) => c.status === "failed",
    );
    // The edit breaks the replay_hash row, and the receipt's own canonical_json_sha256 with it.
    expect(failedRows.map((c: { check: string }) => c.check).sort()).toEqual([
      "canonical_json_sha256",
      "replay_hash",
    ]);

    expect(run(["verify", replay]).code).toBe(3);
  });
});

describe("replay-pipeline redact", () => {
  it("writes a Layer C .rpk whose recomputed step hashes and checksum pass, linked to the original", () => {
    const source = corpusPath("replaykit", "runs", "minimal_v1.rpk");
    const original = JSON.parse(readFileSync(source, "utf8"));
    const out = join(dir, "minimal.layer-c.rpk");
    const result = run(["redact", source, "-o", out, "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      layer: "C",
      format: "replaykit-rpk",
      original: {
        checksum: original.checksum,
        step_hashes: original.payload.run.steps.map((s: { hash: string }) => s.hash),
      },
    });
    expect(readFileSync(out, "utf8")).not.toContain("/Users/alice");
    const inspected = run(["inspect", out, "--json"]);
    expect(inspected.code).toBe(0);
    const report = JSON.parse(inspected.stdout);
    expect(report.verdict).toBe("passed");
    expect(report.checks.map((c: { check: string; status: string }) => `${c.check} ${c.status}`)).toEqual([
      "step_hash passed",
      "step_hash passed",
      "checksum passed",
    ]);
  });

  it("removes a planted secret from a REPLAY.jsonl and keeps its hashes; the copy records the original passed", () => {
    const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    const replay = join(dir, "secret.REPLAY.jsonl");
    const original = readFileSync(
      corpusPath("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl"),
      "utf8",
    ).replace(
      '"policy_bundle_id":"policy.history.v1"',
      `"policy_bundle_id":"policy.history.v1","note":"token ${secret}"`,
    );
    writeFileSync(replay, original);
    const out = join(dir, "secret.layer-c.jsonl");
    expect(run(["redact", replay, "-o", out, "--preset", "open_source"]).code).toBe(0);
    const copy = readFileSync(out, "utf8");
    expect(copy).not.toContain(secret);
    for (const hash of original.match(/sha256:[0-9a-f]{64}/g) ?? []) expect(copy).toContain(hash);
    // The copy has no raw payload left to rehash: unverifiable on its own, never passed.
    expect(JSON.parse(run(["inspect", out, "--json"]).stdout).verdict).toBe("unverifiable");
    const header = JSON.parse(copy.split("\n")[0] as string);
    expect(header.redaction.original).toMatchObject({ verdict: "passed", checks_total: { failed: 0 } });
  });
});
