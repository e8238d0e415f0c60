/**
 * The session index over one DynamoDB table (DESIGN.md storage contracts). Every write is a
 * conditional Put or Update keyed by object key and version: no transactions, so it runs the same
 * on DynamoDB, DynamoDB Local and dynalite. A failed condition is an outcome, never an error.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { ReplayPipelineError } from "../../shared/errors.js";
import type {
  FileRecord,
  ObjectRef,
  PutOutcome,
  ReceiptCheckRecord,
  SessionIndex,
  WithdrawOutcome,
} from "../../shared/pipeline/index.js";
import { DEFAULT_DAY_SHARDS, TABLE_SCHEMA as S } from "../lib/table.js";
import { openCursor, sealCursor } from "./day-cursor.js";
import { asAdapterError } from "./errors.js";

/** Table and day-index settings of a `DynamoSessionIndex`. */
export interface SessionIndexOptions {
  tableName: string;
  /** Day index shards per tenant and day (default 8); audits query each. */
  shards?: number;
  /** 32-byte key of `queryDay` cursors; absent: a random key, so cursors work in this process only. */
  cursorKey?: Uint8Array | null;
}

/** One page of a day's file records in one shard. */
export interface DayPage {
  records: FileRecord[];
  /** Pass back to `queryDay` for the next page; null after the last. */
  cursor: string | null;
}

/** One page of a day's receipt checks in one shard. */
export interface CheckPage {
  records: ReceiptCheckRecord[];
  /** Pass back to `queryChecksDay` for the next page; null after the last. */
  cursor: string | null;
}

const ORDER = "sequencer_order";
// Attributes the table adds to a record; a record read back is the record written.
const TABLE_ONLY = [
  S.partitionKey,
  S.sortKey,
  S.dayPartitionKey,
  S.daySortKey,
  ORDER,
  "withdrawn_reason",
  "withdrawn_at",
];
// The tenant registry: one item per tenant and UTC day with any record, so an audit of "all
// tenants" lists them with one query per day instead of scanning the table. The partition holds
// tenant names only, never a tenant's records.
const TENANT_DAY_PREFIX = "DAY#";
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The day index shard of `session`: the first four bytes of its sha256, modulo `shards`. */
export function shardOf(session: string, shards: number): number {
  return createHash("sha256").update(session, "utf8").digest().readUInt32BE(0) % shards;
}

/**
 * S3's rule for ordering sequencers of one key: left-pad the shorter with zeros, then compare as
 * text. Padding every one to 64 upper-case digits lets DynamoDB compare them in a condition. A
 * missing sequencer orders first.
 */
export function sequencerOrder(sequencer: string | null): string {
  const hex = (sequencer ?? "0").toUpperCase();
  if (!/^[0-9A-F]{1,64}$/.test(hex))
    throw new ReplayPipelineError("index.sequencer", `the sequencer ${JSON.stringify(sequencer)} is not hex`);
  return hex.padStart(64, "0");
}

