/**
 * The audit report as one self-contained HTML page: inline CSS and SVG, no script, font or image
 * from anywhere, so it opens from a bucket, a mail attachment or a laptop offline, reads on a
 * phone and prints. Charts on top, tables below; every failed row links to its session.
 */

import { barsChart, type Chart } from "../charts/index.js";
import { type AuditReport, type Distribution, reportScope, VERDICTS } from "./audit.js";
import { verdictsPerDayChart } from "./charts.js";

const CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5b6470; --line: #d9dee4; --soft: #f4f6f8;
  --passed: #2e7d32; --unverifiable: #9a6700; --failed: #c62828; --invalid: #6a1b9a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1100px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.meta { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(100px, 1fr)); gap: 8px; margin: 16px 0; }
.card { background: var(--soft); border-radius: 8px; padding: 10px 12px; }
.card b { display: block; font-size: 1.4rem; font-variant-numeric: tabular-nums; }
.card span { color: var(--muted); font-size: .85rem; }
.card.failed b { color: var(--failed); } .card.invalid b { color: var(--invalid); }
.card.passed b { color: var(--passed); } .card.unverifiable b { color: var(--unverifiable); }
.charts { display: grid; grid-template-columns: 1fr; gap: 16px; }
figure.chart { margin: 0; padding: 12px; border: 1px solid var(--line); border-radius: 8px; break-inside: avoid; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
figure.chart svg { max-width: 100%; height: auto; }
/* Plot's legend text is 10 px under a zero-specificity rule; match the axis labels. */
figure.chart div[class*="-swatches"] { font-size: 12px; }
.narrow { display: none; }
@media (max-width: 600px) { .wide { display: none; } .narrow { display: block; } main { padding: 12px; } }
}
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.hash { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .8rem; word-break: break-all; min-width: 12ch; }
td.key { word-break: break-all; min-width: 14ch; }
.verdict { font-weight: 600; } .verdict.passed { color: var(--passed); } .verdict.failed { color: var(--failed); }
.verdict.invalid { color: var(--invalid); } .verdict.unverifiable { color: var(--unverifiable); }
.empty { color: var(--muted); font-style: italic; }
section.session { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 8px 0; break-inside: avoid; }
section.session:target { outline: 3px solid #1f6feb; }
section.session h3 { font-size: 1rem; margin: 0 0 4px; word-break: break-all; }
a { color: #0b57d0; }
@media print {
  body { font-size: 11pt; } main { max-width: none; padding: 0; }
  .narrow { display: none !important; } .wide { display: block !important; }
  .scroll { overflow: visible; } h2 { break-after: avoid; } tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
/* On a phone, rows become stacked cards, each value beside its header: no sideways scrolling. */
@media (max-width: 600px) {
  thead { display: none; }
  table, tbody, tr, td { display: block; width: 100%; }
  tr { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 8px; padding: 4px 0; }
  td, td.n, td.hash, td.key { position: relative; border: 0; padding: 3px 10px 3px calc(7.5rem + 18px); text-align: left; min-width: 0; }
  td::before { content: attr(data-label); position: absolute; left: 10px; width: 7.5rem; color: var(--muted);
    font: .8rem/1.9 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
}
@media (min-width: 900px) { .charts { grid-template-columns: 1fr 1fr; } .charts .full { grid-column: 1 / -1; } }
`;

/** `report` as a self-contained HTML document. */
export function renderAuditHtml(report: AuditReport): string {
  const { period, scope } = reportScope(report);
  const parts = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(`Audit ${period}, ${scope}`)}</title><style>${CSS}</style></head><body><main>`,
    `<h1>Replay audit: ${esc(period)}</h1>`,
    `<p class="meta">${esc(scope)} · generated ${esc(report.generated_at.slice(0, 16).replace("T", " "))} UTC · receipts expected within ${report.receipt_age_hours} h</p>`,
    ...cards(report),
    ...charts(report),
    ...problemSections(report),
    ...countSections(report),
    section(
      "Sessions",
      report.sessions.map(sessionBlock).join(""),
      "No session is referred to above.",
      report.sessions.length,
    ),
    `</main></body></html>\n`,
  ];
  return parts.join("\n");
}

/** The totals, one card each. */
function cards(report: AuditReport): string[] {
  const t = report.totals;
  return [
    `<div class="cards">`,
    card("files", t.files),
    card("sessions", t.sessions),
    card("tenants", t.tenants),
    ...VERDICTS.map((v) => card(v, t.verdicts[v], v)),
    card("withdrawn", report.withdrawn.length),
    card("receipts missing", report.missing_receipts.length),
    `</div>`,
  ];
}

/** The charts: verdicts per day, failed rows by check, redactions by rule. */
function charts(report: AuditReport): string[] {
  const byCheck = report.failures_by_check.map((r) => ({ name: r.check, count: r.count }));
  const byRule = report.redactions.map((r) => ({ name: r.rule, count: r.count }));
  return [
    `<h2>Charts</h2><div class="charts">`,
    chartFigure(
      `Verdicts per day, last ${report.history.length} days`,
      verdictsPerDayChart(report),
      "No files in these days.",
      "full",
    ),
    chartFigure("Failed rows by check", barsChart(byCheck, "#c62828"), "No failed checks."),
    chartFigure("Redactions by rule", barsChart(byRule, "#1f6feb"), "No redactions."),
    `</div>`,
  ];
}

/** The rows that need someone: failed checks, invalid files, missing receipts, withdrawn copies. */
function problemSections(report: AuditReport): string[] {
  return [
    section(
      "Failed checks",
      table(
        ["Session", "File", "Source", "Check", "Subject", "Expected", "Actual"],
        report.failed_checks.map((r) => [
          sessionLink(r.anchor, r.session),
          keyCell(r.key),
          esc(r.source),
          esc(r.check),
          esc(r.subject),
          hashCell(r.expected),
          hashCell(r.actual),
        ]),
      ),
      "No failed checks.",
      report.failed_checks.length,
    ),
    section(
      "Invalid files",
      table(
        ["Session", "File", "First error", "Line"],
        report.invalid_files.map((r) => [
          sessionLink(r.anchor, r.session),
          keyCell(r.key),
          `${r.code === null ? "" : `<code>${esc(r.code)}</code> `}${esc(r.message ?? "")}`,
          num(r.line),
        ]),
      ),
      "No invalid files.",
      report.invalid_files.length,
    ),
    section(
      `Receipts missing after ${report.receipt_age_hours} h`,
      table(
        ["Session", "Replay", "Age (h)"],
        report.missing_receipts.map((r) => [
          sessionLink(r.anchor, r.session),
          keyCell(r.key),
          num(r.age_hours),
        ]),
      ),
      "Every replay old enough has its receipt.",
      report.missing_receipts.length,
    ),
    section(
      "Copies withdrawn from publication",
      table(
        ["Session", "Replay", "Receipt", "Withdrawn copy"],
        report.withdrawn.map((r) => [
          sessionLink(r.anchor, r.session),
          keyCell(r.replay),
          keyCell(r.receipt),
          keyCell(r.copy),
        ]),
      ),
      "No copy was withdrawn.",
      report.withdrawn.length,
    ),
  ];
}

/** The period in numbers: files per tenant, format and verdict, the rules, redactions, distributions. */
function countSections(report: AuditReport): string[] {
  return [
    section(
      "Files per tenant, format and verdict",
      table(
        ["Tenant", "Format", "Verdict", "Files"],
        report.counts.map((r) => [esc(r.tenant), esc(r.format), verdict(r.verdict), num(r.files)]),
      ),
      "No files in this period.",
      report.counts.length,
    ),
    section(
      "Rules that made the verdicts",
      table(
        ["Tool version", "Rules digest", "Files"],
        report.rules.map((r) => [
          esc(r.tool_version ?? "not recorded"),
          esc(r.rules_digest ?? "not recorded"),
          num(r.files),
        ]),
      ),
      "No files in this period.",
      report.rules.length,
    ),
    section(
      "Redactions by rule",
      table(
        ["Rule", "Redactions"],
        report.redactions.map((r) => [esc(r.rule), num(r.count)]),
      ),
      "No redactions.",
      report.redactions.length,
    ),
    `<h2>Distributions</h2>`,
    table(
      ["", "Count", "Min", "p50", "p90", "p99", "Max", "Mean"],
      [
        distributionRow("Processing time (ms)", report.latency_ms, 0),
        distributionRow("Mean step utility", report.step_utility, 3),
      ],
    ),
  ];
}

function card(label: string, value: number, kind = ""): string {
  return `<div class="card ${kind}"><b>${value}</b><span>${esc(label)}</span></div>`;
}

function chartFigure(caption: string, chart: Chart | null, empty: string, extra = ""): string {
  const body =
    chart === null
      ? `<p class="empty">${esc(empty)}</p>`
      : `<div class="narrow">${chart.narrow}</div><div class="wide">${chart.wide}</div>`;
  return `<figure class="chart ${extra}"><figcaption>${esc(caption)}</figcaption>${body}</figure>`;
}

function section(title: string, body: string, empty: string, count: number): string {
  return `<h2>${esc(title)} (${count})</h2>${count === 0 ? `<p class="empty">${esc(empty)}</p>` : body}`;
}

function table(head: string[], rows: string[][]): string {
  const numeric = new Set([
    "Files",
    "Line",
    "Age (h)",
    "Redactions",
    "Count",
    "Min",
    "p50",
    "p90",
    "p99",
    "Max",
    "Mean",
  ]);
  const th = head.map((h) => `<th${numeric.has(h) ? ' class="n"' : ""}>${esc(h)}</th>`).join("");
  const body = rows.map(
    (r) =>
      `<tr>${r
        .map((cell, i) => {
          // The header of each cell, shown beside it where a phone stacks the rows (CSS).
          const label = ` data-label="${esc(head[i] ?? "")}"`;
          return cell.startsWith("<td") ? `<td${label}${cell.slice(3)}` : `<td${label}>${cell}</td>`;
        })
        .join("")}</tr>`,
  );
  return `<div class="scroll"><table><thead><tr>${th}</tr></thead><tbody>${body.join("")}</tbody></table></div>`;
}

function distributionRow(label: string, d: Distribution, digits: number): string[] {
  const f = (v: number | null) => `<td class="n">${v === null ? "–" : v.toFixed(digits)}</td>`;
  return [
    esc(label),
    `<td class="n">${d.count}</td>`,
    f(d.min),
    f(d.p50),
    f(d.p90),
    f(d.p99),
    f(d.max),
    f(d.mean),
  ];
}

function sessionBlock(s: AuditReport["sessions"][number]): string {
  const rows = s.files.map((f) => [
    keyCell(f.key),
    esc(f.kind),
    esc(f.format ?? ""),
    verdict(f.verdict),
    esc(f.processed_at),
  ]);
  return `<section class="session" id="${esc(s.anchor)}"><h3>${esc(s.tenant)} / ${esc(s.session)}</h3>${
    rows.length === 0
      ? `<p class="empty">No file of this session was processed in the period.</p>`
      : table(["File", "Kind", "Format", "Verdict", "Processed"], rows)
  }</section>`;
}

function sessionLink(anchor: string, session: string): string {
  return `<a href="#${esc(anchor)}">${esc(session)}</a>`;
}

function verdict(v: string): string {
  return `<span class="verdict ${esc(v)}">${esc(v)}</span>`;
}

function keyCell(key: string): string {
  return `<td class="key">${esc(key)}</td>`;
}

function hashCell(value: string | null): string {
  return `<td class="hash">${value === null ? "–" : esc(value)}</td>`;
}

function num(value: number | null): string {
  return `<td class="n">${value === null ? "–" : value}</td>`;
}

// Safe inside HTML text and double-quoted attributes.
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
