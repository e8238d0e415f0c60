/**
 * The catalogue of what is published: per tenant, manifests of its Layer C copies (key, sha256 of
 * the copy's bytes, the original's `replay_hash` and verdict, the attestation's key, published and
 * withdrawn times) and HTML indexes of them, kept in the published bucket under
 * `<tenant>/_catalogue/` (inside the tenant's prefix, so its role and its signed URLs read it).
 *
 * Sharded, so that one change rewrites a bounded part: a copy's entry, its shard's manifest and
 * index (`shards/<xx>.json`, `.html`: the copies whose key's sha256 begins with the two hex digits
 * `xx`, about 1/256 of them), and the tenant's `manifest.json` and `index.html`, which list the
 * shards (at most 256 rows, with their counts), not the copies.
 *
 * Correct under concurrent publishes and withdrawals without locks or conditional writes (s3rver,
 * the local stack's S3, has no `If-Match` on PUT):
 *
 * - **One entry object per copy**, `<tenant>/_catalogue/entries/<sha256 of copy key>.json`, written
 *   by the publish or withdrawal itself. No two changes of different copies write the same object,
 *   so none can lose another's entry.
 * - **Each level is derived** from a listing (S3 listings are strongly consistent): a shard's
 *   manifest and index from its entries (listed by the prefix `entries/<xx>`), the tenant's from
 *   the shard manifests (`shards/`). Every row carries the ETag of the object it was read from.
 * - **Rebuild until stable**, level by level: after each change its writer settles the copy's
 *   shard, then the tenant's manifest. To settle one, it lists its sources and reads the manifest;
 *   when the listing's (key, ETag) pairs are the manifest's, it stops; otherwise it writes a new
 *   manifest and looks again. Every write is thus followed by a look by its own writer, so the
 *   write that ends up stored (the last) was checked against a listing made after it: a stale
 *   rebuild that lands last sees its staleness and writes again, and a change made after that
 *   look has a rebuild of its own. A shard's final write is followed by its writer's settling of
 *   the tenant's manifest, so that one lists it too. Unchanged rows are reused by ETag, so a round
 *   reads only what changed.
 *
 * Copy keys are `<tenant>/<session>/<file>` with a file name that always holds `.layer-c`
 * (`layerCName`), so no copy is ever `_catalogue/manifest.json`, `_catalogue/index.html` or under
 * `_catalogue/entries/` or `_catalogue/shards/`, even in a session named `_catalogue`.
 */
import { createHash } from "node:crypto";
import { TransientError } from "../errors.js";
import { renderCatalogueIndex, renderShardIndex } from "./catalogue-html.js";
import {
  type CatalogueEntry,
  type CatalogueManifest,
  type CatalogueShard,
  type CopyFacts,
  MANIFEST_SCHEMA,
  type ManifestRow,
  SHARD_SCHEMA,
  type ShardRow,
} from "./catalogue-types.js";

/** The folder of a tenant's catalogue, inside its prefix of the published bucket. */
const CATALOGUE = "_catalogue";

/** How a catalogue is rendered and when it is given up on. */
export interface CatalogueOptions {
  /** Link each copy's viewer page in the index (the publisher writes the pages: viewer-pages.ts). */
  viewerPages?: boolean;
  /** The reports bucket, for the attestations' `s3://` addresses in the index. */
  reportsBucket?: string;
  /** Rebuild rounds before giving up with a transient error (default 30). */
  maxRounds?: number;
  /**
   * Write the entry only: the caller settles the touched shards and the tenant itself
   * (`settleCatalogue`), once for many changes, before it reports them done.
   */
  deferRebuild?: boolean;
  now?: () => Date;
}

/** The storage a catalogue is kept in: the published bucket, a folder, memory. */
export interface CatalogueStore {
  /** Writes an entry object (JSON text). */
  putEntry(key: string, body: string): Promise<void>;
  /**
   * An object's text (an entry, a shard's manifest) and its ETag; null when there is none. Given the
   * ETag a listing showed, a store may answer from what it wrote or read before at that ETag (an
   * object's bytes at one ETag never change).
   */
  getEntry(key: string, etag?: string): Promise<{ body: string; etag: string } | null>;
  /**
   * Every object whose key starts with `prefix` (entries, shard manifests), all pages, with its
   * ETag (a consistent listing); `prefix` may end mid-name (`entries/3f`).
   */
  listEntries(prefix: string): Promise<{ key: string; etag: string }[]>;
  /**
   * A manifest's text and the generation its index was written with (null where either is
   * missing). Both are read: two rebuilds can each write one of the pair last.
   */
  getCatalogue(keys: CatalogueKeys): Promise<{ manifest: string | null; indexGeneration: string | null }>;
  /** Writes an index (HTML) and its manifest (JSON), both marked with `generation`. */
  putCatalogue(
    keys: CatalogueKeys,
    files: { manifest: string; index: string; generation: string },
  ): Promise<void>;
}

