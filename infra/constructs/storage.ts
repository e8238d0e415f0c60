/**
 * The pipeline's storage: the ingest, published (Layer C only) and reports buckets, the bucket
 * their server access logs go to, the session index table (DESIGN.md) and the key of the index's
 * paging cursors. Every bucket blocks public access, takes TLS only and is encrypted at rest.
 */
import { Duration, RemovalPolicy, Validations } from "aws-cdk-lib";
import {
  AttributeType,
  Billing,
  ProjectionType,
  TableEncryptionV2,
  type TablePropsV2,
  TableV2,
} from "aws-cdk-lib/aws-dynamodb";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  type LifecycleRule,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { ConfigError } from "../../functions/lib/config.js";
import { tableDefinition } from "../../functions/lib/table.js";

/** What `Storage` is configured with. */
export interface StorageProps {
  /** Days an overwritten (noncurrent) object version is kept in the ingest and published buckets. */
  noncurrentVersionDays: number;
  /** Days server access logs are kept. */
  accessLogDays: number;
  /** True when CloudFront writes its access logs to the log bucket (it needs ACLs there). */
  cloudFrontLogs: boolean;
}

/** Buckets, table and cursor key. */
export class Storage extends Construct {
  /** Where uploads land; the only bucket that notifies the ingest queue. */
  readonly ingestBucket: Bucket;
  /** Layer C copies only. */
  readonly publishedBucket: Bucket;
  /** Verdict documents and audits. */
  readonly reportsBucket: Bucket;
  /** Server access logs of the other buckets (and CloudFront's, when on). */
  readonly logBucket: Bucket;
  /** The session index. */
  readonly table: TableV2;
  /** 32 random bytes (base64 text) that seal the index's paging cursors, read at cold start (`CURSOR_KEY_SECRET`). */
  readonly cursorKey: Secret;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    // Server access logs are delivered under the log bucket's policy, not a LogDeliveryWrite ACL.
    this.node.setContext("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy", true);
    const secure: BucketProps = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.logBucket = new Bucket(this, "AccessLogs", {
      ...secure,
      // S3 server access logging accepts SSE-S3 only; CloudFront's standard logs need ACLs.
      objectOwnership: props.cloudFrontLogs
        ? ObjectOwnership.BUCKET_OWNER_PREFERRED
        : ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: "expire-logs", expiration: Duration.days(props.accessLogDays) },
        abortIncompleteUploads,
      ],
    });
    Validations.of(this.logBucket).acknowledge({
      id: "AwsSolutions-S1",
      reason: "The access log bucket itself: logging it to itself would log its own log writes without end.",
    });

    const versioned = (prefix: string): BucketProps => ({
      ...secure,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: prefix,
      lifecycleRules: [
        {
          id: "expire-old-versions",
          noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays),
          expiredObjectDeleteMarker: true,
        },
        abortIncompleteUploads,
      ],
    });
    // An upload is never changed or deleted by the pipeline: no expiry of current versions.
    this.ingestBucket = new Bucket(this, "Ingest", versioned("ingest/"));
    this.publishedBucket = new Bucket(this, "Published", versioned("published/"));
    // Versioned too: a verdict document or report overwritten (by a re-run, a bug or a role
    // that should not) keeps its earlier version for the audit trail.
    this.reportsBucket = new Bucket(this, "Reports", versioned("reports/"));

    this.table = new TableV2(this, "Index", {
      ...tablePropsOf(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      encryption: TableEncryptionV2.awsManagedKey(),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.cursorKey = new Secret(this, "CursorKey", {
      description: "Key of the session index's paging cursors (CURSOR_KEY): 43 base64 characters, 32 bytes",
      // 43 characters of [A-Za-z0-9], all base64 digits: they decode to 32 bytes of ~256 random bits.
      generateSecretString: {
        passwordLength: 43,
        excludePunctuation: true,
        includeSpace: false,
        requireEachIncludedType: false,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.cursorKey).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "The functions read the key at cold start; changing it only invalidates paging cursors in flight, so it changes by updating the secret and redeploying (new containers), not by a rotation Lambda.",
    });
  }
}

const abortIncompleteUploads: LifecycleRule = {
  id: "abort-incomplete-uploads",
  abortIncompleteMultipartUploadAfter: Duration.days(1),
};

/**
 * The CDK table of `tableDefinition` (functions/lib/table.ts), so the stack, the adapter and the
 * local stack share one definition: key schema, attribute types, billing and the day index.
 */
function tablePropsOf(): TablePropsV2 {
  // The physical name is left to CloudFormation: the functions read it from TABLE_NAME.
  const definition = tableDefinition("unnamed");
  const types = new Map(
    (definition.AttributeDefinitions ?? []).map((a) => [a.AttributeName, attributeType(a.AttributeType)]),
  );
  const key = (schema: { AttributeName?: string; KeyType?: string }[] | undefined, keyType: string) => {
    const name = schema?.find((k) => k.KeyType === keyType)?.AttributeName;
    if (name === undefined) return undefined;
    const type = types.get(name);
    if (type === undefined)
      throw new ConfigError("config.invalid", `table.ts: key ${name} has no attribute definition`);
    return { name, type };
  };
  const partitionKey = key(definition.KeySchema, "HASH");
  if (partitionKey === undefined)
    throw new ConfigError("config.invalid", "table.ts: the table has no partition key");
  if (definition.BillingMode !== "PAY_PER_REQUEST")
    throw new ConfigError(
      "config.invalid",
      `table.ts: billing ${definition.BillingMode}; the stack deploys on-demand tables`,
    );
  return {
    partitionKey,
    sortKey: key(definition.KeySchema, "RANGE"),
    billing: Billing.onDemand(),
    globalSecondaryIndexes: (definition.GlobalSecondaryIndexes ?? []).map((index) => {
      const pk = key(index.KeySchema, "HASH");
      if (index.IndexName === undefined || pk === undefined)
        throw new ConfigError("config.invalid", "table.ts: an index without a name or partition key");
      if (index.Projection?.ProjectionType !== "ALL")
        throw new ConfigError(
          "config.invalid",
          `table.ts: index ${index.IndexName} projects ${index.Projection?.ProjectionType}`,
        );
      return {
        indexName: index.IndexName,
        partitionKey: pk,
        sortKey: key(index.KeySchema, "RANGE"),
        projectionType: ProjectionType.ALL,
      };
    }),
  };
}

function attributeType(type: string | undefined): AttributeType {
  switch (type) {
    case "S":
      return AttributeType.STRING;
    case "N":
      return AttributeType.NUMBER;
    case "B":
      return AttributeType.BINARY;
    default:
      throw new ConfigError("config.invalid", `table.ts: attribute type ${type}`);
  }
}
