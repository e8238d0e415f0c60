/**
 * An AWS call a command made failed (credentials, region, a missing stack, access denied,
 * throttling, the network): one line naming the call's command, what AWS said and what to check,
 * exit 2, instead of the SDK's stack trace.
 */
import { ReplayPipelineError } from "#shared/errors.js";

/** What to check, by the error's name (the SDK's exception names, which are stable). */
const HINTS: readonly [RegExp, string][] = [
  [
    /^(?:CredentialsProviderError|ExpiredToken(?:Exception)?|InvalidClientTokenId|UnrecognizedClientException|SignatureDoesNotMatch|InvalidAccessKeyId|TokenRefreshRequired|InvalidSignatureException)$/,
    "the AWS credentials (AWS_PROFILE, `aws sso login`, or the role to assume)",
  ],
  [
    /^(?:AccessDenied(?:Exception)?|Forbidden|AuthorizationError|UnauthorizedOperation)$/,
    "that the role may do this for this tenant (a tenant's role reads only its own tenant)",
  ],
  [
    /^(?:NoSuchBucket|ResourceNotFoundException|NotFound|StackNotFound)$/,
    "the stack name and region (--stack, --region) or INGEST_BUCKET, PUBLISHED_BUCKET, REPORTS_BUCKET, TABLE_NAME",
  ],
  [
    /^(?:Throttling(?:Exception)?|SlowDown|TooManyRequestsException|ProvisionedThroughputExceededException|RequestLimitExceeded|ServiceUnavailable|InternalError)$/,
    "nothing on your side: AWS is throttling or unavailable; try again in a moment",
  ],
  [/^TimeoutError$/, "the network and the endpoint (AWS_ENDPOINT_URL, a proxy)"],
];
const NETWORK = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "ETIMEDOUT",
  "ECONNRESET",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);

interface MaybeAws {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  $metadata?: unknown;
}

/** `error` as the one-line `cli.aws` error of `command`, or undefined when it is no AWS failure. */
export function awsFailure(error: unknown, command: string): ReplayPipelineError | undefined {
  if (typeof error !== "object" || error === null || error instanceof ReplayPipelineError) return undefined;
  const e = error as MaybeAws;
  const name = typeof e.name === "string" ? e.name : "Error";
  const message = (typeof e.message === "string" ? e.message : String(error)).split("\n")[0] ?? "";
  const code = typeof e.code === "string" ? e.code : undefined;
  let hint: string | undefined;
  if (/region is missing/i.test(message)) hint = "the region (--region or AWS_REGION)";
  else if (code !== undefined && NETWORK.has(code))
    hint = "the network and the endpoint (AWS_ENDPOINT_URL, a proxy)";
  else if (name === "ValidationError" && /does not exist/i.test(message))
    hint = "the stack name and region (--stack, --region)";
  else hint = HINTS.find(([re]) => re.test(name))?.[1];
  if (hint === undefined && e.$metadata === undefined) return undefined;
  const what = name !== "Error" ? ` ${name}` : code !== undefined ? ` ${code}` : "";
  return new ReplayPipelineError(
    "cli.aws",
    `${command}: AWS${what}: ${message}; check ${hint ?? "the AWS configuration (credentials, region, --stack)"}`,
    {},
    { cause: error },
  );
}
