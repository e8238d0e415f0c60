import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readJson, sha256Tag } from "#shared/canonical/index.js";
import { ReplayPipelineError } from "#shared/errors.js";
import { exportReplayBundle } from "#shared/formats/index.js";
import { EXPORT_HELP, exportCommand } from "../../../cli/commands/export.js";
import { UsageError } from "../../../cli/errors.js";
import { corpusPath } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";

const dir = tempDir("replay-export-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the command with stdout and stderr captured; both are restored whatever happens. */
async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const capture = (sink: string[]) =>
    ((chunk: string | Uint8Array) => {
      sink.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    }) as typeof process.stdout.write;
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    const code = await exportCommand(argv);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}

async function failure(...argv: string[]): Promise<ReplayPipelineError> {
  try {
    await run(...argv);
  } catch (error) {
    if (error instanceof ReplayPipelineError) return error;
    throw error;
  }
  throw new Error("expected a ReplayPipelineError");
}

const SAMPLE = corpusPath("openagents", "replaybundle-sample.json");

describe("replay-pipeline export", () => {
  it("writes the ADR-0003 REPLAY.jsonl to -o with --dialect adr0003 and prints its replay_hash on stdout", async () => {
    const out = join(dir, "REPLAY.jsonl");
    const result = await run(SAMPLE, "--dialect", "adr0003", "-o", out);
    expect(result.code).toBe(0);
    const bytes = readFileSync(out);
    expect(result.stdout).toBe(`replay_hash: ${sha256Tag(bytes)}\n`);
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: "ReplayHeader",
      session_id: "replay_test123",
    });
    expect(result.stderr).toContain("warning:");
  });

  it("writes the same bytes every time", async () => {
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    await run(SAMPLE, "-o", a);
    await run(SAMPLE, "--output", b);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  it("prints the REPLAY on stdout and the hash on stderr without -o", async () => {
    const result = await run(SAMPLE, "--dialect", "adr0003");
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")).toHaveLength(8);
    expect(result.stderr).toContain(`replay_hash: ${sha256Tag(result.stdout)}\n`);
    expect((await run(SAMPLE, "--dialect", "adr0003", "-o", "-")).stdout).toBe(result.stdout);
  });

  it("writes REPLAY.jsonl v1 by default, the same bytes as --dialect v1 and as the library", async () => {
    const out = join(dir, "default.jsonl");
    const result = await run(SAMPLE, "-o", out);
    expect(result.code).toBe(0);
    const bytes = readFileSync(out);
    const expected = exportReplayBundle(readJson(readFileSync(SAMPLE, "utf8")), { dialect: "v1" });
    expect(bytes.toString("utf8")).toBe(expected.text);
    expect(result.stdout).toBe(`replay_hash: ${expected.replayHash}\n`);
    expect(sha256Tag(bytes)).toBe(expected.replayHash);
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual([
      "ReplayHeader",
      "SessionStart",
      "ToolCall",
      "ToolResult",
      "ToolCall",
      "ToolResult",
      "Verification",
      "Verification",
      "SessionEnd",
    ]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "ReplayHeader", replay_version: 1 });
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      type: "SessionStart",
      session_id: "replay_test123",
    });
    expect((await run(SAMPLE, "--dialect", "v1")).stdout).toBe(expected.text);
    expect((await run(SAMPLE)).stdout).toBe(expected.text);
  });

  it("names the values the bundle does not record in warnings on stderr", async () => {
    const result = await run(SAMPLE, "-o", join(dir, "warned.jsonl"));
    const warnings = result.stderr
      .split("\n")
      .filter((l) => l.startsWith("replay-pipeline export: warning: "));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("policy_bundle_id");
    expect(warnings[1]).toContain("confidence");
    // A bundle whose metadata records both exports without a warning.
    const bundle = JSON.parse(readFileSync(SAMPLE, "utf8"));
    bundle.metadata.policy_bundle_id = "policy.autopilot.v1";
    bundle.metadata.confidence = 1;
    const quiet = await run(file("with-policy.json", JSON.stringify(bundle)), "-o", join(dir, "quiet.jsonl"));
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("writes the ADR-0003 variant with --dialect adr0003, as the library does", async () => {
    const result = await run(SAMPLE, "--dialect", "adr0003");
    const expected = exportReplayBundle(readJson(readFileSync(SAMPLE, "utf8")), { dialect: "adr0003" });
    expect(result.stdout).toBe(expected.text);
    expect(JSON.parse(result.stdout.split("\n")[0] as string)).toMatchObject({
      type: "ReplayHeader",
      version: "1.0.0",
    });
  });

  it("refuses an unknown or missing --dialect before reading the input", async () => {
    const error = await failure(SAMPLE, "--dialect", "v2");
    expect(error).toBeInstanceOf(UsageError);
    expect(error.code).toBe("cli.usage");
    expect(error.message).toContain("unknown dialect 'v2'; expected v1 or adr0003");
    // The input is not read: a missing file still gives the usage error.
    expect(await failure(join(dir, "missing.json"), "--dialect", "ADR0003")).toBeInstanceOf(UsageError);
    expect(await failure(SAMPLE, "--dialect")).toBeInstanceOf(UsageError);
  });

  it("rejects a bundle without id with an ExportError naming the file and path", async () => {
    const bad = file("no-id.json", '{"version":"1.0","created_at":"2025-12-26T12:00:00Z","timeline":[]}');
    const error = await failure(bad, "-o", join(dir, "never.jsonl"));
    expect(error.code).toBe("export.invalid_bundle");
    expect(error.message).toContain(`${bad}: at $.id: cannot export the ReplayBundle: expected a string`);
  });

  it("reports JSON syntax errors with file, line and column", async () => {
    const bad = file("broken.json", '{\n  "id": }');
    const error = await failure(bad);
    expect(error.code).toBe("json.syntax");
    expect(error.message.startsWith(`${bad}: line 2, column`)).toBe(true);
  });

  it("reports a missing input file and an unwritable output", async () => {
    expect((await failure(join(dir, "missing.json"))).code).toBe("io.not_found");
    expect((await failure(SAMPLE, "-o", join(dir, "no", "such", "dir", "R.jsonl"))).code).toBe("io.write");
  });

  it("refuses usage errors: no file, unknown flag, output over the input", async () => {
    expect(await failure()).toBeInstanceOf(UsageError);
    expect(await failure(SAMPLE, "--nope")).toBeInstanceOf(UsageError);
    const copy = file("copy.json", readFileSync(SAMPLE, "utf8"));
    expect(await failure(copy, "-o", copy)).toBeInstanceOf(UsageError);
    expect(readFileSync(copy, "utf8")).toBe(readFileSync(SAMPLE, "utf8"));
  });

  it("prints its help", async () => {
    const result = await run("--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${EXPORT_HELP}\n`);
  });
});
