/** A spool in memory: for tests, and for small files where no disk is wanted. */
import type { Spool, SpoolFile } from "./port.js";

/** A spool in memory (bounded only by the heap: for tests and small files). */
export function memorySpool(): Spool {
  return {
    async create(): Promise<SpoolFile> {
      let chunks: { at: number; bytes: Buffer }[] = [];
      return {
        async write(chunk: Uint8Array, position: number): Promise<void> {
          chunks.push({ at: position, bytes: Buffer.from(chunk) });
        },
        async *read(from: number, to: number): AsyncGenerator<Uint8Array> {
          const sorted = [...chunks].sort((a, b) => a.at - b.at);
          for (const { at, bytes } of sorted) {
            const start = Math.max(from, at);
            const end = Math.min(to, at + bytes.length);
            if (start < end) yield bytes.subarray(start - at, end - at);
          }
        },
        async dispose(): Promise<void> {
          chunks = [];
        },
      };
    },
  };
}
