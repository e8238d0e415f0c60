/**
 * The gzip bounds of `decompressed`: a bomb stops by its ratio after a bounded amount of inflating,
 * whatever ratio under deflate's most it was made at; real replay data passes.
 */
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decompressed, RATIO_GRACE_BYTES } from "../../../shared/formats/gzip.js";
import { corpusBytes } from "../../support/corpus.js";

/** `bytes` in 64 KiB chunks, as a stored object's body arrives. */
async function* chunked(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
}

/** Reads all of `bytes` through `decompressed`; the bytes it inflated and the error it stopped with. */
async function drain(bytes: Uint8Array): Promise<{ inflated: number; code: string | null }> {
  const counters = { bytes: 0, compressedBytes: 0, compressed: false };
  try {
    for await (const _ of decompressed(chunked(bytes), {}, counters)) {
      // drained
    }
    return { inflated: counters.bytes, code: null };
  } catch (error) {
    return { inflated: counters.bytes, code: (error as { code: string }).code };
  }
}

/** `size` bytes of zeros with a random byte every `every` bytes: a bomb of a chosen ratio. */
function bombOf(size: number, every: number): Buffer {
  const plain = Buffer.alloc(size);
  const noise = randomBytes(Math.ceil(size / every));
  for (let k = 0; k < noise.length; k++) plain[k * every] = noise[k] as number;
  return gzipSync(plain, { level: 9 });
}

describe("decompressed: gzip bombs", () => {
  it.each([
    ["zeros, deflate's most (about 1000:1)", 0],
    ["one random byte every 64 KiB", 64 * 1024],
    ["one random byte every 4 KiB", 4 * 1024],
    ["one random byte every 2 KiB", 2 * 1024],
  ])("%s: stopped by its ratio within the grace and one chunk", async (_what, every) => {
    const size = 96 * 1024 * 1024;
    const bomb = every === 0 ? gzipSync(Buffer.alloc(size), { level: 9 }) : bombOf(size, every);
    const ratio = size / bomb.length;
    // Each passes the old guard (1000:1) and is over the new one.
    expect(ratio).toBeLessThan(1100);
    expect(ratio).toBeGreaterThan(200);
    const { inflated, code } = await drain(bomb);
    expect(code).toBe("gzip.ratio");
    expect(inflated).toBeLessThanOrEqual(RATIO_GRACE_BYTES + 1024 * 1024);
  });

  it("real replay data, gzip'd at the highest level, passes whole", async () => {
    const plain = Buffer.concat(
      Array.from({ length: 10 }, () => corpusBytes("secrets", "gitleaks-samples.jsonl")),
    );
    const { inflated, code } = await drain(gzipSync(plain, { level: 9 }));
    expect(code).toBeNull();
    expect(inflated).toBe(plain.length);
  });
});
