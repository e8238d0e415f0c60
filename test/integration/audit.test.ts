/**
 * The audit against dynalite and s3rver with the real SDK clients: a seeded day (more than one
 * page per shard), an empty day, verdict documents, a receipt that arrives the day after, the
 * three documents written to the reports bucket, and `report --local` end to end.
 */

import { spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LocalServer, S3RVER_CREDENTIALS, startDynalite, startS3rver } from "../../cli/local/servers.js";
import { collectAuditInput, s3DocumentReader } from "../../functions/adapters/audit-source.js";
import { DynamoSessionIndex } from "../../functions/adapters/dynamo-index.js";
import { runAudit, storeAudit } from "../../functions/lib/audit-job.js";
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "../../functions/lib/aws-clients.js";
import { AUDIT_METRIC, AUDIT_SERVICE, METRICS_NAMESPACE } from "../../functions/lib/metrics.js";
import { createTable } from "../../functions/lib/table.js";
import type { AuditReport } from "../../shared/report/index.js";
import { DAY, OWN_FAILURES, PLANTED_SECRET, seeded, seededDay } from "../support/audit-records.js";
import { tempDir } from "../support/temp.js";

const REPORTS = "reports";
const TABLE = "audit-index";
const SHARDS = 2;
const EXTRA = 12;
const NOW = new Date("2026-11-27T12:00:00.000Z");
/** The seeded day's audit, read two records a page. */
const SEEDED_DAY = { since: DAY, until: DAY, tenant: null, now: NOW, receiptAgeHours: 6, pageSize: 2 };

