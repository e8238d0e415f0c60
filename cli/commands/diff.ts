import { writeFile } from "node:fs/promises";
import { diffHtml, diffSessions, diffText } from "#shared/diff/index.js";
import { ReplayPipelineError } from "#shared/errors.js";
import type { SessionView } from "#shared/view/index.js";
import { intOption, parseCommandArgs } from "../args.js";
import { NotComparableError, UsageError } from "../errors.js";
import { HMAC_KEY_OPTIONS, outputError, readHmacKey, writeOut } from "../io.js";
import { envelope } from "../output/index.js";
import { parallelOptions } from "../worker-script.js";
import { localView } from "./view.js";

/** Help text of `diff`. */
export const DIFF_HELP = `Usage: replay-pipeline diff <a> <b> [--json | --html [-o PAGE.html]] [options]

Compares two sessions step by step, whatever their formats (REPLAY.jsonl dialects, ReplayBundle,
Braintrust span traces, ReplayKit .rpk, gzip too), Layer C copies included:
- steps are paired by call id where both files share one, the rest by kind, tool name and params
  hash with a minimal-edit alignment (Myers), not by position; a step that moved is one change;
- each pair is compared by kind, name, result status and every hash by the value its content
  gives (the recomputed one where a check recomputed it): two Layer C copies compare through the
  hashes they keep, and a copy of a tampered file names the tampered step from its record of the
  original's failed checks. Durations are not compared (they differ between any two runs);
- output: the first divergence, then hunks of changed (-/+ per field), added (+) and removed (-)
  steps with 3 equal steps of context, and a summary line.
The exact alignment traces up to --max-edits edits past the common prefix and suffix (memory about
max-edits² × 4 bytes); beyond that a windowed greedy alignment (linear memory) is used and said so.

Options:
  --json              one JSON object: a, b, equal, first_divergence, changed, added, removed,
                      counts, alignment
  --html              a self-contained HTML page, the two timelines side by side
  -o, --output FILE   write the output to FILE (default: standard output)
  --max-edits N       edits the exact alignment traces (default 2000)
  --hmac-key-env VAR  ReplayKit signature key from environment variable VAR
  --hmac-key-file F   ReplayKit signature key from file F
  --workers N         worker threads for JSON Lines files over 8 MiB (0 = none)
  -h, --help          this help

Exit 0 when the sessions are equal, 1 when they differ, 2 when they could not be compared (usage,
a file missing or not a replay format), like diff(1).`;

const OPTIONS = {
  ...HMAC_KEY_OPTIONS,
  json: { type: "boolean" },
  html: { type: "boolean" },
  output: { type: "string", short: "o" },
  "max-edits": { type: "string" },
  workers: { type: "string" },
} as const;

/** `replay-pipeline diff`: two sessions compared step by step. */
export async function diffCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("diff", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${DIFF_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 2)
    throw new UsageError(`diff: expected two files to compare, got ${positionals.length}`);
  if (values.json === true && values.html === true)
    throw new UsageError("diff: --json and --html are exclusive; expected one of them");
  const [fileA, fileB] = positionals as [string, string];
  const key = await readHmacKey("diff", values["hmac-key-env"], values["hmac-key-file"]);
  const maxEdits = intOption("diff", "max-edits", values["max-edits"]);
  const parallel = parallelOptions(intOption("diff", "workers", values.workers, 0));
  const options = { ...(key === undefined ? {} : { hmacKey: key }), parallel };
  const a = await comparable(fileA, options);
  const b = await comparable(fileB, options);
  const diff = diffSessions(a, b, maxEdits === undefined ? {} : { maxEdits });
  const { entries: _entries, ...report } = diff;
  const text =
    values.json === true
      ? `${JSON.stringify(envelope(report))}\n`
      : values.html === true
        ? diffHtml(diff)
        : diffText(diff);
  if (values.output === undefined || values.output === "-") await writeOut(text);
  else {
    try {
      await writeFile(values.output, text);
    } catch (error) {
      throw outputError(values.output, error);
    }
  }
  return diff.equal ? 0 : 1;
}

/** The view of `file`, or the error that makes the diff unable to run (exit 2). */
async function comparable(file: string, options: Parameters<typeof localView>[1]): Promise<SessionView> {
  let view: SessionView;
  try {
    view = await localView(file, options);
  } catch (error) {
    if (error instanceof ReplayPipelineError && error.kind === "input")
      throw new NotComparableError(file, `cannot read it as a replay: ${error.detail}`, error);
    throw error;
  }
  if (view.format === null) {
    const first = view.errors[0];
    throw new NotComparableError(
      file,
      `not a replay this tool reads${first === undefined ? "" : ` (${first.code}: ${first.message})`}; expected a replay file of a supported format`,
    );
  }
  return view;
}
