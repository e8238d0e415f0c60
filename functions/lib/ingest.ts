/**
 * The ingest handler's body, made from its dependencies: `functions/ingest.ts` builds it once at
 * cold start from the environment, the local stack and the tests from clients of their own, so all
 * three run the same parsing, batching, classification, logging and metrics.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { parser } from "@aws-lambda-powertools/batch/parser";
import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { type Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import { JSONStringified } from "@aws-lambda-powertools/parser/helpers";
import { S3Schema, SqsRecordSchema } from "@aws-lambda-powertools/parser/schemas";
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import middy from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { z } from "zod";
import type { EnvelopeSigner } from "../../shared/attest/index.js";
import { kindOf, ReplayPipelineError } from "../../shared/errors.js";
import type { ObjectRef, Ports, RulePack } from "../../shared/pipeline/index.js";
import { type ProcessResult, processObject, scrubbedKey } from "../../shared/pipeline/index.js";
import { ObjectChangedError } from "../adapters/errors.js";
import { S3ObjectSource } from "../adapters/s3-objects.js";
import type { CatalogueBatch } from "../adapters/s3-publisher.js";
import { type Config, ConfigError } from "./config.js";
import { INGEST_METRIC, VERDICT_DIMENSION } from "./metrics.js";
import { batchPorts, pipelinePorts } from "./pipeline-ports.js";

/** What the ingest handler is made of. */
export interface IngestDependencies {
  config: Config;
  s3: S3Client;
  dynamo: DynamoDBDocumentClient;
  /** CloudFront, when `config.distributionId` names a distribution whose cache withdrawals clear. */
  cloudFront?: CloudFrontClient;
  logger: Logger;
  metrics: Metrics;
  /** Written into every verdict document. */
  toolVersion: string;
  /** Signs the attestations (the KMS key); absent or null: stored unsigned (the local stack). */
  signer?: EnvelopeSigner | null;
  /** The rules the job runs, when not the built-in defaults (a test's rule pack). */
  rules?: RulePack;
}

/** The ingest Lambda handler: an SQS batch in, the records to retry out. */
export type IngestHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

// Powertools' S3 record accepts only IPv4 (or S3 itself) as the uploader's address; an upload over
// IPv6 would otherwise fail parsing and end in the dead-letter queue.
const S3Record = S3Schema.shape.Records.element.extend({
  requestParameters: z.object({ sourceIPAddress: z.string() }),
});
/** The message S3 sends once when a notification is configured: nothing to process. */
const TestEvent = z.object({ Service: z.string(), Event: z.literal("s3:TestEvent") });
/** One SQS record whose body is an S3 notification (or S3's test event). */
const IngestRecordSchema = SqsRecordSchema.extend({
  body: JSONStringified(z.union([z.object({ Records: z.array(S3Record) }), TestEvent])),
});
type IngestRecord = z.infer<typeof IngestRecordSchema>;

/** An S3 event key as a key: S3 URL-encodes it, with `+` for a space. */
export function decodeEventKey(key: string): string {
  return decodeURIComponent(key.replaceAll("+", " "));
}

