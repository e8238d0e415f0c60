/**
 * A table whose header names a credential's column (`| user | password |`, psql's and mysql's
 * query results, a box-drawn CLI table): the cells under it, row by row. A header stands above
 * its rule (`|---|`, `----+----`, `├───┼`), which is how a table's names are told from its data.
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";
import { credentialName } from "./credential-names.js";

/** Cheap pre-checks: a header's rule holds one of these. */
export const CREDENTIAL_COLUMN_NEEDLES: readonly string[] = ["---", "───", "═══", "━━━"];

/** A line break as a transcript holds it: raw, or escaped in a JSON string. */
const BREAK = /\r?\n|(?:\\r)?\\n/g;
/** A header's rule: only rule characters, three dashes or more. */
const RULE_LINE =
  /^[ \t]*[-─═━|+:├┼┤╞╪╡╟╫╢┝┿┥┌┬┐└┴┘╔╦╗╚╩╝ \t]*[-─═━]{3,}[-─═━|+:├┼┤╞╪╡╟╫╢┝┿┥┌┬┐└┴┘╔╦╗╚╩╝ \t]*$/;
/** A column's separator. */
const SEPARATOR = /[|│┃║]/g;
const ANY_SEPARATOR = /[|│┃║]/;
/** A cell's value: one token, masks and stand-ins aside. */
const TOKEN = /^\S{4,256}$/;
/** What a column of documentation's tables holds under `Secret` or `Token`: flags and kinds. */
const NOT_A_CELL_VALUE =
  /^(?:NULL|<null>|\(null\)|-+|\*+|yes|no|true|false|none|required|optional|string|boolean|integer|secret|sensitive|n\/a)$/i;

interface Cell {
  start: number;
  end: number;
}

/** Appends the cells under each credential's column of each table in `text`. */
export function scanCredentialColumns(text: string, out: Detection[], rule: string): void {
  // Speed only: a table holds a column's separator, and a rule a run of three (a key block's
  // `-----BEGIN` holds the run, seldom a separator).
  if (!ANY_SEPARATOR.test(text)) return;
  const lines = linesOf(text);
  for (let i = 1; i < lines.length; i++) {
    const [s, e] = lines[i] as [number, number];
    if (!RULE_LINE.test(text.slice(s, e))) continue;
    const [hs, he] = lines[i - 1] as [number, number];
    const header = cellsOf(text, hs, he);
    const columns = header.flatMap((c, k) => (isCredentialColumn(text.slice(c.start, c.end)) ? [k] : []));
    if (columns.length === 0) continue;
    for (let j = i + 1; j < lines.length; j++) {
      const [rs, re] = lines[j] as [number, number];
      if (RULE_LINE.test(text.slice(rs, re))) continue;
      const row = cellsOf(text, rs, re);
      // A row of the same table: as many cells as its header.
      if (row.length !== header.length) break;
      for (const k of columns) {
        const cell = row[k] as Cell;
        const value = text.slice(cell.start, cell.end);
        if (TOKEN.test(value) && !isPlaceholder(value) && !NOT_A_CELL_VALUE.test(value))
          out.push({ start: cell.start, end: cell.end, rule, kind: "secret" });
      }
    }
  }
}

/** A column named by a credential's name (`password`, `api_key`, `Secret`). */
function isCredentialColumn(name: string): boolean {
  return name !== "" && !/\s/.test(name) && credentialName(name) === "strong";
}

/** The trimmed cells of the line `[from, to)`, split at its separators (none: no cells). */
function cellsOf(text: string, from: number, to: number): Cell[] {
  const line = text.slice(from, to);
  SEPARATOR.lastIndex = 0;
  const cuts = [...line.matchAll(SEPARATOR)].map((m) => m.index);
  if (cuts.length === 0) return [];
  const bounds = [-1, ...cuts, line.length];
  const cells: Cell[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    let s = (bounds[k] as number) + 1;
    let e = bounds[k + 1] as number;
    while (s < e && /\s/.test(line[s] ?? "")) s++;
    while (e > s && /\s/.test(line[e - 1] ?? "")) e--;
    cells.push({ start: from + s, end: from + e });
  }
  return cells;
}

/** The lines of `text` as `[start, end)`, split at raw and escaped line breaks. */
function linesOf(text: string): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  let start = 0;
  for (const m of text.matchAll(BREAK)) {
    lines.push([start, m.index]);
    start = m.index + m[0].length;
  }
  lines.push([start, text.length]);
  return lines;
}
