/**
 * A reprocess run over ports: the selection from the day index, one manifest item through the
 * per-file job in reprocess mode, and the items of a run at bounded concurrency, stoppable. The
 * exactness is the index's: each record is replaced once per run id (`replaceFile`), so a stopped
 * run resumed with its id finds what it finished as `duplicate` and does the rest.
 */
import type { ProcessOptions, ReprocessMode } from "./job-types.js";
import type { FileRecord, Ports } from "./ports.js";
import { processObject } from "./process-object.js";
import {
  changeOf,
  itemOf,
  type ReprocessChange,
  type ReprocessFilter,
  type ReprocessItem,
  selects,
} from "./reprocess.js";

/** The day index reads a selection needs (a `DynamoSessionIndex`). */
export interface DayRecords {
  readonly shardCount: number;
  listTenants(day: string): Promise<string[]>;
  queryDay(
    tenant: string,
    day: string,
    shard: number,
    cursor?: string | null,
    limit?: number,
  ): Promise<{ records: FileRecord[]; cursor: string | null }>;
}

/** The UTC days (yyyy-mm-dd) from `since`'s to `until`'s, both included. */
export function daysOf(since: string, until: string): string[] {
  const days: string[] = [];
  const last = new Date(until).toISOString().slice(0, 10);
  for (let d = new Date(`${since.slice(0, 10)}T00:00:00Z`); ; d = new Date(d.getTime() + 86_400_000)) {
    const day = d.toISOString().slice(0, 10);
    if (day > last) break;
    days.push(day);
  }
  return days;
}

/**
 * The manifest items `filter` selects, read from the day index (no scan): each day of the period,
 * for `tenant` or (null: operator mode) every tenant the day's registry lists, every shard, all
 * pages. One item per key: a key recorded twice in the period (a record replaced) counts once.
 */
export async function selectItems(
  index: DayRecords,
  filter: ReprocessFilter & { tenant: string | null },
  pageSize = 100,
): Promise<ReprocessItem[]> {
  const items = new Map<string, ReprocessItem>();
  // One shard's pages, in order; a day's shards (of every tenant) are read at once.
  const shardRecords = async (tenant: string, day: string, shard: number): Promise<FileRecord[]> => {
    const records: FileRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: { records: FileRecord[]; cursor: string | null } = await index.queryDay(
        tenant,
        day,
        shard,
        cursor,
        pageSize,
      );
      records.push(...page.records);
      cursor = page.cursor;
    } while (cursor !== null);
    return records;
  };
  for (const day of daysOf(filter.since, filter.until)) {
    const tenants = filter.tenant === null ? await index.listTenants(day) : [filter.tenant];
    const shards = tenants.flatMap((tenant) =>
      Array.from({ length: index.shardCount }, (_, shard) => ({ tenant, shard })),
    );
    const parts = await Promise.all(shards.map(({ tenant, shard }) => shardRecords(tenant, day, shard)));
    for (const record of parts.flat())
      if (selects(record, filter)) items.set(JSON.stringify([record.tenant, record.ref.key]), itemOf(record));
  }
  return [...items.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Runs the per-file job again on `item` (the version its record names) in reprocess mode, and says
 * what changed. A key whose record is now of another version is `stale` and is not read.
 */
export async function reprocessItem(
  item: ReprocessItem,
  ports: Ports,
  options: ProcessOptions & { mode: ReprocessMode },
): Promise<ReprocessChange> {
  const before = await ports.index.getFile(item.tenant, item.session, item.key);
  const sameVersion =
    before !== null &&
    (item.version_id !== null ? before.ref.versionId === item.version_id : before.ref.etag === item.etag);
  if (before === null || !sameVersion) {
    const verdict = before?.verdict ?? "invalid";
    return {
      key: item.key,
      outcome: "stale",
      verdict_before: verdict,
      verdict_after: verdict,
      republished: false,
      withdrawn: null,
    };
  }
  const ref = before.ref;
  const result = await processObject({ ...ref, open: () => ports.objects.open(ref) }, ports, options);
  return changeOf(before, result.record, result.outcome, result.copyKept === true);
}

/** How `runItems` runs. */
export interface RunItemsOptions {
  /** Items in flight at once (at least 1). */
  concurrency: number;
  /** Stops taking items once aborted; the items in flight finish (their records are written or not). */
  signal?: AbortSignal;
  /** Called after each item with the count done (or failed) so far. */
  onProgress?: (done: number) => void;
}

/** What `runItems` did: a change per item finished, a fault per item failed; the rest were not reached. */
export interface RunItemsResult {
  changes: ReprocessChange[];
  failed: { key: string; error: string }[];
}

/** Runs `handle` over `items`, `concurrency` at once, until all are done or `signal` aborts. */
export async function runItems(
  items: readonly ReprocessItem[],
  handle: (item: ReprocessItem) => Promise<ReprocessChange>,
  options: RunItemsOptions,
): Promise<RunItemsResult> {
  const result: RunItemsResult = { changes: [], failed: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && options.signal?.aborted !== true) {
      const item = items[next++] as ReprocessItem;
      try {
        result.changes.push(await handle(item));
      } catch (error) {
        // A fault leaves the record as it was: a resumed run tries the item again.
        result.failed.push({ key: item.key, error: error instanceof Error ? error.message : String(error) });
      }
      options.onProgress?.(result.changes.length + result.failed.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return result;
}
