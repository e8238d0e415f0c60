import { createHash } from "node:crypto";
import { intOption, parseCommandArgs, profileOption, singleFile } from "../args.js";
import { openStream, toInputError, writeOut } from "../io.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";

/** Help text of `hash`. */
export const HASH_HELP = `Usage: replay-pipeline hash <file> [--profile jcs|openagents|replaykit] [--jsonl] [--raw]

Prints sha256:<64 hex> of the file's canonical form (what 'canon' prints), or with --raw of the
file's exact bytes (how replay_hash is defined).

Options:
  --profile P        jcs (default), openagents, replaykit
  --jsonl            read the input as JSON Lines whatever its name
  --raw              hash the raw bytes; no parsing
  --max-depth N      deepest nesting accepted (default 512)
  --max-line-bytes N longest JSON Lines line accepted (default 67108864)
  -h, --help         this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is not valid JSON,
2 on a usage or read error.`;

const OPTIONS = {
  profile: { type: "string" },
  jsonl: { type: "boolean" },
  raw: { type: "boolean" },
  "max-depth": { type: "string" },
  "max-line-bytes": { type: "string" },
} as const;

/** `replay-pipeline hash`: `sha256:<hex>` of canonical or raw bytes. */
export async function hashCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("hash", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${HASH_HELP}\n`);
    return 0;
  }
  const file = singleFile("hash", positionals);
  const hash = createHash("sha256");
  if (values.raw === true) {
    try {
      for await (const chunk of openStream(file)) hash.update(chunk);
    } catch (error) {
      throw toInputError(file, error);
    }
  } else {
    for await (const piece of canonicalPieces({
      file,
      profile: profileOption("hash", values.profile),
      jsonl: isJsonLines(file, values.jsonl),
      maxDepth: intOption("hash", "max-depth", values["max-depth"]),
      maxLineBytes: intOption("hash", "max-line-bytes", values["max-line-bytes"]),
    })) {
      hash.update(piece);
    }
  }
  await writeOut(`sha256:${hash.digest("hex")}\n`);
  return 0;
}
