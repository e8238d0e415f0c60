import "aws-sdk-client-mock-vitest/extend";
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { DynamoSessionIndex, sequencerOrder, shardOf } from "../../functions/adapters/dynamo-index.js";
import { InvalidCursorError } from "../../functions/adapters/errors.js";
import { TransientError } from "../../shared/errors.js";
import { checkRecord, fileRecord } from "../support/index-records.js";

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: "us-east-1" }));
const db = mockClient(client);
const index = new DynamoSessionIndex(client, { tableName: "index" });

function conditionFailed(): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata: {} });
}

function dynamoError(name: string, status: number): DynamoDBServiceException {
  return new DynamoDBServiceException({
    name,
    $fault: status >= 500 ? "server" : "client",
    $metadata: { httpStatusCode: status },
    message: name,
  });
}

/** What the table holds for `record`: the record and the table's own attributes. */
function stored(record: ReturnType<typeof fileRecord>) {
  return { ...record, PK: "pk", SK: "sk", GSI1PK: "g", GSI1SK: "s", sequencer_order: "0" };
}

beforeEach(() => {
  db.reset();
});

describe("putFile", () => {
  it("registers the tenant's day once per instance, before the record, whoever registered it first", async () => {
    const own = new DynamoSessionIndex(client, { tableName: "index", shards: 2 });
    db.on(PutCommand, { Item: { PK: "DAY#2026-11-26" } })
      .rejects(conditionFailed())
      .on(PutCommand)
      .resolves({});
    expect(await own.putFile(fileRecord("acme", "a", "R.jsonl"))).toBe("written");
    expect(await own.putFile(fileRecord("acme", "b", "R.jsonl"))).toBe("written");
    expect(
      await own.putCheck(
        checkRecord(fileRecord("acme", "a", "R.jsonl"), fileRecord("acme", "a", "RECEIPT.json").ref),
      ),
    ).toBe("written");
    const items = db.commandCalls(PutCommand).map((call) => call.args[0].input.Item);
    expect(items.map((item) => item?.PK)).toEqual([
      "DAY#2026-11-26",
      "T#acme#S#a",
      "T#acme#S#b",
      "T#acme#S#a",
    ]);
    expect(items[0]).toEqual({ PK: "DAY#2026-11-26", SK: "T#acme", tenant: "acme", day: "2026-11-26" });
    expect(items[3]?.GSI1PK).toBe(`T#acme#C#2026-11-26#${shardOf("a", 2)}`);
  });

  it("writes a new record with its keys, its day index entry and a condition on the sequencer", async () => {
    db.on(PutCommand).resolves({});
    const record = fileRecord("acme", "s-1", "REPLAY.jsonl", { sequencer: "5f" });
    expect(await index.putFile(record)).toBe("written");
    expect(db).toHaveReceivedCommandWith(PutCommand, {
      TableName: "index",
      ConditionExpression: "attribute_not_exists(#pk) OR #order < :order",
      ExpressionAttributeValues: { ":order": `${"0".repeat(62)}5F` },
      Item: {
        ...record,
        PK: "T#acme#S#s-1",
        SK: "FILE#acme/s-1/REPLAY.jsonl",
        GSI1PK: `T#acme#D#2026-11-26#${shardOf("s-1", 8)}`,
        GSI1SK: "2026-11-26T10:00:00.000Z#acme/s-1/REPLAY.jsonl",
        sequencer_order: `${"0".repeat(62)}5F`,
      },
    });
  });

  it("spreads sessions over the configured number of shards", async () => {
    db.on(PutCommand).resolves({});
    const three = new DynamoSessionIndex(client, { tableName: "index", shards: 3 });
    const shards = new Set<string>();
    for (let n = 0; n < 40; n++) {
      await three.putFile(fileRecord("acme", `s-${n}`, "R.jsonl"));
      const item = db.commandCalls(PutCommand).at(-1)?.args[0].input.Item;
      shards.add(String(item?.GSI1PK).split("#").at(-1) ?? "");
    }
    expect([...shards].sort()).toEqual(["0", "1", "2"]);
  });

  it("is a duplicate when the condition fails on the same ETag (a redelivered event)", async () => {
    const record = fileRecord("acme", "s-1", "REPLAY.jsonl");
    db.on(PutCommand).rejects(conditionFailed());
    db.on(GetCommand).resolves({ Item: stored(record) });
    expect(await index.putFile(record)).toBe("duplicate");
    expect(db).toHaveReceivedCommandWith(GetCommand, {
      Key: { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/REPLAY.jsonl" },
      ConsistentRead: true,
    });
  });

  it("is stale when the condition fails on another, newer version", async () => {
    const newer = fileRecord("acme", "s-1", "REPLAY.jsonl", { etag: "e2", sequencer: "0B" });
    db.on(PutCommand).rejects(conditionFailed());
    db.on(GetCommand).resolves({ Item: stored(newer) });
    expect(await index.putFile(fileRecord("acme", "s-1", "REPLAY.jsonl"))).toBe("stale");
  });

  it("compares version ids where both records have one", async () => {
    const recorded = fileRecord("acme", "s-1", "R.jsonl", { versionId: "v2", etag: "same" });
    db.on(PutCommand).rejects(conditionFailed());
    db.on(GetCommand).resolves({ Item: stored(recorded) });
    expect(await index.putFile(fileRecord("acme", "s-1", "R.jsonl", { versionId: "v1", etag: "same" }))).toBe(
      "stale",
    );
    expect(await index.putFile(fileRecord("acme", "s-1", "R.jsonl", { versionId: "v2", etag: "same" }))).toBe(
      "duplicate",
    );
  });

  it.each([
    ["ProvisionedThroughputExceededException", 400],
    ["ThrottlingException", 400],
    ["InternalServerError", 500],
    ["ServiceUnavailable", 503],
  ])("maps %s to a transient error", async (name, status) => {
    db.on(PutCommand).rejects(dynamoError(name, status));
    const error = await index.putFile(fileRecord("acme", "s-1", "R.jsonl")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain(name);
  });

  it("maps a timeout or a reset connection to a transient error", async () => {
    db.on(PutCommand)
      .rejectsOnce(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
      .rejectsOnce(Object.assign(new Error("timed out"), { name: "TimeoutError" }));
    await expect(index.putFile(fileRecord("acme", "s-1", "R.jsonl"))).rejects.toBeInstanceOf(TransientError);
    await expect(index.putFile(fileRecord("acme", "s-1", "R.jsonl"))).rejects.toBeInstanceOf(TransientError);
  });

  it("keeps a request fault (ValidationException) as the SDK's error", async () => {
    db.on(PutCommand).rejects(dynamoError("ValidationException", 400));
    const error = await index.putFile(fileRecord("acme", "s-1", "R.jsonl")).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(TransientError);
    expect((error as Error).name).toBe("ValidationException");
  });

  it("maps throttling on the read that classifies a failed condition", async () => {
    db.on(PutCommand).rejects(conditionFailed());
    db.on(GetCommand).rejects(dynamoError("ThrottlingException", 400));
    await expect(index.putFile(fileRecord("acme", "s-1", "R.jsonl"))).rejects.toBeInstanceOf(TransientError);
  });
});

describe("sequencerOrder", () => {
  it("orders as S3 says: the shorter left-padded with zeros, then as text, any case", () => {
    expect(sequencerOrder("FF") < sequencerOrder("0100")).toBe(true);
    expect(sequencerOrder("00ab") === sequencerOrder("AB")).toBe(true);
    expect(sequencerOrder("9") < sequencerOrder("10")).toBe(true);
    expect(sequencerOrder(null) < sequencerOrder("1")).toBe(true);
  });

  it("refuses what is not hex", () => {
    expect(() => sequencerOrder("12:34")).toThrow(/not hex/);
    expect(() => sequencerOrder("1".repeat(65))).toThrow(/not hex/);
  });
});

describe("getFile and listFiles", () => {
  it("returns the record as written, without the table's attributes, or null", async () => {
    const record = fileRecord("acme", "s-1", "R.jsonl");
    db.on(GetCommand)
      .resolvesOnce({ Item: stored(record) })
      .resolvesOnce({});
    expect(await index.getFile("acme", "s-1", "acme/s-1/R.jsonl")).toEqual(record);
    expect(await index.getFile("acme", "s-1", "acme/s-1/R.jsonl")).toBeNull();
  });

  it("reads every page with consistent reads", async () => {
    const records = ["a", "b", "c"].map((f) => fileRecord("acme", "s-1", f));
    const [a, b, c] = records.map(stored) as [object, object, object];
    db.on(QueryCommand)
      .resolvesOnce({ Items: [a, b], LastEvaluatedKey: { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/b" } })
      .resolvesOnce({ Items: [c] });
    expect(await index.listFiles("acme", "s-1")).toEqual(records);
    expect(db).toHaveReceivedCommandTimes(QueryCommand, 2);
    expect(db).toHaveReceivedNthCommandWith(QueryCommand, 1, {
      ConsistentRead: true,
      ExpressionAttributeValues: { ":pk": "T#acme#S#s-1", ":prefix": "FILE#" },
    });
    expect(db).toHaveReceivedNthCommandWith(QueryCommand, 2, {
      ExclusiveStartKey: { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/b" },
    });
  });

  it("maps throttling on a later page to a transient error", async () => {
    db.on(QueryCommand)
      .resolvesOnce({ Items: [], LastEvaluatedKey: { PK: "p", SK: "s" } })
      .rejectsOnce(dynamoError("ProvisionedThroughputExceededException", 400));
    await expect(index.listFiles("acme", "s-1")).rejects.toBeInstanceOf(TransientError);
  });
});

describe("putCheck", () => {
  const replay = fileRecord("acme", "s-1", "REPLAY.jsonl");
  const receipt = { key: "acme/s-1/RECEIPT.json", etag: "r1", versionId: null, size: 5, sequencer: "01" };

  it("writes a check once per replay version and receipt version", async () => {
    db.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).resolvesOnce({});
    expect(await index.putCheck(checkRecord(replay, receipt))).toBe("written");
    expect(await index.putCheck(checkRecord(replay, receipt))).toBe("duplicate");
    expect(await index.putCheck(checkRecord(replay, { ...receipt, etag: "r2" }))).toBe("written");
    const keys = db.commandCalls(PutCommand).map((call) => call.args[0].input.Item?.SK);
    expect(keys[0]).toMatch(/^RECEIPT#[0-9a-f]{64}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(db).toHaveReceivedCommandWith(PutCommand, { ConditionExpression: "attribute_not_exists(#pk)" });
  });
});

describe("markWithdrawn", () => {
  const replay = fileRecord("acme", "s-1", "R.jsonl").ref;

  it("clears the copy's key and keeps the first reason, on the condition of the version withdrawn", async () => {
    db.on(UpdateCommand).resolves({});
    expect(await index.markWithdrawn("acme", "s-1", replay, "receipt check failed")).toBe("withdrawn");
    expect(db).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/R.jsonl" },
      ConditionExpression: "attribute_exists(#pk) AND #ref.#etag = :etag",
      ExpressionAttributeNames: { "#pk": "PK", "#ref": "ref", "#etag": "etag" },
    });
    const input = db.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.UpdateExpression).toContain("layer_c_key = :none");
    expect(input?.ExpressionAttributeValues?.[":none"]).toBeNull();
    expect(input?.ExpressionAttributeValues?.[":etag"]).toBe("e1");
  });

  it("conditions on the version id where the withdrawn version has one, else on the sequencer", async () => {
    db.on(UpdateCommand).resolves({});
    await index.markWithdrawn("acme", "s-1", { ...replay, versionId: "v7" }, "x");
    await index.markWithdrawn("acme", "s-1", { ...replay, etag: null, sequencer: "0b" }, "x");
    const inputs = db.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(inputs[0]).toMatchObject({
      ConditionExpression: "attribute_exists(#pk) AND #ref.#version = :version",
      ExpressionAttributeNames: { "#ref": "ref", "#version": "versionId" },
      ExpressionAttributeValues: { ":version": "v7" },
    });
    expect(inputs[1]).toMatchObject({
      ConditionExpression: "attribute_exists(#pk) AND #order = :order",
      ExpressionAttributeValues: { ":order": sequencerOrder("0b") },
    });
  });

  it("is stale, changing nothing, when a newer version's record is there (the race with a new upload)", async () => {
    db.on(UpdateCommand).rejects(conditionFailed());
    const newer = fileRecord("acme", "s-1", "R.jsonl", { etag: "e2", sequencer: "0B" });
    db.on(GetCommand).resolves({ Item: stored(newer) });
    expect(await index.markWithdrawn("acme", "s-1", replay, "x")).toBe("stale");
    expect(db).toHaveReceivedCommandWith(GetCommand, {
      Key: { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/R.jsonl" },
      ConsistentRead: true,
    });
  });

  it("fails with index.no_record when the key has no record", async () => {
    db.on(UpdateCommand).rejects(conditionFailed());
    db.on(GetCommand).resolves({});
    await expect(index.markWithdrawn("acme", "s-1", replay, "x")).rejects.toMatchObject({
      code: "index.no_record",
    });
  });

  it("maps throttling to a transient error", async () => {
    db.on(UpdateCommand).rejects(dynamoError("ThrottlingException", 400));
    await expect(index.markWithdrawn("acme", "s-1", replay, "x")).rejects.toBeInstanceOf(TransientError);
  });
});

describe("queryDay cursors", () => {
  const lastKey = { PK: "T#acme#S#s-1", SK: "FILE#acme/s-1/a", GSI1PK: "T#acme#D#2026-11-26#0", GSI1SK: "x" };

  it("pages with an opaque cursor that holds no readable key", async () => {
    db.on(QueryCommand).resolvesOnce({ Items: [], LastEvaluatedKey: lastKey }).resolvesOnce({ Items: [] });
    const first = await index.queryDay("acme", "2026-11-26", 0);
    expect(first.cursor).toEqual(expect.any(String));
    expect(Buffer.from(first.cursor ?? "", "base64url").toString("latin1")).not.toContain("acme");
    const second = await index.queryDay("acme", "2026-11-26", 0, first.cursor);
    expect(second.cursor).toBeNull();
    expect(db).toHaveReceivedNthCommandWith(QueryCommand, 1, {
      IndexName: "GSI1",
      ExpressionAttributeValues: { ":pk": "T#acme#D#2026-11-26#0" },
      ExclusiveStartKey: undefined,
    });
    expect(db).toHaveReceivedNthCommandWith(QueryCommand, 2, { ExclusiveStartKey: lastKey });
  });

  it("refuses a cursor of tenant A for tenant B, another day or shard, or another key, before any query", async () => {
    db.on(QueryCommand).resolvesOnce({ Items: [], LastEvaluatedKey: lastKey });
    const { cursor } = await index.queryDay("acme", "2026-11-26", 0);
    db.reset();
    const other = new DynamoSessionIndex(client, { tableName: "index" });
    for (const attempt of [
      index.queryDay("globex", "2026-11-26", 0, cursor),
      index.queryDay("acme", "2026-11-27", 0, cursor),
      index.queryDay("acme", "2026-11-26", 1, cursor),
      other.queryDay("acme", "2026-11-26", 0, cursor),
    ])
      await expect(attempt).rejects.toBeInstanceOf(InvalidCursorError);
    expect(db).not.toHaveReceivedAnyCommand();
  });

  it("refuses a tampered or made-up cursor", async () => {
    db.on(QueryCommand).resolvesOnce({ Items: [], LastEvaluatedKey: lastKey });
    const { cursor } = await index.queryDay("acme", "2026-11-26", 0);
    const bytes = Buffer.from(cursor ?? "", "base64url");
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
    const forged = Buffer.from(JSON.stringify(lastKey)).toString("base64url");
    await expect(index.queryDay("acme", "2026-11-26", 0, bytes.toString("base64url"))).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
    await expect(index.queryDay("acme", "2026-11-26", 0, forged)).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(index.queryDay("acme", "2026-11-26", 0, "x")).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it("reads a cursor made by another index that shares the key", async () => {
    const key = new Uint8Array(32).fill(7);
    const a = new DynamoSessionIndex(client, { tableName: "index", cursorKey: key });
    const b = new DynamoSessionIndex(client, { tableName: "index", cursorKey: key });
    db.on(QueryCommand).resolvesOnce({ Items: [], LastEvaluatedKey: lastKey }).resolvesOnce({ Items: [] });
    const { cursor } = await a.queryDay("acme", "2026-11-26", 0);
    await b.queryDay("acme", "2026-11-26", 0, cursor);
    expect(db).toHaveReceivedNthCommandWith(QueryCommand, 2, { ExclusiveStartKey: lastKey });
  });

  it("refuses a tenant that is not a name, a malformed day and a shard out of range", async () => {
    for (const [tenant, day, shard] of [
      ["acme#D#2026-11-26", "2026-11-26", 0],
      ["acme", "26.11.2026", 0],
      ["acme", "2026-11-26", 8],
    ] as const)
      await expect(index.queryDay(tenant, day, shard)).rejects.toMatchObject({ code: "index.day_query" });
    expect(db).not.toHaveReceivedAnyCommand();
  });
});
