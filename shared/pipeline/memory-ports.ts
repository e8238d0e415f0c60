/**
 * The ports in memory: for tests, and as the reference for what every adapter must do (conditional,
 * idempotent writes; a late event never replaces a newer record; a failed stream leaves nothing).
 */

import { createHash } from "node:crypto";
import { ReplayPipelineError } from "../errors.js";
import { memorySpool } from "../spool/index.js";
import {
  type CatalogueKeys,
  type CatalogueOptions,
  type CatalogueStore,
  cataloguePublished,
  catalogueWithdrawn,
  sha256Tap,
} from "./catalogue.js";
import type { CopyFacts } from "./catalogue-types.js";
import { viewerPageKey } from "./keys.js";
import type {
  FileRecord,
  ObjectRef,
  ObjectSource,
  ObjectStore,
  Ports,
  Publisher,
  PutOutcome,
  ReceiptCheckRecord,
  SessionIndex,
  WithdrawOutcome,
} from "./ports.js";
import { isVersionOf, putOutcome, reprocessOutcome } from "./versions.js";
import { copyViewerPage } from "./viewer-pages.js";

/** Bytes of a stream, whole. */
async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** An ingest store in memory; `put` adds an object as an upload would. */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, { bytes: Buffer; ref: ObjectRef }>();
  private counter = 0;

  /** Stores `bytes` under `key` as a new version; returns the source to process it. */
  put(key: string, bytes: Buffer | string): ObjectSource {
    this.counter++;
    const body = Buffer.from(bytes);
    const ref: ObjectRef = {
      key,
      etag: `etag-${this.counter}`,
      versionId: `v${this.counter}`,
      size: body.length,
      sequencer: this.counter.toString(16).toUpperCase().padStart(16, "0"),
    };
    this.objects.set(key, { bytes: body, ref });
    return this.source(ref);
  }

  /** A source for `ref` (the version stored under its key). */
  source(ref: ObjectRef): ObjectSource {
    return { ...ref, open: () => this.open(ref) };
  }

  async *open(ref: Pick<ObjectRef, "key" | "versionId">): AsyncGenerator<Uint8Array> {
    const stored = this.objects.get(ref.key);
    if (stored === undefined || (ref.versionId !== null && stored.ref.versionId !== ref.versionId))
      throw new Error(`no object ${ref.key}${ref.versionId === null ? "" : ` at ${ref.versionId}`}`);
    // In pieces, as a network stream arrives.
    for (let at = 0; at < stored.bytes.length; at += 64 * 1024)
      yield stored.bytes.subarray(at, at + 64 * 1024);
  }
}

/**
 * The catalogue's objects in memory (ETag: the body's sha256), each call a turn of the event loop
 * as a request would be, so concurrent rebuilds interleave.
 */
export class MemoryCatalogueStore implements CatalogueStore {
  readonly objects = new Map<string, { body: string; etag: string; generation?: string }>();

  private static etag(body: string): string {
    return createHash("sha256").update(body).digest("hex").slice(0, 32);
  }

  async putEntry(key: string, body: string): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.objects.set(key, { body, etag: MemoryCatalogueStore.etag(body) });
  }

  async getEntry(key: string): Promise<{ body: string; etag: string } | null> {
    await new Promise((r) => setImmediate(r));
    const found = this.objects.get(key);
    return found === undefined ? null : { body: found.body, etag: found.etag };
  }

  async listEntries(prefix: string): Promise<{ key: string; etag: string }[]> {
    await new Promise((r) => setImmediate(r));
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, { etag }]) => ({ key, etag }));
  }

  async getCatalogue(
    keys: CatalogueKeys,
  ): Promise<{ manifest: string | null; indexGeneration: string | null }> {
    await new Promise((r) => setImmediate(r));
    return {
      manifest: this.objects.get(keys.manifest)?.body ?? null,
      indexGeneration: this.objects.get(keys.index)?.generation ?? null,
    };
  }

  async putCatalogue(
    keys: CatalogueKeys,
    files: { manifest: string; index: string; generation: string },
  ): Promise<void> {
    const { manifest, index, generation } = files;
    await new Promise((r) => setImmediate(r));
    this.objects.set(keys.index, { body: index, etag: MemoryCatalogueStore.etag(index), generation });
    await new Promise((r) => setImmediate(r));
    const etag = MemoryCatalogueStore.etag(manifest);
    this.objects.set(keys.manifest, { body: manifest, etag, generation });
  }
}

/**
 * A publisher in memory: a copy appears only once its stream ended without error; with
 * `viewerPages`, its viewer page beside it (in `copies` too, as the bucket would hold it).
 */
export class MemoryPublisher implements Publisher {
  readonly copies = new Map<string, Buffer>();
  readonly documents = new Map<string, string>();
  readonly withdrawn: string[] = [];
  /** The catalogue, as the published bucket would hold it. */
  readonly catalogue = new MemoryCatalogueStore();

  constructor(private readonly catalogueOptions: CatalogueOptions = {}) {}

