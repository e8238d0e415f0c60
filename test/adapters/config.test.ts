import "aws-sdk-client-mock-vitest/extend";
import { clearCaches } from "@aws-lambda-powertools/parameters";
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../functions/lib/config.js";

const env = {
  AWS_REGION: "eu-west-1",
  INGEST_BUCKET: "ingest",
  PUBLISHED_BUCKET: "published",
  REPORTS_BUCKET: "reports",
  TABLE_NAME: "index",
};

describe("readConfig", () => {
  it("reads the buckets, the table, the region and 8 shards by default", () => {
    expect(readConfig(env)).toEqual({
      region: "eu-west-1",
      ingestBucket: "ingest",
      publishedBucket: "published",
      reportsBucket: "reports",
      tableName: "index",
      indexShards: 8,
      cursorKey: null,
      distributionId: null,
      viewerPages: false,
      cursorKeySecret: null,
      attestationKeyId: null,
      receiptAgeHours: 24,
      s3Endpoint: null,
      dynamoEndpoint: null,
    });
  });

  it("reads the shard count, a cursor key and local endpoints", () => {
    const key = Buffer.alloc(32, 1);
    const config = readConfig({
      ...env,
      INDEX_SHARDS: "16",
      CURSOR_KEY: key.toString("base64"),
      AWS_ENDPOINT_URL_S3: "http://127.0.0.1:4568",
      AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:4567",
      AUDIT_RECEIPT_AGE_HOURS: "6",
      PUBLISHED_DISTRIBUTION_ID: "E2QWRUHAPOMQZL",
      VIEWER_PAGES: "true",
    });
    expect(config.indexShards).toBe(16);
    expect(config.viewerPages).toBe(true);
    expect(() => readConfig({ ...env, VIEWER_PAGES: "yes" })).toThrow(/VIEWER_PAGES must be true or false/);
    expect(config.distributionId).toBe("E2QWRUHAPOMQZL");
    expect(config.receiptAgeHours).toBe(6);
    expect(Buffer.from(config.cursorKey ?? []).equals(key)).toBe(true);
    expect(config.s3Endpoint).toBe("http://127.0.0.1:4568");
    expect(config.dynamoEndpoint).toBe("http://127.0.0.1:4567");
  });

  it("names the cursor key's secret and the attestation key, never both a key and its secret", () => {
    const config = readConfig({ ...env, CURSOR_KEY_SECRET: "arn:secret", ATTESTATION_KEY_ID: "arn:key" });
    expect(config).toMatchObject({
      cursorKey: null,
      cursorKeySecret: "arn:secret",
      attestationKeyId: "arn:key",
    });
    expect(() =>
      readConfig({
        ...env,
        CURSOR_KEY: Buffer.alloc(32).toString("base64"),
        CURSOR_KEY_SECRET: "arn:secret",
      }),
    ).toThrow(/CURSOR_KEY and CURSOR_KEY_SECRET are both set/);
  });

  it("fails naming every missing setting", () => {
    const { TABLE_NAME: _, PUBLISHED_BUCKET: __, ...partial } = env;
    expect(() => readConfig(partial)).toThrow(/PUBLISHED_BUCKET is missing.*TABLE_NAME is missing/);
    expect(() => readConfig({ ...env, AWS_REGION: " " })).toThrow(/AWS_REGION is missing/);
  });

  it("fails naming a malformed setting", () => {
    expect(() => readConfig({ ...env, INDEX_SHARDS: "0" })).toThrow(/INDEX_SHARDS/);
    expect(() => readConfig({ ...env, INDEX_SHARDS: "eight" })).toThrow(/INDEX_SHARDS/);
    expect(() => readConfig({ ...env, AUDIT_RECEIPT_AGE_HOURS: "-1" })).toThrow(/AUDIT_RECEIPT_AGE_HOURS/);
    expect(() => readConfig({ ...env, CURSOR_KEY: "c2hvcnQ=" })).toThrow(/CURSOR_KEY must be 32 bytes/);
    expect(() => readConfig({ ...env, AWS_ENDPOINT_URL_S3: "localhost" })).toThrow(/AWS_ENDPOINT_URL_S3/);
    expect(() =>
      readConfig({ ...env, PUBLISHED_DISTRIBUTION_ID: "arn:aws:cloudfront::1:distribution/E2" }),
    ).toThrow(/PUBLISHED_DISTRIBUTION_ID must be a CloudFront distribution id/);
  });
});

describe("clients", () => {
  const secrets = mockClient(SecretsManagerClient);
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
    secrets.reset();
    clearCaches();
  });

  it("are made once from the environment, at import", async () => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    vi.stubEnv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:4568");
    const clients = await import("../../functions/lib/clients.js");
    expect(clients.config.tableName).toBe("index");
    expect(await clients.s3.config.region()).toBe("eu-west-1");
    expect(clients.s3.config.forcePathStyle).toBe(true);
    expect(await clients.dynamo.config.region()).toBe("eu-west-1");
  });

  it("fail the import when a setting is missing", async () => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    vi.stubEnv("REPORTS_BUCKET", undefined);
    await expect(import("../../functions/lib/clients.js")).rejects.toThrow(/REPORTS_BUCKET is missing/);
  });

  it("read the cursor key from its secret at cold start, once, and make no KMS client without a key", async () => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    vi.stubEnv("CURSOR_KEY_SECRET", "arn:aws:secretsmanager:eu-west-1:111122223333:secret:ck");
    const key = Buffer.alloc(32, 9);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: key.toString("base64") });
    const clients = await import("../../functions/lib/clients.js");
    expect(Buffer.from(clients.config.cursorKey ?? []).equals(key)).toBe(true);
    expect(secrets).toHaveReceivedCommandOnce(GetSecretValueCommand);
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, {
      SecretId: "arn:aws:secretsmanager:eu-west-1:111122223333:secret:ck",
    });
    expect(clients.kms).toBeNull();
  });

  it("fail the import, naming the secret, when the cursor key's secret is missing", async () => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    vi.stubEnv("CURSOR_KEY_SECRET", "gone-secret");
    secrets
      .on(GetSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: "not found", $metadata: {} }));
    await expect(import("../../functions/lib/clients.js")).rejects.toThrow(
      /the cursor key secret gone-secret \(CURSOR_KEY_SECRET\) does not exist/,
    );
  });
});
