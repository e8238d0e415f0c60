/**
 * The local web UI `npm start` serves on 127.0.0.1: read-only pages over the local stack. Sessions
 * come from the day index (its queries, never a Scan); a file's viewer page and a diff are built
 * from a file's published Layer C copy, or from its original's outline (hashes, names, no content)
 * when it has none: an original is unredacted, so its content is never shown. Only GET and HEAD; anything else, or a path or key that does not fit, is a 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, type S3Client } from "@aws-sdk/client-s3";
import { diffHtml, diffSessions } from "#shared/diff/index.js";
import type { FileRecord } from "#shared/pipeline/index.js";
import { parseObjectKey } from "#shared/pipeline/index.js";
import { type SessionView, viewerPage } from "#shared/view/index.js";
import type { DynamoSessionIndex } from "../../functions/adapters/dynamo-index.js";
import { InvalidCursorError } from "../../functions/adapters/errors.js";
import { copyView } from "../published-view.js";
import {
  auditsPage,
  esc,
  SESSIONS_PAGE_SIZE,
  type SessionsNav,
  type SessionsQuery,
  sessionPage,
  sessionsHref,
  sessionsPage,
  uiPage,
} from "./web-ui-pages.js";

/** The index reads the UI makes (a `DynamoSessionIndex`). */
export type UiIndex = Pick<
  DynamoSessionIndex,
  "queryDay" | "listTenants" | "listFiles" | "listChecks" | "shardCount"
>;

/** What the UI reads: the index, and objects of the published and reports buckets. */
export interface UiSource {
  index: UiIndex;
  /** An object's bytes, or null when there is none. */
  getObject(bucket: string, key: string): Promise<Uint8Array | null>;
  /** The keys under `prefix`. */
  listKeys(bucket: string, prefix: string): Promise<string[]>;
  ingestBucket: string;
  publishedBucket: string;
  reportsBucket: string;
  /** Today, UTC yyyy-mm-dd: the sessions list's default day. */
  today(): string;
}

