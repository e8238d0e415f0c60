/**
 * The spool of a JSON Lines copy: redacted lines wait in a temporary file until the summary is
 * known, then the file is read back with the carrier line swapped for its copy with the summary.
 * Only that one line is held in memory.
 */
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { RedactError } from "../../errors.js";

/** Bytes gathered before a write: one write per MiB, not one per line. */
const CHUNK_BYTES = 1 << 20;
/** Writes in flight: the work goes on while the disk takes them. */
const WRITES_IN_FLIGHT = 4;

/** A temporary file in a folder of its own, written in order and read back in ranges. */
export class Spool {
  /** Bytes appended so far (written or still gathered). */
  written = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private readonly writes: Promise<void>[] = [];

  private constructor(
    private readonly dir: string,
    private readonly path: string,
    private readonly file: FileHandle,
  ) {}

  /** A new spool in a new folder under `tmpDir`; `remove` deletes the folder, whatever happened. */
  static async create(tmpDir: string): Promise<Spool> {
    const dir = await mkdtemp(join(tmpDir, "layer-c-"));
    const path = join(dir, "spool.jsonl");
    try {
      return new Spool(dir, path, await open(path, "w"));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Appends `text`; a promise only when it starts a write (await it: an earlier write's error
   * may surface there). Most lines are only gathered, at no promise's cost.
   */
  append(text: Uint8Array): Promise<void> | undefined {
    this.pending.push(text);
    this.pendingBytes += text.length;
    this.written += text.length;
    return this.pendingBytes >= CHUNK_BYTES ? this.flush() : undefined;
  }

  /** Writes what was gathered at its place, waiting for the oldest write when enough are out. */
  private async flush(): Promise<void> {
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.writes.length >= WRITES_IN_FLIGHT) await this.writes.shift();
    const request = this.file
      .write(chunk, 0, chunk.length, this.written - chunk.length)
      .then(({ bytesWritten }) => {
        if (bytesWritten !== chunk.length)
          throw new RedactError(
            "redact.spool_short_write",
            `the spool file took ${bytesWritten} of ${chunk.length} bytes`,
          );
      });
    // Handled now (it may fail before its turn to be awaited), thrown when awaited.
    request.catch(() => undefined);
    this.writes.push(request);
  }

  /**
   * Ends writing: what is gathered is written (unless `failure`, the work's own error, is given),
   * every write settles and the file closes. Throws the first error: the work's, else a write's,
   * else the close's.
   */
  async close(failure?: { error: unknown }): Promise<void> {
    let first = failure;
    if (first === undefined && this.pendingBytes > 0) {
      try {
        await this.flush();
      } catch (error) {
        first = { error };
      }
    }
    for (const r of await Promise.allSettled(this.writes))
      if (r.status === "rejected") first ??= { error: r.reason };
    try {
      await this.file.close();
    } catch (error) {
      first ??= { error };
    }
    if (first !== undefined) throw first.error;
  }

  /** The closed spool as it is, with bytes `[start, start + length)` given as `line` instead. */
  async *readWith(start: number, length: number, line: Uint8Array): AsyncGenerator<Uint8Array> {
    const reader = await open(this.path, "r");
    try {
      yield* chunksOf(reader, 0, start);
      yield line;
      yield* chunksOf(reader, start + length, this.written);
    } finally {
      await reader.close();
    }
  }

  /** Deletes the spool and its folder. */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Bytes `[from, to)` of an open file, in chunks of up to 1 MiB. */
async function* chunksOf(file: FileHandle, from: number, to: number): AsyncGenerator<Uint8Array> {
  for (let at = from; at < to; ) {
    const chunk = Buffer.allocUnsafeSlow(Math.min(1 << 20, to - at));
    const { bytesRead } = await file.read(chunk, 0, chunk.length, at);
    if (bytesRead === 0) throw new RedactError("redact.spool_truncated", "the spool file ended early");
    at += bytesRead;
    yield chunk.subarray(0, bytesRead);
  }
}