/** Builds the handler over `deps`: one port set, one batch processor, per container. */
export function makeIngestHandler(deps: IngestDependencies): IngestHandler {
  const { config, s3, logger, metrics } = deps;
  if (config.distributionId !== null && deps.cloudFront === undefined)
    throw new ConfigError(
      "config.invalid",
      `PUBLISHED_DISTRIBUTION_ID ${config.distributionId} is set but no CloudFront client was given`,
    );
  const ports = pipelinePorts(deps);
  // Workers off: the bundle then needs no line-worker.js beside it, and a 1-vCPU Lambda gains nothing.
  const options = { toolVersion: deps.toolVersion, parallel: { workers: 0 }, ...deps.rules };
  const processor = new BatchProcessor(EventType.SQS, { parser, schema: IngestRecordSchema, logger });

  /** One object through the job, over `batch`'s ports (its catalogue rebuilt when the batch settles). */
  async function processEvent(
    ref: ObjectRef,
    bucket: string,
    jobPorts: Ports,
    batch: CatalogueBatch,
  ): Promise<void> {
    if (bucket !== config.ingestBucket)
      throw new ReplayPipelineError(
        "ingest.bucket",
        `an event of bucket ${bucket}, not ${config.ingestBucket}`,
      );
    let result: ProcessResult;
    try {
      result = await processObject(new S3ObjectSource(s3, bucket, ref), jobPorts, options);
    } catch (error) {
      // A newer version replaced the object mid-read: its own event will process it.
      if (error instanceof ObjectChangedError)
        return logger.info("superseded", { key: scrubbedKey(ref.key) });
      reportFailure(error, ref, logger, metrics);
      throw error;
    }
    // A try before this one may have stopped between its publish and its batch's rebuild.
    if (result.outcome !== "written" && result.record.kind === "replay") batch.touch(result.record.tenant);
    reportProcessed(result, logger, metrics);
  }

  async function processRecord(message: IngestRecord, jobPorts: Ports, batch: CatalogueBatch): Promise<void> {
    if (!("Records" in message.body)) return logger.info("s3:TestEvent ignored");
    for (const event of message.body.Records) {
      if (!event.eventName.startsWith("ObjectCreated:")) continue;
      const { object } = event.s3;
      const ref: ObjectRef = {
        key: decodeEventKey(object.key),
        etag: object.eTag ?? null,
        versionId: object.versionId ?? null,
        size: object.size ?? null,
        sequencer: object.sequencer ?? null,
      };
      await processEvent(ref, event.s3.bucket.name, jobPorts, batch);
    }
  }

  return middy(async (event: SQSEvent, context: Context) => {
    metrics.addMetric(INGEST_METRIC.messages, MetricUnit.Count, event.Records.length);
    const { ports: jobPorts, batch } = batchPorts(ports);
    // The processor hands each record over as its parser made it (IngestRecordSchema).
    const handle = (record: SQSRecord) => processRecord(record as unknown as IngestRecord, jobPorts, batch);
    const response = await processPartialResponse(event, handle, processor, {
      context,
      // One at a time: memory stays one file's worth, and a 1-vCPU Lambda gains little from overlap.
      processInParallel: false,
      // All failed is answered like some failed: the listed records come back, the others do not.
      throwOnFullBatchFailure: false,
    });
    // The batch's copies reach their tenants' catalogues (one rebuild each) before any message is
    // reported done; if this fails, the whole batch comes back and its retries settle again.
    await batch.settle();
    return response;
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}

/** Counts a failed object as a fault (transient or not) and logs it; the message will come again. */
function reportFailure(error: unknown, ref: ObjectRef, logger: Logger, metrics: Metrics): void {
  // Logs hold keys only as the scrubber passes them.
  const shown = scrubbedKey(ref.key);
  const kind = kindOf(error);
  metrics.addMetric(
    kind === "transient" ? INGEST_METRIC.transientFaults : INGEST_METRIC.faults,
    MetricUnit.Count,
    1,
  );
  logger.error("failed: the message will be received again", {
    key: shown,
    kind,
    error: error as Error,
  });
}

/** Logs a processed object and counts it: by verdict, bytes and time when written, else as redelivered. */
function reportProcessed(result: ProcessResult, logger: Logger, metrics: Metrics): void {
  const { record, outcome } = result;
  const key = record.kind === "rejected" ? record.verdict_key : record.ref.key;
  logger.info("processed", {
    tenant: record.tenant,
    session: record.session,
    key,
    kind: record.kind,
    verdict: record.verdict,
    outcome,
    bytes: record.bytes,
    ms: record.ms,
    checks: result.checks.length,
  });
  if (outcome !== "written") {
    metrics.addMetric(INGEST_METRIC.redelivered, MetricUnit.Count, 1);
    return;
  }
  const byVerdict = metrics.singleMetric();
  byVerdict.addDimension(VERDICT_DIMENSION, record.verdict);
  byVerdict.addMetric(INGEST_METRIC.files, MetricUnit.Count, 1);
  metrics.addMetric(INGEST_METRIC.bytes, MetricUnit.Bytes, record.bytes);
  metrics.addMetric(INGEST_METRIC.processingTime, MetricUnit.Milliseconds, record.ms);
  // A replay that met no receipt waits for one: the check runs when the receipt lands.
  if (record.kind === "replay" && result.checks.length === 0)
    metrics.addMetric(INGEST_METRIC.receiptsPending, MetricUnit.Count, 1);
}
