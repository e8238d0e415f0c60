/**
 * `isPlaceholderToken`'s documentation keys: AWS's end in `EXAMPLE`, a base64 one with its `=` padding
 * after it (`ABSK…EXAMPLEEXAMPLE=`). Generated from a fixed seed, with the keys beside them that are not
 * placeholders: `EXAMPLE` inside a key, a padded key without it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlaceholderToken } from "#shared/redact/rule-helpers.js";
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
