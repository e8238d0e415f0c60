/**
 * What the AWS adapters throw beside the shared errors: an object replaced while read, a foreign
 * cursor, and the rule that tells an SDK's transient fault (then a shared `TransientError`).
 */
import { ReplayPipelineError, TransientError } from "../../shared/errors.js";

/**
 * The object at the key is no longer the version being read (its ETag changed between the event
 * and the read, or during a resumed read). Retrying cannot help: the newer version has its own event.
 */
export class ObjectChangedError extends ReplayPipelineError {}

/** A `queryDay` cursor that was not made by this index for the same tenant, day and shard. */
export class InvalidCursorError extends ReplayPipelineError {
  constructor() {
    super("index.cursor_invalid", "the cursor was not issued for this tenant, day and shard");
  }
}

// Error names the SDKs give to throttling and to faults on the service's side.
const TRANSIENT_NAMES = new Set([
  "ThrottlingException",
  "Throttling",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "TooManyRequestsException",
  "SlowDown",
  "InternalServerError",
  "InternalError",
  "ServiceUnavailable",
  "RequestTimeout",
  "RequestTimeoutException",
  "TimeoutError",
  // CloudFront's limit on invalidations in progress at once: they finish within minutes.
  "TooManyInvalidationsInProgress",
]);

// Node's codes for a connection that dropped, timed out or could not be made.
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/** True for throttling, a 5xx answer, a timeout or a dropped connection. */
export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const fields = error as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (TRANSIENT_NAMES.has(error.name)) return true;
  if (typeof fields.code === "string" && TRANSIENT_CODES.has(fields.code)) return true;
  const status = fields.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}

/**
 * `error` as a `TransientError` naming `what` was being done when it is transient, else unchanged:
 * a fault that retrying cannot mend (access denied, a missing bucket) keeps the SDK's own error.
 */
export function asAdapterError(error: unknown, what: string): unknown {
  if (error instanceof TransientError || !isTransientAwsError(error)) return error;
  const name = (error as Error).name;
  return new TransientError(
    "aws.transient",
    `${what}: ${name}: ${(error as Error).message}`,
    {},
    { cause: error },
  );
}
