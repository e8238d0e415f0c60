/**
 * What an audit reads: the day index (every shard of every tenant and day, in parallel, all
 * pages), the failed rows of failed files (their verdict documents in the reports bucket) and, for
 * replays whose receipt is not among the period's records, the session's other records.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { CheckRow, Verdict } from "../../shared/formats/index.js";
import type { FileRecord, ReceiptCheckRecord } from "../../shared/pipeline/index.js";
import { type AuditInput, type DayVerdicts, zeroVerdicts } from "../../shared/report/index.js";
import type { DynamoSessionIndex } from "./dynamo-index.js";
import { asAdapterError } from "./errors.js";

/** The index reads an audit needs (a `DynamoSessionIndex`). */
export type AuditIndex = Pick<
  DynamoSessionIndex,
  "queryDay" | "queryChecksDay" | "listTenants" | "listFiles" | "shardCount"
>;

/** Reads a verdict document of the reports bucket; null when it is gone. */
export type ReadDocument = (key: string) => Promise<string | null>;

/** The period and settings of one audit. */
export interface AuditQuery {
  /** First and last UTC day, yyyy-mm-dd, both included. */
  since: string;
  until: string;
  /** One tenant, or null for every tenant the registry lists on each day. */
  tenant: string | null;
  now: Date;
  receiptAgeHours: number;
  /** Days of verdict history ending with `until` (default 30). */
  historyDays?: number;
  /** Records per query page (default 100; tests use small pages). */
  pageSize?: number;
  /** Requests in flight at once (default 16). */
  concurrency?: number;
}

/** Everything `buildAuditReport` needs for `query`, read from `index` and the reports bucket. */
export async function collectAuditInput(
  index: AuditIndex,
  readDocument: ReadDocument,
  query: AuditQuery,
): Promise<AuditInput> {
  const limit = limiter(query.concurrency ?? 16);
  const { filesOf, checksOf } = dayReader(index, query, limit);
  const period = daysBetween(query.since, query.until);
  const filesByDay = new Map<string, FileRecord[]>();
  const checks: ReceiptCheckRecord[] = [];
  await Promise.all(
    period.map(async (day) => {
      const [files, dayChecks] = await Promise.all([filesOf(day), checksOf(day)]);
      filesByDay.set(day, files);
      checks.push(...dayChecks);
    }),
  );
  const files = period.flatMap((day) => filesByDay.get(day) ?? []);

  const fileFailures = await failuresOf(files, readDocument, limit);
  const withReceipt = await receiptedSessions(files, checks, index, query, limit);
  const history: DayVerdicts[] = [];
  const historyDays = lastDays(query.until, query.historyDays ?? 30);
  await Promise.all(
    historyDays.map(async (day) => {
      const records = filesByDay.get(day) ?? (await filesOf(day));
      history.push({ day, verdicts: countVerdicts(records) });
    }),
  );
  history.sort((a, b) => a.day.localeCompare(b.day));

  return {
    since: query.since,
    until: query.until,
    tenant: query.tenant,
    generatedAt: query.now.toISOString(),
    receiptAgeHours: query.receiptAgeHours,
    files,
    checks,
    fileFailures,
    sessionsWithReceipt: [...withReceipt].sort(),
    history,
  };
}

type Limit = ReturnType<typeof limiter>;

/** A day's file records and receipt checks, of every tenant listed that day (or the one audited). */
function dayReader(
  index: AuditIndex,
  query: AuditQuery,
  limit: Limit,
): {
  filesOf: (day: string) => Promise<FileRecord[]>;
  checksOf: (day: string) => Promise<ReceiptCheckRecord[]>;
} {
  const pageSize = query.pageSize ?? 100;
  const tenantsOf = (day: string) =>
    query.tenant === null ? index.listTenants(day) : Promise.resolve([query.tenant]);

  // Every shard of a tenant's day, queried in parallel, each paged to its end, then merged.
  const dayRecords = async <T>(
    day: string,
    page: (
      tenant: string,
      shard: number,
      cursor: string | null,
    ) => Promise<{ records: T[]; cursor: string | null }>,
  ): Promise<T[]> => {
    const tenants = await tenantsOf(day);
    const shards = tenants.flatMap((tenant) =>
      Array.from({ length: index.shardCount }, (_, shard) => ({ tenant, shard })),
    );
    const parts = await Promise.all(
      shards.map(({ tenant, shard }) =>
        limit(async () => {
          const records: T[] = [];
          let cursor: string | null = null;
          do {
            const next = await page(tenant, shard, cursor);
            records.push(...next.records);
            cursor = next.cursor;
          } while (cursor !== null);
          return records;
        }),
      ),
    );
    return parts.flat();
  };
  const filesOf = (day: string) =>
    dayRecords<FileRecord>(day, (t, s, c) => index.queryDay(t, day, s, c, pageSize));
  const checksOf = (day: string) =>
    dayRecords<ReceiptCheckRecord>(day, (t, s, c) => index.queryChecksDay(t, day, s, c, pageSize));

  return { filesOf, checksOf };
}

