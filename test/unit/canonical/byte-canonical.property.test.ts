import canonicalizeReference from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteSink, canonicalizeBytes } from "#shared/canonical/byte-canonical.js";
import { readJson } from "#shared/canonical/json-reader.js";
import { canonicalize } from "#shared/canonical/profiles.js";
import { ReplayPipelineError } from "#shared/errors.js";

/**
 * The byte-level fast path must agree byte for byte with the lossless reader + `canonicalize` on
 * every well-formed text, and must give up (return false) on every text the reader rejects.
 * Texts are built token by token so that the same value is written in many ways: raw or escaped
 * characters, surrogate-pair escapes, `\/`, numbers in every textual form, random whitespace.
 */

const FAST_PROFILES = ["jcs", "openagents"] as const;
type FastProfile = (typeof FAST_PROFILES)[number];
const RUNS = 600;

// ---------------------------------------------------------------------------------------------
// Strings: code points, each written raw or escaped.

/** A JSON string literal and the string it denotes. */
interface Str {
  text: string;
  value: string;
}

const hex4 = (n: number, upper: boolean): string => {
  const h = n.toString(16).padStart(4, "0");
  return upper ? h.toUpperCase() : h;
};

const SHORT_ESCAPES: Record<number, string> = {
  8: "\\b",
  9: "\\t",
  10: "\\n",
  12: "\\f",
  13: "\\r",
  34: '\\"',
  92: "\\\\",
  47: "\\/",
};

/** Writes one code point; `style` picks among the legal spellings (raw, short escape, \uXXXX). */
function writeCodePoint(cp: number, style: number, upper: boolean): string {
  const short = SHORT_ESCAPES[cp];
  const mustEscape = cp < 0x20 || cp === 0x22 || cp === 0x5c;
  const choice = style % 3; // 0 raw (when legal), 1 short escape (when one exists), 2 \uXXXX
  if (choice === 1 && short !== undefined) return short;
  if (choice === 0 && !mustEscape) return String.fromCodePoint(cp);
  if (choice === 0 && short !== undefined) return short;
  if (cp > 0xffff) {
    const v = cp - 0x10000;
    return `\\u${hex4(0xd800 + (v >> 10), upper)}\\u${hex4(0xdc00 + (v & 0x3ff), upper)}`;
  }
  return `\\u${hex4(cp, upper)}`;
}

const anyCodePoint: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x00, max: 0x1f }) },
  { weight: 2, arbitrary: fc.constantFrom(0x22, 0x5c, 0x2f, 0x7f, 0x00, 0x0a) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0x7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x800, max: 0xd7ff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0xe000, 0xedff, 0xee00, 0xefff, 0xfeff, 0xfffd, 0xffff, 0x2028, 0x2029),
  },
  { weight: 2, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
  { weight: 1, arbitrary: fc.constantFrom(0x1f600, 0x1f4a9, 0x10000, 0x10ffff) },
);

/** Few distinct code points, so keys often share prefixes and differ only late. */
const keyCodePoint: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0x61, 0x62, 0x41, 0x5f, 0x31) },
  { weight: 2, arbitrary: fc.constantFrom(0x00, 0x0a, 0x1f, 0x22, 0x5c, 0x2f, 0x7f) },
  { weight: 2, arbitrary: fc.constantFrom(0xe9, 0x7ff, 0xd7ff, 0xe000, 0xee00, 0xffff, 0x1f600, 0x10000) },
  { weight: 1, arbitrary: anyCodePoint },
);

function stringArb(cp: fc.Arbitrary<number>, maxLength: number): fc.Arbitrary<Str> {
  return fc.array(fc.tuple(cp, fc.nat(5), fc.boolean()), { maxLength }).map((parts) => ({
    text: `"${parts.map(([c, style, upper]) => writeCodePoint(c, style, upper)).join("")}"`,
    value: String.fromCodePoint(...parts.map(([c]) => c)),
  }));
}

const valueString = stringArb(anyCodePoint, 14);
const keyString = stringArb(keyCodePoint, 5);

// ---------------------------------------------------------------------------------------------
// Numbers in many textual forms (never overflowing a double: overflow is not well-formed for
// these profiles, the fast path gives it up on purpose).

const digitString = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(""));

const intPart: fc.Arbitrary<string> = fc.oneof(
  fc.constant("0"),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digitString(0, 24)).map(([a, b]) => `${a}${b}`),
);

