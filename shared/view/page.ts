/**
 * The session viewer as one self-contained HTML page: inline CSS, SVG and script, no request to
 * anywhere (a Content-Security-Policy forbids one), so it opens from a bucket, a mail or offline.
 * The header is rendered here; the timeline is embedded as JSON and drawn a page at a time by the
 * inline script, so a session of 100,000 steps keeps only one page of rows in the DOM. Every string
 * from the file reaches the page escaped (HTML) or as JSON that cannot close its script element,
 * and the script writes it with `textContent` only.
 */

import { barsChart, type Chart } from "../charts/index.js";
import type { CheckRow } from "../formats/index.js";
import { VIEWER_CSS, VIEWER_SCRIPT } from "./page-assets.js";
import type { SessionView, ViewStep } from "./types.js";

/** The page's policy: nothing may be loaded from anywhere; only the inline style and script run. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/** Rows of the timeline per page (the script's default; the reader can change it). */
const PAGE_SIZE = 200;

/** The viewer page of `view`: a complete HTML document. */
export function viewerPage(view: SessionView): string {
  const title = `${view.session_id ?? view.file} · ${view.format ?? "unknown format"}`;
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(title)}</title><style>${VIEWER_CSS}</style></head><body><main>`,
    header(view),
    charts(view),
    `<section id="timeline"><h2>Timeline <span class="muted" id="count"></span></h2>`,
    `<div class="controls" role="search">`,
    `<input id="q" type="search" placeholder="search name, id, hash (/)" aria-label="search">`,
    `<select id="tool" aria-label="tool"><option value="">every tool</option></select>`,
    `<select id="status" aria-label="status"><option value="">every status</option><option>ok</option><option>error</option><option>unknown</option></select>`,
    `<label><input id="failed" type="checkbox"> failed checks only</label>`,
    `<span class="pager"><button id="prev" type="button" aria-label="previous page">‹</button> <span id="page"></span> <button id="next" type="button" aria-label="next page">›</button></span>`,
    `</div>`,
    `<p class="muted keys">j/k or ↓/↑ move · Enter opens a step · n/p or →/← change page · / searches</p>`,
    `<div class="scroll"><table id="steps"><thead><tr><th class="n">#</th><th>kind</th><th>name</th><th>id</th><th>status</th><th class="n">ms</th><th>hashes</th></tr></thead><tbody></tbody></table></div>`,
    `<section id="detail" hidden></section>`,
    `</section>`,
    `<script type="application/json" id="data">${jsonForScript(compact(view.steps))}</script>`,
    `<script>${VIEWER_SCRIPT.replace("__PAGE_SIZE__", String(PAGE_SIZE))}</script>`,
    `</main></body></html>`,
  ].join("\n");
}

function header(view: SessionView): string {
  const t = view.checks_total;
  const facts: [string, string | null][] = [
    ["format", view.format],
    ["replay_hash", view.replay_hash],
    ["trajectory_hash", view.trajectory_hash],
    ["bytes", String(view.bytes)],
    ["session", view.session_id],
    ["producer", view.producer],
    ["checks", `${t.passed} passed, ${t.failed} failed, ${t.unverifiable} unverifiable`],
    ["errors", view.errors_total === 0 ? null : String(view.errors_total)],
  ];
  const parts = [
    `<header><h1>${esc(view.file)} <span class="verdict ${esc(view.verdict)}">${esc(view.verdict)}</span></h1>`,
    `<dl class="facts">${facts
      .filter((f): f is [string, string] => f[1] !== null)
      .map(([k, v]) => `<dt>${esc(k)}</dt><dd class="${k.endsWith("hash") ? "hash" : ""}">${esc(v)}</dd>`)
      .join("")}</dl>`,
  ];
  if (view.original !== null) {
    const o = view.original;
    parts.push(
      `<section class="layer-c"><h2>Layer C copy</h2><p>A redacted copy of <span class="hash">${esc(o.replay_hash)}</span>, whose own verdict was <span class="verdict ${esc(o.verdict)}">${esc(o.verdict)}</span> (${o.checks_total.passed} passed, ${o.checks_total.failed} failed, ${o.checks_total.unverifiable} unverifiable; taken from the copy's record, not recomputed).</p>`,
    );
    if (view.redaction !== null) {
      const r = view.redaction;
      parts.push(
        `<p>Preset <b>${esc(r.preset ?? "?")}</b>.</p>`,
        countsTable("redactions by rule", r.by_rule),
        countsTable("removed members", r.removed_fields),
        countsTable("hashes added", r.hashes_added),
      );
    }
    if ((o.failed_checks ?? []).length > 0)
      parts.push(rowsTable("the original's failed checks", o.failed_checks ?? []));
    parts.push(`</section>`);
  }
  if (view.receipt !== null) {
    const r = view.receipt;
    parts.push(
      `<section class="receipt"><h2>Receipt ${esc(r.file)} <span class="verdict ${esc(r.verdict)}">${esc(r.verdict)}</span></h2>`,
      `<p>${r.checks_total.passed} passed, ${r.checks_total.failed} failed, ${r.checks_total.unverifiable} unverifiable</p>`,
      `<p class="muted">${attached(view)} of these rows name a tool call and are shown on its step too.</p>`,
      rowsTable("receipt checks", r.checks),
      `</section>`,
    );
  }
  if (view.checks.length > 0) parts.push(rowsTable("checks of the whole file", view.checks));
  if (view.errors.length > 0)
    parts.push(
      `<h2>Errors</h2><ul class="errors">${view.errors
        .map(
          (e) =>
            `<li>${e.line === null ? "" : `line ${e.line} `}${esc(e.path)}: ${esc(e.message)} <code>${esc(e.code)}</code></li>`,
        )
        .join("")}</ul>`,
    );
  parts.push(`</header>`);
  return parts.join("\n");
}