describe("audit against dynalite and s3rver", () => {
  let dynalite: LocalServer;
  let s3rver: LocalServer;
  let raw: DynamoDBClient;
  let s3: S3Client;
  let index: DynamoSessionIndex;

  beforeAll(async () => {
    [dynalite, s3rver] = await Promise.all([startDynalite(), startS3rver({ buckets: [REPORTS] })]);
    const credentials = S3RVER_CREDENTIALS;
    raw = makeDynamoClient({ region: "us-east-1", endpoint: dynalite.endpoint, credentials });
    s3 = makeS3Client({ region: "us-east-1", endpoint: s3rver.endpoint, credentials });
    await createTable(raw, TABLE);
    index = new DynamoSessionIndex(makeDocumentClient(raw), { tableName: TABLE, shards: SHARDS });
    const { files, checks } = seededDay();
    for (let n = 0; n < EXTRA; n++) files.push(seeded("acme", `bulk-${n}`, "R.jsonl", 8, { ms: 15 }));
    // acme/s2's receipt arrives the next day: the audit finds it through the session.
    files.push(
      seeded("acme", "s2", "RECEIPT.json", 0, {
        kind: "receipt",
        format: null,
        processed_at: "2026-11-27T01:00:00.000Z",
      }),
    );
    for (const f of files) expect(await index.putFile(f)).toBe("written");
    for (const c of checks) expect(await index.putCheck(c)).toBe("written");
    const failed = files.find((f) => f.ref.key === "acme/s2/R.jsonl");
    const rows = [
      ...OWN_FAILURES,
      { check: "line_hash", subject: "line 1", expected: "x", actual: "x", status: "passed" },
    ];
    await s3.send(
      new PutObjectCommand({
        Bucket: REPORTS,
        Key: failed?.verdict_key,
        Body: JSON.stringify({ schema: "replay-pipeline.verdict.v1", report: { checks: rows } }),
      }),
    );
  });

  afterAll(async () => {
    raw?.destroy();
    s3?.destroy();
    await Promise.all([dynalite?.close(), s3rver?.close()]);
  });

  it("reads every page of every shard, the failed rows of verdict documents and late receipts", async () => {
    const pages = new Map<number, number>();
    const counting = {
      shardCount: index.shardCount,
      listTenants: (day: string) => index.listTenants(day),
      listFiles: (tenant: string, session: string) => index.listFiles(tenant, session),
      queryChecksDay: index.queryChecksDay.bind(index),
      queryDay: (tenant: string, day: string, shard: number, cursor?: string | null, limit?: number) => {
        if (day === DAY && tenant === "acme") pages.set(shard, (pages.get(shard) ?? 0) + 1);
        return index.queryDay(tenant, day, shard, cursor, limit);
      },
    };
    const input = await collectAuditInput(counting, s3DocumentReader(s3, REPORTS), SEEDED_DAY);
    expect([...pages.values()].every((n) => n > 1)).toBe(true);
    expect(pages.size).toBe(SHARDS);
    expect(input.files).toHaveLength(7 + EXTRA);
    expect(input.checks).toHaveLength(1);
    expect(input.fileFailures).toEqual({ "acme/s2/R.jsonl": OWN_FAILURES });
    // s1 (receipt that day), s2 (receipt the day after), s3 (a receipt check): all have one.
    expect(input.sessionsWithReceipt).toEqual(expect.arrayContaining(["acme/s1", "acme/s2", "acme/s3"]));
    expect(input.history).toHaveLength(30);
    expect(input.history.at(-1)).toEqual({
      day: DAY,
      verdicts: { passed: 3 + EXTRA, unverifiable: 1, failed: 1, invalid: 2 },
    });
    expect(input.history.slice(0, -1).every((d) => Object.values(d.verdicts).every((n) => n === 0))).toBe(
      true,
    );
  });

  it("writes audits/<date>.json, .md and .html with the seeded counts, scrubbed", async () => {
    const audit = await runAudit(index, s3DocumentReader(s3, REPORTS), SEEDED_DAY);
    const keys = await storeAudit(s3, REPORTS, audit);
    expect(keys).toEqual([`audits/${DAY}.json`, `audits/${DAY}.md`, `audits/${DAY}.html`]);
    const read = async (key: string) => {
      const out = await s3.send(new GetObjectCommand({ Bucket: REPORTS, Key: key }));
      return { type: out.ContentType, body: (await out.Body?.transformToString()) ?? "" };
    };
    const json = await read(keys[0] as string);
    const report = JSON.parse(json.body) as AuditReport;
    expect(json.type).toBe("application/json");
    expect(report.totals).toEqual({
      files: 7 + EXTRA,
      sessions: 6 + EXTRA,
      tenants: 2,
      verdicts: { passed: 3 + EXTRA, unverifiable: 1, failed: 1, invalid: 2 },
    });
    expect(report.failed_checks.map((r) => [r.session, r.check])).toEqual([
      ["s2", "params_hash"],
      ["s2", "replay_hash"],
      ["s3", "output_hash"],
    ]);
    // The bulk sessions and globex/g1 have no receipt; acme/s1, s2 and s3 have one (s2's a day late).
    const missing = report.missing_receipts.map((r) => r.session).sort();
    expect(missing).toEqual([...Array.from({ length: EXTRA }, (_, n) => `bulk-${n}`), "g1"].sort());
    expect(report.withdrawn.map((r) => r.copy)).toEqual(["acme/s3/R.json.layer-c"]);
    for (const key of keys) expect((await read(key)).body).not.toContain(PLANTED_SECRET);
    expect((await read(keys[2] as string)).type).toBe("text/html; charset=utf-8");
  });

  it("reports an empty day as zeros, for all tenants and for one", async () => {
    for (const tenant of [null, "acme"]) {
      const audit = await runAudit(index, s3DocumentReader(s3, REPORTS), {
        since: "2026-11-20",
        until: "2026-11-20",
        tenant,
        now: NOW,
        receiptAgeHours: 6,
      });
      expect(audit.report.totals).toEqual({
        files: 0,
        sessions: 0,
        tenants: 0,
        verdicts: { passed: 0, unverifiable: 0, failed: 0, invalid: 0 },
      });
      expect(audit.report.history.every((d) => d.verdicts.passed === 0)).toBe(true);
      expect(audit.markdown).toContain("_No files in this period._");
    }
  });

  it("runs as the scheduled function, configured by its environment", async () => {
    const env = {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      INGEST_BUCKET: "ingest",
      PUBLISHED_BUCKET: "published",
      REPORTS_BUCKET: REPORTS,
      TABLE_NAME: TABLE,
      INDEX_SHARDS: String(SHARDS),
      AWS_ENDPOINT_URL_S3: s3rver.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    // Powertools writes its log and EMF lines to stdout through a console of its own.
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const { handler } = await import("../../functions/audit.js");
      const { keys } = await handler({ since: DAY, until: DAY, tenant: "acme" });
      expect(keys).toEqual([`audits/acme/${DAY}.json`, `audits/acme/${DAY}.md`, `audits/acme/${DAY}.html`]);
      const lines = stdout.mock.calls.flatMap(([chunk]) =>
        String(chunk)
          .split("\n")
          .filter((text) => text.startsWith("{"))
          .map((text) => JSON.parse(text) as Record<string, unknown>),
      );
      const line = lines.find((l) => l.message === "audit written") ?? {};
      expect(line).toMatchObject({
        level: "INFO",
        message: "audit written",
        tenant: "acme",
        files: 5 + EXTRA,
      });
      const out = await s3.send(new GetObjectCommand({ Bucket: REPORTS, Key: keys[1] }));
      expect(await out.Body?.transformToString()).toContain("# Replay audit: 2026-11-26");
      // The metrics the stack's ReceiptsMissing alarm watches, under its namespace and dimension.
      const emf = stdout.mock.calls
        .map(([chunk]) => String(chunk))
        .filter((text) => text.includes('"_aws"'))
        .map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(emf).toContainEqual(
        expect.objectContaining({
          service: AUDIT_SERVICE,
          [AUDIT_METRIC.missingReceipts]: line.missing_receipts,
          [AUDIT_METRIC.failedChecks]: line.failed_checks,
          _aws: expect.objectContaining({
            CloudWatchMetrics: [
              expect.objectContaining({ Namespace: METRICS_NAMESPACE, Dimensions: [["service"]] }),
            ],
          }),
        }),
      );
    } finally {
      stdout.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it("runs as `replay-pipeline report --local` from .local/stack.json", async () => {
    const cwd = tempDir("report-local-");
    try {
      await mkdir(join(cwd, ".local"));
      await writeFile(
        join(cwd, ".local", "stack.json"),
        JSON.stringify({
          s3Endpoint: s3rver.endpoint,
          dynamoEndpoint: dynalite.endpoint,
          region: "us-east-1",
          ingestBucket: "ingest",
          publishedBucket: "published",
          reportsBucket: REPORTS,
          tableName: TABLE,
          indexShards: SHARDS,
        }),
      );
      const bin = resolve("bin/replay-pipeline.js");
      const args = [
        bin,
        "report",
        "--local",
        "--since",
        DAY,
        "--until",
        DAY,
        "--tenant",
        "globex",
        "--format",
        "json",
        "-o",
        "out.json",
      ];
      const code = await new Promise<number | null>((done) => {
        const child = spawn(process.execPath, args, { cwd, stdio: "inherit" });
        child.on("close", done);
      });
      expect(code).toBe(0);
      const report = JSON.parse(await readFile(join(cwd, "out.json"), "utf8")) as AuditReport;
      expect(report.period).toEqual({ since: DAY, until: DAY });
      expect(report.tenant).toBe("globex");
      expect(report.totals.verdicts).toEqual({ passed: 0, unverifiable: 1, failed: 0, invalid: 1 });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
