/**
 * S3 event notifications and the SQS messages that carry them, shaped as AWS sends them: what the
 * local stack hands the ingest handler (s3rver's own events are not in that shape and leave keys
 * unencoded), and what the handler's tests feed it.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Context, SQSEvent, SQSRecord } from "aws-lambda";

/** The object an `ObjectCreated` notification is about. */
export interface CreatedObject {
  bucket: string;
  /** The key as stored (not encoded). */
  key: string;
  size: number;
  /** The ETag, quotes removed. */
  eTag: string;
  versionId?: string;
  /** Hex; orders the events of one key. */
  sequencer: string;
}

const REGION = "us-east-1";
const ACCOUNT = "000000000000";

/**
 * A key as S3 writes it into a notification: form-URL-encoded per segment (`+` for a space, `%2B`
 * for a plus), slashes kept.
 */
function encodeEventKey(key: string): string {
  return key
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replaceAll("%20", "+"),
    )
    .join("/");
}

/** The JSON body S3 sends for one created object. */
export function createdNotification(object: CreatedObject, eventTime = new Date()): string {
  return JSON.stringify({
    Records: [
      {
        eventVersion: "2.1",
        eventSource: "aws:s3",
        awsRegion: REGION,
        eventTime: eventTime.toISOString(),
        eventName: "ObjectCreated:Put",
        userIdentity: { principalId: "AWS:LOCAL" },
        requestParameters: { sourceIPAddress: "127.0.0.1" },
        responseElements: { "x-amz-request-id": randomUUID(), "x-amz-id-2": randomUUID() },
        s3: {
          s3SchemaVersion: "1.0",
          configurationId: "ingest",
          bucket: {
            name: object.bucket,
            ownerIdentity: { principalId: "LOCAL" },
            arn: `arn:aws:s3:::${object.bucket}`,
          },
          object: {
            key: encodeEventKey(object.key),
            size: object.size,
            eTag: object.eTag,
            ...(object.versionId === undefined ? {} : { versionId: object.versionId }),
            sequencer: object.sequencer,
          },
        },
      },
    ],
  });
}

/** The body S3 sends once when a bucket's notification is set up. */
export function testEventNotification(bucket: string): string {
  return JSON.stringify({
    Service: "Amazon S3",
    Event: "s3:TestEvent",
    Time: new Date().toISOString(),
    Bucket: bucket,
    RequestId: randomUUID(),
    HostId: randomUUID(),
  });
}

/** An SQS record carrying `body`, received `receiveCount` times. */
export function sqsRecord(body: string, messageId: string = randomUUID(), receiveCount = 1): SQSRecord {
  const now = String(Date.now());
  return {
    messageId,
    receiptHandle: `${messageId}#${receiveCount}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: now,
      SenderId: "AIDAS3NOTIFICATIONS",
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: createHash("md5").update(body).digest("hex"),
    eventSource: "aws:sqs",
    eventSourceARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:ingest`,
    awsRegion: REGION,
  };
}

/** An SQS event of `records`. */
export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A Lambda context for a local invocation of `functionName`. */
export function lambdaContext(functionName = "ingest", timeoutMs = 900_000): Context {
  const deadline = Date.now() + timeoutMs;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: "1769",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
