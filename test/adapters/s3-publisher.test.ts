import "aws-sdk-client-mock-vitest/extend";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CloudFrontClient,
  CloudFrontServiceException,
  CreateInvalidationCommand,
} from "@aws-sdk/client-cloudfront";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { S3ObjectSource } from "../../functions/adapters/s3-objects.js";
import { PUBLISHED_CACHE_CONTROL, S3Publisher } from "../../functions/adapters/s3-publisher.js";
import { TransientError } from "../../shared/errors.js";
import { catalogueShardKeys, catalogueShardOf } from "../../shared/pipeline/catalogue.js";
import type { CatalogueManifest, CatalogueShard, CopyFacts } from "../../shared/pipeline/catalogue-types.js";
import { memorySpool } from "../../shared/spool/index.js";
import { body, bytes, serviceError, textObjects } from "../support/aws-fakes.js";
import { PROJECT_ROOT } from "../support/corpus.js";

const MiB = 1024 * 1024;
const client = new S3Client({ region: "us-east-1" });
const s3 = mockClient(client);
const publisher = new S3Publisher(client, { publishedBucket: "published", reportsBucket: "reports" });
const cfClient = new CloudFrontClient({ region: "us-east-1" });
const cloudFront = mockClient(cfClient);
/** A publisher behind distribution E2QWRUHAPOMQZL. */
const fronted = new S3Publisher(client, {
  publishedBucket: "published",
  reportsBucket: "reports",
  distribution: { client: cfClient, id: "E2QWRUHAPOMQZL" },
});

/** A CloudFront service error as the SDK raises it. */
function cloudFrontError(name: string, status: number): CloudFrontServiceException {
  return new CloudFrontServiceException({
    name,
    $fault: status >= 500 ? "server" : "client",
    $metadata: { httpStatusCode: status },
    message: `${name} (fake)`,
  });
}

/** `total` bytes in 1 MiB chunks, then `failure` if given. */
async function* copy(total: number, failure?: Error): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < total; sent += MiB) yield bytes(Math.min(MiB, total - sent));
  if (failure) throw failure;
}

/** What the pipeline says of every copy these tests publish. */
const FACTS = {
  replay_hash: "a".repeat(64),
  verdict: "passed" as const,
  attestation: "results/t/s/REPLAY.jsonl.intoto.json",
};

/** The text objects PutObject stored (the catalogue's). */
let stored = new Map<string, { body: string; etag: string; metadata: Record<string, string> }>();

function fakeBucket(): void {
  stored = textObjects(s3);
}

/** The PutObject calls of `key`. */
function putsOf(key: string) {
  return s3.commandCalls(PutObjectCommand).filter((call) => call.args[0].input.Key === key);
}

beforeEach(() => {
  s3.reset();
  cloudFront.reset();
  cloudFront.on(CreateInvalidationCommand).resolves({ Invalidation: undefined });
  s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "up-1" });
  s3.on(UploadPartCommand).callsFake((input: { PartNumber?: number }) => ({
    ETag: `"part-${input.PartNumber}"`,
  }));
  s3.on(CompleteMultipartUploadCommand).resolves({});
  s3.on(AbortMultipartUploadCommand).resolves({});
  fakeBucket();
});

