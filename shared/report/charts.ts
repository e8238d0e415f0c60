/**
 * The audit report's own chart: files per verdict per day, drawn with the shared charts (`../charts`).
 */
import * as Plot from "@observablehq/plot";
import { type Chart, drawChart } from "../charts/index.js";
import type { Verdict } from "../formats/index.js";
import { type AuditReport, VERDICTS } from "./audit.js";

/** Verdict colors: a person reads red as failed without the legend. */
const VERDICT_COLORS: Record<Verdict, string> = {
  passed: "#2e7d32",
  unverifiable: "#f0a202",
  failed: "#c62828",
  invalid: "#6a1b9a",
};

/** Files per verdict per day, stacked, over the report's history (the last 30 days). */
export function verdictsPerDayChart(report: AuditReport): Chart | null {
  const rows = report.history.flatMap((d) =>
    VERDICTS.map((verdict) => ({ day: new Date(`${d.day}T00:00:00Z`), verdict, files: d.verdicts[verdict] })),
  );
  if (!rows.some((r) => r.files > 0)) return null;
  return drawChart("history", (variant) => ({
    height: variant === "narrow" ? 220 : 260,
    marginLeft: 44,
    y: { label: "files", grid: true },
    x: { label: null, type: "utc", tickFormat: "%b %d", ticks: variant === "narrow" ? 4 : 8 },
    color: { legend: true, domain: [...VERDICTS], range: VERDICTS.map((v) => VERDICT_COLORS[v]) },
    marks: [
      Plot.rectY(rows, { x: "day", y: "files", fill: "verdict", interval: "day", inset: 0.5, tip: false }),
      Plot.ruleY([0]),
    ],
  }));
}
