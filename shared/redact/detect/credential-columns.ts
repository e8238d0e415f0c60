/**
 * A table whose header names a credential's column (`| user | password |`, psql's and mysql's
 * query results, a box-drawn CLI table, a CSV file's first line): the cells under it, row by row.
 * A header stands above its rule (`|---|`, `----+----`, `├───┼`), which is how a table's names
 * are told from its data; a CSV header is a line of names only.
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";
import { type Line, linesOf, nextLineStart } from "../text-lines.js";
import { credentialName } from "./credential-names.js";

/** Cheap pre-checks: a header's rule holds one of these, a CSV header a comma. */
export const CREDENTIAL_COLUMN_NEEDLES: readonly string[] = ["--", "─", "═", "━", "-|", "|-", "==", ","];

/** A header's rule: only rule characters, three or more, one a dash or a double line at least. */
const RULE_LINE = /^(?=[^\n]*[-─═━=])[ \t]*[-─═━=|+:├┼┤╞╪╡╟╫╢┝┿┥┌┬┐└┴┘╔╦╗╚╩╝┣╋┫┏┳┓┗┻┛╠╬╣┡╇┩┢╈┪ \t]{3,}$/;
/** A column's separator. */
const SEPARATOR = /[|│┃║]/g;
const ANY_SEPARATOR = /[|│┃║]/;
const COMMA = /,/g;
/**
 * A CSV header, tried at a line's start: two names or more (group 1), the line's break after it
 * (raw or escaped in a JSON string).
 */
const CSV_HEADER =
  /((?:"[A-Za-z_][\w .-]{0,40}"|[A-Za-z_][\w.-]{0,40})(?:,(?:"[A-Za-z_][\w .-]{0,40}"|[A-Za-z_][\w.-]{0,40}))+)[ \t]*(?:\r?\n|\\n)/y;
/** A cell's value: one token, masks and stand-ins aside. */
const TOKEN = /^\S{4,256}$/;
/** What a column of documentation's tables holds under `Secret` or `Token`: flags and kinds. */
const NOT_A_CELL_VALUE =
  /^(?:NULL|<null>|\(null\)|-+|\*+|yes|no|true|false|none|required|optional|string|boolean|integer|secret|sensitive|n\/a)$/i;

/** A cell's text, trimmed: `[start, end)` of the table's text. */
type Cell = Line;
/** A column that names a credential; `bare` when a token's or a secret's word alone names it. */
interface Column {
  index: number;
  bare: boolean;
}

/** Appends the cells under each credential's column of each table in `text`. */
export function scanCredentialColumns(text: string, out: Detection[], rule: string): void {
  scanRuledTables(text, out, rule);
  scanCsv(text, out, rule);
}

/** Tables whose header stands above a rule (`|---|`, `----+----`, `├───┼`). */
function scanRuledTables(text: string, out: Detection[], rule: string): void {
  // Speed only: a table holds a column's separator, and a rule a run of three (a key block's
  // `-----BEGIN` holds the run, seldom a separator).
  if (!ANY_SEPARATOR.test(text)) return;
  const lines = linesOf(text);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as Line;
    if (!RULE_LINE.test(text.slice(line.start, line.end))) continue;
    const above = lines[i - 1] as Line;
    const header = cellsOf(text, above.start, above.end, SEPARATOR).map(unquoted(text));
    const columns = credentialColumns(text, header);
    if (columns.length === 0) continue;
    for (let j = i + 1; j < lines.length; j++) {
      const row = lines[j] as Line;
      if (RULE_LINE.test(text.slice(row.start, row.end))) continue;
      // A row of the same table: as many cells as its header.
      if (!takeCells(text, cellsOf(text, row.start, row.end, SEPARATOR), header.length, columns, out, rule))
        break;
    }
  }
}

/**
 * CSV whose first line names its columns (`service,username,password`, quoted or not): the
 * cells under a credential's, in the lines after it with as many cells.
 */
function scanCsv(text: string, out: Detection[], rule: string): void {
  if (!text.includes(",")) return;
  // Each line's start, found by the engine's search; most lines fail the header's first test.
  for (let at = 0; at < text.length; at = nextLineStart(text, at)) {
    CSV_HEADER.lastIndex = at;
    const m = CSV_HEADER.exec(text);
    if (m === null) continue;
    const end = at + (m[1] as string).length;
    const header = cellsOf(text, at, end, COMMA).map(unquoted(text));
    const columns = credentialColumns(text, header);
    if (columns.length === 0) continue;
    const offset = at + m[0].length;
    for (const row of linesOf(text.slice(offset))) {
      const cells = cellsOf(text, offset + row.start, offset + row.end, COMMA).map(unquoted(text));
      if (!takeCells(text, cells, header.length, columns, out, rule)) break;
    }
  }
}

/** The columns of `header` that name a credential. */
function credentialColumns(text: string, header: readonly Cell[]): Column[] {
  return header.flatMap((c, index) => {
    const kind = columnKind(text.slice(c.start, c.end));
    return kind === undefined ? [] : [{ index, bare: kind === "bare" }];
  });
}

/** Appends the row's cells of `columns` that hold a value; false when the row is not the table's (its cell count). */
function takeCells(
  text: string,
  row: readonly Cell[],
  count: number,
  columns: readonly Column[],
  out: Detection[],
  rule: string,
): boolean {
  if (row.length !== count) return false;
  for (const { index, bare } of columns) {
    const cell = row[index] as Cell;
    const value = text.slice(cell.start, cell.end);
    if (!TOKEN.test(value) || isPlaceholder(value) || NOT_A_CELL_VALUE.test(value)) continue;
    if (!bare || MADE_CELL.test(value)) out.push({ start: cell.start, end: cell.end, rule, kind: "secret" });
  }
  return true;
}

/** A cell's quotes (CSV's, a quoted header's) are not its text. */
const unquoted =
  (text: string) =>
  (c: Cell): Cell =>
    c.end - c.start >= 2 && text[c.start] === '"' && text[c.end - 1] === '"'
      ? { start: c.start + 1, end: c.end - 1 }
      : c;

/**
 * How a column's name names a credential: `strong` (`password`, `api_key`, `Client Secret`), or
 * `bare` for a token's, a secret's or a key's word alone, whose cells must look made (a
 * tokenizer's `token` column holds words, a list of secrets their names: `AWS_ROLE_ARN`).
 */
function columnKind(name: string): "strong" | "bare" | undefined {
  if (/^(?:tokens?|secrets?)$/i.test(name)) return "bare";
  if (name === "" || credentialName(name) !== "strong") return undefined;
  return /^keys?$/i.test(name) ? "bare" : "strong";
}

/** A bare column's cell: letters and digits both, not a constant's name. */
const MADE_CELL = /^(?=\S*[A-Za-z])(?=\S*\d)(?![A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$)\S+$/;

/** The trimmed cells of the line `[from, to)`, split at `separator` (none: no cells). */
function cellsOf(text: string, from: number, to: number, separator: RegExp): Cell[] {
  const line = text.slice(from, to);
  const cuts = [...line.matchAll(separator)].map((m) => m.index);
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
