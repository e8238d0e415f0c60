/**
 * A string as a reader sees it: a terminal's escape sequences (`jq -C`, `grep --color`), a
 * pager's overstrike (`P\bPA\bA`), invisible characters (zero-width spaces, soft hyphens, a BOM)
 * left out; look-alike separators (no-break spaces, fullwidth `＝` and `：`, fullwidth letters)
 * read as their ASCII, a box-drawn table's rules as `|`; a file reader's line numbers (`  12→`)
 * left out; HTML's character references (`&quot;`, `&#34;`, `&#x27;`) and escapes of
 * printable ASCII written out (`\u0022password\u0022`, `\x22`) decoded. The
 * detectors read this view where a string holds any of them, and each finding is mapped back
 * onto the string's own characters.
 */

import { startsLine } from "./text-lines.js";

/** Does `text` hold anything the view changes? A cheap test first: most strings hold none. */
export function hasNoise(text: string): boolean {
  return text.length >= 4 && NOISE_START.test(text) && NOISE.test(text);
}

/**
 * The characters that start a view's change. Fullwidth forms only where they cannot be CJK
 * prose's own punctuation: `＝`, fullwidth Latin letters and digits, and `：` right after ASCII.
 * Escapes written out (`\u0022`, `\x22`) only of printable ASCII.
 */
