/**
 * The Lambda functions' configuration, read from the environment once at cold start. A missing or
 * malformed setting fails the cold start with its name, so a bad deployment never handles a message.
 */
import { z } from "zod";
import { ReplayPipelineError } from "../../shared/errors.js";
import { DEFAULT_DAY_SHARDS } from "./table.js";

const name = z.string({ error: "is missing" }).trim().min(1, "is missing");

const schema = z.object({
  AWS_REGION: name,
  INGEST_BUCKET: name,
  PUBLISHED_BUCKET: name,
  REPORTS_BUCKET: name,
  TABLE_NAME: name,
  INDEX_SHARDS: z.coerce.number().int().min(1).max(256).default(DEFAULT_DAY_SHARDS),
  // 32 bytes, base64: lets every function of a deployment read the others' audit cursors. Given
  // literally only where there is no Secrets Manager (the local stack, tests).
  CURSOR_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return null;
      const key = decodeCursorKey(text);
      if (key === null) ctx.addIssue({ code: "custom", message: "must be 32 bytes, base64" });
      return key;
    }),
  // The deployed form: the ARN (or name) of the Secrets Manager secret holding CURSOR_KEY's text,
  // read at cold start (functions/adapters/cursor-key-secret.ts); the key itself is in no variable.
  CURSOR_KEY_SECRET: z.string().trim().min(1).optional(),
  // The KMS asymmetric key (ECC_NIST_P256) that signs the pipeline's attestations; absent: unsigned.
  ATTESTATION_KEY_ID: z.string().trim().min(1).optional(),
  // The audit reports a replay whose session has no receipt this long after it was processed.
  AUDIT_RECEIPT_AGE_HOURS: z.coerce.number().min(0).default(24),
  // The CloudFront distribution in front of the published bucket (ingest only): withdrawals invalidate.
  PUBLISHED_DISTRIBUTION_ID: z
    .string()
    .regex(/^[A-Z0-9]{1,64}$/, "must be a CloudFront distribution id")
    .optional(),
  // Write each published copy's viewer page beside it (`<copy key>.view.html`), linked from the
  // catalogue: "true" or "false" (default).
  VIEWER_PAGES: z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  // Set only for local servers (s3rver, dynalite); the SDK reads the same variables.
  AWS_ENDPOINT_URL_S3: z.url().optional(),
  AWS_ENDPOINT_URL_DYNAMODB: z.url().optional(),
});

/** Every environment variable the configuration reads (the CDK stack sets the ones AWS does not). */
export const CONFIG_VARIABLES = Object.keys(schema.shape) as (keyof typeof schema.shape)[];

/** The parsed configuration. */
export interface Config {
  region: string;
  ingestBucket: string;
  publishedBucket: string;
  reportsBucket: string;
  tableName: string;
  /** Shards of the day index per tenant and day (DESIGN.md: default 8). */
  indexShards: number;
  /** Hours after which the audit reports a replay's receipt as missing (default 24). */
  receiptAgeHours: number;
  /** The distribution whose cache a withdrawal invalidates; null: none in front of the bucket. */
  distributionId: string | null;
  /** Whether each published copy gets its viewer page beside it (shared/pipeline/viewer-pages.ts). */
  viewerPages: boolean;
  /** Key of `queryDay` cursors; null: each process makes its own (or `cursorKeySecret` holds it). */
  cursorKey: Uint8Array | null;
  /** The Secrets Manager secret holding the cursor key, read at cold start; null: none. */
  cursorKeySecret: string | null;
  /** The KMS key that signs attestations (its ARN); null: attestations are unsigned. */
  attestationKeyId: string | null;
  /** A local S3 server's endpoint, or null for AWS. */
  s3Endpoint: string | null;
  /** A local DynamoDB server's endpoint, or null for AWS. */
  dynamoEndpoint: string | null;
}

/** Thrown at cold start; the message names every setting that is missing or malformed. */
export class ConfigError extends ReplayPipelineError {}

/** Parses `env`; throws a `ConfigError` naming each missing or malformed variable. */
export function readConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError("config.invalid", `configuration: ${problems.join("; ")}`);
  }
  const c = parsed.data;
  if (c.CURSOR_KEY !== null && c.CURSOR_KEY_SECRET !== undefined)
    throw new ConfigError(
      "config.invalid",
      "configuration: CURSOR_KEY and CURSOR_KEY_SECRET are both set; give the key or its secret, not both",
    );
  return {
    region: c.AWS_REGION,
    ingestBucket: c.INGEST_BUCKET,
    publishedBucket: c.PUBLISHED_BUCKET,
    reportsBucket: c.REPORTS_BUCKET,
    tableName: c.TABLE_NAME,
    indexShards: c.INDEX_SHARDS,
    cursorKey: c.CURSOR_KEY,
    distributionId: c.PUBLISHED_DISTRIBUTION_ID ?? null,
    viewerPages: c.VIEWER_PAGES === "true",
    cursorKeySecret: c.CURSOR_KEY_SECRET ?? null,
    attestationKeyId: c.ATTESTATION_KEY_ID ?? null,
    receiptAgeHours: c.AUDIT_RECEIPT_AGE_HOURS,
    s3Endpoint: c.AWS_ENDPOINT_URL_S3 ?? null,
    dynamoEndpoint: c.AWS_ENDPOINT_URL_DYNAMODB ?? null,
  };
}

/** The cursor key in `text` (base64 of 32 bytes), or null when it is not that. */
export function decodeCursorKey(text: string): Uint8Array | null {
  const key = Buffer.from(text.trim(), "base64");
  return key.length === 32 ? key : null;
}
