/**
 * Recall on secret SHAPES no rule was written for (generators: `generic-shapes.generators.ts`).
 *
 * Every shape draws N cases from a fixed seed (invented vendor names, random bodies, varied case, separators
 * and quoting); each case is scrubbed as a string value (`scrub(text, "$.error.message")`) and, for the
 * member-name family, as an object key (`scrubKey`). A case is CAUGHT when none of its secrets survives,
 * raw, base64, base64url or percent-encoded. Negatives (digests, git SHAs, ids, placeholders, prose with
 * the credential words, …) must come out unchanged.
 *
 * Targets: recall ≥ 95% per value family, ≥ 99% over all member names, negatives unchanged ≥ 97% per family.
 * The measured table is printed and written to `.local/generic-shapes.md`.
 *
 * Raise the cases per shape with GENERIC_SHAPES_RUNS=1000; change the seeds with GENERIC_SHAPES_SEED=<n>.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import {
  CONTEXT_SHAPES,
  MEMBER_NAME_SHAPES,
  NEGATIVES,
  type Shape,
  type ShapeCase,
  sampleNegative,
  sampleShape,
  secretForms,
  VALUE_SHAPES,
} from "./generic-shapes.generators.js";

/** Cases per shape (and texts per negative family). */
const RUNS = Math.max(200, Number(process.env.GENERIC_SHAPES_RUNS ?? 0));
const SEED = Number(process.env.GENERIC_SHAPES_SEED ?? 20_240_601);

const VALUE_TARGET = 0.95;
const NAME_TARGET = 0.99;
const NEGATIVE_TARGET = 0.97;

type Redact = (text: string) => string;

/** One shape's measurement. */
interface Row {
  family: string;
  shape: string;
  cases: number;
  caught: number;
  leaks: string[];
}

/** Tallies per body kind (`base62`, `word+digit`, …) over the value shapes that take any body. */
type ByBody = Map<string, { cases: number; caught: number }>;

const isCaught = (c: ShapeCase, out: string): boolean =>
  c.secrets.every((s) => secretForms(s).every((f) => !out.includes(f)));

function measure(shapes: readonly Shape[], redact: Redact, byBody?: ByBody): Row[] {
  return shapes.map((shape) => {
    const row: Row = { family: shape.family, shape: shape.name, cases: 0, caught: 0, leaks: [] };
    for (const c of sampleShape(shape, RUNS, SEED)) {
      const out = redact(c.text);
      const caught = isCaught(c, out);
      row.cases++;
      if (caught) row.caught++;
      else if (row.leaks.length < 3) row.leaks.push(out);
      if (byBody !== undefined) {
        const t = byBody.get(c.body) ?? { cases: 0, caught: 0 };
        t.cases++;
        if (caught) t.caught++;
        byBody.set(c.body, t);
      }
    }
    return row;
  });
}

interface NegativeRow {
  family: string;
  cases: number;
  unchanged: number;
  changed: string[];
}

function measureNegatives(redact: Redact): NegativeRow[] {
  return NEGATIVES.map((n) => {
    const row: NegativeRow = { family: n.family, cases: 0, unchanged: 0, changed: [] };
    for (const text of sampleNegative(n, RUNS, SEED)) {
      const out = redact(text);
      row.cases++;
      if (out === text) row.unchanged++;
      else if (row.changed.length < 3) row.changed.push(`${text} → ${out}`);
    }
    return row;
  });
}

const sum = (rows: readonly { cases: number; caught: number }[]) =>
  rows.reduce((a, r) => ({ cases: a.cases + r.cases, caught: a.caught + r.caught }), { cases: 0, caught: 0 });
const pct = (part: number, whole: number): string =>
  whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)}%`;
const families = (shapes: readonly Shape[]): string[] => [...new Set(shapes.map((s) => s.family))];

/** A cell of a markdown table: one line, `|` escaped, at most 160 characters. */
function cell(text: string): string {
  const one = JSON.stringify(text).slice(1, -1).replace(/\|/g, "\\|").replace(/`/g, "ˋ");
  return one.length > 160 ? `${one.slice(0, 157)}…` : one;
}

