/**
 * The whole pipeline on the local stack, with the real SDK against s3rver and dynalite: upload →
 * S3 notification → queue → the ingest handler → verdict, Layer C copy, verdict document and
 * index; receipts in any order; redelivery; a burst of uploads; faults and poison files.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { QueryCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createdNotification } from "../../cli/local/notifications.js";
import { LocalStack, type StackOutcome } from "../../cli/local/stack.js";
import { layerCKey, parseObjectKey, verdictKey } from "../../shared/pipeline/keys.js";
import { serviceError } from "../support/aws-fakes.js";
import { exampleReplays, PROJECT_ROOT } from "../support/corpus.js";
import { objectExists } from "../support/s3-objects.js";
import { tempDir } from "../support/temp.js";

const example = (name: string): Buffer => readFileSync(join(PROJECT_ROOT, "examples", name));
const FIX_AUTH = example("fix-auth.REPLAY.jsonl");
const RECEIPT = example("fix-auth.RECEIPT.json");
let stack: LocalStack;
let root: string;
const outcomes: StackOutcome[] = [];

async function upload(key: string, body: Uint8Array | string): Promise<string> {
  const out = await stack.s3.send(
    new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: key, Body: body }),
  );
  return (out.ETag ?? "").replaceAll('"', "");
}

const exists = (bucket: string, key: string): Promise<boolean> => objectExists(stack.s3, bucket, key);

/** The receipt check items of a session. */
async function checksOf(tenant: string, session: string): Promise<Record<string, unknown>[]> {
  const out = await stack.dynamo.send(
    new QueryCommand({
      TableName: stack.info.tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
      ExpressionAttributeValues: { ":pk": `T#${tenant}#S#${session}`, ":p": "RECEIPT#" },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

function outcomesOf(key: string): StackOutcome[] {
  return outcomes.filter((o) => o.key === key);
}

beforeAll(async () => {
  root = tempDir("stack-");
  stack = await LocalStack.start({
    root,
    memory: true,
    s3Port: 0,
    dynamoPort: 0,
    retryDelayMs: 50,
    maxReceives: 3,
    onOutcome: (o) => outcomes.push(o),
  });
});

afterAll(async () => {
  await stack?.close();
});

describe("the local stack: upload → verdict → Layer C → index", () => {
  it.each(exampleReplays())("%s", async (name) => {
    const key = `acme/formats/${name}`;
    await upload(key, example(name));
    await stack.settled();
    const record = await stack.recordOf(key);
    expect(record).toMatchObject({ tenant: "acme", session: "formats", file: name, kind: "replay" });
    expect(["passed", "unverifiable"]).toContain(record?.verdict);
    const parsed = parseObjectKey(key);
    if (!parsed.ok) throw new Error("key");
    expect(record?.layer_c_key).toBe(layerCKey(parsed.key));
    expect(await exists(stack.info.publishedBucket, layerCKey(parsed.key))).toBe(true);
    const doc = await stack.s3.send(
      new GetObjectCommand({ Bucket: stack.info.reportsBucket, Key: verdictKey(key) }),
    );
    expect(JSON.parse(await (doc.Body?.transformToString() ?? ""))).toMatchObject({
      verdict: record?.verdict,
    });
    expect((await stack.index.listFiles("acme", "formats")).map((r) => r.file)).toContain(name);
  });

  it("records a key that breaks the rules as invalid, and a file with a space in its name", async () => {
    await upload("acme/too/many/parts.jsonl", FIX_AUTH);
    await upload("acme/spaces/fix auth+1.REPLAY.jsonl", FIX_AUTH);
    await stack.settled();
    // Its tenant segment is a name: filed in acme's area (where acme's role reads it), not `_rejected`.
    const rejected = await stack.recordOf("acme/too/many/parts.jsonl");
    expect(rejected).toMatchObject({
      kind: "rejected",
      verdict: "invalid",
      tenant: "acme",
      session: "_rejected",
    });
    expect(rejected?.verdict_key).toMatch(/^results\/acme\/_rejected\/[0-9a-f]{64}\.json$/);
    expect((await stack.index.listFiles("acme", "_rejected")).map((r) => r.ref.key)).toContain(
      "acme/too/many/parts.jsonl",
    );
    expect(await stack.recordOf("acme/spaces/fix auth+1.REPLAY.jsonl")).toMatchObject({ verdict: "passed" });
  });

  it("rejects a key holding a secret: no copy, no index item, no report holds it", async () => {
    const secret = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
    const key = `acme/leaky/${secret}.REPLAY.jsonl`;
    await upload(key, FIX_AUTH);
    await stack.settled();
    const record = await stack.recordOf(key);
    expect(record).toMatchObject({
      kind: "rejected",
      verdict: "invalid",
      first_error: { code: "key.redacted" },
    });
    expect(record?.ref.key).not.toContain(secret);
    expect(await stack.index.listFiles("acme", "leaky")).toEqual([]);
    for (const bucket of [stack.info.publishedBucket, stack.info.reportsBucket]) {
      const listed = await stack.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
      expect(JSON.stringify(listed.Contents ?? [])).not.toContain(secret);
    }
    const items = await stack.dynamo.send(new ScanCommand({ TableName: stack.info.tableName }));
    expect(JSON.stringify(items.Items)).not.toContain(secret);
  });
});

describe("receipts in any order", () => {
  it.each([
    [
      "before",
      async (t: string) => {
        await upload(`acme/${t}/RECEIPT.json`, RECEIPT);
        await stack.settled();
        await upload(`acme/${t}/REPLAY.jsonl`, FIX_AUTH);
      },
    ],
    [
      "after",
      async (t: string) => {
        await upload(`acme/${t}/REPLAY.jsonl`, FIX_AUTH);
        await stack.settled();
        await upload(`acme/${t}/RECEIPT.json`, RECEIPT);
      },
    ],
    [
      "at the same time",
      async (t: string) => {
        await Promise.all([
          upload(`acme/${t}/REPLAY.jsonl`, FIX_AUTH),
          upload(`acme/${t}/RECEIPT.json`, RECEIPT),
        ]);
      },
    ],
  ])("a receipt %s its replay is checked once, and passes", async (_, steps) => {
    const session = `receipt-${outcomes.length}`;
    await steps(session);
    await stack.settled();
    const checks = await checksOf("acme", session);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ verdict: "passed" });
    expect(await stack.recordOf(`acme/${session}/REPLAY.jsonl`)).toMatchObject({ verdict: "passed" });
  });

  it("withdraws the published copy of a replay its receipt fails", async () => {
    // Its own hashes still pass (latency is not hashed); its replay_hash no longer matches the receipt's.
    const other = FIX_AUTH.toString("utf8").replace('"latency_ms":45', '"latency_ms":46');
    await upload("acme/mismatch/REPLAY.jsonl", other);
    await stack.settled();
    expect(await exists(stack.info.publishedBucket, "acme/mismatch/REPLAY.layer-c.jsonl")).toBe(true);
    await upload("acme/mismatch/RECEIPT.json", RECEIPT);
    await stack.settled();
    const checks = await checksOf("acme", "mismatch");
    expect(checks).toHaveLength(1);
    expect(checks[0]?.verdict).toBe("failed");
    expect((await stack.recordOf("acme/mismatch/REPLAY.jsonl"))?.layer_c_key).toBeNull();
    expect(await exists(stack.info.publishedBucket, "acme/mismatch/REPLAY.layer-c.jsonl")).toBe(false);
  });
});

describe("delivery", () => {
  it("processes what the deployed notification's suffix filters pass, compared case-sensitively as S3 does", async () => {
    await upload("acme/suffixes/REPLAY.JSONL", FIX_AUTH);
    await upload("acme/suffixes/notes.txt", "hello");
    await upload("acme/suffixes/REPLAY.jsonl", FIX_AUTH);
    await stack.settled();
    expect(await stack.recordOf("acme/suffixes/REPLAY.jsonl")).not.toBeNull();
    expect(await stack.recordOf("acme/suffixes/REPLAY.JSONL")).toBeNull();
    expect(await stack.recordOf("acme/suffixes/notes.txt")).toBeNull();
  });

  it("the same event delivered three times is processed once", async () => {
    const key = "acme/redelivered/REPLAY.jsonl";
    const etag = await upload(key, FIX_AUTH);
    await stack.settled();
    const first = await stack.recordOf(key);
    const body = createdNotification({
      bucket: "ingest",
      key,
      size: FIX_AUTH.length,
      eTag: etag,
      sequencer: "01",
    });
    for (let i = 0; i < 3; i++) stack.send(key, body);
    await stack.settled();
    expect(outcomesOf(key)).toHaveLength(4);
    for (const o of outcomesOf(key))
      expect(o.type === "verdict" && o.record.processed_at).toBe(first?.processed_at);
  });

  it("200 files uploaded at once are each processed exactly once", async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `burst/s${i % 7}/f${i}.REPLAY.jsonl`);
    await Promise.all(keys.map((key) => upload(key, FIX_AUTH)));
    await stack.settled();
    for (const key of keys) expect(outcomesOf(key).map((o) => o.type)).toEqual(["verdict"]);
    let total = 0;
    for (let s = 0; s < 7; s++) total += (await stack.index.listFiles("burst", `s${s}`)).length;
    expect(total).toBe(200);
  });

  it("a transient fault fails only its record, which is retried and then dead-lettered; a poison input is a verdict", async () => {
    const name = `fail-${Math.random()}`;
    stack.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: string };
        if (context.commandName === "GetObjectCommand" && input.Key === "acme/poison/slow.jsonl")
          throw serviceError("SlowDown", 503);
        return next(args);
      },
      { step: "initialize", name },
    );
    onTestFinished(() => {
      stack.s3.middlewareStack.remove(name);
    });
    await Promise.all([
      upload("acme/poison/slow.jsonl", FIX_AUTH),
      upload("acme/poison/garbage.jsonl", Buffer.from([0xff, 0xfe, 0x00, 0x7b])),
      upload("acme/poison/good.REPLAY.jsonl", FIX_AUTH),
    ]);
    await stack.settled();
    expect(outcomesOf("acme/poison/slow.jsonl").map((o) => o.type)).toEqual([
      "retry",
      "retry",
      "dead-letter",
    ]);
    expect(outcomesOf("acme/poison/garbage.jsonl").map((o) => o.type)).toEqual(["verdict"]);
    expect(await stack.recordOf("acme/poison/garbage.jsonl")).toMatchObject({ verdict: "invalid" });
    expect(await stack.recordOf("acme/poison/good.REPLAY.jsonl")).toMatchObject({ verdict: "passed" });
    expect(await stack.recordOf("acme/poison/slow.jsonl")).toBeNull();
    const dead = readdirSync(join(root, "dlq")).map((f) =>
      JSON.parse(readFileSync(join(root, "dlq", f), "utf8")),
    );
    expect(dead).toEqual([expect.objectContaining({ key: "acme/poison/slow.jsonl", receives: 3 })]);
  });
});
