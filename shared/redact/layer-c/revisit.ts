/**
 * Earlier lines of a JSON Lines copy revisited. A secret a line reveals is redacted from the lines
 * after it as they are written (`LayerCWriter`); the lines before it are already in the spool. Once
 * every line is in, the spool is read up to the last line that revealed a secret and each line
 * given to `revise` (which knows what the whole file revealed): the lines it changes are noted, one
 * bit each, so the summary can count them before the copy's first byte; the read-back gives those
 * lines to `revise` again and writes what it gives. `revise` must give the same text both times.
 * No line is held in memory or written twice.
 */
import { ByteSink } from "../../canonical/index.js";
import { type LinesSpool, SPOOL_CHUNK_BYTES, type SpooledLine, type SpoolSwap } from "./spool.js";

/** A line's new text (without its `\n`), or undefined when it stays as it is. */
export type Revise = (line: SpooledLine) => Uint8Array | string | undefined;

const NEWLINE = Buffer.from("\n");

/** The revisit of the lines of a closed spool that start before `end`. */
export class Revisit {
  /** One bit per line before `end`, by its index: set when `revise` changed it. */
  private changed = new Uint8Array(1024);
  private count = 0;

  constructor(
    private readonly spool: LinesSpool,
    private readonly end: number,
    private readonly revise: Revise,
  ) {}

  /** How many lines `mark` found changed. */
  get size(): number {
    return this.count;
  }

  /**
   * Gives `revise` each line before `end`, in order, and notes those it changes; `changed` is told
   * each with its new text (to count it, or to keep it when it is the carrier line).
   */
  async mark(changed: (line: SpooledLine, text: Uint8Array | string) => void): Promise<void> {
    let index = 0;
    for await (const group of this.spool.lines(this.end)) {
      for (const line of group) {
        const text = this.revise(line);
        if (text !== undefined) {
          this.note(index);
          changed(line, text);
        }
        index++;
      }
    }
  }

  /**
   * The copy: the lines before `end` as spooled, but those `mark` found changed given by `revise`
   * again and the one `carrier` starts at given as `carrier.bytes`; then the rest of the spool,
   * `carrier` swapped in there if it starts at or after `end`.
   */
  async *read(carrier: SpoolSwap | undefined): AsyncGenerator<Uint8Array> {
    if (this.count === 0) {
      // Nothing changed: the spool as it is, not cut into lines.
      yield* this.spool.readFrom(0, carrier);
      return;
    }
    let gathered = new ByteSink(SPOOL_CHUNK_BYTES);
    let index = 0;
    for await (const group of this.spool.lines(this.end)) {
      for (const line of group) {
        if (line.start === carrier?.start) gathered.append(carrier.bytes, 0, carrier.bytes.length);
        else {
          const text = this.isChanged(index) ? this.revise(line) : undefined;
          if (text === undefined) gathered.append(line.bytes, 0, line.bytes.length);
          else if (typeof text === "string") gathered.appendText(text);
          else gathered.append(text, 0, text.length);
          gathered.append(NEWLINE, 0, 1);
        }
        index++;
        if (gathered.len >= SPOOL_CHUNK_BYTES) {
          yield gathered.view();
          gathered = new ByteSink(SPOOL_CHUNK_BYTES);
        }
      }
    }
    if (gathered.len > 0) yield gathered.view();
    yield* this.spool.readFrom(
      this.end,
      carrier !== undefined && carrier.start >= this.end ? carrier : undefined,
    );
  }

  private note(index: number): void {
    const byte = index >> 3;
    if (byte >= this.changed.length) {
      const grown = new Uint8Array(Math.max(this.changed.length * 2, byte + 1));
      grown.set(this.changed);
      this.changed = grown;
    }
    this.changed[byte] = (this.changed[byte] as number) | (1 << (index & 7));
    this.count++;
  }

  private isChanged(index: number): boolean {
    const byte = index >> 3;
    return byte < this.changed.length && ((this.changed[byte] as number) & (1 << (index & 7))) !== 0;
  }
}
