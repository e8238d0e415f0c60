/**
 * A tenant's catalogue as one self-contained HTML page (`<tenant>/_catalogue/index.html`): inline
 * style, no script, a Content-Security-Policy that allows no request, every value escaped. Links
 * are relative to the page, so it works behind CloudFront (signed URLs cover the tenant's prefix)
 * and from a downloaded copy of the prefix alike.
 */
import type { CatalogueManifest, ManifestRow } from "./catalogue-types.js";
import { viewerPageKey } from "./keys.js";

/** The `<meta>` name the page carries its generation in (what a rebuild compares). */
export const GENERATION_META = "replay-pipeline-catalogue-generation";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` safe in HTML text and in a quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** The page-relative address of a key under the tenant's prefix (the page is one folder down). */
function relativeHref(key: string): string {
  const [, ...rest] = key.split("/");
  return `../${rest.map(encodeURIComponent).join("/")}`;
}

function row(copy: ManifestRow, options: { viewerPages: boolean; reportsBucket: string | null }): string {
  const withdrawn = copy.withdrawn_at !== null;
  const name = escapeHtml(copy.key);
  const keyCell = withdrawn
    ? `<s>${name}</s>`
    : `<a href="${escapeHtml(relativeHref(copy.key))}">${name}</a>`;
  const viewer =
    options.viewerPages && !withdrawn
      ? ` <a class="view" href="${escapeHtml(relativeHref(viewerPageKey(copy.key)))}">view</a>`
      : "";
  const attestation =
    copy.attestation === null
      ? ""
      : options.reportsBucket === null
        ? `<code>${escapeHtml(copy.attestation)}</code>`
        : `<a href="${escapeHtml(`s3://${options.reportsBucket}/${copy.attestation}`)}">${escapeHtml(copy.attestation)}</a>`;
  const cells = [
    `${keyCell}${viewer}`,
    `<span class="v ${escapeHtml(copy.verdict ?? "none")}">${escapeHtml(copy.verdict ?? "")}</span>`,
    `<code>${escapeHtml(copy.sha256 ?? "")}</code>`,
    `<code>${escapeHtml(copy.replay_hash ?? "")}</code>`,
    attestation,
    escapeHtml(copy.published_at ?? ""),
    withdrawn ? `<b>${escapeHtml(copy.withdrawn_at ?? "")}</b>` : "",
  ];
  return `<tr${withdrawn ? ' class="withdrawn"' : ""}>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
}

/**
 * The index page of `manifest`; `reportsBucket` makes each attestation key an `s3://` address
 * (the reports bucket is not served over HTTP; the tenant's role reads it).
 */
export function renderCatalogueIndex(
  manifest: CatalogueManifest,
  options: { reportsBucket: string | null },
): string {
  const published = manifest.copies.filter((c) => c.withdrawn_at === null).length;
  const rows = manifest.copies.map((c) =>
    row(c, { viewerPages: manifest.viewer_pages, reportsBucket: options.reportsBucket }),
  );
  const tenant = escapeHtml(manifest.tenant);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="${GENERATION_META}" content="${escapeHtml(manifest.generation)}">
<title>Published copies of ${tenant}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
code{font-size:12px;word-break:break-all}tr.withdrawn{color:#6e7781}
.v{font-weight:600}.passed{color:#1a7f37}.unverifiable{color:#9a6700}.failed,.invalid{color:#cf222e}
</style>
</head>
<body>
<h1>Published copies of ${tenant}</h1>
<p>${published} published, ${manifest.copies.length - published} withdrawn; generated ${escapeHtml(manifest.generated_at)}. <a href="manifest.json">manifest.json</a></p>
<table>
<thead><tr><th>Copy</th><th>Verdict</th><th>sha256 of the copy</th><th>replay_hash</th><th>Attestation</th><th>Published</th><th>Withdrawn</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>
</body>
</html>
`;
}
