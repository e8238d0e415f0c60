/**
 * Addresses of published Layer C copies behind CloudFront: the path of one copy (what an
 * invalidation names and a reader fetches) and the custom policy of a signed URL, which grants a
 * tenant its own prefix and nothing else. Pure: the signing itself is the CLI's.
 */

/**
 * The URL path of the published copy at `key` (`<tenant>/<session>/<file>`): each segment
 * percent-encoded as CloudFront expects non-ASCII and unsafe characters in a path.
 */
export function publishedUrlPath(key: string): string {
  return `/${key.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The one resource a tenant's signed URL may open: every copy under `https://<domain>/<tenant>/`.
 * The trailing `/` keeps tenant `acme` out of `acme2/`; a tenant name holds no `*` or `?` (the key
 * rules allow only A-Z a-z 0-9 . _ -), so the only wildcard is the last character.
 */
function tenantResource(domain: string, tenant: string): string {
  return `https://${domain}/${encodeURIComponent(tenant)}/*`;
}

/**
 * The custom policy (JSON text) of a signed URL: `tenantResource`, readable until `expiresAt`
 * (seconds since the epoch), as CloudFront's signed-URL policy statement is written.
 */
export function tenantPolicy(domain: string, tenant: string, expiresAt: number): string {
  return JSON.stringify({
    Statement: [
      {
        Resource: tenantResource(domain, tenant),
        Condition: { DateLessThan: { "AWS:EpochTime": expiresAt } },
      },
    ],
  });
}
