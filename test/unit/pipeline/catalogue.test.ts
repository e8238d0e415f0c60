import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TransientError } from "../../../shared/errors.js";
import {
  type CatalogueKeys,
  type CatalogueStore,
  catalogueEntryKey,
  catalogueIndexKey,
  catalogueManifestKey,
  cataloguePublished,
  catalogueShardKeys,
  catalogueShardOf,
  rebuildCatalogue,
  settleCatalogue,
} from "../../../shared/pipeline/catalogue.js";
import type {
  CatalogueManifest,
  CatalogueShard,
  CopyFacts,
  ManifestRow,
} from "../../../shared/pipeline/catalogue-types.js";
import { attestationKey } from "../../../shared/pipeline/keys.js";
import { MemoryCatalogueStore, MemoryPublisher, memoryPorts } from "../../../shared/pipeline/memory-ports.js";
import { processObject } from "../../../shared/pipeline/process-object.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

const FACTS: CopyFacts = {
  replay_hash: "b".repeat(64),
  verdict: "passed",
  attestation: "results/x.intoto.json",
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function* text(value: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(value);
}

function manifestOf(store: MemoryCatalogueStore, tenant: string): CatalogueManifest {
  return JSON.parse(store.objects.get(catalogueManifestKey(tenant))?.body ?? "null") as CatalogueManifest;
}

function shardOf(store: MemoryCatalogueStore, tenant: string, shard: string): CatalogueShard {
  return JSON.parse(
    store.objects.get(catalogueShardKeys(tenant, shard).manifest)?.body ?? "null",
  ) as CatalogueShard;
}

/** Every copy the tenant's manifest leads to (through its shards), sorted by key. */
function copiesOf(store: MemoryCatalogueStore, tenant: string): ManifestRow[] {
  return manifestOf(store, tenant)
    .shards.flatMap((row) => shardOf(store, tenant, row.shard).copies)
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** A shard's page, where its copies are listed. */
function shardPage(store: MemoryCatalogueStore, copyKey: string): string {
  const tenant = copyKey.slice(0, copyKey.indexOf("/"));
  return store.objects.get(catalogueShardKeys(tenant, catalogueShardOf(copyKey)).index)?.body ?? "";
}

/** A store whose every call waits a random few turns of the event loop, as requests in flight do. */
class JitteredStore extends MemoryCatalogueStore {
  private static async jitter(): Promise<void> {
    for (let n = Math.floor(Math.random() * 8); n > 0; n--) await new Promise((r) => setImmediate(r));
  }
  override async listEntries(prefix: string) {
    await JitteredStore.jitter();
    return super.listEntries(prefix);
  }
  override async getCatalogue(keys: CatalogueKeys) {
    await JitteredStore.jitter();
    return super.getCatalogue(keys);
  }
  override async putCatalogue(
    keys: CatalogueKeys,
    files: { manifest: string; index: string; generation: string },
  ) {
    await JitteredStore.jitter();
    return super.putCatalogue(keys, files);
  }
}

describe("the catalogue under concurrent publishes and withdrawals", () => {
  it("lists every copy once with its sha256, and marks every withdrawn one, whatever the interleaving", async () => {
    const publisher = new MemoryPublisher();
    Object.assign(publisher, { catalogue: new JitteredStore() });
    const keys = Array.from({ length: 50 }, (_, n) => `acme/s-${n}/R${n}.layer-c.jsonl`);
    // 30 first, then 20 more published while 15 of the first are withdrawn.
    await Promise.all(
      keys.slice(0, 30).map((key) => publisher.publishCopy(key, text(`copy of ${key}`), FACTS)),
    );
    const withdrawn = keys.slice(0, 15);
    await Promise.all([
      ...keys.slice(30).map((key) => publisher.publishCopy(key, text(`copy of ${key}`), FACTS)),
      ...withdrawn.map((key) => publisher.withdrawCopy(key)),
    ]);
    const copies = copiesOf(publisher.catalogue, "acme");
    expect(copies.map((c) => c.key)).toEqual([...keys].sort());
    for (const row of copies) {
      expect(row.sha256, row.key).toBe(sha256(`copy of ${row.key}`));
      expect(row.withdrawn_at !== null, row.key).toBe(withdrawn.includes(row.key));
    }
    const manifest = manifestOf(publisher.catalogue, "acme");
    const index = publisher.catalogue.objects.get(catalogueIndexKey("acme"));
    expect(index?.generation).toBe(manifest.generation);
    expect(manifest.shards.reduce((n, s) => n + s.published, 0)).toBe(keys.length - withdrawn.length);
    expect(manifest.shards.reduce((n, s) => n + s.withdrawn, 0)).toBe(withdrawn.length);
    for (const row of manifest.shards) {
      const shard = publisher.catalogue.objects.get(catalogueShardKeys("acme", row.shard).index);
      expect(shard?.generation).toBe(shardOf(publisher.catalogue, "acme", row.shard).generation);
      expect(index?.body).toContain(`href="shards/${row.shard}.html"`);
    }
    for (const key of keys) expect(shardPage(publisher.catalogue, key)).toContain(key);
  });

  it("rewrites a stale manifest that landed last (a slower rebuild's), a shard's and the tenant's", async () => {
    // Two copies of one shard.
    const [a, b] = Array.from({ length: 600 }, (_, n) => `acme/s/C${n}.layer-c.jsonl`).filter(
      (key, _, all) => catalogueShardOf(key) === catalogueShardOf(all[0] as string),
    );
    const publisher = new MemoryPublisher();
    await publisher.publishCopy(a as string, text("a"), FACTS);
    const shardKey = catalogueShardKeys("acme", catalogueShardOf(a as string)).manifest;
    const beforeShard = publisher.catalogue.objects.get(shardKey);
    const beforeTenant = publisher.catalogue.objects.get(catalogueManifestKey("acme"));
    await publisher.publishCopy(b as string, text("b"), FACTS);
    // The first rebuilds' manifests, written after the second's: they miss B.
    publisher.catalogue.objects.set(shardKey, beforeShard as never);
    publisher.catalogue.objects.set(catalogueManifestKey("acme"), beforeTenant as never);
    expect(await rebuildCatalogue(publisher.catalogue, "acme")).toBe(2);
    expect(copiesOf(publisher.catalogue, "acme").map((c) => c.key)).toEqual([a, b].sort());
    expect(manifestOf(publisher.catalogue, "acme").shards).toMatchObject([{ published: 2, withdrawn: 0 }]);
  });

  it("builds the shards of a tenant whose manifest is of the unsharded schema on its next change", async () => {
    const publisher = new MemoryPublisher();
    const keys = Array.from({ length: 20 }, (_, n) => `acme/s-${n}/R.layer-c.jsonl`);
    for (const key of keys) await publisher.publishCopy(key, text(key), FACTS);
    // As an older release left it: no shard manifests, a v1 manifest listing every copy.
    for (const key of [...publisher.catalogue.objects.keys()])
      if (key.includes("/_catalogue/shards/")) publisher.catalogue.objects.delete(key);
    publisher.catalogue.objects.set(catalogueManifestKey("acme"), {
      body: JSON.stringify({ schema: "replay-pipeline.catalogue.v1", copies: [] }),
      etag: "old",
    });
    await publisher.publishCopy("acme/new/R.layer-c.jsonl", text("new"), FACTS);
    expect(copiesOf(publisher.catalogue, "acme").map((c) => c.key)).toEqual(
      [...keys, "acme/new/R.layer-c.jsonl"].sort(),
    );
  });

  it("gives up with a transient error when the catalogue never settles", async () => {
    const store: CatalogueStore = Object.assign(new MemoryCatalogueStore(), {
      getCatalogue: async () => ({ manifest: null, indexGeneration: null }),
    });
    const error = await rebuildCatalogue(store, "acme", { maxRounds: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).code).toBe("catalogue.unsettled");
  });

  it("keeps the first withdrawal time when a withdrawal is repeated, and catalogues one never published", async () => {
    let clock = Date.parse("2026-03-01T00:00:00Z");
    const publisher = new MemoryPublisher({
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
    });
    await publisher.publishCopy("acme/s/A.layer-c.jsonl", text("a"), FACTS);
    await publisher.withdrawCopy("acme/s/A.layer-c.jsonl");
    const first = copiesOf(publisher.catalogue, "acme")[0];
    await publisher.withdrawCopy("acme/s/A.layer-c.jsonl");
    await publisher.withdrawCopy("acme/s/OLD.layer-c.jsonl");
    const [a, old] = copiesOf(publisher.catalogue, "acme");
    expect(first?.withdrawn_at).toMatch(/^2026-03-01T/);
    expect(a?.withdrawn_at).toBe(first?.withdrawn_at);
    expect((a?.withdrawn_at ?? "") > (a?.published_at ?? "")).toBe(true);
    expect(old).toMatchObject({
      key: "acme/s/OLD.layer-c.jsonl",
      sha256: null,
      withdrawn_at: expect.any(String),
    });
  });
});

describe("the catalogue's index page", () => {
  it("escapes every value, makes no request, and links copies relative to itself", async () => {
    const publisher = new MemoryPublisher({ reportsBucket: "reports" });
    const key = `acme/s 1/<img src=x onerror=alert(1)>.layer-c.jsonl`;
    await publisher.publishCopy(key, text("x"), { ...FACTS, attestation: 'results/"quoted".intoto.json' });
    const html = shardPage(publisher.catalogue, key);
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain(`href="../../s%201/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.layer-c.jsonl"`);
    expect(html).toContain('href="s3://reports/results/&quot;quoted&quot;.intoto.json"');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|<link|src="|https?:\/\//);
    expect(html).not.toContain(".view.html");
  });

  it("links each published copy's viewer page only when viewer pages are on", async () => {
    const publisher = new MemoryPublisher({ viewerPages: true });
    await publisher.publishCopy("acme/s/A.layer-c.jsonl", text("a"), FACTS);
    await publisher.publishCopy("acme/s/B.layer-c.jsonl", text("b"), FACTS);
    await publisher.withdrawCopy("acme/s/B.layer-c.jsonl");
    expect(shardPage(publisher.catalogue, "acme/s/A.layer-c.jsonl")).toContain(
      'href="../../s/A.layer-c.jsonl.view.html"',
    );
    expect(shardPage(publisher.catalogue, "acme/s/B.layer-c.jsonl")).toContain("B.layer-c.jsonl");
    expect(shardPage(publisher.catalogue, "acme/s/B.layer-c.jsonl")).not.toContain(
      "B.layer-c.jsonl.view.html",
    );
  });
});

describe("processObject's copies in the catalogue", () => {
  it("files a published replay's copy with the copy's sha256, the replay's hash and verdict, and its attestation", async () => {
    const ports = memoryPorts();
    const replay = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));
    const result = await processObject(ports.objects.put("acme/s-1/fix-auth.REPLAY.jsonl", replay), ports, {
      toolVersion: "test",
      parallel: { workers: 0 },
    });
    const copyKey = result.record.layer_c_key as string;
    const entry = JSON.parse(
      ports.publisher.catalogue.objects.get(catalogueEntryKey(copyKey))?.body ?? "null",
    );
    expect(entry).toMatchObject({
      key: copyKey,
      sha256: createHash("sha256")
        .update(ports.publisher.copies.get(copyKey) ?? "")
        .digest("hex"),
      replay_hash: result.record.replay_hash,
      verdict: result.record.verdict,
      attestation: attestationKey(result.record.verdict_key),
      withdrawn_at: null,
    });
    expect(ports.publisher.documents.has(entry.attestation)).toBe(true);
  });
});

