/**
 * Reading ingest objects from S3 as streams: never buffered whole, and resumed where a dropped
 * connection cut them (`Range: bytes=<n>-` with `If-Match` on the ETag), so the bytes delivered
 * are exactly the object's, once, in order.
 */
import { GetObjectCommand, type GetObjectCommandOutput, type S3Client } from "@aws-sdk/client-s3";
import { ReplayPipelineError, TransientError } from "../../shared/errors.js";
import type { ObjectRef, ObjectSource, ObjectStore } from "../../shared/pipeline/index.js";
import { asAdapterError, ObjectChangedError } from "./errors.js";

/** How a read meets dropped connections. */
export interface ReadOptions {
  /** Ranged re-requests after a cut before the read fails as transient (default 3). */
  maxResumes?: number;
}

const DEFAULT_RESUMES = 3;

/** The object being processed, in an S3 bucket. */
export class S3ObjectSource implements ObjectSource {
  readonly key: string;
  readonly etag: string | null;
  readonly versionId: string | null;
  readonly size: number | null;
  readonly sequencer: string | null;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    ref: ObjectRef,
    private readonly options: ReadOptions = {},
  ) {
    this.key = ref.key;
    this.etag = ref.etag;
    this.versionId = ref.versionId;
    this.size = ref.size;
    this.sequencer = ref.sequencer;
  }

  /** The bytes of exactly this version: a key that now holds other bytes fails with `ObjectChangedError`. */
  open(): AsyncIterable<Uint8Array> {
    return readObject(this.client, this.bucket, this, this.options.maxResumes ?? DEFAULT_RESUMES);
  }
}

/** Other objects of the ingest bucket (a receipt's replays, a replay's receipt). */
export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly options: ReadOptions = {},
  ) {}

  /** The object's bytes at `ref.versionId` when given, else its current version. */
  open(ref: Pick<ObjectRef, "key" | "versionId">): AsyncIterable<Uint8Array> {
    const target = { key: ref.key, versionId: ref.versionId, etag: null };
    return readObject(this.client, this.bucket, target, this.options.maxResumes ?? DEFAULT_RESUMES);
  }
}

type Target = Pick<ObjectRef, "key" | "versionId" | "etag">;

async function* readObject(
  client: S3Client,
  bucket: string,
  target: Target,
  maxResumes: number,
): AsyncGenerator<Uint8Array> {
  // The ETag every request must match: the event's when known, else the first response's.
  let etag = target.etag;
  let position = 0;
  let total: number | null = null;
  let cuts = 0;
  for (;;) {
    const out = await getObject(client, bucket, target, etag, position);
    const answered = unquote(out.ETag);
    const length = out.ContentLength;
    // A server that ignores If-Match (s3rver does) is caught here instead.
    const other =
      (etag !== null && answered !== null && answered !== etag) ||
      (total !== null && position + (length ?? 0) !== total);
    if (other || length === undefined) {
      // The answer's body is not read: free its connection.
      (out.Body as { destroy?: () => void } | undefined)?.destroy?.();
      if (other) throw changed(target.key);
      throw new Error(`GetObject ${target.key}: the answer has no Content-Length`);
    }
    etag ??= answered;
    total ??= position + length;
    let cut: unknown = null;
    try {
      for await (const chunk of bodyOf(out)) {
        position += chunk.byteLength;
        yield chunk;
      }
    } catch (error) {
      cut = error;
    }
    if (cut === null && position === total) return;
    if (position > total)
      throw new ReplayPipelineError("s3.read_overrun", `${target.key}: more bytes than Content-Length`);
    // A fault after the last byte (a failed response checksum) cannot be resumed: read again whole.
    if (position === total || ++cuts > maxResumes)
      throw new TransientError(
        "s3.read_interrupted",
        `${target.key}: the read broke off at byte ${position} of ${total} (${cuts} cut(s), ${maxResumes} resume(s) allowed)`,
        {},
        { cause: cut },
      );
  }
}

async function getObject(
  client: S3Client,
  bucket: string,
  target: Target,
  etag: string | null,
  position: number,
): Promise<GetObjectCommandOutput> {
  try {
    return await client.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: target.key,
        VersionId: target.versionId ?? undefined,
        IfMatch: etag === null ? undefined : `"${etag}"`,
        Range: position === 0 ? undefined : `bytes=${position}-`,
      }),
    );
  } catch (error) {
    if ((error as Error).name === "PreconditionFailed") throw changed(target.key);
    throw asAdapterError(error, `GetObject ${target.key}`);
  }
}

function changed(key: string): ObjectChangedError {
  return new ObjectChangedError(
    "s3.object_changed",
    `${key}: the key no longer holds the version being read`,
  );
}

function unquote(etag: string | undefined): string | null {
  return etag === undefined ? null : etag.replace(/^"|"$/g, "");
}

function bodyOf(out: GetObjectCommandOutput): AsyncIterable<Uint8Array> {
  const body: unknown = out.Body;
  if (typeof body === "object" && body !== null && Symbol.asyncIterator in body)
    return body as AsyncIterable<Uint8Array>;
  throw new Error("GetObject: the answer has no readable body");
}
