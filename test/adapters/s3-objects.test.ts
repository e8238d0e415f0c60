import "aws-sdk-client-mock-vitest/extend";
import type { Readable } from "node:stream";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { ObjectChangedError } from "../../functions/adapters/errors.js";
import { S3ObjectSource, S3ObjectStore } from "../../functions/adapters/s3-objects.js";
import { TransientError } from "../../shared/errors.js";
import type { ObjectRef } from "../../shared/pipeline/ports.js";
import {
  body,
  bytes,
  collect,
  collectUntilError,
  connectionReset,
  serviceError,
} from "../support/aws-fakes.js";

const client = new S3Client({ region: "us-east-1" });
const s3 = mockClient(client);
const data = bytes(100_000);
const ref: ObjectRef = {
  key: "t/s/REPLAY.jsonl",
  etag: "abc123",
  versionId: "v1",
  size: data.length,
  sequencer: "01",
};

/** A GetObject answer for `data` from byte `from`, cut after `cutAfter` bytes of it when given. */
function answer(from: number, cutAfter?: number, etag = '"abc123"') {
  return { ETag: etag, ContentLength: data.length - from, Body: body(data.subarray(from), { cutAfter }) };
}

beforeEach(() => {
  s3.reset();
});

describe("S3ObjectSource", () => {
  it("reads the object in one GET of exactly its version, streamed in chunks", async () => {
    s3.on(GetObjectCommand).resolvesOnce(answer(0));
    const chunks: Uint8Array[] = [];
    for await (const chunk of new S3ObjectSource(client, "ingest", ref).open()) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 1);
    expect(s3).toHaveReceivedCommandWith(GetObjectCommand, {
      Bucket: "ingest",
      Key: ref.key,
      VersionId: "v1",
      IfMatch: '"abc123"',
      Range: undefined,
    });
  });

  it("resumes a cut read with Range from the next byte and If-Match, delivering each byte once", async () => {
    s3.on(GetObjectCommand)
      .resolvesOnce(answer(0, 30_001))
      .resolvesOnce(answer(30_001, 12_345))
      .resolvesOnce(answer(42_346));
    const got = await collect(new S3ObjectSource(client, "ingest", ref).open());
    expect(got.equals(data)).toBe(true);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 3);
    expect(s3).toHaveReceivedNthCommandWith(GetObjectCommand, 2, {
      Range: "bytes=30001-",
      IfMatch: '"abc123"',
    });
    expect(s3).toHaveReceivedNthCommandWith(GetObjectCommand, 3, {
      Range: "bytes=42346-",
      IfMatch: '"abc123"',
    });
  });

  it("fails as transient after the allowed resumes, having delivered only a prefix of the object", async () => {
    s3.on(GetObjectCommand).callsFake((input: { Range?: string }) => {
      const from = input.Range ? Number(/bytes=(\d+)-/.exec(input.Range)?.[1]) : 0;
      return answer(from, 1000);
    });
    const { got, error } = await collectUntilError(
      new S3ObjectSource(client, "ingest", ref, { maxResumes: 2 }).open(),
    );
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).code).toBe("s3.read_interrupted");
    expect((error as TransientError).kind).toBe("transient");
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 3);
    expect(got.length).toBe(3000);
    expect(got.equals(data.subarray(0, 3000))).toBe(true);
  });

  it("does not resume a fault that comes after the last byte: the whole read is retried later", async () => {
    s3.on(GetObjectCommand).resolvesOnce(answer(0, data.length));
    const { got, error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).toBeInstanceOf(TransientError);
    expect(got.length).toBe(data.length);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 1);
  });

  it.each([
    ["SlowDown", 503],
    ["InternalError", 500],
    ["ServiceUnavailable", 503],
  ])("maps %s (%i) to a transient error", async (name, status) => {
    s3.on(GetObjectCommand).rejects(serviceError(name, status));
    const { error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).cause).toMatchObject({ name });
  });

  it("maps a connection reset before any byte to a transient error", async () => {
    s3.on(GetObjectCommand).rejects(connectionReset());
    const { error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).toBeInstanceOf(TransientError);
  });

  it("keeps a fault that retrying cannot mend (NoSuchKey) as the SDK's own error", async () => {
    s3.on(GetObjectCommand).rejects(serviceError("NoSuchKey", 404));
    const { error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).not.toBeInstanceOf(TransientError);
    expect((error as Error).name).toBe("NoSuchKey");
  });

  it("fails with ObjectChangedError when the key no longer holds the event's version (412)", async () => {
    s3.on(GetObjectCommand).rejects(serviceError("PreconditionFailed", 412));
    const { error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).toBeInstanceOf(ObjectChangedError);
  });

  it("fails with ObjectChangedError when a resumed answer is another version (a server ignoring If-Match)", async () => {
    const other = answer(5000, undefined, '"other"');
    s3.on(GetObjectCommand).resolvesOnce(answer(0, 5000)).resolvesOnce(other);
    const { got, error } = await collectUntilError(new S3ObjectSource(client, "ingest", ref).open());
    expect(error).toBeInstanceOf(ObjectChangedError);
    expect(got.length).toBe(5000);
    // The other version's body is not read, and its connection is freed.
    expect((other.Body as unknown as Readable).destroyed).toBe(true);
  });
});

describe("S3ObjectStore", () => {
  it("reads the current version and resumes against the ETag of its first answer", async () => {
    s3.on(GetObjectCommand)
      .resolvesOnce(answer(0, 7000, '"first"'))
      .resolvesOnce(answer(7000, undefined, '"first"'));
    const got = await collect(new S3ObjectStore(client, "ingest").open({ key: ref.key, versionId: null }));
    expect(got.equals(data)).toBe(true);
    expect(s3).toHaveReceivedNthCommandWith(GetObjectCommand, 1, {
      IfMatch: undefined,
      VersionId: undefined,
    });
    expect(s3).toHaveReceivedNthCommandWith(GetObjectCommand, 2, {
      IfMatch: '"first"',
      Range: "bytes=7000-",
    });
  });
});
