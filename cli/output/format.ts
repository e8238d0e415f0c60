/**
 * `--format text|json|github|junit` (and `--json`, the same as `--format json`), the JSON envelope
 * every `--json` object carries, and how an error that stops a command is shown in each format.
 */
import type { ReplayPipelineError } from "#shared/errors.js";
import { scrubText } from "#shared/redact/index.js";
import { UsageError } from "../errors.js";
import { toolVersion } from "../io.js";
import { painterFor } from "./colour.js";
import { type Diagnostic, formatDiagnostic, withHint } from "./diagnostics.js";
import { annotation } from "./github.js";
import { xmlEscape } from "./junit.js";
import { isQuiet } from "./settings.js";

/** The output formats. */
const FORMATS = ["text", "json", "github", "junit"] as const;

/** One of `FORMATS`. */
export type Format = (typeof FORMATS)[number];

/** The `--json` and `--format F` options of the commands that give verdicts. */
export const FORMAT_OPTIONS = {
  json: { type: "boolean" },
  format: { type: "string" },
} as const;

/** The format asked for: `--format F`, or json for `--json`, else text. */
export function formatOption(command: string, values: { json?: boolean; format?: string }): Format {
  const format = values.format ?? (values.json === true ? "json" : "text");
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`${command}: unknown --format '${format}'; expected one of ${FORMATS.join(", ")}`);
  if (values.json === true && format !== "json")
    throw new UsageError(`${command}: --json and --format ${format} ask for different outputs; give one`);
  return format as Format;
}

/**
 * The version of the shape of every `--json` object. Raised on a change that breaks a reader
 * (a member removed, renamed or retyped); new members do not raise it. `schemas/` holds the JSON
 * Schema of each shape at this version.
 */
export const SCHEMA_VERSION = 1;

/** `value` with the tool's version and the schema version first: what every `--json` object carries. */
export function envelope<T extends object>(value: T): { tool_version: string; schema_version: number } & T {
  return { tool_version: toolVersion(), schema_version: SCHEMA_VERSION, ...value };
}

/** One `--json` line. */
export function jsonLine(value: object): string {
  return `${JSON.stringify(envelope(value))}\n`;
}

/** The painter of standard output (colour only on a terminal, never with NO_COLOR). */
function stdoutPaint() {
  return painterFor(process.stdout);
}

/** Text options for a report on standard output. */
export function textOptions() {
  return { paint: stdoutPaint(), quiet: isQuiet() };
}

/**
 * Exit codes, one table for every command (docs/cli.md): 0 passed or done; 1 the input is bad (a
 * failed or invalid verdict, or content a command cannot read as what it expects: malformed JSON,
 * a binary file, a limit passed); 2 the command could not do its job (usage, a missing or
 * unreadable file, an output that cannot be written, configuration, a timeout); 3 unverifiable.
 */
export const EXIT = { ok: 0, bad_input: 1, cannot_run: 2, unverifiable: 3 } as const;

/** The exit code of an error that stopped a command: 1 for the input's content, 2 otherwise. */
export function exitCodeOfError(error: ReplayPipelineError): number {
  return error.kind === "input" ? EXIT.bad_input : EXIT.cannot_run;
}

/** An error as a diagnostic (scrubbed: a message may quote the input). */
export function errorDiagnostic(error: ReplayPipelineError): Diagnostic {
  const { location } = error;
  return {
    file: location.file ?? "replay-pipeline",
    line: location.line ?? null,
    column: location.column ?? null,
    severity: "error",
    code: error.code,
    message: withHint(error.code, scrubText(error.detail)),
    ...(location.path === undefined || location.path === "$" ? {} : { path: scrubText(location.path) }),
  };
}

/**
 * Shows an error that stopped a command: always one line on standard error — compiler-style
 * when it names a file, else `replay-pipeline: error code: message` — and in the machine formats
 * also on standard output, so a `--json` caller still gets one JSON object (with `error`), a
 * GitHub job an annotation, a JUnit reader a report with the error.
 */
export function renderError(error: ReplayPipelineError, format: Format): { stdout: string; stderr: string } {
  const d = errorDiagnostic(error);
  const paint = painterFor(process.stderr);
  const at = d.path === undefined ? "" : ` (at ${d.path})`;
  const stderr =
    error.location.file === undefined
      ? `replay-pipeline: ${paint("red", "error")} ${d.code}: ${d.message}${at}\n`
      : `${formatDiagnostic(d, paint)}\n`;
  if (format === "json")
    return {
      stderr,
      stdout: jsonLine({
        error: {
          code: error.code,
          kind: error.kind,
          message: d.message,
          file: error.location.file ?? null,
          line: d.line,
          column: d.column,
          path: d.path ?? null,
        },
      }),
    };
  if (format === "github") return { stderr, stdout: `${annotation(d)}\n` };
  if (format === "junit") {
    const body = xmlEscape(`${d.message}${at}`);
    const what = xmlEscape(d.file);
    return {
      stderr,
      stdout: `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="replay-pipeline" tests="1" failures="0" errors="1" skipped="0">\n  <testsuite name="${what}" tests="1" failures="0" errors="1" skipped="0">\n    <testcase classname="${what}" name="read">\n      <error message="${body}" type="${xmlEscape(d.code)}"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n`,
    };
  }
  return { stderr, stdout: "" };
}

/**
 * The format an argument list asks for, read without the command's own parser (which may be
 * what failed): `--json`, `--format F` or `--format=F` before `--`; text otherwise.
 */
export function requestedFormat(argv: readonly string[]): Format {
  let format: Format = "text";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") break;
    const value = arg === "--format" ? argv[i + 1] : arg.startsWith("--format=") ? arg.slice(9) : undefined;
    if (arg === "--json") format = "json";
    else if (value !== undefined && (FORMATS as readonly string[]).includes(value)) format = value as Format;
  }
  return format;
}
