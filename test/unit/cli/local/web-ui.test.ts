/**
 * The web UI's router and handlers over memory data: what each path answers, filters, escaping,
 * refusals, and that an original with no published copy is shown as an outline only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { handleUi, type UiIndex, type UiSource } from "../../../../cli/local/web-ui.js";
import { InvalidCursorError } from "../../../../functions/adapters/errors.js";
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
    queryDay: async (tenant, day, shard, cursor, limit = 100) => {
      queries.push(`${tenant} ${day} ${shard}`);
      if (cursor === "sealed-by-another-run") throw new InvalidCursorError();
      // Shards by the session's last digit, as many as there are: the handler must ask each.
      const all = records.filter(
        (r) =>
          r.tenant === tenant && r.processed_at.startsWith(day) && Number(r.session.at(-1)) % 2 === shard,
      );
      // DynamoDB's Limit: at most `limit` items, and a cursor whenever it stopped at the limit.
      const from = cursor === null || cursor === undefined ? 0 : Number(cursor);
      const end = Math.min(all.length, from + limit);
      return { records: all.slice(from, end), cursor: end - from === limit ? String(end) : null };
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
    // Each row's ninth cell is the step's text (page.ts: `compact`): none is shown.
    for (const row of steps) expect(row[8]).toBeNull();
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

describe("the sessions list's pages", () => {
  // Nine sessions of t1 (one file each) over both shards, four of them failed.
  const many = Array.from({ length: 9 }, (_, n) => ({
    ...fileRecord("t1", `p${n}`, "r.REPLAY.jsonl"),
    verdict: n % 2 === 0 ? ("passed" as const) : ("failed" as const),
  }));
  const paged = memorySource(many, {});
  const sessionsOn = (body: string) => [...body.matchAll(/href="\/s\/t1\/(p\d)"/g)].map((m) => m[1]);
  const linkOf = (body: string, rel: string) =>
    new RegExp(`rel="${rel}" href="([^"]+)"`).exec(body)?.[1]?.replaceAll("&amp;", "&") ?? null;

  /** Every page from `first`, following "next". */
  async function walk(first: string): Promise<string[]> {
    const pages: string[] = [];
    for (let path: string | null = first; path !== null; ) {
      const page = await handleUi(paged, "GET", path);
      expect(page.status, path).toBe(200);
      pages.push(page.body);
      path = linkOf(page.body, "next");
      expect(pages.length).toBeLessThan(20);
    }
    return pages;
  }

  it("shows at most a page of files, and every session exactly once across the pages", async () => {
    const pages = await walk("/?size=4");
    const seen = pages.flatMap(sessionsOn);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const body of pages) expect(sessionsOn(body).length).toBeLessThanOrEqual(4);
    expect(seen.sort()).toEqual(many.map((r) => r.session).sort());
    expect(pages[0]).toContain("page 1");
    expect(pages[0]).not.toContain('rel="prev"');
    expect(pages.at(-1)).not.toContain('rel="next"');
  });

  it("goes back to the very page it came from", async () => {
    const first = await handleUi(paged, "GET", "/?size=4");
    const second = await handleUi(paged, "GET", linkOf(first.body, "next") ?? "");
    const third = await handleUi(paged, "GET", linkOf(second.body, "next") ?? "");
    expect(third.body).toContain("page 3");
    const back = await handleUi(paged, "GET", linkOf(third.body, "prev") ?? "");
    expect(sessionsOn(back.body)).toEqual(sessionsOn(second.body));
    const backAgain = await handleUi(paged, "GET", linkOf(back.body, "prev") ?? "");
    expect(sessionsOn(backAgain.body)).toEqual(sessionsOn(first.body));
    expect(linkOf(back.body, "prev")).toBe("/?day=2026-11-26&size=4");
  });

  it("pages through the filtered records, with the filter kept", async () => {
    const pages = await walk("/?size=2&verdict=failed");
    expect(pages.flatMap(sessionsOn).sort()).toEqual(["p1", "p3", "p5", "p7"]);
    expect(linkOf(pages[0] ?? "", "next")).toContain("verdict=failed");
  });

  it("answers a page link it did not make, or one of an earlier run, with a way back to the first page", async () => {
    for (const path of [
      "/?c=bm90LWpzb24",
      `/?c=${Buffer.from(JSON.stringify(["t9", 0, null])).toString("base64url")}`,
      `/?c=${Buffer.from(JSON.stringify(["t1", 7, null])).toString("base64url")}`,
      `/?c=${Buffer.from(JSON.stringify(["t1", 0, null])).toString("base64url")}&back=nope`,
      `/?c=${Buffer.from(JSON.stringify(["t1", 0, "sealed-by-another-run"])).toString("base64url")}`,
    ]) {
      const page = await handleUi(paged, "GET", path);
      expect(page.status, path).toBe(400);
      expect(page.body).toContain('href="/?day=2026-11-26"');
    }
  });
});
