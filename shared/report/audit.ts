/**
 * The audit report: what the index recorded over a period, in one JSON document that the markdown
 * and HTML renderers print. Pure: records in, report out; fetching them is the caller's business.
 */
import type { CheckRow, Verdict } from "../formats/index.js";
import type { FileRecord, ReceiptCheckRecord } from "../pipeline/index.js";
import type { Scrubber } from "../redact/index.js";
import { scrubReport } from "../redact/index.js";

/** The verdicts, in the order reports show them. */
export const VERDICTS: readonly Verdict[] = ["passed", "unverifiable", "failed", "invalid"];

/** Everything a report is built from. */
export interface AuditInput {
  /** First and last UTC day of the period (yyyy-mm-dd), both included. */
  since: string;
  until: string;
  /** The one tenant audited, or null for all. */
  tenant: string | null;
  /** ISO-8601 time the report is made: receipt ages are measured to it. */
  generatedAt: string;
  /** A replay without a receipt this many hours after processing is reported. */
  receiptAgeHours: number;
  /** File records processed in the period. */
  files: FileRecord[];
  /** Receipt checks recorded in the period. */
  checks: ReceiptCheckRecord[];
  /** Failed rows of a failed file's own checks, by object key (from its verdict document). */
  fileFailures: Record<string, CheckRow[]>;
  /** `<tenant>/<session>` of every session known to have a receipt, in the period or after. */
  sessionsWithReceipt: string[];
  /** Verdict counts per UTC day, oldest first (the chart of the last 30 days). */
  history: DayVerdicts[];
}

/** Files per verdict on one day. */
export interface DayVerdicts {
  day: string;
  verdicts: Record<Verdict, number>;
}

