import { createReadStream, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { JsonInputError, ReplayPipelineError } from "#shared/errors.js";
import { gunzipped } from "#shared/formats/index.js";
import { DEFAULT_MAX_DOCUMENT_BYTES } from "#shared/limits.js";
import { causedBy, InputFileError, OutputFileError, UsageError } from "./errors.js";
import { withProgress } from "./progress.js";

/** Chunks of a file, or of standard input for `-`; 1 MiB reads; a progress line on large files. */
export function openStream(path: string): AsyncIterable<Uint8Array> {
  if (path === "-") return process.stdin;
  return withProgress(path, createReadStream(path, { highWaterMark: 1024 * 1024 }));
}

/**
 * Chunks of a file as `inspect` reads it: gunzipped when it starts with the gzip magic, within
 * inspect's gzip limits (errors name the file).
 */
export async function* openPlain(
  path: string,
  limits: { maxDecompressedBytes?: number } = {},
): AsyncGenerator<Uint8Array> {
  try {
    yield* gunzipped(openStream(path), limits);
  } catch (error) {
    if (error instanceof ReplayPipelineError && path !== "-") error.locate({ file: path });
    throw toInputError(path, error);
  }
}

/** A whole file (or stdin) as `readInput` reads it, gunzipped when gzip, both within `maxBytes`. */
export async function readPlainInput(path: string, maxBytes = DEFAULT_MAX_DOCUMENT_BYTES): Promise<Buffer> {
  const bytes = await readInput(path, maxBytes);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of openPlainBytes(path, bytes, maxBytes)) {
    size += chunk.length;
    parts.push(chunk);
  }
  return Buffer.concat(parts, size);
}

/** The gunzipped chunks of `bytes` (read from `path`), at most `maxBytes`. */
async function* openPlainBytes(path: string, bytes: Buffer, maxBytes: number): AsyncGenerator<Uint8Array> {
  try {
    yield* gunzipped(
      (async function* () {
        yield bytes;
      })(),
      { maxDecompressedBytes: maxBytes },
    );
  } catch (error) {
    if (error instanceof ReplayPipelineError && path !== "-") error.locate({ file: path });
    throw error;
  }
}

/** Reads a whole file (or stdin) up to `maxBytes`, with a clear error for what the OS refuses. */
export async function readInput(path: string, maxBytes = DEFAULT_MAX_DOCUMENT_BYTES): Promise<Buffer> {
  try {
    if (path === "-") {
      const parts: Buffer[] = [];
      let size = 0;
      for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) tooLarge(path, maxBytes);
        parts.push(chunk);
      }
      return Buffer.concat(parts, size);
    }
    const info = await stat(path);
    if (info.isDirectory())
      throw new InputFileError("io.is_directory", "is a directory; expected a file", { file: path });
    if (info.size > maxBytes) tooLarge(path, maxBytes);
    return await readFile(path);
  } catch (error) {
    throw toInputError(path, error);
  }
}

function tooLarge(path: string, maxBytes: number): never {
  throw new JsonInputError(
    "io.too_large",
    `file is larger than ${maxBytes} bytes; expected at most that for a single JSON document (JSON Lines files are streamed)`,
    { file: path },
  );
}

