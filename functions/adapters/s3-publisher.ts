/**
 * Writes what the pipeline publishes (Layer C copies) and reports (verdict documents) to their
 * own buckets, never the ingest bucket, so an output can never trigger the pipeline again.
 */
import { Readable } from "node:stream";
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Publisher } from "../../shared/pipeline/ports.js";
import { asAdapterError } from "./errors.js";

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
}

/** The `Publisher` port over S3. */
export class S3Publisher implements Publisher {
  constructor(
    private readonly client: S3Client,
    private readonly options: PublisherOptions,
  ) {}

  /**
   * Streams `body` to the published bucket. A copy larger than a part goes up in parts; if `body`
   * fails, the multipart upload is aborted (its parts deleted) and the body's error is thrown, so no
   * half-written copy stays. If the abort fails too, the parts are left to the bucket's
   * incomplete-upload lifecycle rule and the body's error is still the one thrown.
   */
  async publishCopy(key: string, body: AsyncIterable<Uint8Array>): Promise<void> {
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
      params: { Bucket: this.options.publishedBucket, Key: key, Body: stream },
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

  /** Deletes a published copy; deleting one that is already gone succeeds (S3's own rule). */
  async withdrawCopy(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.publishedBucket, Key: key }));
    } catch (error) {
      throw asAdapterError(error, `DeleteObject ${key}`);
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