/** Where one manifest and its index are: the tenant's, or one shard's. */
export interface CatalogueKeys {
  manifest: string;
  index: string;
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

/** The shard of a copy: the first two hex digits of its key's sha256 (its entry's name). */
export function catalogueShardOf(copyKey: string): string {
  return createHash("sha256").update(copyKey, "utf8").digest("hex").slice(0, 2);
}

/** Where a tenant's shard manifests and indexes are. */
function shardsPrefix(tenant: string): string {
  return `${tenant}/${CATALOGUE}/shards/`;
}

/** A shard's manifest and index. */
export function catalogueShardKeys(tenant: string, shard: string): CatalogueKeys {
  return { manifest: `${shardsPrefix(tenant)}${shard}.json`, index: `${shardsPrefix(tenant)}${shard}.html` };
}

function tenantKeys(tenant: string): CatalogueKeys {
  return { manifest: catalogueManifestKey(tenant), index: catalogueIndexKey(tenant) };
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
  if (options.deferRebuild !== true) await settleChange(store, copyKey, options);
}

/** Settles the shard of `copyKey`, then its tenant's manifest (the module comment says why). */
async function settleChange(
  store: CatalogueStore,
  copyKey: string,
  options: CatalogueOptions,
): Promise<void> {
  await settleCatalogue(store, tenantOfCopy(copyKey), new Set([copyKey]), options);
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
  if (options.deferRebuild !== true) await settleChange(store, copyKey, options);
}

function now(options: CatalogueOptions): string {
  return (options.now?.() ?? new Date()).toISOString();
}

/** JSON text of `schema` as stored, parsed; null when absent, of another schema or unreadable. */
function parseOf<T>(text: string | null, schema: string): T | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { schema?: unknown };
    return value.schema === schema ? (value as T) : null;
  } catch {
    return null;
  }
}

/** The generation of a listing: which sources, at which ETags, rendered how. */
function generationOf(listed: readonly { key: string; etag: string }[], viewerPages: boolean): string {
  const hash = createHash("sha256").update(viewerPages ? "viewer\n" : "plain\n");
  for (const { key, etag } of [...listed].sort((a, b) => (a.key < b.key ? -1 : 1)))
    hash.update(`${key} ${etag}\n`);
  return hash.digest("hex");
}

/**
 * One level of the catalogue: a manifest and index derived from a listing of source objects
 * (a shard's entries, or the tenant's shard manifests), one row per source.
 */
interface Level<Row> {
  /** For the error when it never settles. */
  name: string;
  keys: CatalogueKeys;
  list(): Promise<{ key: string; etag: string }[]>;
  /** The rows of the manifest as stored, and its generation; null when there is none of this schema. */
  stored(text: string | null): { generation: string; rows: Row[] } | null;
  /** The source key and ETag a row was read from (`<key> <etag>`), for reuse. */
  sourceOf(row: Row): string;
  /** A source's row; null when it cannot be read as one (skipped). */
  read(key: string, body: string, etag: string): Row | null;
  /** The manifest's and the index's text for `rows` (sorted). */
  files(rows: Row[], generation: string): { manifest: string; index: string };
}