const NUMBER_EDGES = [
  "0",
  "-0",
  "0.0",
  "-0.0",
  "-0.00",
  "0.00",
  "1.0",
  "-1.0",
  "10.0",
  "1.50",
  "-0.5",
  "-0.50",
  "0.1",
  "0.00001",
  "0.000001",
  "0.0000001",
  "0.0001",
  "-0.00001",
  "-0.000001",
  "0.000010",
  "1e5",
  "1E5",
  "1e+5",
  "1E-7",
  "1e-7",
  "1e007",
  "123.456e10",
  "123.456E-10",
  "1e15",
  "1e16",
  "1e20",
  "1e21",
  "1e22",
  "1e-5",
  "1e-6",
  "1e-400",
  "-1e-400",
  "5e-324",
  "4.9e-324",
  "2.2250738585072014e-308",
  "1.7976931348623157e308",
  "0.1e1",
  "100",
  "999999999999999",
  "1000000000000000",
  "9999999999999999",
  "123456789012345",
  "1234567890123456",
  "12345678901234567890123",
  "0.30000000000000004",
  "123456789012.345",
  "1234567890123.45",
  "12345678901234.5",
  "123456789012345.6",
  "9007199254740991",
  "9007199254740992",
  "9007199254740993",
  "-9007199254740991",
  "-9007199254740993",
  "9007199254740993.0",
  "18446744073709551614",
  "18446744073709551615",
  "18446744073709551616",
  "28446744073709551615",
  "99999999999999999999",
  "184467440737095516150",
  "-18446744073709551615",
  "9223372036854775807",
  "9223372036854775808",
  "-9223372036854775807",
  "-9223372036854775808",
  "-9223372036854775809",
  "-10000000000000000000",
  "1.8446744073709552e19",
];

const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_EDGES) },
  // Integers up to 25 digits, either sign.
  { weight: 3, arbitrary: fc.tuple(fc.boolean(), intPart).map(([neg, i]) => (neg ? `-${i}` : i)) },
  // Short decimals (the verbatim path) with and without trailing zeros.
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.boolean(),
        fc.oneof(fc.constant("0"), fc.integer({ min: 1, max: 99999999 }).map(String)),
        digitString(1, 9),
      )
      .map(([neg, i, f]) => `${neg ? "-" : ""}${i}.${f}`),
  },
  // Small magnitudes: 0.000…ddd around the fixed/scientific switch.
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.boolean(), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 9 }), digitString(0, 16))
      .map(([neg, zeros, d, rest]) => `${neg ? "-" : ""}0.${"0".repeat(zeros)}${d}${rest}`),
  },
  // General: sign, integer, fraction, exponent.
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.boolean(),
        intPart,
        fc.option(digitString(1, 20), { nil: undefined }),
        fc.option(
          fc.tuple(
            fc.constantFrom("e", "E"),
            fc.constantFrom("", "+", "-"),
            fc.integer({ min: 0, max: 280 }),
            fc.nat(2),
          ),
          { nil: undefined },
        ),
      )
      .map(([neg, i, frac, exp]) => {
        let t = `${neg ? "-" : ""}${i}`;
        if (frac !== undefined) t += `.${frac}`;
        if (exp !== undefined) {
          const [e, sign, n, pad] = exp;
          t += `${e}${sign}${"0".repeat(pad)}${n}`;
        }
        return t;
      }),
  },
);

// ---------------------------------------------------------------------------------------------
// Documents.

const ws: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  { weight: 3, arbitrary: fc.constantFrom(" ", "\n", "\t", "\r", "\r\n", "  ", " \t\n ") },
);

const { doc } = fc.letrec<{ doc: string; array: string; object: string }>((tie) => ({
  doc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    valueString.map((s) => s.text),
    fc.constantFrom("true", "false", "null"),
    tie("array"),
    tie("object"),
  ),
  array: fc
    .tuple(fc.array(fc.tuple(ws, tie("doc"), ws), { maxLength: 6 }), ws)
    .map(([items, inner]) =>
      items.length === 0 ? `[${inner}]` : `[${items.map(([a, v, b]) => a + v + b).join(",")}]`,
    ),
  object: fc
    .tuple(
      fc.uniqueArray(fc.tuple(keyString, ws, ws, tie("doc"), ws, ws), {
        maxLength: 8,
        selector: ([k]) => k.value,
      }),
      ws,
    )
    .map(([members, inner]) =>
      members.length === 0
        ? `{${inner}}`
        : `{${members.map(([k, a, b, v, c, d]) => `${a}${k.text}${b}:${c}${v}${d}`).join(",")}}`,
    ),
}));

