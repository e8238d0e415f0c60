import "aws-sdk-client-mock-vitest/extend";
import { readFileSync } from "node:fs";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createdNotification,
  lambdaContext,
  sqsEvent,
  sqsRecord,
  testEventNotification,
} from "../../cli/local/notifications.js";
import { type Config, readConfig } from "../../functions/lib/config.js";
import { decodeEventKey, makeIngestHandler } from "../../functions/lib/ingest.js";
import { body, serviceError, textObjects } from "../support/aws-fakes.js";

const REPLAY = readFileSync(new URL("../../examples/fix-auth.REPLAY.jsonl", import.meta.url));
// Through the real parser, so a setting added later gets its default here too.
const ENV = {
  AWS_REGION: "us-east-1",
  INGEST_BUCKET: "ingest",
  PUBLISHED_BUCKET: "published",
  REPORTS_BUCKET: "reports",
  TABLE_NAME: "index",
};
const config: Config = readConfig(ENV);
const s3Client = new S3Client({
  region: "us-east-1",
  credentials: { accessKeyId: "a", secretAccessKey: "b" },
});
const docClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: "us-east-1", credentials: { accessKeyId: "a", secretAccessKey: "b" } }),
);
const s3 = mockClient(s3Client);
const db = mockClient(docClient);
let output: string[];

function handler() {
  return makeIngestHandler({
    config,
    s3: s3Client,
    dynamo: docClient,
    logger: new Logger({ serviceName: "ingest-test" }),
    metrics: new Metrics({ namespace: "Test", serviceName: "ingest" }),
    toolVersion: "0.0.0-test",
  });
}

/** An SQS record announcing `key` (ETag `e1`) in the ingest bucket. */
function created(key: string, messageId: string, size = REPLAY.length) {
  return sqsRecord(
    createdNotification({ bucket: "ingest", key, size, eTag: "e1", sequencer: "0A" }),
    messageId,
  );
}

/** GetObject of `key` answers the example replay with ETag `etag`. */
function serve(key: string, etag = "e1") {
  s3.on(GetObjectCommand, { Key: key }).callsFake(() => ({
    Body: body(REPLAY),
    ETag: `"${etag}"`,
    ContentLength: REPLAY.length,
  }));
}

