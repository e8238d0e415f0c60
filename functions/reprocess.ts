/**
 * The reprocess Lambda: one item of a reprocess run's manifest (a Step Functions Distributed Map
 * child) through the per-file job in reprocess mode. A fault throws: the map retries the item, and
 * a run resumed with its id skips the items already replaced.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import middy from "@middy/core";
import pkg from "../package.json" with { type: "json" };
import { KmsEnvelopeSigner } from "./adapters/kms-signer.js";
import { config, dynamo, kms, s3 } from "./lib/clients.js";
import { makeReprocessHandler } from "./lib/reprocess.js";

const logger = new Logger({ serviceName: "replay-pipeline-reprocess" });

/** The handler (`functions/reprocess.handler`); configuration and clients are made at cold start. */
export const handler = middy(
  makeReprocessHandler({
    config,
    s3,
    dynamo,
    ...(config.distributionId === null
      ? {}
      : { cloudFront: new CloudFrontClient({ region: config.region }) }),
    logger,
    toolVersion: pkg.version,
    signer:
      kms === null || config.attestationKeyId === null
        ? null
        : new KmsEnvelopeSigner(kms, config.attestationKeyId),
  }),
).use(injectLambdaContext(logger, { resetKeys: true }));
