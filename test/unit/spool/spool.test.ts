/**
 * The `Spool` port's two backings (files under a folder, memory) keep one contract, and Layer C
 * and `processObject` spool through the port they are given, not a file of their own.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryPorts } from "#shared/pipeline/memory-ports.js";
import { processObject } from "#shared/pipeline/process-object.js";
import { fileSpool, memorySpool, type Spool } from "#shared/spool/index.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { tempDir } from "../../support/temp.js";
import { redactBytes } from "../redact/layer-c/helpers.js";

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString("utf8");
}

/** A spool that counts what goes through `inner`, and can fail its writes. */
function counting(inner: Spool, failWrites = false) {
  const counts = { created: 0, writes: 0, bytes: 0, disposed: 0 };
  const spool: Spool = {
    async create() {
      counts.created++;
      const file = await inner.create();
      return {
        async write(chunk, position) {
          counts.writes++;
          counts.bytes += chunk.length;
          if (failWrites)
            throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
          return file.write(chunk, position);
        },
        read: (from, to) => file.read(from, to),
        async dispose() {
          counts.disposed++;
          return file.dispose();
        },
      };
    },
  };
  return { spool, counts };
}

describe.each([
  ["fileSpool", () => fileSpool(tempDir("spool-port-"))],
  ["memorySpool", () => memorySpool()],
])("%s", (_, make) => {
  it("gives back ranges of bytes written out of order", async () => {
    const file = await make().create();
    await Promise.all([file.write(Buffer.from("world"), 6), file.write(Buffer.from("hello "), 0)]);
    expect(await text(file.read(0, 11))).toBe("hello world");
    expect(await text(file.read(3, 8))).toBe("lo wo");
    await file.dispose();
  });
});

describe("fileSpool", () => {
  it("removes its folder on dispose, and a read past the end is a typed error", async () => {
    const dir = tempDir("spool-port-");
    const file = await fileSpool(dir).create();
    await file.write(Buffer.from("abc"), 0);
    expect(readdirSync(dir)).toHaveLength(1);
    await expect(text(file.read(0, 10))).rejects.toMatchObject({ code: "redact.spool_truncated" });
    await file.dispose();
    expect(existsSync(dir) && readdirSync(dir)).toEqual([]);
  });
});

describe("Layer C over the Spool port", () => {
  const replay = `${[
    '{"type":"ReplayHeader","replay_version":1,"producer":"test","created_at":"2026-02-01T00:00:00Z"}',
    ...Array.from(
      { length: 50 },
      (_, k) => `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s${k}","tool":"t"}`,
    ),
    '{"type":"SessionEnd","ts":"2026-02-01T00:00:02Z","status":"success"}',
  ].join("\n")}\n`;

  it("spools a JSON Lines copy through the spool it is given, and frees it", async () => {
    const { spool, counts } = counting(memorySpool());
    const { text: copy } = await redactBytes(replay, { spool });
    expect(copy.split("\n").filter(Boolean)).toHaveLength(52);
    expect(counts).toMatchObject({ created: 1, disposed: 1 });
    expect(counts.bytes).toBeGreaterThan(0);
  });

  it("fails with the spool's write error and still frees it", async () => {
    const { spool, counts } = counting(memorySpool(), true);
    await expect(redactBytes(replay, { spool })).rejects.toMatchObject({ code: "ENOSPC" });
    expect(counts).toMatchObject({ created: 1, disposed: 1 });
  });

  it("processObject spools the copy through the ports' spool", async () => {
    const ports = memoryPorts();
    const { spool, counts } = counting(ports.spool);
    const source = ports.objects.put(
      "acme/s-1/fix-auth.REPLAY.jsonl",
      readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl")),
    );
    const result = await processObject(
      source,
      { ...ports, spool },
      { toolVersion: "t", parallel: { workers: 0 } },
    );
    expect(result.record.layer_c_key).not.toBeNull();
    expect(counts).toMatchObject({ created: 1, disposed: 1 });
    expect(counts.bytes).toBeGreaterThan(0);
  });
});
