import { canonicalDocument, canonicalJsonLines, type Profile } from "#shared/canonical/index.js";
import { openPlain, readPlainInput } from "../io.js";

/** How `canon` and `hash` read their input. */
export interface CanonicalInput {
  file: string;
  profile: Profile;
  /** Treat the input as JSON Lines (also when the name ends in `.jsonl`). */
  jsonl: boolean;
  maxDepth?: number;
  maxLineBytes?: number;
}

/** True when the file is JSON Lines by flag or by name (`.jsonl`, or `.jsonl.gz`). */
export function isJsonLines(file: string, flag: boolean | undefined): boolean {
  return flag === true || /\.jsonl(\.gz)?$/i.test(file);
}

/**
 * The canonical bytes of a file in pieces: the whole document for JSON, batches of canonical lines
 * (each ending in `\n`) for JSON Lines, streamed so a large file never sits in memory whole. A
 * gzip file is read gunzipped, as `inspect` reads it.
 */
export async function* canonicalPieces(input: CanonicalInput): AsyncGenerator<Uint8Array> {
  const { file, profile, maxDepth, maxLineBytes } = input;
  if (!input.jsonl) {
    yield canonicalDocument(await readPlainInput(file), profile, { file, maxDepth });
    return;
  }
  yield* canonicalJsonLines(openPlain(file), profile, { file, maxDepth, maxLineBytes });
}
