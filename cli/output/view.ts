/** What the CI renderers (GitHub, JUnit) need of any verdict: the file, its rows and diagnostics. */
import type { CheckRow, InspectReport, Verdict } from "#shared/formats/index.js";
import type { FileRecord, ReceiptCheckRecord } from "#shared/pipeline/index.js";
import type { VerifyReport } from "#shared/receipt/index.js";
import { type Diagnostic, reportDiagnostics, rowDiagnostic } from "./diagnostics.js";

/** One verdict as the CI renderers see it. */
export interface VerdictView {
  /** The file the verdict is about (as given). */
  file: string;
  /** What produced it: `inspect`, `verify`, `push`. */
  command: string;
  verdict: Verdict;
  /** The listed check rows (up to the report's cap per status). */
  rows: CheckRow[];
  /** Every row, listed or not. */
  totals: Record<"passed" | "failed" | "unverifiable", number>;
  /** Errors, failed and unverifiable rows, notices. */
  diagnostics: Diagnostic[];
  /** How many errors there were in all (the report lists up to 100). */
  errorsTotal: number;
  /** Set when the file could not be read or parsed at all (a run over many files goes on). */
  error?: Diagnostic;
}

/** The view of an `inspect` report. */
export function inspectView(r: InspectReport): VerdictView {
  return {
    file: r.file,
    command: "inspect",
    verdict: r.verdict,
    rows: r.checks,
    totals: r.checks_total,
    diagnostics: reportDiagnostics(r),
    errorsTotal: r.errors_total,
  };
}

/**
 * The view of a `verify` report: the replay's own findings and rows, then the receipt's rows
 * (about the replay file) and the receipt's errors (about the receipt file).
 */
export function verifyView(r: VerifyReport, receiptPath: string | undefined): VerdictView {
  const receipt = receiptPath ?? r.replay.file;
  return {
    file: r.replay.file,
    command: "verify",
    verdict: r.verdict,
    rows: [...r.replay.checks, ...r.checks],
    totals: {
      passed: r.replay.checks_total.passed + r.checks_total.passed,
      failed: r.replay.checks_total.failed + r.checks_total.failed,
      unverifiable: r.replay.checks_total.unverifiable + r.checks_total.unverifiable,
    },
    diagnostics: [
      ...reportDiagnostics(r.replay),
      ...r.checks.filter((c) => c.status !== "passed").map((c) => rowDiagnostic(r.replay.file, c)),
      ...r.errors.map(
        (e): Diagnostic => ({
          file: receipt,
          line: e.line,
          column: e.column,
          severity: "error",
          code: e.code,
          message: e.message,
          ...(e.path === "$" ? {} : { path: e.path }),
        }),
      ),
      ...r.notices.map(
        (n): Diagnostic => ({
          file: receipt,
          line: n.line,
          column: n.column,
          severity: "note",
          code: n.code,
          message: n.message,
          ...(n.path === "$" ? {} : { path: n.path }),
        }),
      ),
    ],
    errorsTotal: r.replay.errors_total + r.errors_total,
  };
}

/**
 * The view of a file `push --wait` waited for: its recorded verdict and first error, and the
 * failed rows of the session's receipt checks that involve it. `file` is the path as pushed.
 */
export function pushView(
  file: string,
  record: FileRecord,
  checks: ReceiptCheckRecord[],
  report: InspectReport | null = null,
): VerdictView {
  const mine = checks.filter((c) => c.replay.key === record.ref.key || c.receipt.key === record.ref.key);
  const failedReceiptRows = mine.flatMap((c) => c.failed);
  // The verdict document's report, when fetched, locates every row and error in the local file.
  const rows = [...(report?.checks ?? []), ...failedReceiptRows];
  const diagnostics: Diagnostic[] = report === null ? [] : reportDiagnostics({ ...report, file });
  if (report === null && record.first_error !== null)
    diagnostics.push({
      file,
      line: record.first_error.line,
      column: null,
      severity: "error",
      code: record.first_error.code,
      message: record.first_error.message,
    });
  diagnostics.push(...failedReceiptRows.map((row) => rowDiagnostic(file, row)));
  const totals = { ...record.checks_total };
  for (const c of mine) {
    totals.passed += c.checks_total.passed;
    totals.failed += c.checks_total.failed;
    totals.unverifiable += c.checks_total.unverifiable;
  }
  let verdict = record.verdict;
  for (const c of mine) if (VERDICT_RANK[c.verdict] > VERDICT_RANK[verdict]) verdict = c.verdict;
  return { file, command: "push", verdict, rows, totals, diagnostics, errorsTotal: record.errors_total };
}

const VERDICT_RANK: Record<Verdict, number> = { passed: 0, unverifiable: 1, failed: 2, invalid: 3 };
