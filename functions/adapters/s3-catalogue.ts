/**
 * The catalogue's storage in the published bucket (shared/pipeline/catalogue.ts says how it stays
 * exact under concurrent writers): entry objects, and each manifest and index (a tenant's, a
 * shard's), both carrying their generation in user metadata so a rebuild learns the index's with
 * a HEAD. Everything is written `no-cache`: a reader (CloudFront, a browser) revalidates it.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { CatalogueKeys, CatalogueStore } from "../../shared/pipeline/index.js";
import { asAdapterError, isTransientAwsError } from "./errors.js";

/** The `Cache-Control` of the catalogue's objects: they change with every publish and withdrawal. */
const CATALOGUE_CACHE_CONTROL = "no-cache";

/** S3's answer for a key that is not there (GetObject, and HeadObject, which has no body to name it). */
function isMissing(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === "NoSuchKey" || name === "NotFound";
}

/** Entries kept by a store (a few hundred bytes each): a warm function's recent ones. */
const CACHED_ENTRIES = 10_000;

/** The `CatalogueStore` over one bucket. */
export class S3CatalogueStore implements CatalogueStore {
  /**
   * Entries this store wrote or read, by key, with their ETag: a rebuild lists the entries and
   * reads only those it does not hold at the listed ETag (others' changes), not the ones it wrote.
   */
  private readonly entries = new Map<string, { body: string; etag: string }>();

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  private remember(key: string, entry: { body: string; etag: string }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    // Oldest first in a Map: drop it past the bound.
    if (this.entries.size > CACHED_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  private async put(key: string, body: string, contentType: string, generation?: string): Promise<string> {
    try {
      const out = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: CATALOGUE_CACHE_CONTROL,
          ...(generation === undefined ? {} : { Metadata: { generation } }),
        }),
      );
      return out.ETag ?? "";
    } catch (error) {
      throw asAdapterError(error, `PutObject ${key}`);
    }
  }

  async putEntry(key: string, body: string): Promise<void> {
    const etag = await this.put(key, body, "application/json");
    if (etag !== "") this.remember(key, { body, etag });
    else this.entries.delete(key);
  }

  /**
   * An object's text and ETag, null when missing. A body cut off mid-read is read again (up to 3
   * tries): the SDK retries a request, not a body, and the manifest is small and rewritten often
   * (s3rver cuts a read of a key being overwritten).
   */
  async getEntry(key: string, etag?: string): Promise<{ body: string; etag: string } | null> {
    const known = this.entries.get(key);
    if (etag !== undefined && known?.etag === etag) return known;
    for (let attempt = 1; ; attempt++) {
      try {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
        const found = { body: (await out.Body?.transformToString("utf8")) ?? "", etag: out.ETag ?? "" };
        if (etag !== undefined && found.etag === etag) this.remember(key, found);
        return found;
      } catch (error) {
        if (isMissing(error)) return null;
        if (attempt < 3 && isTransientAwsError(error)) continue;
        throw asAdapterError(error, `GetObject ${key}`);
      }
    }
  }

  async listEntries(prefix: string): Promise<{ key: string; etag: string }[]> {
    const listed: { key: string; etag: string }[] = [];
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.bucket, Prefix: prefix },
      ))
        for (const item of page.Contents ?? [])
          if (item.Key !== undefined) listed.push({ key: item.Key, etag: item.ETag ?? "" });
    } catch (error) {
      throw asAdapterError(error, `ListObjectsV2 ${prefix}`);
    }
    return listed;
  }

  async getCatalogue(
    keys: CatalogueKeys,
  ): Promise<{ manifest: string | null; indexGeneration: string | null }> {
    const manifest = await this.getEntry(keys.manifest);
    const indexKey = keys.index;
    let indexGeneration: string | null = null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: indexKey }));
      indexGeneration = head.Metadata?.generation ?? null;
    } catch (error) {
      if (!isMissing(error)) throw asAdapterError(error, `HeadObject ${indexKey}`);
    }
    return { manifest: manifest?.body ?? null, indexGeneration };
  }

  async putCatalogue(
    keys: CatalogueKeys,
    files: { manifest: string; index: string; generation: string },
  ): Promise<void> {
    await this.put(keys.index, files.index, "text/html; charset=utf-8", files.generation);
    await this.put(keys.manifest, files.manifest, "application/json", files.generation);
  }
}
