/**
 * Where the pipeline commands (`push`, `sessions`, `show`, `pull`) find the pipeline: the local
 * stack (`--local`: `.local/stack.json`), a deployed CloudFormation stack (`--stack NAME`: its
 * outputs IngestBucketName, PublishedBucketName, ReportsBucketName, TableName), or environment
 * variables (INGEST_BUCKET, PUBLISHED_BUCKET, REPORTS_BUCKET, TABLE_NAME). AWS credentials and
 * region come from the SDK's usual chain (AWS_PROFILE, AWS_REGION, …).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import type { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoSessionIndex } from "../functions/adapters/dynamo-index.js";
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "../functions/lib/aws-clients.js";
import { UsageError } from "./errors.js";
import { processRuns, S3RVER_CREDENTIALS } from "./local/servers.js";
import type { StackInfo } from "./local/stack.js";

export { TARGET_HELP, TARGET_OPTIONS } from "./target-options.js";

/** A connected pipeline: clients, names and the index. */
export interface Target {
  s3: S3Client;
  dynamo: DynamoDBDocumentClient;
  index: DynamoSessionIndex;
  ingestBucket: string;
  publishedBucket: string;
  reportsBucket: string;
  tableName: string;
  /** The local stack's own: the digest of the rules its handlers run; absent for other targets. */
  localRules?: { rulesDigest: string | null };
  close(): void;
}

/** The CloudFormation outputs a deployed stack must emit. */
export const STACK_OUTPUTS = {
  ingestBucket: "IngestBucketName",
  publishedBucket: "PublishedBucketName",
  reportsBucket: "ReportsBucketName",
  tableName: "TableName",
} as const;

/**
 * The pipeline named by `values`. Of the names taken from a stack's outputs or the environment,
 * only those in `needs` must be there (a command that never reads a bucket need not be given it);
 * one not needed and not given is "".
 */
export async function connect(
  command: string,
  values: { local?: boolean; "local-dir"?: string; stack?: string; region?: string },
  needs: readonly (keyof typeof STACK_OUTPUTS)[] = Object.keys(
    STACK_OUTPUTS,
  ) as (keyof typeof STACK_OUTPUTS)[],
): Promise<Target> {
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (values.local === true || values["local-dir"] !== undefined) {
    const file = join(values["local-dir"] ?? ".local", "stack.json");
    let info: StackInfo;
    try {
      info = JSON.parse(await readFile(file, "utf8")) as StackInfo;
    } catch {
      throw new UsageError(`${command}: ${file} cannot be read; start the local stack first (npm start)`);
    }
    if (info.pid !== undefined && !processRuns(info.pid)) {
      throw new UsageError(
        `${command}: ${file} is stale (the stack that wrote it, process ${info.pid}, is not running); start the local stack (npm start)`,
      );
    }
    const s3 = makeS3Client({
      region: info.region,
      endpoint: info.s3Endpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    const raw = makeDynamoClient({
      region: info.region,
      endpoint: info.dynamoEndpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    return {
      ...target(s3, makeDocumentClient(raw), info),
      localRules: { rulesDigest: info.rulesDigest ?? null },
    };
  }
  let names: Record<keyof typeof STACK_OUTPUTS, string | undefined>;
  if (values.stack !== undefined) {
    const cfn = new CloudFormationClient(region === undefined ? {} : { region });
    const out = await cfn.send(new DescribeStacksCommand({ StackName: values.stack }));
    cfn.destroy();
    const outputs = new Map((out.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    names = {
      ingestBucket: outputs.get(STACK_OUTPUTS.ingestBucket),
      publishedBucket: outputs.get(STACK_OUTPUTS.publishedBucket),
      reportsBucket: outputs.get(STACK_OUTPUTS.reportsBucket),
      tableName: outputs.get(STACK_OUTPUTS.tableName),
    };
  } else {
    names = {
      ingestBucket: process.env.INGEST_BUCKET,
      publishedBucket: process.env.PUBLISHED_BUCKET,
      reportsBucket: process.env.REPORTS_BUCKET,
      tableName: process.env.TABLE_NAME,
    };
  }
  const missing = Object.entries(names).filter(
    ([k, v]) => !v && needs.includes(k as keyof typeof STACK_OUTPUTS),
  );
  if (missing.length > 0)
    throw new UsageError(
      `${command}: missing ${missing.map(([k]) => (values.stack ? STACK_OUTPUTS[k as keyof typeof STACK_OUTPUTS] : k)).join(", ")}; give --local, --stack NAME, or the environment variables`,
    );
  const settings = region === undefined ? { region: "" } : { region };
  const s3 = makeS3Client(settings);
  const dynamo = makeDocumentClient(makeDynamoClient(settings));
  const given = Object.fromEntries(Object.entries(names).map(([k, v]) => [k, v ?? ""]));
  return target(s3, dynamo, given as Record<keyof typeof STACK_OUTPUTS, string>);
}

function target(
  s3: S3Client,
  dynamo: DynamoDBDocumentClient,
  names: Record<keyof typeof STACK_OUTPUTS, string>,
): Target {
  const shards = Number(process.env.INDEX_SHARDS ?? 8);
  return {
    s3,
    dynamo,
    index: new DynamoSessionIndex(dynamo, { tableName: names.tableName, shards }),
    ingestBucket: names.ingestBucket,
    publishedBucket: names.publishedBucket,
    reportsBucket: names.reportsBucket,
    tableName: names.tableName,
    close() {
      s3.destroy();
      dynamo.destroy();
    },
  };
}

const NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** Checks a tenant or session name as the pipeline's keys require it. */
export function checkName(command: string, what: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`${command}: --${what} is required`);
  if (!NAME.test(value) || value === "." || value === "..")
    throw new UsageError(`${command}: ${what} '${value}' is not a name; expected 1-128 of A-Z a-z 0-9 . _ -`);
  return value;
}
