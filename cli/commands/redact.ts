import { createWriteStream } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { RedactError, ReplayPipelineError } from "#shared/errors.js";
import { layerCName } from "#shared/pipeline/index.js";
import { PRESETS, type Preset, refusedError } from "#shared/redact/index.js";
import { type CopySink, localJob, reportOf } from "../adapters/local.js";
import { inputPaths, intOption, parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { expandInputs, type Input, type Inputs, notAReplay, runInputs, skipNotice } from "../inputs.js";
import { HMAC_KEY_OPTIONS, outputError, outputTarget, readHmacKey, readKeyOption, writeOut } from "../io.js";
import { jsonLine, renderReport } from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `redact`. */
export const REDACT_HELP = `Usage: replay-pipeline redact <file> [-o OUT] [--preset P] [--key-env VAR | --key-file F] [--json]
       replay-pipeline redact <files or folders...> -o DIR [options]

Writes the Layer C (published) copy of a replay file (ADR-0017): REPLAY.jsonl (every dialect),
Braintrust spans, ReplayKit .rpk and ReplayBundle, detected by content.
- The input is inspected as it is read (one read): a failed or invalid input gets no copy (exit 1,
  the failed rows or errors named) unless --allow-unverified. The copy's record always carries the
  original's replay_hash, verdict and check totals ("original"), so a copy never reads as cleaner
  than the file it was made from.
- Raw content (params, output, result, content, stdout, stderr, messages, payload, span input and
  output, ...) is removed; every hash is kept, and where a removed value had none, one is added
  (params_hash, output_hash, input_hash, ...) so each event still matches the original's receipt.
- Every string left (commands, summaries, error messages, names, metadata) is scrubbed with the
  preset's rules; members of unknown event types are dropped (fail closed).
- What was done is recorded in the copy: the ReplayHeader's "redaction", the root span's
  metadata.redaction, or metadata.redaction of an .rpk / ReplayBundle.
- An .rpk is redacted as ReplayKit's own bundle export does it: step input/output keep their
  structure with values masked in place ("[REDACTED]"), step hashes and the checksum are
  recomputed over the copy, metadata gets redaction_profile (the preset) and
  redaction_policy_version, and metadata.redaction.original keeps the original step hashes and
  checksum; a signature, which covered the unredacted content, is dropped.
JSON Lines inputs are streamed (one canonical JSON line per event, same order and count).

Options:
  -o, --output FILE    write the copy to FILE (default: standard output; - is standard output);
                       suggested name: <file>.layer-c.<ext>, e.g. REPLAY.layer-c.jsonl. With
                       several inputs (or a folder) -o names a folder, created if missing: each
                       copy goes there as <name>.layer-c.<ext>; a RECEIPT.json beside a replay
                       is checked first (a failed check: no copy); one line per file, a summary
                       line, the worst exit code
  --preset P           open_source, private_repo (default) or paranoid (ADR-0016); paranoid keeps
                       only types, ids, timings, statuses and hashes
  --key-env VAR        scrubbing key (keyed pseudonyms) from environment variable VAR
  --key-file F         scrubbing key from the bytes of file F
  --allow-unverified   copy a failed or invalid input too (its verdict is recorded in the copy)
  --hmac-key-env VAR   ReplayKit signature key for the inspection, as inspect takes it
  --hmac-key-file F    ReplayKit signature key from file F
  --json               print the redaction summary as one JSON line (to standard output with
                       -o, else to standard error, after the copy); with several inputs one line
                       per file, with its file and output
  --max-line-bytes N   longest JSON Lines line accepted (default 64 MiB)
  --workers N          worker threads for JSON Lines files over 8 MiB (default: one per core
                       beyond the first, none on a single core; 0 = none)
  -q, --quiet          no progress line, no skip notices
  -h, --help           this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is refused (failed or
invalid) or cannot be read as what it claims (binary, a limit passed), 2 on a usage, read or
write error (nothing is left at -o in any of these cases).`;

const OPTIONS = {
  output: { type: "string", short: "o" },
  preset: { type: "string" },
  "key-env": { type: "string" },
  "key-file": { type: "string" },
  json: { type: "boolean" },
  "allow-unverified": { type: "boolean" },
  ...HMAC_KEY_OPTIONS,
  "max-line-bytes": { type: "string" },
  workers: { type: "string" },
} as const;

function presetOption(value: string | undefined): Preset {
  if (value === undefined) return "private_repo";
  if (!(PRESETS as readonly string[]).includes(value))
    throw new UsageError(`redact: unknown preset '${value}'; expected one of ${PRESETS.join(", ")}`);
  return value as Preset;
}

/** Writes `chunks` to `path`; on any failure the partial file is removed. */
async function writeChunks(path: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  const out = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => out.once("error", reject));
  failed.catch(() => undefined);
  try {
    for await (const chunk of chunks) {
      if (!out.write(chunk))
        await Promise.race([new Promise<void>((r) => out.once("drain", () => r())), failed]);
    }
    await Promise.race([new Promise<void>((r) => out.end(() => r())), failed]);
  } catch (error) {
    out.destroy();
    await rm(path, { force: true });
    if (error instanceof ReplayPipelineError) throw error;
    if ((error as NodeJS.ErrnoException | undefined)?.syscall !== undefined) throw outputError(path, error);
    throw error;
  }
}

