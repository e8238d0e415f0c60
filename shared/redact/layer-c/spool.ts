/**
 * The spool of a JSON Lines copy: redacted lines wait in a spool file (the `Spool` port) until the
 * summary is known, then the file is read back with the carrier line swapped for its copy with the
 * summary. Only that one line is held in memory.
 */
import { ByteSink } from "../../canonical/index.js";
import type { Spool, SpoolFile } from "../../spool/index.js";

/** Bytes gathered before a write: one write per MiB, not one per line. */
const CHUNK_BYTES = 1 << 20;
/** Writes in flight: the work goes on while the disk takes them. */
const WRITES_IN_FLIGHT = 4;

/** A spool file written in order and read back in ranges. */
export class LinesSpool {
  /** Bytes appended so far (written or still gathered). */
  written = 0;
  /**
   * What is gathered for the next write, copied in (a string encoded as it is): holding each
   * line's own buffer instead would keep thousands of small objects alive per write, which the
   * collector copies and promotes.
   */
  private gathered = new ByteSink(CHUNK_BYTES);
  private readonly writes: Promise<void>[] = [];

  private constructor(private readonly file: SpoolFile) {}

  /** A new file of `spool`; `remove` frees it, whatever happened. */
  static async create(spool: Spool): Promise<LinesSpool> {
    return new LinesSpool(await spool.create());
  }

  /**
   * Appends `text`; a promise only when it starts a write (await it: an earlier write's error
   * may surface there). Most lines are only gathered, at no promise's cost.
   */
  append(text: Uint8Array | string): Promise<void> | undefined {
    const gathered = this.gathered;
    const before = gathered.len;
    if (typeof text === "string") gathered.appendText(text);
    else gathered.append(text, 0, text.length);
    this.written += gathered.len - before;
    return gathered.len >= CHUNK_BYTES ? this.flush() : undefined;
  }

  /** Writes what was gathered at its place, waiting for the oldest write when enough are out. */
  private async flush(): Promise<void> {
    const chunk = this.gathered.view();
    this.gathered = new ByteSink(CHUNK_BYTES);
    if (this.writes.length >= WRITES_IN_FLIGHT) await this.writes.shift();
    const request = this.file.write(chunk, this.written - chunk.length);
    // Handled now (it may fail before its turn to be awaited), thrown when awaited.
    request.catch(() => undefined);
    this.writes.push(request);
  }

  /**
   * Ends writing: what is gathered is written (unless `failure`, the work's own error, is given)
   * and every write settles. Throws the first error: the work's, else a write's.
   */
  async close(failure?: { error: unknown }): Promise<void> {
    let first = failure;
    if (first === undefined && this.gathered.len > 0) {
      try {
        await this.flush();
      } catch (error) {
        first = { error };
      }
    }
    for (const r of await Promise.allSettled(this.writes))
      if (r.status === "rejected") first ??= { error: r.reason };
    if (first !== undefined) throw first.error;
  }

  /** The closed spool as it is, with bytes `[start, start + length)` given as `line` instead. */
  async *readWith(start: number, length: number, line: Uint8Array): AsyncGenerator<Uint8Array> {
    yield* this.file.read(0, start);
    yield line;
    yield* this.file.read(start + length, this.written);
  }

  /** Frees the spool file. */
  async remove(): Promise<void> {
    await this.file.dispose();
  }
}
