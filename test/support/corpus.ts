import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (this file is test/support/corpus.ts). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `test/corpus`, the producers' real files (sources and licenses in SOURCES.md). Missing is a failure, never a skip. */
export const CORPUS = resolve(PROJECT_ROOT, "test", "corpus");

/** Absolute path of a corpus file; throws when the corpus or the file is missing. */
export function corpusPath(...parts: string[]): string {
  const path = join(CORPUS, ...parts);
  if (!existsSync(path)) {
    throw new Error(`corpus file missing: ${path} (the conformance tests read test/corpus)`);
  }
  return path;
}

/** Bytes of a corpus file. */
export function corpusBytes(...parts: string[]): Buffer {
  return readFileSync(corpusPath(...parts));
}

/** UTF-8 text of a corpus file. */
export function corpusText(...parts: string[]): string {
  return corpusBytes(...parts).toString("utf8");
}

/** Sorted names in a corpus folder; throws when it is missing or empty. */
export function corpusList(...parts: string[]): string[] {
  const names = readdirSync(corpusPath(...parts)).sort();
  if (names.length === 0) throw new Error(`corpus folder empty: ${join(CORPUS, ...parts)}`);
  return names;
}

/**
 * The example replays: one well-formed file of each format in `examples/`, leaving out what the
 * local stack's demo adds beside them (the receipt, the tampered copy, the CI snippets).
 */
export function exampleReplays(): string[] {
  return readdirSync(join(PROJECT_ROOT, "examples"), { withFileTypes: true })
    .filter((e) => e.isFile() && !/receipt\.json$/i.test(e.name) && !e.name.startsWith("tampered."))
    .map((e) => e.name)
    .sort();
}