/** The failed rows of each failed file's own checks, by object key, from its verdict document. */
async function failuresOf(
  files: readonly FileRecord[],
  readDocument: ReadDocument,
  limit: Limit,
): Promise<Record<string, CheckRow[]>> {
  const fileFailures: Record<string, CheckRow[]> = {};
  await Promise.all(
    files
      .filter((f) => f.verdict === "failed" && f.checks_total.failed > 0)
      .map((f) =>
        limit(async () => {
          fileFailures[f.ref.key] = failedRows(await readDocument(f.verdict_key));
        }),
      ),
  );

  return fileFailures;
}

/** `<tenant>/<session>` of every session known to have a receipt. */
async function receiptedSessions(
  files: readonly FileRecord[],
  checks: readonly ReceiptCheckRecord[],
  index: AuditIndex,
  query: AuditQuery,
  limit: Limit,
): Promise<Set<string>> {
  // A receipt processed after the period is not among its records: ask the session itself, for
  // the replays old enough to be reported.
  const withReceipt = new Set([
    ...files.filter((f) => f.kind === "receipt").map((f) => `${f.tenant}/${f.session}`),
    ...checks.map((c) => `${c.tenant}/${c.session}`),
  ]);
  const cutoff = query.now.getTime() - query.receiptAgeHours * 3_600_000;
  const candidates = new Map<string, FileRecord>();
  for (const f of files) {
    const id = `${f.tenant}/${f.session}`;
    if (
      f.kind === "replay" &&
      f.verdict !== "invalid" &&
      !withReceipt.has(id) &&
      Date.parse(f.processed_at) <= cutoff
    )
      candidates.set(id, f);
  }
  await Promise.all(
    [...candidates].map(([id, f]) =>
      limit(async () => {
        const all = await index.listFiles(f.tenant, f.session);
        if (all.some((r) => r.kind === "receipt")) withReceipt.add(id);
      }),
    ),
  );

  return withReceipt;
}

/** Reads reports-bucket documents with `s3`; a missing key reads as null. */
export function s3DocumentReader(s3: S3Client, bucket: string): ReadDocument {
  return async (key) => {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await out.Body?.transformToString("utf-8")) ?? null;
    } catch (error) {
      if ((error as Error).name === "NoSuchKey") return null;
      throw asAdapterError(error, `GetObject ${key}`);
    }
  };
}

/** Writes `body` to the reports bucket with its content type. */
export async function putReportDocument(
  s3: S3Client,
  bucket: string,
  key: string,
  body: string,
  contentType: string,
): Promise<void> {
  try {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
  } catch (error) {
    throw asAdapterError(error, `PutObject ${key}`);
  }
}

/** The UTC days from `since` to `until`, both included. */
function daysBetween(since: string, until: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

function lastDays(until: string, count: number): string[] {
  const end = Date.parse(`${until}T00:00:00Z`);
  return Array.from({ length: count }, (_, n) =>
    new Date(end - (count - 1 - n) * 86_400_000).toISOString().slice(0, 10),
  );
}

function countVerdicts(records: FileRecord[]): Record<Verdict, number> {
  const counts = zeroVerdicts();
  for (const r of records) counts[r.verdict]++;
  return counts;
}

// The failed rows of a verdict document's own report; a document that is gone or has none gives
// none (the file still counts as failed; its rows are simply not listed).
function failedRows(text: string | null): CheckRow[] {
  if (text === null) return [];
  const document = JSON.parse(text) as { report?: { checks?: CheckRow[] } | null };
  return (document.report?.checks ?? []).filter((row) => row.status === "failed");
}

/** Runs at most `n` of the given tasks at once. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active < n) active++;
    // Else a finishing task hands its slot over, so no newcomer slips in between.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
