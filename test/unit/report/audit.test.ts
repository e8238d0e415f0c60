import { describe, expect, it } from "vitest";
import { distribution } from "../../../shared/report/audit.js";
import { buildAuditReport, renderAuditHtml, renderAuditMarkdown } from "../../../shared/report/index.js";
import { OWN_FAILURES, PLANTED_SECRET, seededInput } from "../../support/audit-records.js";

describe("buildAuditReport", () => {
  const report = buildAuditReport(seededInput());

  it("counts files per tenant, format and verdict", () => {
    expect(report.totals).toEqual({
      files: 7,
      sessions: 6,
      tenants: 2,
      verdicts: { passed: 3, unverifiable: 1, failed: 1, invalid: 2 },
    });
    expect(report.counts).toEqual([
      { tenant: "acme", format: "receipt", verdict: "passed", files: 1 },
      { tenant: "acme", format: "replay-dsrs", verdict: "passed", files: 1 },
      { tenant: "acme", format: "replay-v1", verdict: "passed", files: 1 },
      { tenant: "acme", format: "replay-v1", verdict: "failed", files: 1 },
      { tenant: "acme", format: "replay-v1", verdict: "invalid", files: 1 },
      { tenant: "globex", format: "rejected", verdict: "invalid", files: 1 },
      { tenant: "globex", format: "replay-v1", verdict: "unverifiable", files: 1 },
    ]);
  });

  it("lists every failed check with its session, subject, expected and actual, and links each to its session", () => {
    expect(
      report.failed_checks.map((r) => [r.session, r.source, r.check, r.subject, r.expected, r.actual]),
    ).toEqual([
      ...OWN_FAILURES.map((r) => ["s2", "file", r.check, r.subject, r.expected, r.actual]),
      ["s3", "receipt", "output_hash", "step 1", "a", "b"],
    ]);
    expect(report.failures_by_check).toEqual([
      { check: "output_hash", count: 1 },
      { check: "params_hash", count: 1 },
      { check: "replay_hash", count: 1 },
    ]);
    const anchors = new Map(report.sessions.map((s) => [s.anchor, `${s.tenant}/${s.session}`]));
    for (const row of report.failed_checks)
      expect(anchors.get(row.anchor)).toBe(`${row.tenant}/${row.session}`);
  });

  it("lists invalid files with their first error, missing receipts past their age, and withdrawn copies", () => {
    expect(report.invalid_files.map((r) => [r.key, r.code, r.line])).toEqual([
      ["acme/s4/R.jsonl", "json.syntax", 7],
      ["globex/bad/x y", "key.invalid", null],
    ]);
    // globex/g1 is 2 hours old (under 6), acme/s1 has its receipt, acme/s4 is invalid.
    expect(report.missing_receipts.map((r) => [r.key, r.age_hours])).toEqual([
      ["acme/s2/R.jsonl", 21],
      ["acme/s3/R.json", 20],
    ]);
    expect(report.withdrawn).toEqual([
      expect.objectContaining({
        session: "s3",
        receipt: "acme/s3/RECEIPT.json",
        copy: "acme/s3/R.json.layer-c",
      }),
    ]);
  });

  it("counts files per rules that made them, and names them in markdown and html", () => {
    const input = seededInput();
    const made = { tool_version: "2.0.0", rules_digest: `sha256:${"a".repeat(64)}` };
    input.files = input.files.map((f, i) => (i < 2 ? { ...f, provenance: made } : f));
    const r = buildAuditReport(input);
    expect(r.rules).toEqual([
      { tool_version: null, rules_digest: null, files: input.files.length - 2 },
      { ...made, files: 2 },
    ]);
    expect(renderAuditMarkdown(r)).toContain(`| 2.0.0 | ${made.rules_digest} | 2 |`);
    expect(renderAuditHtml(r)).toContain(made.rules_digest);
  });

  it("sums redactions by rule and spreads latency and step utility", () => {
    // aws-key: 2 in acme/s1 and globex/g1 each (the support default), 1 in acme/s3.
    expect(report.redactions).toEqual([
      { rule: "aws-key", count: 5 },
      { rule: "email", count: 4 },
    ]);
    expect(report.latency_ms).toEqual({
      count: 7,
      min: 1,
      p50: 20,
      p90: 50,
      p99: 50,
      max: 50,
      mean: 156 / 7,
    });
    expect(report.step_utility).toMatchObject({ count: 3, min: 0.25, p50: 0.5, max: 1 });
  });

  it("passes every string from the input through the scrubber", () => {
    const json = JSON.stringify(seededInput());
    expect(json).toContain(PLANTED_SECRET);
    const out = JSON.stringify(report);
    expect(out).not.toContain(PLANTED_SECRET);
    expect(report.invalid_files[0]?.message).toMatch(/^bad token near \S*REDACTED/i);
    expect(renderAuditMarkdown(report)).not.toContain(PLANTED_SECRET);
    expect(renderAuditHtml(report)).not.toContain(PLANTED_SECRET);
  });

  it("reports an empty period as zeros and nulls", () => {
    const empty = buildAuditReport({
      ...seededInput(),
      files: [],
      checks: [],
      fileFailures: {},
      history: [],
    });
    expect(empty.totals.files).toBe(0);
    expect(empty.latency_ms).toEqual({
      count: 0,
      min: null,
      p50: null,
      p90: null,
      p99: null,
      max: null,
      mean: null,
    });
    expect(renderAuditHtml(empty)).toContain("No failed checks.");
    expect(renderAuditMarkdown(empty)).toContain("_No failed checks._");
  });
});

describe("distribution", () => {
  it("takes nearest-rank percentiles", () => {
    const d = distribution(Array.from({ length: 100 }, (_, n) => 100 - n));
    expect([d.min, d.p50, d.p90, d.p99, d.max, d.mean]).toEqual([1, 50, 90, 99, 100, 50.5]);
  });
});

describe("renderers", () => {
  const report = buildAuditReport(seededInput());

  it("writes a self-contained HTML page whose session links all land on an anchor", () => {
    const html = renderAuditHtml(report);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|(?:src|href)="(?:https?:)?\/\//i);
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(links.length).toBe(report.failed_checks.length + 2 + 2 + 1);
    for (const link of links) expect(ids).toContain(link);
    // Three charts, each in a narrow and a wide drawing.
    expect(html.match(/<svg[^>]*class="plot-/g)?.length).toBe(6);
  });

  it("escapes input text in HTML and markdown", () => {
    const input = seededInput();
    const first = input.files[4];
    if (first?.first_error) first.first_error.message = `<img src=x onerror=alert(1)> | *x*`;
    const escaped = buildAuditReport(input);
    expect(renderAuditHtml(escaped)).toContain("&#60;img src=x onerror=alert(1)&#62;");
    expect(renderAuditMarkdown(escaped)).toContain("\\<img src=x onerror=alert(1)\\> \\| \\*x\\*");
  });
});