function shapeTable(title: string, rows: readonly Row[], target: number): string {
  const total = sum(rows);
  const lines = [
    `### ${title}: recall ${pct(total.caught, total.cases)} (${total.caught}/${total.cases}), target ${target * 100}%`,
    "",
    "| shape | cases | caught | recall | example leaks (scrubbed output) |",
    "| --- | ---: | ---: | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${r.shape.replace(/\|/g, "\\|")} | ${r.cases} | ${r.caught} | ${pct(r.caught, r.cases)} | ${r.leaks.map((l) => `\`${cell(l)}\``).join("<br>")} |`,
    ),
    "",
  ];
  return lines.join("\n");
}

function bodyTable(byBody: ByBody): string {
  return [
    "### Recall per secret body (value shapes that take any body)",
    "",
    "| body | cases | caught | recall |",
    "| --- | ---: | ---: | ---: |",
    ...[...byBody.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, t]) => `| ${k} | ${t.cases} | ${t.caught} | ${pct(t.caught, t.cases)} |`),
    "",
  ].join("\n");
}

function negativeTable(rows: readonly NegativeRow[]): string {
  return [
    `### Negatives: unchanged, target ${NEGATIVE_TARGET * 100}% per family`,
    "",
    "| negative family | cases | unchanged | survival | examples changed (input → output) |",
    "| --- | ---: | ---: | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${r.family} | ${r.cases} | ${r.unchanged} | ${pct(r.unchanged, r.cases)} | ${r.changed.map((l) => `\`${cell(l)}\``).join("<br>")} |`,
    ),
    "",
  ].join("\n");
}

