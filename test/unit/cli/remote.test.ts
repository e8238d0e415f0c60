/**
 * Where the pipeline commands find the pipeline: a local stack's `stack.json`, checked for life, or
 * the environment's names (only those the command needs); and push's checks of its files.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkPushFiles, PUSH_NEEDS } from "../../../cli/commands/remote.js";
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

describe("connect by environment variables", () => {
  const NAMES = ["INGEST_BUCKET", "PUBLISHED_BUCKET", "REPORTS_BUCKET", "TABLE_NAME"] as const;
  const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  afterEach(() => {
    for (const n of NAMES) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });

  it("asks only for the names a command needs: push never reads the published bucket", async () => {
    for (const n of NAMES) delete process.env[n];
    Object.assign(process.env, { INGEST_BUCKET: "in", REPORTS_BUCKET: "rep", TABLE_NAME: "tab" });
    await expect(connect("show", { region: "eu-west-1" })).rejects.toThrow(/missing publishedBucket/);
    const target = await connect("push", { region: "eu-west-1" }, PUSH_NEEDS);
    expect([target.ingestBucket, target.reportsBucket, target.tableName, target.publishedBucket]).toEqual([
      "in",
      "rep",
      "tab",
      "",
    ]);
    target.close();
    delete process.env.TABLE_NAME;
    await expect(connect("push", { region: "eu-west-1" }, PUSH_NEEDS)).rejects.toThrow(/missing tableName;/);
  });
});

describe("checkPushFiles", () => {
  it("refuses two files of one name (one key: the second would overwrite the first), naming both", async () => {
    const a = await stackFile(INFO);
    const b = await stackFile(INFO);
    const attempt = checkPushFiles("t", "s", [join(a, "stack.json"), join(b, "stack.json")]);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow("files 1 and 2 are both named 'stack.json'");
    await expect(checkPushFiles("t", "s", [join(a, "stack.json")])).resolves.toBeUndefined();
  });
});
