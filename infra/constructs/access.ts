/**
 * The functions' data permissions, written out action by action: CDK's `grantReadWrite` and kin
 * would add wildcard actions (`s3:GetObject*`, `s3:DeleteObject*`, `dynamodb:*Item`) that
 * this stack promises never to hold (test/infra asserts it on every statement).
 */
import { Stack, Validations } from "aws-cdk-lib";
import type { IDistribution } from "aws-cdk-lib/aws-cloudfront";
import { type IRole, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Bucket, CfnBucket } from "aws-cdk-lib/aws-s3";
import type { IConstruct } from "constructs";
import { TABLE_SCHEMA } from "../../functions/lib/table.js";
import type { Storage } from "./storage.js";

/** Reading objects; `versions`: also a given version (the ingest handler reads the one its event names). */
export function readObjects(bucket: Bucket, options: { versions: boolean }): PolicyStatement {
  return new PolicyStatement({
    actions: ["s3:GetObject", ...(options.versions ? ["s3:GetObjectVersion"] : [])],
    resources: [bucket.arnForObjects("*")],
  });
}

/**
 * Listing `bucket`: without it S3 answers a missing key with AccessDenied, not NoSuchKey, and the
 * audit reads a missing verdict document as "none".
 */
export function listBucket(bucket: Bucket): PolicyStatement {
  return new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] });
}

/** Writing objects (multipart too: lib-storage aborts a failed upload) and, if asked, deleting them. */
export function writeObjects(bucket: Bucket, options: { delete: boolean; prefix?: string }): PolicyStatement {
  return new PolicyStatement({
    actions: ["s3:PutObject", "s3:AbortMultipartUpload", ...(options.delete ? ["s3:DeleteObject"] : [])],
    resources: [bucket.arnForObjects(`${options.prefix ?? ""}*`)],
  });
}

/** The item operations of functions/adapters/dynamo-index.ts; `write` adds its writes. */
export function tableAccess(storage: Storage, options: { write: boolean }): PolicyStatement[] {
  const { table } = storage;
  const index = `${table.tableArn}/index/${TABLE_SCHEMA.dayIndex}`;
  return [
    new PolicyStatement({
      actions: [
        "dynamodb:GetItem",
        "dynamodb:Query",
        ...(options.write ? ["dynamodb:PutItem", "dynamodb:UpdateItem"] : []),
      ],
      resources: [table.tableArn],
    }),
    new PolicyStatement({ actions: ["dynamodb:Query"], resources: [index] }),
  ];
}

/**
 * Reading the cursor key's secret at cold start: `secretsmanager:GetSecretValue` on that one secret
 * (not `grantRead`, which adds `DescribeSecret`, which the functions never call).
 */
export function readCursorKey(storage: Storage): PolicyStatement {
  return new PolicyStatement({
    actions: ["secretsmanager:GetSecretValue"],
    resources: [storage.cursorKey.secretArn],
  });
}

/**
 * Acknowledges cdk-nag's IAM5 finding of `role` on the objects of `buckets` (`<bucket ARN>/*`):
 * object ARNs are how S3 scopes object actions, and the actions themselves are listed one by one.
 * `why`: the reason no narrower prefix exists (default: tenants name the keys).
 */
export function acknowledgeObjectArns(
  role: IConstruct,
  buckets: (Bucket | readonly [Bucket, string])[],
  why = "keys are written by tenants, so no narrower prefix exists",
): void {
  for (const entry of buckets) {
    const [bucket, prefix] = Array.isArray(entry)
      ? (entry as readonly [Bucket, string])
      : [entry as Bucket, ""];
    const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnBucket);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/${prefix}*]`,
      reason: `Object actions on the objects of one bucket (${bucket.node.path}${prefix === "" ? "" : `, under ${prefix}`}): ${why}; every action is named, none is a wildcard.`,
    });
  }
}

/**
 * The data permissions of the per-file job (`processObject`), which the ingest and the reprocess
 * functions both run: read the originals (any version), write and withdraw copies and their
 * catalogue, write verdict documents under `results/`, the index, the cursor key, and the
 * distribution's invalidations. One place, so the two functions cannot drift apart.
 */
export function grantPerFileJob(role: IRole, storage: Storage, distribution: IDistribution | null): void {
  for (const statement of [
    readObjects(storage.ingestBucket, { versions: true }),
    // Withdrawing a Layer C copy whose receipt check failed later deletes it.
    writeObjects(storage.publishedBucket, { delete: true }),
    // The catalogue (shared/pipeline/catalogue.ts): its entries listed and read, its manifest read.
    new PolicyStatement({
      actions: ["s3:GetObject"],
      resources: [storage.publishedBucket.arnForObjects("*/_catalogue/*")],
    }),
    listBucket(storage.publishedBucket),
    // Verdict documents and attestations only: `results/` (`verdictKey`), never the audits.
    writeObjects(storage.reportsBucket, { delete: false, prefix: "results/" }),
    ...tableAccess(storage, { write: true }),
    readCursorKey(storage),
  ])
    role.addToPrincipalPolicy(statement);
  // cloudfront:CreateInvalidation on this distribution only (CDK's grant names its ARN).
  distribution?.grantCreateInvalidation(role);
  acknowledgeObjectArns(role, [
    storage.ingestBucket,
    storage.publishedBucket,
    [storage.reportsBucket, "results/"],
  ]);
  acknowledgeObjectArns(
    role,
    [[storage.publishedBucket, "*/_catalogue/"]],
    "each tenant's catalogue is under its own prefix, and tenants are named by their uploads",
  );
}
