/**
 * The configuration and SDK clients of a Lambda function, made once per cold start and shared by
 * every invocation of that container. Importing this module reads the environment and, when the
 * environment names its secret, the cursor key from Secrets Manager: a bad setting or a missing
 * secret fails the cold start with its name.
 */
import { readCursorKeySecret } from "../adapters/cursor-key-secret.js";
import { makeDocumentClient, makeDynamoClient, makeKmsClient, makeS3Client } from "./aws-clients.js";
import { type Config, readConfig } from "./config.js";

const settings = readConfig(process.env);

/** This function's configuration, its cursor key read from its secret when the environment names one. */
export const config: Config =
  settings.cursorKeySecret === null
    ? settings
    : { ...settings, cursorKey: await readCursorKeySecret(settings.cursorKeySecret) };

/** The S3 client (ingest, published and reports buckets). */
export const s3 = makeS3Client({ region: config.region, endpoint: config.s3Endpoint });

/** The DynamoDB document client (the session index table). */
export const dynamo = makeDocumentClient(
  makeDynamoClient({ region: config.region, endpoint: config.dynamoEndpoint }),
);

/** The KMS client that signs attestations, or null when no signing key is configured. */
export const kms = config.attestationKeyId === null ? null : makeKmsClient({ region: config.region });
