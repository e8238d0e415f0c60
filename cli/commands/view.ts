import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { Findings } from "#shared/formats/index.js";
import { parseReceiptJson, verifyReplay } from "#shared/receipt/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { attachReceipt, readSessionView, type SessionView, viewerPage } from "#shared/view/index.js";
import { intOption, parseCommandArgs, singleFile } from "../args.js";
import { UsageError } from "../errors.js";
import {
  HMAC_KEY_OPTIONS,
  openStream,
  outputError,
  outputTarget,
  readHmacKey,
  readInput,
  toInputError,
  writeOut,
} from "../io.js";
import { TARGET_HELP, TARGET_OPTIONS } from "../target-options.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `view`. */
export const VIEW_HELP = `Usage: replay-pipeline view <file> [-o PAGE.html] [--receipt RECEIPT.json] [options]
       replay-pipeline view <tenant>/<session>[/<file>] (--local | --stack NAME | ...) [-o PAGE.html]

Writes one self-contained HTML page of a replay file of any format (REPLAY.jsonl in its three
dialects, ReplayBundle, Braintrust span traces, ReplayKit .rpk, gzip too) or of a Layer C copy:
- the header: format, verdict, replay_hash, trajectory_hash, the checks of the whole file, errors,
  the receipt's checks with --receipt, and for a Layer C copy what it says of its original (hash,
  verdict, failed checks) and its redaction record (rules, removed members, hashes added);
- the timeline: tool calls (duration, result status), model turns of span traces, ReplayKit
  steps, runtime events; each step's hashes as recorded and as recomputed (both where a check
  failed), on a Layer C copy what was removed or masked and by which rule, and the receipt's
  rows about each tool call (a failed one marked on its step);
- filters (tool, status, failed checks only), search (name, id, hash) and keys: j/k or arrows
  move, Enter opens a step, n/p change page, / searches.
The page loads nothing from anywhere (inline style and script, a Content-Security-Policy that
forbids requests); the timeline is drawn a page of rows at a time, so 100,000 steps stay fast.
Strings from the file are scrubbed as every report of this tool is; hashes are shown as they are.

With a pipeline named (--local, --local-dir, --stack; or the environment variables when no such
file exists here), the argument is a session, <tenant>/<session> (one published copy) or a file's
key, <tenant>/<session>/<file>: the page is of the file's published Layer C copy, with the
session's receipt check of that file as the pipeline recorded it.

Options:
  -o, --output FILE    write the page to FILE (default: standard output)
  --receipt FILE       check the replay against this RECEIPT.json and show the rows
  --hmac-key-env VAR   ReplayKit signature key from environment variable VAR
  --hmac-key-file F    ReplayKit signature key from file F
  --workers N          worker threads for JSON Lines files over 8 MiB (0 = none)
  -h, --help           this help
Finding the pipeline (the session form):
${TARGET_HELP}

Exit 0 when the page was written (whatever the file's verdict: the page shows it); 2 when it could
not be (usage, unreadable input or receipt, unwritable output).`;

const OPTIONS = {
  ...HMAC_KEY_OPTIONS,
  ...TARGET_OPTIONS,
  output: { type: "string", short: "o" },
  receipt: { type: "string" },
  workers: { type: "string" },
} as const;

/** `replay-pipeline view`: the HTML page of one replay file. */
export async function viewCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("view", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${VIEW_HELP}\n`);
    return 0;
  }
  const file = singleFile("view", positionals);
  const output = outputTarget("view", values.output, file);
  const key = await readHmacKey("view", values["hmac-key-env"], values["hmac-key-file"]);
  const parallel = parallelOptions(intOption("view", "workers", values.workers, 0));
  const read = { ...(key === undefined ? {} : { hmacKey: key }), parallel };
  if (remote(file, values) && values.receipt !== undefined)
    throw new UsageError(
      "view: --receipt is for a local file; a published session shows the receipt check the pipeline recorded",
    );
  const view = remote(file, values)
    ? await (await import("../published-view.js")).publishedView(file, values, read)
    : await localView(file, {
        ...read,
        ...(values.receipt === undefined ? {} : { receipt: values.receipt }),
      });
  const page = viewerPage(view);
  if (output === null) await writeOut(page);
  else {
    try {
      await writeFile(output, page);
    } catch (error) {
      throw outputError(output, error);
    }
  }
  return 0;
}

/**
 * Whether `arg` names a published session rather than a local file: a pipeline is named, or none is
 * but the environment names a published bucket and no such file exists here.
 */
function remote(arg: string, values: { local?: boolean; "local-dir"?: string; stack?: string }): boolean {
  if (values.local === true || values["local-dir"] !== undefined || values.stack !== undefined) return true;
  return process.env.PUBLISHED_BUCKET !== undefined && arg !== "-" && !existsSync(arg);
}

/**
 * The scrubbed view of a local file, with its receipt check when `receipt` names one. Shared with
 * `diff`, which reads its two files the same way.
 */
export async function localView(
  file: string,
  options: { hmacKey?: Uint8Array; parallel?: ReturnType<typeof parallelOptions>; receipt?: string },
): Promise<SessionView> {
  const { receipt, ...read } = options;
  let result: Awaited<ReturnType<typeof readSessionView>>;
  try {
    result = await readSessionView(openStream(file), { file, ...read });
  } catch (error) {
    throw toInputError(file, error);
  }
  const view = result.view;
  if (receipt !== undefined) {
    const findings = new Findings();
    const value = parseReceiptJson(await readInput(receipt), receipt, findings);
    const report = verifyReplay(result.inspected, value, findings, { receiptUnreadable: value === null });
    attachReceipt(view, {
      file: receipt,
      verdict: report.verdict,
      checks: report.checks,
      checks_total: report.checks_total,
    });
  }
  return scrubReport(view);
}
