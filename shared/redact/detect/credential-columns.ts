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
  scanQueryRows(text, out, rule);
}

/** A query's column list (group 1), up to `FROM`. */
const SELECT =
  /\bselect[ \t]+(?!\*)((?:[\w."`[\]]+(?:[ \t]+as[ \t]+[\w"`]+)?[ \t]*,[ \t]*)*[\w."`[\]]+(?:[ \t]+as[ \t]+[\w"`]+)?)[ \t]+from\b/gi;
/** A row of a query's answer in list mode: cells split at `|` (sqlite3) or a tab (`mysql -B`, `psql -A`). */
const ROW_SEPARATOR = /[|\t]/g;

/**
 * A query's answer in list mode under the query that names its columns (`sqlite> select
 * username, password from users;⏎admin|S`): the cells of a credential's column.
 */
function scanQueryRows(text: string, out: Detection[], rule: string): void {
  if (!/select/i.test(text)) return;
  for (const m of text.matchAll(SELECT)) {
    // An item's column, or its alias (`u.password`, `api_key AS k`, `"token"`).
    const kinds = (m[1] as string).split(/,/).map((item) => {
      const [column, alias] = item.split(/[ \t]+as[ \t]+/i).map((n) => /(\w+)\W*$/.exec(n)?.[1] ?? "");
      return columnKind(column ?? "") ?? columnKind(alias ?? "");
    });
    const columns = kinds.flatMap((kind, index) =>
      kind === undefined ? [] : [{ index, bare: kind === "bare" }],
    );
    if (columns.length === 0 || kinds.length < 2) continue;
    const lines = linesOf(text.slice(nextLineStart(text, m.index)));
    const offset = nextLineStart(text, m.index);
    for (const row of lines) {
      const cells = cellsOf(text, offset + row.start, offset + row.end, ROW_SEPARATOR);
      if (!takeCells(text, cells, kinds.length, columns, out, rule)) break;
    }
  }
}

/**
 * Cheap pre-checks of `scanAlignedTables`: a header's credential column is named by one of these
 * (`credentialName` decides).
 */
export const ALIGNED_TABLE_NEEDLES: readonly string[] = [
  "ass",
  "ASS",
  "ecret",
  "ECRET",
  "oken",
  "OKEN",
  "key",
  "KEY",
  "wd",
  "WD",
];

/** A header of names aligned by blanks (two or more between two of them at least), one name per column. */
const ALIGNED_HEADER = /^[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+[A-Za-z_][\w.-]*)+[ \t]*$/;
const WIDE_GAP = /\S(?: {2,}|\t)\S/;
/** The dashes under an aligned header (`--  ----------  ------`). */
const DASH_RULE = /^[ \t]*-+(?:[ \t]+-+)*[ \t]*$/;
/** A prompt: the table's output ended. */
const PROMPT_LINE = /^[ \t]*(?:[$#>%]|\w+>)[ \t]/;
const BLANK_RUN = /\S+/g;

/**
 * Tables aligned by blanks (`column -t`, `sqlite3 -column`, pandas' `print(df)`, `docker`- and
 * `kubectl`-style listings): in each row, the cell under a credential's column, the one token
 * that starts under its name or else overlaps it (cells are left-aligned under it, or
 * right-aligned as pandas prints them). A cell holding blanks is no one token and is left.
 */
export function scanAlignedTables(text: string, out: Detection[], rule: string): void {
  const lines = linesOf(text);
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] as Line;
    const header = text.slice(line.start, line.end);
    if (!ALIGNED_HEADER.test(header) || !WIDE_GAP.test(header)) continue;
    // A header starts its block: a line aligned like it above is a row (`display_name  userpass-dev`
    // in `vault token lookup`'s pairs).
    const above = lines[i - 1];
    if (above !== undefined && WIDE_GAP.test(text.slice(above.start, above.end))) continue;
    const columns: { start: number; end: number; bare: boolean }[] = [];
    for (const m of header.matchAll(BLANK_RUN)) {
      const kind = columnKind(m[0]);
      if (kind !== undefined)
        columns.push({ start: m.index, end: m.index + m[0].length, bare: kind === "bare" });
    }
    if (columns.length === 0) continue;
    let j = i + 1;
    const dashes = text.slice((lines[j] as Line).start, (lines[j] as Line).end);
    if (DASH_RULE.test(dashes)) {
      // The rule's dashes span each column's width (`sqlite3 -column`): wider than its name.
      const runs = [...dashes.matchAll(BLANK_RUN)];
      for (const column of columns) {
        const run = runs.find((r) => r.index <= column.start && r.index + r[0].length >= column.end);
        if (run !== undefined) column.end = run.index + run[0].length;
      }
      j++;
    }
    for (; j < lines.length && j - i <= 500; j++) {
      const row = lines[j] as Line;
      const cells = text.slice(row.start, row.end);
      if (PROMPT_LINE.test(cells)) break;
      const tokens = [...cells.matchAll(BLANK_RUN)].map((m) => ({
        start: m.index,
        end: m.index + m[0].length,
      }));
      if (tokens.length < 2) break;
      for (const column of columns) {
        // The one token that starts under the name (a wide cell before it may reach over), else
        // the one that overlaps it (right-aligned).
        const under = tokens.filter((t) => t.start < column.end && t.end > column.start);
        const starting = under.filter((t) => t.start >= column.start);
        const cell = starting.length === 1 ? starting[0] : under.length === 1 ? under[0] : undefined;
        if (cell === undefined) continue;
        takeValue(text, { start: row.start + cell.start, end: row.start + cell.end }, column.bare, out, rule);
      }
    }
    i = j - 1;
  }
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
    if (!("names" in columns) && columns.length === 0) continue;
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
    // A line of values is no header (`API_TOKEN,ab12cd34ef56gh78`): a name holds one run of digits at most.
    if (header.some((c) => /\d\D+\d/.test(text.slice(c.start, c.end)))) continue;
    const columns = credentialColumns(text, header);
    if (!("names" in columns) && columns.length === 0) continue;
    const offset = at + m[0].length;
    for (const row of linesOf(text.slice(offset))) {
      const cells = cellsOf(text, offset + row.start, offset + row.end, COMMA).map(unquoted(text));
      if (!takeCells(text, cells, header.length, columns, out, rule)) break;
      // The table's rows are no header of another.
      at = offset + row.start;
    }
  }
}

/**
 * The columns of `header` that name a credential, or for a table of settings by name (`name,value`,
 * `| Key | Value |`) its names' and values' columns.
 */
function credentialColumns(text: string, header: readonly Cell[]): Column[] | NameValue {
  const columns = header.flatMap((c, index) => {
    const kind = columnKind(text.slice(c.start, c.end));
    return kind === undefined ? [] : [{ index, bare: kind === "bare" }];
  });
  if (columns.length > 0) return columns;
  const names = header.findIndex((c) => NAMES_HEADER.test(text.slice(c.start, c.end)));
  const values = header.findIndex((c) => VALUES_HEADER.test(text.slice(c.start, c.end)));
  return names >= 0 && values >= 0 ? { names, values } : [];
}

/** A table of settings by name: the column of their names and the column of their values. */
interface NameValue {
  names: number;
  values: number;
}
const NAMES_HEADER =
  /^(?:name|key|variable|var|env(?:ironment)?(?:[ _]var(?:iable)?)?|setting|parameter|param|property|field)s?$/i;
const VALUES_HEADER = /^(?:value|val|setting value|data)s?$/i;

/** Appends the row's cells of `columns` that hold a value; false when the row is not the table's (its cell count). */
function takeCells(
  text: string,
  row: readonly Cell[],
  count: number,
  columns: readonly Column[] | NameValue,
  out: Detection[],
  rule: string,
): boolean {
  if (row.length !== count) return false;
  if ("names" in columns) {
    // A setting's value, where its name names a credential (`SMTP_PASS,Autumn_Leaves88`).
    const { names, values } = columns;
    const name = row[names] as Cell;
    const strength = credentialName(text.slice(name.start, name.end));
    if (strength === "strong" || strength === "qualified")
      takeValue(text, row[values] as Cell, false, out, rule);
    return true;
  }
  for (const { index, bare } of columns) takeValue(text, row[index] as Cell, bare, out, rule);
  return true;
}

/** Appends `cell` when it holds a value (a bare column's: one that looks made). */
function takeValue(text: string, cell: Cell, bare: boolean, out: Detection[], rule: string): void {
  const value = text.slice(cell.start, cell.end);
  if (!TOKEN.test(value) || isPlaceholder(value) || NOT_A_CELL_VALUE.test(value)) return;
  if (!bare || MADE_CELL.test(value)) out.push({ start: cell.start, end: cell.end, rule, kind: "secret" });
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
