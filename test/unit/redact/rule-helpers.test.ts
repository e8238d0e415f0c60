/**
 * `isPlaceholderToken`'s documentation keys: AWS's end in `EXAMPLE`, a base64 one with its `=` padding
 * after it (`ABSK…EXAMPLEEXAMPLE=`). Generated from a fixed seed, with the keys beside them that are not
 * placeholders: `EXAMPLE` inside a key, a padded key without it. And the keyword rule's shape test: a value
 * holding ten in order (`ORDERED_RUN`) is no credential, the same value with nine of them is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ORDERED_RUN } from "#shared/redact/detect/randomness.js";
import { isCredentialShaped, isPlaceholderToken } from "#shared/redact/rule-helpers.js";
import { Scrubber } from "#shared/redact/scrub.js";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const body = fc
  .array(fc.constantFrom(...B64), { minLength: 20, maxLength: 60 })
  .map((a) => `Q7x${a.join("")}9k`);
const padding = fc.constantFrom("", "=", "==");
const sample = <T>(arb: fc.Arbitrary<T>): T[] =>
  fc.sample(fc.noBias(arb), { seed: 20_261_129, numRuns: 100 });

describe("documentation keys ending in EXAMPLE", () => {
  it("are placeholders, padded or not", () => {
    for (const [b, n, pad] of sample(fc.tuple(body, fc.integer({ min: 1, max: 30 }), padding))) {
      const key = `${b}${"EXAMPLE".repeat(n)}${pad}`;
      expect(isPlaceholderToken(key), key).toBe(true);
      const text = `AWS_BEARER_TOKEN_BEDROCK=ABSK${key}`;
      expect(new Scrubber().scrub(text, "$.x"), text).toBe(text);
    }
  });

  it("a padded key without EXAMPLE at its end is a key", () => {
    for (const [b, pad, mid] of sample(fc.tuple(body, padding, fc.constantFrom("", "EXAMPLE")))) {
      const key = `${mid}${b}${pad}`;
      expect(isPlaceholderToken(key), key).toBe(false);
      expect(isPlaceholderToken(`${b.slice(0, 10)}EXAMPLE${b.slice(10)}${pad}`)).toBe(false);
    }
  });
});

describe("the keyword rule's shape test (isCredentialShaped)", () => {
  // Vendors' keywords from gitleaks' list, not credential words: only the keyword rule reads them.
  const keyword = fc.constantFrom("meraki", "sonar", "zendesk", "beamer", "etsy");
  const ordered = fc.constantFrom("0123456789", "abcdefghij", "ABCDEFGHIJ");
  const generated = body.map((b) => b.replace(/[+/]/g, "7"));

  it("a value holding ten in order is a character set or an example: kept", () => {
    for (const [k, b, o, at] of sample(fc.tuple(keyword, generated, ordered, fc.nat()))) {
      const i = at % b.length;
      const value = `${b.slice(0, i)}${o}${b.slice(i)}`;
      expect(isCredentialShaped(value), value).toBe(false);
      const text = `${k}: ${value}`;
      expect(new Scrubber().scrub(text, "$.x"), text).toBe(text);
    }
  });

  it("a generated value beside the keyword, nine in order at most, is a credential", () => {
    for (const [k, b, o, at] of sample(fc.tuple(keyword, generated, ordered, fc.nat()))) {
      const i = at % b.length;
      const value = `${b.slice(0, i)}${o.slice(0, 9)}${b.slice(i)}`;
      // The body beside it may carry the run on to ten by chance.
      if (ORDERED_RUN.test(value)) continue;
      expect(isCredentialShaped(value), value).toBe(true);
      expect(new Scrubber().scrub(`${k}: ${value}`, "$.x"), value).not.toContain(value);
    }
  });
});
