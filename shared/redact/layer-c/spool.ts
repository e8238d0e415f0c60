/**
 * The spool of a JSON Lines copy: redacted lines wait in a spool file (the `Spool` port) until the
 * summary is known, then the file is read back with the carrier line swapped for its copy with the
 * summary (and the lines before a secret's line revisited: `revisit.ts`). Only that one line is
 * held in memory.
 */
import { type ByteLine, ByteSink, readByteLineGroups } from "../../canonical/index.js";
import type { Spool, SpoolFile } from "../../spool/index.js";

/** Bytes gathered before a write (or a read-back's yield): one per MiB, not one per line. */
export const SPOOL_CHUNK_BYTES = 1 << 20;
/** Writes in flight: the work goes on while the disk takes them. */
const WRITES_IN_FLIGHT = 4;

/** Bytes `[start, start + length)` of a spool, read back as `bytes` instead. */
export interface SpoolSwap {
  start: number;
  length: number;
  bytes: Uint8Array;
}

/** A line of a spool (without its `\n`) and the offset it starts at. */
export interface SpooledLine extends ByteLine {
  start: number;
}

/** A spool file written in order and read back in ranges. */
export class LinesSpool {
  /** Bytes appended so far (written or still gathered). */
  written = 0;
  /**
   * What is gathered for the next write, copied in (a string encoded as it is): holding each
   * line's own buffer instead would keep thousands of small objects alive per write, which the
   * collector copies and promotes.
   */
  private gathered = new ByteSink(SPOOL_CHUNK_BYTES);
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
    return gathered.len >= SPOOL_CHUNK_BYTES ? this.flush() : undefined;
  }

  /** Writes what was gathered at its place, waiting for the oldest write when enough are out. */
  private async flush(): Promise<void> {
    const chunk = this.gathered.view();
    this.gathered = new ByteSink(SPOOL_CHUNK_BYTES);
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

  /** The closed spool from byte `from` on (a line start), with `swap` read in its place if given. */
  async *readFrom(from: number, swap?: SpoolSwap): AsyncGenerator<Uint8Array> {
    if (swap === undefined) {
      yield* this.file.read(from, this.written);
      return;
    }
    yield* this.file.read(from, swap.start);
    yield swap.bytes;
    yield* this.file.read(swap.start + swap.length, this.written);
  }

  /** The lines of the closed spool that start before `end`, a group per chunk read. */
  async *lines(end: number): AsyncGenerator<SpooledLine[]> {
    let start = 0;
    // Lines were written whole and each ends with `\n`: none is over a limit or cut short.
    const groups = readByteLineGroups(this.file.read(0, end), { maxLineBytes: Number.MAX_SAFE_INTEGER });
    for await (const group of groups) {
      yield group.map((line) => {
        const spooled = { ...line, start };
        start += line.bytes.length + 1;
        return spooled;
      });
    }
  }

  /** Frees the spool file. */
  async remove(): Promise<void> {
    await this.file.dispose();
  }
}
