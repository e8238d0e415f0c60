import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { corpusPath, PROJECT_ROOT } from "./corpus.js";

/** The Python oracle (replaykit_oracle.py). */
export const ORACLE = join(PROJECT_ROOT, "test", "support", "replaykit_oracle.py");

/** What the oracle says of one artifact (its `--artifacts` mode). */
export interface ArtifactAnswer {
  /** Violations of the published schema (rpk-1.0.schema.json), `path: message`; empty when valid. */
  schema_errors: string[];
  /** Each step's hash, recomputed in Python from ReplayKit's rules. */
  step_hashes: string[];
  /** The envelope checksum, recomputed in Python. */
  checksum: string;
}

/**
 * Checks whole `.rpk` artifacts (each a JSON text on one line) in one python3 process: the
 * published JSON Schema with Python's `jsonschema` (Draft 2020-12, as ReplayKit validates), and step
 * hashes and checksum recomputed independently. A missing python3 or `jsonschema` is a failure.
 */
export function checkArtifacts(texts: readonly string[]): ArtifactAnswer[] {
  for (const t of texts) if (t.includes("\n")) throw new Error("checkArtifacts takes one-line JSON texts");
  const schema = corpusPath("replaykit", "schemas", "rpk-1.0.schema.json");
  const result = spawnSync("python3", [ORACLE, "--artifacts", schema], {
    input: texts.map((t) => `${t}\n`).join(""),
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (result.error !== undefined) throw new Error(`cannot run python3 ${ORACLE}: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`python3 ${ORACLE} exited with ${result.status}: ${result.stderr}`);
  const lines = result.stdout.split("\n").filter((l) => l !== "");
  if (lines.length !== texts.length)
    throw new Error(`oracle answered ${lines.length} lines for ${texts.length} artifacts`);
  return lines.map((l) => JSON.parse(l) as ArtifactAnswer);
}
