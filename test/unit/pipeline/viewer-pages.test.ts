import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { catalogueShardKeys, catalogueShardOf } from "../../../shared/pipeline/catalogue.js";
import { viewerPageKey } from "../../../shared/pipeline/keys.js";
import { MemoryPublisher, memoryPorts } from "../../../shared/pipeline/memory-ports.js";
import { processObject } from "../../../shared/pipeline/process-object.js";
import { copyViewerPage, spooled } from "../../../shared/pipeline/viewer-pages.js";
import { memorySpool } from "../../../shared/spool/index.js";
import {
  chunksOf,
  PLANTED_NAME,
  PLANTED_SECRETS,
  replayWithSecrets,
  traceWithSecret,
} from "../../support/sessions.js";

const KEY = "acme/s-1/creds.REPLAY.jsonl";

/** The catalogue page of the shard that lists `copyKey`. */
function shardPage(publisher: MemoryPublisher, copyKey: string): string {
  const { index } = catalogueShardKeys("acme", catalogueShardOf(copyKey));
  return publisher.catalogue.objects.get(index)?.body ?? "";
}

async function published(viewerPages: boolean, key = KEY, original = replayWithSecrets()) {
  const ports = { ...memoryPorts(), publisher: new MemoryPublisher({ viewerPages }) };
  const result = await processObject(ports.objects.put(key, original), ports, {
    toolVersion: "test",
    parallel: { workers: 0 },
  });
  return { ports, original, result, copyKey: result.record.layer_c_key as string };
}

describe("viewer pages beside published copies", () => {
  it("writes the page of the copy beside it, holding none of the original's secrets, and links it", async () => {
    const { ports, original, result, copyKey } = await published(true);
    expect(result.record.verdict).toBe("passed");
    const copy = ports.publisher.copies.get(copyKey);
    const page = ports.publisher.copies.get(viewerPageKey(copyKey))?.toString("utf8") ?? "";
    expect(viewerPageKey(copyKey)).toBe("acme/s-1/creds.REPLAY.layer-c.jsonl.view.html");
    // The secrets are in the original (and so could leak), in neither the copy nor its page.
    for (const secret of PLANTED_SECRETS) {
      expect(original.toString("utf8")).toContain(secret);
      expect(copy?.toString("utf8")).not.toContain(secret);
      expect(page).not.toContain(secret);
      // Nor a piece of one long enough to matter.
      expect(page).not.toContain(secret.slice(4, 16));
    }
    // Built from the copy: the page's replay_hash is the copy's own, and it shows the redaction.
    const copyHash = `sha256:${createHash("sha256")
      .update(copy ?? "")
      .digest("hex")}`;
    expect(page).toContain(`<dt>replay_hash</dt><dd class="hash">${copyHash}</dd>`);
    expect(page).toContain("Layer C copy");
    expect(page).toContain('"tc_003"');
    expect(page).toMatch(/^<!doctype html>/);
    expect(shardPage(ports.publisher, copyKey)).toContain(
      'href="../../s-1/creds.REPLAY.layer-c.jsonl.view.html"',
    );
  });

  it("shows none of the original's content that Layer C removed, which a page of the original would", async () => {
    const original = traceWithSecret();
    const { ports, copyKey } = await published(true, "acme/s-2/chat.trace.jsonl", original);
    const page = ports.publisher.copies.get(viewerPageKey(copyKey))?.toString("utf8") ?? "";
    expect(page).toContain("Layer C copy");
    expect(page).not.toContain(PLANTED_NAME);
    // The control: the same page built from the original holds it (a turn's excerpt).
    expect(await copyViewerPage("acme/s-2/chat.trace.jsonl", chunksOf(original))).toContain(PLANTED_NAME);
  });

  it("removes the page with its copy", async () => {
    const { ports, copyKey } = await published(true);
    await ports.publisher.withdrawCopy(copyKey);
    expect(ports.publisher.copies.has(copyKey)).toBe(false);
    expect(ports.publisher.copies.has(viewerPageKey(copyKey))).toBe(false);
    expect(shardPage(ports.publisher, copyKey)).toContain("creds.REPLAY.layer-c.jsonl");
    expect(shardPage(ports.publisher, copyKey)).not.toContain(".view.html");
  });

  it("writes no page when the setting is off", async () => {
    const { ports, copyKey } = await published(false);
    expect(ports.publisher.copies.has(copyKey)).toBe(true);
    expect(ports.publisher.copies.has(viewerPageKey(copyKey))).toBe(false);
  });
});

describe("spooled", () => {
  it("passes the stream through and replays it from the spool once read to its end", async () => {
    const kept = spooled(
      (async function* () {
        yield Buffer.from("ab");
        yield Buffer.from("cde");
      })(),
      memorySpool(),
    );
    expect(() => kept.replay()).toThrow(/not read to its end/);
    const passed: Buffer[] = [];
    for await (const chunk of kept.body) passed.push(Buffer.from(chunk));
    const replayed: Buffer[] = [];
    for await (const chunk of kept.replay()) replayed.push(Buffer.from(chunk));
    expect(Buffer.concat(passed).toString()).toBe("abcde");
    expect(Buffer.concat(replayed).toString()).toBe("abcde");
    await kept.dispose();
  });
});
