/** The options of a Layer C redaction, shared by its entry, writer and document path. */
import type { LayerCOrigin } from "../../formats/index.js";
import type { ParallelOptions } from "../../parallel/index.js";
import type { Spool } from "../../spool/index.js";
import type { Preset } from "../presets.js";
import type { PackRule } from "../rule-types.js";

/** What `redactFile` and `redactOrThrow` need. */
export interface LayerCOptions {
  /** File name, for messages. */
  file: string;
  /** Privacy preset (ADR-0016); default `private_repo`. */
  preset?: Preset;
  /** Key for the scrubber's keyed pseudonyms. */
  key?: Uint8Array;
  /** A rule pack's secret rules, run beside the built-in ones. */
  packRules?: readonly PackRule[];
  /** Longest JSON Lines line, bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole-document input (`.rpk`, ReplayBundle), bytes (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Where the lines of a JSON Lines copy wait for the summary (default: files in the OS temp folder). */
  spool?: Spool;
  /** Worker threads for large JSON Lines files (default: one per core). */
  parallel?: ParallelOptions;
  /**
   * The input's own verdict, recorded in the copy (`original`). Awaited once the input has been
   * read and before the first byte of the copy is given out, so a rejection (a refused input, see
   * `redactChecked`) leaves no output at all.
   */
  original: LayerCOrigin | Promise<LayerCOrigin>;
}