/** How many receipt rows are on steps. */
function attached(view: SessionView): number {
  let n = 0;
  for (const s of view.steps) n += s.receipt.length;
  return n;
}

function countsTable(caption: string, counts: Record<string, number>): string {
  const rows = Object.entries(counts);
  if (rows.length === 0) return "";
  return `<table class="counts"><caption>${esc(caption)}</caption>${rows
    .map(([k, n]) => `<tr><td>${esc(k)}</td><td class="n">${n}</td></tr>`)
    .join("")}</table>`;
}

function rowsTable(caption: string, rows: CheckRow[]): string {
  if (rows.length === 0) return "";
  return `<div class="scroll"><table class="rows"><caption>${esc(caption)}</caption><thead><tr><th>check</th><th>subject</th><th>status</th><th>expected</th><th>actual</th></tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr class="${esc(r.status)}"><td>${esc(r.check)}</td><td>${esc(r.subject)}</td><td>${esc(r.status)}</td><td class="hash">${esc(r.expected ?? "–")}</td><td class="hash">${esc(r.actual ?? "–")}</td></tr>`,
    )
    .join("")}</tbody></table></div>`;
}

/** Steps per name and redactions per rule, drawn as the audit report draws its bars. */
function charts(view: SessionView): string {
  const perName = new Map<string, number>();
  for (const s of view.steps) perName.set(s.name, (perName.get(s.name) ?? 0) + 1);
  const names = [...perName].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count);
  const rules = Object.entries(view.redaction?.by_rule ?? {}).map(([name, count]) => ({ name, count }));
  const figures = [
    figure("steps by name", barsChart(names, "#0b57d0")),
    figure("redactions by rule", barsChart(rules, "#6a1b9a")),
  ].filter((f) => f !== "");
  return figures.length === 0 ? "" : `<div class="charts">${figures.join("")}</div>`;
}

function figure(caption: string, chart: Chart | null): string {
  if (chart === null) return "";
  return `<figure class="chart"><figcaption>${esc(caption)}</figcaption><div class="wide">${chart.wide}</div><div class="narrow">${chart.narrow}</div></figure>`;
}

/**
 * The steps as the script reads them: names in a table (a tool name repeats on every call), each
 * step an array `[kind, name index, id, line, status, ms, hashes, markers, text, receipt]`, each
 * hash `[field, recorded, actual (1: the same as recorded), status]`, each marker `[what, how,
 * rule]`, each receipt row `[check, subject, status, expected, actual]`.
 */
function compact(steps: ViewStep[]): unknown {
  const names: string[] = [];
  const index = new Map<string, number>();
  const rows = steps.map((s) => {
    let i = index.get(s.name);
    if (i === undefined) {
      i = names.length;
      names.push(s.name);
      index.set(s.name, i);
    }
    return [
      s.kind,
      i,
      s.id,
      s.line,
      s.status,
      s.duration_ms,
      // A recomputed hash equal to the recorded one is written as 1: most are, and each is 71 bytes.
      s.hashes.map((h) => [
        h.field,
        h.recorded,
        h.actual !== null && h.actual === h.recorded ? 1 : h.actual,
        h.status,
      ]),
      s.markers.map((m) => [m.what, m.how, m.rule]),
      s.text,
      s.receipt.map((r) => [r.check, r.subject, r.status, r.expected, r.actual]),
    ];
  });
  return { names, steps: rows };
}

/**
 * JSON that is safe inside a `<script>` element: `<`, `>` and `&` written as escapes, so no
 * string in it can close the element or open a comment; U+2028/2029 escaped for old parsers.
 */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