/** The `SessionIndex` port over DynamoDB, plus the audits' day query. */
export class DynamoSessionIndex implements SessionIndex {
  private readonly table: string;
  private readonly shards: number;
  private readonly cursorKey: Uint8Array;
  // Registry items this instance has written: a warm Lambda writes each (tenant, day) once.
  private readonly registered = new Set<string>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    options: SessionIndexOptions,
  ) {
    this.table = options.tableName;
    this.shards = options.shards ?? DEFAULT_DAY_SHARDS;
    if (!Number.isInteger(this.shards) || this.shards < 1)
      throw new ReplayPipelineError("config.shards", `shards must be a positive integer, not ${this.shards}`);
    this.cursorKey = options.cursorKey ?? randomBytes(32);
  }

  /** Day index shards per tenant and day: an audit queries each. */
  get shardCount(): number {
    return this.shards;
  }

  /**
   * Writes the record if the key has none, or only an older sequencer's. Otherwise nothing changes:
   * `duplicate` when the recorded one is the same version (ETag, or version id where both have one),
   * `stale` when it is another, newer one (or when neither record names a version).
   */
  async putFile(record: FileRecord): Promise<PutOutcome> {
    const key = fileKey(record.tenant, record.session, record.ref.key);
    // Before the record: a retry after a failure here sees "duplicate" and would not register.
    await this.registerTenantDay(record.tenant, utcDay(record.processed_at));
    const item = this.fileItem(record);
    const order = item[ORDER];
    const written = await this.putIf(
      item,
      "attribute_not_exists(#pk) OR #order < :order",
      { "#pk": S.partitionKey, "#order": ORDER },
      { ":order": order },
    );
    if (written) return "written";
    const recorded = await this.getItem(key);
    // Items are never deleted, so a failed condition means there is one.
    if (recorded === null) throw new Error(`putFile ${record.ref.key}: condition failed on no item`);
    return sameVersion(recorded.ref, record.ref) ? "duplicate" : "stale";
  }

  /**
   * Replaces the record of `record.ref`'s version (reprocess run `runId`) on the condition that the
   * item is of that version and no earlier try of the run replaced it: the run id is kept on the
   * item (`reprocess_run`), so a resumed run's write of a finished object fails its condition.
   */
  async replaceFile(record: FileRecord, runId: string): Promise<PutOutcome> {
    const key = fileKey(record.tenant, record.session, record.ref.key);
    await this.registerTenantDay(record.tenant, utcDay(record.processed_at));
    const version = versionCondition(record.ref);
    const written = await this.putIf(
      { ...this.fileItem(record), reprocess_run: runId },
      `attribute_exists(#pk) AND ${version.condition} AND (attribute_not_exists(#run) OR #run <> :run)`,
      { "#pk": S.partitionKey, "#run": "reprocess_run", ...version.names },
      { ":run": runId, ...version.values },
    );
    if (written) return "written";
    const recorded = await this.getItem(key);
    return recorded !== null && sameVersion(recorded.ref, record.ref) && recorded.reprocess_run === runId
      ? "duplicate"
      : "stale";
  }

  /** `record` as a table item: its keys, its day index keys and its sequencer's order. */
  private fileItem(record: FileRecord): Record<string, unknown> & { [ORDER]: string } {
    const day = utcDay(record.processed_at);
    return {
      ...record,
      ...fileKey(record.tenant, record.session, record.ref.key),
      [S.dayPartitionKey]: dayPartition(record.tenant, day, shardOf(record.session, this.shards)),
      [S.daySortKey]: sortKeyOf(`${record.processed_at}#`, record.ref.key),
      [ORDER]: sequencerOrder(record.ref.sequencer),
    };
  }

  /** The record of `key`, consistent read. */
  async getFile(tenant: string, session: string, key: string): Promise<FileRecord | null> {
    return this.getItem(fileKey(tenant, session, key));
  }

  /** Every file record of the session, consistent read, all pages. */
  async listFiles(tenant: string, session: string): Promise<FileRecord[]> {
    return this.listSession<FileRecord>(tenant, session, "FILE#");
  }

  /** Every receipt check of the session (any version), consistent read, all pages. */
  async listChecks(tenant: string, session: string): Promise<ReceiptCheckRecord[]> {
    return this.listSession<ReceiptCheckRecord>(tenant, session, "RECEIPT#");
  }

  /** The records of a session's items whose sort key starts with `prefix`, all pages. */
  private async listSession<T>(tenant: string, session: string, prefix: string): Promise<T[]> {
    const records: T[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.table,
        KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
        ExpressionAttributeNames: { "#pk": S.partitionKey, "#sk": S.sortKey },
        ExpressionAttributeValues: { ":pk": sessionPartition(tenant, session), ":prefix": prefix },
        ConsistentRead: true,
      },
    );
    try {
      for await (const page of pages) for (const item of page.Items ?? []) records.push(fromItem<T>(item));
    } catch (error) {
      throw asAdapterError(error, `Query ${tenant}/${session}`);
    }
    return records;
  }

  /** Records the check once per (replay version, receipt version); `duplicate` after that. */
  async putCheck(record: ReceiptCheckRecord): Promise<PutOutcome> {
    const id = createHash("sha256")
      .update(
        JSON.stringify([
          record.replay.key,
          version(record.replay),
          record.receipt.key,
          version(record.receipt),
        ]),
      )
      .digest("hex");
    const day = utcDay(record.processed_at);
    await this.registerTenantDay(record.tenant, day);
    const item = {
      ...record,
      [S.partitionKey]: sessionPartition(record.tenant, record.session),
      [S.sortKey]: `RECEIPT#${id}`,
      // The day index under its own prefix (`C`), so audits page through a day's checks too.
      [S.dayPartitionKey]: checkDayPartition(record.tenant, day, shardOf(record.session, this.shards)),
      [S.daySortKey]: `${record.processed_at}#${id}`,
    };
    const written = await this.putIf(item, "attribute_not_exists(#pk)", { "#pk": S.partitionKey });
    return written ? "written" : "duplicate";
  }

  /**
   * Sets the record's `layer_c_key` to null and keeps the first reason and time given, on the
   * condition that the record is still of `replay`'s version (version id, else ETag, else
   * sequencer): a withdrawal racing a newer upload never clears the newer record's key (`stale`).
   * A key with no record is a fault of the caller (a copy is published only after its record is
   * written).
   */
  async markWithdrawn(
    tenant: string,
    session: string,
    replay: ObjectRef,
    reason: string,
  ): Promise<WithdrawOutcome> {
    const key = fileKey(tenant, session, replay.key);
    const version = versionCondition(replay);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression:
            "SET layer_c_key = :none, withdrawn_reason = if_not_exists(withdrawn_reason, :reason), withdrawn_at = if_not_exists(withdrawn_at, :at)",
          ConditionExpression: `attribute_exists(#pk) AND ${version.condition}`,
          ExpressionAttributeNames: { "#pk": S.partitionKey, ...version.names },
          ExpressionAttributeValues: {
            ":none": null,
            ":reason": reason,
            ":at": new Date().toISOString(),
            ...version.values,
          },
        }),
      );
      return "withdrawn";
    } catch (error) {
      if (!isConditionFailed(error)) throw asAdapterError(error, `UpdateItem ${replay.key}`);
    }
    if ((await this.getItem(key)) === null)
      throw new ReplayPipelineError("index.no_record", `markWithdrawn ${replay.key}: the key has no record`);
    return "stale";
  }

  /**
   * One page (up to `limit` records) of the files processed on `day` (UTC, yyyy-mm-dd) for
   * `tenant` in day index shard `shard`, in processing order. `cursor` must come from the previous
   * page of the same tenant, day and shard, else an `InvalidCursorError`.
   */
  async queryDay(
    tenant: string,
    day: string,
    shard: number,
    cursor?: string | null,
    limit = 100,
  ): Promise<DayPage> {
    this.checkDayQuery("queryDay", tenant, day, shard);
    const page = await this.queryPartition(dayPartition(tenant, day, shard), cursor, limit);
    return { records: page.items.map((item) => fromItem<FileRecord>(item)), cursor: page.cursor };
  }

  /** Like `queryDay`, for the receipt checks recorded on `day` (their `processed_at`). */
  async queryChecksDay(
    tenant: string,
    day: string,
    shard: number,
    cursor?: string | null,
    limit = 100,
  ): Promise<CheckPage> {
    this.checkDayQuery("queryChecksDay", tenant, day, shard);
    const page = await this.queryPartition(checkDayPartition(tenant, day, shard), cursor, limit);
    return { records: page.items.map((item) => fromItem<ReceiptCheckRecord>(item)), cursor: page.cursor };
  }

  /** The tenants with a file record or a receipt check on `day` (UTC, yyyy-mm-dd), sorted. */
  async listTenants(day: string): Promise<string[]> {
    if (!DAY.test(day))
      throw new ReplayPipelineError("index.day_query", `listTenants: expected a yyyy-mm-dd day`);
    const tenants: string[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.table,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": S.partitionKey },
        ExpressionAttributeValues: { ":pk": `${TENANT_DAY_PREFIX}${day}` },
      },
    );
    try {
      for await (const page of pages) for (const item of page.Items ?? []) tenants.push(String(item.tenant));
    } catch (error) {
      throw asAdapterError(error, `Query ${TENANT_DAY_PREFIX}${day}`);
    }
    return tenants.sort();
  }

  private checkDayQuery(what: string, tenant: string, day: string, shard: number): void {
    if (!NAME.test(tenant) || !DAY.test(day) || !Number.isInteger(shard) || shard < 0 || shard >= this.shards)
      throw new ReplayPipelineError(
        "index.day_query",
        `${what}: expected a tenant name, a yyyy-mm-dd day and a shard below ${this.shards}`,
      );
  }

  private async registerTenantDay(tenant: string, day: string): Promise<void> {
    const id = `${day}#${tenant}`;
    if (this.registered.has(id)) return;
    // Written or already there: either way the tenant is listed for the day.
    await this.putIf(
      { [S.partitionKey]: `${TENANT_DAY_PREFIX}${day}`, [S.sortKey]: `T#${tenant}`, tenant, day },
      "attribute_not_exists(#pk)",
      { "#pk": S.partitionKey },
    );
    this.registered.add(id);
  }

  private async queryPartition(
    partition: string,
    cursor: string | null | undefined,
    limit: number,
  ): Promise<{ items: Record<string, unknown>[]; cursor: string | null }> {
    const start = cursor ? openCursor(this.cursorKey, partition, cursor) : undefined;
    try {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: S.dayIndex,
          KeyConditionExpression: "#pk = :pk",
          ExpressionAttributeNames: { "#pk": S.dayPartitionKey },
          ExpressionAttributeValues: { ":pk": partition },
          ExclusiveStartKey: start,
          Limit: limit,
        }),
      );
      const last = out.LastEvaluatedKey;
      return { items: out.Items ?? [], cursor: last ? sealCursor(this.cursorKey, partition, last) : null };
    } catch (error) {
      throw asAdapterError(error, `Query ${partition}`);
    }
  }

  private async putIf(
    item: Record<string, unknown>,
    condition: string,
    names: Record<string, string>,
    values?: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw asAdapterError(error, `PutItem ${String(item[S.sortKey])}`);
    }
  }

  private async getItem(key: Record<string, string>): Promise<FileRecord | null> {
    try {
      const out = await this.client.send(
        new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
      );
      return out.Item ? fromItem<FileRecord>(out.Item) : null;
    } catch (error) {
      throw asAdapterError(error, `GetItem ${key[S.sortKey]}`);
    }
  }
}

