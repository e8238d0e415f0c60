/**
 * Lines of a string as a transcript holds them: split at raw line breaks and at breaks escaped in
 * a JSON string (`\n`, `\r\n` written out), which the detectors that read line by line share.
 */

/** A line break, raw or escaped. */
const BREAK = /\r?\n|(?:\\r)?\\n/g;

/** A line of a text: `[start, end)`, its break left out. */
export interface Line {
  start: number;
  end: number;
}

/** The lines of `text`. */
export function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (const m of text.matchAll(BREAK)) {
    lines.push({ start, end: m.index });
    start = m.index + m[0].length;
  }
  lines.push({ start, end: text.length });
  return lines;
}

/**
 * Where the line after the one holding `at` starts, or the text's end: found by the engine's
 * search, for a scan that tries only a few lines' starts and need not split the text.
 */
export function nextLineStart(text: string, at: number): number {
  const raw = text.indexOf("\n", at);
  const escaped = text.indexOf("\\n", at);
  if (raw < 0 && escaped < 0) return text.length;
  return raw >= 0 && (escaped < 0 || raw < escaped) ? raw + 1 : escaped + 2;
}

/** Do only blanks stand between the start of `at`'s line and `at`? */
export function startsLine(text: string, at: number): boolean {
  let s = at;
  while (s > 0 && (text[s - 1] === " " || text[s - 1] === "\t")) s--;
  return s === 0 || text[s - 1] === "\n" || text.startsWith("\\n", s - 2);
}
