/**
 * Leak property: random text with planted secrets of every kind (realistic random bodies), raw, base64- or
 * percent-encoded, at random positions between punctuation/newlines. The scrubbed output must contain neither
 * the secret, nor its base64 / base64url form, nor its percent-encoded form.
 *
 * Decision on encoded input: the scrubber decodes and scans (one level): percent-encoded text is scanned in
 * its decoded view and the matching escaped range is replaced; base64/base64url runs that decode to text are
 * replaced whole when the decoded text holds a secret.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrubber, type ScrubOptions } from "#shared/redact/scrub.js";
import { type Encoding, encode, PLANTS as PLANT_KINDS_ARBS, type Plant } from "./leak-formats.generators.js";

/** The generic layers' own rules (context, shape), switched off with a rule to show it matters. */
const GENERIC = ["credential-argument", "credential-flag", "generated-token"];

// The planted secrets are the ones the format-level property uses, so both cover the same kinds.
const PLANTS = Object.values(PLANT_KINDS_ARBS);

const WORDS = [
  "the",
  "agent",
  "ran",
  "npm",
  "test",
  "and",
  "it",
  "passed",
  "file",
  "src/index.ts",
  "line",
  "42",
  "ERROR",
  "function",
  "return",
  "const",
  "value",
  "{",
  "}",
  "[",
  "]",
  "=>",
  "ok",
  "sha256:",
  "commit",
  "a1b2c3d",
  "key",
  "token",
  "user",
  "https://example.com/docs",
  "200",
  "GET",
  "/api/v1/items",
  "null",
  "true",
  "#",
];
const SEP = fc.constantFrom(
  " ",
  "\n",
  "\n\n",
  "\t",
  ", ",
  "; ",
  " (",
  ") ",
  ' "',
  '" ',
  " '",
  "' ",
  ": ",
  " <",
  "> ",
  " [",
  "] ",
  " | ",
  "\r\n",
);
const filler = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((w) => w.join(" "));

/** A document: filler, then 1–4 planted items, each between separators, each possibly encoded. */
const DOC = fc
  .array(
    fc.tuple(
      filler,
      SEP,
      fc.oneof(...PLANTS),
      fc.constantFrom<Encoding>("raw", "raw", "raw", "base64", "base64url", "percent"),
      SEP,
    ),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .chain((items) => filler.map((tail) => ({ items, tail })));

function leaks(
  options: ScrubOptions,
): fc.IPropertyWithHooks<[{ items: [string, string, Plant, Encoding, string][]; tail: string }]> {
  return fc.property(DOC, ({ items, tail }) => {
    const text = items.map(([f, s1, p, e, s2]) => `${f}${s1}${encode(p.text, e)}${s2}`).join("") + tail;
    const out = new Scrubber(options).scrub(text, "$.text");
    for (const [, , p] of items) {
      for (const secret of p.secrets) {
        for (const form of [
          secret,
          encodeURIComponent(secret),
          Buffer.from(secret).toString("base64"),
          Buffer.from(secret).toString("base64url"),
        ]) {
          if (out.includes(form)) throw new Error(`${p.kind} leaked (${form}) in ${JSON.stringify(out)}`);
        }
      }
    }
  });
}

/**
 * Documents per main run; raise with LEAK_RUNS=100000 for a soak. A spelling that leaks can be
 * one document in tens of thousands (`password=AAAA_AAA9` was), so the default is not small.
 */
const RUNS = Math.max(10_000, Number(process.env.LEAK_RUNS ?? 0));
/** Documents per preset of the second test. */
const PRESET_RUNS = Math.max(2_000, Math.round(RUNS / 5));

describe("leak property", () => {
  it(`no planted secret survives, raw or encoded (${RUNS} documents)`, () => {
    fc.assert(leaks({}), { numRuns: RUNS });
  });

  it(`holds for every preset and with a keyed scrubber (3 × ${PRESET_RUNS} documents)`, () => {
    fc.assert(leaks({ preset: "open_source" }), { numRuns: PRESET_RUNS });
    fc.assert(leaks({ preset: "paranoid" }), { numRuns: PRESET_RUNS });
    fc.assert(leaks({ key: new Uint8Array(32).fill(9) }), { numRuns: PRESET_RUNS });
  });

  it("fails when a rule is removed (the property is not vacuous)", () => {
    // The generic layers' own rules catch a JWT or a key block without its rule (that is their
    // job), so the weakened scrubber runs without them too.
    const weakened = fc.check(leaks({ disableRules: ["jwt", ...GENERIC] }), { numRuns: 300 });
    expect(weakened.failed).toBe(true);
    expect(String(weakened.errorInstance)).toMatch(/jwt leaked/);
    const noPem = fc.check(leaks({ disableRules: ["private-key", "secretlint-privatekey", ...GENERIC] }), {
      numRuns: 300,
    });
    expect(noPem.failed).toBe(true);
  });
});
