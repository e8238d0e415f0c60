/**
 * The ingest Lambda: an SQS batch of S3 `ObjectCreated` notifications from the ingest bucket, each
 * object through `processObject` over the S3 and DynamoDB adapters. Input problems become
 * verdicts (the message succeeds); a fault fails only its record (`batchItemFailures`), which SQS
 * delivers again and, after its receive limit, moves to the dead-letter queue.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import pkg from "../package.json" with { type: "json" };
import { KmsEnvelopeSigner } from "./adapters/kms-signer.js";
import { config, dynamo, kms, s3 } from "./lib/clients.js";
import { makeIngestHandler } from "./lib/ingest.js";
import { INGEST_SERVICE, METRICS_NAMESPACE } from "./lib/metrics.js";

/** The handler (`functions/ingest.handler`); configuration and clients are made at cold start. */
export const handler = makeIngestHandler({
  config,
  s3,
  dynamo,
  // Only behind a distribution (PUBLISHED_DISTRIBUTION_ID): a withdrawal then invalidates its path.
  ...(config.distributionId === null ? {} : { cloudFront: new CloudFrontClient({ region: config.region }) }),
  logger: new Logger({ serviceName: "replay-pipeline-ingest" }),
  metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: INGEST_SERVICE }),
  toolVersion: pkg.version,
  signer:
    kms === null || config.attestationKeyId === null
      ? null
      : new KmsEnvelopeSigner(kms, config.attestationKeyId),
});