/** The JSON lines written to stdout and stderr (logs and EMF metrics). */
function lines(): Record<string, unknown>[] {
  return output
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeEach(() => {
  s3.reset();
  db.reset();
  textObjects(s3);
  db.on(GetCommand).resolves({});
  db.on(QueryCommand).resolves({ Items: [] });
  db.on(PutCommand).resolves({});
  output = [];
  // Logs and EMF lines go to stdout, error logs to stderr: keep both, show neither.
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("decodeEventKey", () => {
  it("turns + into a space and %XX into its character", () => {
    expect(decodeEventKey("acme/s1/my+file%2Bv2%28x%29.jsonl")).toBe("acme/s1/my file+v2(x).jsonl");
  });
});

describe("the ingest handler", () => {
  it("reads the decoded key, records a verdict, and logs and counts it", async () => {
    serve("acme/s1/fix auth+1.REPLAY.jsonl");
    const out = await handler()(
      sqsEvent([created("acme/s1/fix auth+1.REPLAY.jsonl", "m1")]),
      lambdaContext(),
    );
    expect(out.batchItemFailures).toEqual([]);
    expect(s3).toHaveReceivedCommandWith(GetObjectCommand, {
      Bucket: "ingest",
      Key: "acme/s1/fix auth+1.REPLAY.jsonl",
    });
    expect(db).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining({ SK: "FILE#acme/s1/fix auth+1.REPLAY.jsonl" }),
    });
    const log = lines().find((l) => l.message === "processed");
    expect(log).toMatchObject({
      tenant: "acme",
      session: "s1",
      key: "acme/s1/fix auth+1.REPLAY.jsonl",
      verdict: expect.any(String),
      bytes: REPLAY.length,
      ms: expect.any(Number),
      function_request_id: expect.any(String),
    });
    const files = lines().find((l) => "Files" in l);
    expect(files).toMatchObject({ verdict: log?.verdict, Files: 1 });
    expect(lines().some((l) => l.ReceiptsPending === 1 && l.Bytes === REPLAY.length)).toBe(true);
  });

  it("ignores S3's test event: success, nothing read or written", async () => {
    const out = await handler()(sqsEvent([sqsRecord(testEventNotification("ingest"), "t")]), lambdaContext());
    expect(out.batchItemFailures).toEqual([]);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 0);
    expect(db).toHaveReceivedCommandTimes(PutCommand, 0);
  });

  it("fails only the transient and unreadable records of a batch; a bad key is a verdict", async () => {
    serve("acme/s1/good.jsonl");
    s3.on(GetObjectCommand, { Key: "acme/s1/slow.jsonl" }).rejects(serviceError("SlowDown", 503));
    const removed = JSON.parse(
      createdNotification({ bucket: "ingest", key: "acme/s1/x", size: 1, eTag: "e", sequencer: "1" }),
    );
    removed.Records[0].eventName = "ObjectRemoved:Delete";
    const out = await handler()(
      sqsEvent([
        created("acme/s1/good.jsonl", "good"),
        sqsRecord("{not json", "garbled"),
        created("acme/s1/slow.jsonl", "slow"),
        created("no-session.jsonl", "badkey"),
        sqsRecord(JSON.stringify(removed), "removed"),
      ]),
      lambdaContext(),
    );
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "garbled" }, { itemIdentifier: "slow" }]);
    expect(db).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining({ tenant: "_rejected", verdict: "invalid", kind: "rejected" }),
    });
    expect(lines().find((l) => l.message === "failed: the message will be received again")).toMatchObject({
      kind: "transient",
      key: "acme/s1/slow.jsonl",
    });
  });

  it("fails the record on a fault that is not transient (it reaches the dead-letter queue)", async () => {
    s3.on(GetObjectCommand).rejects(serviceError("AccessDenied", 403));
    const out = await handler()(sqsEvent([created("acme/s1/a.jsonl", "denied")]), lambdaContext());
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "denied" }]);
    expect(lines().find((l) => l.kind === "bug")).toBeDefined();
  });

  it("classes a fault as kindOf does: a full disk (ENOSPC, the spool on /tmp) is transient, not a bug", async () => {
    serve("acme/s1/a.jsonl");
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    db.on(PutCommand).rejects(full);
    const out = await handler()(sqsEvent([created("acme/s1/a.jsonl", "full")]), lambdaContext());
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "full" }]);
    expect(lines().find((l) => l.message === "failed: the message will be received again")).toMatchObject({
      kind: "transient",
    });
  });

  it("acknowledges an object replaced since its event: the newer version's event processes it", async () => {
    serve("acme/s1/a.jsonl", "e2");
    const out = await handler()(sqsEvent([created("acme/s1/a.jsonl", "old")]), lambdaContext());
    expect(out.batchItemFailures).toEqual([]);
    expect(db).toHaveReceivedCommandTimes(PutCommand, 0);
  });

  it("refuses a distribution to invalidate without a CloudFront client to do it", () => {
    const fronted = readConfig({ ...ENV, PUBLISHED_DISTRIBUTION_ID: "E2QWRUHAPOMQZL" });
    const make = (cloudFront?: CloudFrontClient) =>
      makeIngestHandler({
        config: fronted,
        s3: s3Client,
        dynamo: docClient,
        ...(cloudFront === undefined ? {} : { cloudFront }),
        logger: new Logger({ serviceName: "ingest-test" }),
        metrics: new Metrics({ namespace: "Test", serviceName: "ingest" }),
        toolVersion: "0.0.0-test",
      });
    expect(make).toThrow(/PUBLISHED_DISTRIBUTION_ID E2QWRUHAPOMQZL is set but no CloudFront client/);
    expect(make(new CloudFrontClient({ region: "us-east-1" }))).toBeTypeOf("function");
  });

  it("refuses an event from another bucket", async () => {
    const other = sqsRecord(
      createdNotification({ bucket: "elsewhere", key: "a/b/c.jsonl", size: 1, eTag: "e", sequencer: "1" }),
      "other",
    );
    const out = await handler()(sqsEvent([other]), lambdaContext());
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "other" }]);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 0);
  });

  it("accepts an upload made over IPv6", async () => {
    serve("acme/s1/v6.jsonl");
    const message = JSON.parse(
      createdNotification({
        bucket: "ingest",
        key: "acme/s1/v6.jsonl",
        size: REPLAY.length,
        eTag: "e1",
        sequencer: "1",
      }),
    );
    message.Records[0].requestParameters.sourceIPAddress = "2001:db8::1";
    const out = await handler()(sqsEvent([sqsRecord(JSON.stringify(message), "v6")]), lambdaContext());
    expect(out.batchItemFailures).toEqual([]);
    // The file's record (beside the day's tenant registry item).
    const files = db
      .commandCalls(PutCommand)
      .filter((c) => String(c.args[0].input.Item?.SK).startsWith("FILE#"));
    expect(files).toHaveLength(1);
  });
});

describe("functions/ingest.ts", () => {
  it("builds its handler from the environment at cold start", async () => {
    vi.stubEnv("AWS_REGION", "us-east-1");
    for (const name of ["INGEST_BUCKET", "PUBLISHED_BUCKET", "REPORTS_BUCKET", "TABLE_NAME"])
      vi.stubEnv(name, name.toLowerCase());
    const { handler: lambda } = await import("../../functions/ingest.js");
    const out = await lambda(sqsEvent([sqsRecord(testEventNotification("ingest"), "t")]), lambdaContext());
    expect(out).toEqual({ batchItemFailures: [] });
    vi.unstubAllEnvs();
  });
});
