/**
 * Findings as compiler-style diagnostics, `file:line:col: error|warning|note code: message`, the
 * form editors and CI problem matchers link. An unknown line or column is written 0, as ESLint's
 * `unix` formatter writes it (`file:0:0: …` for a problem of the whole file), so every line keeps
 * the same shape for a matcher's regular expression.
 */
import type { CheckRow, Finding, InspectReport } from "#shared/formats/index.js";
import { type Paint, plain } from "./colour.js";

/** How bad a diagnostic is: errors and failed rows; unverifiable rows; notices. */
type Severity = "error" | "warning" | "note";

/** One located problem. */
export interface Diagnostic {
  file: string;
  line: number | null;
  column: number | null;
  severity: Severity;
  code: string;
  message: string;
  /** JSON path inside the line or document, when it says more than `$`. */
  path?: string;
}

/**
 * Codes whose limit an option raises: the message names the option, so the person who hit the
 * limit on a real file knows what to type.
 */
const LIMIT_HINTS: Readonly<Record<string, string>> = {
  "jsonl.line_too_long": "--max-line-bytes N raises the limit",
  "document.too_large": "--max-document-bytes N raises the limit",
  "io.too_large": "--max-document-bytes N raises the limit",
  "gzip.too_large": "--max-decompressed-bytes N raises the limit",
  "json.too_deep": "--max-depth N raises the limit",
  "canonical.too_deep": "--max-depth N raises the limit",
};

/** `message` with the option that raises its limit, when `code` is a limit. */
export function withHint(code: string, message: string): string {
  const hint = LIMIT_HINTS[code];
  return hint === undefined || message.includes(hint) ? message : `${message} (${hint})`;
}

/** The line a check row's subject names (`line 12 ToolCall …`), if any. */
function lineOfSubject(subject: string): number | null {
  const match = /^line (\d+)\b/.exec(subject);
  return match === null ? null : Number(match[1]);
}

function fromFinding(file: string, f: Finding, severity: Severity): Diagnostic {
  return {
    file,
    line: f.line,
    column: f.column,
    severity,
    code: f.code,
    message: withHint(f.code, f.message),
    ...(f.path === "$" ? {} : { path: f.path }),
  };
}

/** The diagnostic of a failed (error) or unverifiable (warning) check row. */
export function rowDiagnostic(file: string, row: CheckRow): Diagnostic {
  return {
    file,
    line: lineOfSubject(row.subject),
    column: null,
    severity: row.status === "failed" ? "error" : "warning",
    code: `check.${row.check}`,
    message: `${row.status === "failed" ? "FAILED" : "UNVERIFIABLE"} ${row.check} (${row.subject}): expected ${row.expected ?? "-"}, got ${row.actual ?? "-"}`,
  };
}

/** Every listed error, failed or unverifiable row and notice of a report, in that order. */
export function reportDiagnostics(
  r: Pick<InspectReport, "file" | "errors" | "checks" | "notices">,
): Diagnostic[] {
  return [
    ...r.errors.map((e) => fromFinding(r.file, e, "error")),
    ...r.checks.filter((c) => c.status !== "passed").map((c) => rowDiagnostic(r.file, c)),
    ...r.notices.map((n) => fromFinding(r.file, n, "note")),
  ];
}

const SEVERITY_STYLE = { error: "red", warning: "yellow", note: "cyan" } as const;

/** One diagnostic line (no newline). */
export function formatDiagnostic(d: Diagnostic, paint: Paint = plain): string {
  const at = d.path === undefined ? "" : ` (at ${d.path})`;
  return `${paint("bold", `${d.file}:${d.line ?? 0}:${d.column ?? 0}:`)} ${paint(SEVERITY_STYLE[d.severity], d.severity)} ${d.code}: ${d.message}${at}`;
}
