/**
 * ASCII character classes as tables, for the scanners' inner loops: one load per character where
 * a chain of comparisons read every alternative for the characters outside the class (most of
 * a text, for a run scanner).
 */

/** A table of 128 entries: 1 at the char codes of `A-Z`, `a-z`, `0-9` and of `extra`. */
export function alnumAnd(extra: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z0-9]/.test(ch) || extra.includes(ch)) table[c] = 1;
  }
  return table;
}

/** `[A-Za-z0-9+/_-]`: the base64 and base64url alphabets. */
export const BASE64_OR_URL = alnumAnd("+/_-");
/** `[A-Za-z0-9/+]`: standard base64 without padding. */
export const BASE64_DIGIT = alnumAnd("/+");
/** `[A-Za-z0-9_.+/~-]`: base64, base64url, and the separators tokens use. */
export const TOKEN_CHAR = alnumAnd("_-.+/~");

/** Is char code `c` in `table` (one of the tables above)? */
export function inTable(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}
