/**
 * The session index table of DESIGN.md: its key attributes and its day index, in one place for
 * the adapter, the local stack and the CDK stack, so all three make and read the same table.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";

/** Attribute and index names of the table. */
export const TABLE_SCHEMA = {
  /** Partition key: `T#<tenant>#S#<session>`. */
  partitionKey: "PK",
  /** Sort key: `SUMMARY`, `FILE#<key>`, `RECEIPT#…`. */
  sortKey: "SK",
  /** The day index, for audits. */
  dayIndex: "GSI1",
  /** Day index partition key: `T#<tenant>#D#<yyyy-mm-dd>#<shard>`. */
  dayPartitionKey: "GSI1PK",
  /** Day index sort key: `<processed_at>#<key>`. */
  daySortKey: "GSI1SK",
} as const;

/** Day index shards per tenant and day unless configured (DESIGN.md). */
export const DEFAULT_DAY_SHARDS = 8;

/** The CreateTable request for a table named `tableName` (on-demand billing, the day index projecting all). */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const s = TABLE_SCHEMA;
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [s.partitionKey, s.sortKey, s.dayPartitionKey, s.daySortKey].map((name) => ({
      AttributeName: name,
      AttributeType: "S",
    })),
    KeySchema: [
      { AttributeName: s.partitionKey, KeyType: "HASH" },
      { AttributeName: s.sortKey, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: s.dayIndex,
        KeySchema: [
          { AttributeName: s.dayPartitionKey, KeyType: "HASH" },
          { AttributeName: s.daySortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
}

/** Creates the table (local servers, tests) and waits until it is active. */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand(tableDefinition(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
}
