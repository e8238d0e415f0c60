/**
 * Ingest: the ingest bucket notifies an encrypted SQS queue (with a dead-letter queue) of new
 * uploads whose names the pipeline reads; the ingest function takes them one at a time. Its role
 * reads the ingest bucket and writes only the published and reports buckets and the table; the
 * ingest bucket's policy also denies it every write, so no output can land where the pipeline listens.
 */
import { type CfnResource, Duration, RemovalPolicy, Size, Stack, Validations } from "aws-cdk-lib";
import type { IDistribution } from "aws-cdk-lib/aws-cloudfront";
import { Effect, PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { EventType } from "aws-cdk-lib/aws-s3";
import { SqsDestination } from "aws-cdk-lib/aws-s3-notifications";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { INGEST_SUFFIXES } from "#shared/pipeline/index.js";
import { ConfigError } from "../../functions/lib/config.js";
import { INGEST_SERVICE, METRICS_NAMESPACE } from "../../functions/lib/metrics.js";
import {
  INGEST_BATCH_SIZE,
  INGEST_MEMORY_MB,
  INGEST_TIMEOUT_SECONDS,
  MAX_RECEIVE_COUNT,
  perFileEphemeralMib,
  VISIBILITY_FACTOR,
} from "../sizing.js";
import { grantPerFileJob } from "./access.js";
import { pipelineFunction } from "./pipeline-function.js";
import type { Storage } from "./storage.js";

/** What `Ingest` is configured with. */
export interface IngestProps {
  projectRoot: string;
  storage: Storage;
  /** The functions' shared environment (buckets, table, shards, cursor key). */
  environment: Record<string, string>;
  /** Only keys under this prefix notify (empty: every key). */
  keyPrefix: string;
  /** The distribution in front of the published bucket, whose cache a withdrawal invalidates. */
  distribution: IDistribution | null;
  maxConcurrency: number;
  reservedConcurrency: number | null;
  logRetention: RetentionDays;
}

/** Queue, dead-letter queue, notifications and the ingest function. */
export class Ingest extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: IngestProps) {
    super(scope, id);
    const { storage } = props;
    const enforceSSL = true;
    this.deadLetterQueue = new Queue(this, "DeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL,
      // The longest SQS keeps a message: time to find and mend the fault, then redrive.
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: "AwsSolutions-SQS3",
      reason: "This queue is the dead-letter queue of the ingest queue.",
    });
    this.queue = new Queue(this, "Queue", {
      // SSE-SQS: S3 can send to it, which a queue under the AWS-managed KMS key refuses.
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL,
      visibilityTimeout: Duration.seconds(VISIBILITY_FACTOR * INGEST_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    this.subscribe(storage, props.keyPrefix);

    this.function = pipelineFunction(this, "Function", {
      projectRoot: props.projectRoot,
      entry: "functions/ingest.ts",
      description: "replay-pipeline ingest: validate, rehash, verify, publish Layer C, index",
      memoryMb: INGEST_MEMORY_MB,
      timeoutSeconds: INGEST_TIMEOUT_SECONDS,
      ephemeralStorage: Size.mebibytes(perFileEphemeralMib(props.environment)),
      logRetention: props.logRetention,
      reservedConcurrency: props.reservedConcurrency,
      environment: {
        ...props.environment,
        ...(props.distribution === null
          ? {}
          : { PUBLISHED_DISTRIBUTION_ID: props.distribution.distributionId }),
        POWERTOOLS_SERVICE_NAME: INGEST_SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: "INFO",
      },
    });
    this.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: INGEST_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );

    const role = this.function.role;
    if (role === undefined) throw new ConfigError("config.invalid", "the ingest function has no role");
    grantPerFileJob(role, storage, props.distribution);
    acknowledgeNotificationHandler(Stack.of(this), props.logRetention);
    // The recursion guard, stated twice: the role has no write on the ingest bucket, and the
    // bucket refuses every write by this role even if a later change granted one.
    storage.ingestBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: "IngestFunctionNeverWrites",
        effect: Effect.DENY,
        principals: [role],
        actions: [...OBJECT_WRITE_ACTIONS],
        resources: [storage.ingestBucket.arnForObjects("*")],
      }),
    );
  }

  /** The ingest bucket's new objects of the replay suffixes (under `keyPrefix`) notify the queue, and only its own. */
  private subscribe(storage: Storage, keyPrefix: string): void {
    // S3 may send only for this account's buckets (the notification's own statement names the
    // bucket's ARN, which a bucket of the same name in another account would match after a delete).
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: "OnlyThisAccountsBuckets",
        effect: Effect.DENY,
        principals: [new ServicePrincipal("s3.amazonaws.com")],
        actions: ["sqs:SendMessage"],
        resources: [this.queue.queueArn],
        conditions: { StringNotEquals: { "aws:SourceAccount": Stack.of(this).account } },
      }),
    );
    for (const suffix of INGEST_SUFFIXES)
      storage.ingestBucket.addEventNotification(
        EventType.OBJECT_CREATED,
        new SqsDestination(this.queue),
        keyPrefix === "" ? { suffix } : { prefix: keyPrefix, suffix },
      );
  }
}

/** Every S3 action that changes or removes an object (the ingest function may do none on its input). */
export const OBJECT_WRITE_ACTIONS = [
  "s3:PutObject",
  "s3:PutObjectAcl",
  "s3:PutObjectTagging",
  "s3:PutObjectRetention",
  "s3:PutObjectLegalHold",
  "s3:DeleteObject",
  "s3:DeleteObjectVersion",
  "s3:DeleteObjectTagging",
  "s3:RestoreObject",
  "s3:AbortMultipartUpload",
] as const;

/**
 * CDK configures bucket notifications through its own custom resource (a notification in the
 * bucket's own properties would need the queue policy first, which names the bucket: a cycle); its
 * finding is acknowledged here, where the notifications are made.
 */
function acknowledgeNotificationHandler(stack: Stack, logRetention: RetentionDays): void {
  const handler = stack.node.children.find((child) => child.node.id.startsWith("BucketNotificationsHandler"));
  if (handler === undefined)
    throw new ConfigError("config.invalid", "no bucket notification handler in the stack");
  // CDK's handler logs to a group Lambda makes on first run, kept forever: make it here, with the
  // stack's retention (its name is the function's, which Lambda uses).
  const fn = handler.node.defaultChild as CfnResource;
  new LogGroup(stack, "BucketNotificationsHandlerLogs", {
    logGroupName: `/aws/lambda/${fn.ref}`,
    retention: logRetention,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(handler).acknowledge({
    id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
    reason:
      "CDK's bucket notification handler runs once per deployment and logs with the basic execution policy; its own policy allows s3:PutBucketNotification on the ingest bucket only.",
  });
}
