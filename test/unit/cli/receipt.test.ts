import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { receiptCommand } from "../../../cli/commands/receipt.js";
import { verifyCommand } from "../../../cli/commands/verify.js";
import { corpusPath } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const dir = tempDir("replay-receipt-");
const replay = corpusPath("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl");
const bundle = corpusPath("openagents", "replaybundle-sample.json");

let out = "";
let err = "";
const realOut = process.stdout.write;
const realErr = process.stderr.write;

beforeEach(() => {
  out = "";
  err = "";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stderr.write;
});

afterEach(() => {
  process.stdout.write = realOut;
  process.stderr.write = realErr;
});

describe("replay-pipeline receipt", () => {
  it("prints a canonical openagents.receipt.v1 with the replay's hashes; exit 0", async () => {
    // The type/ts lines leave out idempotency_key: their trajectory_hash is partial, written null.
    // Act
    const code = await receiptCommand([
      replay,
      "--created-at",
      "2026-03-01T00:00:00Z",
      "--policy-bundle-id",
      "policy.history.v1",
    ]);
    // Assess
    expect(code).toBe(0);
    expect(out.endsWith("}\n")).toBe(true);
    expect(JSON.parse(out)).toMatchObject({
      schema: "openagents.receipt.v1",
      session_id: "01951d2a-6c15-7c9f-99c2-cf8ad72a23f0",
      policy_bundle_id: "policy.history.v1",
      created_at: "2026-03-01T00:00:00Z",
      replay_hash: "sha256:d0f58fa2c0aef7d87ac809d6420852c6fd8f37b8e24fb489b551867323beec69",
    });
    expect(JSON.parse(out).trajectory_hash).toBeNull();
  });

  it("refuses an invalid replay: exit 1, nothing written", async () => {
    // Prepare
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"type":"ReplayHeader"}\n');
    const target = join(dir, "never.json");
    // Act
    const code = await receiptCommand([bad, "-o", target]);
    // Assess
    expect(code).toBe(1);
    expect(existsSync(target)).toBe(false);
    expect(err).toContain("no receipt written");
  });

  it("refuses -o pointing at the replay itself (usage error)", async () => {
    await expect(receiptCommand([replay, "-o", replay])).rejects.toMatchObject({ code: "cli.usage" });
  });

  it("names the output and why it could not be written (io.write)", async () => {
    const target = join(tmpdir(), "no-such-folder-for-receipts", "RECEIPT.json");
    await expect(receiptCommand([replay, "-o", target])).rejects.toMatchObject({
      code: "io.write",
      message: `${target}: cannot write the output: no such folder`,
    });
  });
});

describe("replay-pipeline verify", () => {
  it("round trip: receipt -o then verify --receipt --json passes; exit 0", async () => {
    // Prepare
    const target = join(dir, "RECEIPT.json");
    expect(await receiptCommand([bundle, "-o", target])).toBe(0);
    out = "";
    // Act
    const code = await verifyCommand([bundle, "--receipt", target, "--json"]);
    // Assess
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(["verdict", "replay", "receipt_shape", "checks", "errors"]),
    );
    expect(report).toMatchObject({
      verdict: "passed",
      receipt_shape: "openagents.receipt.v1+replay_hash",
      errors: [],
    });
    // The bundle alone carries no hash (unverifiable); the receipt's rows are what passed.
    expect(report.replay).toMatchObject({ format: "replay-bundle", verdict: "unverifiable" });
    expect(report.checks.filter((c: { check: string }) => c.check === "tool")).toHaveLength(2);
  });

  it("a tampered receipt fails with the row named, exit 1, in the human report", async () => {
    // Prepare
    const target = join(dir, "RECEIPT.tampered.json");
    expect(await receiptCommand([bundle, "-o", target])).toBe(0);
    writeFileSync(target, readFileSync(target, "utf8").replace('"tool":"Edit"', '"tool":"Write"'));
    out = "";
    // Act
    const code = await verifyCommand([bundle, "--receipt", target]);
    // Assess
    expect(code).toBe(1);
    expect(out).toMatch(/: FAILED \(replay unverifiable/);
    expect(out).toMatch(/FAILED tool \(tool call tc_002.*expected Write, got Edit/);
    expect(out).toMatch(/FAILED canonical_json_sha256/);
  });

  it("without --receipt the verdict is unverifiable with a row saying so; exit 3", async () => {
    // Act
    const code = await verifyCommand([replay, "--json"]);
    // Assess
    expect(code).toBe(3);
    const report = JSON.parse(out);
    expect(report.verdict).toBe("unverifiable");
    expect(report.receipt_shape).toBeNull();
    expect(report.checks).toEqual([
      expect.objectContaining({ check: "receipt", actual: "no receipt given", status: "unverifiable" }),
    ]);
  });

  it("a receipt that is not JSON makes the verdict invalid; exit 1", async () => {
    // Prepare
    const target = join(dir, "broken.json");
    writeFileSync(target, "{not json");
    // Act
    const code = await verifyCommand([replay, "--receipt", target, "--json"]);
    // Assess
    expect(code).toBe(1);
    const report = JSON.parse(out);
    expect(report.verdict).toBe("invalid");
    expect(report.errors.length).toBeGreaterThan(0);
    expect(report.checks).toEqual([]);
  });

  it("a receipt of unknown shape is invalid with receipt.unknown_shape; exit 1", async () => {
    // Prepare
    const target = join(dir, "unknown.json");
    writeFileSync(target, '{"hello":"world"}');
    // Act
    const code = await verifyCommand([replay, "--receipt", target, "--json"]);
    // Assess
    expect(code).toBe(1);
    expect(JSON.parse(out).errors[0].code).toBe("receipt.unknown_shape");
  });

  it("a missing receipt file is an I/O error (thrown, exit 2 in main)", async () => {
    await expect(verifyCommand([replay, "--receipt", join(dir, "nope.json")])).rejects.toMatchObject({
      code: "io.not_found",
    });
  });

  it("--help prints the usage; exit 0", async () => {
    expect(await verifyCommand(["--help"])).toBe(0);
    expect(out).toContain("Usage: replay-pipeline verify");
    out = "";
    expect(await receiptCommand(["--help"])).toBe(0);
    expect(out).toContain("Usage: replay-pipeline receipt");
  });
});