/** A shard of `tenant`: its entries → `shards/<xx>.json` and `.html`. */
function shardLevel(
  catalogue: CatalogueStore,
  tenant: string,
  shard: string,
  options: CatalogueOptions,
): Level<ManifestRow> {
  const viewerPages = options.viewerPages === true;
  return {
    name: `the catalogue of ${tenant}, shard ${shard},`,
    keys: catalogueShardKeys(tenant, shard),
    list: () => catalogue.listEntries(`${entriesPrefix(tenant)}${shard}`),
    stored: (text) => {
      const value = parseOf<CatalogueShard>(text, SHARD_SCHEMA);
      return value === null || !Array.isArray(value.copies)
        ? null
        : { generation: value.generation, rows: value.copies };
    },
    sourceOf: (row) => `${catalogueEntryKey(row.key)} ${row.entry_etag}`,
    read: (_key, body, etag) => ({ ...(JSON.parse(body) as CatalogueEntry), entry_etag: etag }),
    files: (rows, generation) => {
      const copies = rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const manifest: CatalogueShard = {
        schema: SHARD_SCHEMA,
        tenant,
        shard,
        generated_at: now(options),
        viewer_pages: viewerPages,
        generation,
        copies,
      };
      return {
        manifest: `${JSON.stringify(manifest)}\n`,
        index: renderShardIndex(manifest, { reportsBucket: options.reportsBucket ?? null }),
      };
    },
  };
}

/** `tenant`'s own manifest and index: its shard manifests → `manifest.json` and `index.html`. */
function tenantLevel(catalogue: CatalogueStore, tenant: string, options: CatalogueOptions): Level<ShardRow> {
  const viewerPages = options.viewerPages === true;
  const prefix = shardsPrefix(tenant);
  return {
    name: `the catalogue of ${tenant}`,
    keys: tenantKeys(tenant),
    list: async () =>
      (await catalogue.listEntries(prefix)).filter((o) =>
        /^[0-9a-f]{2}\.json$/.test(o.key.slice(prefix.length)),
      ),
    stored: (text) => {
      const value = parseOf<CatalogueManifest>(text, MANIFEST_SCHEMA);
      return value === null || !Array.isArray(value.shards)
        ? null
        : { generation: value.generation, rows: value.shards };
    },
    sourceOf: (row) => `${catalogueShardKeys(tenant, row.shard).manifest} ${row.manifest_etag}`,
    read: (_key, body, etag) => {
      const value = parseOf<CatalogueShard>(body, SHARD_SCHEMA);
      if (value === null || !Array.isArray(value.copies)) return null;
      const withdrawn = value.copies.filter((c) => c.withdrawn_at !== null).length;
      return {
        shard: value.shard,
        published: value.copies.length - withdrawn,
        withdrawn,
        manifest_etag: etag,
      };
    },
    files: (rows, generation) => {
      const manifest: CatalogueManifest = {
        schema: MANIFEST_SCHEMA,
        tenant,
        generated_at: now(options),
        viewer_pages: viewerPages,
        generation,
        shards: rows.sort((a, b) => (a.shard < b.shard ? -1 : 1)),
      };
      return { manifest: `${JSON.stringify(manifest)}\n`, index: renderCatalogueIndex(manifest) };
    },
  };
}

/**
 * Rebuilds one level until its manifest and index hold exactly the sources listed after the last
 * write (the module comment says why that is enough). Returns the rounds it took. Past
 * `maxRounds` of changes by others, a transient error: the job is retried and rebuilds again.
 */
async function settle<Row>(
  catalogue: CatalogueStore,
  level: Level<Row>,
  options: CatalogueOptions,
): Promise<number> {
  const viewerPages = options.viewerPages === true;
  const maxRounds = options.maxRounds ?? 30;
  for (let round = 1; round <= maxRounds; round++) {
    const listed = await level.list();
    const generation = generationOf(listed, viewerPages);
    const current = await catalogue.getCatalogue(level.keys);
    const stored = level.stored(current.manifest);
    if (stored?.generation === generation && current.indexGeneration === generation) return round;
    const known = new Map((stored?.rows ?? []).map((row) => [level.sourceOf(row), row]));
    const rows: Row[] = [];
    for (const { key, etag } of listed) {
      const reused = known.get(`${key} ${etag}`);
      if (reused !== undefined) {
        rows.push(reused);
        continue;
      }
      const found = await catalogue.getEntry(key, etag);
      // Sources are never deleted; one missing here was listed by a store that lost it: skip it.
      const row = found === null ? null : level.read(key, found.body, found.etag);
      if (row !== null) rows.push(row);
    }
    // Sources are never deleted, so a stored row whose source this listing left out stays: a
    // listing that misses a key (the local stack's S3 server, listing a folder another request is
    // writing in) must not drop a copy. A later listing that shows it again updates the row.
    const listedKeys = new Set(listed.map(({ key }) => key));
    for (const [source, row] of known)
      if (!listedKeys.has(source.slice(0, source.lastIndexOf(" ")))) rows.push(row);
    await catalogue.putCatalogue(level.keys, { ...level.files(rows, generation), generation });
    // Writers that keep overtaking each other back off (random, growing, at most a second) so
    // that one of them finds the catalogue settled rather than all rebuilding in step.
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 10 * 2 ** round)));
  }
  throw new TransientError(
    "catalogue.unsettled",
    `${level.name} kept changing over ${maxRounds} rebuilds; retried later`,
  );
}

