/**
 * The configuration and SDK clients of a Lambda function, made once per cold start and shared by
 * every invocation of that container. Importing this module reads the environment: a bad setting
 * fails the cold start with its name.
 */
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "./aws-clients.js";
import { type Config, readConfig } from "./config.js";

/** This function's configuration. */
export const config: Config = readConfig(process.env);

/** The S3 client (ingest, published and reports buckets). */
export const s3 = makeS3Client({ region: config.region, endpoint: config.s3Endpoint });

/** The DynamoDB document client (the session index table). */
export const dynamo = makeDocumentClient(
  makeDynamoClient({ region: config.region, endpoint: config.dynamoEndpoint }),
);
