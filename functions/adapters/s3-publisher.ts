/**
 * Writes what the pipeline publishes (Layer C copies) and reports (verdict documents) to their
 * own buckets, never the ingest bucket, so an output can never trigger the pipeline again; keeps
 * each tenant's catalogue of its copies in the published bucket (`S3CatalogueStore`).
 */
import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { type CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  cataloguedSame,
  cataloguePublished,
  catalogueWithdrawn,
  rebuildCatalogue,
  sha256Tap,
  tenantOfCopy,
} from "../../shared/pipeline/catalogue.js";
import type { CopyFacts } from "../../shared/pipeline/catalogue-types.js";
import type { Publisher, PublishOptions } from "../../shared/pipeline/ports.js";
import { publishedUrlPath } from "../../shared/pipeline/published-urls.js";
import { asAdapterError } from "./errors.js";
import { S3CatalogueStore } from "./s3-catalogue.js";

/**
 * How long a reader (CloudFront's edge or a browser) may keep a published copy, in seconds: short,
 * so that a withdrawn copy a cache still holds is gone within minutes even where no invalidation
 * reaches (a browser's cache); the distribution's cache policy keeps it no longer either.
 */
export const PUBLISHED_MAX_AGE_SECONDS = 300;

/** The `Cache-Control` every published copy is written with. */
export const PUBLISHED_CACHE_CONTROL = `max-age=${PUBLISHED_MAX_AGE_SECONDS}`;

/** Buckets and upload sizing of an `S3Publisher`. */
export interface PublisherOptions {
  /** Where Layer C copies go. */
  publishedBucket: string;
  /** Where verdict documents go. */
  reportsBucket: string;
  /** Multipart part size in bytes (default and minimum 5 MiB); a copy under one part is a single PUT. */
  partSize?: number;
  /** Parts in flight at once (default 4); memory is about partSize × (queueSize + 1). */
  queueSize?: number;
  /** The CloudFront distribution in front of the published bucket, whose cache a withdrawal clears. */
  distribution?: { client: CloudFrontClient; id: string };
  /**
   * Link each copy's viewer page (`<copy key>.view.html`) from the catalogue's index. The pages
   * themselves are not written by this publisher (yet): turn it on only where they are.
   */
  viewerPages?: boolean;
}

/** S3's smallest multipart part, and the default part size: a copy under it is one PUT. */
const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * The first chunks of `body`, up to `limit` bytes or its end: `whole` when it ended within them,
 * and `body` again from its start (the chunks read, then the rest).
 */
async function peek(
  body: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<{ whole: Buffer | null; body: AsyncIterable<Uint8Array> }> {
  const it = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const next = await it.next();
    if (next.done === true) return { whole: Buffer.concat(head), body: Readable.from(head) };
    head.push(next.value);
    bytes += next.value.length;
    if (bytes > limit) break;
  }
  async function* again(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await it.next(); next.done !== true; next = await it.next()) yield next.value;
  }
  return { whole: null, body: again() };
}

/** The `Publisher` port over S3. */
export class S3Publisher implements Publisher {
  private readonly catalogue: S3CatalogueStore;
  /** Per tenant, the rebuild not started yet, which calls join. */
  private readonly waiting = new Map<string, Promise<void>>();
  /** Per tenant, the last rebuild scheduled, which the next one waits for. */
  private readonly lastRebuild = new Map<string, Promise<void>>();

  constructor(
    private readonly client: S3Client,
    private readonly options: PublisherOptions,
  ) {
    this.catalogue = new S3CatalogueStore(client, options.publishedBucket);
  }

  private catalogueOptions(deferRebuild = false) {
    return {
      viewerPages: this.options.viewerPages === true,
      reportsBucket: this.options.reportsBucket,
      deferRebuild,
    };
  }

  /**
   * A view of this publisher for one batch of jobs: its publishes and withdrawals write their
   * catalogue entries only, and its `settle()` rebuilds each tenant they touched once, so a batch
   * of ten copies rebuilds its tenant's catalogue (a listing of all the tenant's entries) once
   * rather than ten times.
   */
  batch(): CatalogueBatch {
    return new CatalogueBatch(this);
  }

  /**
   * Rebuilds `tenant`'s catalogue until settled (what a batch's `settle` does per tenant). Calls
   * while one runs share the next one, which starts after it (so it lists their entries): batches
   * settling at once in one process (the local stack's) rebuild once together, not in turn.
   */
  rebuild(tenant: string): Promise<void> {
    const waiting = this.waiting.get(tenant);
    if (waiting !== undefined) return waiting;
    const before = this.lastRebuild.get(tenant) ?? Promise.resolve();
    const next = before
      .catch(() => undefined)
      .then(async () => {
        this.waiting.delete(tenant);
        await rebuildCatalogue(this.catalogue, tenant, this.catalogueOptions());
      });
    this.waiting.set(tenant, next);
    this.lastRebuild.set(tenant, next);
    next
      .finally(() => {
        if (this.lastRebuild.get(tenant) === next) this.lastRebuild.delete(tenant);
      })
      .catch(() => undefined);
    return next;
  }

