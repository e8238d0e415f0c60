/**
 * The viewer page's inline style and script, kept apart from the page builder so each reads as
 * what it is. The script is plain ES5-level JavaScript with no dependency: it reads the embedded
 * JSON, filters it, and draws one page of rows with `textContent` (never as markup).
 */

/** The page's CSS (the audit report's palette and type). */
export const VIEWER_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5b6470; --line: #d9dee4; --soft: #f4f6f8;
  --passed: #2e7d32; --unverifiable: #9a6700; --failed: #c62828; --invalid: #6a1b9a; --sel: #e8f0fe; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.4rem; margin: 0 0 8px; word-break: break-all; }
h2 { font-size: 1.1rem; margin: 24px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); font-weight: normal; font-size: .9rem; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; }
.hash, td.hash, dd.hash { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .8rem; word-break: break-all; }
.verdict { font-weight: 600; } .verdict.passed { color: var(--passed); } .verdict.failed { color: var(--failed); }
.verdict.invalid { color: var(--invalid); } .verdict.unverifiable { color: var(--unverifiable); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; margin: 4px 0 12px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
table.counts { width: auto; min-width: 40%; }
tr.failed td { color: var(--failed); }
#steps tbody tr { cursor: pointer; } #steps tbody tr.sel { background: var(--sel); outline: 2px solid #1f6feb; }
#steps td.id { word-break: break-all; max-width: 22ch; }
.badge { display: inline-block; padding: 0 5px; margin: 0 3px 2px 0; border-radius: 4px; background: var(--soft); font-size: .78rem; }
.badge.failed { background: #fde7e7; color: var(--failed); } .badge.passed { color: var(--passed); }
.badge.unverifiable { color: var(--unverifiable); } .badge.marker { background: #efe6f7; color: var(--invalid); }
.st-error { color: var(--failed); font-weight: 600; } .st-ok { color: var(--passed); }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.controls input[type=search] { flex: 1 1 220px; padding: 6px 8px; font: inherit; }
.controls select, .controls button { font: inherit; padding: 4px 8px; }
.keys { margin: 0 0 4px; font-size: .8rem; }
#detail { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
.charts { display: grid; grid-template-columns: 1fr; gap: 12px; }
figure.chart { margin: 0; padding: 8px; border: 1px solid var(--line); border-radius: 8px; }
figure.chart figcaption { font-weight: 600; }
figure.chart svg { max-width: 100%; height: auto; }
.narrow { display: none; }
@media (max-width: 600px) { .wide { display: none; } .narrow { display: block; } main { padding: 10px; } }
@media (min-width: 900px) { .charts { grid-template-columns: 1fr 1fr; } }
`;

/** The timeline's script; `__PAGE_SIZE__` is replaced with the rows per page. */
export const VIEWER_SCRIPT = `(function () {
"use strict";
var data = JSON.parse(document.getElementById("data").textContent);
var names = data.names, all = data.steps, PAGE = __PAGE_SIZE__;
for (var a = 0; a < all.length; a++) for (var b = 0; b < all[a][6].length; b++) if (all[a][6][b][2] === 1) all[a][6][b][2] = all[a][6][b][1];
function el(id) { return document.getElementById(id); }
var q = el("q"), tool = el("tool"), status = el("status"), failed = el("failed");
var tbody = document.querySelector("#steps tbody"), detail = el("detail");
var shown = [], page = 0, cursor = 0, timer = 0;
names.slice().sort().forEach(function (n) {
  var o = document.createElement("option"); o.value = n; o.textContent = n; tool.appendChild(o);
});
function cell(tr, text, cls) {
  var td = document.createElement("td"); td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls; tr.appendChild(td); return td;
}
function badge(parent, text, cls) {
  var b = document.createElement("span"); b.className = "badge " + (cls || ""); b.textContent = text; parent.appendChild(b);
}
function hasFailed(s) {
  for (var i = 0; i < s[6].length; i++) if (s[6][i][3] === "failed") return true;
  return receiptFailed(s) > 0;
}
function receiptFailed(s) { var n = 0; for (var i = 0; i < s[9].length; i++) if (s[9][i][2] === "failed") n++; return n; }
function matches(s, text) {
  if (names[s[1]].toLowerCase().indexOf(text) >= 0) return true;
  if (s[2] != null && String(s[2]).toLowerCase().indexOf(text) >= 0) return true;
  if (s[8] != null && s[8].toLowerCase().indexOf(text) >= 0) return true;
  for (var i = 0; i < s[6].length; i++) {
    var h = s[6][i];
    if ((h[1] && h[1].indexOf(text) >= 0) || (h[2] && h[2].indexOf(text) >= 0)) return true;
  }
  return false;
}
function filter() {
  var text = q.value.trim().toLowerCase(), t = tool.value, st = status.value, f = failed.checked;
  shown = [];
  for (var i = 0; i < all.length; i++) {
    var s = all[i];
    if (t && names[s[1]] !== t) continue;
    if (st && s[4] !== st) continue;
    if (f && !hasFailed(s)) continue;
    if (text && !matches(s, text)) continue;
    shown.push(i);
  }
  page = 0; cursor = 0; render(); select(0, false);
}
function pages() { return Math.max(1, Math.ceil(shown.length / PAGE)); }
function render() {
  tbody.textContent = "";
  var start = page * PAGE, end = Math.min(shown.length, start + PAGE), frag = document.createDocumentFragment();
  for (var k = start; k < end; k++) frag.appendChild(row(all[shown[k]], k));
  tbody.appendChild(frag);
  el("page").textContent = "page " + (page + 1) + " of " + pages();
  el("count").textContent = "(" + shown.length + " of " + all.length + " steps)";
}
function row(s, k) {
  var tr = document.createElement("tr"); tr.setAttribute("data-k", String(k));
  cell(tr, shown[k] + 1, "n");
  cell(tr, s[0]); cell(tr, names[s[1]]); cell(tr, s[2], "id");
  cell(tr, s[4], "st-" + s[4]); cell(tr, s[5], "n");
  var td = cell(tr, "");
  for (var i = 0; i < s[6].length; i++) {
    var h = s[6][i];
    if (h[1] == null && h[2] == null) continue;
    badge(td, h[0] + (h[3] === "failed" ? " ✗" : h[3] === "passed" ? " ✓" : ""), h[3] || "");
  }
  for (var j = 0; j < s[7].length; j++) badge(td, s[7][j][0] + " " + s[7][j][1], "marker");
  var rf = receiptFailed(s);
  if (rf > 0) badge(td, "receipt ✗" + (rf > 1 ? " " + rf : ""), "failed receipt");
  else if (s[9].length > 0) badge(td, "receipt ✓", "passed receipt");
  tr.addEventListener("click", function () { select(k, true); });
  return tr;
}
function select(k, open) {
  if (shown.length === 0) { detail.hidden = true; return; }
  cursor = Math.max(0, Math.min(shown.length - 1, k));
  var p = Math.floor(cursor / PAGE);
  if (p !== page) { page = p; render(); }
  var old = tbody.querySelector("tr.sel"); if (old) old.className = "";
  var tr = tbody.querySelector('tr[data-k="' + cursor + '"]');
  if (tr) { tr.className = "sel"; if (tr.scrollIntoView) tr.scrollIntoView({ block: "nearest" }); }
  if (open || !detail.hidden) show(all[shown[cursor]], shown[cursor]);
}
function show(s, i) {
  detail.textContent = ""; detail.hidden = false;
  var h = document.createElement("h3"); h.textContent = "step " + (i + 1) + ": " + names[s[1]] + (s[2] == null ? "" : " (" + s[2] + ")");
  detail.appendChild(h);
  var p = document.createElement("p");
  p.textContent = s[0] + " · status " + s[4] + (s[5] == null ? "" : " · " + s[5] + " ms") + (s[3] == null ? "" : " · line " + s[3]);
  detail.appendChild(p);
  if (s[8] != null) { var t = document.createElement("p"); t.textContent = s[8]; detail.appendChild(t); }
  var table = document.createElement("table"), head = document.createElement("tr");
  ["hash", "recorded (expected)", "recomputed (actual)", "check"].forEach(function (x) {
    var th = document.createElement("th"); th.textContent = x; head.appendChild(th);
  });
  table.appendChild(head);
  s[6].forEach(function (x) {
    var tr = document.createElement("tr"); if (x[3] === "failed") tr.className = "failed";
    cell(tr, x[0]); cell(tr, x[1] == null ? "–" : x[1], "hash"); cell(tr, x[2] == null ? "–" : x[2], "hash");
    cell(tr, x[3] == null ? "not listed" : x[3]); table.appendChild(tr);
  });
  detail.appendChild(table);
  if (s[9].length > 0) {
    var rt = document.createElement("table"), rh = document.createElement("tr");
    ["receipt check", "subject", "status", "expected (receipt)", "actual (replay)"].forEach(function (x) {
      var th = document.createElement("th"); th.textContent = x; rh.appendChild(th);
    });
    rt.className = "receipt"; rt.appendChild(rh);
    s[9].forEach(function (r) {
      var tr = document.createElement("tr"); if (r[2] === "failed") tr.className = "failed";
      cell(tr, r[0]); cell(tr, r[1]); cell(tr, r[2]);
      cell(tr, r[3] == null ? "–" : r[3], "hash"); cell(tr, r[4] == null ? "–" : r[4], "hash");
      rt.appendChild(tr);
    });
    detail.appendChild(rt);
  }
  if (s[7].length > 0) {
    var ul = document.createElement("ul");
    s[7].forEach(function (m) { var li = document.createElement("li"); li.textContent = m[0] + ": " + m[1] + " by " + m[2]; ul.appendChild(li); });
    var cap = document.createElement("p"); cap.textContent = "redaction markers"; detail.appendChild(cap); detail.appendChild(ul);
  }
}
function later() { clearTimeout(timer); timer = setTimeout(filter, 150); }
q.addEventListener("input", later);
tool.addEventListener("change", filter); status.addEventListener("change", filter); failed.addEventListener("change", filter);
el("prev").addEventListener("click", function () { if (page > 0) select((page - 1) * PAGE, false); });
el("next").addEventListener("click", function () { if (page + 1 < pages()) select((page + 1) * PAGE, false); });
document.addEventListener("keydown", function (e) {
  var tag = e.target && e.target.tagName;
  if (tag === "INPUT" || tag === "SELECT") { if (e.key === "Escape") e.target.blur(); return; }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var k = e.key;
  if (k === "j" || k === "ArrowDown") select(cursor + 1, false);
  else if (k === "k" || k === "ArrowUp") select(cursor - 1, false);
  else if (k === "n" || k === "ArrowRight") { if (page + 1 < pages()) select((page + 1) * PAGE, false); }
  else if (k === "p" || k === "ArrowLeft") { if (page > 0) select((page - 1) * PAGE, false); }
  else if (k === "Enter") select(cursor, true);
  else if (k === "Escape") detail.hidden = true;
  else if (k === "/") q.focus();
  else return;
  e.preventDefault();
});
filter();
})();
`;