/** A sample's spread: null members when it is empty. */
export interface Distribution {
  count: number;
  min: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** A session the report's rows point to (`#<anchor>`), with its files. */
interface SessionEntry {
  anchor: string;
  tenant: string;
  session: string;
  files: { key: string; kind: string; format: string | null; verdict: Verdict; processed_at: string }[];
}

/** The audit report (`audits/<date>.json`); every string from the input has passed the scrubber. */
export interface AuditReport {
  schema: "replay-pipeline.audit.v1";
  generated_at: string;
  period: { since: string; until: string };
  tenant: string | null;
  receipt_age_hours: number;
  totals: { files: number; sessions: number; tenants: number; verdicts: Record<Verdict, number> };
  /** Files per tenant, format and verdict. */
  counts: { tenant: string; format: string; verdict: Verdict; files: number }[];
  /** Every failed row: a file's own checks and its checks against receipts. */
  failed_checks: {
    anchor: string;
    tenant: string;
    session: string;
    key: string;
    source: "file" | "receipt";
    check: string;
    subject: string;
    expected: string | null;
    actual: string | null;
  }[];
  failures_by_check: { check: string; count: number }[];
  invalid_files: {
    anchor: string;
    tenant: string;
    session: string;
    key: string;
    code: string | null;
    message: string | null;
    line: number | null;
  }[];
  /** Replays whose session has no receipt `receipt_age_hours` after they were processed. */
  missing_receipts: { anchor: string; tenant: string; session: string; key: string; age_hours: number }[];
  /** Published copies withdrawn after a receipt check failed. */
  withdrawn: {
    anchor: string;
    tenant: string;
    session: string;
    replay: string;
    receipt: string;
    copy: string;
  }[];
  redactions: { rule: string; count: number }[];
  /** Files per tool version and rules digest that made them (null: made before provenance was kept). */
  rules: { tool_version: string | null; rules_digest: string | null; files: number }[];
  latency_ms: Distribution;
  step_utility: Distribution;
  history: DayVerdicts[];
  sessions: SessionEntry[];
}

/** Files per verdict, all zero. */
export function zeroVerdicts(): Record<Verdict, number> {
  return { passed: 0, unverifiable: 0, failed: 0, invalid: 0 };
}

/**
 * Builds the report of `input`, then scrubs every string in it (`scrubber` defaults to a fresh
 * `private_repo` one), so nothing stored or printed repeats a secret the index held.
 */
export function buildAuditReport(input: AuditInput, scrubber?: Scrubber): AuditReport {
  const files = [...input.files].sort(byTime);
  const anchors = new SessionAnchors();
  const anchor = (tenant: string, session: string) => anchors.of(tenant, session);
  const { totals, counts, rules } = tally(files);
  const checks = [...input.checks].sort((a, b) => a.processed_at.localeCompare(b.processed_at));
  // Anchors are numbered as sessions are first named, so the sections below run in page order.
  const failed = failedChecks(files, input.fileFailures, checks, anchor);
  const invalid = files
    .filter((f) => f.verdict === "invalid")
    .map((f) => ({
      anchor: anchor(f.tenant, f.session),
      tenant: f.tenant,
      session: f.session,
      key: f.ref.key,
      code: f.first_error?.code ?? null,
      message: f.first_error?.message ?? null,
      line: f.first_error?.line ?? null,
    }));
  const missing = missingReceipts(files, input, anchor);
  const withdrawn = checks
    .filter((c) => c.withdrawn !== null)
    .map((c) => ({
      anchor: anchor(c.tenant, c.session),
      tenant: c.tenant,
      session: c.session,
      replay: c.replay.key,
      receipt: c.receipt.key,
      copy: c.withdrawn as string,
    }));

  const redactions = new Map<string, number>();
  for (const f of files)
    for (const [rule, n] of Object.entries(f.redactions ?? {}))
      redactions.set(rule, (redactions.get(rule) ?? 0) + n);

  const report: AuditReport = {
    schema: "replay-pipeline.audit.v1",
    generated_at: input.generatedAt,
    period: { since: input.since, until: input.until },
    tenant: input.tenant,
    receipt_age_hours: input.receiptAgeHours,
    totals: {
      files: files.length,
      sessions: new Set(files.map((f) => `${f.tenant}/${f.session}`)).size,
      tenants: new Set(files.map((f) => f.tenant)).size,
      verdicts: totals,
    },
    counts,
    failed_checks: failed,
    failures_by_check: ranked(failed.map((r) => [r.check, 1])).map(([check, count]) => ({ check, count })),
    invalid_files: invalid,
    missing_receipts: missing,
    withdrawn,
    redactions: ranked([...redactions]).map(([rule, count]) => ({ rule, count })),
    rules,
    latency_ms: distribution(files.map((f) => f.ms)),
    step_utility: distribution(
      files.flatMap((f) =>
        typeof f.summary?.mean_step_utility === "number" ? [f.summary.mean_step_utility] : [],
      ),
    ),
    history: input.history,
    sessions: anchors.sessions(files),
  };
  return scrubReport(report, scrubber);
}

/** Names each session `session-N` in the order the report first mentions it, for links within the page. */
class SessionAnchors {
  private readonly names = new Map<string, string>();

  /** The anchor of `tenant`/`session`, named now if this is its first mention. */
  of(tenant: string, session: string): string {
    const id = `${tenant}/${session}`;
    let name = this.names.get(id);
    if (name === undefined) {
      name = `session-${this.names.size + 1}`;
      this.names.set(id, name);
    }
    return name;
  }

