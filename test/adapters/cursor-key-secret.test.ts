import "aws-sdk-client-mock-vitest/extend";
import { clearCaches } from "@aws-lambda-powertools/parameters";
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from "@aws-sdk/client-secrets-manager";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CursorKeySecretError, readCursorKeySecret } from "../../functions/adapters/cursor-key-secret.js";
import { TransientError } from "../../shared/errors.js";

const secrets = mockClient(SecretsManagerClient);
const ARN = "arn:aws:secretsmanager:eu-west-1:111122223333:secret:StorageCursorKey-AbCdEf";
const KEY = Buffer.alloc(32, 7);
// 43 base64 digits, as the stack's generated secret holds.
const TEXT = KEY.toString("base64").replace(/=+$/, "");

beforeEach(() => {
  secrets.reset();
  // Powertools' default provider caches per process: each test starts from an empty cache.
  clearCaches();
  vi.stubEnv("AWS_REGION", "eu-west-1");
});
afterEach(() => vi.unstubAllEnvs());

describe("readCursorKeySecret", () => {
  it("reads the secret named by its ARN and decodes its 32 bytes", async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: TEXT });
    const key = await readCursorKeySecret(ARN);
    expect(Buffer.from(key).equals(KEY)).toBe(true);
    expect(secrets).toHaveReceivedCommandOnce(GetSecretValueCommand);
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: ARN });
  });

  it("is cached: later invocations of the same container make no request", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: TEXT });
    for (let i = 0; i < 3; i++) expect(Buffer.from(await readCursorKeySecret(ARN)).equals(KEY)).toBe(true);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });

  it("a missing secret is a CursorKeySecretError naming it", async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: "Secrets Manager can't find it", $metadata: {} }));
    const error = await readCursorKeySecret(ARN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CursorKeySecretError);
    expect(error).toMatchObject({ code: "config.secret", kind: "config" });
    expect((error as Error).message).toContain(
      `the cursor key secret ${ARN} (CURSOR_KEY_SECRET) does not exist`,
    );
  });

  it("access denied is a CursorKeySecretError naming the secret and the permission", async () => {
    secrets.on(GetSecretValueCommand).rejects(
      new SecretsManagerServiceException({
        name: "AccessDeniedException",
        $fault: "client",
        $metadata: { httpStatusCode: 400 },
        message: "not authorized",
      }),
    );
    const error = await readCursorKeySecret(ARN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CursorKeySecretError);
    expect((error as Error).message).toMatch(
      new RegExp(`${ARN}: AccessDeniedException: not authorized; check that .*secretsmanager:GetSecretValue`),
    );
  });

  it("throttling is transient: the cold start fails and the message comes back", async () => {
    secrets.on(GetSecretValueCommand).rejects(
      new SecretsManagerServiceException({
        name: "ThrottlingException",
        $fault: "client",
        $metadata: { httpStatusCode: 400 },
        message: "Rate exceeded",
      }),
    );
    await expect(readCursorKeySecret(ARN)).rejects.toBeInstanceOf(TransientError);
  });

  it.each([
    ["a short key", { SecretString: Buffer.alloc(16).toString("base64") }],
    ["a binary secret", { SecretBinary: new Uint8Array(KEY) }],
  ])("a secret that holds %s is refused, naming the secret", async (_, output) => {
    secrets.on(GetSecretValueCommand).resolves(output);
    await expect(readCursorKeySecret(ARN)).rejects.toThrow(
      `the cursor key secret ${ARN} does not hold a cursor key; expected 32 bytes as base64 text`,
    );
  });
});
