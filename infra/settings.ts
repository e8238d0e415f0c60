/**
 * The stack's settings, read from CDK context (`cdk.json` or `cdk deploy -c key=value`) with the
 * defaults documented in the configuration table of docs/deploy.md. A malformed value fails synthesis with
 * its key and what was expected, before anything is deployed.
 */
import { createPublicKey } from "node:crypto";
import type { Node } from "constructs";
import { z } from "zod";
import { ConfigError } from "../functions/lib/config.js";
import { DEFAULT_DAY_SHARDS } from "../functions/lib/table.js";

/**
 * Who may read the published Layer C copies over CloudFront (docs/pipeline.md: Publishing): `private`, only
 * holders of a URL signed with the key pair whose public key is `publishingPublicKey` (without a
 * key, no distribution at all); `public`, anyone with a copy's address; `none`, no distribution.
 */
const PUBLISHING_MODES = ["private", "public", "none"] as const;

/** True for PEM text of an RSA 2048 public key (SPKI), the kind a CloudFront key group trusts. */
function isPublicKeyPem(text: string): boolean {
  if (!text.startsWith("-----BEGIN PUBLIC KEY-----")) return false;
  try {
    const key = createPublicKey(text);
    return key.asymmetricKeyType === "rsa" && key.asymmetricKeyDetails?.modulusLength === 2048;
  } catch {
    return false;
  }
}

// `-c key=value` hands every value over as a string; cdk.json gives JSON types.
const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((text) => (text === undefined || text === "" ? null : text));

/**
 * A tenant name the stack may make a role for: a key's tenant segment (shared/pipeline/keys.ts:
 * `[A-Za-z0-9._-]`, 1-128, never `.` or `..`), so never `#`, the index keys' separator, and
 * `T#<tenant>#*` matches no other tenant's partitions. Names starting `_` are the pipeline's own
 * (`_rejected`, the operator-only area of keys with no readable tenant).
 */
const TENANT_NAME = /^(?!_)(?!\.\.?$)[A-Za-z0-9._-]{1,128}$/;
/** A GitHub repository, `owner/name`, as the OIDC token's `sub` claim spells it. */
const REPOSITORY = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;

const tenant = z
  .union([
    z.string().transform((name) => ({ name, githubRepositories: [] as string[] })),
    z.object({
      name: z.string(),
      githubRepositories: z
        .array(z.string().regex(REPOSITORY, "a GitHub repository, owner/name"))
        .default([]),
    }),
  ])
  .refine((t) => TENANT_NAME.test(t.name), {
    message: "a tenant name: 1-128 of A-Z a-z 0-9 . _ - (not starting with _, not . or ..)",
  });

// `-c tenants=acme,globex` names tenants; `-c 'tenants=[{"name":"acme",...}]'` is cdk.json's form.
const tenants = z.preprocess((value) => {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text.startsWith("[")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return value;
    }
  }
  return text === "" ? [] : text.split(",").map((name) => name.trim());
}, z.array(tenant));

const schema = z.object({
  stackName: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, "a CloudFormation stack name")
    .default("ReplayPipeline"),
  ingestPrefix: z
    .string()
    .regex(/^(?:[A-Za-z0-9._-]{1,128}\/)?$/, "empty or one tenant name and '/'")
    .default(""),
  indexShards: whole(1, 256).default(DEFAULT_DAY_SHARDS),
  receiptAgeHours: z.coerce
    .number()
    .min(0)
    .max(24 * 90)
    .default(24),
  noncurrentVersionDays: whole(1, 3650).default(90),
  accessLogDays: whole(1, 3650).default(365),
  logRetentionDays: whole(1, 3653).default(90),
  auditSchedule: z
    .string()
    .regex(/^(?:cron|rate)\(.+\)$/, "an EventBridge Scheduler expression, cron(...) or rate(...)")
    .default("cron(15 2 * * ? *)"),
  auditTimeZone: z.string().min(1).default("UTC"),
  alarmEmail: optionalText.refine((text) => text === null || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text), {
    message: "an e-mail address",
  }),
  ingestMaxConcurrency: whole(2, 1000).default(10),
  // Reprocess runs: the Distributed Map's child executions (reprocess Lambda calls) at once.
  reprocessMaxConcurrency: whole(1, 10_000).default(100),
  reservedConcurrency: z
    .union([z.literal(""), z.null(), whole(1, 10_000)])
    .optional()
    .transform((value) => (typeof value === "number" ? value : null)),
  verdictAlarmThreshold: whole(0, 1_000_000).default(10),
  oldestMessageAlarmMinutes: whole(1, 20_160).default(60),
  publishing: z
    .enum(PUBLISHING_MODES, {
      error: `one of ${PUBLISHING_MODES.join(", ")} (private: signed URLs; public: anyone with the link)`,
    })
    .default("private"),
  publishingPublicKey: optionalText.refine((text) => text === null || isPublicKeyPem(text), {
    message: "a PEM public key (-----BEGIN PUBLIC KEY-----), RSA 2048 as CloudFront key groups take",
  }),
  // Each published copy's viewer page beside it (VIEWER_PAGES); `-c viewerPages=true` or cdk.json's true.
  viewerPages: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((text) => text === "true")], {
      error: "true or false",
    })
    .default(false),
  tenants: tenants.default([]).refine((list) => new Set(list.map((t) => t.name)).size === list.length, {
    message: "each tenant named once",
  }),
  // An account holds one provider per issuer: the stack uses the account's own unless told to make it.
  githubOidcProvider: z.enum(["existing", "create"]).default("existing"),
});

/** The stack's settings (docs/deploy.md: Configuration). */
export type PipelineSettings = z.infer<typeof schema>;

/** Context keys the stack reads; each one's default is in `schema`. */
const SETTING_KEYS = Object.keys(schema.shape) as (keyof PipelineSettings)[];

/** Whether the stack has a CloudFront distribution: public, or private with a key to trust. */
export function hasDistribution(settings: PipelineSettings): boolean {
  return settings.publishing === "public" || settings.publishingPublicKey !== null;
}

/** The settings in `node`'s context; throws a `ConfigError` naming each bad key. */
export function readSettings(node: Node): PipelineSettings {
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value: unknown = node.tryGetContext(key);
    if (value !== undefined) raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError("config.invalid", `CDK context: ${problems.join("; ")}`);
  }
  const settings = parsed.data;
  if (node.tryGetContext("cloudFront") !== undefined)
    throw new ConfigError(
      "config.invalid",
      "CDK context: cloudFront was replaced by publishing (private, public or none; docs/pipeline.md: Publishing)",
    );
  // Private by default: with no key it makes no distribution; asked for by name, it needs its key.
  if (
    settings.publishing === "private" &&
    settings.publishingPublicKey === null &&
    raw.publishing !== undefined
  )
    throw new ConfigError(
      "config.invalid",
      "CDK context: publishing=private needs publishingPublicKey, the PEM public key of the key pair that signs URLs (the private key stays with whoever signs)",
    );
  if (settings.publishing !== "private" && settings.publishingPublicKey !== null)
    throw new ConfigError(
      "config.invalid",
      `CDK context: publishingPublicKey is only for publishing=private, not ${settings.publishing}`,
    );
  if (settings.reservedConcurrency !== null && settings.reservedConcurrency < settings.ingestMaxConcurrency)
    throw new ConfigError(
      "config.invalid",
      `CDK context: reservedConcurrency (${settings.reservedConcurrency}) must be at least ingestMaxConcurrency (${settings.ingestMaxConcurrency}), or SQS polls more than the function may run`,
    );
  return settings;
}
