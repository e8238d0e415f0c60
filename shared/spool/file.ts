/**
 * A spool on disk: each spool file in a folder of its own under a temporary folder (a Lambda's
 * `/tmp`, the OS temp folder for the CLI), removed whatever happened. Its errors carry Layer C's
 * spool codes: Layer C is what spools.
 */
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { RedactError } from "../errors.js";
import type { Spool, SpoolFile } from "./port.js";

/** Largest read from the file at a time. */
const READ_BYTES = 1 << 20;

/** A spool whose files are under `tmpDir`. */
export function fileSpool(tmpDir: string): Spool {
  return {
    async create(): Promise<SpoolFile> {
      const dir = await mkdtemp(join(tmpDir, "spool-"));
      const path = join(dir, "spool.jsonl");
      let file: FileHandle;
      try {
        file = await open(path, "w");
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      return {
        async write(chunk: Uint8Array, position: number): Promise<void> {
          const { bytesWritten } = await file.write(chunk, 0, chunk.length, position);
          if (bytesWritten !== chunk.length)
            throw new RedactError(
              "redact.spool_short_write",
              `the spool file took ${bytesWritten} of ${chunk.length} bytes`,
            );
        },
        async *read(from: number, to: number): AsyncGenerator<Uint8Array> {
          const reader = await open(path, "r");
          try {
            for (let at = from; at < to; ) {
              const chunk = Buffer.allocUnsafeSlow(Math.min(READ_BYTES, to - at));
              const { bytesRead } = await reader.read(chunk, 0, chunk.length, at);
              if (bytesRead === 0)
                throw new RedactError("redact.spool_truncated", "the spool file ended early");
              at += bytesRead;
              yield chunk.subarray(0, bytesRead);
            }
          } finally {
            await reader.close();
          }
        },
        async dispose(): Promise<void> {
          // Every write has settled (or failed) by now, and the bytes are read: a close error
          // changes nothing, and must not hide the error the caller is handling.
          await file.close().catch(() => undefined);
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
