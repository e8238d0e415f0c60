/**
 * The spool of `redactFile` for JSON Lines (redacted lines wait in a spool file until the summary
 * is known) on the file spool, with faults injected into its writes: a failed or short write
 * fails the redaction with that error, a bad line's own error wins over a write's, and the
 * temporary directory is removed either way.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fileSpool } from "#shared/spool/index.js";
import { tempDir } from "../../../support/temp.js";
import { redactBytes } from "./helpers.js";

/** What the next spool writes do: fail (after `delayMs`), or write only part of the chunk. */
const fault = vi.hoisted(() => ({ mode: "none" as "none" | "fail" | "short", delayMs: 0, writes: 0 }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const open: typeof actual.open = async (...args: Parameters<typeof actual.open>) => {
    const handle = await actual.open(...args);
    if (!String(args[0]).endsWith("spool.jsonl") || args[1] !== "w") return handle;
    const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<{ bytesWritten: number }>;
    Object.assign(handle, {
      write: async (buffer: Buffer, offset: number, length: number, position: number) => {
        fault.writes++;
        if (fault.mode === "fail") {
          await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        }
        if (fault.mode === "short") return write(buffer, offset, length - 1, position);
        return write(buffer, offset, length, position);
      },
    });
    return handle;
  };
  return { ...actual, open };
});

const HASH = `sha256:${"a".repeat(64)}`;
/** A replay whose copy is over 1 MiB (so the spool is written while lines are still redacted). */
function replay(badLine?: number): string {
  const lines = [
    '{"type":"ReplayHeader","replay_version":1,"producer":"test","created_at":"2026-02-01T00:00:00Z"}',
  ];
  for (let k = 1; k <= 1500; k++) {
    const tool = `tool-${k}-${"x".repeat(1000)}`;
    lines.push(
      k === badLine
        ? `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s${k}","tool":"${tool}",}`
        : `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s${k}","tool":"${tool}","params":{"k":${k}},"params_hash":"${HASH}"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

describe("redactFile spool faults", () => {
  afterEach(() => {
    fault.mode = "none";
    fault.delayMs = 0;
  });

  it("writes the copy through the spool when nothing fails", async () => {
    fault.writes = 0;
    const { text } = await redactBytes(replay());
    expect(fault.writes).toBeGreaterThanOrEqual(2);
    expect(text.split("\n").filter(Boolean)).toHaveLength(1501);
  });

  it("fails with the write's error, and removes its temporary directory", async () => {
    const tmpDir = tempDir("spool-test-");
    fault.mode = "fail";
    await expect(redactBytes(replay(), { spool: fileSpool(tmpDir) })).rejects.toMatchObject({
      code: "ENOSPC",
    });
    expect(existsSync(tmpDir) && readdirSync(tmpDir)).toEqual([]);
  });

  it("fails on a short write with a typed error", async () => {
    fault.mode = "short";
    await expect(redactBytes(replay())).rejects.toMatchObject({
      name: "RedactError",
      code: "redact.spool_short_write",
    });
  });

  it("gives a bad line's own error, not that of a write failing later", async () => {
    fault.mode = "fail";
    fault.delayMs = 200;
    fault.writes = 0;
    // A folder of its own: other test files spool into the shared temp folder at the same time.
    const tmpDir = tempDir("spool-test-");
    // About 1 MiB of copy is flushed near line 950; the bad line comes right after.
    await expect(redactBytes(replay(1000), { spool: fileSpool(tmpDir) })).rejects.toMatchObject({
      code: "json.syntax",
      location: { file: "input", line: 1001 },
    });
    expect(fault.writes).toBeGreaterThan(0);
    expect(readdirSync(tmpDir)).toEqual([]);
  });
});
