/**
 * `pull` streams the published copy to its file or to standard output: a copy of several MiB on
 * s3rver reaches the output in many small writes, never as one buffer of the whole object.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, WriteStream } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pullCommand } from "../../cli/commands/remote.js";
import { LocalStack } from "../../cli/local/stack.js";
import { fileRecord } from "../support/index-records.js";
import { tempDir } from "../support/temp.js";

const SIZE = 8 * 1024 * 1024;
const copy = randomBytes(SIZE);
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
let stack: LocalStack;
let root: string;

beforeAll(async () => {
  root = tempDir("cli-pull-");
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
  const record = fileRecord("acme", "big", "R.jsonl");
  await stack.index.putFile(record);
  await stack.s3.send(
    new PutObjectCommand({
      Bucket: stack.info.publishedBucket,
      Key: record.layer_c_key as string,
      Body: copy,
    }),
  );
});

afterAll(async () => {
  await stack?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("pull of a copy larger than a few MiB", () => {
  it("streams it to the -o file in chunks, none near the whole object", async () => {
    const out = join(root, "pulled.jsonl");
    const write = vi.spyOn(Writable.prototype, "write");
    expect(await pullCommand(["acme/big/R.jsonl", "-o", out, "--local-dir", root])).toBe(0);
    const chunks = write.mock.calls
      .filter((_, n) => write.mock.contexts[n] instanceof WriteStream)
      .map(([chunk]) => chunk as Buffer);
    expect(chunks.length).toBeGreaterThan(8);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1024 * 1024);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(SIZE);
    expect(digest(readFileSync(out))).toBe(digest(copy));
  });

  it("streams it to standard output in chunks, and leaves standard output open", async () => {
    const written: Buffer[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(Buffer.from(chunk));
      return true;
    });
    expect(await pullCommand(["acme/big/R.jsonl", "--local-dir", root])).toBe(0);
    expect(stdout.mock.calls.length).toBeGreaterThan(8);
    expect(Math.max(...written.map((c) => c.length))).toBeLessThanOrEqual(1024 * 1024);
    expect(digest(Buffer.concat(written))).toBe(digest(copy));
    expect(process.stdout.writableEnded).toBe(false);
  });
});
