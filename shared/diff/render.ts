/** `diff`'s outputs: Git-diff-style text, and the side-by-side HTML page. */
import type { DiffEntry, FieldChange, SessionDiff, StepRef } from "./types.js";

/** How many equal steps are shown around a change (like `diff -U3`). */
const CONTEXT = 3;

function label(ref: StepRef): string {
  return `${ref.kind} ${ref.name}${ref.id === null ? "" : ` ${ref.id}`}`;
}

function where(entry: DiffEntry): string {
  if (entry.op === "added") return `b#${entry.b.n}`;
  if (entry.op === "removed") return `a#${entry.a.n}`;
  return `a#${entry.a.n} b#${entry.b.n}`;
}

function changeText(fields: FieldChange[]): string {
  return fields.map((f) => f.field).join(", ");
}

/**
 * The diff as text: `---`/`+++` lines naming the files, the first divergence, then hunks of the
 * aligned timelines (`-` only in a, `+` only in b, a changed step as its `-`/`+` field values,
 * equal steps as context), and a summary line.
 */
export function diffText(diff: SessionDiff): string {
  const side = (s: SessionDiff["a"]): string =>
    `${s.file} (${s.format ?? "unknown"}, ${s.verdict}${s.layer_c ? ", Layer C copy" : ""}, ${s.steps} steps)`;
  const out = [`--- a/${side(diff.a)}`, `+++ b/${side(diff.b)}`];
  out.push(
    `aligned by call id (${diff.alignment.shared_ids} shared), then by kind, name and params hash (${diff.alignment.exact ? "minimal edits" : "windowed, past the edit bound"})`,
  );
  for (const h of diff.header) out.push(`header ${h.field}: ${h.a ?? "-"} → ${h.b ?? "-"}`);
  const first = diff.first_divergence;
  if (first !== null) {
    const step = first.op === "added" ? first.b : first.a;
    const what = first.op === "changed" ? `changed ${changeText(first.fields)}` : first.op;
    out.push(`first divergence: ${where(first)} ${label(step)}: ${what}`);
  }
  const entries = diff.entries;
  const near = new Uint8Array(entries.length);
  entries.forEach((e, i) => {
    if (e.op === "equal") return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(entries.length - 1, i + CONTEXT); k++) near[k] = 1;
  });
  let open = false;
  entries.forEach((e, i) => {
    if (near[i] !== 1) {
      open = false;
      return;
    }
    if (!open) out.push(`@@ ${where(e)} @@`);
    open = true;
    if (e.op === "equal") out.push(`  ${label(e.a)}`);
    else if (e.op === "removed") out.push(`- ${label(e.a)}`);
    else if (e.op === "added") out.push(`+ ${label(e.b)}`);
    else {
      out.push(`~ ${label(e.b)}  (${where(e)})`);
      for (const f of e.fields) {
        out.push(`-   ${f.field}: ${f.a ?? "(none)"}`);
        out.push(`+   ${f.field}: ${f.b ?? "(none)"}`);
      }
    }
  });
  const c = diff.counts;
  out.push(
    diff.equal
      ? `equal: ${c.equal} steps`
      : `${c.changed} changed (${c.moved} moved), ${c.added} added, ${c.removed} removed, ${c.equal} equal`,
  );
  return `${out.join("\n")}\n`;
}

const CSS = `
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; }
main { max-width: 1300px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.3rem; } .muted { color: #5b6470; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; font-size: .85rem; }
th, td { text-align: left; vertical-align: top; padding: 3px 8px; border-bottom: 1px solid #d9dee4; word-break: break-all; }
th { background: #f4f6f8; } td.op { width: 2.5em; font-weight: 600; text-align: center; }
tr.removed td.a, tr.changed td.a { background: #fde7e7; } tr.added td.b, tr.changed td.b { background: #e6f4ea; }
tr.gap td { color: #5b6470; font-style: italic; background: #f4f6f8; }
.f { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .78rem; display: block; }
`;

/** The diff as a self-contained HTML page: the two timelines side by side, changes in color. */
export function diffHtml(diff: SessionDiff): string {
  const rows: string[] = [];
  const entries = diff.entries;
  let hidden = 0;
  entries.forEach((e, i) => {
    const close = entries.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((x) => x.op !== "equal");
    if (e.op === "equal" && !close) {
      hidden++;
      return;
    }
    if (hidden > 0) rows.push(`<tr class="gap"><td colspan="3">${hidden} equal steps</td></tr>`);
    hidden = 0;
    const cell = (ref: StepRef | undefined, side: "a" | "b", fields: FieldChange[]): string =>
      ref === undefined
        ? `<td class="${side}"></td>`
        : `<td class="${side}">#${ref.n} ${esc(label(ref))}${fields
            .map(
              (f) => `<span class="f">${esc(f.field)}: ${esc((side === "a" ? f.a : f.b) ?? "(none)")}</span>`,
            )
            .join("")}</td>`;
    const fields = e.op === "changed" ? e.fields : [];
    const a = e.op === "added" ? undefined : e.a;
    const b = e.op === "removed" ? undefined : e.b;
    const op = { equal: "", changed: "~", added: "+", removed: "−" }[e.op];
    rows.push(
      `<tr class="${e.op}">${cell(a, "a", fields)}<td class="op">${op}</td>${cell(b, "b", fields)}</tr>`,
    );
  });
  if (hidden > 0) rows.push(`<tr class="gap"><td colspan="3">${hidden} equal steps</td></tr>`);
  const c = diff.counts;
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(`diff ${diff.a.file} ${diff.b.file}`)}</title><style>${CSS}</style></head><body><main>`,
    `<h1>${diff.equal ? "Equal" : "Differ"}: ${c.changed} changed, ${c.added} added, ${c.removed} removed, ${c.equal} equal</h1>`,
    ...diff.header.map((h) => `<p>${esc(h.field)}: ${esc(h.a ?? "-")} → ${esc(h.b ?? "-")}</p>`),
    `<table><thead><tr><th>a: ${esc(diff.a.file)} <span class="muted">(${esc(diff.a.format ?? "unknown")}, ${esc(diff.a.verdict)})</span></th><th class="op"></th><th>b: ${esc(diff.b.file)} <span class="muted">(${esc(diff.b.format ?? "unknown")}, ${esc(diff.b.verdict)})</span></th></tr></thead>`,
    `<tbody>${rows.join("")}</tbody></table>`,
    `</main></body></html>`,
  ].join("\n");
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
