/**
 * The catalogue of what is published: per tenant, a manifest of its Layer C copies (key, sha256 of
 * the copy's bytes, the original's `replay_hash` and verdict, the attestation's key, published and
 * withdrawn times) and an HTML index of it, kept in the published bucket under
 * `<tenant>/_catalogue/` (inside the tenant's prefix, so its role and its signed URLs read it).
 *
 * Correct under concurrent publishes and withdrawals without locks or conditional writes (s3rver,
 * the local stack's S3, has no `If-Match` on PUT):
 *
 * - **One entry object per copy**, `<tenant>/_catalogue/entries/<sha256 of copy key>.json`, written
 *   by the publish or withdrawal itself. No two changes of different copies write the same object,
 *   so none can lose another's entry.
 * - **The manifest is derived**: `manifest.json` and `index.html` are rebuilt from a listing of the
 *   entries (S3 listings are strongly consistent). Every row of the manifest carries the ETag of
 *   the entry it was read from.
 * - **Rebuild until stable**: after each change its writer lists the entries and reads the
 *   manifest; when the listing's (key, ETag) pairs are the manifest's, it stops; otherwise it
 *   writes a new manifest and looks again. Every write of the manifest is thus followed by a look
 *   by its own writer, so the write that ends up stored (the last) was checked against a listing
 *   made after it: a stale rebuild that lands last sees its staleness and writes again, and a
 *   change made after that look has a rebuild of its own. Unchanged entries are reused from the
 *   manifest by ETag, so a round reads only what changed.
 *
 * Copy keys are `<tenant>/<session>/<file>` with a file name that always holds `.layer-c`
 * (`layerCName`), so no copy is ever `_catalogue/manifest.json`, `_catalogue/index.html` or under
 * `_catalogue/entries/`, even in a session named `_catalogue`.
 */
import { createHash } from "node:crypto";
import { TransientError } from "../errors.js";
import { renderCatalogueIndex } from "./catalogue-html.js";
import {
  type CatalogueEntry,
  type CatalogueManifest,
  type CopyFacts,
  MANIFEST_SCHEMA,
  type ManifestRow,
} from "./catalogue-types.js";

/** The folder of a tenant's catalogue, inside its prefix of the published bucket. */
const CATALOGUE = "_catalogue";

/** How a catalogue is rendered and when it is given up on. */
export interface CatalogueOptions {
  /** Link each copy's viewer page in the index (the pages themselves are written elsewhere). */
  viewerPages?: boolean;
  /** The reports bucket, for the attestations' `s3://` addresses in the index. */
  reportsBucket?: string;
  /** Rebuild rounds before giving up with a transient error (default 30). */
  maxRounds?: number;
  /**
   * Write the entry only: the caller rebuilds the tenant's catalogue itself (`rebuildCatalogue`),
   * once for many changes, before it reports them done.
   */
  deferRebuild?: boolean;
  now?: () => Date;
}

/** The storage a catalogue is kept in: the published bucket, a folder, memory. */
export interface CatalogueStore {
  /** Writes an entry object (JSON text). */
  putEntry(key: string, body: string): Promise<void>;
  /**
   * An entry object and its ETag; null when there is none. Given the ETag a listing showed, a store
   * may answer from what it wrote or read before at that ETag (an object's bytes at one ETag never change).
   */
  getEntry(key: string, etag?: string): Promise<{ body: string; etag: string } | null>;
  /** Every entry object under `prefix`, all pages, with its ETag (a consistent listing). */
  listEntries(prefix: string): Promise<{ key: string; etag: string }[]>;
  /**
   * The manifest's text and the generation the index was written with (null where either is
   * missing). Both are read: two rebuilds can each write one of the pair last.
   */
  getCatalogue(tenant: string): Promise<{ manifest: string | null; indexGeneration: string | null }>;
  /** Writes the index (HTML) and the manifest (JSON), both marked with `generation`. */
  putCatalogue(tenant: string, files: { manifest: string; index: string; generation: string }): Promise<void>;
}

/** The tenant of a copy key (`<tenant>/<session>/<file>`). */
export function tenantOfCopy(copyKey: string): string {
  return copyKey.slice(0, Math.max(0, copyKey.indexOf("/")));
}

/** Where a tenant's entries are. */
function entriesPrefix(tenant: string): string {
  return `${tenant}/${CATALOGUE}/entries/`;
}

/** The entry object of a copy: named by its key's sha256, so any key makes one flat, safe name. */
export function catalogueEntryKey(copyKey: string): string {
  const digest = createHash("sha256").update(copyKey, "utf8").digest("hex");
  return `${entriesPrefix(tenantOfCopy(copyKey))}${digest}.json`;
}

/** A tenant's `manifest.json` in the published bucket. */
export function catalogueManifestKey(tenant: string): string {
  return `${tenant}/${CATALOGUE}/manifest.json`;
}

/** A tenant's `index.html` in the published bucket. */
export function catalogueIndexKey(tenant: string): string {
  return `${tenant}/${CATALOGUE}/index.html`;
}

/**
 * `body` passed through, its sha256 taken on the way: `digest()` is the hex digest once the stream
 * was read to its end.
 */
export function sha256Tap(body: AsyncIterable<Uint8Array>): {
  body: AsyncIterable<Uint8Array>;
  digest: () => string;
} {
  const hash = createHash("sha256");
  let digest: string | null = null;
  async function* tapped(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      hash.update(chunk);
      yield chunk;
    }
    digest = hash.digest("hex");
  }
  return {
    body: tapped(),
    digest: () => {
      if (digest === null) throw new Error("sha256Tap: the stream was not read to its end");
      return digest;
    },
  };
}

