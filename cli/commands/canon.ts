import { inputPaths, intOption, parseCommandArgs, profileOption } from "../args.js";
import { expandInputs, runInputs } from "../inputs.js";
import { writeOut } from "../io.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";

/** Help text of `canon`. */
export const CANON_HELP = `Usage: replay-pipeline canon <file or folder...> [--profile jcs|openagents|replaykit] [--jsonl]

Prints the canonical form of a JSON file to standard output, without a trailing newline.
For JSON Lines (a name ending in .jsonl, or --jsonl) every non-blank line is one document and
the output is each canonical line followed by a newline. A gzip file is read gunzipped.
Several files and folders (walked for .jsonl, .json, .rpk and .bundle files, .gz too): each
file's canonical form in turn, a document followed by a newline (so the output is JSON Lines),
and a summary line on standard error.

Options:
  --profile P        jcs (RFC 8785, default), openagents (serde_json, sorted keys),
                     replaykit (Python json.dumps with ReplayKit's normalizations)
  --jsonl            read the input as JSON Lines whatever its name
  --max-depth N      deepest nesting accepted (default 512)
  --max-line-bytes N longest JSON Lines line accepted (default 67108864)
  -q, --quiet        no progress line
  -h, --help         this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is not valid JSON (one
line: file:line:col: error code: message), 2 on a usage or read error; with several files, the
others are printed all the same and the exit code is the worst (2 over 1).`;

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
  const profile = profileOption("canon", values.profile);
  const maxDepth = intOption("canon", "max-depth", values["max-depth"]);
  const maxLineBytes = intOption("canon", "max-line-bytes", values["max-line-bytes"]);
  const inputs = await expandInputs(inputPaths("canon", positionals), { pairReceipts: false });
  return runInputs(
    "canon",
    inputs,
    async ({ path: file }) => {
      const jsonl = isJsonLines(file, values.jsonl);
      for await (const piece of canonicalPieces({ file, profile, jsonl, maxDepth, maxLineBytes }))
        await writeOut(piece);
      // One document per line when there are several files, as JSON Lines lines already are.
      if (inputs.many && !jsonl) await writeOut("\n");
      return "ok";
    },
    { summary: "stderr", quiet: values.quiet === true },
  );
}
