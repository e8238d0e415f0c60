/**
 * A tenant's catalogue as self-contained HTML pages: its index (`<tenant>/_catalogue/index.html`,
 * the shards with their counts) and each shard's (`shards/<xx>.html`, its copies). Inline style,
 * no script, a Content-Security-Policy that allows no request, every value escaped. Links are
 * relative to the page, so they work behind CloudFront (signed URLs cover the tenant's prefix)
 * and from a downloaded copy of the prefix alike.
 */
import type { CatalogueManifest, CatalogueShard, ManifestRow } from "./catalogue-types.js";
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

/** The address of a key under the tenant's prefix relative to a shard's page (two folders down). */
function relativeHref(key: string): string {
  const [, ...rest] = key.split("/");
  return `../../${rest.map(encodeURIComponent).join("/")}`;
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

/** A complete page of the catalogue: `title`, the generation it was built from, `body`. */
function page(title: string, generation: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="${GENERATION_META}" content="${escapeHtml(generation)}">
<title>${title}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
td.n,th.n{text-align:right}code{font-size:12px;word-break:break-all}tr.withdrawn{color:#6e7781}
.v{font-weight:600}.passed{color:#1a7f37}.unverifiable{color:#9a6700}.failed,.invalid{color:#cf222e}
</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;
}

/**
 * A shard's page: each of its copies, linked, with its viewer page when the shard's manifest says
 * they are written; `reportsBucket` makes each attestation key an `s3://` address (the reports
 * bucket is not served over HTTP; the tenant's role reads it).
 */
export function renderShardIndex(
  manifest: CatalogueShard,
  options: { reportsBucket: string | null },
): string {
  const published = manifest.copies.filter((c) => c.withdrawn_at === null).length;
  const rows = manifest.copies.map((c) =>
    row(c, { viewerPages: manifest.viewer_pages, reportsBucket: options.reportsBucket }),
  );
  return page(
    `Published copies of ${escapeHtml(manifest.tenant)}, shard ${escapeHtml(manifest.shard)}`,
    manifest.generation,
    `<p>${published} published, ${manifest.copies.length - published} withdrawn; generated ${escapeHtml(manifest.generated_at)}. <a href="${escapeHtml(`${manifest.shard}.json`)}">${escapeHtml(manifest.shard)}.json</a> · <a href="../index.html">every shard</a></p>
<table>
<thead><tr><th>Copy</th><th>Verdict</th><th>sha256 of the copy</th><th>replay_hash</th><th>Attestation</th><th>Published</th><th>Withdrawn</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>`,
  );
}

/** The tenant's index page: its shards (copies by the first two hex digits of their key's sha256), with counts. */
export function renderCatalogueIndex(manifest: CatalogueManifest): string {
  let published = 0;
  let withdrawn = 0;
  const rows = manifest.shards.map((s) => {
    published += s.published;
    withdrawn += s.withdrawn;
    return `<tr><td><a href="shards/${escapeHtml(s.shard)}.html">${escapeHtml(s.shard)}</a></td><td class="n">${s.published}</td><td class="n">${s.withdrawn}</td></tr>`;
  });
  return page(
    `Published copies of ${escapeHtml(manifest.tenant)}`,
    manifest.generation,
    `<p>${published} published, ${withdrawn} withdrawn, in ${manifest.shards.length} shard${manifest.shards.length === 1 ? "" : "s"} (a copy's shard: the first two hex digits of its key's sha256; each shard's page lists its copies${manifest.viewer_pages ? " and links their viewer pages" : ""}); generated ${escapeHtml(manifest.generated_at)}. <a href="manifest.json">manifest.json</a></p>
<table>
<thead><tr><th>Shard</th><th class="n">Published</th><th class="n">Withdrawn</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>`,
  );
}