/** Turns an fs error into an `InputFileError` naming the file; passes our own errors through. */
export function toInputError(path: string, error: unknown): unknown {
  if (error instanceof ReplayPipelineError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT")
    return new InputFileError("io.not_found", "no such file", { file: path }, { cause: error });
  if (code === "EACCES")
    return new InputFileError("io.permission", "permission denied", { file: path }, { cause: error });
  if (code === "EISDIR")
    return new InputFileError(
      "io.is_directory",
      "is a directory; expected a file",
      { file: path },
      { cause: error },
    );
  if (code !== undefined)
    return new InputFileError("io.read", `cannot read (${code})`, { file: path }, causedBy(error));
  return error;
}

/** Writes to stdout, waiting for the pipe to drain so memory stays flat on large outputs. */
export async function writeOut(text: string | Uint8Array): Promise<void> {
  if (!process.stdout.write(text))
    await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
}

/**
 * A key given as `<envFlag> VAR` (an environment variable) or `<fileFlag> F` (a file's bytes), not
 * both; undefined when neither. Used for ReplayKit HMAC keys and Layer C redaction keys.
 */
export async function readKeyOption(
  command: string,
  flags: { env: string; file: string },
  env: string | undefined,
  file: string | undefined,
): Promise<Uint8Array | undefined> {
  if (env !== undefined && file !== undefined) {
    throw new UsageError(`${command}: give ${flags.env} or ${flags.file}, not both`);
  }
  if (env !== undefined) {
    const value = process.env[env];
    if (value === undefined || value === "") {
      throw new UsageError(`${command}: environment variable ${env} (${flags.env}) is not set or empty`);
    }
    return Buffer.from(value, "utf8");
  }
  if (file === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw toInputError(file, error);
  }
  if (bytes.length === 0) throw new UsageError(`${command}: ${flags.file} ${file}: the file is empty`);
  return bytes;
}

/** The `--hmac-key-env`/`--hmac-key-file` options of every command that checks ReplayKit signatures. */
export const HMAC_KEY_OPTIONS = {
  "hmac-key-env": { type: "string" },
  "hmac-key-file": { type: "string" },
} as const;

/** The ReplayKit HMAC key from `--hmac-key-env VAR` or `--hmac-key-file F`, if any. */
export function readHmacKey(
  command: string,
  env: string | undefined,
  file: string | undefined,
): Promise<Uint8Array | undefined> {
  return readKeyOption(command, { env: "--hmac-key-env", file: "--hmac-key-file" }, env, file);
}

/** The `OutputFileError` for an fs error while writing `path`. */
export function outputError(path: string, error: unknown): OutputFileError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown";
  const why =
    code === "ENOENT"
      ? "no such folder"
      : code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EISDIR" || code === "ERR_FS_EISDIR"
          ? "is a folder; expected the path of a file to write"
          : `cannot write (${code})`;
  return new OutputFileError("io.write", `cannot write the output: ${why}`, { file: path }, causedBy(error));
}

/**
 * The `-o` target: null for standard output (no option, or `-`). Refuses the input file itself,
 * which a typo would otherwise replace with its own output.
 */
export function outputTarget(command: string, option: string | undefined, input: string): string | null {
  const output = option === undefined || option === "-" ? null : option;
  if (output !== null && input !== "-" && resolve(output) === resolve(input)) {
    throw new UsageError(`${command}: -o ${output} is the input file; expected a different output path`);
  }
  // Said before any work, and about the output: a stream opened on a folder fails late and
  // vaguely (ERR_FS_EISDIR), easily taken for a problem with the input.
  if (output !== null && statSync(output, { throwIfNoEntry: false })?.isDirectory() === true)
    throw new OutputFileError(
      "io.is_directory",
      `-o names a folder; expected the path of a file for ${command}'s output`,
      { file: output },
    );
  return output;
}

/**
 * A file of the package this CLI runs from: the bundle's chunks sit in dist/ and the sources in
 * cli/, one folder below package.json either way (installed, `node_modules/replay-pipeline/`).
 */
export function packageFile(relative: string): URL {
  return new URL(`../${relative}`, import.meta.url);
}

/** This tool's version (package.json beside the bundle or the sources). */
export function toolVersion(): string {
  const pkg = JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string };
  return pkg.version;
}

/**
 * The commit the bundle was built from: scripts/build.mjs embeds `git rev-parse --short HEAD`
 * (or "unknown" when built outside git); the sources run unbundled (tests) have none.
 */
export function buildCommit(): string {
  return typeof REPLAY_PIPELINE_COMMIT === "string" ? REPLAY_PIPELINE_COMMIT : "unknown";
}