/**
 * Settles `tenant`'s own manifest. A tenant whose manifest is of the unsharded schema (v1, which
 * listed every copy) has shards that no change has written yet: each is settled first, once.
 */
async function settleTenant(
  catalogue: CatalogueStore,
  tenant: string,
  options: CatalogueOptions,
): Promise<number> {
  const { manifest } = await catalogue.getCatalogue(tenantKeys(tenant));
  if (manifest !== null && parseOf<CatalogueManifest>(manifest, MANIFEST_SCHEMA) === null)
    await settleShards(catalogue, tenant, options);
  return settle(catalogue, tenantLevel(catalogue, tenant, options), options);
}

/** Settles every shard of `tenant` that has an entry. */
async function settleShards(
  catalogue: CatalogueStore,
  tenant: string,
  options: CatalogueOptions,
): Promise<void> {
  const prefix = entriesPrefix(tenant);
  const shards = new Set(
    (await catalogue.listEntries(prefix)).map((e) => e.key.slice(prefix.length, prefix.length + 2)),
  );
  for (const shard of [...shards].sort())
    await settle(catalogue, shardLevel(catalogue, tenant, shard, options), options);
}

/**
 * Settles the shards of the copies `copyKeys` of `tenant` (null: every shard with an entry), then
 * the tenant's manifest: the changes of one copy, or of a batch that deferred its rebuilds
 * (`deferRebuild`). Each shard settled is then read back and must hold each of its copies at
 * the entry's current ETag: a settling made from a listing that missed an entry (the local
 * stack's S3 server lists a key being written by another request without it) is settled again,
 * and past `maxRounds` the change is a transient error, retried with its batch.
 */
export async function settleCatalogue(
  catalogue: CatalogueStore,
  tenant: string,
  copyKeys: ReadonlySet<string> | null,
  options: CatalogueOptions = {},
): Promise<void> {
  if (copyKeys === null) await settleShards(catalogue, tenant, options);
  else {
    const byShard = new Map<string, string[]>();
    for (const key of copyKeys) {
      const shard = catalogueShardOf(key);
      byShard.set(shard, [...(byShard.get(shard) ?? []), key]);
    }
    for (const [shard, keys] of [...byShard].sort(([a], [b]) => (a < b ? -1 : 1)))
      await settleHolding(catalogue, shardLevel(catalogue, tenant, shard, options), keys, options);
  }
  await settleTenant(catalogue, tenant, options);
}

/** Settles the shard `level` until its manifest holds each of `copyKeys` at its entry's ETag. */
async function settleHolding(
  catalogue: CatalogueStore,
  level: Level<ManifestRow>,
  copyKeys: readonly string[],
  options: CatalogueOptions,
): Promise<void> {
  const maxRounds = options.maxRounds ?? 30;
  for (let round = 1; round <= maxRounds; round++) {
    await settle(catalogue, level, options);
    const stored = level.stored((await catalogue.getCatalogue(level.keys)).manifest);
    const rows = new Map((stored?.rows ?? []).map((row) => [row.key, row.entry_etag]));
    let holds = true;
    for (const key of copyKeys) {
      const entry = await catalogue.getEntry(catalogueEntryKey(key));
      if (entry !== null && rows.get(key) !== entry.etag) holds = false;
    }
    if (holds) return;
  }
  throw new TransientError(
    "catalogue.unsettled",
    `${level.name} kept missing a copy just changed; retried later`,
  );
}

/**
 * Rebuilds all of `tenant`'s catalogue: every shard with an entry, then the tenant's manifest.
 * Returns the rounds the tenant's manifest took. A change settles only its own shard; this is for
 * a catalogue written by other means (tests, a bulk load).
 */
export async function rebuildCatalogue(
  catalogue: CatalogueStore,
  tenant: string,
  options: CatalogueOptions = {},
): Promise<number> {
  await settleShards(catalogue, tenant, options);
  return settle(catalogue, tenantLevel(catalogue, tenant, options), options);
}
