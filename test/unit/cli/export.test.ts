import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXPORT_HELP, exportCommand } from "../../../cli/commands/export.js";
import { sha256Tag } from "../../../shared/canonical/index.js";
import { ReplayPipelineError, UsageError } from "../../../shared/errors.js";
import { corpusPath } from "../../support/corpus.js";

const dir = mkdtempSync(join(tmpdir(), "replay-export-"));
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
  it("writes REPLAY.jsonl to -o and prints its replay_hash on stdout", async () => {
    const out = join(dir, "REPLAY.jsonl");
    const result = await run(SAMPLE, "-o", out);
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
    const result = await run(SAMPLE);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")).toHaveLength(8);
    expect(result.stderr).toContain(`replay_hash: ${sha256Tag(result.stdout)}\n`);
    expect((await run(SAMPLE, "-o", "-")).stdout).toBe(result.stdout);
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
