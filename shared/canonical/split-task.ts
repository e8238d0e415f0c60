/**
 * The `split` line task: `splitLine` (the fast read `inspect` uses for JSON Lines) as a `mapLines`
 * task, so large files are split on worker threads.
 */
import type { LineTaskModule } from "../parallel/index.js";
import { type SplitLine, splitLine } from "./shallow.js";

/** What the split task is built from: the members `splitLine` leaves lazy (hashed, not read). */
export interface SplitTaskInit {
  lazy: string[];
}

/** A split line on the wire: 0 for a declined line, else keys, kinds, texts and hashes. */
type WireLine = 0 | [string[], number[], string[], [string, string][]];

/**
 * `splitLine` per line; null, not undefined, marks a line the fast path declined (the caller
 * reads it fully). A batch crosses threads as one JSON string.
 */
export const splitTask: LineTaskModule<SplitTaskInit> = {
  name: "split",
  // Measured on 2 cores: a 2 GB `inspect` peaked at 246-254 MiB with a 16 MB young generation
  // and 237-244 MiB with 4 (the bound is 256 MB); with 4 batches per worker instead of 2 it took
  // 327 MiB (more results crossing to the main thread's heap).
  tuning: { youngGenerationMb: 4, batchesInFlight: 2 },
  create(init) {
    const lazy = new Set(init.lazy);
    return {
      line: (bytes) => splitLine(bytes, lazy) ?? null,
      finish: () => null,
      toWire: (results) => splitsToWire(results as (SplitLine | null)[]),
      fromWire: (wire) => splitsFromWire(wire as string),
    };
  },
};

/** A batch of split lines (null for a declined one) as one JSON string, to cross threads. */
export function splitsToWire(splits: readonly (SplitLine | null)[]): string {
  return JSON.stringify(
    splits.map((s): WireLine => (s === null ? 0 : [s.keys, s.kinds, s.texts, [...s.hashes]])),
  );
}

/** The split lines of `splitsToWire`'s string. */
export function splitsFromWire(wire: string): (SplitLine | null)[] {
  return (JSON.parse(wire) as WireLine[]).map((s): SplitLine | null =>
    s === 0 ? null : { keys: s[0], kinds: s[1], texts: s[2], hashes: new Map(s[3]) },
  );
}
