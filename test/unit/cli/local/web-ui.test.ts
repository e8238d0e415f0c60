/**
 * The web UI's router and handlers over memory data: what each path answers, filters, escaping,
 * refusals, and that an original with no published copy is shown as an outline only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { handleUi, type UiIndex, type UiSource } from "../../../../cli/local/web-ui.js";
import type { FileRecord } from "../../../../shared/pipeline/ports.js";
import { PROJECT_ROOT } from "../../../support/corpus.js";
import { fileRecord } from "../../../support/index-records.js";

const DAY = "2026-11-26";
const FIX = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));
const TRACE = readFileSync(join(PROJECT_ROOT, "examples", "support-chat.trace.jsonl"));

function memorySource(
  records: FileRecord[],
  objects: Record<string, Uint8Array>,
): UiSource & { queries: string[] } {
  const queries: string[] = [];
  const index: UiIndex = {
    shardCount: 2,
    listTenants: async (day) =>
      [...new Set(records.filter((r) => r.processed_at.startsWith(day)).map((r) => r.tenant))].sort(),
    queryDay: async (tenant, day, shard) => {
      queries.push(`${tenant} ${day} ${shard}`);
      // Every record in shard 0: the handler must still ask each shard.
      const records_ =
        shard === 0 ? records.filter((r) => r.tenant === tenant && r.processed_at.startsWith(day)) : [];
      return { records: records_, cursor: null };
    },
    listFiles: async (tenant, session) => records.filter((r) => r.tenant === tenant && r.session === session),
    listChecks: async () => [],
  };
  return {
    queries,
    index,
    ingestBucket: "ingest",
    publishedBucket: "published",
    reportsBucket: "reports",
    today: () => DAY,
    getObject: async (bucket, key) => objects[`${bucket}/${key}`] ?? null,
    listKeys: async (bucket, prefix) =>
      Object.keys(objects)
        .filter((k) => k.startsWith(`${bucket}/${prefix}`))
        .map((k) => k.slice(bucket.length + 1)),
  };
}

const copied = fileRecord("t1", "s1", "fix.REPLAY.jsonl");
const failed = {
  ...fileRecord("t1", "s2", "chat.trace.jsonl"),
  verdict: "failed" as const,
  layer_c_key: null,
};
const hostile = {
  ...fileRecord("t2", "s3", "<img src=x onerror=alert(1)>.jsonl"),
  verdict: "invalid" as const,
};
const source = memorySource([copied, failed, hostile], {
  [`published/${copied.layer_c_key}`]: FIX,
  "ingest/t1/s2/chat.trace.jsonl": TRACE,
  "reports/audits/2026-11-26.html": new TextEncoder().encode("<!doctype html><title>audit</title>"),
  "reports/audits/2026-11-26.json": new TextEncoder().encode("{}"),
});

describe("web UI handlers", () => {
  it("lists the day's sessions from every shard of every tenant, with filter links", async () => {
    const page = await handleUi(source, "GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(source.queries.sort()).toEqual([`t1 ${DAY} 0`, `t1 ${DAY} 1`, `t2 ${DAY} 0`, `t2 ${DAY} 1`]);
    expect(page.body).toContain('href="/s/t1/s1"');
    expect(page.body).toContain('href="/?day=2026-11-26&amp;tenant=t2"');
    expect(page.body).toContain('href="/?day=2026-11-26&amp;verdict=failed"');
    // A file name from the index is text, never markup.
    expect(page.body).not.toContain("<img");
    expect(page.body).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("filters by tenant and verdict; a malformed filter is ignored", async () => {
    const byVerdict = await handleUi(source, "GET", "/?verdict=failed");
    expect(byVerdict.body).toContain("/s/t1/s2");
    expect(byVerdict.body).not.toContain("/s/t1/s1");
    const byTenant = await handleUi(source, "GET", "/?tenant=t2&day=2026-11-26");
    expect(byTenant.body).toContain("/s/t2/s3");
    expect(byTenant.body).not.toContain("/s/t1/s1");
    const odd = await handleUi(source, "GET", "/?tenant=%3Cx%3E&verdict=nope");
    expect(odd.body).toContain("/s/t1/s1");
  });

  it("shows a session's files with a link to each viewer page", async () => {
    const page = await handleUi(source, "GET", "/s/t1/s1");
    expect(page.status).toBe(200);
    expect(page.body).toContain('href="/v/t1/s1/fix.REPLAY.jsonl">view copy');
  });

  it("builds the viewer from the published copy and says so", async () => {
    const page = await handleUi(source, "GET", "/v/t1/s1/fix.REPLAY.jsonl");
    expect(page.status).toBe(200);
    expect(page.body).toContain("the published Layer C copy s3://published/t1/s1/fix.REPLAY.jsonl.layer-c");
    expect(page.headers["content-security-policy"]).toContain("script-src 'unsafe-inline'");
  });

  it("shows an original with no copy as its outline, without its turns' text", async () => {
    const page = await handleUi(source, "GET", "/v/t1/s2/chat.trace.jsonl");
    expect(page.status).toBe(200);
    expect(page.body).toContain("which has no published copy (verdict failed): its outline only");
    const data = /<script type="application\/json" id="data">(.*?)<\/script>/s.exec(page.body)?.[1];
    const { steps } = JSON.parse(data ?? "null") as { steps: unknown[][] };
    expect(steps.length).toBeGreaterThan(0);
    // Each row's last cell is the step's text: none is shown.
    for (const row of steps) expect(row.at(-1)).toBeNull();
  });

  it("diffs two files", async () => {
    const page = await handleUi(source, "GET", "/d?a=t1/s1/fix.REPLAY.jsonl&b=t1/s1/fix.REPLAY.jsonl");
    expect(page.status).toBe(200);
    expect(page.body).toContain("Equal:");
  });

  it("lists and serves the audits' HTML only", async () => {
    const list = await handleUi(source, "GET", "/audits");
    expect(list.body).toContain('href="/audits/2026-11-26.html"');
    expect(list.body).not.toContain("2026-11-26.json");
    expect((await handleUi(source, "GET", "/audits/2026-11-26.html")).body).toContain("<title>audit</title>");
    expect((await handleUi(source, "GET", "/audits/2026-11-26.json")).status).toBe(404);
  });

  it("answers 404 to other methods, paths, and keys that do not fit", async () => {
    expect((await handleUi(source, "POST", "/")).status).toBe(404);
    expect((await handleUi(source, "DELETE", "/s/t1/s1")).headers.allow).toBe("GET, HEAD");
    for (const path of [
      "/v/t1/s1/..%2F..%2Fsecret",
      "/v/t1/%2E%2E/fix.REPLAY.jsonl",
      "/v/t1/s1",
      "/v/t1/s1/%E0%A4%A",
      "/s/t1",
      "/s/t1/s1/x",
      "/audits/../results/x.html",
      "/d?a=t1/s1/fix.REPLAY.jsonl&b=..%2Fx",
      "/elsewhere",
    ])
      expect((await handleUi(source, "GET", path)).status, path).toBe(404);
  });
});
