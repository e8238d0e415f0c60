import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { RedactRefusedError, ReplayPipelineError } from "#shared/errors.js";
import { type LayerCSummary, PRESETS, type Preset, redactChecked } from "#shared/redact/index.js";
import { intOption, parseCommandArgs, singleFile } from "../args.js";
import { UsageError } from "../errors.js";
import {
  HMAC_KEY_OPTIONS,
  openStream,
  outputError,
  outputTarget,
  readHmacKey,
  readKeyOption,
  toInputError,
  writeOut,
} from "../io.js";
import { jsonLine, renderReport } from "../output/index.js";
import { parallelOptions } from "../worker-script.js";

/** Help text of `redact`. */
export const REDACT_HELP = `Usage: replay-pipeline redact <file> [-o OUT] [--preset P] [--key-env VAR | --key-file F] [--json]

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
                       suggested name: <file>.layer-c.<ext>, e.g. REPLAY.layer-c.jsonl
  --preset P           open_source, private_repo (default) or paranoid (ADR-0016); paranoid keeps
                       only types, ids, timings, statuses and hashes
  --key-env VAR        scrubbing key (keyed pseudonyms) from environment variable VAR
  --key-file F         scrubbing key from the bytes of file F
  --allow-unverified   copy a failed or invalid input too (its verdict is recorded in the copy)
  --hmac-key-env VAR   ReplayKit signature key for the inspection, as inspect takes it
  --hmac-key-file F    ReplayKit signature key from file F
  --json               print the redaction summary as JSON (to standard output with -o, else to
                       standard error, after the copy)
  --max-line-bytes N   longest JSON Lines line accepted (default 64 MiB)
  --workers N          worker threads for JSON Lines files over 8 MiB (default: one per core,
                       none on a single core; 0 = none)
  -h, --help           this help

<file> may be - for standard input. Exit 0 on success, 1 when the input is refused (failed or
invalid), 2 on a usage or read error (nothing is left at -o in either case).`;

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

/** `replay-pipeline redact`: the Layer C copy of a replay file, with its redaction summary. */
export async function redactCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("redact", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${REDACT_HELP}\n`);
    return 0;
  }
  const file = singleFile("redact", positionals);
  const output = outputTarget("redact", values.output, file);
  const preset = presetOption(values.preset);
  const key = await readKeyOption(
    "redact",
    { env: "--key-env", file: "--key-file" },
    values["key-env"],
    values["key-file"],
  );
  const maxLineBytes = intOption("redact", "max-line-bytes", values["max-line-bytes"]);

  const hmacKey = await readHmacKey("redact", values["hmac-key-env"], values["hmac-key-file"]);

  const result = redactChecked(openStream(file), {
    file,
    preset,
    allowUnverified: values["allow-unverified"] === true,
    ...(key === undefined ? {} : { key }),
    ...(hmacKey === undefined ? {} : { hmacKey }),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
    parallel: parallelOptions(intOption("redact", "workers", values.workers, 0)),
  });
  try {
    if (output === null) {
      for await (const chunk of result.chunks) await writeOut(chunk);
    } else {
      await writeChunks(output, result.chunks);
    }
  } catch (error) {
    if (error instanceof RedactRefusedError) {
      process.stderr.write(renderReport(error.report));
      process.stderr.write(`replay-pipeline: ${error.message} [${error.code}]\n`);
      return 1;
    }
    throw toInputError(file, error);
  }
  if (values.json === true) {
    const summary: LayerCSummary = result.summary();
    const text = jsonLine(summary);
    if (output === null) process.stderr.write(text);
    else await writeOut(text);
  }
  return 0;
}
