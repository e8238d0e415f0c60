/**
 * The S3 adapters with the real SDK client against s3rver on loopback: streamed reads of a
 * multi-MB object (whole, resumed after cuts, changed mid-read), multipart copies through
 * lib-storage, aborted copies, withdrawals and verdict documents.
 */

import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type LocalServer, S3RVER_CREDENTIALS, startS3rver } from "../../cli/local/servers.js";
import { ObjectChangedError } from "../../functions/adapters/errors.js";
import { S3ObjectSource, S3ObjectStore } from "../../functions/adapters/s3-objects.js";
import { PUBLISHED_CACHE_CONTROL, S3Publisher } from "../../functions/adapters/s3-publisher.js";
import { makeS3Client } from "../../functions/lib/aws-clients.js";
import { TransientError } from "../../shared/errors.js";
import { bytes, collect, collectUntilError } from "../support/aws-fakes.js";
import { startCuttingProxy } from "../support/cutting-proxy.js";
import { objectExists } from "../support/s3-objects.js";

const MiB = 1024 * 1024;
let server: LocalServer;
let s3: S3Client;
let publisher: S3Publisher;

function clientFor(endpoint: string): S3Client {
  return makeS3Client({ region: "us-east-1", endpoint, credentials: S3RVER_CREDENTIALS });
}

/** Puts `data` at `key` in the ingest bucket; its ETag, unquoted. */
async function put(key: string, data: Uint8Array): Promise<string> {
  const out = await s3.send(new PutObjectCommand({ Bucket: "ingest", Key: key, Body: data }));
  return (out.ETag ?? "").replaceAll('"', "");
}

const exists = (bucket: string, key: string): Promise<boolean> => objectExists(s3, bucket, key);