describe("S3Publisher.publishCopy", () => {
  it("writes a copy under one part with a single PUT to the published bucket", async () => {
    await publisher.publishCopy("t/s/REPLAY.layer-c.jsonl", copy(2 * MiB), FACTS);
    expect(putsOf("t/s/REPLAY.layer-c.jsonl")).toHaveLength(1);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: "published",
      Key: "t/s/REPLAY.layer-c.jsonl",
    });
    expect(s3).not.toHaveReceivedCommand(CreateMultipartUploadCommand);
  });

  it("writes every copy, single PUT or multipart, with a short Cache-Control", async () => {
    expect(PUBLISHED_CACHE_CONTROL).toMatch(/^max-age=([1-9]\d{0,2})$/);
    await publisher.publishCopy("t/s/small.layer-c.jsonl", copy(MiB), FACTS);
    await publisher.publishCopy("t/s/big.layer-c.jsonl", copy(12 * MiB), FACTS);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
      Key: "t/s/small.layer-c.jsonl",
      CacheControl: PUBLISHED_CACHE_CONTROL,
    });
    expect(s3).toHaveReceivedCommandWith(CreateMultipartUploadCommand, {
      Key: "t/s/big.layer-c.jsonl",
      CacheControl: PUBLISHED_CACHE_CONTROL,
    });
  });

  it("writes a copy beyond 5 MiB in parts and completes the upload", async () => {
    await publisher.publishCopy("t/s/big.layer-c.jsonl", copy(12 * MiB), FACTS);
    expect(s3).toHaveReceivedCommandTimes(UploadPartCommand, 3);
    expect(s3).toHaveReceivedCommandOnce(CompleteMultipartUploadCommand);
    expect(s3).not.toHaveReceivedCommand(AbortMultipartUploadCommand);
  });

  it("aborts the multipart upload when the body fails mid-copy, throwing the body's error", async () => {
    const failure = new Error("layer C transform failed");
    await expect(publisher.publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB, failure), FACTS)).rejects.toBe(
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
    await expect(publisher.publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB, failure), FACTS)).rejects.toBe(
      failure,
    );
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
  });

  it("sends nothing when the body fails before its first part is full", async () => {
    await expect(
      publisher.publishCopy("t/s/x.layer-c.jsonl", copy(MiB, new Error("bad")), FACTS),
    ).rejects.toThrow("bad");
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
      .publishCopy("t/s/big.layer-c.jsonl", source.open(), FACTS)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 2);
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
    expect(s3).not.toHaveReceivedCommand(CompleteMultipartUploadCommand);
  });

  it("maps a throttled part upload to a transient error and aborts the upload", async () => {
    s3.on(UploadPartCommand).rejects(serviceError("SlowDown", 503));
    const error = await publisher
      .publishCopy("t/s/big.layer-c.jsonl", copy(11 * MiB), FACTS)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(s3).toHaveReceivedCommandOnce(AbortMultipartUploadCommand);
  });
});

describe("S3Publisher.withdrawCopy and putDocument", () => {
  it("deletes the copy from the published bucket, then its viewer page (written or not)", async () => {
    s3.on(DeleteObjectCommand).resolves({});
    await publisher.withdrawCopy("t/s/REPLAY.layer-c.jsonl");
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input)).toEqual([
      { Bucket: "published", Key: "t/s/REPLAY.layer-c.jsonl" },
      { Bucket: "published", Key: "t/s/REPLAY.layer-c.jsonl.view.html" },
    ]);
  });

  it("maps a 500 on delete to a transient error", async () => {
    s3.on(DeleteObjectCommand).rejects(serviceError("InternalError", 500));
    await expect(publisher.withdrawCopy("t/s/x")).rejects.toBeInstanceOf(TransientError);
  });

  it("writes a verdict document to the reports bucket as application/json", async () => {
    s3.on(PutObjectCommand).resolves({});
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

describe("S3Publisher.withdrawCopy behind CloudFront", () => {
  beforeEach(() => {
    s3.on(DeleteObjectCommand).resolves({});
  });

  it("without a distribution, only deletes", async () => {
    await publisher.withdrawCopy("t/s/REPLAY.layer-c.jsonl");
    expect(s3).toHaveReceivedCommandTimes(DeleteObjectCommand, 2);
    expect(cloudFront).not.toHaveReceivedAnyCommand();
  });

  it("deletes the copy, then invalidates exactly its path, with a caller reference of its own", async () => {
    const order: string[] = [];
    s3.on(DeleteObjectCommand).callsFake(() => {
      order.push("delete");
      return {};
    });
    cloudFront.on(CreateInvalidationCommand).callsFake(() => {
      order.push("invalidate");
      return {};
    });
    await fronted.withdrawCopy("t/s/REPLAY.layer-c.jsonl");
    await fronted.withdrawCopy("t/s/REPLAY.layer-c.jsonl");
    expect(order).toEqual(["delete", "delete", "invalidate", "delete", "delete", "invalidate"]);
    expect(cloudFront).toHaveReceivedCommandWith(CreateInvalidationCommand, {
      DistributionId: "E2QWRUHAPOMQZL",
      InvalidationBatch: {
        CallerReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
        Paths: { Quantity: 2, Items: ["/t/s/REPLAY.layer-c.jsonl", "/t/s/REPLAY.layer-c.jsonl.view.html"] },
      },
    });
    // A second withdrawal of one path is a second invalidation: CloudFront would answer a reused
    // reference with the first one and clear nothing.
    const references = cloudFront
      .commandCalls(CreateInvalidationCommand)
      .map((call) => call.args[0].input.InvalidationBatch?.CallerReference);
    expect(new Set(references).size).toBe(2);
  });

  it("names the path as CloudFront expects it: each segment percent-encoded, nothing wider", async () => {
    await fronted.withdrawCopy("t/s/my run #2 ü*.layer-c.jsonl");
    expect(cloudFront).toHaveReceivedCommandWith(CreateInvalidationCommand, {
      InvalidationBatch: expect.objectContaining({
        Paths: {
          Quantity: 2,
          Items: [
            "/t/s/my%20run%20%232%20%C3%BC*.layer-c.jsonl",
            "/t/s/my%20run%20%232%20%C3%BC*.layer-c.jsonl.view.html",
          ],
        },
      }),
    });
  });

  it("does not invalidate when the delete fails (nothing was withdrawn yet)", async () => {
    s3.on(DeleteObjectCommand).rejects(serviceError("InternalError", 500));
    await expect(fronted.withdrawCopy("t/s/x.layer-c.jsonl")).rejects.toBeInstanceOf(TransientError);
    expect(cloudFront).not.toHaveReceivedAnyCommand();
  });

  it("a throttled invalidation is transient (the message is retried) and the copy is already gone", async () => {
    for (const [name, status] of [
      ["Throttling", 400],
      ["TooManyInvalidationsInProgress", 400],
      ["ServiceUnavailable", 503],
    ] as const) {
      s3.resetHistory();
      cloudFront.reset();
      cloudFront.on(CreateInvalidationCommand).rejects(cloudFrontError(name, status));
      const error = await fronted.withdrawCopy("t/s/x.layer-c.jsonl").catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(TransientError);
      expect((error as TransientError).kind).toBe("transient");
      expect((error as Error).message).toContain("CreateInvalidation /t/s/x.layer-c.jsonl");
      // Fail closed: the origin no longer has the copy, whatever the cache does meanwhile.
      expect(s3).toHaveReceivedCommandTimes(DeleteObjectCommand, 2);
    }
    // The retry deletes again (already gone: S3 succeeds) and invalidates.
    s3.resetHistory();
    cloudFront.reset();
    cloudFront.on(CreateInvalidationCommand).resolves({});
    await fronted.withdrawCopy("t/s/x.layer-c.jsonl");
    expect(s3).toHaveReceivedCommandTimes(DeleteObjectCommand, 2);
    expect(cloudFront).toHaveReceivedCommandOnce(CreateInvalidationCommand);
  });

  it("an invalidation refused for good (access denied) throws the SDK's error, not a transient one", async () => {
    cloudFront.on(CreateInvalidationCommand).rejects(cloudFrontError("AccessDenied", 403));
    const error = await fronted.withdrawCopy("t/s/x.layer-c.jsonl").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ name: "AccessDenied" });
    expect(s3).toHaveReceivedCommandTimes(DeleteObjectCommand, 2);
  });
});