  /**
   * Streams `body` to the published bucket. A copy larger than a part goes up in parts; if `body`
   * fails, the multipart upload is aborted (its parts deleted) and the body's error is thrown, so no
   * half-written copy stays. If the abort fails too, the parts are left to the bucket's
   * incomplete-upload lifecycle rule and the body's error is still the one thrown. Once the copy
   * is stored, its catalogue entry (with the sha256 taken on the way up) and its tenant's manifest
   * (`deferRebuild`: the entry only; a `CatalogueBatch` rebuilds). With `onKept`, a copy under one
   * part is read first and, when the catalogue lists the same bytes and facts published under
   * `key`, nothing is written and `onKept` is called; a larger copy is published again.
   */
  async publishCopy(
    key: string,
    body: AsyncIterable<Uint8Array>,
    facts: CopyFacts,
    options: PublishOptions = {},
    deferRebuild = false,
  ): Promise<void> {
    if (options.onKept !== undefined) {
      const peeked = await peek(body, Math.max(this.options.partSize ?? 0, MIN_PART_BYTES));
      const { whole } = peeked;
      if (whole !== null) {
        const sha256 = createHash("sha256").update(whole).digest("hex");
        if (await cataloguedSame(this.catalogue, key, sha256, facts)) return options.onKept();
      }
      body = peeked.body;
    }
    let bodyError: { error: unknown } | null = null;
    const tap = sha256Tap(body);
    async function* watched(): AsyncGenerator<Uint8Array> {
      try {
        yield* tap.body;
      } catch (error) {
        bodyError = { error };
        throw error;
      }
    }
    const stream = Readable.from(watched());
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.options.publishedBucket,
        Key: key,
        Body: stream,
        CacheControl: PUBLISHED_CACHE_CONTROL,
      },
      partSize: this.options.partSize,
      queueSize: this.options.queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // lib-storage throws the abort's own error when aborting fails: the body's fault matters more.
      throw asAdapterError(
        bodyError === null ? error : (bodyError as { error: unknown }).error,
        `upload ${key}`,
      );
    } finally {
      // A failed upload may stop reading mid-body: release whatever the body holds open.
      stream.destroy();
    }
    await cataloguePublished(this.catalogue, key, tap.digest(), facts, this.catalogueOptions(deferRebuild));
  }

  /**
   * Deletes a published copy (deleting one that is already gone succeeds, S3's own rule), then,
   * behind CloudFront, invalidates exactly its path so no edge serves it for the rest of its max-age.
   * The copy goes first: if the invalidation fails, the copy is already unreadable at the origin and
   * the error is thrown (a `TransientError` for throttling, a 5xx or too many invalidations in
   * progress), so the message is retried, the delete repeated harmlessly and the invalidation
   * asked for again before the withdrawal is recorded. Last, the catalogue marks the copy withdrawn.
   */
  async withdrawCopy(key: string, deferRebuild = false): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.publishedBucket, Key: key }));
    } catch (error) {
      throw asAdapterError(error, `DeleteObject ${key}`);
    }
    const { distribution } = this.options;
    if (distribution !== undefined) await this.invalidate(distribution, key);
    await catalogueWithdrawn(this.catalogue, key, this.catalogueOptions(deferRebuild));
  }

  private async invalidate(
    distribution: { client: CloudFrontClient; id: string },
    key: string,
  ): Promise<void> {
    try {
      await distribution.client.send(
        new CreateInvalidationCommand({
          DistributionId: distribution.id,
          InvalidationBatch: {
            // One per withdrawal: the SDK's own retries of this request reuse it (CloudFront makes
            // one invalidation of them), while a later withdrawal of the same path gets its own.
            CallerReference: randomUUID(),
            Paths: { Quantity: 1, Items: [publishedUrlPath(key)] },
          },
        }),
      );
    } catch (error) {
      throw asAdapterError(error, `CreateInvalidation ${publishedUrlPath(key)}`);
    }
  }

  /** Writes a verdict document (JSON text) to the reports bucket. */
  async putDocument(key: string, body: string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.reportsBucket,
          Key: key,
          Body: body,
          ContentType: "application/json",
        }),
      );
    } catch (error) {
      throw asAdapterError(error, `PutObject ${key}`);
    }
  }
}

/**
 * One batch's view of an `S3Publisher` (`S3Publisher.batch`): copies and withdrawals write their
 * catalogue entries, and `settle()`, called once the batch's jobs are done and before they are
 * reported done, rebuilds the catalogue of every tenant touched. A job retried after its batch
 * stopped before settling finds its record written (a duplicate) and publishes nothing: its
 * handler `touch`es the tenant so the retry settles it.
 */
export class CatalogueBatch implements Publisher {
  private readonly tenants = new Set<string>();

  constructor(private readonly publisher: S3Publisher) {}

  async publishCopy(
    key: string,
    body: AsyncIterable<Uint8Array>,
    facts: CopyFacts,
    options: PublishOptions = {},
  ): Promise<void> {
    let kept = false;
    const onKept = options.onKept;
    const watched: PublishOptions =
      onKept === undefined
        ? {}
        : {
            onKept: () => {
              kept = true;
              onKept();
            },
          };
    await this.publisher.publishCopy(key, body, facts, watched, true);
    if (!kept) this.tenants.add(tenantOfCopy(key));
  }

  async withdrawCopy(key: string): Promise<void> {
    await this.publisher.withdrawCopy(key, true);
    this.tenants.add(tenantOfCopy(key));
  }

  putDocument(key: string, body: string): Promise<void> {
    return this.publisher.putDocument(key, body);
  }

  /** Has `settle()` rebuild `tenant`'s catalogue even if this batch published nothing there. */
  touch(tenant: string): void {
    this.tenants.add(tenant);
  }

  /** Rebuilds the catalogue of each tenant touched, once; then forgets them. */
  async settle(): Promise<void> {
    for (const tenant of this.tenants) await this.publisher.rebuild(tenant);
    this.tenants.clear();
  }
}
