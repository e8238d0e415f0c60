/**
 * The pipeline's ports on the machine you stand on: objects read from files, and what the
 * pipeline writes (Layer C copies and their catalogue, verdict documents, index records) under one
 * output folder: `published/<copy key>`, `published/<tenant>/_catalogue/`, `reports/<document key>`,
 * `index.jsonl`.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import type {
  CopyFacts,
  FileRecord,
  ObjectRef,
  ObjectSource,
  ObjectStore,
  Ports,
  Publisher,
  PutOutcome,
  ReceiptCheckRecord,
  WithdrawOutcome,
} from "../../shared/pipeline/index.js";
import {
  type CatalogueKeys,
  type CatalogueStore,
  cataloguePublished,
  catalogueWithdrawn,
  GENERATION_META,
  MemorySessionIndex,
  sha256Tap,
} from "../../shared/pipeline/index.js";
import { fileSpool } from "../../shared/spool/index.js";
import { withProgress } from "../progress.js";

/** Objects backed by files: each key maps to the path it was read from. */
export class FileObjectStore implements ObjectStore {
  private readonly paths = new Map<string, string>();
  private counter = 0;

  /** The source for `path` under `key`; its ETag is the sha256 of the path and size and mtime. */
  async add(key: string, path: string): Promise<ObjectSource> {
    const info = await stat(path);
    this.paths.set(key, path);
    this.counter++;
    const ref: ObjectRef = {
      key,
      etag: createHash("sha256")
        .update(`${resolve(path)}\0${info.size}\0${info.mtimeMs}`)
        .digest("hex")
        .slice(0, 32),
      versionId: null,
      size: info.size,
      sequencer: this.counter.toString(16).toUpperCase().padStart(16, "0"),
    };
    return { ...ref, open: () => this.open(ref) };
  }

  open(ref: Pick<ObjectRef, "key" | "versionId">): AsyncIterable<Uint8Array> {
    const path = this.paths.get(ref.key);
    if (path === undefined) throw new Error(`no file for ${ref.key}`);
    return withProgress(path, createReadStream(path, { highWaterMark: 1024 * 1024 }));
  }
}

/** A path under `root` for a store key, refusing any key that would leave it. */
function under(root: string, key: string): string {
  const path = resolve(root, ...key.split("/"));
  if (!path.startsWith(resolve(root) + sep)) throw new Error(`key ${JSON.stringify(key)} leaves ${root}`);
  return path;
}

/** Reads a file's text; null when it is not there. */
async function readIfAny(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces `path` whole (a temporary file renamed over it): a reader never sees half of it. */
async function replaceFile(path: string, body: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, body);
  await rename(temporary, path);
}

/** The catalogue's objects as files under `root` (the published folder); ETag: the text's sha256. */
class FolderCatalogueStore implements CatalogueStore {
  constructor(private readonly root: string) {}

  private static etag(body: string): string {
    return createHash("sha256").update(body).digest("hex").slice(0, 32);
  }

  async putEntry(key: string, body: string): Promise<void> {
    await replaceFile(under(this.root, key), body);
  }

  async getEntry(key: string): Promise<{ body: string; etag: string } | null> {
    const body = await readIfAny(under(this.root, key));
    return body === null ? null : { body, etag: FolderCatalogueStore.etag(body) };
  }

  /** The `.json` files whose key starts with `prefix`, in its folder (a shard's prefix ends mid-name). */
  async listEntries(prefix: string): Promise<{ key: string; etag: string }[]> {
    const folder = prefix.slice(0, prefix.lastIndexOf("/") + 1);
    const start = prefix.slice(folder.length);
    const names = await readdir(under(this.root, folder)).catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT" ? [] : Promise.reject(error),
    );
    const listed: { key: string; etag: string }[] = [];
    for (const name of names.filter((n) => n.startsWith(start) && n.endsWith(".json"))) {
      const found = await this.getEntry(`${folder}${name}`);
      if (found !== null) listed.push({ key: `${folder}${name}`, etag: found.etag });
    }
    return listed;
  }

  async getCatalogue(
    keys: CatalogueKeys,
  ): Promise<{ manifest: string | null; indexGeneration: string | null }> {
    const index = await readIfAny(under(this.root, keys.index));
    const meta =
      index === null ? null : new RegExp(`name="${GENERATION_META}" content="([0-9a-f]+)"`).exec(index);
    return {
      manifest: await readIfAny(under(this.root, keys.manifest)),
      indexGeneration: meta?.[1] ?? null,
    };
  }

  async putCatalogue(keys: CatalogueKeys, files: { manifest: string; index: string }): Promise<void> {
    await replaceFile(under(this.root, keys.index), files.index);
    await replaceFile(under(this.root, keys.manifest), files.manifest);
  }
}

/**
 * Copies under `<out>/published` with each tenant's catalogue, documents under `<out>/reports`; a
 * failed copy leaves no file.
 */
export class FolderPublisher implements Publisher {
  private readonly catalogue: FolderCatalogueStore;

  constructor(private readonly out: string) {
    this.catalogue = new FolderCatalogueStore(join(out, "published"));
  }

  /** Where the copy of `key` is written. */
  copyPath(key: string): string {
    return under(join(this.out, "published"), key);
  }

  async publishCopy(key: string, body: AsyncIterable<Uint8Array>, facts: CopyFacts): Promise<void> {
    const path = this.copyPath(key);
    await mkdir(dirname(path), { recursive: true });
    const tap = sha256Tap(body);
    try {
      await pipeline(tap.body, createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    await cataloguePublished(this.catalogue, key, tap.digest(), facts);
  }

  async withdrawCopy(key: string): Promise<void> {
    await rm(this.copyPath(key), { force: true });
    await catalogueWithdrawn(this.catalogue, key);
  }

  async putDocument(key: string, body: string): Promise<void> {
    const path = under(join(this.out, "reports"), key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
  }
}

/** The index kept in memory for the run and appended to `<out>/index.jsonl` as it is written. */
export class JsonLinesIndex extends MemorySessionIndex {
  constructor(private readonly path: string) {
    super();
  }

  /** Starts `index.jsonl` afresh: a run's index holds that run's records. */
  async reset(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await writeFile(this.path, "");
  }

  override async putFile(record: FileRecord): Promise<PutOutcome> {
    const outcome = await super.putFile(record);
    if (outcome === "written")
      await appendFile(this.path, `${JSON.stringify({ type: "file", ...record })}\n`);
    return outcome;
  }

  override async putCheck(record: ReceiptCheckRecord): Promise<PutOutcome> {
    const outcome = await super.putCheck(record);
    if (outcome === "written")
      await appendFile(this.path, `${JSON.stringify({ type: "check", ...record })}\n`);
    return outcome;
  }

  override async markWithdrawn(
    tenant: string,
    session: string,
    replay: ObjectRef,
    reason: string,
  ): Promise<WithdrawOutcome> {
    const outcome = await super.markWithdrawn(tenant, session, replay, reason);
    if (outcome === "withdrawn")
      await appendFile(
        this.path,
        `${JSON.stringify({ type: "withdrawn", tenant, session, key: replay.key, reason })}\n`,
      );
    return outcome;
  }
}

/** Ports over files and the output folder `out`. */
export function folderPorts(out: string): Ports & {
  objects: FileObjectStore;
  publisher: FolderPublisher;
  index: JsonLinesIndex;
} {
  return {
    objects: new FileObjectStore(),
    publisher: new FolderPublisher(out),
    index: new JsonLinesIndex(join(out, "index.jsonl")),
    spool: fileSpool(tmpdir()),
  };
}
