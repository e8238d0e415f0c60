/**
 * `--format github`: GitHub Actions workflow commands (`::error file=…,line=…,col=…,title=…::…`)
 * for each error and failed row, `::warning` for unverifiable rows, and a Markdown job summary
 * appended to `$GITHUB_STEP_SUMMARY` when the runner sets it. Escaping follows the runner's rules
 * (@actions/core `escapeData`/`escapeProperty`): `%`, CR and LF in the message; also `:` and `,`
 * in a property value, where they would end the value.
 */
import { appendFile } from "node:fs/promises";
import type { Diagnostic } from "./diagnostics.js";
import type { VerdictView } from "./view.js";

/** Escapes a workflow command's message. */
export function escapeData(s: string): string {
  return s.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** Escapes a workflow command's property value. */
function escapeProperty(s: string): string {
  return escapeData(s).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

/** Annotations are capped per step by the runner (10 errors, 10 warnings shown); a few more do no harm. */
const MAX_ANNOTATIONS = 50;

/** One workflow command for a diagnostic (notes are not annotated). */
export function annotation(d: Diagnostic): string {
  const props = [`file=${escapeProperty(d.file)}`];
  if (d.line !== null) props.push(`line=${d.line}`);
  if (d.line !== null && d.column !== null) props.push(`col=${d.column}`);
  props.push(`title=${escapeProperty(d.code)}`);
  const at = d.path === undefined ? "" : ` (at ${d.path})`;
  return `::${d.severity === "error" ? "error" : "warning"} ${props.join(",")}::${escapeData(`${d.message}${at}`)}`;
}

/** The workflow commands of some verdicts, one per line. */
export function renderAnnotations(views: VerdictView[]): string {
  const lines: string[] = [];
  for (const v of views) {
    const annotated = v.diagnostics.filter((d) => d.severity !== "note");
    for (const d of annotated.slice(0, MAX_ANNOTATIONS)) lines.push(annotation(d));
    if (annotated.length > MAX_ANNOTATIONS)
      lines.push(
        `::notice file=${escapeProperty(v.file)},title=more::${annotated.length - MAX_ANNOTATIONS} more problems (see --json)`,
      );
    lines.push(
      `${v.file}: ${v.verdict.toUpperCase()} (${v.totals.passed} passed, ${v.totals.failed} failed, ${v.totals.unverifiable} unverifiable, ${v.errorsTotal} errors)`,
    );
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** A Markdown table cell: pipes and newlines would break the row. */
function cell(s: string): string {
  return s.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replaceAll(/\r?\n/g, " ");
}

const ICON = { passed: "✅", failed: "❌", invalid: "❌", unverifiable: "⚠️" } as const;

/** The job summary: one row per verdict, then the first problems of each file that has some. */
function renderSummary(views: VerdictView[], title: string): string {
  const out = [
    `### ${cell(title)}`,
    "",
    "| file | verdict | passed | failed | unverifiable | errors |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const v of views)
    out.push(
      `| \`${cell(v.file)}\` | ${v.error === undefined ? `${ICON[v.verdict]} ${v.verdict}` : "❌ not read"} | ${v.totals.passed} | ${v.totals.failed} | ${v.totals.unverifiable} | ${v.errorsTotal} |`,
    );
  for (const v of views) {
    const problems = v.diagnostics.filter((d) => d.severity !== "note");
    if (problems.length === 0) continue;
    out.push("", `<details><summary>${cell(v.file)}: ${problems.length} problem(s)</summary>`, "");
    for (const d of problems.slice(0, 20))
      out.push(`- ${d.severity} \`${cell(d.code)}\` line ${d.line ?? "-"}: ${cell(d.message)}`);
    out.push("", "</details>");
  }
  return `${out.join("\n")}\n\n`;
}

/** Appends the job summary to `$GITHUB_STEP_SUMMARY`, when the runner set it. */
export async function writeStepSummary(views: VerdictView[], title: string): Promise<void> {
  const path = process.env.GITHUB_STEP_SUMMARY;
  if (path === undefined || path === "") return;
  await appendFile(path, renderSummary(views, title));
}
