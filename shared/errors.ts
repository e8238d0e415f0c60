/** Where in an input a problem was found. Lines and columns are 1-based; columns count code points. */
export interface SourceLocation {
  /** File name as the user gave it, when known. */
  file?: string;
  line?: number;
  column?: number;
  /** JSON path of the offending value (`$.a[0].b`), when known. */
  path?: string;
}

/** Formats a location as `file: line L, column C, at $.path`, leaving out what is unknown. */
export function formatLocation(loc: SourceLocation): string {
  const parts: string[] = [];
  if (loc.line !== undefined) parts.push(`line ${loc.line}`);
  if (loc.column !== undefined) parts.push(`column ${loc.column}`);
  if (loc.path !== undefined) parts.push(`at ${loc.path}`);
  const where = parts.join(", ");
  if (loc.file === undefined) return where;
  return where === "" ? loc.file : `${loc.file}: ${where}`;
}

/**
 * The one base class of every error this project raises on purpose. `code` is stable and
 * machine-readable (reports, exit codes and tests key on it); `detail` says what was wrong and what
 * was expected; `location` says where. The message is rebuilt from both whenever a caller that knows
 * more (the file name, the line of a JSON Lines file) adds it with `locate`.
 */
export class ReplayPipelineError extends Error {
  /** Stable, dotted identifier such as `json.duplicate_key`. */
  readonly code: string;
  /** The description without the location. */
  readonly detail: string;
  location: SourceLocation;

  constructor(code: string, detail: string, location: SourceLocation = {}, options?: { cause?: unknown }) {
    super(ReplayPipelineError.compose(detail, location), options);
    this.code = code;
    this.detail = detail;
    this.location = location;
    this.name = new.target.name;
  }

  private static compose(detail: string, location: SourceLocation): string {
    const where = formatLocation(location);
    return where === "" ? detail : `${where}: ${detail}`;
  }

  /** Adds the file name and shifts the line by `lineOffset` (for a document inside a larger file). */
  locate(fields: { file?: string; lineOffset?: number }): this {
    const location: SourceLocation = { ...this.location };
    if (fields.file !== undefined) location.file = fields.file;
    if (fields.lineOffset !== undefined) location.line = (location.line ?? 1) + fields.lineOffset;
    this.location = location;
    this.message = ReplayPipelineError.compose(this.detail, location);
    return this;
  }
}

/** Input that is not acceptable JSON: syntax, encoding, duplicate keys, nesting depth, size. */
export class JsonInputError extends ReplayPipelineError {}

/** A value that is valid JSON but that the chosen canonical profile cannot serialize. */
export class CanonicalizationError extends ReplayPipelineError {}

/** A command-line usage problem: unknown flag, missing argument. */
export class UsageError extends ReplayPipelineError {
  constructor(detail: string) {
    super("cli.usage", detail);
  }
}