function sessionPartition(tenant: string, session: string): string {
  return `T#${tenant}#S#${session}`;
}

function dayPartition(tenant: string, day: string, shard: number): string {
  return `T#${tenant}#D#${day}#${shard}`;
}

function checkDayPartition(tenant: string, day: string, shard: number): string {
  return `T#${tenant}#C#${day}#${shard}`;
}

function utcDay(time: string): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** DynamoDB's limit on a sort key, UTF-8 bytes (the table's and the day index's). */
const MAX_SORT_KEY_BYTES = 1024;

/**
 * `prefix` and `key` as a sort key: the key itself while it fits in `MAX_SORT_KEY_BYTES`, else
 * `~` and its sha256 (a valid ingest key, at most 513 bytes, always fits; a rejected one, up to
 * S3's 1,024 bytes and longer once scrubbed, may not). One key, one sort key either way.
 */
function sortKeyOf(prefix: string, key: string): string {
  const whole = `${prefix}${key}`;
  if (Buffer.byteLength(whole, "utf8") <= MAX_SORT_KEY_BYTES) return whole;
  return `${prefix}~${createHash("sha256").update(key, "utf8").digest("hex")}`;
}

function fileKey(tenant: string, session: string, key: string): Record<string, string> {
  return { [S.partitionKey]: sessionPartition(tenant, session), [S.sortKey]: sortKeyOf("FILE#", key) };
}

