import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { App } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../functions/lib/config.js";
import { retentionOf } from "../../infra/pipeline-stack.js";
import { readSettings } from "../../infra/settings.js";
import { tempDir } from "../support/temp.js";

const PEM = readFileSync(new URL("../fixtures/cloudfront/public-key.pem", import.meta.url), "utf8");
// An App makes its assembly folder when built: in a temp folder of this file's, not a cdk.out* left behind.
const settingsOf = (context: Record<string, unknown>) =>
  readSettings(new App({ context, outdir: tempDir("cdk.out-") }).node);

describe("CDK context settings", () => {
  it("default to the configuration table of docs/deploy.md", () => {
    expect(settingsOf({})).toEqual({
      stackName: "ReplayPipeline",
      ingestPrefix: "",
      indexShards: 8,
      receiptAgeHours: 24,
      noncurrentVersionDays: 90,
      accessLogDays: 365,
      logRetentionDays: 90,
      auditSchedule: "cron(15 2 * * ? *)",
      auditTimeZone: "UTC",
      alarmEmail: null,
      ingestMaxConcurrency: 10,
      reprocessMaxConcurrency: 100,
      reservedConcurrency: null,
      verdictAlarmThreshold: 10,
      oldestMessageAlarmMinutes: 60,
      publishing: "private",
      publishingPublicKey: null,
      viewerPages: false,
      tenants: [],
      githubOidcProvider: "existing",
    });
  });

  it("read tenants as cdk.json's list, a `-c` JSON list or a comma-separated `-c` list", () => {
    const acme = { name: "acme", githubRepositories: ["acme/app"] };
    const globex = { name: "globex", githubRepositories: [] };
    expect(settingsOf({ tenants: [acme, "globex"] }).tenants).toEqual([acme, globex]);
    expect(settingsOf({ tenants: JSON.stringify([acme, "globex"]) }).tenants).toEqual([acme, globex]);
    expect(settingsOf({ tenants: "acme, globex" }).tenants).toEqual([
      { ...acme, githubRepositories: [] },
      globex,
    ]);
    expect(settingsOf({ tenants: "" }).tenants).toEqual([]);
  });

  it("refuse tenant names a key could not hold or the pipeline reserves, repeated names and bad repositories", () => {
    // `#` would let `T#a#*` match another tenant's index keys; `_` names are the pipeline's own.
    for (const name of ["a#b", "a/b", "_rejected", "..", ".", "", "x".repeat(129), "a b"])
      expect(() => settingsOf({ tenants: [name] }), name).toThrow(/tenants\.0.*tenant name/);
    expect(() => settingsOf({ tenants: "acme,acme" })).toThrow(/tenants: each tenant named once/);
    for (const repo of ["acme", "acme/app/x", "acme/*", "repo:acme/app:*"])
      expect(() => settingsOf({ tenants: [{ name: "acme", githubRepositories: [repo] }] }), repo).toThrow(
        /GitHub repository/,
      );
    expect(() => settingsOf({ githubOidcProvider: "maybe" })).toThrow(/githubOidcProvider/);
  });

  it("read `-c key=value` strings as cdk.json's types", () => {
    expect(
      settingsOf({
        publishing: "public",
        indexShards: "16",
        reservedConcurrency: "40",
        alarmEmail: "a@b.io",
        viewerPages: "true",
      }),
    ).toMatchObject({
      publishing: "public",
      indexShards: 16,
      reservedConcurrency: 40,
      alarmEmail: "a@b.io",
      viewerPages: true,
    });
    expect(settingsOf({ viewerPages: true }).viewerPages).toBe(true);
    expect(() => settingsOf({ viewerPages: "yes" })).toThrow(/viewerPages: true or false/);
    expect(settingsOf({ publishing: "none", reservedConcurrency: "" })).toMatchObject({
      publishing: "none",
      reservedConcurrency: null,
    });
  });

  it("name each bad key and what was expected", () => {
    const bad = () =>
      settingsOf({ indexShards: "0", alarmEmail: "nobody", auditSchedule: "daily", publishing: "yes" });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/indexShards: .*auditSchedule: .*EventBridge Scheduler expression/s);
    expect(bad).toThrow(/alarmEmail: an e-mail address/);
    expect(bad).toThrow(/publishing: one of private, public, none/);
  });

  it("take a PEM RSA 2048 public key for private publishing, and nothing that is not one", () => {
    expect(settingsOf({ publishing: "private", publishingPublicKey: PEM })).toMatchObject({
      publishing: "private",
      publishingPublicKey: PEM.trim(),
    });
    // The default is private too; the key alone turns the distribution on.
    expect(settingsOf({ publishingPublicKey: PEM }).publishing).toBe("private");
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
      type: "spki",
      format: "pem",
    });
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    for (const wrong of [
      "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
      small,
      privateKey.export({ type: "pkcs8", format: "pem" }),
      PEM.replace("MIIB", "XXXX"),
    ])
      expect(() => settingsOf({ publishingPublicKey: wrong })).toThrow(
        /publishingPublicKey: a PEM public key/,
      );
  });

  it("refuse private publishing asked for without its key, a key for another mode, and the old cloudFront flag", () => {
    expect(() => settingsOf({ publishing: "private" })).toThrow(
      /publishing=private needs publishingPublicKey/,
    );
    expect(() => settingsOf({ publishing: "public", publishingPublicKey: PEM })).toThrow(
      /publishingPublicKey is only for publishing=private, not public/,
    );
    expect(() => settingsOf({ cloudFront: "true" })).toThrow(/cloudFront was replaced by publishing/);
  });

  it("refuse a reserved concurrency below the queue's maximum concurrency", () => {
    expect(() => settingsOf({ reservedConcurrency: 5, ingestMaxConcurrency: 10 })).toThrow(
      /reservedConcurrency \(5\) must be at least ingestMaxConcurrency \(10\)/,
    );
  });

  it("round log retention up to a value CloudWatch Logs accepts", () => {
    expect(retentionOf(90)).toBe(90);
    expect(retentionOf(100)).toBe(120);
    expect(retentionOf(1)).toBe(1);
    expect(retentionOf(4000)).toBe(3653);
  });
});
