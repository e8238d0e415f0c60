/** Helpers of the detector tests. */
import type { Detection } from "#shared/redact/rule-types.js";

/** What `scan` finds in a text, as the substrings it would redact (rule id `rule`). */
export function foundBy(
  scan: (text: string, out: Detection[], rule: string) => void,
  rule: string,
): (text: string) => string[] {
  return (text) => {
    const out: Detection[] = [];
    scan(text, out, rule);
    return out.map((d) => text.slice(d.start, d.end));
  };
}