/** A table item as the record it stores: the table's own key attributes (PK, SK, GSI keys) removed. */
function fromItem<T>(item: Record<string, unknown>): T {
  const record = { ...item };
  for (const name of TABLE_ONLY) delete record[name];
  return record as unknown as T;
}

function version(ref: ObjectRef): string {
  return ref.versionId ?? ref.etag ?? "";
}

/** The condition that an item's `ref` is `ref`'s version, as `isVersionOf` decides it. */
function versionCondition(ref: ObjectRef): {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  if (ref.versionId !== null)
    return {
      condition: "#ref.#version = :version",
      names: { "#ref": "ref", "#version": "versionId" },
      values: { ":version": ref.versionId },
    };
  if (ref.etag !== null)
    return {
      condition: "#ref.#etag = :etag",
      names: { "#ref": "ref", "#etag": "etag" },
      values: { ":etag": ref.etag },
    };
  return {
    condition: "#order = :order",
    names: { "#order": ORDER },
    values: { ":order": sequencerOrder(ref.sequencer) },
  };
}

function sameVersion(a: ObjectRef, b: ObjectRef): boolean {
  if (a.versionId !== null && b.versionId !== null) return a.versionId === b.versionId;
  return a.etag !== null && a.etag === b.etag;
}

function isConditionFailed(error: unknown): boolean {
  return error instanceof Error && error.name === "ConditionalCheckFailedException";
}
