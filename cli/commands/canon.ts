import { intOption, parseCommandArgs, profileOption, singleFile } from "../args.js";
import { writeOut } from "../io.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";

/** Help text of `canon`. */
export const CANON_HELP = `Usage: replay-pipeline canon <file> [--profile jcs|openagents|replaykit] [--jsonl]

Prints the canonical form of a JSON file to standard output, without a trailing newline.
For JSON Lines (a name ending in .jsonl, or --jsonl) every non-blank line is one document and
the output is each canonical line followed by a newline.

Options:
  --profile P        jcs (RFC 8785, default), openagents (serde_json, sorted keys),
                     replaykit (Python json.dumps with ReplayKit's normalizations)
  --jsonl            read the input as JSON Lines whatever its name
  --max-depth N      deepest nesting accepted (default 512)
  --max-line-bytes N longest JSON Lines line accepted (default 67108864)
  -h, --help         this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is not valid JSON (one
line: file:line:col: error code: message), 2 on a usage or read error.`;

const OPTIONS = {
  profile: { type: "string" },
  jsonl: { type: "boolean" },
  "max-depth": { type: "string" },
  "max-line-bytes": { type: "string" },
} as const;

/** `replay-pipeline canon`: canonical bytes to stdout. */
export async function canonCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("canon", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${CANON_HELP}\n`);
    return 0;
  }
  const file = singleFile("canon", positionals);
  for await (const piece of canonicalPieces({
    file,
    profile: profileOption("canon", values.profile),
    jsonl: isJsonLines(file, values.jsonl),
    maxDepth: intOption("canon", "max-depth", values["max-depth"]),
    maxLineBytes: intOption("canon", "max-line-bytes", values["max-line-bytes"]),
  })) {
    await writeOut(piece);
  }
  return 0;
}
