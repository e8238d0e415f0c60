/**
 * The ports of the per-file job over AWS (S3, DynamoDB, CloudFront, KMS): what the ingest and the
 * reprocess handlers both run it over, made once per container.
 */
import { tmpdir } from "node:os";
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { EnvelopeSigner } from "../../shared/attest/index.js";
import type { Ports } from "../../shared/pipeline/index.js";
import { fileSpool } from "../../shared/spool/index.js";
import { DynamoSessionIndex } from "../adapters/dynamo-index.js";
import { S3ObjectStore } from "../adapters/s3-objects.js";
import { type CatalogueBatch, S3Publisher } from "../adapters/s3-publisher.js";
import type { Config } from "./config.js";

/** What the ports are made of. */
export interface PortDependencies {
  config: Config;
  s3: S3Client;
  dynamo: DynamoDBDocumentClient;
  /** CloudFront, when `config.distributionId` names a distribution whose cache withdrawals clear. */
  cloudFront?: CloudFrontClient;
  /** Signs the attestations (the KMS key); absent or null: stored unsigned (the local stack). */
  signer?: EnvelopeSigner | null;
}

/** The job's ports over AWS, their publisher the S3 one (which makes batch views). */
export type PipelinePorts = Ports & { publisher: S3Publisher };

/**
 * The ports one batch of jobs runs over: `ports` with a batch view of its publisher, whose
 * `settle()` (once the batch's jobs are done, before they are reported done) rebuilds each
 * tenant's catalogue once.
 */
export function batchPorts(ports: PipelinePorts): { ports: Ports; batch: CatalogueBatch } {
  const batch = ports.publisher.batch();
  return { ports: { ...ports, publisher: batch }, batch };
}

/** The job's ports over `deps`' clients and buckets. */
export function pipelinePorts(deps: PortDependencies): PipelinePorts {
  const { config, s3 } = deps;
  // Layer C copies wait in the function's /tmp (its ephemeral storage), not in its memory; so does
  // a copy whose viewer page is built once it is up.
  const spool = fileSpool(tmpdir());
  return {
    objects: new S3ObjectStore(s3, config.ingestBucket),
    publisher: new S3Publisher(s3, {
      publishedBucket: config.publishedBucket,
      reportsBucket: config.reportsBucket,
      viewerPages: config.viewerPages,
      spool,
      ...(config.distributionId !== null && deps.cloudFront !== undefined
        ? { distribution: { client: deps.cloudFront, id: config.distributionId } }
        : {}),
    }),
    index: new DynamoSessionIndex(deps.dynamo, {
      tableName: config.tableName,
      shards: config.indexShards,
      cursorKey: config.cursorKey,
    }),
    spool,
    signer: deps.signer ?? null,
  };
}