/** Where each input's copy goes with several inputs: `<dir>/<name>.layer-c.<ext>`, no two alike. */
function targetsIn(dir: string | undefined, inputs: Inputs): Map<Input, string> {
  if (dir === undefined || dir === "-")
    throw new UsageError("redact: several inputs need -o DIR, the folder their copies are written to");
  const targets = new Map<Input, string>();
  const taken = new Map<string, string>();
  for (const input of inputs.files) {
    const target = join(dir, layerCName(basename(input.path)));
    const other = taken.get(target);
    if (other !== undefined)
      throw new UsageError(
        `redact: ${other} and ${input.path} would both be copied to ${target}; expected distinct names`,
      );
    taken.set(target, input.path);
    targets.set(input, target);
  }
  return targets;
}

/** `-o DIR` made ready: a folder (created if missing), never an existing file. */
async function outputFolder(dir: string): Promise<void> {
  try {
    const info = await stat(dir).catch(() => null);
    if (info !== null && !info.isDirectory())
      throw new UsageError(`redact: -o ${dir} is a file; with several inputs -o names a folder`);
    await mkdir(dir, { recursive: true });
  } catch (error) {
    if (error instanceof ReplayPipelineError) throw error;
    throw outputError(dir, error);
  }
}

/** `replay-pipeline redact`: the Layer C copy of replay files, with its redaction summary. */
export async function redactCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("redact", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${REDACT_HELP}\n`);
    return 0;
  }
  const inputs = await expandInputs(inputPaths("redact", positionals), { pairReceipts: true });
  const targets = inputs.many ? targetsIn(values.output, inputs) : null;
  const single = inputs.many ? null : outputTarget("redact", values.output, positionals[0] as string);
  const preset = presetOption(values.preset);
  const key = await readKeyOption(
    "redact",
    { env: "--key-env", file: "--key-file" },
    values["key-env"],
    values["key-file"],
  );
  const maxLineBytes = intOption("redact", "max-line-bytes", values["max-line-bytes"]);

  const hmacKey = await readHmacKey("redact", values["hmac-key-env"], values["hmac-key-file"]);
  const parallel = parallelOptions(intOption("redact", "workers", values.workers, 0));
  if (values.output !== undefined && targets !== null) await outputFolder(values.output);
  const json = values.json === true;

  return runInputs(
    "redact",
    inputs,
    async (input) => {
      const output = targets === null ? single : (targets.get(input) ?? null);
      const sink: CopySink =
        output === null
          ? async (body) => {
              for await (const chunk of body) await writeOut(chunk);
            }
          : (body) => writeChunks(output, body);
      const result = await localJob(input.path, {
        preset,
        publishUnverified: values["allow-unverified"] === true,
        ...(key === undefined ? {} : { redactionKey: key }),
        ...(hmacKey === undefined ? {} : { hmacKey }),
        ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
        ...(input.receipt === null ? {} : { receipt: input.receipt }),
        copy: sink,
        parallel,
      });
      const report = reportOf(result);
      if (notAReplay(input, report)) {
        if (values.quiet !== true) process.stderr.write(skipNotice("redact", input));
        return "skipped";
      }
      const { layer_c: copy, not_published: why } = result.document;
      if (copy === null) {
        if (report.verdict === "failed" || report.verdict === "invalid") {
          // The report is the job's, scrubbed already: the refusal names its rows.
          const error = refusedError(report);
          process.stderr.write(renderReport(error.report));
          process.stderr.write(`replay-pipeline: ${error.message} [${error.code}]\n`);
          return report.verdict;
        }
        throw new RedactError("redact.not_copied", `${input.path}: ${why ?? "no copy was made"}`);
      }
      if (targets !== null) {
        // With several inputs each line says which file it is about and where its copy went.
        await writeOut(
          json
            ? jsonLine({ file: input.path, output, ...copy.summary })
            : `${input.path}: copied to ${output}\n`,
        );
      } else if (json) {
        const text = jsonLine(copy.summary);
        if (output === null) process.stderr.write(text);
        else await writeOut(text);
      }
      return "ok";
    },
    { summary: json ? "stderr" : "stdout", quiet: values.quiet === true },
  );
}
