/**
 * The `Spool` port: temporary bytes, written once and read back, that a Lambda's `/tmp`, a folder
 * or memory can back. Layer C (redact/) and the per-file job (pipeline/) both take it from here.
 */

export { fileSpool } from "./file.js";
export { memorySpool } from "./memory.js";
export type { Spool, SpoolFile } from "./port.js";
