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
import { Scrubber, type ScrubOptions } from "../../../shared/redact/scrub.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_NUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;

const chars = (alphabet: string, min: number, max = min) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
/** Random body that contains at least one digit and one upper/lower letter, like every real token. */
const token = (alphabet: string, min: number, max = min) =>
  fc
    .tuple(
      chars(alphabet, min - 3, max - 3),
      fc.constantFrom(..."0123456789"),
      fc.constantFrom(..."QWERTY"),
      fc.constantFrom(..."qwerty"),
    )
    .map(([body, d, u, l]) => `${d}${body}${u}${l}`);
const password = chars(`${ALNUM}!$*-_.~+=`, 8, 24).map((p) => `${p}9`);

/** A planted item: the text to insert and the secret parts that must not survive. */
interface Plant {
  kind: string;
  text: string;
  secrets: string[];
}

const plant = (kind: string, text: fc.Arbitrary<[string, string[]]>): fc.Arbitrary<Plant> =>
  text.map(([t, secrets]) => ({ kind, text: t, secrets }));

const PLANTS: fc.Arbitrary<Plant>[] = [
  plant(
    "openai",
    token(ALNUM, 48).map((b) => [`sk-${b}`, [`sk-${b}`]]),
  ),
  plant(
    "openai-proj",
    token(URLSAFE, 100, 160).map((b) => [`sk-proj-${b}`, [`sk-proj-${b}`]]),
  ),
  plant(
    "anthropic",
    token(URLSAFE, 93).map((b) => [`sk-ant-api03-${b}AA`, [`sk-ant-api03-${b}AA`]]),
  ),
  plant(
    "aws",
    fc
      .tuple(
        fc.constantFrom("AKIA", "ASIA"),
        chars(UPPER_NUM, 16),
        token(B64, 40),
        fc.constantFrom("\n", " ", ", "),
      )
      .map(([p, id, secret, sep]) => [
        `aws_access_key_id=${p}${id}${sep}aws_secret_access_key=${secret}`,
        [`${p}${id}`, secret],
      ]),
  ),
  plant(
    "github",
    fc
      .tuple(fc.constantFrom("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), token(ALNUM, 36))
      .map(([p, b]) => [`${p}${b}`, [`${p}${b}`]]),
  ),
  plant(
    "github-pat",
    token(`${ALNUM}_`, 82).map((b) => [`github_pat_${b}`, [`github_pat_${b}`]]),
  ),
  plant(
    "slack",
    fc
      .tuple(
        fc.constantFrom("xoxb", "xoxp", "xoxa", "xoxs", "xoxr", "xoxo"),
        chars("0123456789", 12),
        chars("0123456789", 13),
        token(ALNUM, 24),
      )
      .map(([p, a, b, c]) => [`${p}-${a}-${b}-${c}`, [`${p}-${a}-${b}-${c}`]]),
  ),
  plant(
    "npm",
    token(ALNUM, 36).map((b) => [`npm_${b}`, [`npm_${b}`]]),
  ),
  plant(
    "jwt",
    fc
      .tuple(
        fc.constantFrom("HS256", "RS256", "ES384"),
        fc.integer({ min: 1, max: 1e9 }),
        chars("abcdefghij", 3, 12),
        token(URLSAFE, 43, 86),
      )
      .map(([alg, sub, name, sig]) => {
        const h = Buffer.from(JSON.stringify({ alg, typ: "JWT" })).toString("base64url");
        const p = Buffer.from(JSON.stringify({ sub: String(sub), name, iat: 1516239022 })).toString(
          "base64url",
        );
        const jwt = `${h}.${p}.${sig}`;
        return [jwt, [jwt, `${p}.${sig}`]];
      }),
  ),
  plant(
    "pem",
    fc
      .tuple(
        fc.constantFrom(
          "RSA PRIVATE KEY",
          "PRIVATE KEY",
          "EC PRIVATE KEY",
          "OPENSSH PRIVATE KEY",
          "ENCRYPTED PRIVATE KEY",
        ),
        fc.array(token(B64, 64), { minLength: 2, maxLength: 6 }),
        fc.constantFrom("\n", "\\n", "\r\n"),
      )
      .map(([label, lines, nl]) => [
        [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`].join(nl),
        lines,
      ]),
  ),
  plant(
    "url-password",
    fc
      .tuple(
        fc.constantFrom("https", "http", "ftp", "ssh", "git+https"),
        chars("abcdefgh", 3, 8),
        password,
        fc.constantFrom("example.com", "git.corp.internal:8443"),
      )
      .map(([s, u, p, h]) => [`${s}://${u}:${p}@${h}/path`, [p]]),
  ),
  plant(
    "db",
    fc
      .tuple(
        fc.constantFrom("postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "rediss"),
        chars("abcdefgh", 0, 8),
        password,
      )
      .map(([s, u, p]) => [`${s}://${u}:${p}@db.internal:5432/app?sslmode=require`, [p]]),
  ),
  plant(
    "bearer",
    fc
      .tuple(
        fc.constantFrom("Authorization: Bearer ", "authorization: bearer ", '"Authorization": "Bearer '),
        token(`${URLSAFE}.~`, 20, 60),
      )
      .map(([h, t]) => [`${h}${t}`, [t]]),
  ),
  plant(
    "assignment",
    fc
      .tuple(
        fc.constantFrom(
          "password=",
          "DB_PASSWORD=",
          "token: ",
          "api_key = ",
          '"secret": "',
          "client_secret='",
        ),
        password,
      )
      .map(([n, p]) => [`${n}${p}${n.endsWith('"') ? '"' : n.endsWith("'") ? "'" : ""}`, [p]]),
  ),
];

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

type Encoding = "raw" | "base64" | "base64url" | "percent";
const encode = (s: string, e: Encoding) =>
  e === "raw" ? s : e === "percent" ? encodeURIComponent(s) : Buffer.from(s).toString(e);

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

/** Documents per main run; raise with LEAK_RUNS=100000 for a soak. */
const RUNS = Math.max(1200, Number(process.env.LEAK_RUNS ?? 0));

describe("leak property", () => {
  it(`no planted secret survives, raw or encoded (${RUNS} documents)`, () => {
    fc.assert(leaks({}), { numRuns: RUNS });
  });

  it("holds for every preset and with a keyed scrubber (3 × 150 documents)", () => {
    fc.assert(leaks({ preset: "open_source" }), { numRuns: 150 });
    fc.assert(leaks({ preset: "paranoid" }), { numRuns: 150 });
    fc.assert(leaks({ key: new Uint8Array(32).fill(9) }), { numRuns: 150 });
  });

  it("fails when a rule is removed (the property is not vacuous)", () => {
    const weakened = fc.check(leaks({ disableRules: ["jwt"] }), { numRuns: 300 });
    expect(weakened.failed).toBe(true);
    expect(String(weakened.errorInstance)).toMatch(/jwt leaked/);
    const noPem = fc.check(leaks({ disableRules: ["private-key", "secretlint-privatekey"] }), {
      numRuns: 300,
    });
    expect(noPem.failed).toBe(true);
  });
});
