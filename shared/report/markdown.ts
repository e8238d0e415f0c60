/**
 * The audit report as markdown (`audits/<date>.md`): the same sections as the HTML page, for a
 * pull request, a chat message or a terminal. Markdown has no anchors: rows name their session.
 */
import { type AuditReport, type Distribution, reportScope, VERDICTS } from "./audit.js";

/** `report` as a markdown document. */
export function renderAuditMarkdown(report: AuditReport): string {
  const t = report.totals;
  const { period, scope } = reportScope(report);
  const out: string[] = [
    `# Replay audit: ${cell(period)}`,
    "",
    `${cell(scope)} · generated ${report.generated_at} · receipts expected within ${report.receipt_age_hours} h`,
    "",
    `**${t.files}** files in **${t.sessions}** sessions of **${t.tenants}** tenants: ${VERDICTS.map((v) => `${t.verdicts[v]} ${v}`).join(", ")}; ${report.withdrawn.length} withdrawn, ${report.missing_receipts.length} receipts missing.`,
  ];
  problemSections(out, report);
  countSections(out, report);
  out.push("", "## Distributions", "");
  out.push(
    ...table(
      ["", "Count", "Min", "p50", "p90", "p99", "Max", "Mean"],
      [
        distributionRow("Processing time (ms)", report.latency_ms, 0),
        distributionRow("Mean step utility", report.step_utility, 3),
      ],
    ),
  );
  section(
    out,
    `Verdicts per day, last ${report.history.length} days`,
    report.history.length,
    "No history.",
    ["Day", ...VERDICTS],
    report.history.map((d) => [d.day, ...VERDICTS.map((v) => String(d.verdicts[v]))]),
  );
  return `${out.join("\n")}\n`;
}

/** The rows that need someone: failed checks, invalid files, missing receipts, withdrawn copies. */
function problemSections(out: string[], report: AuditReport): void {
  section(
    out,
    "Failed checks",
    report.failed_checks.length,
    "No failed checks.",
    ["Session", "File", "Source", "Check", "Subject", "Expected", "Actual"],
    report.failed_checks.map((r) => [
      r.session,
      r.key,
      r.source,
      r.check,
      r.subject,
      r.expected ?? "–",
      r.actual ?? "–",
    ]),
  );
  section(
    out,
    "Invalid files",
    report.invalid_files.length,
    "No invalid files.",
    ["Session", "File", "Code", "First error", "Line"],
    report.invalid_files.map((r) => [r.session, r.key, r.code ?? "", r.message ?? "", String(r.line ?? "–")]),
  );
  section(
    out,
    `Receipts missing after ${report.receipt_age_hours} h`,
    report.missing_receipts.length,
    "Every replay old enough has its receipt.",
    ["Session", "Replay", "Age (h)"],
    report.missing_receipts.map((r) => [r.session, r.key, String(r.age_hours)]),
  );
  section(
    out,
    "Copies withdrawn from publication",
    report.withdrawn.length,
    "No copy was withdrawn.",
    ["Session", "Replay", "Receipt", "Withdrawn copy"],
    report.withdrawn.map((r) => [r.session, r.replay, r.receipt, r.copy]),
  );
}

/** The period in numbers: files per tenant, format and verdict, the rules, redactions. */
function countSections(out: string[], report: AuditReport): void {
  section(
    out,
    "Files per tenant, format and verdict",
    report.counts.length,
    "No files in this period.",
    ["Tenant", "Format", "Verdict", "Files"],
    report.counts.map((r) => [r.tenant, r.format, r.verdict, String(r.files)]),
  );
  section(
    out,
    "Failures by check",
    report.failures_by_check.length,
    "No failed checks.",
    ["Check", "Failed rows"],
    report.failures_by_check.map((r) => [r.check, String(r.count)]),
  );
  section(
    out,
    "Rules that made the verdicts",
    report.rules.length,
    "No files in this period.",
    ["Tool version", "Rules digest", "Files"],
    report.rules.map((r) => [
      r.tool_version ?? "not recorded",
      r.rules_digest ?? "not recorded",
      String(r.files),
    ]),
  );
  section(
    out,
    "Redactions by rule",
    report.redactions.length,
    "No redactions.",
    ["Rule", "Redactions"],
    report.redactions.map((r) => [r.rule, String(r.count)]),
  );
}

/** A titled table, or a line saying why there is none, appended to `out`. */
function section(
  out: string[],
  title: string,
  count: number,
  empty: string,
  head: string[],
  rows: string[][],
): void {
  out.push("", `## ${title} (${count})`, "");
  if (count === 0) out.push(`_${empty}_`);
  else out.push(...table(head, rows));
}

function distributionRow(label: string, d: Distribution, digits: number): string[] {
  const f = (v: number | null) => (v === null ? "–" : v.toFixed(digits));
  return [label, String(d.count), f(d.min), f(d.p50), f(d.p90), f(d.p99), f(d.max), f(d.mean)];
}

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.map(cell).join(" | ")} |`,
    `|${head.map(() => " --- ").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
}

// A value inside a table cell or a line: pipes, newlines and markup characters would break the table
// or turn input text into links and emphasis.
function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/([\\`*_[\]<>|#])/g, "\\$1");
}