/**
 * Whether the catalogue lists `copyKey` as published (not withdrawn) with these bytes (`sha256`)
 * and `facts`: a copy to keep rather than publish again.
 */
export async function cataloguedSame(
  store: Pick<CatalogueStore, "getEntry">,
  copyKey: string,
  sha256: string,
  facts: CopyFacts,
): Promise<boolean> {
  const found = await store.getEntry(catalogueEntryKey(copyKey));
  if (found === null) return false;
  const entry = JSON.parse(found.body) as CatalogueEntry;
  return (
    entry.withdrawn_at === null &&
    entry.sha256 === sha256 &&
    entry.replay_hash === facts.replay_hash &&
    entry.verdict === facts.verdict &&
    entry.attestation === facts.attestation
  );
}

/** Records a copy just published (`sha256` of its bytes) and rebuilds its tenant's catalogue. */
export async function cataloguePublished(
  store: CatalogueStore,
  copyKey: string,
  sha256: string,
  facts: CopyFacts,
  options: CatalogueOptions = {},
): Promise<void> {
  const entry: CatalogueEntry = {
    key: copyKey,
    sha256,
    replay_hash: facts.replay_hash,
    verdict: facts.verdict,
    attestation: facts.attestation,
    published_at: now(options),
    withdrawn_at: null,
  };
  await store.putEntry(catalogueEntryKey(copyKey), `${JSON.stringify(entry)}\n`);
  if (options.deferRebuild !== true) await rebuildCatalogue(store, tenantOfCopy(copyKey), options);
}

/**
 * Records a copy just withdrawn (its entry kept, with the time it went) and rebuilds its tenant's
 * catalogue. A withdrawal repeated (a retried message) keeps the first time.
 */
export async function catalogueWithdrawn(
  store: CatalogueStore,
  copyKey: string,
  options: CatalogueOptions = {},
): Promise<void> {
  const entryKey = catalogueEntryKey(copyKey);
  const found = await store.getEntry(entryKey);
  const before: CatalogueEntry =
    found === null
      ? {
          key: copyKey,
          sha256: null,
          replay_hash: null,
          verdict: null,
          attestation: null,
          published_at: null,
          withdrawn_at: null,
        }
      : (JSON.parse(found.body) as CatalogueEntry);
  if (before.withdrawn_at === null) {
    const entry: CatalogueEntry = { ...before, withdrawn_at: now(options) };
    await store.putEntry(entryKey, `${JSON.stringify(entry)}\n`);
  }
  if (options.deferRebuild !== true) await rebuildCatalogue(store, tenantOfCopy(copyKey), options);
}

function now(options: CatalogueOptions): string {
  return (options.now?.() ?? new Date()).toISOString();
}

/** The manifest's text as stored, parsed; null when absent, of another schema or unreadable. */
function parseManifest(text: string | null): CatalogueManifest | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<CatalogueManifest>;
    return value.schema === MANIFEST_SCHEMA && Array.isArray(value.copies)
      ? (value as CatalogueManifest)
      : null;
  } catch {
    return null;
  }
}

/** The generation of a listing: which entries, at which ETags, rendered how. */
function generationOf(listed: readonly { key: string; etag: string }[], viewerPages: boolean): string {
  const hash = createHash("sha256").update(viewerPages ? "viewer\n" : "plain\n");
  for (const { key, etag } of [...listed].sort((a, b) => (a.key < b.key ? -1 : 1)))
    hash.update(`${key} ${etag}\n`);
  return hash.digest("hex");
}

/**
 * Rebuilds `tenant`'s manifest and index until they hold exactly the entries listed after the last
 * write (the module comment says why that is enough). Returns the rounds it took. Past
 * `maxRounds` of changes by others, a transient error: the job is retried and rebuilds again.
 */
export async function rebuildCatalogue(
  store: CatalogueStore,
  tenant: string,
  options: CatalogueOptions = {},
): Promise<number> {
  const viewerPages = options.viewerPages === true;
  const maxRounds = options.maxRounds ?? 30;
  for (let round = 1; round <= maxRounds; round++) {
    const listed = await store.listEntries(entriesPrefix(tenant));
    const generation = generationOf(listed, viewerPages);
    const current = await store.getCatalogue(tenant);
    const stored = parseManifest(current.manifest);
    if (stored?.generation === generation && current.indexGeneration === generation) return round;
    const known = new Map((stored?.copies ?? []).map((row) => [row.entry_etag, row]));
    const copies: ManifestRow[] = [];
    for (const { key, etag } of listed) {
      const reused = known.get(etag);
      if (reused !== undefined && catalogueEntryKey(reused.key) === key) {
        copies.push(reused);
        continue;
      }
      const found = await store.getEntry(key, etag);
      // Entries are never deleted; one missing here was listed by a store that lost it: skip it.
      if (found === null) continue;
      copies.push({ ...(JSON.parse(found.body) as CatalogueEntry), entry_etag: found.etag });
    }
    copies.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const manifest: CatalogueManifest = {
      schema: MANIFEST_SCHEMA,
      tenant,
      generated_at: now(options),
      viewer_pages: viewerPages,
      generation,
      copies,
    };
    await store.putCatalogue(tenant, {
      manifest: `${JSON.stringify(manifest, null, 1)}\n`,
      index: renderCatalogueIndex(manifest, { reportsBucket: options.reportsBucket ?? null }),
      generation,
    });
    // Writers that keep overtaking each other back off (random, growing, at most a second) so
    // that one of them finds the catalogue settled rather than all rebuilding in step.
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 10 * 2 ** round)));
  }
  throw new TransientError(
    "catalogue.unsettled",
    `the catalogue of ${tenant} kept changing over ${maxRounds} rebuilds; retried later`,
  );
}