describe("S3Publisher's catalogue", () => {
  const manifestOf = (tenant: string) =>
    JSON.parse(stored.get(`${tenant}/_catalogue/manifest.json`)?.body ?? "null") as CatalogueManifest | null;
  const shardOf = (copyKey: string) =>
    JSON.parse(
      stored.get(catalogueShardKeys(copyKey.split("/")[0] as string, catalogueShardOf(copyKey)).manifest)
        ?.body ?? "null",
    ) as CatalogueShard | null;

  it("files each copy under its tenant's catalogue: entry, manifest and index, no-cache, one generation", async () => {
    const bytesUp = bytes(3 * MiB);
    async function* one() {
      yield bytesUp;
    }
    await publisher.publishCopy("t/s/REPLAY.layer-c.jsonl", one(), FACTS);
    const entryKey = `t/_catalogue/entries/${createHash("sha256").update("t/s/REPLAY.layer-c.jsonl").digest("hex")}.json`;
    expect(JSON.parse(stored.get(entryKey)?.body ?? "null")).toMatchObject({
      key: "t/s/REPLAY.layer-c.jsonl",
      sha256: createHash("sha256").update(bytesUp).digest("hex"),
      ...FACTS,
      withdrawn_at: null,
    });
    const shard = shardOf("t/s/REPLAY.layer-c.jsonl");
    expect(shard?.copies.map((c) => c.key)).toEqual(["t/s/REPLAY.layer-c.jsonl"]);
    const shardKeys = catalogueShardKeys("t", catalogueShardOf("t/s/REPLAY.layer-c.jsonl"));
    const manifest = manifestOf("t");
    expect(manifest?.shards).toMatchObject([{ shard: shard?.shard, published: 1, withdrawn: 0 }]);
    for (const [keys, generation] of [
      [shardKeys, shard?.generation],
      [{ manifest: "t/_catalogue/manifest.json", index: "t/_catalogue/index.html" }, manifest?.generation],
    ] as const) {
      expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
        Bucket: "published",
        Key: keys.index,
        ContentType: "text/html; charset=utf-8",
        CacheControl: "no-cache",
        Metadata: { generation: generation as string },
      });
      expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
        Key: keys.manifest,
        ContentType: "application/json",
        CacheControl: "no-cache",
      });
      // Written once, then found current: nothing rewritten.
      expect(putsOf(keys.manifest)).toHaveLength(1);
    }
    // Each level: one listing to write, one to find it current.
    expect(s3).toHaveReceivedCommandTimes(ListObjectsV2Command, 4);
  });

  it("marks a withdrawn copy with its time and keeps what it was", async () => {
    await publisher.publishCopy("t/s/A.layer-c.jsonl", copy(MiB), FACTS);
    await publisher.publishCopy("u/s/B.layer-c.jsonl", copy(MiB), FACTS);
    s3.on(DeleteObjectCommand).resolves({});
    await publisher.withdrawCopy("t/s/A.layer-c.jsonl");
    const [row] = shardOf("t/s/A.layer-c.jsonl")?.copies ?? [];
    expect(row?.withdrawn_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(row?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestOf("t")?.shards).toMatchObject([{ published: 0, withdrawn: 1 }]);
    // Tenant u's catalogue is its own.
    expect(shardOf("u/s/B.layer-c.jsonl")?.copies.map((c) => [c.key, c.withdrawn_at])).toEqual([
      ["u/s/B.layer-c.jsonl", null],
    ]);
    expect(manifestOf("u")?.shards).toMatchObject([{ published: 1, withdrawn: 0 }]);
  });

  it("a throttled listing is transient (the message is retried)", async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError("SlowDown", 503));
    const error = await publisher
      .publishCopy("t/s/A.layer-c.jsonl", copy(MiB), FACTS)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain("ListObjectsV2 t/_catalogue/entries/");
  });
});

