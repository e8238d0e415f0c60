/**
 * The `catalogue` row of `npm run bench`: what one publish and one withdrawal cost the catalogue
 * of a tenant that already has 1,000 and 5,000 copies: bytes written, objects read and written,
 * listings, CPU. Over the memory store, so no network: the S3 requests are counted, not timed.
 */
import {
  type CatalogueEntry,
  catalogueEntryKey,
  cataloguePublished,
  catalogueWithdrawn,
  MemoryCatalogueStore,
  rebuildCatalogue,
} from "#shared/pipeline/index.js";

/** Copies already catalogued before the measured change. */
const SIZES = [1000, 5000];

/** Calls and bytes by what the store was asked to do. */
interface Tally {
  written: number;
  puts: number;
  gets: number;
  lists: number;
  /** Keys the listings returned (S3 lists 1,000 a request). */
  listed: number;
}

/** A memory store that counts what it is asked: each put's text bytes, each get and listing. */
class CountingStore extends MemoryCatalogueStore {
  tally: Tally = { written: 0, puts: 0, gets: 0, lists: 0, listed: 0 };

  override async putEntry(key: string, body: string): Promise<void> {
    this.tally.puts++;
    this.tally.written += Buffer.byteLength(body);
    return super.putEntry(key, body);
  }
  override async getEntry(key: string) {
    this.tally.gets++;
    return super.getEntry(key);
  }
  override async listEntries(prefix: string) {
    this.tally.lists++;
    const listed = await super.listEntries(prefix);
    this.tally.listed += listed.length;
    return listed;
  }
  override async getCatalogue(...args: Parameters<MemoryCatalogueStore["getCatalogue"]>) {
    this.tally.gets += 2;
    return super.getCatalogue(...args);
  }
  override async putCatalogue(...args: Parameters<MemoryCatalogueStore["putCatalogue"]>) {
    const files = args[args.length - 1] as { manifest: string; index: string };
    this.tally.puts += 2;
    this.tally.written += Buffer.byteLength(files.manifest) + Buffer.byteLength(files.index);
    return super.putCatalogue(...args);
  }
}

function entry(key: string): CatalogueEntry {
  return {
    key,
    sha256: "c".repeat(64),
    replay_hash: "d".repeat(64),
    verdict: "passed",
    attestation: `results/${key}.intoto.json`,
    published_at: "2026-03-01T00:00:00.000Z",
    withdrawn_at: null,
  };
}

/** One change measured: its tally and CPU milliseconds. */
async function measured(
  store: CountingStore,
  change: () => Promise<void>,
): Promise<Tally & { cpuMs: number }> {
  store.tally = { written: 0, puts: 0, gets: 0, lists: 0, listed: 0 };
  const cpu = process.cpuUsage();
  await change();
  const used = process.cpuUsage(cpu);
  return { ...store.tally, cpuMs: (used.user + used.system) / 1000 };
}

const kb = (bytes: number): string => (bytes / 1000).toFixed(1);

/** The section: per size, one publish and one withdrawal. */
export async function catalogueReport(): Promise<{ text: string }> {
  const rows: string[] = [];
  for (const size of SIZES) {
    const store = new CountingStore();
    const keys = Array.from({ length: size }, (_, n) => `acme/s-${n}/R.layer-c.jsonl`);
    for (const key of keys) await store.putEntry(catalogueEntryKey(key), `${JSON.stringify(entry(key))}\n`);
    await rebuildCatalogue(store, "acme");
    const facts = {
      replay_hash: "e".repeat(64),
      verdict: "passed" as const,
      attestation: "results/x.intoto.json",
    };
    const publish = await measured(store, () =>
      cataloguePublished(store, "acme/new/R.layer-c.jsonl", "f".repeat(64), facts),
    );
    const withdraw = await measured(store, () => catalogueWithdrawn(store, keys[size >> 1] as string));
    for (const [what, t] of [
      ["publish", publish],
      ["withdrawal", withdraw],
    ] as const)
      rows.push(
        `| ${size.toLocaleString("en-US")} | ${what} | ${kb(t.written)} | ${t.puts} | ${t.gets} | ${t.lists} (${t.listed.toLocaleString("en-US")} keys) | ${t.cpuMs.toFixed(1)} |`,
      );
  }
  return {
    text: [
      "## The catalogue: one change in a tenant of many copies",
      "",
      "One publish and one withdrawal in a tenant whose catalogue already lists 1,000 and 5,000 copies (memory store, one thread: requests counted, not timed; `npm run bench -- --only catalogue`).",
      "",
      "| copies | change | KB written | objects written | objects read | listings | CPU ms |",
      "| -----: | ------ | ---------: | --------------: | -----------: | -------: | -----: |",
      ...rows,
    ].join("\n"),
  };
}
