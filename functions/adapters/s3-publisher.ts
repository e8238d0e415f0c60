/**
 * Writes what the pipeline publishes (Layer C copies, and with `viewerPages` each copy's viewer
 * page) and reports (verdict documents) to their own buckets, never the ingest bucket, so an
 * output can never trigger the pipeline again; keeps each tenant's catalogue of its copies in the
 * published bucket (`S3CatalogueStore`).
 */
import { createHash, randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { type CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { CopyFacts, Publisher, PublishOptions, SpooledStream } from "../../shared/pipeline/index.js";
import {
  cataloguedSame,
  cataloguePublished,
  catalogueWithdrawn,
  copyViewerPage,
  publishedUrlPath,
  settleCatalogue,
  sha256Tap,
  spooled,
  tenantOfCopy,
  viewerPageKey,
} from "../../shared/pipeline/index.js";
import { fileSpool, type Spool } from "../../shared/spool/index.js";
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
   * Write each copy's viewer page beside it (`<copy key>.view.html`, built from the copy's bytes
   * alone: shared/pipeline/viewer-pages.ts) and link it from the catalogue's index.
   */
  viewerPages?: boolean;
  /**
   * Where a copy is kept while its viewer page is built (default: the OS temp folder, a Lambda's
   * /tmp): the copy is read again from there, never from the bucket or the original.
   */
  spool?: Spool;
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
  private readonly spool: Spool;
  /** Per tenant, the rebuild not started yet, which calls join, and the copies it settles (null: all). */
  private readonly waiting = new Map<string, { keys: Set<string> | null; run: Promise<void> }>();
  /** Per tenant, the last rebuild scheduled, which the next one waits for. */
  private readonly lastRebuild = new Map<string, Promise<void>>();

  constructor(
    private readonly client: S3Client,
    private readonly options: PublisherOptions,
  ) {
    this.catalogue = new S3CatalogueStore(client, options.publishedBucket);
    this.spool = options.spool ?? fileSpool(tmpdir());
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
   * Settles `tenant`'s catalogue: the shards of `copyKeys` (null: every shard), then the tenant's
   * manifest (what a batch's `settle` does per tenant). Calls while one waits join it (their shards
   * added), and it starts after the one before (so it lists their entries): batches settling at
   * once in one process (the local stack's) settle together, not in turn.
   */
  rebuild(tenant: string, copyKeys: Iterable<string> | null = null): Promise<void> {
    const keys = copyKeys === null ? null : new Set(copyKeys);
    const waiting = this.waiting.get(tenant);
    if (waiting !== undefined) {
      if (keys === null) waiting.keys = null;
      else for (const key of keys) waiting.keys?.add(key);
      return waiting.run;
    }
    const before = this.lastRebuild.get(tenant) ?? Promise.resolve();
    const entry: { keys: Set<string> | null; run: Promise<void> } = { keys, run: before };
    entry.run = before
      .catch(() => undefined)
      .then(async () => {
        this.waiting.delete(tenant);
        await settleCatalogue(this.catalogue, tenant, entry.keys, this.catalogueOptions());
      });
    const next = entry.run;
    this.waiting.set(tenant, entry);
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
   * is stored: with `viewerPages`, its viewer page (from the copy as it went up, kept in the
   * spool), then its catalogue entry (with the sha256 taken on the way up) and its tenant's
   * manifest, so the index never links a page that is not there yet (`deferRebuild`: the entry
   * only; a `CatalogueBatch` settles). With `onKept`, a copy under one part is read first and, when
   * the catalogue lists the same bytes and facts published under `key`, nothing is written and
   * `onKept` is called; a larger copy is published again.
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
    const tap = sha256Tap(body);
    const kept = this.options.viewerPages === true ? spooled(tap.body, this.spool) : null;
    try {
      await this.upload(key, kept?.body ?? tap.body);
      if (kept !== null) await this.putViewerPage(key, kept);
    } finally {
      await kept?.dispose();
    }
    await cataloguePublished(this.catalogue, key, tap.digest(), facts, this.catalogueOptions(deferRebuild));
  }

  /** Streams `body` to `key` (see `publishCopy`). */
  private async upload(key: string, body: AsyncIterable<Uint8Array>): Promise<void> {
    let bodyError: { error: unknown } | null = null;
    async function* watched(): AsyncGenerator<Uint8Array> {
      try {
        yield* body;
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
  }

  /** Writes the viewer page of the copy `copyKey`, built from the bytes `kept` saw go up. */
  private async putViewerPage(copyKey: string, kept: SpooledStream): Promise<void> {
    const page = await copyViewerPage(copyKey, kept.replay());
    await this.put({
      Bucket: this.options.publishedBucket,
      Key: viewerPageKey(copyKey),
      Body: page,
      ContentType: "text/html; charset=utf-8",
      CacheControl: PUBLISHED_CACHE_CONTROL,
    });
  }

  /** One PutObject of text, its error mapped (a `TransientError` for throttling and 5xx). */
  private async put(input: {
    Bucket: string;
    Key: string;
    Body: string;
    ContentType: string;
    CacheControl?: string;
  }): Promise<void> {
    try {
      await this.client.send(new PutObjectCommand(input));
    } catch (error) {
      throw asAdapterError(error, `PutObject ${input.Key}`);
    }
  }

  /**
   * Deletes a published copy and its viewer page (deleting one that is already gone succeeds, S3's
   * own rule; the page is deleted whether or not `viewerPages` is on now, so turning it off never
   * leaves the page of a withdrawn copy), then, behind CloudFront, invalidates exactly their paths
   * so no edge serves them for the rest of their max-age. The copy goes first: if the invalidation
   * fails, both are already unreadable at the origin and the error is thrown (a `TransientError`
   * for throttling, a 5xx or too many invalidations in progress), so the message is retried, the
   * deletes repeated harmlessly and the invalidation asked for again before the withdrawal is
   * recorded. Last, the catalogue marks the copy withdrawn.
   */
  async withdrawCopy(key: string, deferRebuild = false): Promise<void> {
    for (const gone of [key, viewerPageKey(key)]) {
      try {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.options.publishedBucket, Key: gone }));
      } catch (error) {
        throw asAdapterError(error, `DeleteObject ${gone}`);
      }
    }
    const { distribution } = this.options;
    if (distribution !== undefined) await this.invalidate(distribution, [key, viewerPageKey(key)]);
    await catalogueWithdrawn(this.catalogue, key, this.catalogueOptions(deferRebuild));
  }

  private async invalidate(
    distribution: { client: CloudFrontClient; id: string },
    keys: string[],
  ): Promise<void> {
    const paths = keys.map(publishedUrlPath);
    try {
      await distribution.client.send(
        new CreateInvalidationCommand({
          DistributionId: distribution.id,
          InvalidationBatch: {
            // One per withdrawal: the SDK's own retries of this request reuse it (CloudFront makes
            // one invalidation of them), while a later withdrawal of the same path gets its own.
            CallerReference: randomUUID(),
            Paths: { Quantity: paths.length, Items: paths },
          },
        }),
      );
    } catch (error) {
      throw asAdapterError(error, `CreateInvalidation ${paths.join(" ")}`);
    }
  }

  /** Writes a verdict document (JSON text) to the reports bucket. */
  async putDocument(key: string, body: string): Promise<void> {
    await this.put({
      Bucket: this.options.reportsBucket,
      Key: key,
      Body: body,
      ContentType: "application/json",
    });
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
  /** Per tenant touched, the copies changed (null: settle every shard, after a retried job). */
  private readonly touched = new Map<string, Set<string> | null>();
  /** Set once `settle()` has begun: a change after it settles at once instead of waiting for it. */
  private settling = false;

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
    if (!kept) await this.changed(key);
  }

  async withdrawCopy(key: string): Promise<void> {
    await this.publisher.withdrawCopy(key, true);
    await this.changed(key);
  }

  putDocument(key: string, body: string): Promise<void> {
    return this.publisher.putDocument(key, body);
  }

  /**
   * Has `settle()` settle all of `tenant`'s catalogue even if this batch published nothing there
   * (a retried job does not know which copy its stopped try changed).
   */
  touch(tenant: string): void {
    this.touched.set(tenant, null);
  }

  /**
   * Notes `copyKey` changed, for `settle()`; once that has begun (a job of the batch still running
   * when its handler settles, which the local stack's 1,000-file suite caught), settles it now.
   */
  private async changed(copyKey: string): Promise<void> {
    const tenant = tenantOfCopy(copyKey);
    if (this.settling) return this.publisher.rebuild(tenant, [copyKey]);
    const keys = this.touched.get(tenant);
    // null: the whole tenant settles already.
    if (keys === undefined) this.touched.set(tenant, new Set([copyKey]));
    else keys?.add(copyKey);
  }

  /** Settles the shards changed and the manifest of each tenant touched, once; then forgets them. */
  async settle(): Promise<void> {
    this.settling = true;
    for (const [tenant, keys] of this.touched) await this.publisher.rebuild(tenant, keys);
    this.touched.clear();
  }
}