/** A store whose listings leave out the entries in `hidden` the first `times` times each is listed. */
class ForgetfulStore extends MemoryCatalogueStore {
  readonly hidden = new Map<string, number>();
  override async listEntries(prefix: string) {
    const listed = await super.listEntries(prefix);
    return listed.filter(({ key }) => {
      const left = this.hidden.get(key) ?? 0;
      if (left === 0) return true;
      this.hidden.set(key, left - 1);
      return false;
    });
  }
}

describe("settleCatalogue: a batch's deferred changes", () => {
  const keys = ["t/s/a.layer-c.jsonl", "t/s/b.layer-c.jsonl", "t/s/c.layer-c.jsonl"];

  it("settles the shards of the copies given, then the tenant: every copy listed", async () => {
    const store = new MemoryCatalogueStore();
    for (const key of keys)
      await cataloguePublished(store, key, "0".repeat(64), FACTS, { deferRebuild: true });
    expect(store.objects.has(catalogueManifestKey("t"))).toBe(false);
    await settleCatalogue(store, "t", new Set(keys));
    expect(copiesOf(store, "t").map((c) => c.key)).toEqual(keys);
  });

  it("settles a shard again when a listing missed a copy just changed (a server listing a key being written)", async () => {
    const store = new ForgetfulStore();
    for (const key of keys)
      await cataloguePublished(store, key, "0".repeat(64), FACTS, { deferRebuild: true });
    // b's entry is missing from its shard's first two listings: the settling's write and its look.
    store.hidden.set(catalogueEntryKey("t/s/b.layer-c.jsonl"), 2);
    await settleCatalogue(store, "t", new Set(keys));
    expect(copiesOf(store, "t").map((c) => c.key)).toEqual(keys);
  });

  it("gives up with a transient error when the copy never shows (its batch is retried)", async () => {
    const store = new ForgetfulStore();
    await cataloguePublished(store, keys[0] as string, "0".repeat(64), FACTS, { deferRebuild: true });
    store.hidden.set(catalogueEntryKey(keys[0] as string), 1_000);
    await expect(
      settleCatalogue(store, "t", new Set([keys[0] as string]), { maxRounds: 3 }),
    ).rejects.toBeInstanceOf(TransientError);
  });
});

describe("a settling whose listing misses a copy already catalogued", () => {
  it("keeps its row (entries are never deleted): a later copy's settling never drops it", async () => {
    const first = "t/s/first.layer-c.jsonl";
    // A second copy in the same shard as the first, so the same listing covers both.
    const second = Array.from({ length: 4096 }, (_, i) => `t/s/second-${i}.layer-c.jsonl`).find(
      (key) => catalogueShardOf(key) === catalogueShardOf(first),
    ) as string;
    const store = new ForgetfulStore();
    await cataloguePublished(store, first, "0".repeat(64), FACTS);
    await cataloguePublished(store, second, "1".repeat(64), FACTS, { deferRebuild: true });
    store.hidden.set(catalogueEntryKey(first), 1_000);
    await settleCatalogue(store, "t", new Set([second]));
    expect(copiesOf(store, "t").map((c) => c.key)).toEqual([first, second].sort());
  });
});
