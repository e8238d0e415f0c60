import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { s3DocumentReader } from "../../functions/adapters/audit-source.js";
import { DynamoSessionIndex } from "../../functions/adapters/dynamo-index.js";
import { auditScope, runAudit } from "../../functions/lib/audit-job.js";
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "../../functions/lib/aws-clients.js";
import { readConfig } from "../../functions/lib/config.js";
import { DEFAULT_DAY_SHARDS } from "../../functions/lib/table.js";
import { intOption, parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { outputError, writeOut } from "../io.js";
import { S3RVER_CREDENTIALS } from "../local/servers.js";

/** Help text of `report`. */
export const REPORT_HELP = `Usage: replay-pipeline report [--since D] [--until D] [--tenant T] [--format json|md|html] [-o FILE] [--local]

Builds the audit report the scheduled audit function writes to audits/<date>.{json,md,html}:
files per tenant, format and verdict; every failed check; invalid files with their first error;
replays whose receipt is missing; copies withdrawn from publication; redactions by rule;
processing time and step utility; verdicts per day over the last 30 days (charts in html).

Options:
  --since D              first UTC day (yyyy-mm-dd); default: yesterday, or --until
  --until D              last UTC day; default: yesterday, or today when --since is given
  --tenant T             one tenant (default: every tenant with records on each day)
  --format F             json, md (default) or html
  -o, --output FILE      write to FILE (default: standard output)
  --receipt-age H        report a replay without a receipt after H hours (default 24)
  --local                read the local stack (.local/stack.json) instead of AWS
  -h, --help             this help

Without --local the AWS settings come from the environment, as in the Lambda functions:
AWS_REGION, TABLE_NAME, REPORTS_BUCKET (INGEST_BUCKET and PUBLISHED_BUCKET too), INDEX_SHARDS.

Exit codes: 0 written, 2 usage, configuration or I/O error.`;

const OPTIONS = {
  since: { type: "string" },
  until: { type: "string" },
  tenant: { type: "string" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
  "receipt-age": { type: "string" },
  local: { type: "boolean" },
} as const;

/** Where `.local/stack.json` (written by the local stack) says the servers are. */
const STACK = z.object({
  s3Endpoint: z.url(),
  dynamoEndpoint: z.url(),
  region: z.string().min(1),
  reportsBucket: z.string().min(1),
  tableName: z.string().min(1),
  indexShards: z.number().int().min(1).optional(),
});

/** `replay-pipeline report`: the audit report of a period, from the local stack or AWS. */
export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("report", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${REPORT_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`report: unexpected argument '${positionals[0]}'`);
  const format = values.format ?? "md";
  if (format !== "json" && format !== "md" && format !== "html")
    throw new UsageError(`report: --format expects json, md or html, got '${format}'`);
  const now = new Date();
  const scope = auditScope({ since: values.since, until: values.until, tenant: values.tenant }, now);
  const receiptAgeHours = intOption("report", "receipt-age", values["receipt-age"], 0) ?? 24;

  const target = values.local === true ? await localTarget() : awsTarget();
  const settings = { region: target.region, credentials: target.credentials };
  const dynamoClient = makeDynamoClient({ ...settings, endpoint: target.dynamoEndpoint });
  const s3 = makeS3Client({ ...settings, endpoint: target.s3Endpoint });
  try {
    const index = new DynamoSessionIndex(makeDocumentClient(dynamoClient), {
      tableName: target.tableName,
      shards: target.shards,
    });
    const audit = await runAudit(index, s3DocumentReader(s3, target.reportsBucket), {
      ...scope,
      now,
      receiptAgeHours,
    });
    const text = format === "json" ? audit.json : format === "md" ? audit.markdown : audit.html;
    if (values.output === undefined || values.output === "-") await writeOut(text);
    else await writeText(values.output, text);
    return 0;
  } finally {
    dynamoClient.destroy();
    s3.destroy();
  }
}

interface Target {
  region: string;
  s3Endpoint: string | null;
  dynamoEndpoint: string | null;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  tableName: string;
  reportsBucket: string;
  shards: number;
}

async function localTarget(): Promise<Target> {
  const path = ".local/stack.json";
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new UsageError(`report --local: ${path} is missing; start the local stack first (npm start)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`report --local: ${path} is not JSON`);
  }
  const parsed = STACK.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `report --local: ${path}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
    );
  const stack = parsed.data;
  return {
    region: stack.region,
    s3Endpoint: stack.s3Endpoint,
    dynamoEndpoint: stack.dynamoEndpoint,
    // s3rver accepts only its own credentials; dynalite accepts any.
    credentials: S3RVER_CREDENTIALS,
    tableName: stack.tableName,
    reportsBucket: stack.reportsBucket,
    shards: stack.indexShards ?? DEFAULT_DAY_SHARDS,
  };
}

function awsTarget(): Target {
  const config = readConfig(process.env);
  return {
    region: config.region,
    s3Endpoint: config.s3Endpoint,
    dynamoEndpoint: config.dynamoEndpoint,
    credentials: undefined,
    tableName: config.tableName,
    reportsBucket: config.reportsBucket,
    shards: config.indexShards,
  };
}

async function writeText(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text);
  } catch (error) {
    throw outputError(path, error);
  }
}
