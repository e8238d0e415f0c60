/**
 * A token typed where a generated one goes (`isTypedPlaceholder`): one counting or repeated run, alone or
 * after a vendor's prefix (`xoxp-1234567890`), under the name of a secret a machine generates. Generated
 * from a fixed seed, with, right beside them, what must still be caught: the same run under a password's
 * name (a person may choose it), a generated token of the same prefix and length, a run with a generated
 * part in it; and the run itself (`isTypedRun`) against generated bodies and runs with one character off.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTypedRun, ORDERED_RUN } from "#shared/redact/detect/randomness.js";
import { Scrubber } from "#shared/redact/scrub.js";

const SEED = 20_261_130;
const RUNS = 100;
const sample = <T>(arb: fc.Arbitrary<T>): T[] => fc.sample(fc.noBias(arb), { seed: SEED, numRuns: RUNS });

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const BASE62 = `${LOWER.toUpperCase()}${LOWER}${DIGITS}`;

/** Digits counting up from any digit (wrapping from 9 to 0), letters counting up, or one character held. */
const typedRun = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc
      .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min, max }))
      .map(([d, n]) => Array.from({ length: n }, (_, i) => String((d + i) % 10)).join("")),
    fc
      .tuple(fc.constantFrom(LOWER, LOWER.toUpperCase()), fc.integer({ min, max: Math.min(max, 26) }))
      .chain(([alphabet, n]) => fc.integer({ min: 0, max: 26 - n }).map((s) => alphabet.slice(s, s + n))),
    fc.tuple(fc.constantFrom(..."0579bcqzBQZ"), fc.integer({ min, max })).map(([c, n]) => c.repeat(n)),
  );
/** A generated body: base62 with two digits, an upper and a lower letter, like every real token. */
const generated = (n: number): fc.Arbitrary<string> =>
  fc
    .tuple(chars(BASE62, n - 4), chars(DIGITS, 2))
    .map(([b, d]) => `${b.slice(0, 3)}${d[0]}Q${b.slice(3, 8)}k${d[1]}${b.slice(8)}`);

const vendorPrefix = fc.constantFrom("", "xoxp-", "sk_", "tok_", "acme-", "zv9_", "sgp_");
const tokenName = fc.constantFrom(
  "token1",
  "GITHUB_TOKEN",
  "api_key",
  "SUMO_ACCESS_KEY",
  "client_secret",
  "zorvixAuthToken",
);
const passwordName = fc.constantFrom("password", "DB_PASSWORD", "passphrase", "PASSCODE", "dbPasswd", "pwd");
const form = fc.constantFrom(
  (n: string, v: string) => `${n} = "${v}"`,
  (n: string, v: string) => `"${n}": "${v}"`,
  (n: string, v: string) => `${n}=${v}`,
  (n: string, v: string) => `${n}: ${v}`,
);

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("a token typed where a generated one goes", () => {
  it("under a generated credential's name is a placeholder: kept", () => {
    for (const [n, p, run, f] of sample(fc.tuple(tokenName, vendorPrefix, typedRun(8, 40), form))) {
      const text = f(n, `${p}${run}`);
      expect(scrub(text), text).toBe(text);
    }
  });

  it("under a password's name is a password a person chose: redacted", () => {
    // Runs shorter than ten in order (`ORDERED_RUN`, a character set wherever it stands) and no
    // documentation filler (`aaaa…`, `xxxx…`, `1111…`: `isPlaceholderToken`).
    const run = typedRun(8, 9).filter((r) => !ORDERED_RUN.test(r) && !/^([ax1X])\1+$/.test(r));
    for (const [n, p, r, f] of sample(fc.tuple(passwordName, vendorPrefix, run, form))) {
      const value = `${p}${r}`;
      expect(scrub(f(n, value)), f(n, value)).not.toContain(value);
    }
  });

  it("a generated token of the same prefix and length is a credential: redacted", () => {
    const token = fc
      .tuple(vendorPrefix, fc.integer({ min: 12, max: 40 }))
      .chain(([p, n]) => generated(n).map((b) => `${p}${b}`));
    for (const [n, t, f] of sample(fc.tuple(tokenName, token, form))) {
      expect(scrub(f(n, t)), f(n, t)).not.toContain(t);
    }
  });

  it("a run with a generated part beside it is a credential: redacted", () => {
    // Not ten in order (`ORDERED_RUN`): a value holding them is a character set wherever it stands.
    const token = fc
      .tuple(vendorPrefix, typedRun(8, 20), generated(12))
      .map(([p, r, g]) => `${p}${r.slice(0, 4)}${g}${r.slice(4)}`)
      .filter((t) => !ORDERED_RUN.test(t));
    for (const [n, t, f] of sample(fc.tuple(tokenName, token, form))) {
      expect(scrub(f(n, t)), f(n, t)).not.toContain(t);
    }
  });
});

describe("isTypedRun", () => {
  it("holds for a counting or repeated run of 8 or more", () => {
    for (const run of sample(typedRun(8, 40))) expect(isTypedRun(run), run).toBe(true);
  });

  it("fails for a generated body, a run of 7, and a run with one character off", () => {
    for (const body of sample(fc.integer({ min: 8, max: 40 }).chain(generated)))
      expect(isTypedRun(body), body).toBe(false);
    for (const run of sample(typedRun(7, 7))) expect(isTypedRun(run), run).toBe(false);
    const off = fc.tuple(typedRun(8, 40), fc.nat(), fc.constantFrom(..."%k7Q")).map(([r, i, c]) => {
      const at = 1 + (i % (r.length - 2));
      // A character that neither repeats nor counts on from the one before it.
      const other = c === r[at] || c === r[at - 1] ? "_" : c;
      return `${r.slice(0, at)}${other}${r.slice(at + 1)}`;
    });
    for (const run of sample(off)) expect(isTypedRun(run), run).toBe(false);
  });
});
