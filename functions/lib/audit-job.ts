/**
 * One audit, the same for the scheduled function and `replay-pipeline report`: the period, the
 * reading (adapters), the pure report and its three renderings, and where they are stored.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { ReplayPipelineError } from "../../shared/errors.js";
import {
  type AuditReport,
  buildAuditReport,
  renderAuditHtml,
  renderAuditMarkdown,
} from "../../shared/report/index.js";
import {
  type AuditIndex,
  type AuditQuery,
  collectAuditInput,
  putReportDocument,
  type ReadDocument,
} from "../adapters/audit-source.js";

/** What an audit is asked for; absent days mean the previous UTC day. */
export interface AuditRequest {
  since?: string | null;
  until?: string | null;
  tenant?: string | null;
}

/** A report and its three renderings. */
export interface RenderedAudit {
  report: AuditReport;
  json: string;
  markdown: string;
  html: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TENANT = /^[A-Za-z0-9._-]{1,128}$/;
// A longer period is a bulk export, not an audit: each day costs a query per tenant and shard.
const MAX_DAYS = 92;

/** The period and tenant of `request`, checked; the default period is the UTC day before `now`. */
export function auditScope(
  request: AuditRequest,
  now: Date,
): { since: string; until: string; tenant: string | null } {
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  const until = request.until ?? (request.since ? now.toISOString().slice(0, 10) : yesterday);
  const since = request.since ?? (request.until ? until : yesterday);
  for (const [name, day] of [
    ["since", since],
    ["until", until],
  ] as const)
    if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))
      throw new ReplayPipelineError("audit.period", `${name}: expected a yyyy-mm-dd day, got '${day}'`);
  const days = (Date.parse(until) - Date.parse(since)) / 86_400_000 + 1;
  if (days < 1 || days > MAX_DAYS)
    throw new ReplayPipelineError(
      "audit.period",
      `the period ${since} to ${until} must run forwards and span at most ${MAX_DAYS} days`,
    );
  const tenant = request.tenant ?? null;
  if (tenant !== null && !TENANT.test(tenant))
    throw new ReplayPipelineError("audit.tenant", `tenant: expected [A-Za-z0-9._-]{1,128}, got '${tenant}'`);
  return { since, until, tenant };
}

/** Reads, builds and renders the audit of `query`. */
export async function runAudit(
  index: AuditIndex,
  readDocument: ReadDocument,
  query: AuditQuery,
): Promise<RenderedAudit> {
  const report = buildAuditReport(await collectAuditInput(index, readDocument, query));
  return {
    report,
    json: `${JSON.stringify(report, null, 2)}\n`,
    markdown: renderAuditMarkdown(report),
    html: renderAuditHtml(report),
  };
}

/**
 * Where a report is stored: `audits/<date>.{json,md,html}` for all tenants and one day,
 * `audits/<since>_<until>.…` for a longer period, under `audits/<tenant>/` for one tenant.
 */
export function auditKeyBase(report: Pick<AuditReport, "period" | "tenant">): string {
  const { since, until } = report.period;
  const label = since === until ? since : `${since}_${until}`;
  return report.tenant === null ? `audits/${label}` : `audits/${report.tenant}/${label}`;
}

/** Writes the three renderings to the reports bucket; returns their keys. */
export async function storeAudit(s3: S3Client, bucket: string, audit: RenderedAudit): Promise<string[]> {
  const base = auditKeyBase(audit.report);
  const documents: [string, string, string][] = [
    [`${base}.json`, audit.json, "application/json"],
    [`${base}.md`, audit.markdown, "text/markdown; charset=utf-8"],
    [`${base}.html`, audit.html, "text/html; charset=utf-8"],
  ];
  await Promise.all(documents.map(([key, body, type]) => putReportDocument(s3, bucket, key, body, type)));
  return documents.map(([key]) => key);
}
