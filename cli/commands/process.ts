import { basename, dirname, join, relative } from "node:path";
import type { Verdict } from "../../shared/formats/index.js";
import { type ProcessResult, processObject } from "../../shared/pipeline/index.js";
import { PRESETS, type Preset } from "../../shared/redact/index.js";
import { folderPorts } from "../adapters/files.js";
import { intOption, parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { expandInputs, worseExit } from "../inputs.js";
import { HMAC_KEY_OPTIONS, readHmacKey, readKeyOption, toInputError, toolVersion, writeOut } from "../io.js";
import { FORMAT_OPTIONS, formatOption, pushView, VerdictSink } from "../output/index.js";
import { parallelOptions, processWorkers } from "../worker-script.js";
import { exitCodeOf } from "./inspect.js";

/** Help text of `process`. */
export const PROCESS_HELP = `Usage: replay-pipeline process <files or folders...> --out DIR [options]

Runs the pipeline's whole per-file job on this machine, with no server: for each replay, one read
that validates it, recomputes every hash, checks it against its session's receipt and writes its
Layer C copy; a RECEIPT.json is checked against every replay of its session, in whichever order
they come. What the pipeline would store goes under DIR:
  DIR/published/<tenant>/<session>/<file>.layer-c.<ext>   Layer C copies (only of files that are
                                                        not failed or invalid and whose receipt
                                                        check did not fail)
  DIR/reports/results/<tenant>/<session>/<file>.json     one verdict document per file
  DIR/index.jsonl                                        the index records of this run
Each file's key is <tenant>/<session>/<file name>: the tenant from --tenant (default local), the
session from --session or else the name of the file's folder.

Options:
  -o, --out DIR        the output folder (required)
  --tenant T           tenant of every key (default: local)
  --session S          session of every key (default: each file's folder name)
  --preset P           Layer C preset: open_source, private_repo (default) or paranoid
  --key-env VAR        Layer C scrubbing key from environment variable VAR
  --key-file F         Layer C scrubbing key from file F
  --hmac-key-env VAR   ReplayKit signature key (then a signature is required)
  --hmac-key-file F    ReplayKit signature key from file F
  --workers N          worker threads for JSON Lines files over 8 MiB (default: one per core
                       beyond the first, none on two cores or fewer; 0 = none)
  --json               one verdict document per line instead of the summary (tool_version,
                       schema_version first)
  --format F           text (default), json (= --json), github (annotations for every file
                       and a job summary), junit (one document, a testsuite per file)
  -h, --help           this help

Exit: the worst verdict over every file and receipt check (1 failed or invalid, 3 unverifiable,
0 passed), 2 on a usage or read error. Each replay's attestation (an in-toto Statement with the
SLSA VSA predicate) is written beside its verdict document as <file>.intoto.json.`;

const OPTIONS = {
  out: { type: "string", short: "o" },
  tenant: { type: "string" },
  session: { type: "string" },
  preset: { type: "string" },
  "key-env": { type: "string" },
  "key-file": { type: "string" },
  ...HMAC_KEY_OPTIONS,
  workers: { type: "string" },
  ...FORMAT_OPTIONS,
} as const;

/** `path` relative to the working folder when it is inside it, else as it is. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith("..") ? path : rel;
}

/** `replay-pipeline process`: the whole per-file job over files and an output folder. */
export async function processCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("process", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${PROCESS_HELP}\n`);
    return 0;
  }
  if (values.out === undefined)
    throw new UsageError("process: --out DIR is required (where copies, verdicts and the index go)");
  if (positionals.length === 0) throw new UsageError("process: expected at least one file or folder");
  const preset = (values.preset ?? "private_repo") as Preset;
  if (!(PRESETS as readonly string[]).includes(preset))
    throw new UsageError(`process: unknown preset '${values.preset}'; expected one of ${PRESETS.join(", ")}`);
  const redactionKey = await readKeyOption(
    "process",
    { env: "--key-env", file: "--key-file" },
    values["key-env"],
    values["key-file"],
  );
  const hmacKey = await readHmacKey("process", values["hmac-key-env"], values["hmac-key-file"]);
  const workers = intOption("process", "workers", values.workers, 0);
  const tenant = values.tenant ?? "local";
  const format = formatOption("process", values);

  const ports = folderPorts(values.out);
  await ports.index.reset();
  // The pipeline pairs receipts itself, through the index, in whichever order they come.
  const inputs = (await expandInputs(positionals, { pairReceipts: false })).files.map(({ path }) => {
    const session = values.session ?? (basename(dirname(path)) || "default");
    return { path, key: `${tenant}/${session}/${basename(path)}` };
  });
  if (inputs.length === 0)
    throw new UsageError("process: no .jsonl, .json, .rpk or .bundle file found in what was given");

  const sink = new VerdictSink(format, "replay-pipeline process");
  let exit = 0;
  const verdicts: Record<Verdict, number> = { passed: 0, failed: 0, unverifiable: 0, invalid: 0 };
  for (const { path, key } of inputs) {
    let result: ProcessResult;
    try {
      const source = await ports.objects.add(key, path);
      result = await processObject(source, ports, {
        toolVersion: toolVersion(),
        preset,
        ...(redactionKey === undefined ? {} : { redactionKey }),
        ...(hmacKey === undefined ? {} : { hmacKey }),
        parallel: parallelOptions(workers ?? processWorkers()),
      });
    } catch (error) {
      throw toInputError(path, error);
    }
    verdicts[result.record.verdict]++;
    exit = worseExit(exit, exitCodeOf(result.record.verdict));
    for (const check of result.checks) exit = worseExit(exit, exitCodeOf(check.verdict));
    const { record, document } = result;
    await sink.add({
      view: { ...pushView(path, record, result.checks, document.report), command: "process" },
      json: document,
      text: () => describe(path, result, ports.publisher.copyPath.bind(ports.publisher)),
    });
  }
  await sink.finish();
  if (format === "text") {
    const counts = Object.entries(verdicts)
      .filter(([, n]) => n > 0)
      .map(([v, n]) => `${n} ${v}`)
      .join(", ");
    await writeOut(`${inputs.length} file(s): ${counts}; index ${shown(join(values.out, "index.jsonl"))}\n`);
  }
  return exit;
}

/** One file's lines of the summary. */
function describe(path: string, result: ProcessResult, copyPath: (key: string) => string): string {
  const { record, document } = result;
  const lines = [
    `${path}: ${record.verdict.toUpperCase()} (${record.kind}${record.format === null ? "" : `, ${record.format}`}) as ${record.ref.key}`,
  ];
  if (record.first_error !== null) lines.push(`  ${record.first_error.code}: ${record.first_error.message}`);
  if (record.layer_c_key !== null) lines.push(`  published ${shown(copyPath(record.layer_c_key))}`);
  else if (document.not_published !== null && record.kind === "replay")
    lines.push(`  not published: ${document.not_published}`);
  for (const check of result.checks) {
    const other = record.kind === "receipt" ? check.replay.key : check.receipt.key;
    lines.push(
      `  receipt check against ${other}: ${check.verdict.toUpperCase()}${check.withdrawn === null ? "" : ` (copy ${check.withdrawn} withdrawn)`}`,
    );
    for (const row of check.failed.slice(0, 5))
      lines.push(
        `    FAILED ${row.check} (${row.subject}): expected ${row.expected ?? "-"}, got ${row.actual ?? "-"}`,
      );
  }
  return `${lines.join("\n")}\n`;
}
