/**
 * Charts as inline SVG, drawn by Observable Plot on a linkedom document: Plot owns scales, axes,
 * ticks and legends, so nothing here positions a mark by hand. Each chart is drawn twice, narrow
 * for phones and wide for screens and print, because an SVG scaled down to a phone would shrink its
 * 10-pixel labels below reading size. The audit report and the session viewer both draw with it.
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";

/**
 * The widths charts are drawn at, in CSS pixels: a phone's card (390 less the page's margins);
 * on screens and paper, the full-width card of the history and a half-width card of a bar chart.
 * Drawn at the width they are shown at, their labels keep Plot's size.
 */
const WIDTHS = { narrow: 340, history: 1000, bars: 500 } as const;

/** The width a chart is drawn for. */
export type Variant = "narrow" | "wide";

/** The SVG markup of one chart in both widths, or null when there is nothing to draw. */
export interface Chart {
  narrow: string;
  wide: string;
}

/** A horizontal bar per name (check or rule), largest first; the caption says what is counted. */
export function barsChart(rows: { name: string; count: number }[], color: string): Chart | null {
  if (rows.length === 0) return null;
  // The first 12 names: a longer tail belongs to the table below the chart.
  const shown = rows.slice(0, 12).map((r) => ({ ...r, name: shorten(r.name, 28) }));
  const longest = Math.max(...shown.map((r) => r.name.length));
  const max = Math.max(...shown.map((r) => r.count));
  return drawChart("bars", () => ({
    height: 44 + shown.length * 28,
    marginLeft: Math.min(190, 12 + longest * 7),
    marginRight: 36,
    // Counts: whole-number ticks only, at most 5.
    x: { label: null, grid: true, domain: [0, max], ticks: Math.min(max, 5), tickFormat: "d" },
    y: { label: null, domain: shown.map((r) => r.name) },
    marks: [
      Plot.barX(shown, { x: "count", y: "name", fill: color }),
      Plot.text(shown, {
        x: "count",
        y: "name",
        text: (r: { count: number }) => String(r.count),
        dx: 4,
        textAnchor: "start",
      }),
      Plot.ruleX([0]),
    ],
  }));
}

/** `options` drawn at both widths: `kind` says which wide width (the history's or a bar chart's). */
export function drawChart(kind: "history" | "bars", options: (variant: Variant) => Plot.PlotOptions): Chart {
  const draw = (variant: Variant) => {
    const { document } = parseHTML("<!doctype html><html><body></body></html>");
    const figure = Plot.plot({
      ...options(variant),
      width: variant === "narrow" ? WIDTHS.narrow : WIDTHS[kind],
      style: { fontSize: "12px", background: "transparent", overflow: "visible" },
      // linkedom's document is the subset of the DOM Plot uses.
      document: document as unknown as Plot.PlotOptions["document"],
    });
    return (figure as unknown as { outerHTML: string }).outerHTML;
  };
  return { narrow: draw("narrow"), wide: draw("wide") };
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
