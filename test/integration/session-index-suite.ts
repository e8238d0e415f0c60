/**
 * The session index's behaviour against a DynamoDB server, with the real SDK client: run against
 * dynalite and against DynamoDB Local by the test files beside this one.
 */
import { type DynamoDBClient, GetItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DynamoSessionIndex, shardOf } from "../../functions/adapters/dynamo-index.js";
import { InvalidCursorError } from "../../functions/adapters/errors.js";
import { makeDocumentClient, makeDynamoClient } from "../../functions/lib/aws-clients.js";
import { createTable } from "../../functions/lib/table.js";
import { type CheckRow, emptySummary } from "../../shared/formats/types.js";
import type { FileRecord } from "../../shared/pipeline/ports.js";
import { RECORD_ROWS, recordError, recordRows } from "../../shared/pipeline/record-bounds.js";
import { recordSummary } from "../../shared/pipeline/record-summary.js";
import { checkRecord, fileRecord } from "../support/index-records.js";

/** A running DynamoDB server. */
export interface DynamoServer {
  endpoint: string;
  close(): Promise<void>;
}

const byKey = (a: FileRecord, b: FileRecord) => a.ref.key.localeCompare(b.ref.key);

/** Registers the suite against the server `start` starts. */
export function sessionIndexSuite(name: string, start: () => Promise<DynamoServer>): void {
  describe(`DynamoSessionIndex against ${name}`, () => {
    let server: DynamoServer;
    let raw: DynamoDBClient;
    let client: DynamoDBDocumentClient;
    let index: DynamoSessionIndex;
    let table = 0;

    /** An index over a new, empty table. */
    async function freshIndex(shards = 8): Promise<DynamoSessionIndex> {
      const tableName = `index-${++table}`;
      await createTable(raw, tableName);
      return new DynamoSessionIndex(client, { tableName, shards });
    }

    beforeAll(async () => {
      server = await start();
      raw = makeDynamoClient({
        region: "us-east-1",
        endpoint: server.endpoint,
        credentials: { accessKeyId: "local", secretAccessKey: "local" },
      });
      client = makeDocumentClient(raw);
      index = await freshIndex();
      // DynamoDB Local is a JVM: on a loaded machine it takes longer than the default hook timeout to start.
    }, 60_000);

    afterAll(async () => {
      raw?.destroy();
      await server?.close();
    });

    it("creates the table with its day index as the CDK stack will", async () => {
      const out = await raw.send(
        new QueryCommand({
          TableName: "index-1",
          IndexName: "GSI1",
          KeyConditionExpression: "GSI1PK = :pk",
          ExpressionAttributeValues: { ":pk": { S: "T#none#D#2026-01-01#0" } },
        }),
      );
      expect(out.Items).toEqual([]);
    });

    it("round-trips a file record exactly", async () => {
      const record = fileRecord("acme", "rt", "REPLAY.jsonl");
      record.first_error = { code: "x.y", message: "m", line: null };
      expect(await index.putFile(record)).toBe("written");
      expect(await index.getFile("acme", "rt", record.ref.key)).toEqual(record);
      expect(await index.getFile("acme", "rt", "acme/rt/none")).toBeNull();
    });

    it("writes a record whose summary recordSummary cut; the whole one is over the item limit", async () => {
      const summary = emptySummary("replay-v1");
      for (let k = 0; k < 20_000; k++)
        summary.verification.push({ command: `cargo test case-${k}`, exit_code: 0 });
      const whole: FileRecord = { ...fileRecord("acme", "big", "WHOLE.jsonl"), summary };
      await expect(index.putFile(whole)).rejects.toThrow(/size/i);
      const cut = recordSummary(summary);
      expect(cut.truncated).toBe(true);
      const record: FileRecord = {
        ...fileRecord("acme", "big", "CUT.jsonl"),
        summary: cut.summary,
        summary_truncated: true,
      };
      expect(await index.putFile(record)).toBe("written");
      expect(await index.getFile("acme", "big", record.ref.key)).toEqual(record);
    });

    it("records a rejected key of S3's full 1,024 bytes (sort keys past DynamoDB's limit hashed) and finds it again", async () => {
      const own = await freshIndex();
      const key = `${"k/".repeat(400)}${"x".repeat(224)}`;
      expect(Buffer.byteLength(key)).toBe(1024);
      const record: FileRecord = {
        ...fileRecord("_rejected", "0123456789abcdef", "f".repeat(64)),
        ref: { key, etag: "e1", versionId: null, size: 1, sequencer: "01" },
        kind: "rejected",
      };
      expect(await own.putFile(record)).toBe("written");
      expect(await own.putFile(record)).toBe("duplicate");
      expect(await own.getFile("_rejected", "0123456789abcdef", key)).toEqual(record);
      // A key one byte shorter is a different record.
      expect(await own.getFile("_rejected", "0123456789abcdef", key.slice(1))).toBeNull();
      const day = await own.queryDay("_rejected", "2026-11-26", shardOf("0123456789abcdef", 8));
      expect(day.records).toEqual([record]);
    });

    it("holds the largest file record: a summary recordSummary cut, the longest key and error, three bytes a character", async () => {
      const own = await freshIndex();
      const long = "\u20ac".repeat(20_000);
      const summary = emptySummary("replay-v1");
      Object.assign(summary, {
        session_id: long,
        producer: long,
        policy_bundle_id: long,
        started_at: long,
        ended_at: long,
        status: long,
      });
      for (let k = 0; k < 200; k++) {
        summary.counts.steps_by_type[`${k}${long}`] = k;
        summary.verification.push({ command: `${k}${long}`, exit_code: 1 });
      }
      const key = `${"k/".repeat(400)}${"x".repeat(224)}`;
      const record: FileRecord = {
        ...fileRecord("_rejected", "0123456789abcdef", "f".repeat(64)),
        ref: { key, etag: "e".repeat(64), versionId: "v".repeat(1024), size: 1, sequencer: "01" },
        summary: recordSummary(summary).summary,
        summary_truncated: true,
        first_error: recordError({ code: "x.y", message: long, line: 1 }),
        layer_c_key: key,
        verdict_key: `results/${key}.json`,
      };
      expect(await own.putFile(record)).toBe("written");
      expect(await own.getFile("_rejected", "0123456789abcdef", key)).toEqual(record);
    });

    it("holds the largest check record recordRows makes; the rows uncut are over the item limit", async () => {
      const replay = fileRecord("acme", "huge", "REPLAY.jsonl");
      const receipt = {
        key: "acme/huge/RECEIPT.json",
        etag: "r1",
        versionId: null,
        size: 965_000,
        sequencer: "01",
      };
      // Three UTF-8 bytes a character: the most an item can take per character kept.
      const text = "\u20ac".repeat(1_000);
      const rows: CheckRow[] = Array.from({ length: 200 }, () => ({
        check: text,
        subject: text,
        expected: text,
        actual: text,
        status: "failed" as const,
      }));
      const whole = { ...checkRecord(replay, receipt), failed: rows };
      await expect(index.putCheck(whole)).rejects.toThrow(/size/i);
      const cut = { ...checkRecord(replay, { ...receipt, etag: "r2" }), failed: recordRows(rows) };
      expect(cut.failed).toHaveLength(RECORD_ROWS);
      expect(await index.putCheck(cut)).toBe("written");
      const day = await index.queryChecksDay("acme", "2026-11-26", shardOf("huge", 8));
      expect(day.records).toEqual([cut]);
    });

    it("tells written, duplicate and stale apart by sequencer and version", async () => {
      const v1 = fileRecord("acme", "seq", "R.jsonl", { etag: "e1", sequencer: "00F0" });
      const v2 = fileRecord("acme", "seq", "R.jsonl", { etag: "e2", sequencer: "0100" });
      const older = fileRecord("acme", "seq", "R.jsonl", { etag: "e0", sequencer: "AA" });
      expect(await index.putFile(v1)).toBe("written");
      expect(await index.putFile(v1)).toBe("duplicate");
      expect(await index.putFile(v2)).toBe("written");
      expect(await index.putFile(v1)).toBe("stale");
      expect(await index.putFile(older)).toBe("stale");
      expect(await index.putFile(v2)).toBe("duplicate");
      expect(await index.getFile("acme", "seq", v2.ref.key)).toEqual(v2);
    });

    it("lists every file of a session over more than one page, and only that session's", async () => {
      const own = await freshIndex();
      const send = vi.spyOn(client, "send");
      // About 40 KB each: 30 of them pass DynamoDB's 1 MB page.
      const records = Array.from({ length: 30 }, (_, n) => {
        const record = fileRecord("acme", "big", `R${String(n).padStart(2, "0")}.jsonl`);
        record.first_error = { code: "x", message: "m".repeat(40_000), line: n };
        return record;
      });
      for (const record of records) await own.putFile(record);
      await own.putFile(fileRecord("acme", "other", "R.jsonl"));
      send.mockClear();
      const listed = await own.listFiles("acme", "big");
      const pages = send.mock.calls.length;
      send.mockRestore();
      expect(pages).toBeGreaterThan(1);
      expect(listed.sort(byKey)).toEqual(records);
    });

    it("keeps tenants apart: same session name, different tenants", async () => {
      const own = await freshIndex();
      const a = fileRecord("tenant-a", "shared", "R.jsonl");
      const b = fileRecord("tenant-b", "shared", "R.jsonl", { etag: "b" });
      await own.putFile(a);
      await own.putFile(b);
      expect(await own.listFiles("tenant-a", "shared")).toEqual([a]);
      expect(await own.listFiles("tenant-b", "shared")).toEqual([b]);
      expect(await own.getFile("tenant-b", "shared", a.ref.key)).toBeNull();
      const day = "2026-11-26";
      const shard = shardOf("shared", 8);
      expect((await own.queryDay("tenant-a", day, shard)).records).toEqual([a]);
      expect((await own.queryDay("tenant-c", day, shard)).records).toEqual([]);
    });

    it("records a receipt check once per version pair", async () => {
      const replay = fileRecord("acme", "chk", "REPLAY.jsonl");
      const receipt = { key: "acme/chk/RECEIPT.json", etag: "r1", versionId: null, size: 5, sequencer: "01" };
      expect(await index.putCheck(checkRecord(replay, receipt))).toBe("written");
      expect(await index.putCheck(checkRecord(replay, receipt))).toBe("duplicate");
      expect(await index.putCheck(checkRecord(replay, { ...receipt, etag: "r2" }))).toBe("written");
      // Checks are not file records.
      expect(await index.listFiles("acme", "chk")).toEqual([]);
    });

    it("marks a copy withdrawn, keeping the first reason, and refuses a key with no record", async () => {
      const record = fileRecord("acme", "wd", "R.jsonl");
      await index.putFile(record);
      expect(await index.markWithdrawn("acme", "wd", record.ref, "receipt check failed")).toBe("withdrawn");
      expect(await index.markWithdrawn("acme", "wd", record.ref, "again")).toBe("withdrawn");
      expect(await index.getFile("acme", "wd", record.ref.key)).toEqual({ ...record, layer_c_key: null });
      const item = await raw.send(
        new GetItemCommand({
          TableName: "index-1",
          Key: { PK: { S: "T#acme#S#wd" }, SK: { S: `FILE#${record.ref.key}` } },
        }),
      );
      expect(item.Item?.withdrawn_reason).toEqual({ S: "receipt check failed" });
      const none = { ...record.ref, key: "acme/wd/none" };
      await expect(index.markWithdrawn("acme", "wd", none, "x")).rejects.toMatchObject({
        code: "index.no_record",
      });
      expect(await index.getFile("acme", "wd", "acme/wd/none")).toBeNull();
    });

    it("a withdrawal of an older version racing a newer upload leaves the newer record's copy", async () => {
      const older = fileRecord("acme", "race", "R.jsonl", { etag: "e1", sequencer: "0A" });
      const newer = fileRecord("acme", "race", "R.jsonl", { etag: "e2", sequencer: "0B" });
      await index.putFile(older);
      // The newer upload is recorded between the receipt check of the older one and its withdrawal.
      expect(await index.putFile(newer)).toBe("written");
      expect(await index.markWithdrawn("acme", "race", older.ref, "receipt check failed")).toBe("stale");
      expect(await index.getFile("acme", "race", older.ref.key)).toEqual(newer);
      // Both at once: whichever lands first, the newer record ends with its copy's key.
      const other = fileRecord("acme", "race2", "R.jsonl", { etag: "e1", sequencer: "0A" });
      const next = fileRecord("acme", "race2", "R.jsonl", { etag: "e2", sequencer: "0B" });
      await index.putFile(other);
      const [, withdrawal] = await Promise.all([
        index.putFile(next),
        index.markWithdrawn("acme", "race2", other.ref, "receipt check failed"),
      ]);
      const final = await index.getFile("acme", "race2", other.ref.key);
      expect(final).toEqual(next);
      expect(["withdrawn", "stale"]).toContain(withdrawal);
      // Versioned objects: the condition is on the version id.
      const v1 = fileRecord("acme", "race3", "R.jsonl", { versionId: "v1", sequencer: "0A" });
      const v2 = fileRecord("acme", "race3", "R.jsonl", { versionId: "v2", sequencer: "0B" });
      await index.putFile(v1);
      await index.putFile(v2);
      expect(await index.markWithdrawn("acme", "race3", v1.ref, "x")).toBe("stale");
      expect(await index.markWithdrawn("acme", "race3", v2.ref, "x")).toBe("withdrawn");
      expect((await index.getFile("acme", "race3", v1.ref.key))?.layer_c_key).toBeNull();
    });

    it("pages a day's shard with cursors bound to the tenant, and the shards hold the whole day", async () => {
      const own = await freshIndex(4);
      const records: FileRecord[] = [];
      for (let n = 0; n < 24; n++) {
        const record = fileRecord(
          "acme",
          `day-${n}`,
          "R.jsonl",
          {},
          `2026-11-26T10:00:${String(n).padStart(2, "0")}.000Z`,
        );
        records.push(record);
        await own.putFile(record);
      }
      await own.putFile(fileRecord("acme", "next-day", "R.jsonl", {}, "2026-11-27T00:00:00.000Z"));
      await own.putFile(fileRecord("globex", "day-0", "R.jsonl"));
      const seen: FileRecord[] = [];
      let pages = 0;
      let stolen: string | null = null;
      for (let shard = 0; shard < 4; shard++) {
        let cursor: string | null = null;
        do {
          const page = await own.queryDay("acme", "2026-11-26", shard, cursor, 2);
          seen.push(...page.records);
          cursor = page.cursor;
          stolen ??= cursor;
          pages++;
        } while (cursor);
      }
      expect(pages).toBeGreaterThan(4);
      expect(seen.sort(byKey)).toEqual(records.sort(byKey));
      expect(stolen).not.toBeNull();
      for (let shard = 0; shard < 4; shard++)
        await expect(own.queryDay("globex", "2026-11-26", shard, stolen)).rejects.toBeInstanceOf(
          InvalidCursorError,
        );
    });

    it("lists the tenants of a day from its registry, and pages a day's receipt checks", async () => {
      const own = await freshIndex(2);
      const replay = fileRecord("acme", "chk", "R.jsonl");
      await own.putFile(replay);
      await own.putFile(fileRecord("globex", "g", "R.jsonl"));
      await own.putFile(fileRecord("initech", "i", "R.jsonl", {}, "2026-11-27T08:00:00.000Z"));
      const checks = [1, 2, 3].map((n) =>
        checkRecord(replay, {
          key: `acme/chk/RECEIPT-${n}.json`,
          etag: "r",
          versionId: null,
          size: 5,
          sequencer: "01",
        }),
      );
      for (const check of checks) expect(await own.putCheck(check)).toBe("written");
      // Another instance (another Lambda) registers again: still one item per tenant and day.
      await new DynamoSessionIndex(client, { tableName: `index-${table}`, shards: 2 }).putFile(
        fileRecord("acme", "other", "R.jsonl"),
      );
      expect(await own.listTenants("2026-11-26")).toEqual(["acme", "globex"]);
      expect(await own.listTenants("2026-11-27")).toEqual(["initech"]);
      expect(await own.listTenants("2026-11-28")).toEqual([]);
      const shard = shardOf("chk", 2);
      const first = await own.queryChecksDay("acme", "2026-11-26", shard, null, 2);
      expect(first.records).toHaveLength(2);
      const rest = await own.queryChecksDay("acme", "2026-11-26", shard, first.cursor, 2);
      expect(rest.cursor).toBeNull();
      const byReceipt = (a: { receipt: { key: string } }, b: { receipt: { key: string } }) =>
        a.receipt.key.localeCompare(b.receipt.key);
      expect([...first.records, ...rest.records].sort(byReceipt)).toEqual(checks);
      // Checks stay out of the file query of the same day and shard.
      const files = await own.queryDay("acme", "2026-11-26", shard);
      expect(files.records.every((r) => r.kind === "replay")).toBe(true);
      expect((await own.queryChecksDay("acme", "2026-11-26", 1 - shard)).records).toEqual([]);
    });
  });
}
