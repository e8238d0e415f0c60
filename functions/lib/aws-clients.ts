/**
 * How this project's SDK clients are made, for AWS and for the local servers alike: the Lambda
 * functions call these once at module scope (`clients.ts`), integration tests call them with a
 * local endpoint, so both run the same client settings.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** Where a client talks to. */
export interface ClientSettings {
  region: string;
  /** A local server's URL; null or absent for AWS. */
  endpoint?: string | null;
  /** Fixed credentials (the local servers); absent: the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

// A stalled connection fails after this instead of hanging until the Lambda's own timeout; a
// stalled object read then resumes with a ranged GET.
const REQUEST_HANDLER = { connectionTimeout: 2_000, requestTimeout: 30_000 };

/** An S3 client; against a local endpoint it uses path-style URLs and checksums only where required. */
export function makeS3Client(settings: ClientSettings): S3Client {
  const config: S3ClientConfig = { region: settings.region, requestHandler: REQUEST_HANDLER };
  if (settings.credentials) config.credentials = settings.credentials;
  if (settings.endpoint) {
    config.endpoint = settings.endpoint;
    config.forcePathStyle = true;
    // Local S3 servers differ in what they make of the SDK's default streaming checksums (s3rver
    // alone stores the aws-chunked framing; the local stack's front decodes it): only where required.
    config.requestChecksumCalculation = "WHEN_REQUIRED";
    config.responseChecksumValidation = "WHEN_REQUIRED";
  }
  return new S3Client(config);
}

/** A DynamoDB client (tables: the local stack and tests create theirs with it). */
export function makeDynamoClient(settings: ClientSettings): DynamoDBClient {
  const config: DynamoDBClientConfig = { region: settings.region, requestHandler: REQUEST_HANDLER };
  if (settings.credentials) config.credentials = settings.credentials;
  if (settings.endpoint) config.endpoint = settings.endpoint;
  return new DynamoDBClient(config);
}

/** A KMS client (the attestation signer; AWS only: the local stack has no KMS). */
export function makeKmsClient(settings: ClientSettings): KMSClient {
  return new KMSClient({ region: settings.region, requestHandler: REQUEST_HANDLER });
}

/** A document client (plain JavaScript values in and out) over `client`. */
export function makeDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  // Absent optional members are left out of the item rather than rejected.
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
