/**
 * The ASCII bytes the byte-level JSON readers and writers test and write, by name: one spelling
 * everywhere (not `123` here, `0x7b` there and `OPEN` in a third file).
 */

/** `\t` */
export const TAB = 0x09;
/** `\n` */
export const LF = 0x0a;
/** `\r` */
export const CR = 0x0d;
/** ` ` */
export const SPACE = 0x20;
/** `"` */
export const QUOTE = 0x22;
/** `,` */
export const COMMA = 0x2c;
/** `-` */
const MINUS = 0x2d;
/** `0` */
export const DIGIT_0 = 0x30;
/** `9` */
export const DIGIT_9 = 0x39;
/** `:` */
export const COLON = 0x3a;
/** `[` */
export const OPEN_BRACKET = 0x5b;
/** `\` */
export const BACKSLASH = 0x5c;
/** `]` */
export const CLOSE_BRACKET = 0x5d;
/** `a` */
export const LOWER_A = 0x61;
/** `f` (`false`, and the last lowercase hex digit) */
export const LOWER_F = 0x66;
/** `n` (`null`) */
export const LOWER_N = 0x6e;
/** `t` (`true`) */
export const LOWER_T = 0x74;
/** `{` */
export const OPEN_BRACE = 0x7b;
/** `}` */
export const CLOSE_BRACE = 0x7d;

/** True for the first byte of a JSON number (`-` or a digit). */
export function startsNumber(byte: number): boolean {
  return byte === MINUS || (byte >= DIGIT_0 && byte <= DIGIT_9);
}
