/** The catalogue's records (catalogue.ts): its entries and its per-tenant manifest. */
import type { Verdict } from "../formats/index.js";

/** What `processObject` knows of a copy it publishes, beyond its bytes. */
export interface CopyFacts {
  /** sha256 of the original's decompressed bytes (the attestation's subject digest). */
  replay_hash: string | null;
  /** The original's verdict when the copy was published. */
  verdict: Verdict;
  /** The attestation's key in the reports bucket (`results/<key>.intoto.json`). */
  attestation: string;
}

/** One copy in the catalogue, as its entry object holds it. */
export interface CatalogueEntry {
  /** The copy's key in the published bucket. */
  key: string;
  /** sha256 of the copy's bytes as published; null for a copy withdrawn that was never catalogued. */
  sha256: string | null;
  replay_hash: string | null;
  verdict: Verdict | null;
  attestation: string | null;
  /** ISO-8601 UTC. */
  published_at: string | null;
  /** ISO-8601 UTC; null while the copy is published. */
  withdrawn_at: string | null;
}

/** A manifest row: the entry and the ETag of the entry object it was read from. */
export interface ManifestRow extends CatalogueEntry {
  entry_etag: string;
}

/** One shard's `shards/<xx>.json`: the copies whose key's sha256 begins with `xx`. */
export interface CatalogueShard {
  schema: typeof SHARD_SCHEMA;
  tenant: string;
  /** Two hex digits. */
  shard: string;
  generated_at: string;
  /** Whether `shards/<xx>.html` links each copy's viewer page (`<copy key>.view.html`). */
  viewer_pages: boolean;
  /** The digest of the shard's entries' keys and ETags (and `viewer_pages`) this was built from. */
  generation: string;
  /** Sorted by key. */
  copies: ManifestRow[];
}

/** A row of the tenant's manifest: one shard, its counts, and the ETag of its manifest as read. */
export interface ShardRow {
  shard: string;
  published: number;
  withdrawn: number;
  manifest_etag: string;
}

/** A tenant's `manifest.json`: its shards (each shard's manifest lists its copies). */
export interface CatalogueManifest {
  schema: typeof MANIFEST_SCHEMA;
  tenant: string;
  generated_at: string;
  viewer_pages: boolean;
  /** The digest of the shard manifests' keys and ETags (and `viewer_pages`) this was built from. */
  generation: string;
  /** Sorted by shard. */
  shards: ShardRow[];
}

/** The tenant manifest's schema id (v1 listed every copy itself). */
export const MANIFEST_SCHEMA = "replay-pipeline.catalogue.v2";

/** A shard manifest's schema id. */
export const SHARD_SCHEMA = "replay-pipeline.catalogue-shard.v1";
