/**
 * Continuation tokens of the day index: DynamoDB's LastEvaluatedKey sealed with AES-256-GCM, the
 * query's partition (tenant, day and shard) as associated data. A token is opaque to its holder and
 * opens only for the partition it came from: a token of tenant A cannot page through tenant B.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { InvalidCursorError } from "./errors.js";

const IV = 12;
const TAG = 16;

/** `value` sealed for `scope`, as base64url text. */
export function sealCursor(key: Uint8Array, scope: string, value: Record<string, unknown>): string {
  const iv = randomBytes(IV);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(scope, "utf8"));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** The value `token` holds; an `InvalidCursorError` unless it was sealed with `key` for `scope`. */
export function openCursor(key: Uint8Array, scope: string, token: string): Record<string, unknown> {
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length <= IV + TAG) throw new InvalidCursorError();
  let text: string;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV));
    decipher.setAAD(Buffer.from(scope, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV, IV + TAG));
    text = Buffer.concat([decipher.update(bytes.subarray(IV + TAG)), decipher.final()]).toString("utf8");
  } catch {
    throw new InvalidCursorError();
  }
  return JSON.parse(text) as Record<string, unknown>;
}
