/**
 * The pages of the local web UI that are not the viewer's, the diff's or the audit's own: the
 * sessions list, a session's page, the audits list and a message page. Plain HTML with one inline
 * style and no script; every value from the index or a bucket is escaped.
 */
import type { FileRecord, ReceiptCheckRecord } from "#shared/pipeline/index.js";

const VERDICTS = ["passed", "failed", "unverifiable", "invalid"] as const;

/** File records per page of the sessions list unless `size=` says otherwise. */
export const SESSIONS_PAGE_SIZE = 50;

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
main{max-width:1100px;margin:0 auto;padding:12px}
nav.top{display:flex;gap:12px;padding:8px 12px;background:#f3f4f6;border-bottom:1px solid #d0d7de}
a{color:#0550ae}h1{font-size:1.3em;overflow-wrap:anywhere}h2{font-size:1.1em}
.filters{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.filters a{padding:2px 8px;border:1px solid #d0d7de;border-radius:10px;text-decoration:none}
.filters a.on{background:#0550ae;color:#fff;border-color:#0550ae}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #eaeef2;vertical-align:top;overflow-wrap:anywhere}
.passed{color:#1a7f37}.failed,.invalid{color:#cf222e}.unverifiable{color:#9a6700}
.muted{color:#57606a}code{font-size:.9em;overflow-wrap:anywhere}`;

/** `text` with the five HTML metacharacters as entities. */
export function esc(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A path of the UI with each segment percent-encoded: `/v/` + `t/s/f`. */
function uiPath(prefix: string, key: string): string {
  return `${prefix}${key.split("/").map(encodeURIComponent).join("/")}`;
}

/** A complete page of the UI around `body`. */
export function uiPage(title: string, body: string): string {
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(title)} · replay-pipeline</title><style>${CSS}</style></head><body>`,
    `<nav class="top"><a href="/">sessions</a><a href="/audits">audits</a></nav>`,
    `<main><h1>${esc(title)}</h1>${body}</main></body></html>`,
  ].join("");
}

/** The filters of the sessions list, and its page size. */
export interface SessionsQuery {
  day: string;
  tenant: string | null;
  verdict: string | null;
  /** File records per page. */
  size: number;
}

/** Where the sessions list's pager leads. */
export interface SessionsNav {
  /** 1-based. */
  page: number;
  /** The previous page's link; null on the first. */
  prev: string | null;
  /** The next page's link; null on the last. */
  next: string | null;
}

/** The sessions list's first page with filters `q` (a size other than the default kept). */
export function sessionsHref(q: SessionsQuery): string {
  const params = new URLSearchParams({ day: q.day });
  if (q.tenant !== null) params.set("tenant", q.tenant);
  if (q.verdict !== null) params.set("verdict", q.verdict);
  if (q.size !== SESSIONS_PAGE_SIZE) params.set("size", String(q.size));
  return `/?${params.toString()}`;
}

function filterLink(label: string, q: SessionsQuery, on: boolean): string {
  return `<a href="${esc(sessionsHref(q))}"${on ? ' class="on" aria-current="true"' : ""}>${esc(label)}</a>`;
}

function shiftDay(day: string, by: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + by);
  return d.toISOString().slice(0, 10);
}

/**
 * One page of the sessions of `q.day`: one row per session of `records` (this page's file records,
 * filtered), with its files' verdicts, and the pager; `tenants` is every tenant of the day. A
 * session whose files the index returns on two pages is listed on both, each time with the files
 * of that page.
 */
export function sessionsPage(
  q: SessionsQuery,
  tenants: string[],
  records: FileRecord[],
  nav: SessionsNav,
): string {
  const sessions = new Map<string, FileRecord[]>();
  for (const r of records) {
    const id = `${r.tenant}/${r.session}`;
    sessions.set(id, [...(sessions.get(id) ?? []), r]);
  }
  const days = [
    filterLink(`← ${shiftDay(q.day, -1)}`, { ...q, day: shiftDay(q.day, -1) }, false),
    `<strong>${esc(q.day)}</strong>`,
    filterLink(`${shiftDay(q.day, 1)} →`, { ...q, day: shiftDay(q.day, 1) }, false),
  ];
  const tenantLinks = [
    filterLink("every tenant", { ...q, tenant: null }, q.tenant === null),
    ...tenants.map((t) => filterLink(t, { ...q, tenant: t }, q.tenant === t)),
  ];
  const verdictLinks = [
    filterLink("every verdict", { ...q, verdict: null }, q.verdict === null),
    ...VERDICTS.map((v) => filterLink(v, { ...q, verdict: v }, q.verdict === v)),
  ];
  const rows = [...sessions.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, files]) => {
      const verdicts = files
        .map((f) => `<span class="${esc(f.verdict)}">${esc(f.file)}: ${esc(f.verdict)}</span>`)
        .join("<br>");
      return `<tr><td><a href="${esc(uiPath("/s/", id))}">${esc(id)}</a></td><td>${files.length}</td><td>${verdicts}</td></tr>`;
    });
  const table =
    rows.length === 0
      ? `<p class="muted">${nav.page === 1 ? "No session" : "No more sessions"} on ${esc(q.day)} with these filters.</p>`
      : `<div class="scroll"><table id="sessions"><thead><tr><th>session</th><th>files</th><th>verdicts</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
  const link = (href: string | null, label: string, rel: string) =>
    href === null
      ? `<span class="muted">${label}</span>`
      : `<a rel="${rel}" href="${esc(href)}">${label}</a>`;
  const pager = `<nav class="filters" id="pager" aria-label="pages">${link(nav.prev, "← previous", "prev")}<span>page ${nav.page} · ${records.length} file${records.length === 1 ? "" : "s"} (up to ${q.size} a page)</span>${link(nav.next, "next →", "next")}</nav>`;
  return uiPage(
    "Sessions",
    [
      `<div class="filters" aria-label="day">${days.join("")}</div>`,
      `<div class="filters" aria-label="tenant">${tenantLinks.join("")}</div>`,
      `<div class="filters" aria-label="verdict">${verdictLinks.join("")}</div>`,
      table,
      pager,
    ].join(""),
  );
}

/** A session's page: its files, their verdicts and copies, and its receipt checks. */
export function sessionPage(
  tenant: string,
  session: string,
  files: FileRecord[],
  checks: ReceiptCheckRecord[],
): string {
  const rows = files.map((f) => {
    // A file with no published copy is shown as its outline (hashes, names), never its content.
    const view =
      f.kind !== "replay"
        ? ""
        : `<a href="${esc(uiPath("/v/", f.ref.key))}">${f.layer_c_key === null ? "outline (no published copy)" : "view copy"}</a>`;
    const error = f.first_error === null ? "" : ` <code>${esc(f.first_error.code)}</code>`;
    const totals = `${f.checks_total.passed} passed, ${f.checks_total.failed} failed, ${f.checks_total.unverifiable} unverifiable`;
    return `<tr><td>${esc(f.file)}</td><td>${esc(f.kind)}</td><td>${esc(f.format ?? "—")}</td><td class="${esc(f.verdict)}">${esc(f.verdict)}${error}</td><td>${esc(totals)}</td><td>${view}</td></tr>`;
  });
  const checkRows = checks.map(
    (c) =>
      `<tr><td>${esc(c.replay.key.split("/").at(-1) ?? "")}</td><td>${esc(c.receipt.key.split("/").at(-1) ?? "")}</td><td class="${esc(c.verdict)}">${esc(c.verdict)}</td><td>${c.failed.map((r) => `<code>${esc(r.check)}</code>`).join(" ")}</td><td>${esc(c.withdrawn ?? "")}</td></tr>`,
  );
  const diffForm =
    files.length < 2
      ? ""
      : `<p class="muted">Compare two files: <a href="/d?a=${encodeURIComponent(files[0]?.ref.key ?? "")}&amp;b=${encodeURIComponent(files[1]?.ref.key ?? "")}">diff the first two</a>, or /d?a=&lt;key&gt;&amp;b=&lt;key&gt;.</p>`;
  return uiPage(
    `${tenant}/${session}`,
    [
      `<h2>Files</h2><div class="scroll"><table id="files"><thead><tr><th>file</th><th>kind</th><th>format</th><th>verdict</th><th>checks</th><th>viewer</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`,
      diffForm,
      `<h2>Receipt checks</h2>`,
      checkRows.length === 0
        ? `<p class="muted">No receipt check recorded.</p>`
        : `<div class="scroll"><table id="checks"><thead><tr><th>replay</th><th>receipt</th><th>verdict</th><th>failed checks</th><th>withdrawn</th></tr></thead><tbody>${checkRows.join("")}</tbody></table></div>`,
    ].join(""),
  );
}

/** The audit reports of the reports bucket (their HTML renderings), newest first. */
export function auditsPage(keys: string[]): string {
  const items = [...keys]
    .sort()
    .reverse()
    .map((key) => `<li><a href="${esc(uiPath("/", key))}">${esc(key)}</a></li>`);
  return uiPage(
    "Audit reports",
    items.length === 0
      ? `<p class="muted">No audit report yet.</p>`
      : `<ul id="audits">${items.join("")}</ul>`,
  );
}
