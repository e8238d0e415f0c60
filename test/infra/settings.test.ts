import { App } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../functions/lib/config.js";
import { retentionOf } from "../../infra/pipeline-stack.js";
import { readSettings } from "../../infra/settings.js";

const settingsOf = (context: Record<string, unknown>) => readSettings(new App({ context }).node);

describe("CDK context settings", () => {
  it("default to the README's configuration table", () => {
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
      reservedConcurrency: null,
      verdictAlarmThreshold: 10,
      oldestMessageAlarmMinutes: 60,
      cloudFront: false,
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
      settingsOf({ cloudFront: "true", indexShards: "16", reservedConcurrency: "40", alarmEmail: "a@b.io" }),
    ).toMatchObject({ cloudFront: true, indexShards: 16, reservedConcurrency: 40, alarmEmail: "a@b.io" });
    expect(settingsOf({ cloudFront: false, reservedConcurrency: "" })).toMatchObject({
      cloudFront: false,
      reservedConcurrency: null,
    });
  });

  it("name each bad key and what was expected", () => {
    const bad = () =>
      settingsOf({ indexShards: "0", alarmEmail: "nobody", auditSchedule: "daily", cloudFront: "yes" });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/indexShards: .*auditSchedule: .*EventBridge Scheduler expression/s);
    expect(bad).toThrow(/alarmEmail: an e-mail address/);
    expect(bad).toThrow(/cloudFront/);
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