/** A response of the UI. */
export interface UiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The UI's own pages: no script, nothing loaded from anywhere. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** The viewer's page runs its inline script; it still loads nothing. */
const VIEWER_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const VERDICT = /^(?:passed|failed|unverifiable|invalid)$/;
/** An audit's HTML key (`auditKeyBase`): `audits/<label>.html` or `audits/<tenant>/<label>.html`. */
const AUDIT_KEY =
  /^audits\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\/)?[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\.html$/;

function html(status: number, body: string, csp = PAGE_CSP): UiResponse {
  return {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
    body,
  };
}

function notFound(why: string): UiResponse {
  return html(404, uiPage("Not found", `<p>${esc(why)}</p>`));
}

/** A name or a yyyy-mm-dd day from the query, or null when absent or not one. */
function param(params: URLSearchParams, name: string, pattern: RegExp): string | null {
  const value = params.get(name);
  return value !== null && pattern.test(value) ? value : null;
}

/** The path's segments after `prefix`, percent-decoded; null when one does not decode. */
function segments(path: string, prefix: string): string[] | null {
  try {
    return path.slice(prefix.length).split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** Answers one request of the UI (`target`: the request's path and query). */
export async function handleUi(source: UiSource, method: string, target: string): Promise<UiResponse> {
  if (method !== "GET" && method !== "HEAD") {
    const response = notFound(`${method} is not served: this UI is read-only`);
    return { ...response, headers: { ...response.headers, allow: "GET, HEAD" } };
  }
  let url: URL;
  try {
    url = new URL(target, "http://ui.invalid");
  } catch {
    return notFound("not a path of this UI");
  }
  const path = url.pathname;
  if (path === "/") return sessions(source, url.searchParams);
  if (path === "/audits") return html(200, auditsPage(await auditKeys(source)));
  if (path.startsWith("/audits/")) return audit(source, segments(path, "/")?.join("/") ?? "");
  if (path.startsWith("/s/")) {
    const parts = segments(path, "/s/");
    const [tenant, session] = parts ?? [];
    if (
      parts?.length !== 2 ||
      tenant === undefined ||
      session === undefined ||
      !isName(tenant) ||
      !isName(session)
    )
      return notFound("expected /s/<tenant>/<session>");
    const files = await source.index.listFiles(tenant, session);
    if (files.length === 0) return notFound(`no file recorded in ${tenant}/${session}`);
    return html(200, sessionPage(tenant, session, files, await source.index.listChecks(tenant, session)));
  }
  if (path.startsWith("/v/")) {
    const key = segments(path, "/v/")?.join("/") ?? "";
    const view = await fileView(source, key);
    if ("missing" in view) return notFound(view.missing);
    const note = `<p class="muted" id="source" style="overflow-wrap:anywhere">Built from ${esc(view.source)}. <a href="/">sessions</a></p>`;
    return html(200, viewerPage(view.view).replace("<main>", `<main>${note}`), VIEWER_CSP);
  }
  if (path === "/d") {
    const a = await fileView(source, url.searchParams.get("a") ?? "");
    if ("missing" in a) return notFound(`a: ${a.missing}`);
    const b = await fileView(source, url.searchParams.get("b") ?? "");
    if ("missing" in b) return notFound(`b: ${b.missing}`);
    const note = `<p class="muted" id="source" style="overflow-wrap:anywhere">a: built from ${esc(a.source)}.<br>b: built from ${esc(b.source)}. <a href="/">sessions</a></p>`;
    return html(200, diffHtml(diffSessions(a.view, b.view)).replace("<main>", `<main>${note}`));
  }
  return notFound("not a path of this UI");
}

function isName(value: string): boolean {
  return NAME.test(value) && value !== "." && value !== "..";
}

/** The largest page `size=` may ask for. */
const MAX_PAGE = 500;
/** Index queries one page may make before it ends short (a filter that matches little). */
const MAX_QUERIES = 40;
/** A page's start in `back=`: the first page, which has no cursor. */
const FIRST = "~";

/**
 * Where a page of the sessions list starts: a tenant, a shard of its day index, and the index's
 * own cursor (DynamoDB's LastEvaluatedKey, sealed by `queryDay`) in that shard, null at its start.
 */
interface PageStart {
  tenant: string;
  shard: number;
  cursor: string | null;
}

function encodeStart(start: PageStart): string {
  return Buffer.from(JSON.stringify([start.tenant, start.shard, start.cursor]), "utf8").toString("base64url");
}

/** The start a link carries, or null when it is not one (edited, or of another tenant list). */
function decodeStart(token: string, tenants: readonly string[], shards: number): PageStart | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [tenant, shard, cursor] = value as unknown[];
    if (typeof tenant !== "string" || !tenants.includes(tenant)) return null;
    if (typeof shard !== "number" || !Number.isInteger(shard) || shard < 0 || shard >= shards) return null;
    if (cursor !== null && typeof cursor !== "string") return null;
    return { tenant, shard, cursor };
  } catch {
    return null;
  }
}

/**
 * The sessions list, a page at a time: the day's file records of the tenants shown, tenant by
 * tenant and shard by shard, each shard read with `queryDay` (DynamoDB Query with `Limit` and
 * `ExclusiveStartKey`) from where the page before stopped. A page holds at most `size` records
 * that pass the verdict filter; the filter is applied to what each query returns, and each query
 * asks for no more than the page still has room for, so the index's cursor after the last query
 * is exactly where the next page begins. `back=` carries the starts of the pages before, so
 * "previous" needs no backward query.
 */
async function sessions(source: UiSource, params: URLSearchParams): Promise<UiResponse> {
  const size = Number(param(params, "size", /^[1-9]\d{0,2}$/) ?? SESSIONS_PAGE_SIZE);
  const q: SessionsQuery = {
    day: param(params, "day", DAY) ?? source.today(),
    tenant: param(params, "tenant", NAME),
    verdict: param(params, "verdict", VERDICT),
    size: Math.min(size, MAX_PAGE),
  };
  const tenants = await source.index.listTenants(q.day);
  const shown = q.tenant === null ? tenants : [q.tenant];
  const shards = source.index.shardCount;
  const token = params.get("c");
  const back = (params.get("back") ?? "").split(".").filter((t) => t !== "");
  const start =
    token === null ? { tenant: shown[0] ?? "", shard: 0, cursor: null } : decodeStart(token, shown, shards);
  if (start === null || back.some((t) => t !== FIRST && decodeStart(t, shown, shards) === null))
    return stalePage(q);
  const records: FileRecord[] = [];
  let at: PageStart | null = shown.length === 0 ? null : start;
  for (let queries = 0; at !== null && records.length < q.size && queries < MAX_QUERIES; queries++) {
    let page: Awaited<ReturnType<UiIndex["queryDay"]>>;
    try {
      page = await source.index.queryDay(at.tenant, q.day, at.shard, at.cursor, q.size - records.length);
    } catch (error) {
      // A cursor sealed by an earlier run of the stack (its key is per process): start over.
      if (error instanceof InvalidCursorError) return stalePage(q);
      throw error;
    }
    records.push(...page.records.filter((r) => q.verdict === null || r.verdict === q.verdict));
    at = page.cursor !== null ? { ...at, cursor: page.cursor } : nextPartition(at, shown, shards);
  }
  const here = token ?? FIRST;
  const nav: SessionsNav = {
    page: back.length + 1,
    prev: back.length === 0 ? null : pageHref(q, back.at(-1) ?? FIRST, back.slice(0, -1)),
    next: at === null ? null : pageHref(q, encodeStart(at), [...back, here]),
  };
  return html(200, sessionsPage(q, tenants, records, nav));
}

/** The partition after `at`'s: the next shard, else the next tenant's first; null after the last. */
function nextPartition(at: PageStart, tenants: readonly string[], shards: number): PageStart | null {
  if (at.shard + 1 < shards) return { tenant: at.tenant, shard: at.shard + 1, cursor: null };
  const next = tenants[tenants.indexOf(at.tenant) + 1];
  return next === undefined ? null : { tenant: next, shard: 0, cursor: null };
}

/** The link to the page starting at `token` (`FIRST`: the first), with the starts before it. */
function pageHref(q: SessionsQuery, token: string, back: string[]): string {
  const base = sessionsHref(q);
  if (token === FIRST) return base;
  return `${base}&c=${token}${back.length === 0 ? "" : `&back=${back.join(".")}`}`;
}

function stalePage(q: SessionsQuery): UiResponse {
  return html(
    400,
    uiPage(
      "Page link expired",
      `<p>This page link is not one this UI made, or the stack was restarted since (its index cursors hold for one run). <a href="${esc(sessionsHref(q))}">Start from the first page</a>.</p>`,
    ),
  );
}

/**
 * The view of `key`: its published copy's, or, when it has none, its original's outline (names,
 * ids, statuses and hashes, scrubbed, every step's text dropped): what a copy keeps, none of the
 * original's content. `source` says which.
 */
async function fileView(
  source: UiSource,
  key: string,
): Promise<{ view: SessionView; source: string } | { missing: string }> {
  const parsed = parseObjectKey(key);
  if (!parsed.ok) return { missing: `not a file key: ${parsed.problem.message}` };
  const { tenant, session } = parsed.key;
  const record = (await source.index.listFiles(tenant, session)).find((f) => f.ref.key === key);
  if (record === undefined) return { missing: `no file ${key} recorded` };
  if (record.kind !== "replay") return { missing: `${key} is a ${record.kind}, not a replay` };
  const checks = await source.index.listChecks(tenant, session);
  const copyKey = record.layer_c_key;
  const bytes = await source.getObject(
    copyKey === null ? source.ingestBucket : source.publishedBucket,
    copyKey ?? key,
  );
  if (bytes === null)
    return { missing: `the ${copyKey === null ? "original" : "published copy"} of ${key} is gone` };
  const body = (async function* () {
    yield bytes;
  })();
  if (copyKey !== null) {
    const view = await copyView(copyKey, key, body, checks, {});
    return { view, source: `the published Layer C copy s3://${source.publishedBucket}/${copyKey}` };
  }
  const view = await copyView(key, key, body, checks, {});
  for (const step of view.steps) step.text = null;
  return {
    view,
    source: `the original s3://${source.ingestBucket}/${key}, which has no published copy (verdict ${record.verdict}): its outline only (names, ids, statuses, hashes; scrubbed), none of its content`,
  };
}

async function auditKeys(source: UiSource): Promise<string[]> {
  return (await source.listKeys(source.reportsBucket, "audits/")).filter((key) => AUDIT_KEY.test(key));
}

async function audit(source: UiSource, key: string): Promise<UiResponse> {
  if (!AUDIT_KEY.test(key) || key.split("/").includes("..")) return notFound("not an audit report's key");
  const bytes = await source.getObject(source.reportsBucket, key);
  if (bytes === null) return notFound(`no audit report ${key}`);
  return html(200, new TextDecoder().decode(bytes));
}

/** The UI's reads from the local stack's clients. */
export function stackSource(
  s3: S3Client,
  index: UiIndex,
  buckets: { ingestBucket: string; publishedBucket: string; reportsBucket: string },
): UiSource {
  return {
    index,
    ingestBucket: buckets.ingestBucket,
    publishedBucket: buckets.publishedBucket,
    reportsBucket: buckets.reportsBucket,
    today: () => new Date().toISOString().slice(0, 10),
    async getObject(bucket, key) {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return out.Body === undefined ? null : await out.Body.transformToByteArray();
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },
    async listKeys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const item of page.Contents ?? []) if (item.Key !== undefined) keys.push(item.Key);
        token = page.NextContinuationToken;
      } while (token !== undefined);
      return keys;
    },
  };
}

/** A running web UI. */
export interface WebUi {
  url: string;
  close(): Promise<void>;
}

/** Serves the UI over `source` on `host`:`port` (0: a free port). */
export async function startWebUi(
  source: UiSource,
  options: { host?: string; port?: number },
): Promise<WebUi> {
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    handleUi(source, request.method ?? "GET", request.url ?? "/")
      .catch((error: unknown) =>
        html(500, uiPage("Error", `<p>${esc(error instanceof Error ? error.message : String(error))}</p>`)),
      )
      .then((answer) => {
        response.writeHead(answer.status, answer.headers);
        response.end(request.method === "HEAD" ? undefined : answer.body);
      });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