describe("S3Publisher's viewer pages", () => {
  const paged = new S3Publisher(client, {
    publishedBucket: "published",
    reportsBucket: "reports",
    viewerPages: true,
    spool: memorySpool(),
  });
  const EXAMPLE = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));

  it("writes the page of the bytes that went up beside the copy, then the catalogue that links it", async () => {
    await paged.publishCopy(
      "t/s/REPLAY.layer-c.jsonl",
      (async function* () {
        yield EXAMPLE.subarray(0, 100);
        yield EXAMPLE.subarray(100);
      })(),
      FACTS,
    );
    const order = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key);
    expect(order.slice(0, 2)).toEqual(["t/s/REPLAY.layer-c.jsonl", "t/s/REPLAY.layer-c.jsonl.view.html"]);
    expect(order[2]).toMatch(/^t\/_catalogue\/entries\//);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: "published",
      Key: "t/s/REPLAY.layer-c.jsonl.view.html",
      ContentType: "text/html; charset=utf-8",
      CacheControl: PUBLISHED_CACHE_CONTROL,
    });
    const page = stored.get("t/s/REPLAY.layer-c.jsonl.view.html")?.body ?? "";
    expect(page).toContain(`sha256:${createHash("sha256").update(EXAMPLE).digest("hex")}`);
    expect(page).toContain("file_read");
    const { index } = catalogueShardKeys("t", catalogueShardOf("t/s/REPLAY.layer-c.jsonl"));
    expect(stored.get(index)?.body).toContain('href="../../s/REPLAY.layer-c.jsonl.view.html"');
  });

  it("writes no page when the copy's upload fails", async () => {
    const error = await paged
      .publishCopy("t/s/REPLAY.layer-c.jsonl", copy(MiB, new Error("source broke")), FACTS)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ message: "source broke" });
    expect(putsOf("t/s/REPLAY.layer-c.jsonl.view.html")).toHaveLength(0);
  });
});