  /** Every named session with its files, in anchor order. */
  sessions(files: readonly FileRecord[]): SessionEntry[] {
    return [...this.names].map(([id, name]) => {
      const [tenant = "", session = ""] = id.split("/");
      return {
        anchor: name,
        tenant,
        session,
        files: files
          .filter((f) => f.tenant === tenant && f.session === session)
          .map((f) => ({
            key: f.ref.key,
            kind: f.kind,
            format: f.format,
            verdict: f.verdict,
            processed_at: f.processed_at,
          })),
      };
    });
  }
}

type Anchor = (tenant: string, session: string) => string;

/** Files per verdict, per tenant, format and verdict, and per tool version and rules digest. */
function tally(files: readonly FileRecord[]): Pick<AuditReport, "counts" | "rules"> & {
  totals: Record<Verdict, number>;
} {
  const totals = zeroVerdicts();
  const counts = new Map<string, AuditReport["counts"][number]>();
  const rules = new Map<string, AuditReport["rules"][number]>();
  for (const f of files) {
    const made = {
      tool_version: f.provenance?.tool_version ?? null,
      rules_digest: f.provenance?.rules_digest ?? null,
    };
    const rulesId = JSON.stringify(made);
    rules.set(rulesId, { ...made, files: (rules.get(rulesId)?.files ?? 0) + 1 });
    totals[f.verdict]++;
    const format = f.format ?? (f.kind === "replay" ? "unknown" : f.kind);
    const id = JSON.stringify([f.tenant, format, f.verdict]);
    const row = counts.get(id) ?? { tenant: f.tenant, format, verdict: f.verdict, files: 0 };
    row.files++;
    counts.set(id, row);
  }
  return {
    totals,
    counts: [...counts.values()].sort(
      (a, b) =>
        a.tenant.localeCompare(b.tenant) ||
        a.format.localeCompare(b.format) ||
        VERDICTS.indexOf(a.verdict) - VERDICTS.indexOf(b.verdict),
    ),
    rules: [...rules.values()].sort((a, b) => b.files - a.files),
  };
}

/** The failed rows of every file's own checks, then of every receipt check. */
function failedChecks(
  files: readonly FileRecord[],
  fileFailures: AuditInput["fileFailures"],
  checks: readonly ReceiptCheckRecord[],
  anchor: Anchor,
): AuditReport["failed_checks"] {
  const failed: AuditReport["failed_checks"] = [];
  for (const f of files) {
    for (const row of fileFailures[f.ref.key] ?? [])
      failed.push({
        ...failedRow(f.tenant, f.session, f.ref.key, "file", row),
        anchor: anchor(f.tenant, f.session),
      });
  }
  for (const c of checks)
    for (const row of c.failed)
      failed.push({
        ...failedRow(c.tenant, c.session, c.replay.key, "receipt", row),
        anchor: anchor(c.tenant, c.session),
      });
  return failed;
}

/** Valid replays whose session has no receipt `input.receiptAgeHours` after they were processed. */
function missingReceipts(
  files: readonly FileRecord[],
  input: AuditInput,
  anchor: Anchor,
): AuditReport["missing_receipts"] {
  const now = Date.parse(input.generatedAt);
  const receipted = new Set(input.sessionsWithReceipt);
  return files
    .filter(
      (f) => f.kind === "replay" && f.verdict !== "invalid" && !receipted.has(`${f.tenant}/${f.session}`),
    )
    .map((f) => ({ f, age: (now - Date.parse(f.processed_at)) / 3_600_000 }))
    .filter(({ age }) => age >= input.receiptAgeHours)
    .map(({ f, age }) => ({
      anchor: anchor(f.tenant, f.session),
      tenant: f.tenant,
      session: f.session,
      key: f.ref.key,
      age_hours: Math.floor(age),
    }));
}

/** The report's period (`D`, or `D1 to D2`) and scope (`all tenants`, `tenant T`), as titles say them. */
export function reportScope(report: Pick<AuditReport, "period" | "tenant">): {
  period: string;
  scope: string;
} {
  const { since, until } = report.period;
  return {
    period: since === until ? since : `${since} to ${until}`,
    scope: report.tenant === null ? "all tenants" : `tenant ${report.tenant}`,
  };
}

/** Nearest-rank percentiles, min, max and mean of `values`. */
export function distribution(values: number[]): Distribution {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const n = sorted.length;
  const rank = (p: number): number | null =>
    n === 0 ? null : (sorted[Math.max(0, Math.ceil(p * n) - 1)] ?? null);
  return {
    count: n,
    min: sorted[0] ?? null,
    p50: rank(0.5),
    p90: rank(0.9),
    p99: rank(0.99),
    max: sorted[n - 1] ?? null,
    mean: n === 0 ? null : sorted.reduce((sum, v) => sum + v, 0) / n,
  };
}

function failedRow(tenant: string, session: string, key: string, source: "file" | "receipt", row: CheckRow) {
  return {
    tenant,
    session,
    key,
    source,
    check: row.check,
    subject: row.subject,
    expected: row.expected,
    actual: row.actual,
  };
}

/** Sums per name, largest first, then by name. */
function ranked(entries: Iterable<[string, number]>): [string, number][] {
  const sums = new Map<string, number>();
  for (const [name, n] of entries) sums.set(name, (sums.get(name) ?? 0) + n);
  return [...sums].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function byTime(a: FileRecord, b: FileRecord): number {
  return a.processed_at.localeCompare(b.processed_at) || a.ref.key.localeCompare(b.ref.key);
}
