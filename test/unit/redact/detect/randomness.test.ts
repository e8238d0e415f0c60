/**
 * Masked values (`isMasked`, through `isPlaceholderToken` for every rule's findings): a run of one mask
 * character stands where the secret was and nothing beside it looks generated. Generated from fixed seeds:
 * what is kept (ids and prefixes next to a mask) and, right beside it, what must still be caught (a
 * generated body next to a mask, a short mask, a password holding mask symbols, letter and digit fills).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMasked } from "#shared/redact/detect/randomness.js";
import { Scrubber } from "#shared/redact/scrub.js";

const SEED = 20_261_127;
const RUNS = 100;
const sample = <T>(arb: fc.Arbitrary<T>, seed = SEED): T[] =>
  fc.sample(fc.noBias(arb), { seed, numRuns: RUNS });

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const DIGITS = "0123456789";
const BASE62 = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}`;

/** A generated token body: base62 with an upper, a lower letter and two digits in it, like every real one. */
const generated = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      chars(BASE62, min - 4, max - 4),
      chars(DIGITS, 2),
      fc.constantFrom(..."QWERTYKZ"),
      fc.constantFrom(..."qwertykz"),
    )
    .map(([b, d, u, l]) => `${b.slice(0, 3)}${d[0]}${u}${b.slice(3, 9)}${l}${d[1]}${b.slice(9)}`);

const prefix = fc.constantFrom("xoxp-", "xoxb-", "sk_live_", "glpat-", "zorvix_", "acme-", "");
const ids = fc
  .array(chars(DIGITS, 6, 13), { minLength: 0, maxLength: 3 })
  .map((a) => a.map((d) => `${d}-`).join(""));
const mask = fc
  .tuple(fc.constantFrom("#", "*", "•", "●", "?"), fc.integer({ min: 8, max: 40 }))
  .map(([c, n]) => c.repeat(n));
const credName = fc.constantFrom('"token": ', "API_KEY=", "password: ", "client_secret = ", "--token ", "");

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("a mask stands where the secret was", () => {
  const masked = fc.tuple(prefix, ids, mask).map(([p, i, m]) => `${p}${i}${m}`);

  it("ids and a prefix before a mask of 8+ are kept, wherever they stand", () => {
    for (const [name, value] of sample(fc.tuple(credName, masked))) {
      expect(isMasked(value), value).toBe(true);
      const text = `${name}${value}`;
      expect(scrub(text), text).toBe(text);
    }
  });

  it("a mask after the part a rule matches is read with it (a Slack token's ids, its secret masked)", () => {
    for (const [team, user, m] of sample(fc.tuple(chars(DIGITS, 9, 12), chars(DIGITS, 9, 12), mask))) {
      const text = `use xoxp-${team}-${user}-${team}-${m} here`;
      expect(scrub(text), text).toBe(text);
    }
  });

  it("a generated body next to a mask is still a credential", () => {
    for (const [p, body, m, name] of sample(fc.tuple(prefix, generated(24, 48), mask, credName))) {
      const value = `${p}${body}${m}`;
      expect(isMasked(value), value).toBe(false);
      expect(scrub(`${name}${value}`)).not.toContain(body);
    }
  });

  it("a mask shorter than 8 after a generated body is no mask", () => {
    for (const [body, n] of sample(fc.tuple(generated(24, 40), fc.integer({ min: 1, max: 7 })))) {
      const value = `sk_live_${body}${"*".repeat(n)}`;
      expect(isMasked(value)).toBe(false);
      expect(scrub(`API_KEY=${value}`)).not.toContain(body);
    }
  });

  it("a password holding a few mask symbols is still a password", () => {
    const password = fc
      .tuple(
        fc.constantFrom("Summer", "hunter", "Dragon", "correct"),
        chars("#*?", 1, 3),
        chars(DIGITS, 1, 4),
      )
      .map(([w, s, d]) => `${w}${s}${d}`);
    for (const p of sample(password)) {
      expect(isMasked(p)).toBe(false);
      expect(scrub(`password: "${p}"`)).not.toContain(p);
    }
  });

  it("letters and digits are no mask, however often repeated (test keys are written so)", () => {
    const fills = fc
      .tuple(
        fc.constantFrom("AGE-SECRET-KEY-1", "xoxa-2-", "ghp_", "npm_"),
        fc.constantFrom(..."Q1c7A"),
        fc.integer({ min: 8, max: 43 }),
      )
      .map(([p, c, n]) => `${p}${c.repeat(n)}`);
    for (const v of sample(fills)) expect(isMasked(v), v).toBe(false);
  });
});