describe(`generic secret shapes: recall on shapes no rule was written for (${RUNS} cases per shape, seed ${SEED})`, () => {
  let values: Row[] = [];
  let names: Row[] = [];
  let negatives: NegativeRow[] = [];
  let vendorOnly: Row[] = [];
  const byBody: ByBody = new Map();

  beforeAll(() => {
    // One scrubber per measurement, as for one document (its findings cache is keyed by text alone).
    const all = new Scrubber();
    values = measure(VALUE_SHAPES, (t) => all.scrub(t, "$.error.message"), byBody);
    names = measure(MEMBER_NAME_SHAPES, (t) => all.scrubKey(t, "$.error"));
    negatives = measureNegatives((t) => all.scrub(t, "$.error.message"));
    const vendor = new Scrubber({ layers: ["vendor"] });
    vendorOnly = measure(CONTEXT_SHAPES, (t) => vendor.scrub(t, "$.error.message"));

    const familyRows = families(VALUE_SHAPES).map((f) => {
      const t = sum(values.filter((r) => r.family === f));
      return `| ${f} | ${t.cases} | ${t.caught} | ${pct(t.caught, t.cases)} | ${t.caught >= VALUE_TARGET * t.cases ? "ok" : "**below**"} |`;
    });
    const n = sum(names);
    const v = sum(vendorOnly);
    const report = [
      `# Generic secret shapes: measured recall (${RUNS} cases per shape, seed ${SEED})`,
      "",
      "Generated by `test/unit/redact/generic-shapes.test.ts`; a case is caught when none of its secrets",
      "survives, raw, base64, base64url or percent-encoded.",
      "",
      "## Summary",
      "",
      "| value family | cases | caught | recall | vs 95% |",
      "| --- | ---: | ---: | ---: | --- |",
      ...familyRows,
      `| member names (scrubKey) | ${n.cases} | ${n.caught} | ${pct(n.caught, n.cases)} | ${n.caught >= NAME_TARGET * n.cases ? "ok" : "**below 99%**"} |`,
      `| context, vendor layer only | ${v.cases} | ${v.caught} | ${pct(v.caught, v.cases)} | must be < 50% |`,
      "",
      "## Value families",
      "",
      ...families(VALUE_SHAPES).map((f) =>
        shapeTable(
          f,
          values.filter((r) => r.family === f),
          VALUE_TARGET,
        ),
      ),
      bodyTable(byBody),
      "## Member names",
      "",
      shapeTable("member names (scrubKey)", names, NAME_TARGET),
      "## Negatives",
      "",
      negativeTable(negatives),
      "## Context shapes with the vendor layer alone",
      "",
      shapeTable("context, layers: [vendor]", vendorOnly, 0),
    ].join("\n");
    mkdirSync(".local", { recursive: true });
    writeFileSync(".local/generic-shapes.md", report);
    console.log(report);
  });

  it("every case holds its secret and can be caught (an oracle removing the planted forms catches all)", () => {
    const cases = [...VALUE_SHAPES, ...MEMBER_NAME_SHAPES].flatMap((s) => sampleShape(s, 20, SEED));
    for (const c of cases) {
      expect(isCaught(c, c.text), `${c.shape}: the text holds no secret: ${c.text}`).toBe(false);
      let out = c.text;
      for (const s of c.secrets) {
        for (const f of secretForms(s).sort((a, b) => b.length - a.length)) out = out.split(f).join("[X]");
      }
      expect(isCaught(c, out), `${c.shape}: not catchable: ${c.text}`).toBe(true);
    }
  });

  it.each(families(VALUE_SHAPES))(`values, family %s: recall ≥ ${VALUE_TARGET * 100}%`, (family) => {
    const rows = values.filter((r) => r.family === family);
    const t = sum(rows);
    const detail = rows
      .filter((r) => r.caught < r.cases)
      .map((r) => `${r.shape}: ${pct(r.caught, r.cases)} e.g. ${JSON.stringify(r.leaks[0] ?? "")}`)
      .join("\n");
    expect(t.cases).toBeGreaterThan(0);
    expect(
      t.caught / t.cases,
      `${family} recall ${pct(t.caught, t.cases)}\n${detail}`,
    ).toBeGreaterThanOrEqual(VALUE_TARGET);
  });

  it(`member names (scrubKey): recall ≥ ${NAME_TARGET * 100}% overall`, () => {
    const t = sum(names);
    const worst = [...names]
      .sort((a, b) => a.caught / a.cases - b.caught / b.cases)
      .slice(0, 8)
      .map((r) => `${r.shape}: ${pct(r.caught, r.cases)} e.g. ${JSON.stringify(r.leaks[0] ?? "")}`)
      .join("\n");
    expect(
      t.caught / t.cases,
      `member-name recall ${pct(t.caught, t.cases)}\n${worst}`,
    ).toBeGreaterThanOrEqual(NAME_TARGET);
  });

  it.each(NEGATIVES.map((n) => n.family))(
    `negatives, %s: unchanged ≥ ${NEGATIVE_TARGET * 100}%`,
    (family) => {
      const row = negatives.find((r) => r.family === family);
      expect(row).toBeDefined();
      if (row === undefined) return;
      expect(
        row.unchanged / row.cases,
        `${family}: ${pct(row.unchanged, row.cases)} unchanged\n${row.changed.join("\n")}`,
      ).toBeGreaterThanOrEqual(NEGATIVE_TARGET);
    },
  );

  it("the harness can fail: the vendor layer alone catches < 50% of the invented-vendor context shapes", () => {
    const t = sum(vendorOnly);
    expect(t.cases).toBeGreaterThan(0);
    expect(t.caught / t.cases, `vendor-only recall ${pct(t.caught, t.cases)}`).toBeLessThan(0.5);
    // …and the identity scrubber catches nothing (every case holds its secret).
    const none = sum(measure(CONTEXT_SHAPES.slice(0, 2), (text) => text));
    expect(none.caught).toBe(0);
  });
});
