/**
 * The catalogue on the local stack (s3rver, dynalite, the ingest handler) with viewer pages on: 50
 * uploads at once, half of them replays published, half receipts that fail their replays' checks
 * and so withdraw copies published before; after them the manifest of each tenant is exact, each
 * published copy has its viewer page beside it (linked) and no withdrawn one has. A page holds
 * none of its original's planted secrets. `pull --verify` passes on a copy as published and fails
 * on a tampered one.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pullCommand } from "../../cli/commands/remote.js";
import { LocalStack } from "../../cli/local/stack.js";
import { inspect } from "../../shared/formats/inspect.js";
import {
  catalogueIndexKey,
  catalogueManifestKey,
  catalogueShardKeys,
  catalogueShardOf,
} from "../../shared/pipeline/catalogue.js";
import type {
  CatalogueManifest,
  CatalogueShard,
  ManifestRow,
} from "../../shared/pipeline/catalogue-types.js";
import { viewerPageKey } from "../../shared/pipeline/keys.js";
import { generateReceipt, serializeReceipt } from "../../shared/receipt/index.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { PLANTED_NAME, PLANTED_SECRETS, replayWithSecrets, traceWithSecret } from "../support/sessions.js";
import { tempDir } from "../support/temp.js";

const REPLAY = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8");
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
let stack: LocalStack;
let root: string;
/** Replays uploaded first, then as many new replays and failing receipts at once. */
const FIRST = 25;
const keyOf = (tenant: string, n: number) => `${tenant}/s-${n}/fix-auth.REPLAY.jsonl`;

/** A receipt made from a tampered twin of the replay: the genuine replay fails its check. */
async function failingReceipt(): Promise<string> {
  const tampered = REPLAY.replace('"params":{"path":"src/auth.rs"}', '"params":{"path":"src/evil.rs"}');
  expect(tampered).not.toBe(REPLAY);
  const inspected = await inspect(
    (async function* () {
      yield Buffer.from(tampered);
    })(),
    { file: "r", keepToolCalls: true },
  );
  return serializeReceipt(generateReceipt(inspected, { createdAt: "2026-03-01T00:00:00Z" }));
}

async function put(bucket: string, key: string, body: string | Uint8Array): Promise<void> {
  await stack.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

async function text(bucket: string, key: string): Promise<string | null> {
  try {
    const out = await stack.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await out.Body?.transformToString("utf8")) ?? "";
  } catch (error) {
    if ((error as Error).name === "NoSuchKey") return null;
    throw error;
  }
}

async function manifestOf(tenant: string): Promise<CatalogueManifest> {
  return JSON.parse((await text("published", catalogueManifestKey(tenant))) ?? "null") as CatalogueManifest;
}

async function shardOf(tenant: string, shard: string): Promise<CatalogueShard> {
  return JSON.parse(
    (await text("published", catalogueShardKeys(tenant, shard).manifest)) ?? "null",
  ) as CatalogueShard;
}

