/** Errors only the command line raises: how it was called, and the files it was pointed at. */
import { type ErrorOptions, kindOf, ReplayPipelineError } from "#shared/errors.js";

/** A command-line usage problem: unknown flag, missing argument. */
export class UsageError extends ReplayPipelineError {
  constructor(detail: string) {
    super("cli.usage", detail);
  }
}

/** The local stack (`start`) could not start: a port in use, an unusable data folder. */
export class LocalStackError extends ReplayPipelineError {
  constructor(detail: string, cause?: unknown) {
    super("cli.local_stack", detail, {}, { cause });
  }
}

/** Read errors of the operating system (missing file, permission), with a stable code. */
export class InputFileError extends ReplayPipelineError {}

/** An output file that could not be written (missing folder, permission), with a stable code. */
export class OutputFileError extends ReplayPipelineError {}

/**
 * The options of an error caused by the fs error `cause`: transient when the cause says "not now"
 * (a full disk), else the code's own kind (a missing folder stays what the code says).
 */
export function causedBy(cause: unknown): ErrorOptions {
  return kindOf(cause) === "transient" ? { cause, kind: "transient" } : { cause };
}

/** `diff` could not compare (an input it cannot read as a replay): exit 2, as diff(1) does. */
export class NotComparableError extends ReplayPipelineError {
  constructor(file: string, detail: string, cause?: unknown) {
    super("cli.not_comparable", detail, { file }, { cause, kind: "config" });
  }
}
