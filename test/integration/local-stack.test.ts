/**
 * The local stack across restarts: what it processed keeps its verdict and is not redone; what was
 * stored while it was down is processed when it starts.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it, onTestFinished } from "vitest";
import { S3RVER_CREDENTIALS, startS3rver } from "../../cli/local/servers.js";
import { LocalStack, type StackOutcome } from "../../cli/local/stack.js";
import { makeS3Client } from "../../functions/lib/aws-clients.js";
import { PROJECT_ROOT } from "../support/corpus.js";

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
