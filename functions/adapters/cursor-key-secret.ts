/**
 * The cursor key read from Secrets Manager at cold start (Powertools Parameters), so the key is in
 * no environment variable, template or console page: the function's environment names the secret
 * (`CURSOR_KEY_SECRET`), its role may read that one secret.
 */
import { ParameterNotFoundError } from "@aws-lambda-powertools/parameters";
import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { ReplayPipelineError, TransientError } from "../../shared/errors.js";
import { decodeCursorKey } from "../lib/config.js";
import { isTransientAwsError } from "./errors.js";

// The key changes only by redeploying (new containers): keep it for a container's whole life.
const CACHE_SECONDS = 24 * 3600;

/** The secret holding the cursor key is missing, unreadable or not a 32-byte base64 key. */
export class CursorKeySecretError extends ReplayPipelineError {}

/**
 * The 32-byte cursor key held (as base64 text) by the secret `secretId` (an ARN or a name).
 * Cached by Powertools, so a second call in the same container makes no request. Throws a
 * `CursorKeySecretError` naming the secret when it is missing, unreadable or malformed, and a
 * `TransientError` for throttling or a service fault.
 */
export async function readCursorKeySecret(secretId: string): Promise<Uint8Array> {
  let value: unknown;
  try {
    value = await getSecret(secretId, { maxAge: CACHE_SECONDS, throwOnMissing: true });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (error instanceof ParameterNotFoundError)
      throw new CursorKeySecretError(
        "config.secret",
        `the cursor key secret ${secretId} (CURSOR_KEY_SECRET) does not exist; expected the stack's CursorKey secret`,
        {},
        { cause: error },
      );
    const detail = `reading the cursor key secret ${secretId}: ${(cause as Error).name}: ${(cause as Error).message}`;
    if (isTransientAwsError(cause)) throw new TransientError("aws.transient", detail, {}, { cause: error });
    throw new CursorKeySecretError(
      "config.secret",
      `${detail}; check that the function's role may secretsmanager:GetSecretValue on it`,
      {},
      { cause: error },
    );
  }
  const key = typeof value === "string" ? decodeCursorKey(value) : null;
  if (key === null)
    throw new CursorKeySecretError(
      "config.secret",
      `the cursor key secret ${secretId} does not hold a cursor key; expected 32 bytes as base64 text`,
    );
  return key;
}
