/**
 * The local stack across restarts: what it processed keeps its verdict and is not redone; what was
 * stored while it was down is processed when it starts; an object a crash left torn is set aside.
 * And uploads with the SDK's defaults (aws-chunked stream bodies) stored intact.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { describe, expect, it, onTestFinished } from "vitest";
import { S3RVER_CREDENTIALS, startS3rver } from "../../cli/local/servers.js";
import { LocalStack, type StackOutcome } from "../../cli/local/stack.js";
import { makeS3Client } from "../../functions/lib/aws-clients.js";
import { corpusBytes, corpusPath, PROJECT_ROOT } from "../support/corpus.js";

const FIX_AUTH = await readFile(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));

async function started(root: string, outcomes: StackOutcome[]): Promise<LocalStack> {
  return LocalStack.start({
    root,
    s3Port: 0,
    dynamoPort: 0,
    retryDelayMs: 50,
    onOutcome: (o) => outcomes.push(o),
  });
}

describe("local stack restarts", () => {
  it("a restart processes only objects without a verdict of their version", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-stack-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));

    const first: StackOutcome[] = [];
    let stack = await started(root, first);
    for (const key of ["t/s1/a.REPLAY.jsonl", "t/s1/b.REPLAY.jsonl"])
      await stack.s3.send(
        new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: key, Body: FIX_AUTH }),
      );
    await stack.settled();
    expect(first.map((o) => o.key).sort()).toEqual(["t/s1/a.REPLAY.jsonl", "t/s1/b.REPLAY.jsonl"]);
    await stack.close();

    // While the stack is down, a new object and a new version of an old one are stored.
    const s3server = await startS3rver({ dataDir: join(root, "data"), buckets: ["ingest"] });
    const s3 = makeS3Client({
      region: "us-east-1",
      endpoint: s3server.endpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    await s3.send(new PutObjectCommand({ Bucket: "ingest", Key: "t/s1/c.REPLAY.jsonl", Body: FIX_AUTH }));
    await s3.send(
      new PutObjectCommand({
        Bucket: "ingest",
        Key: "t/s1/b.REPLAY.jsonl",
        Body: Buffer.concat([FIX_AUTH, Buffer.from("\n")]),
      }),
    );
    s3.destroy();
    await s3server.close();

    const second: StackOutcome[] = [];
    stack = await started(root, second);
    onTestFinished(() => stack.close());
    await stack.settled();
    expect(second.map((o) => o.key).sort()).toEqual(["t/s1/b.REPLAY.jsonl", "t/s1/c.REPLAY.jsonl"]);
    expect(await stack.recordOf("t/s1/a.REPLAY.jsonl")).not.toBeNull();
  });
});

describe("local stack: a torn object at start", () => {
  it("is reported by its key and set aside (bytes kept); the stack starts and processes the others", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-stack-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    let stack = await started(root, []);
    for (const key of ["t/s1/a.REPLAY.jsonl", "t/s1/b.REPLAY.jsonl"])
      await stack.s3.send(
        new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: key, Body: FIX_AUTH }),
      );
    await stack.settled();
    await stack.close();

    // While the stack is down: a new object, then a crash leaves one metadata file empty (a) and
    // another missing (c, whose write had just begun).
    const s3server = await startS3rver({ dataDir: join(root, "data"), buckets: ["ingest"] });
    const s3 = makeS3Client({
      region: "us-east-1",
      endpoint: s3server.endpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    for (const key of ["t/s1/c.REPLAY.jsonl", "t/s1/d.REPLAY.jsonl"])
      await s3.send(new PutObjectCommand({ Bucket: "ingest", Key: key, Body: FIX_AUTH }));
    s3.destroy();
    await s3server.close();
    const folder = join(root, "data", "s3", "ingest", "t", "s1");
    await writeFile(join(folder, "a.REPLAY.jsonl._S3rver_metadata.json"), "");
    await rm(join(folder, "c.REPLAY.jsonl._S3rver_metadata.json"));

    const outcomes: StackOutcome[] = [];
    stack = await started(root, outcomes);
    onTestFinished(() => stack.close());
    await stack.settled();
    expect(stack.torn.map(({ bucket, key }) => `${bucket}/${key}`).sort()).toEqual([
      "ingest/t/s1/a.REPLAY.jsonl",
      "ingest/t/s1/c.REPLAY.jsonl",
    ]);
    expect(stack.torn.find((t) => t.key === "t/s1/a.REPLAY.jsonl")?.reason).toMatch(/metadata file is empty/);
    expect(stack.torn.find((t) => t.key === "t/s1/c.REPLAY.jsonl")?.reason).toMatch(/no metadata file/);
    // The others: listed, and the one stored while the stack was down processed.
    expect(outcomes.map((o) => o.key)).toEqual(["t/s1/d.REPLAY.jsonl"]);
    const listed = await stack.s3.send(new ListObjectsV2Command({ Bucket: stack.info.ingestBucket }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      "t/s1/b.REPLAY.jsonl",
      "t/s1/d.REPLAY.jsonl",
    ]);
    // Set aside with its bytes, never deleted.
    const aside = stack.torn.find((t) => t.key === "t/s1/a.REPLAY.jsonl")?.setAsideIn ?? "";
    expect(aside.startsWith(join(root, "data", "torn"))).toBe(true);
    expect(await readdir(aside)).toContain("a.REPLAY.jsonl._S3rver_object");
    expect(await readFile(join(aside, "a.REPLAY.jsonl._S3rver_object"))).toEqual(FIX_AUTH);
  });

  it("an object cut short while rewritten (its bytes newer than and unlike its MD5) is torn too", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-stack-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const s3server = await startS3rver({ dataDir: join(root, "data"), buckets: ["ingest"] });
    const s3 = makeS3Client({
      region: "us-east-1",
      endpoint: s3server.endpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    await s3.send(new PutObjectCommand({ Bucket: "ingest", Key: "t/s1/e.REPLAY.jsonl", Body: FIX_AUTH }));
    s3.destroy();
    await s3server.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const object = join(root, "data", "s3", "ingest", "t", "s1", "e.REPLAY.jsonl._S3rver_object");
    await writeFile(object, FIX_AUTH.subarray(0, 100));

    const again = await startS3rver({ dataDir: join(root, "data"), buckets: ["ingest"] });
    onTestFinished(() => again.close());
    expect(again.torn).toMatchObject([
      { bucket: "ingest", key: "t/s1/e.REPLAY.jsonl", reason: expect.stringMatching(/MD5/) },
    ]);
  });
});

describe("local stack: uploads with the SDK's defaults", () => {
  const REPLAY = ["openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl"] as const;

  it("a stream body (aws-chunked with a trailing checksum) and lib-storage's Upload: same bytes back, passed", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-stack-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const stack = await started(root, []);
    onTestFinished(() => stack.close());
    // A client as a user makes one: every setting left at its default (checksums WHEN_SUPPORTED).
    const client = new S3Client({
      region: stack.info.region,
      endpoint: stack.info.s3Endpoint,
      credentials: S3RVER_CREDENTIALS,
      forcePathStyle: true,
    });
    onTestFinished(() => client.destroy());
    const encodings: string[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        encodings.push(
          (args.request as { headers: Record<string, string> }).headers["content-encoding"] ?? "",
        );
        return next(args);
      },
      { step: "finalizeRequest", name: "record-encoding" },
    );
    const bucket = stack.info.ingestBucket;
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: "t/sdk/put.REPLAY.jsonl",
        Body: createReadStream(corpusPath(...REPLAY)),
      }),
    );
    await new Upload({
      client,
      params: {
        Bucket: bucket,
        Key: "t/sdk/upload.REPLAY.jsonl",
        Body: createReadStream(corpusPath(...REPLAY)),
      },
    }).done();
    await stack.settled();
    expect(encodings[0]).toBe("aws-chunked");
    for (const key of ["t/sdk/put.REPLAY.jsonl", "t/sdk/upload.REPLAY.jsonl"]) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect(Buffer.from(await (out.Body?.transformToByteArray() ?? new Uint8Array())), key).toEqual(
        corpusBytes(...REPLAY),
      );
      expect(await stack.recordOf(key), key).toMatchObject({ verdict: "passed" });
    }
  });
});

describe("local stack: every input problem a recorded verdict, none retried or dead-lettered", () => {
  it("a 1,022-byte key, a gzip bomb and a 1 MB receipt: each recorded once", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-stack-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const outcomes: StackOutcome[] = [];
    const stack = await started(root, outcomes);
    onTestFinished(() => stack.close());
    const s3 = makeS3Client({
      region: stack.info.region,
      endpoint: stack.info.s3Endpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    onTestFinished(() => s3.destroy());
    const put = (Key: string, Body: Buffer | string) =>
      s3.send(new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key, Body }));
    // Segments of at most 255 bytes (the front refuses longer ones), 1,022 bytes in all.
    const longKey =
      `acme/s/${"a".repeat(250)}/${"b".repeat(250)}/${"c".repeat(250)}/${"d".repeat(250)}/x.jsonl`.slice(
        0,
        1016,
      );
    const key1022 = `${longKey}.jsonl`;
    expect(Buffer.byteLength(key1022)).toBe(1022);
    await put(key1022, FIX_AUTH);
    await put("acme/s/bomb.jsonl.gz", gzipSync(Buffer.alloc(96 * 1024 * 1024), { level: 9 }));
    await put("acme/s/REPLAY.jsonl", FIX_AUTH);
    const receipt = (
      await readFile(join(PROJECT_ROOT, "examples", "fix-auth.RECEIPT.json"), "utf8")
    ).replaceAll(/"tool": "[^"]*"/g, `"tool": "${"\u20ac".repeat(150_000)}"`);
    expect(Buffer.byteLength(receipt)).toBeGreaterThan(900_000);
    await stack.settled();
    await put("acme/s/RECEIPT.json", receipt);
    await stack.settled();
    expect(await stack.recordOf(key1022)).toMatchObject({
      kind: "rejected",
      verdict: "invalid",
      first_error: { code: "key.shape" },
    });
    expect(await stack.recordOf("acme/s/bomb.jsonl.gz")).toMatchObject({
      verdict: "invalid",
      first_error: { code: "gzip.ratio" },
    });
    expect(await stack.recordOf("acme/s/RECEIPT.json")).toMatchObject({ kind: "receipt" });
    const checks = await stack.index.listChecks("acme", "s");
    expect(checks.map((c) => [c.replay.key, c.verdict])).toEqual([["acme/s/REPLAY.jsonl", "failed"]]);
    expect(outcomes.filter((o) => o.type !== "verdict")).toEqual([]);
  });
});
