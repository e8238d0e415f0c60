import "aws-sdk-client-mock-vitest/extend";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../functions/adapters/errors.js";
import { S3ObjectSource } from "../../functions/adapters/s3-objects.js";
import { S3Publisher } from "../../functions/adapters/s3-publisher.js";
import { body, bytes, serviceError } from "../support/aws-fakes.js";

const MiB = 1024 * 1024;
const client = new S3Client({ region: "us-east-1" });
const s3 = mockClient(client);
const publisher = new S3Publisher(client, { publishedBucket: "published", reportsBucket: "reports" });

/** `total` bytes in 1 MiB chunks, then `failure` if given. */
async function* copy(total: number, failure?: Error): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < total; sent += MiB) yield bytes(Math.min(MiB, total - sent));
  if (failure) throw failure;
}

beforeEach(() => {
  s3.reset();
  s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "up-1" });
  s3.on(UploadPartCommand).callsFake((input: { PartNumber?: number }) => ({
    ETag: `"part-${input.PartNumber}"`,
  }));
  s3.on(CompleteMultipartUploadCommand).resolves({});
  s3.on(AbortMultipartUploadCommand).resolves({});
  s3.on(PutObjectCommand).resolves({});
});

describe("S3Publisher.publishCopy", () => {
  it("writes a copy under one part with a single PUT to the published bucket", async () => {
    await publisher.publishCopy("t/s/REPLAY.layer-c.jsonl", copy(2 * MiB));
    expect(s3).toHaveReceivedCommandOnce(PutObjectCommand);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: "published",
      Key: "t/s/REPLAY.layer-c.jsonl",
    });
    expect(s3).not.toHaveReceivedCommand(CreateMultipartUploadCommand);
  });

  it("writes a copy beyond 5 MiB in parts and completes the upload", async () => {
    await publisher.publishCopy("t/s/big.layer-c.jsonl", copy(12 * MiB));
    expect(s3).toHaveReceivedCommandTimes(UploadPartCommand, 3);
    expect(s3).toHaveReceivedCommandOnce(CompleteMultipartUploadCommand);
    expect(s3).not.toHaveReceivedCommand(AbortMultipartUploadCommand);
  });

  it("aborts the multipart upload when the body fails mid-copy, throwing the body's error", async () => {
    const failure = new Error("layer C transform failed");
    await expect(publisher.publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB, failure))).rejects.toBe(
      failure,
    );
    expect(s3).toHaveReceivedCommandWith(AbortMultipartUploadCommand, {
      Bucket: "published",
      Key: "t/s/big.layer-c.jsonl",
      UploadId: "up-1",
    });
    expect(s3).not.toHaveReceivedCommand(CompleteMultipartUploadCommand);
  });

  it("throws the body's error, not the abort's, when aborting fails too", async () => {
    s3.on(AbortMultipartUploadCommand).rejects(serviceError("MethodNotAllowed", 405));
    const failure = new Error("layer C transform failed");
    await expect(publisher.publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB, failure))).rejects.toBe(
      failure,
    );
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
  });

  it("sends nothing when the body fails before its first part is full", async () => {
    await expect(publisher.publishCopy("t/s/x.layer-c.jsonl", copy(MiB, new Error("bad")))).rejects.toThrow(
      "bad",
    );
    expect(s3).not.toHaveReceivedAnyCommand();
  });

  it("aborts the copy of a source whose read broke off for good: a transient error, nothing half-written", async () => {
    const data = bytes(9 * MiB);
    s3.on(GetObjectCommand).callsFake((input: { Range?: string }) => {
      const from = input.Range ? Number(/bytes=(\d+)-/.exec(input.Range)?.[1]) : 0;
      return {
        ETag: '"e"',
        ContentLength: data.length - from,
        Body: body(data.subarray(from), { cutAfter: 3 * MiB }),
      };
    });
    const ref = { key: "t/s/big.jsonl", etag: "e", versionId: null, size: data.length, sequencer: null };
    const source = new S3ObjectSource(client, "ingest", ref, { maxResumes: 1 });
    const error = await publisher
      .publishCopy("t/s/big.layer-c.jsonl", source.open())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 2);
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
    expect(s3).not.toHaveReceivedCommand(CompleteMultipartUploadCommand);
  });

  it("maps a throttled part upload to a transient error and aborts the upload", async () => {
    s3.on(UploadPartCommand).rejects(serviceError("SlowDown", 503));
    const error = await publisher
      .publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
  });
});

describe("S3Publisher.withdrawCopy and putDocument", () => {
  it("deletes the copy from the published bucket", async () => {
    s3.on(DeleteObjectCommand).resolves({});
    await publisher.withdrawCopy("t/s/REPLAY.layer-c.jsonl");
    expect(s3).toHaveReceivedCommandExactlyOnceWith(DeleteObjectCommand, {
      Bucket: "published",
      Key: "t/s/REPLAY.layer-c.jsonl",
    });
  });

  it("maps a 500 on delete to a transient error", async () => {
    s3.on(DeleteObjectCommand).rejects(serviceError("InternalError", 500));
    await expect(publisher.withdrawCopy("t/s/x")).rejects.toBeInstanceOf(TransientError);
  });

  it("writes a verdict document to the reports bucket as application/json", async () => {
    await publisher.putDocument("results/t/s/REPLAY.jsonl.json", '{"verdict":"passed"}');
    expect(s3).toHaveReceivedCommandExactlyOnceWith(PutObjectCommand, {
      Bucket: "reports",
      Key: "results/t/s/REPLAY.jsonl.json",
      Body: '{"verdict":"passed"}',
      ContentType: "application/json",
    });
  });

  it("maps throttling on a document to a transient error and access denied to the SDK's error", async () => {
    s3.on(PutObjectCommand)
      .rejectsOnce(serviceError("SlowDown", 503))
      .rejectsOnce(serviceError("AccessDenied", 403));
    await expect(publisher.putDocument("results/a.json", "{}")).rejects.toBeInstanceOf(TransientError);
    await expect(publisher.putDocument("results/a.json", "{}")).rejects.toMatchObject({
      name: "AccessDenied",
    });
  });
});