describe("S3Publisher: reprocess and batches", () => {
  const text = (s: string) =>
    (async function* () {
      yield Buffer.from(s);
    })();

  /** Publishes with `onKept`; whether the copy was kept. */
  const keeps = async (key: string, body: AsyncIterable<Uint8Array>, facts: CopyFacts) => {
    let kept = false;
    await publisher.publishCopy(key, body, facts, {
      onKept: () => {
        kept = true;
      },
    });
    return kept;
  };

  it("keeps a copy the catalogue lists with the same bytes and facts (onKept), and publishes a changed one", async () => {
    const key = "t/s/k.layer-c.jsonl";
    await publisher.publishCopy(key, text("same"), FACTS);
    expect(putsOf(key)).toHaveLength(1);
    expect(await keeps(key, text("same"), FACTS)).toBe(true);
    expect(putsOf(key)).toHaveLength(1);
    // Other bytes, or other facts: published again, a new version.
    expect(await keeps(key, text("other"), FACTS)).toBe(false);
    expect(await keeps(key, text("other"), { ...FACTS, verdict: "unverifiable" })).toBe(false);
    expect(putsOf(key)).toHaveLength(3);
    // Withdrawn: never kept.
    s3.on(DeleteObjectCommand).resolves({});
    await publisher.withdrawCopy(key);
    expect(await keeps(key, text("other"), { ...FACTS, verdict: "unverifiable" })).toBe(false);
    expect(putsOf(key)).toHaveLength(4);
  });

  it("publishes a copy beyond one part in full even with onKept (it is not read twice)", async () => {
    const key = "t/s/big.layer-c.jsonl";
    await publisher.publishCopy(key, copy(6 * MiB), FACTS);
    expect(await keeps(key, copy(6 * MiB), FACTS)).toBe(false);
    expect(s3).toHaveReceivedCommandTimes(CompleteMultipartUploadCommand, 2);
  });

  it("rebuilds each tenant's catalogue once per batch, when the batch settles, listing every entry", async () => {
    const batch = publisher.batch();
    for (const n of [1, 2, 3]) await batch.publishCopy(`t/s/${n}.layer-c.jsonl`, text(`copy ${n}`), FACTS);
    await batch.publishCopy("u/s/1.layer-c.jsonl", text("u's copy"), FACTS);
    // Entries only so far: no catalogue yet.
    expect(s3).not.toHaveReceivedCommand(ListObjectsV2Command);
    expect(stored.has("t/_catalogue/manifest.json")).toBe(false);
    await batch.settle();
    const tKeys = [1, 2, 3].map((n) => `t/s/${n}.layer-c.jsonl`);
    const tShards = [...new Set(tKeys.map(catalogueShardOf))];
    const listed = tShards.flatMap((shard) => {
      const { manifest } = catalogueShardKeys("t", shard);
      return (JSON.parse(stored.get(manifest)?.body ?? "null") as CatalogueShard).copies.map((c) => c.key);
    });
    expect(listed.sort()).toEqual(tKeys);
    const tenant = JSON.parse(stored.get("t/_catalogue/manifest.json")?.body ?? "null") as CatalogueManifest;
    expect(tenant.schema).toBe("replay-pipeline.catalogue.v2");
    expect(stored.has("u/_catalogue/manifest.json")).toBe(true);
    // Each shard changed and each tenant: one write, and one look after it that found it settled.
    expect(putsOf("t/_catalogue/manifest.json")).toHaveLength(1);
    const levels = tShards.length + 1 + 2;
    expect(s3).toHaveReceivedCommandTimes(ListObjectsV2Command, 2 * levels);
    // The entries it wrote are not read back to build the shards (the store knows them by ETag);
    // each changed copy's entry is read once afterwards, to check its shard holds it at that ETag.
    expect(
      s3.commandCalls(GetObjectCommand).filter((c) => c.args[0].input.Key?.includes("/entries/")),
    ).toHaveLength(4);
    // A tenant touched without a change (a retried file already recorded) is looked at again.
    batch.touch("t");
    await batch.settle();
    // Every shard of the tenant (one listing of its entries, one look per shard), then the tenant.
    expect(s3).toHaveReceivedCommandTimes(ListObjectsV2Command, 2 * levels + 1 + tShards.length + 1);
    expect(putsOf("t/_catalogue/manifest.json")).toHaveLength(1);
  });

  it("settles at once a copy its batch publishes after settling began (a job still running)", async () => {
    const batch = publisher.batch();
    const settling = batch.settle();
    const key = "t/s/late.layer-c.jsonl";
    await batch.publishCopy(key, text("late"), FACTS);
    await settling;
    const { manifest } = catalogueShardKeys("t", catalogueShardOf(key));
    const shard = JSON.parse(stored.get(manifest)?.body ?? "null") as CatalogueShard | null;
    expect(shard?.copies.map((c) => c.key)).toEqual([key]);
  });
});
