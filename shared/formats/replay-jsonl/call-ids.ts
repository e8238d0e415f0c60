/**
 * The call ids of one REPLAY.jsonl file, kept compact: what tells a duplicate call, a duplicate
 * result and a result without a call apart, in a few dozen bytes per call whatever the ids are.
 *
 * An id is kept as a 128-bit digest: SipHash-2-4-128 (`../../hash/sip-hash.ts`), a keyed pseudorandom
 * function, of the id's UTF-16 code units (injective for any JS string, lone surrogates included)
 * under a random per-file key. Nobody can compute a digest without the key, so nobody can craft
 * two ids that collide; ids that collide by chance do so with probability below n²/2¹²⁹ for n
 * distinct ids — under 2⁻⁶⁵ even for 2³² calls, more than
 * any file within the decompression limit holds. That is why a digest hit is taken as the same id
 * without keeping the id to confirm it: keeping ids is what made memory grow with their length.
 *
 * Entries live in fixed-size chunks of typed arrays (no copy as they grow); an open-addressing
 * table of entry numbers (linear probing, at most half full) finds them.
 */
import { randomBytes } from "node:crypto";
import { SipHash128 } from "../../hash/index.js";

/** Entries per chunk. */
const CHUNK = 1 << 14;
/** 32-bit words of a digest. */
const WORDS = 4;
/** Open ids kept as strings to spare their result a digest: at most this many, each this short. */
const RECENT_IDS = 1024;
const RECENT_ID_CHARS = 64;

/** One chunk of entries: digests, the line of each id's latest call, and when it was opened. */
interface Chunk {
  digests: Uint32Array;
  lines: Float64Array;
  /** 0 when the id has its result; else 1 + the number of calls opened before it (open order). */
  opened: Uint32Array;
}

/** The digests of call ids seen so far, each with its latest call's line and whether it is open. */
export class CallIds {
  private readonly sip = new SipHash128(new Uint32Array(Uint8Array.from(randomBytes(16)).buffer));
  private readonly chunks: Chunk[] = [];
  /** Entry number + 1 per slot; 0 is empty. */
  private slots = new Int32Array(1 << 10);
  private readonly digest = new Uint32Array(WORDS);
  /** Distinct ids seen. */
  size = 0;
  /** Ids whose latest call has no result yet. */
  openCount = 0;
  private opens = 0;
  /**
   * Entry numbers of a few open ids: a result usually follows its call closely, and finding it
   * here spares the digest.
   */
  private readonly recent = new Map<string, number>();

  /**
   * A ToolCall with `id` at `line`: the line of the latest earlier call with the same id (a
   * duplicate), else 0. The id is open afterwards; one that was open keeps its place in open order.
   */
  call(id: string, line: number): number {
    const entry = this.recent.get(id) ?? this.find(id, true);
    const { chunk, at } = this.locate(entry);
    const earlier = chunk.lines[at] as number;
    chunk.lines[at] = line;
    if (chunk.opened[at] === 0) {
      chunk.opened[at] = ++this.opens;
      this.openCount++;
      if (this.recent.size < RECENT_IDS && id.length <= RECENT_ID_CHARS) this.recent.set(id, entry);
    }
    return earlier;
  }

  /**
   * A ToolResult for `id`: the line of the call it completes (the id is closed); 0 when the id's
   * call already has its result; -1 when no call had the id.
   */
  result(id: string): number {
    const recent = this.recent.get(id);
    if (recent !== undefined) this.recent.delete(id);
    const entry = recent ?? this.find(id, false);
    if (entry < 0) return -1;
    const { chunk, at } = this.locate(entry);
    if (chunk.opened[at] === 0) return 0;
    chunk.opened[at] = 0;
    this.openCount--;
    return chunk.lines[at] as number;
  }

  /** The line of the latest call of the id opened first among those still open; 0 when none is. */
  firstOpenLine(): number {
    let best = 0;
    let line = 0;
    for (let entry = 0; entry < this.size; entry++) {
      const { chunk, at } = this.locate(entry);
      const opened = chunk.opened[at] as number;
      if (opened !== 0 && (best === 0 || opened < best)) {
        best = opened;
        line = chunk.lines[at] as number;
      }
    }
    return line;
  }

  /** Bytes held by the typed arrays (for tests that hold memory to a bound per call). */
  get bytesHeld(): number {
    const perEntry = WORDS * 4 + 8 + 4;
    return this.chunks.length * CHUNK * perEntry + this.slots.byteLength;
  }

  /** The entry of `id`; a new (closed, line 0) one when `add`, else -1 when there is none. */
  private find(id: string, add: boolean): number {
    const d = this.digest;
    this.sip.ofUnits(id, d);
    const mask = this.slots.length - 1;
    for (let slot = (d[0] as number) & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0) break;
      if (this.matches(held - 1)) return held - 1;
    }
    if (!add) return -1;
    const entry = this.size++;
    if (entry % CHUNK === 0)
      this.chunks.push({
        digests: new Uint32Array(CHUNK * WORDS),
        lines: new Float64Array(CHUNK),
        opened: new Uint32Array(CHUNK),
      });
    const { chunk, at } = this.locate(entry);
    chunk.digests.set(d, at * WORDS);
    if (this.size * 2 > this.slots.length) this.grow();
    else this.place(entry, d[0] as number);
    return entry;
  }

  private matches(entry: number): boolean {
    const { chunk, at } = this.locate(entry);
    const d = this.digest;
    const base = at * WORDS;
    return (
      chunk.digests[base] === d[0] &&
      chunk.digests[base + 1] === d[1] &&
      chunk.digests[base + 2] === d[2] &&
      chunk.digests[base + 3] === d[3]
    );
  }

  private locate(entry: number): { chunk: Chunk; at: number } {
    return { chunk: this.chunks[Math.floor(entry / CHUNK)] as Chunk, at: entry % CHUNK };
  }

  /** Puts `entry` (whose digest starts with `first`) in the first free slot from its own. */
  private place(entry: number, first: number): void {
    const mask = this.slots.length - 1;
    let slot = first & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  /** Doubles the table and places every entry again. */
  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.size; entry++) {
      const { chunk, at } = this.locate(entry);
      this.place(entry, chunk.digests[at * WORDS] as number);
    }
  }
}
