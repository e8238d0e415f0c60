/** Where the pipeline commands find the pipeline: a local stack's `stack.json`, checked for life. */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../../cli/errors.js";
import { connect } from "../../../cli/remote.js";
import { tempDir } from "../../support/temp.js";

const INFO = {
  region: "us-east-1",
  s3Endpoint: "http://127.0.0.1:1",
  dynamoEndpoint: "http://127.0.0.1:2",
  ingestBucket: "ingest",
  publishedBucket: "published",
  reportsBucket: "reports",
  tableName: "replay-pipeline",
};

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function stackFile(info: object): Promise<string> {
  const dir = tempDir("remote-");
  dirs.push(dir);
  await writeFile(join(dir, "stack.json"), JSON.stringify(info));
  return dir;
}

describe("connect --local", () => {
  it("refuses a stack.json whose stack is no longer running, saying so", async () => {
    // The highest pid Linux hands out is 4194304: one above it never runs.
    const local = await stackFile({ ...INFO, pid: 4194305 });
    const attempt = connect("show", { "local-dir": local });
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(
      /stale \(the stack that wrote it, process 4194305, is not running\)/,
    );
  });

  it("takes one whose stack runs (this process), and one written by hand without a pid", async () => {
    for (const info of [{ ...INFO, pid: process.pid }, INFO]) {
      const target = await connect("show", { "local-dir": await stackFile(info) });
      expect(target.ingestBucket).toBe("ingest");
      target.close();
    }
  });
});
