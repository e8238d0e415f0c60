import { createHash } from "node:crypto";
import { gunzipped } from "#shared/formats/index.js";
import { inputPaths, intOption, parseCommandArgs, profileOption } from "../args.js";
import { expandInputs, runInputs } from "../inputs.js";
import { openStream, toInputError, writeOut } from "../io.js";
import { canonicalPieces, isJsonLines } from "./canonical-source.js";

/** Help text of `hash`. */
export const HASH_HELP = `Usage: replay-pipeline hash <file or folder...> [--profile jcs|openagents|replaykit] [--jsonl] [--raw [--decompressed]]

Prints sha256:<64 hex> of the file's canonical form (what 'canon' prints), or with --raw of the
file's exact bytes (how replay_hash is defined). A gzip file is read gunzipped for its canonical
form; with --raw its bytes are hashed as stored, and --decompressed hashes them gunzipped instead
(the replay_hash inspect reports); for a gzip file, standard error says which was hashed.
Several files and folders (walked for .jsonl, .json, .rpk and .bundle files, .gz too): one line
'sha256:<hex>  <path>' per file, as sha256sum prints, and a summary line on standard error.

Options:
  --profile P        jcs (default), openagents, replaykit
  --jsonl            read the input as JSON Lines whatever its name
  --raw              hash the raw bytes as stored; no parsing
  --decompressed     hash the raw bytes after gunzip (implies --raw; the same as --raw for a
                     file that is not gzip)
  --max-depth N      deepest nesting accepted (default 512)
  --max-line-bytes N longest JSON Lines line accepted (default 67108864)
  -q, --quiet        no progress line, no note on what was hashed
  -h, --help         this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is not valid JSON,
2 on a usage or read error; with several files, the others are hashed all the same and the exit
code is the worst (2 over 1).`;

const OPTIONS = {
  profile: { type: "string" },
  jsonl: { type: "boolean" },
  raw: { type: "boolean" },
  decompressed: { type: "boolean" },
  "max-depth": { type: "string" },
  "max-line-bytes": { type: "string" },
} as const;

/** `chunks`, noting in `seen.gzip` whether the first starts with the gzip magic. */
async function* noting(
  chunks: AsyncIterable<Uint8Array>,
  seen: { gzip: boolean },
): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of chunks) {
    if (first) seen.gzip = chunk[0] === 0x1f && chunk[1] === 0x8b;
    first = false;
    yield chunk;
  }
}

/** The raw bytes of `file`, as stored or gunzipped; `seen.gzip` says whether they were gzip. */
async function* rawBytes(
  file: string,
  decompress: boolean,
  seen: { gzip: boolean },
): AsyncGenerator<Uint8Array> {
  const stored = noting(openStream(file), seen);
  try {
    yield* decompress ? gunzipped(stored, {}) : stored;
  } catch (error) {
    throw toInputError(file, error);
  }
}

/** `replay-pipeline hash`: `sha256:<hex>` of canonical or raw bytes. */
export async function hashCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("hash", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${HASH_HELP}\n`);
    return 0;
  }
  const decompress = values.decompressed === true;
  const raw = values.raw === true || decompress;
  const profile = profileOption("hash", values.profile);
  const maxDepth = intOption("hash", "max-depth", values["max-depth"]);
  const maxLineBytes = intOption("hash", "max-line-bytes", values["max-line-bytes"]);
  const inputs = await expandInputs(inputPaths("hash", positionals), { pairReceipts: false });
  return runInputs(
    "hash",
    inputs,
    async ({ path: file }) => {
      const hash = createHash("sha256");
      const seen = { gzip: false };
      const pieces = raw
        ? rawBytes(file, decompress, seen)
        : canonicalPieces({ file, profile, jsonl: isJsonLines(file, values.jsonl), maxDepth, maxLineBytes });
      for await (const piece of pieces) hash.update(piece);
      await writeOut(`sha256:${hash.digest("hex")}${inputs.many ? `  ${file}` : ""}\n`);
      if (raw && seen.gzip && values.quiet !== true)
        process.stderr.write(
          decompress
            ? `replay-pipeline hash: ${file} is gzip: hashed its decompressed bytes (--raw alone hashes them as stored)\n`
            : `replay-pipeline hash: ${file} is gzip: hashed its compressed bytes as stored (--decompressed hashes them gunzipped)\n`,
        );
      return "ok";
    },
    { summary: "stderr", quiet: values.quiet === true },
  );
}