  async publishCopy(key: string, body: AsyncIterable<Uint8Array>, facts: CopyFacts): Promise<void> {
    const tap = sha256Tap(body);
    const bytes = await collect(tap.body);
    this.copies.set(key, bytes);
    if (this.catalogueOptions.viewerPages === true) {
      const page = await copyViewerPage(
        key,
        (async function* () {
          yield bytes;
        })(),
      );
      this.copies.set(viewerPageKey(key), Buffer.from(page));
    }
    await cataloguePublished(this.catalogue, key, tap.digest(), facts, this.catalogueOptions);
  }

  async withdrawCopy(key: string): Promise<void> {
    this.copies.delete(key);
    this.copies.delete(viewerPageKey(key));
    this.withdrawn.push(key);
    await catalogueWithdrawn(this.catalogue, key, this.catalogueOptions);
  }

  async putDocument(key: string, body: string): Promise<void> {
    this.documents.set(key, body);
  }
}

/** DynamoDB's item limit, bytes; the memory index refuses records whose JSON passes it. */
const ITEM_LIMIT_BYTES = 400 * 1024;

/** Refuses `record` as DynamoDB would an item over its limit (JSON bytes: an upper bound of its size). */
function fitsItem(record: FileRecord | ReceiptCheckRecord): void {
  const bytes = Buffer.byteLength(JSON.stringify(record), "utf8");
  if (bytes > ITEM_LIMIT_BYTES)
    throw new ReplayPipelineError(
      "index.item_size",
      `Item size has exceeded the maximum allowed size: ${bytes} bytes of JSON for ${record.tenant}/${record.session}`,
    );
}

/**
 * The session index in memory, with the conditional semantics every adapter keeps and DynamoDB's
 * item size limit.
 */
export class MemorySessionIndex implements SessionIndex {
  readonly files = new Map<string, FileRecord>();
  readonly checks = new Map<string, ReceiptCheckRecord>();

  private static id(tenant: string, session: string, key: string): string {
    return JSON.stringify([tenant, session, key]);
  }

  async putFile(record: FileRecord): Promise<PutOutcome> {
    fitsItem(record);
    const id = MemorySessionIndex.id(record.tenant, record.session, record.ref.key);
    const outcome = putOutcome(this.files.get(id)?.ref, record.ref);
    if (outcome === "written") this.files.set(id, structuredClone(record));
    return outcome;
  }

  async replaceFile(record: FileRecord, runId: string): Promise<PutOutcome> {
    fitsItem(record);
    const id = MemorySessionIndex.id(record.tenant, record.session, record.ref.key);
    const outcome = reprocessOutcome(this.files.get(id) ?? null, record.ref, runId);
    if (outcome === "written") this.files.set(id, structuredClone({ ...record, reprocess_run: runId }));
    return outcome;
  }

  async getFile(tenant: string, session: string, key: string): Promise<FileRecord | null> {
    const found = this.files.get(MemorySessionIndex.id(tenant, session, key));
    return found === undefined ? null : structuredClone(found);
  }

  async listFiles(tenant: string, session: string): Promise<FileRecord[]> {
    return [...this.files.values()]
      .filter((r) => r.tenant === tenant && r.session === session)
      .map((r) => structuredClone(r));
  }

  async listChecks(tenant: string, session: string): Promise<ReceiptCheckRecord[]> {
    return [...this.checks.values()]
      .filter((c) => c.tenant === tenant && c.session === session)
      .map((c) => structuredClone(c));
  }

  async putCheck(record: ReceiptCheckRecord): Promise<PutOutcome> {
    fitsItem(record);
    const id = checkId(record);
    if (this.checks.has(id)) return "duplicate";
    this.checks.set(id, structuredClone(record));
    return "written";
  }

  async markWithdrawn(
    tenant: string,
    session: string,
    replay: ObjectRef,
    reason: string,
  ): Promise<WithdrawOutcome> {
    const record = this.files.get(MemorySessionIndex.id(tenant, session, replay.key));
    if (record === undefined)
      throw new ReplayPipelineError("index.no_record", `markWithdrawn ${replay.key}: the key has no record`);
    if (!isVersionOf(record.ref, replay)) return "stale";
    record.layer_c_key = null;
    record.first_error ??= { code: "layer_c.withdrawn", message: reason, line: null };
    return "withdrawn";
  }
}

/** The identity of a receipt check: one replay version against one receipt version. */
function checkId(record: Pick<ReceiptCheckRecord, "tenant" | "session" | "replay" | "receipt">): string {
  const version = (ref: ObjectRef) => `${ref.key}@${ref.versionId ?? ref.etag ?? ""}`;
  return JSON.stringify([record.tenant, record.session, version(record.replay), version(record.receipt)]);
}

/** All four ports in memory, with the store to upload into. */
export function memoryPorts(): Ports & {
  objects: MemoryObjectStore;
  publisher: MemoryPublisher;
  index: MemorySessionIndex;
} {
  return {
    objects: new MemoryObjectStore(),
    publisher: new MemoryPublisher(),
    index: new MemorySessionIndex(),
    spool: memorySpool(),
  };
}
