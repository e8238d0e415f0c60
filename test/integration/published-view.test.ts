/**
 * `view <tenant>/<session>` against the local stack: the page of the published Layer C copy, with
 * the receipt check the pipeline recorded for that file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { viewCommand } from "../../cli/commands/view.js";
import { LocalStack } from "../../cli/local/stack.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { checkRecord, fileRecord } from "../support/index-records.js";
import { layerCCopy } from "../support/sessions.js";
import { tempDir } from "../support/temp.js";

let stack: LocalStack;
let root: string;

beforeAll(async () => {
  root = tempDir("published-view-");
  stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0 });
  const bytes = readFileSync(join(PROJECT_ROOT, "examples", "tampered.REPLAY.jsonl"));
  for (const [session, file] of [
    ["one", "T.REPLAY.jsonl"],
    ["two", "A.REPLAY.jsonl"],
    ["two", "B.REPLAY.jsonl"],
  ] as const) {
    const record = fileRecord("acme", session, file);
    await stack.index.putFile(record);
    if (session === "one")
      await stack.index.putCheck(
        checkRecord(record, { ...record.ref, key: "acme/one/RECEIPT.json", etag: "r1" }),
      );
    await stack.s3.send(
      new PutObjectCommand({
        Bucket: stack.info.publishedBucket,
        Key: record.layer_c_key as string,
        Body: await layerCCopy(bytes, file),
      }),
    );
  }
});

afterAll(async () => {
  vi.restoreAllMocks();
  await stack?.close();
});

describe("view of a published session", () => {
  it("writes the page of its one copy, naming the tampered step's failed hash and the receipt check", async () => {
    const out = join(root, "one.html");
    expect(await viewCommand(["acme/one", "--local-dir", root, "-o", out])).toBe(0);
    const page = readFileSync(out, "utf8");
    expect(page).toContain("acme/one/T.REPLAY.jsonl.layer-c");
    expect(page).toContain("<h2>Layer C copy</h2>");
    expect(page).toMatch(/\["params","sha256:2432e75f[0-9a-f]+","sha256:7bb8939a[0-9a-f]+","failed"\]/);
    expect(page).toContain(
      '<h2>Receipt acme/one/RECEIPT.json <span class="verdict failed">failed</span></h2>',
    );
    expect(page).toContain("<td>output_hash</td><td>step 1</td>");
  });

  it("asks for the file when the session has several copies, and takes its key", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await expect(viewCommand(["acme/two", "--local-dir", root])).rejects.toThrow(
      /2 published copies; name one/,
    );
    stderr.mockRestore();
    const out = join(root, "two.html");
    expect(await viewCommand(["acme/two/B.REPLAY.jsonl", "--local-dir", root, "-o", out])).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("acme/two/B.REPLAY.jsonl.layer-c");
  });
});