/** A whole document with whitespace around it. */
const jsonText: fc.Arbitrary<string> = fc.tuple(ws, doc, ws).map(([a, v, b]) => a + v + b);

function fastPath(text: string, profile: FastProfile, sink = new ByteSink()): Buffer | undefined {
  return canonicalizeBytes(Buffer.from(text, "utf8"), profile, sink) ? Buffer.from(sink.view()) : undefined;
}

function slowPath(text: string, profile: FastProfile): Buffer {
  return Buffer.from(canonicalize(readJson(text), profile), "utf8");
}

function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ReplayPipelineError) return error.code;
    throw error;
  }
  return "(no error)";
}

describe("canonicalizeBytes agrees with readJson + canonicalize", () => {
  for (const profile of FAST_PROFILES) {
    it(`${profile}: well-formed texts are handled and byte-identical`, () => {
      fc.assert(
        fc.property(jsonText, (text) => {
          const slow = slowPath(text, profile);
          const fast = fastPath(text, profile);
          expect(fast, `fast path gave up on ${JSON.stringify(text)}`).toBeDefined();
          expect(fast?.toString("utf8")).toBe(slow.toString("utf8"));
          expect(fast?.equals(slow)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    });

    it(`${profile}: numbers in every textual form, alone and inside containers`, () => {
      fc.assert(
        fc.property(numberText, ws, ws, (n, a, b) => {
          for (const text of [`${a}${n}${b}`, `[${a}${n}${b},${n}]`, `{"k":${a}${n}${b}}`]) {
            const slow = slowPath(text, profile).toString("utf8");
            expect(fastPath(text, profile)?.toString("utf8"), text).toBe(slow);
          }
        }),
        { numRuns: RUNS },
      );
    });

    it(`${profile}: appending several documents to one small, growing sink`, () => {
      fc.assert(
        fc.property(fc.array(jsonText, { minLength: 1, maxLength: 4 }), (texts) => {
          const sink = new ByteSink(4);
          for (const text of texts)
            expect(canonicalizeBytes(Buffer.from(text, "utf8"), profile, sink)).toBe(true);
          const expected = Buffer.concat(texts.map((t) => slowPath(t, profile)));
          expect(sink.view().toString("utf8")).toBe(expected.toString("utf8"));
        }),
        { numRuns: RUNS },
      );
    });
  }

  it("jcs: both paths agree with the reference RFC 8785 implementation (npm canonicalize)", () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        const reference = canonicalizeReference(JSON.parse(text));
        expect(fastPath(text, "jcs")?.toString("utf8")).toBe(reference);
        expect(canonicalize(readJson(text), "jcs")).toBe(reference);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Malformed texts: the fast path gives up and the reader names the problem.

type Defect = "json.duplicate_key" | "json.lone_surrogate" | "json.control_character" | "json.syntax";

/** Another spelling of the same key (escaped differently), so the duplicate is not byte-equal. */
function respell(key: Str, style: number): string {
  const cps = Array.from(key.value, (c) => c.codePointAt(0) as number);
  return `"${cps.map((c, i) => writeCodePoint(c, style + i, style % 2 === 0)).join("")}"`;
}

const duplicateKeyObject: fc.Arbitrary<string> = fc
  .tuple(
    fc.uniqueArray(fc.tuple(keyString, jsonText), { minLength: 1, maxLength: 5, selector: ([k]) => k.value }),
    fc.nat(),
    fc.nat(),
    fc.nat(5),
    jsonText,
  )
  .map(([members, which, where, style, dupValue]) => {
    const [key] = members[which % members.length] as [Str, string];
    const entries = members.map(([k, v]) => `${k.text}:${v}`);
    entries.splice(where % (entries.length + 1), 0, `${respell(key, style)}:${dupValue}`);
    return `{${entries.join(",")}}`;
  });

const loneSurrogateString: fc.Arbitrary<string> = fc
  .tuple(
    valueString,
    fc.constantFrom(
      "\\ud800",
      "\\uDBFF",
      "\\udc00",
      "\\uDFFF",
      "\\ud83d\\ud83d",
      "\\ud83d\\u0041",
      "\\ud83dx",
      "\\ude00\\ud83d",
      "\\ude00\\ude00",
      "\\uDFFF\\uDC00",
      "\\ud800\\ud800\\udc00",
    ),
    valueString,
  )
  .map(([a, lone, b]) => `"${a.text.slice(1, -1)}${lone}${b.text.slice(1, -1)}"`);

const rawControlString: fc.Arbitrary<string> = fc
  .tuple(valueString, fc.integer({ min: 0, max: 0x1f }), valueString)
  .map(([a, c, b]) => `"${a.text.slice(1, -1)}${String.fromCharCode(c)}${b.text.slice(1, -1)}"`);

/** Puts a defective fragment somewhere inside an otherwise valid document. */
function embed(fragment: fc.Arbitrary<string>, asKey: boolean): fc.Arbitrary<string> {
  return fc.tuple(fragment, jsonText, jsonText, fc.nat(3)).map(([f, x, y, place]) => {
    if (asKey) return place % 2 === 0 ? `{${f}:${x}}` : `[${x},{"a":${y},${f}:1}]`;
    switch (place) {
      case 0:
        return f;
      case 1:
        return `[${x},${f},${y}]`;
      case 2:
        return `{"a":${x},"b":{"c":${f}}}`;
      default:
        return `[{"z":[${y},${f}]}]`;
    }
  });
}

const GARBAGE = [
  "x",
  "}",
  "]",
  ",",
  ":",
  "{}",
  "[]",
  '"s"',
  "null",
  "1",
  "-",
  "0x",
  "tru",
  "/",
  "\u00e9",
  "\u0000",
];

const defective: fc.Arbitrary<[Defect, string]> = fc.oneof(
  embed(duplicateKeyObject, false).map((t): [Defect, string] => ["json.duplicate_key", t]),
  embed(loneSurrogateString, false).map((t): [Defect, string] => ["json.lone_surrogate", t]),
  embed(loneSurrogateString, true).map((t): [Defect, string] => ["json.lone_surrogate", t]),
  embed(rawControlString, false).map((t): [Defect, string] => ["json.control_character", t]),
  embed(rawControlString, true).map((t): [Defect, string] => ["json.control_character", t]),
  fc
    .tuple(jsonText, fc.constantFrom(" ", "\n", "\t", "\r\n"), fc.constantFrom(...GARBAGE))
    .map(([t, sep, g]): [Defect, string] => ["json.syntax", `${t}${sep}${g}`]),
);

/** Small edits of valid texts: most break them, some keep them valid in a new way. */
const edited: fc.Arbitrary<string> = fc
  .tuple(
    jsonText,
    fc.array(
      fc.tuple(
        fc.constantFrom("delete", "insert", "truncate", "repeat"),
        fc.nat(),
        fc.nat(8),
        fc.constantFrom(
          ...'{}[],:"\\ -.e+0159tfnu/\u00e9\u{1f600}\u0000\n'.split(""),
          "\\u",
          "\\ud83d",
          "fals",
          "nul",
          "tru",
        ),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [kind, at, len, piece] of edits) {
      const p = t.length === 0 ? 0 : at % (t.length + 1);
      if (kind === "delete") t = t.slice(0, p) + t.slice(p + 1 + (len % 3));
      else if (kind === "insert") t = t.slice(0, p) + piece + t.slice(p);
      else if (kind === "truncate") t = t.slice(0, p);
      else t = t.slice(0, p) + t.slice(p, p + len) + t.slice(p);
    }
    // Slicing may split a surrogate pair; keep the text well-formed so its UTF-8 is meaningful.
    return t.toWellFormed();
  });

describe("canonicalizeBytes gives up where readJson rejects", () => {
  for (const profile of FAST_PROFILES) {
    it(`${profile}: on edited texts, true implies the lossless path succeeds with the same bytes`, () => {
      fc.assert(
        fc.property(edited, (text) => {
          const sink = new ByteSink(8);
          const fast = canonicalizeBytes(Buffer.from(text, "utf8"), profile, sink);
          let slow: string | undefined;
          try {
            slow = canonicalize(readJson(text), profile);
          } catch (error) {
            if (!(error instanceof ReplayPipelineError)) throw error;
          }
          if (fast) expect(sink.view().toString("utf8"), text).toBe(slow);
          else expect(sink.len).toBe(0);
          // The only well-formed inputs the fast path may leave to the reader are overflowing numbers.
          if (!fast && slow !== undefined) expect.fail(`fast path gave up on valid ${JSON.stringify(text)}`);
        }),
        { numRuns: 1000 },
      );
    });
  }

  it("duplicate keys, lone surrogate escapes, raw control characters, trailing garbage", () => {
    fc.assert(
      fc.property(defective, fc.constantFrom(...FAST_PROFILES), ([defect, text], profile) => {
        const sink = new ByteSink(16);
        expect(canonicalizeBytes(Buffer.from(text, "utf8"), profile, sink), text).toBe(false);
        expect(sink.len).toBe(0);
        expect(
          errorCode(() => readJson(text)),
          text,
        ).toBe(defect);
      }),
      { numRuns: RUNS },
    );
  });

  it("concrete defects", () => {
    const cases: [Defect, string][] = [
      ["json.duplicate_key", '{"a":1,"a":2}'],
      ["json.duplicate_key", '{"a":1,"\\u0061":2}'],
      ["json.duplicate_key", '{"\\ud83d\\ude00":1,"\u{1f600}":2}'],
      ["json.duplicate_key", '{"/":1,"\\/":2}'],
      ["json.duplicate_key", '[{"b":0,"a":{"x":1},"a":[]}]'],
      ["json.lone_surrogate", '"\\ud800"'],
      ["json.lone_surrogate", '{"\\udc00":1}'],
      ["json.lone_surrogate", '["\\ud83d\\u0041"]'],
      ["json.control_character", '"a\tb"'],
      ["json.control_character", '{"a\nb":1}'],
      ["json.control_character", '"\u0000"'],
      ["json.syntax", "{} x"],
      ["json.syntax", "1 2"],
      ["json.syntax", '"a" "b"'],
      ["json.syntax", "[1]]"],
    ];
    for (const [defect, text] of cases) {
      for (const profile of FAST_PROFILES) {
        expect(canonicalizeBytes(Buffer.from(text, "utf8"), profile, new ByteSink()), text).toBe(false);
      }
      expect(
        errorCode(() => readJson(text)),
        text,
      ).toBe(defect);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Member order: UTF-16 code units (jcs) versus code points (openagents).

describe("member order", () => {
  const E000 = "\ue000";
  const EMOJI = "\u{1f600}";
  const spellings = [
    `{"${E000}":1,"${EMOJI}":2}`,
    `{"${EMOJI}":2,"${E000}":1}`,
    '{"\\uE000":1,"\\uD83D\\uDE00":2}',
    '{"\\ud83d\\ude00":2,"\\ue000":1}',
    `{"\\ud83d\\ude00":2,"${E000}":1}`,
    `{ "${EMOJI}" : 2 , "\\ue000" : 1 }`,
  ];
  const jcsExpected = `{"${EMOJI}":2,"${E000}":1}`;
  const openagentsExpected = `{"${E000}":1,"${EMOJI}":2}`;

  it.each(spellings)("jcs puts the emoji (D83D…) before U+E000, on both paths: %s", (text) => {
    expect(canonicalize(readJson(text), "jcs")).toBe(jcsExpected);
    expect(fastPath(text, "jcs")?.toString("utf8")).toBe(jcsExpected);
  });

  it.each(spellings)("openagents puts U+E000 before the emoji (U+1F600), on both paths: %s", (text) => {
    expect(canonicalize(readJson(text), "openagents")).toBe(openagentsExpected);
    expect(fastPath(text, "openagents")?.toString("utf8")).toBe(openagentsExpected);
  });

  it("longer keys sharing a prefix, with escapes", () => {
    const text = `{"a${E000}x":1,"a${EMOJI}":2,"a\\n":3,"a":4,"a\\u0000":5,"\\u00e9":6,"b":7}`;
    expect(canonicalize(readJson(text), "jcs")).toBe(
      `{"a":4,"a\\u0000":5,"a\\n":3,"a${EMOJI}":2,"a${E000}x":1,"b":7,"é":6}`,
    );
    expect(canonicalize(readJson(text), "openagents")).toBe(
      `{"a":4,"a\\u0000":5,"a\\n":3,"a${E000}x":1,"a${EMOJI}":2,"b":7,"é":6}`,
    );
    for (const profile of FAST_PROFILES) {
      expect(fastPath(text, profile)?.toString("utf8")).toBe(canonicalize(readJson(text), profile));
    }
  });
});
