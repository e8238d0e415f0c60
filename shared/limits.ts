/**
 * The default limits an input is held to, in one place: the readers, Layer C, the CLI and the docs
 * (docs/pipeline.md "Limits") take them from here. Each can be lowered per call through options.
 */

/** Longest JSON Lines line: far above any real event, low enough to bound memory per line. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Largest whole-document input (`.rpk`, ReplayBundle, a whole JSON file read by the CLI). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

/** Most bytes a gzip input may expand to. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 4 * 1024 ** 3;