const NOISE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a terminal's escape and backspace are what the view leaves out
  /[\u001b\u0008\u00a0\u00ad\u2000-\u200c\u202f\u2060\u2502\u2503\u2551\u2506\u2507\u250a\u250b\ufeff\u2192\u23bf\uff1d\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]|\uff1a(?<=[\w"'\]]\uff1a)|\u3000(?=[=:\uff1a\uff1d])|\u3000(?<=[=:\uff1a\uff1d]\u3000)|&(?:quot|apos|amp|lt|gt|nbsp|colon|#0*\d{2,3}|#x0*[\da-f]{2});|\\(?:u00[2-7][\da-f]|x[2-7][\da-f]|\/)/i;
/** Speed only: a character one of `NOISE`'s alternatives starts with (one pass of a class, no alternation). */
const NOISE_START =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as above
  /[\u001b\u0008\u00a0\u00ad\u2000-\u200c\u202f\u2060\u2502\u2503\u2551\u2506\u2507\u250a\u250b\ufeff\u2192\u23bf\uff1a\uff1d\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u3000&\\]/;

/** The view and, for each of its characters, where it starts and ends in the string. */
export interface TextView {
  text: string;
  /** `starts[i]`: the index in the string of the view's character `i`. */
  starts: Int32Array;
  /** `ends[i]`: the index after it in the string. */
  ends: Int32Array;
}

/** An escape sequence: CSI (`ESC [ … m`), OSC (`ESC ] … BEL` or `ESC \`), or a two-character one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence is made of control characters
const ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]{0,2048}(?:\u0007|\u001b\\)?|[@-Z\\-_])/y;
/** An HTML character reference the view decodes. */
const REFERENCE = /&(?:(quot|apos|amp|lt|gt|nbsp|colon)|#0*(\d{2,3})|#x0*([\da-f]{2}));/iy;
/** A printable ASCII character escaped as JSON or C writes it (`\u0022`, `\x22`), its code in group 1. */
const ESCAPED = /\\(?:(?:u00|x)([2-7][\da-f])|(\/))/iy;
const NAMED: Readonly<Record<string, string>> = {
  quot: '"',
  apos: "'",
  amp: "&",
  lt: "<",
  gt: ">",
  nbsp: " ",
  colon: ":",
};

/** `text` as a reader sees it (see the module's comment), with its characters' places. */
export function plainView(text: string): TextView {
  const out: string[] = [];
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let n = 0;
  // Characters the view keeps as they are are copied as slices, not one at a time.
  let copied = 0;
  /** Replaces `text[from, to)` by `c` (or by nothing), `from` where the copy stands. */
  const change = (from: number, to: number, c?: string) => {
    out.push(text.slice(copied, from));
    copied = to;
    if (c === undefined) return;
    out.push(c);
    starts[n] = from;
    ends[n] = to;
    n++;
  };
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const to = i + 1;
    if ((c === 0x2192 && isLineNumberArrow(text, i)) || (c === 0x23bf && startsLine(text, i))) {
      // An agent's file reader numbers the lines it shows (`    12→password: x`), its transcript
      // marks a tool's output (`  ⎿  x`): the number, the mark and the blanks are not the line's.
      let s = i;
      while (s > copied && /[\d \t]/.test(text[s - 1] ?? "")) s--;
      // Those characters were kept one by one: taken back.
      n -= i - s;
      let e = to;
      while (c === 0x23bf && (text[e] === " " || text[e] === "\t")) e++;
      change(s, e);
      i = e;
    } else if (c === 0x1b) {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(text);
      const end = m === null ? to : i + m[0].length;
      change(i, end);
      i = end;
    } else if (text.charCodeAt(to) === 0x08 && i + 2 < text.length) {
      // Overstrike: a character, a backspace, and the character printed over it (bold `P\bP`,
      // underlined `_\bP`): the last one stands.
      change(i, i + 2);
      i += 2;
    } else if (c === 0x08 || c === 0xad || c === 0x2060 || c === 0xfeff || (c >= 0x200b && c <= 0x200d)) {
      change(i, to);
      i = to;
    } else if (c === 0xa0 || c === 0x202f || c === 0x3000 || (c >= 0x2000 && c <= 0x200a)) {
      change(i, to, " ");
      i = to;
    } else if (
      c === 0x2502 ||
      c === 0x2503 ||
      c === 0x2551 ||
      c === 0x2506 ||
      c === 0x2507 ||
      c === 0x250a ||
      c === 0x250b
    ) {
      // A box-drawn table's column rule (`│ KEY │ value │`) reads as Markdown's.
      change(i, to, "|");
      i = to;
    } else if (c >= 0xff01 && c <= 0xff5e) {
      change(i, to, String.fromCharCode(c - 0xfee0));
      i = to;
    } else {
      const decoded = c === 0x5c ? escaped(text, i) : c === 0x26 ? reference(text, i) : undefined;
      if (decoded !== undefined) {
        change(i, decoded[1], decoded[0]);
        i = decoded[1];
      } else {
        starts[n] = i;
        ends[n] = to;
        n++;
        i = to;
      }
    }
  }
  out.push(text.slice(copied));
  return { text: out.join(""), starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

/** Is the `→` at `i` a line's number's (`    12→`): digits before it, from the line's start? */
function isLineNumberArrow(text: string, i: number): boolean {
  let s = i;
  while (s > 0 && /\d/.test(text[s - 1] ?? "")) s--;
  return s < i && startsLine(text, s);
}

/** Another layer's escape of a printable character at `i`, written out (`\u0022`, `\x22`): it and where it ends. */
function escaped(text: string, i: number): [string, number] | undefined {
  ESCAPED.lastIndex = i;
  const m = ESCAPED.exec(text);
  if (m === null) return undefined;
  return [m[2] ?? String.fromCharCode(Number.parseInt(m[1] as string, 16)), i + m[0].length];
}

/** An HTML character reference at `i`: what it stands for (a blank for a control) and where it ends. */
function reference(text: string, i: number): [string, number] | undefined {
  REFERENCE.lastIndex = i;
  const m = REFERENCE.exec(text);
  if (m === null) return undefined;
  const end = i + m[0].length;
  if (m[1] !== undefined) return [NAMED[m[1].toLowerCase()] ?? " ", end];
  const code = m[2] !== undefined ? Number(m[2]) : Number.parseInt(m[3] as string, 16);
  return [String.fromCharCode(code >= 0x20 && code < 0x7f ? code : 0x20), end];
}
