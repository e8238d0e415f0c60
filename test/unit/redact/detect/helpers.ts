/** Helpers of the detector tests. */
import { expect } from "vitest";
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

/** Expects `scrub` to leave each of `texts` as it is (each named in a failure). */
export function expectKept(scrub: (text: string) => string, texts: readonly string[]): void {
  for (const text of texts) expect(scrub(text), text).toBe(text);
}

/** Expects `scrub` to leave no trace of each pair's secret in its text (each text named in a failure). */
export function expectHidden(
  scrub: (text: string) => string,
  shapes: readonly (readonly [text: string, secret: string])[],
): void {
  for (const [text, secret] of shapes) expect(scrub(text), text).not.toContain(secret);
}
