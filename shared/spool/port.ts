/** The `Spool` port's types: what `file.ts` and `memory.ts` implement and callers take. */

/** Temporary bytes (a Lambda's `/tmp`, a folder, memory), written once and read back. */
export interface Spool {
  /** A new empty spool file. */
  create(): Promise<SpoolFile>;
}

/** One temporary file of a `Spool`. */
export interface SpoolFile {
  /**
   * Writes `chunk` at byte `position` (writes may be in flight together, at distinct ranges);
   * resolves once every byte is stored, rejects otherwise.
   */
  write(chunk: Uint8Array, position: number): Promise<void>;
  /** Bytes `[from, to)`, in order; rejects if fewer were written. */
  read(from: number, to: number): AsyncIterable<Uint8Array>;
  /** Frees the bytes; the file cannot be used after. Never throws. */
  dispose(): Promise<void>;
}
