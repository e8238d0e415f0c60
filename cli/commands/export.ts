import { writeFile } from "node:fs/promises";
import { assertText, decodeUtf8, type JsonValue, readJson } from "#shared/canonical/index.js";
import { type ExportError, ReplayPipelineError } from "#shared/errors.js";
import { detectFormat, exportReplayBundle, notBundle } from "#shared/formats/index.js";
import { intOption, parseCommandArgs, singleFile } from "../args.js";
import { UsageError } from "../errors.js";
import { outputError, outputTarget, readPlainInput, writeOut } from "../io.js";
import { warn } from "../output/index.js";

/** Help text of `export`. */
export const EXPORT_HELP = `Usage: replay-pipeline export <bundle.json> [-o REPLAY.jsonl] [--dialect v1|adr0003]

Converts an OpenAgents ReplayBundle (autopilot-core) to REPLAY.jsonl v1, as ADR-0003 asks of the
exporter: ReplayHeader, SessionStart, ToolCall/ToolResult pairs (step ids tc_001, ...) with their
params_hash and output_hash, Verification from the bundle's receipts, SessionEnd. Each line is
canonical JSON (openagents profile), so the same bundle always gives the same bytes. Prints replay_hash: sha256:<hex> of the written bytes (the value
RECEIPT.json records) to standard output, or to standard error when the REPLAY goes to standard
output. Warnings (values the bundle does not record) go to standard error.

Options:
  -o, --output FILE  write the REPLAY.jsonl to FILE (default: standard output; - is standard output)
  --dialect D        v1 (default): the "type"/"ts" REPLAY.jsonl v1 with hashes;
                     adr0003: the variant ADR-0003 sketches (version "1.0.0", task, outcome)
  --max-depth N      deepest nesting accepted in the bundle (default 512)
  -h, --help         this help

<bundle.json> may be - for standard input, and gzip-compressed. Exit 0 on success; 1 when the
input is not a ReplayBundle (malformed JSON, another format — named —, or a bundle that lacks a
required field: the message names its path and what was expected); 2 on a usage, read or write
error.`;

const OPTIONS = {
  output: { type: "string", short: "o" },
  dialect: { type: "string" },
  "max-depth": { type: "string" },
} as const;

async function writeReplay(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text);
  } catch (error) {
    throw outputError(path, error);
  }
}

/**
 * When a document does not parse because it is JSON Lines of a format this tool reads (a
 * REPLAY.jsonl, a span trace), the error that says so instead of "content after the value".
 */
function jsonLinesInstead(bytes: Buffer): ExportError | null {
  const end = bytes.indexOf(10);
  if (end === -1) return null;
  try {
    const format = detectFormat(readJson(decodeUtf8(bytes.subarray(0, end))));
    return format === null || format === "replay-bundle" ? null : notBundle(format, "JSON Lines file");
  } catch {
    return null;
  }
}

/** `replay-pipeline export`: ReplayBundle → REPLAY.jsonl v1, printing its replay_hash. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("export", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${EXPORT_HELP}\n`);
    return 0;
  }
  const file = singleFile("export", positionals);
  const output = outputTarget("export", values.output, file);
  const maxDepth = intOption("export", "max-depth", values["max-depth"]);
  const dialect = values.dialect ?? "v1";
  if (dialect !== "v1" && dialect !== "adr0003")
    throw new UsageError(`export: unknown dialect '${dialect}'; expected v1 or adr0003`);

  const bytes = await readPlainInput(file);
  let result: ReturnType<typeof exportReplayBundle>;
  try {
    assertText(bytes);
    let bundle: JsonValue;
    try {
      bundle = readJson(decodeUtf8(bytes), { maxDepth });
    } catch (error) {
      throw jsonLinesInstead(bytes) ?? error;
    }
    result = exportReplayBundle(bundle, { dialect });
  } catch (error) {
    // Read errors already name the file; these locate a line or a JSON path inside it.
    if (error instanceof ReplayPipelineError && file !== "-") error.locate({ file });
    throw error;
  }

  for (const warning of result.warnings) warn("export", warning);
  const hashLine = `replay_hash: ${result.replayHash}\n`;
  if (output === null) {
    await writeOut(result.text);
    process.stderr.write(hashLine);
  } else {
    await writeReplay(output, result.text);
    await writeOut(hashLine);
  }
  return 0;
}
