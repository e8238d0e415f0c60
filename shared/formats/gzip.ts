/**
 * The gzip side of `inspect`: a file's bytes gunzipped when they start with the gzip magic, within
 * limits against gzip bombs.
 */
import type { Hash } from "node:crypto";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { ReplayPipelineError, StreamLimitError } from "../errors.js";
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from "../limits.js";

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;
/** Bytes a gzip input may expand to before its ratio is held to `maxCompressionRatio`. */
export const RATIO_GRACE_BYTES = 16 * 1024 * 1024;

/** How far a gzip input may expand. */
export interface GzipLimits {
  /** Most bytes a gzip input may expand to (default 4 GiB). */
  maxDecompressedBytes?: number;
  /**
   * Largest expansion ratio of a gzip input past its first `RATIO_GRACE_BYTES` (default 200:
   * replay files compress 5-20 times, deflate's most is about 1030, and a bomb under a looser
   * ratio still costs a full inflate up to the size limit on every read).
   */
  maxCompressionRatio?: number;
}

/** The bytes of `source`, gunzipped when they start with the gzip magic, within `options`' limits. */
export function gunzipped(source: AsyncIterable<Uint8Array>, options: GzipLimits): AsyncIterable<Uint8Array> {
  return decompressed(source, options, { bytes: 0, compressedBytes: 0, compressed: false });
}

/**
 * The file's bytes, gunzipped when they start with the gzip magic, hashed as they pass (when
 * `hash` is given), and bounded against gzip bombs. Iterating it again after a partial read
 * continues where it stopped.
 */
export function decompressed(
  source: AsyncIterable<Uint8Array>,
  options: GzipLimits,
  counters: { bytes: number; compressedBytes: number; compressed: boolean },
  hash?: Hash,
): AsyncIterable<Uint8Array> {
  const maxOut = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const maxRatio = options.maxCompressionRatio ?? 200;
  async function* raw(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      counters.compressedBytes += chunk.length;
      yield chunk;
    }
  }
  async function* run(): AsyncGenerator<Uint8Array> {
    const input = raw();
    const first = await input.next();
    if (first.done === true) return;
    const { stream, consumed } = opened(first.value, input, counters);
    try {
      for await (const chunk of stream) {
        counters.bytes += chunk.length;
        if (counters.compressed) checkExpansion(counters.bytes, consumed(), maxOut, maxRatio);
        hash?.update(chunk);
        yield chunk;
      }
    } catch (error) {
      throw counters.compressed ? gzipError(error) : error;
    }
  }
  const it = run();
  // One shared iterator: a reader that stops early leaves the rest for the draining loop.
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => it.next(),
      return: async () => ({ done: true, value: undefined }),
    }),
  };
}

/**
 * The bytes of `head` then `input`, through a gunzip stream when `head` starts with the gzip
 * magic, and how many compressed bytes the inflater has taken so far (what was read ahead of it
 * does not count yet).
 */
function opened(
  head: Uint8Array,
  input: AsyncIterable<Uint8Array>,
  counters: { compressedBytes: number; compressed: boolean },
): { stream: AsyncIterable<Uint8Array>; consumed: () => number } {
  const whole = async function* () {
    yield head;
    yield* input;
  };
  if (!(head.length >= 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1))
    return { stream: whole(), consumed: () => counters.compressedBytes };
  counters.compressed = true;
  const gunzip = createGunzip();
  Readable.from(whole(), { highWaterMark: 1 })
    .on("error", (error) => gunzip.destroy(error))
    .pipe(gunzip);
  return { stream: gunzip, consumed: () => gunzip.bytesWritten };
}

/** Throws when `bytes` gunzipped from `consumed` compressed bytes pass the size or the ratio limit. */
function checkExpansion(bytes: number, consumed: number, maxOut: number, maxRatio: number): void {
  if (bytes > maxOut) {
    throw new StreamLimitError(
      "gzip.too_large",
      `gzip content expands past ${maxOut} bytes; expected at most that (a gzip bomb?)`,
    );
  }
  if (bytes > RATIO_GRACE_BYTES && bytes > consumed * maxRatio) {
    throw new StreamLimitError(
      "gzip.ratio",
      `gzip content expands more than ${maxRatio} times; expected real replay data (a gzip bomb?)`,
    );
  }
}

/** What an error while gunzipping becomes: zlib's own errors a `gzip.corrupt` limit error, the rest as they are. */
function gzipError(error: unknown): unknown {
  if (error instanceof ReplayPipelineError) return error;
  if ((error as NodeJS.ErrnoException).code?.startsWith("Z_")) {
    return new StreamLimitError(
      "gzip.corrupt",
      `gzip data is corrupt or truncated (${(error as Error).message}); expected a complete gzip stream`,
      {},
      { cause: error },
    );
  }
  return error;
}
