/**
 * Two-factor recovery codes: the list a service prints once (GitHub's `a1b2c-3d4e5`, npm's
 * `8636f0c0de54b5fb`, Google's `1234 5678`), under a line that names them (`Below are your
 * recovery codes`, `$ cat github-recovery-codes.txt`). Each opens the account without its second
 * factor; nothing but that line names them.
 */
import type { Detection } from "../rule-types.js";
import { type Line, linesOf } from "../text-lines.js";

/** A line naming the codes (a file's name too: `github-recovery-codes.txt`). */
const NAMING = /(?:recovery|backup|scratch|emergency|rescue)[ _-]?codes?\b/i;
/** A code: letters and digits, one dash or blank in it at most, a digit somewhere. */
const CODE = /^(?=[^\d]*\d)[A-Za-z0-9]{4,20}(?:[- ][A-Za-z0-9]{4,20})?$/;
/** Prose lines allowed between the naming line and its list (`You will need these to …`). */
const PROSE_BEFORE = 2;

/** Cheap pre-checks: the naming line holds one of these. */
export const RECOVERY_CODE_NEEDLES: readonly string[] = ["codes", "Codes", "CODES", "code.", "code "];

/** Appends the codes of each list of two or more under a line that names recovery codes. */
export function scanRecoveryCodes(text: string, out: Detection[], rule: string): void {
  if (!NAMING.test(text)) return;
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    const named = lines[i] as Line;
    if (!NAMING.test(text.slice(named.start, named.end))) continue;
    const codes: Line[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as Line;
      const cells = codeCells(text, line);
      if (cells === undefined) {
        // Prose may stand before the list, never inside it.
        if (codes.length > 0 || j - i > PROSE_BEFORE) break;
        continue;
      }
      codes.push(...cells);
    }
    if (codes.length < 2) continue;
    for (const c of codes) out.push({ start: c.start, end: c.end, rule, kind: "secret" });
    i = j - 1;
  }
}

/** The codes of `line` (one to four, split by wide blanks), or undefined when it is not a line of codes. */
function codeCells(text: string, line: Line): Line[] | undefined {
  const cells: Line[] = [];
  const s = text.slice(line.start, line.end);
  for (const m of s.matchAll(/\S+(?: \S+)?/g)) {
    // `1234 5678` is one code; words in a sentence are not codes.
    if (!CODE.test(m[0])) return undefined;
    cells.push({ start: line.start + m.index, end: line.start + m.index + m[0].length });
  }
  return cells.length >= 1 && cells.length <= 4 ? cells : undefined;
}