/** The names of the commands `client` sends from now on. */
function recordCommands(client: S3Client): string[] {
  const names: string[] = [];
  const name = `record-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => (args) => {
      names.push(context.commandName ?? "");
      return next(args);
    },
    { step: "initialize", name },
  );
  onTestFinished(() => {
    client.middlewareStack.remove(name);
  });
  return names;
}

async function* chunks(total: number, failure?: Error): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < total; sent += MiB) yield bytes(Math.min(MiB, total - sent));
  if (failure) throw failure;
}

beforeAll(async () => {
  server = await startS3rver({ buckets: ["ingest", "published", "reports"] });
  s3 = clientFor(server.endpoint);
  publisher = new S3Publisher(s3, { publishedBucket: "published", reportsBucket: "reports" });
});

afterAll(async () => {
  s3?.destroy();
  await server?.close();
});

describe("S3ObjectSource against s3rver", () => {
  const data = bytes(8 * MiB + 123);
  const key = "acme/s-1/REPLAY.jsonl";
  let etag: string;

  beforeAll(async () => {
    etag = await put(key, data);
  });

  function source(client: S3Client, maxResumes = 3): S3ObjectSource {
    const ref = { key, etag, versionId: null, size: data.length, sequencer: "01" };
    return new S3ObjectSource(client, "ingest", ref, { maxResumes });
  }

  it("streams a multi-MB object in many chunks, byte for byte", async () => {
    let count = 0;
    let largest = 0;
    const parts: Uint8Array[] = [];
    for await (const chunk of source(s3).open()) {
      count++;
      largest = Math.max(largest, chunk.byteLength);
      parts.push(chunk);
    }
    expect(Buffer.concat(parts).equals(data)).toBe(true);
    expect(count).toBeGreaterThan(10);
    expect(largest).toBeLessThan(data.length / 4);
  });

  it("resumes reads cut by the network, each byte delivered once", async () => {
    const proxy = await startCuttingProxy(server.endpoint, { cutAfter: 3 * MiB, cuts: 2 });
    const client = clientFor(proxy.endpoint);
    try {
      const got = await collect(source(client).open());
      expect(got.equals(data)).toBe(true);
      expect(proxy.connections()).toBe(3);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });

  it("fails as transient when every connection is cut", async () => {
    const proxy = await startCuttingProxy(server.endpoint, { cutAfter: MiB, cuts: 100 });
    const client = clientFor(proxy.endpoint);
    try {
      const { got, error } = await collectUntilError(source(client, 2).open());
      expect(error).toBeInstanceOf(TransientError);
      expect(proxy.connections()).toBe(3);
      expect(got.equals(data.subarray(0, got.length))).toBe(true);
      expect(got.length).toBeLessThan(data.length);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });

  it("fails with ObjectChangedError when the object is replaced between a cut and the resume", async () => {
    const changing = "acme/s-1/CHANGING.jsonl";
    const first = bytes(4 * MiB);
    const ref = {
      key: changing,
      etag: await put(changing, first),
      versionId: null,
      size: first.length,
      sequencer: null,
    };
    const proxy = await startCuttingProxy(server.endpoint, { cutAfter: 256 * 1024, cuts: 1 });
    const client = clientFor(proxy.endpoint);
    try {
      const reading = new S3ObjectSource(client, "ingest", ref).open()[Symbol.asyncIterator]();
      await reading.next();
      // Replace the object only once its first answer is cut: s3rver rewrites a file in place,
      // which would end a read still in flight short.
      while (proxy.cuts() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await put(changing, bytes(4 * MiB));
      const error = await (async () => {
        for (;;) if ((await reading.next()).done) return null;
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ObjectChangedError);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });

  it("reads another object of the bucket through S3ObjectStore", async () => {
    const receipt = Buffer.from('{"receipt":true}');
    await put("acme/s-1/RECEIPT.json", receipt);
    const got = await collect(
      new S3ObjectStore(s3, "ingest").open({ key: "acme/s-1/RECEIPT.json", versionId: null }),
    );
    expect(got.equals(receipt)).toBe(true);
  });
});

/** What the pipeline says of the copies published here. */
const FACTS = {
  replay_hash: null,
  verdict: "unverifiable" as const,
  attestation: "results/acme/s-1/x.intoto.json",
};

describe("S3Publisher against s3rver", () => {
  it("uploads a copy beyond 5 MiB in parts, stored byte for byte", async () => {
    const parts: Uint8Array[] = [];
    async function* recorded() {
      for await (const chunk of chunks(12 * MiB + 5)) {
        parts.push(chunk);
        yield chunk;
      }
    }
    const sent = recordCommands(s3);
    await publisher.publishCopy("acme/s-1/BIG.layer-c.jsonl", recorded(), FACTS);
    expect(sent.filter((name) => name === "UploadPartCommand")).toHaveLength(3);
    expect(sent).toContain("CompleteMultipartUploadCommand");
    const out = await s3.send(
      new GetObjectCommand({ Bucket: "published", Key: "acme/s-1/BIG.layer-c.jsonl" }),
    );
    const stored = Buffer.from(await (out.Body?.transformToByteArray() ?? new Uint8Array()));
    expect(stored.equals(Buffer.concat(parts))).toBe(true);
    // The Cache-Control a reader (CloudFront, a browser) keeps it by, multipart or not.
    expect(out.CacheControl).toBe(PUBLISHED_CACHE_CONTROL);
  });

  it("leaves nothing when the copy's body fails after parts went up", async () => {
    // s3rver has no AbortMultipartUpload: its parts stay in its folder, never as an object.
    const key = "acme/s-1/FAILED.layer-c.jsonl";
    const sent = recordCommands(s3);
    await expect(
      publisher.publishCopy(key, chunks(11 * MiB, new Error("transform failed")), FACTS),
    ).rejects.toThrow("transform failed");
    expect(sent).toContain("UploadPartCommand");
    expect(sent).toContain("AbortMultipartUploadCommand");
    expect(sent).not.toContain("CompleteMultipartUploadCommand");
    expect(await exists("published", key)).toBe(false);
  });

  it("withdraws a copy, and withdrawing it again succeeds", async () => {
    const key = "acme/s-1/SMALL.layer-c.jsonl";
    await publisher.publishCopy(key, chunks(1000), FACTS);
    expect(await exists("published", key)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: "published", Key: key }));
    expect(head.CacheControl).toBe(PUBLISHED_CACHE_CONTROL);
    await publisher.withdrawCopy(key);
    expect(await exists("published", key)).toBe(false);
    await publisher.withdrawCopy(key);
  });

  it("writes a verdict document as application/json", async () => {
    await publisher.putDocument("results/acme/s-1/REPLAY.jsonl.json", '{"verdict":"passed"}');
    const out = await s3.send(
      new GetObjectCommand({ Bucket: "reports", Key: "results/acme/s-1/REPLAY.jsonl.json" }),
    );
    expect(out.ContentType).toBe("application/json");
    expect(await out.Body?.transformToString()).toBe('{"verdict":"passed"}');
  });
});

describe("s3rver in this process", () => {
  it("pages a truncated listing (its continuation token needs the legacy OpenSSL provider)", async () => {
    for (let n = 0; n < 5; n++)
      await s3.send(new PutObjectCommand({ Bucket: "reports", Key: `list/${n}`, Body: "x" }));
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await s3.send(
        new ListObjectsV2Command({
          Bucket: "reports",
          Prefix: "list/",
          MaxKeys: 2,
          ContinuationToken: token,
        }),
      );
      keys.push(...(out.Contents ?? []).map((o) => o.Key ?? ""));
      token = out.NextContinuationToken;
    } while (token);
    expect(keys).toEqual(["list/0", "list/1", "list/2", "list/3", "list/4"]);
  });
});

describe("the local S3 front refuses keys s3rver would store outside their bucket or fail on", () => {
  /** A raw PUT of `path` (no URL normalization: `..` reaches the server as sent). */
  function rawPut(path: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(server.endpoint);
    return new Promise((resolve, reject) => {
      const req = request(
        { hostname, port, path, method: "PUT", headers: { "content-length": "1" } },
        (res) => {
          let body = "";
          res.on("data", (c: Buffer) => {
            body += c.toString("utf8");
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end("x");
    });
  }

  it("a '..' segment: 400 InvalidArgument, and nothing lands in the other bucket", async () => {
    for (const path of [
      "/ingest/t/../../published/t/s/evil.layer-c.jsonl",
      "/ingest/t/%2E%2E/%2e%2e/published/evil",
    ]) {
      const r = await rawPut(path);
      expect(r.status, path).toBe(400);
      expect(r.body).toContain("<Code>InvalidArgument</Code>");
    }
    expect(await exists("published", "t/s/evil.layer-c.jsonl")).toBe(false);
    expect(await exists("published", "evil")).toBe(false);
  });

  it("a segment over 255 bytes: KeyTooLongError through the SDK, and the server keeps serving", async () => {
    await expect(put(`t/s/${"x".repeat(300)}.jsonl`, bytes(10))).rejects.toMatchObject({
      name: "KeyTooLongError",
    });
    expect(await put("t/s/after.jsonl", bytes(10))).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the local S3 front and the SDK's default (aws-chunked) uploads", () => {
  /** A client with the SDK's defaults: checksums when supported, which frames stream bodies as aws-chunked. */
  const plain = () =>
    new S3Client({
      region: "us-east-1",
      endpoint: server.endpoint,
      credentials: S3RVER_CREDENTIALS,
      forcePathStyle: true,
    });

  /** The bytes stored at `key` in the ingest bucket, and the content encoding kept with them. */
  async function stored(key: string): Promise<{ data: Buffer; encoding: string | undefined }> {
    const out = await s3.send(new GetObjectCommand({ Bucket: "ingest", Key: key }));
    const data = Buffer.from(
      await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    return { data, encoding: out.ContentEncoding };
  }

  it("a stream body (aws-chunked, trailing CRC32) is stored byte for byte, without the aws-chunked encoding", async () => {
    const client = plain();
    onTestFinished(() => client.destroy());
    const sent: Record<string, string>[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        sent.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: "finalizeRequest", name: "record-headers" },
    );
    const parts = [Buffer.from("hello "), Buffer.from("world\n")];
    await client.send(
      new PutObjectCommand({
        Bucket: "ingest",
        Key: "t/s/stream.jsonl",
        Body: Readable.from(parts),
        ContentLength: 12,
      }),
    );
    // What the SDK sent is what this front decodes.
    expect(sent[0]).toMatchObject({
      "content-encoding": "aws-chunked",
      "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
      "x-amz-trailer": "x-amz-checksum-crc32",
    });
    expect(await stored("t/s/stream.jsonl")).toEqual({ data: Buffer.concat(parts), encoding: undefined });
  });

  it("a multi-MB stream in many chunks, and lib-storage's Upload (a stream of unknown length) with the defaults", async () => {
    const client = plain();
    onTestFinished(() => client.destroy());
    const data = Buffer.concat([bytes(3 * MiB), Buffer.from("tail")]);
    const pieces = Array.from({ length: Math.ceil(data.length / 65_536) }, (_, i) =>
      data.subarray(i * 65_536, (i + 1) * 65_536),
    );
    await client.send(
      new PutObjectCommand({
        Bucket: "ingest",
        Key: "t/s/big.jsonl",
        Body: Readable.from(pieces),
        ContentLength: data.length,
      }),
    );
    expect((await stored("t/s/big.jsonl")).data.equals(data)).toBe(true);
    const big = Buffer.concat([data, data]);
    await new Upload({
      client,
      params: { Bucket: "ingest", Key: "t/s/upload.jsonl", Body: Readable.from([big]) },
    }).done();
    expect((await stored("t/s/upload.jsonl")).data.equals(big)).toBe(true);
  });

  it("a multipart upload whose parts are streams (each part aws-chunked)", async () => {
    const client = plain();
    onTestFinished(() => client.destroy());
    const part1 = bytes(5 * MiB);
    const part2 = Buffer.from("the last part\n");
    const key = "t/s/parts.jsonl";
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: "ingest", Key: key }));
    const parts = [];
    for (const [i, data] of [part1, part2].entries()) {
      const out = await client.send(
        new UploadPartCommand({
          Bucket: "ingest",
          Key: key,
          UploadId,
          PartNumber: i + 1,
          Body: Readable.from([data.subarray(0, 1000), data.subarray(1000)]),
          ContentLength: data.length,
        }),
      );
      parts.push({ ETag: out.ETag, PartNumber: i + 1 });
    }
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: "ingest",
        Key: key,
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    expect((await stored(key)).data.equals(Buffer.concat([part1, part2]))).toBe(true);
  });

  it("a wrong trailing checksum or a body cut short: a 400 with S3's code, and the old version kept", async () => {
    await put("t/s/kept.jsonl", Buffer.from("old\n"));
    const { hostname, port } = new URL(server.endpoint);
    const chunked = (body: string, extra: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            hostname,
            port,
            path: "/ingest/t/s/kept.jsonl",
            method: "PUT",
            headers: {
              "content-encoding": "aws-chunked",
              "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
              "x-amz-decoded-content-length": "4",
              "x-amz-trailer": "x-amz-checksum-crc32",
              ...extra,
            },
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => {
              text += c.toString("utf8");
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    const crcOfNew = "NApQyA=="; // CRC32 of "new\n"
    const good = `4\r\nnew\n\r\n0\r\nx-amz-checksum-crc32:${crcOfNew}\r\n\r\n`;
    for (const [body, code] of [
      [good.replace(crcOfNew, "AAAAAA=="), "BadDigest"],
      [good.slice(0, 6), "IncompleteBody"],
      ["zz\r\n", "InvalidRequest"],
    ] as const) {
      const answer = await chunked(body);
      expect(answer.status, code).toBe(400);
      expect(answer.body, code).toContain(`<Code>${code}</Code>`);
      expect((await stored("t/s/kept.jsonl")).data.toString(), code).toBe("old\n");
    }
    const unknown = await chunked(good, { "x-amz-trailer": "x-amz-checksum-md7" });
    expect(unknown.body).toMatch(/<Code>InvalidRequest<\/Code>.*x-amz-checksum-md7/);
    expect((await chunked(good)).status).toBe(200);
    expect((await stored("t/s/kept.jsonl")).data.toString()).toBe("new\n");
  });

  it("a buffer body with the defaults (sent unframed) is stored byte for byte", async () => {
    const client = plain();
    onTestFinished(() => client.destroy());
    const data = Buffer.from('{"type":"ReplayHeader"}\n');
    await client.send(new PutObjectCommand({ Bucket: "ingest", Key: "t/s/buffer.jsonl", Body: data }));
    const out = await s3.send(new GetObjectCommand({ Bucket: "ingest", Key: "t/s/buffer.jsonl" }));
    const stored = await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
    expect(Buffer.from(stored)).toEqual(data);
  });
});

describe("temporary folders of local S3 servers", () => {
  it("a new in-memory server removes the folders of servers whose process is gone, not of live ones", async () => {
    // The highest pid Linux hands out is 4194304: one above it never runs.
    const dead = await mkdtemp(join(tmpdir(), "s3rver-4194305-"));
    const live = await mkdtemp(join(tmpdir(), `s3rver-${process.pid}-keep-`));
    onTestFinished(() => rm(live, { recursive: true, force: true }));
    const other = await startS3rver({});
    await other.close();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});
