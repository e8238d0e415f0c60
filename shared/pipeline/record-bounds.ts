/**
 * The texts an index record keeps, cut to fit: each record is one DynamoDB item (400 KB at most),
 * and an error message or a receipt's failed rows can be as long as the file that holds them (a
 * 965 KB receipt made a check record no item could hold). The verdict document keeps them whole.
 */
import type { CheckRow } from "../formats/index.js";
import type { FileRecord } from "./ports.js";

/** Characters kept of an error message in a record. */
export const RECORD_MESSAGE_CHARS = 1024;
/** Characters kept of each text of a failed row (check, subject, expected, actual) in a record. */
export const RECORD_ROW_CHARS = 256;
/** Failed rows a check record keeps at most. */
export const RECORD_ROWS = 100;

/** `text` cut to `chars` UTF-16 units and marked `…` (never between the halves of a pair). */
export function cutText(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(chars - 1)) ? chars - 1 : chars;
  return `${text.slice(0, end)}…`;
}

const cutOrNull = (text: string | null, chars: number): string | null =>
  text === null ? null : cutText(text, chars);

/** A record's first error with its code and message cut to fit an item. */
export function recordError(error: FileRecord["first_error"]): FileRecord["first_error"] {
  if (error === null) return null;
  return {
    code: cutText(error.code, RECORD_ROW_CHARS),
    message: cutText(error.message, RECORD_MESSAGE_CHARS),
    line: error.line,
  };
}

/**
 * The first `RECORD_ROWS` of `rows`, each text cut to `RECORD_ROW_CHARS`: with every character at
 * three UTF-8 bytes, a row is at most about 3.1 KB and all of them 313 KB, which leaves a check
 * record's keys and refs room within an item.
 */
export function recordRows(rows: readonly CheckRow[]): CheckRow[] {
  return rows.slice(0, RECORD_ROWS).map((row) => ({
    check: cutText(row.check, RECORD_ROW_CHARS),
    subject: cutText(row.subject, RECORD_ROW_CHARS),
    expected: cutOrNull(row.expected, RECORD_ROW_CHARS),
    actual: cutOrNull(row.actual, RECORD_ROW_CHARS),
    status: row.status,
  }));
}