/** Every copy the tenant's manifest leads to, through its shards, sorted by key. */
async function copiesOf(tenant: string): Promise<ManifestRow[]> {
  const shards = await Promise.all(
    (await manifestOf(tenant)).shards.map((row) => shardOf(tenant, row.shard)),
  );
  return shards.flatMap((s) => s.copies).sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** The page of the shard that lists `copyKey`. */
async function shardPage(copyKey: string): Promise<string> {
  const tenant = copyKey.slice(0, copyKey.indexOf("/"));
  return (await text("published", catalogueShardKeys(tenant, catalogueShardOf(copyKey)).index)) ?? "";
}

beforeAll(async () => {
  root = tempDir("catalogue-");
  stack = await LocalStack.start({
    root,
    memory: true,
    s3Port: 0,
    dynamoPort: 0,
    batchSize: 1,
    concurrency: 50,
    retryDelayMs: 200,
    viewerPages: true,
  });
  const receipt = await failingReceipt();
  await Promise.all([
    ...Array.from({ length: FIRST }, (_, n) => put("ingest", keyOf("acme", n), REPLAY)),
    ...Array.from({ length: 3 }, (_, n) => put("ingest", keyOf("other", n), REPLAY)),
    put("ingest", "secret/s-1/creds.REPLAY.jsonl", replayWithSecrets()),
    put("ingest", "secret/s-2/chat.trace.jsonl", traceWithSecret()),
  ]);
  await stack.settled();
  // 50 at once: 25 new replays published, 25 receipts withdrawing the first replays' copies.
  await Promise.all([
    ...Array.from({ length: FIRST }, (_, n) => put("ingest", keyOf("acme", FIRST + n), REPLAY)),
    ...Array.from({ length: FIRST }, (_, n) => put("ingest", `acme/s-${n}/RECEIPT.json`, receipt)),
  ]);
  await stack.settled();
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe("the catalogue after 50 concurrent publishes and withdrawals", () => {
  it("lists every copy of the tenant once, with the sha256 of its bytes, and marks every withdrawn one", async () => {
    const manifest = await manifestOf("acme");
    const listed = await copiesOf("acme");
    const copies = new Map(listed.map((c) => [c.key, c]));
    expect(listed).toHaveLength(2 * FIRST);
    // The tenant's manifest counts what its shards list, and each shard's index is of its manifest.
    expect(manifest.shards.reduce((n, s) => n + s.published, 0)).toBe(FIRST);
    expect(manifest.shards.reduce((n, s) => n + s.withdrawn, 0)).toBe(FIRST);
    for (const row of manifest.shards) {
      const head = await stack.s3.send(
        new HeadObjectCommand({ Bucket: "published", Key: catalogueShardKeys("acme", row.shard).index }),
      );
      expect(head.Metadata?.generation, row.shard).toBe((await shardOf("acme", row.shard)).generation);
    }
    for (let n = 0; n < 2 * FIRST; n++) {
      const copyKey = `acme/s-${n}/fix-auth.REPLAY.layer-c.jsonl`;
      const entry = copies.get(copyKey);
      const record = await stack.recordOf(keyOf("acme", n));
      expect(entry, copyKey).toBeDefined();
      expect(entry?.replay_hash).toBe(record?.replay_hash);
      expect(entry?.attestation).toBe(`results/${keyOf("acme", n)}.intoto.json`);
      expect(entry?.sha256).toMatch(/^[0-9a-f]{64}$/);
      const bytes = await text("published", copyKey);
      const page = await text("published", viewerPageKey(copyKey));
      if (n < FIRST) {
        // Withdrawn: marked, the copy and its page gone, the record without it.
        expect(entry?.withdrawn_at, copyKey).toMatch(/^\d{4}-/);
        expect(bytes).toBeNull();
        expect(page, copyKey).toBeNull();
        expect(record?.layer_c_key).toBeNull();
      } else {
        expect(entry?.withdrawn_at, copyKey).toBeNull();
        expect(sha256(bytes ?? ""), copyKey).toBe(entry?.sha256);
        expect(record?.layer_c_key).toBe(copyKey);
        // The page of these very bytes.
        expect(page, copyKey).toContain(`sha256:${sha256(bytes ?? "")}`);
      }
    }
    const index = await stack.s3.send(
      new HeadObjectCommand({ Bucket: "published", Key: catalogueIndexKey("acme") }),
    );
    expect(index.Metadata?.generation).toBe(manifest.generation);
    expect(manifest.viewer_pages).toBe(true);
    let linked = 0;
    for (const row of manifest.shards) {
      const html = (await text("published", catalogueShardKeys("acme", row.shard).index)) ?? "";
      linked += html.match(/\.view\.html"/g)?.length ?? 0;
    }
    expect(linked).toBe(FIRST);
    const published = `acme/s-${FIRST}/fix-auth.REPLAY.layer-c.jsonl`;
    expect(await shardPage(published)).toContain(
      `href="../../s-${FIRST}/fix-auth.REPLAY.layer-c.jsonl.view.html"`,
    );
    expect(await shardPage("acme/s-0/fix-auth.REPLAY.layer-c.jsonl")).not.toContain(
      'href="../../s-0/fix-auth.REPLAY.layer-c.jsonl.view.html"',
    );
  });

  it("keeps each tenant's catalogue to its own copies", async () => {
    expect((await copiesOf("other")).map((c) => c.key)).toEqual(
      [0, 1, 2].map((n) => `other/s-${n}/fix-auth.REPLAY.layer-c.jsonl`),
    );
    for (const row of (await manifestOf("other")).shards) {
      const html = (await text("published", catalogueShardKeys("other", row.shard).index)) ?? "";
      expect(html).not.toContain("acme/");
    }
  });
});

describe("viewer pages on the local stack", () => {
  it("hold none of the original's planted secrets, which the original holds", async () => {
    const creds = (await stack.recordOf("secret/s-1/creds.REPLAY.jsonl"))?.layer_c_key ?? "";
    const chat = (await stack.recordOf("secret/s-2/chat.trace.jsonl"))?.layer_c_key ?? "";
    const credsPage = (await text("published", viewerPageKey(creds))) ?? "";
    const chatPage = (await text("published", viewerPageKey(chat))) ?? "";
    expect(credsPage).toContain("Layer C copy");
    expect(chatPage).toContain("Layer C copy");
    const original = await text("ingest", "secret/s-1/creds.REPLAY.jsonl");
    for (const secret of PLANTED_SECRETS) {
      expect(original).toContain(secret);
      expect(credsPage).not.toContain(secret);
    }
    expect(await text("ingest", "secret/s-2/chat.trace.jsonl")).toContain(PLANTED_NAME);
    expect(chatPage).not.toContain(PLANTED_NAME);
  });
});

describe("pull --verify", () => {
  it("exits 0 for a copy as published", async () => {
    const out = join(root, "ok.jsonl");
    expect(await pullCommand([keyOf("acme", FIRST), "-o", out, "--verify", "--local-dir", root])).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it("exits 1 for a tampered copy, and leaves no file", async () => {
    const copyKey = `acme/s-${FIRST + 1}/fix-auth.REPLAY.layer-c.jsonl`;
    const bytes = (await text("published", copyKey)) ?? "";
    await put("published", copyKey, bytes.replace("auth", "AUTH"));
    const out = join(root, "tampered.jsonl");
    expect(await pullCommand([keyOf("acme", FIRST + 1), "-o", out, "--verify", "--local-dir", root])).toBe(1);
    expect(existsSync(out)).toBe(false);
    // Without --verify the same bytes are pulled as they are.
    expect(await pullCommand([keyOf("acme", FIRST + 1), "-o", out, "--local-dir", root])).toBe(0);
  });

  it("exits 1 when the attestation is about other bytes", async () => {
    const key = keyOf("acme", FIRST + 2);
    const attestation = `results/${key}.intoto.json`;
    const envelope = JSON.parse((await text("reports", attestation)) ?? "{}") as { payload: string };
    const statement = Buffer.from(envelope.payload, "base64").toString("utf8");
    const forged = statement.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${"0".repeat(64)}"`);
    expect(forged).not.toBe(statement);
    await put(
      "reports",
      attestation,
      JSON.stringify({ ...envelope, payload: Buffer.from(forged).toString("base64") }),
    );
    const out = join(root, "forged.jsonl");
    expect(await pullCommand([key, "-o", out, "--verify", "--local-dir", root])).toBe(1);
  });
});
