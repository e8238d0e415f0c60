/** Fakes for the adapter unit tests: SDK-shaped errors and response bodies that break off. */
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3ClientResolvedConfig,
  S3ServiceException,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from "@aws-sdk/client-s3";
import type { AwsStub } from "aws-sdk-client-mock";

/** An error as the SDK throws it for an error answer: `name` and the HTTP status. */
export function serviceError(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: status >= 500 ? "server" : "client",
    $metadata: { httpStatusCode: status },
    message: `${name} (fake)`,
  });
}

/** An error as Node raises it for a connection reset by the peer. */
export function connectionReset(): Error {
  return Object.assign(new Error("aborted"), { code: "ECONNRESET" });
}

/** `size` random bytes. */
export function bytes(size: number): Buffer {
  return randomBytes(size);
}

/**
 * A GetObject body with `data` in chunks of `chunk` bytes; when `cutAfter` is given, it fails with a
 * connection reset once that many bytes were sent.
 */
export function body(
  data: Uint8Array,
  options: { chunk?: number; cutAfter?: number } = {},
): GetObjectCommandOutput["Body"] {
  const chunk = options.chunk ?? 4096;
  const end = options.cutAfter ?? data.length;
  async function* chunks() {
    for (let at = 0; at < end; at += chunk) yield data.subarray(at, Math.min(at + chunk, end));
    if (options.cutAfter !== undefined) throw connectionReset();
  }
  return Readable.from(chunks(), { objectMode: false }) as unknown as GetObjectCommandOutput["Body"];
}

/** Everything `source` yields, joined. */
export async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

/** The bytes `source` yields before it throws, and what it threw. */
export async function collectUntilError(
  source: AsyncIterable<Uint8Array>,
): Promise<{ got: Buffer; error: unknown }> {
  const parts: Uint8Array[] = [];
  try {
    for await (const part of source) parts.push(part);
  } catch (error) {
    return { got: Buffer.concat(parts), error };
  }
  throw new Error("the source did not fail");
}

/**
 * A bucket's text objects kept by a mocked S3 client (the catalogue's: `PutObject` with a string
 * body), answered back by `GetObject`, `HeadObject` and `ListObjectsV2`; mocks of single keys
 * registered later take precedence.
 */
export function textObjects(
  s3: AwsStub<ServiceInputTypes, ServiceOutputTypes, S3ClientResolvedConfig>,
): Map<string, { body: string; etag: string; metadata: Record<string, string> }> {
  const stored = new Map<string, { body: string; etag: string; metadata: Record<string, string> }>();
  s3.on(PutObjectCommand).callsFake(
    (input: { Key: string; Body: unknown; Metadata?: Record<string, string> }) => {
      if (typeof input.Body !== "string") return { ETag: '"x"' };
      const etag = `"${createHash("md5").update(input.Body).digest("hex")}"`;
      stored.set(input.Key, { body: input.Body, etag, metadata: input.Metadata ?? {} });
      return { ETag: etag };
    },
  );
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const found = stored.get(input.Key);
    if (found === undefined) throw serviceError("NoSuchKey", 404);
    return { ETag: found.etag, Body: { transformToString: async () => found.body } };
  });
  s3.on(HeadObjectCommand).callsFake((input: { Key: string }) => {
    const found = stored.get(input.Key);
    if (found === undefined) throw serviceError("NotFound", 404);
    return { ETag: found.etag, Metadata: found.metadata };
  });
  s3.on(ListObjectsV2Command).callsFake((input: { Prefix: string }) => ({
    Contents: [...stored.entries()]
      .filter(([key]) => key.startsWith(input.Prefix))
      .map(([Key, { etag }]) => ({ Key, ETag: etag })),
  }));
  return stored;
}
