/**
 * Generators of the generic-shapes recall test (`generic-shapes.test.ts`): secrets in SHAPES no rule was
 * written for, so that recall is measured on things the rules were not tuned to.
 *
 * - Vendor names are invented from random syllables (no vendor list can know them), cased and joined in
 *   every usual way (`zorvix_api_key`, `ZORVIX_API_KEY`, `zorvixApiKey`, `zorvix-api-key`, `Zorvix.ApiKey`);
 *   credential words come from {@link CRED_WORDS}.
 * - Secret bodies are high-entropy tokens (base62, base64 with `+/=`, base64url, hex, base36, UUID) or
 *   low-entropy passwords (`hunter2`, `Summer2024!`, `P@ssw0rd`, words+digits) of varied lengths.
 * - Every case records the secrets that must not survive (the check also looks for their base64,
 *   base64url and percent-encoded forms). A case whose text WITHOUT the secret already holds the secret
 *   (a password that happens to be a word of the template) is dropped, so every case can be caught.
 *
 * Negatives are texts that hold no secret but look a bit like one (digests, git SHAs, ids, placeholders,
 * prose using the credential words): they must come out unchanged.
 *
 * Everything is drawn with fast-check from fixed seeds ({@link sampleShape}), so a failure is reproducible.
 */

import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import fc from "fast-check";

// ---------------------------------------------------------------------------------------------------------
// Alphabets and small helpers

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const ALNUM = `${UPPER}${LOWER}${DIGITS}`;
const HEX = "0123456789abcdef";
/** Line breaks as a text holds them: raw, escaped in a JSON string, or CRLF. */
const NEWLINES = ["\n", "\\n", "\r\n"] as const;
/** The alphabet of the suffixes Kubernetes generates: no vowels, no 0, 1 or 3. */
const KUBE_SAFE = "bcdfghjklmnpqrstvwxz2456789";
/** An IAM unique id's body (after `AIDA`, `AROA`): upper-case letters and digits. */
const AWS_ID_BODY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const CRYPT = `./${DIGITS}${UPPER}${LOWER}`;
const B64 = `${ALNUM}+/`;

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));

/** A random base62 body holding at least one digit, one upper and one lower letter (like every real token). */
const token = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc
    .tuple(
      chars(alphabet, min - 3, max - 3),
      fc.constantFrom(...DIGITS),
      fc.constantFrom(..."QWERTYUPKZ"),
      fc.constantFrom(..."qwertyupkz"),
      fc.nat(),
    )
    .map(([body, d, u, l, seed]) => {
      // the three forced characters go at random places, not always at the ends
      let s = body;
      let at = seed;
      for (const c of [d, u, l]) {
        at = (at * 31 + 7) % 1_000_003;
        const i = at % (s.length + 1);
        s = s.slice(0, i) + c + s.slice(i);
      }
      return s;
    });

/** UUIDs of the versions met in practice (time-based, random, time-ordered). */
const uuid = fc.uuid({ version: [1, 4, 7] });

const capital = (s: string): string => (s[0] ?? "").toUpperCase() + s.slice(1);

/** The four forms of a secret the check looks for in a scrubbed text. */
export function secretForms(secret: string): string[] {
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString("base64"),
      Buffer.from(secret).toString("base64url"),
    ]),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Secret bodies

/** A secret body: what kind it is (reported per kind) and its text. */
interface Body {
  kind: string;
  entropy: "high" | "low";
  value: string;
}

/** Replaces the character at a random place (never in the `=` padding) by one of `alphabet`. */
const forceOne = (arb: fc.Arbitrary<string>, alphabet: string): fc.Arbitrary<string> =>
  fc.tuple(arb, fc.nat(), fc.constantFrom(...alphabet)).map(([s, at, c]) => {
    const end = s.replace(/=+$/, "").length;
    const i = at % Math.max(1, end - 2);
    return s.slice(0, i + 1) + c + s.slice(i + 2);
  });

const HIGH_BODIES: Record<string, fc.Arbitrary<string>> = {
  base62: token(ALNUM, 16, 64),
  // padded base64 (`=` or `==`) with at least one `+` or `/`
  base64: forceOne(
    fc
      .uint8Array({ minLength: 13, maxLength: 47 })
      .filter((b) => b.length % 3 !== 0)
      .map((b) => Buffer.from(b).toString("base64")),
    "+/",
  ),
  base64url: forceOne(
    fc.uint8Array({ minLength: 14, maxLength: 48 }).map((b) => Buffer.from(b).toString("base64url")),
    "-_",
  ),
  hex: fc
    .tuple(fc.integer({ min: 16, max: 32 }), fc.boolean())
    .chain(([half, upper]) => chars(HEX, half * 2).map((h) => (upper ? h.toUpperCase() : h)))
    .filter((h) => /[a-f]/i.test(h) && /\d/.test(h)),
  base36: chars(`${LOWER}${DIGITS}`, 20, 40).filter((s) => /\d.*\d/.test(s) && /[a-z].*[a-z]/.test(s)),
  uuid: uuid,
};

const PASSWORD_WORDS = [
  "hunter",
  "dragon",
  "sunshine",
  "letmein",
  "shadow",
  "master",
  "welcome",
  "football",
  "baseball",
  "princess",
  "qwerty",
  "trustno",
  "superman",
  "starwars",
  "freedom",
  "whatever",
  "cheese",
  "purple",
  "orange",
  "tiger",
  "falcon",
  "rocket",
  "coffee",
  "banana",
  "horse",
  "battery",
  "staple",
  "correct",
  "admin",
  "zebra",
];
const LEET: Record<string, string> = { a: "@", o: "0", e: "3", i: "1", s: "$" };
const word = fc.constantFrom(...PASSWORD_WORDS);
const digits = (min: number, max: number) => chars(DIGITS, min, max);

const LOW_BODIES: Record<string, fc.Arbitrary<string>> = {
  // hunter2, dragon42, letmein123
  "word+digit": fc.tuple(word, digits(1, 3), fc.boolean()).map(([w, d, c]) => `${c ? capital(w) : w}${d}`),
  // Summer2024!, Winter23#
  "season+year": fc
    .tuple(
      fc.constantFrom("Summer", "Winter", "Spring", "Autumn", "Fall", "January", "October"),
      fc.integer({ min: 2015, max: 2026 }),
      fc.boolean(),
      fc.constantFrom("!", "#", "!!", "", "?", "*"),
    )
    .map(([s, y, short, p]) => `${s}${short ? String(y).slice(2) : y}${p}`),
  // P@ssw0rd, Adm1n!, Dr@g0n99
  leet: fc
    .tuple(fc.constantFrom("password", ...PASSWORD_WORDS), digits(0, 3), fc.constantFrom("", "!", "#", "$"))
    .map(([w, d, p]) => `${capital(w.replace(/[aoeis]/g, (c) => LEET[c] ?? c))}${d}${p}`)
    .filter((s) => /[^A-Za-z]/.test(s)),
  // correcthorse77, BlueHorseBattery9
  words: fc
    .tuple(fc.array(word, { minLength: 2, maxLength: 3 }), digits(1, 4), fc.boolean())
    .map(([ws, d, camel]) => `${ws.map((w, i) => (camel || i > 0 ? capital(w) : w)).join("")}${d}`),
};

const bodyOf = (table: Record<string, fc.Arbitrary<string>>, entropy: Body["entropy"]): fc.Arbitrary<Body> =>
  fc.oneof(
    ...Object.entries(table).map(([kind, arb]) => arb.map((value): Body => ({ kind, entropy, value }))),
  );

/** Any body, high or low entropy. */
const anyBody: fc.Arbitrary<Body> = fc.oneof(bodyOf(HIGH_BODIES, "high"), bodyOf(LOW_BODIES, "low"));

// ---------------------------------------------------------------------------------------------------------
// Invented vendors and credential words

const SYLLABLES = [
  "zor",
  "vix",
  "qua",
  "mu",
  "tal",
  "dre",
  "nyx",
  "gof",
  "xan",
  "pel",
  "quin",
  "rho",
  "sev",
  "tuk",
  "wam",
  "yel",
  "jex",
  "fri",
  "gow",
  "hul",
  "kre",
  "mos",
  "nib",
  "oru",
  "pax",
  "ruv",
  "sim",
  "vod",
  "zef",
  "bri",
  "cax",
  "dul",
  "fem",
  "gix",
  "hob",
  "jor",
];
/** Real vendor names or credential words that syllables could spell by chance. */
const REAL_WORDS =
  /key|pass|secret|token|auth|api|access|login|cred|sumo|okta|snyk|lob|lin|sonar|git|aws|gcp/i;

/** An invented vendor name: 2-3 random syllables (`zorvix`, `quinmutal`). */
const vendorName: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...SYLLABLES), { minLength: 2, maxLength: 3 })
  .map((s) => s.join(""))
  .filter((v) => !REAL_WORDS.test(v));

/** Credential words, each as its words (`private key` → `["private", "key"]`). */
const CRED_WORDS: readonly (readonly string[])[] = [
  ["key"],
  ["token"],
  ["secret"],
  ["password"],
  ["passwd"],
  ["pwd"],
  ["pass"],
  ["auth"],
  ["credential"],
  ["bearer"],
  ["private", "key"],
  ["signature"],
  ["session", "token"],
  ["cookie"],
  ["license", "key"],
  ["webhook"],
  ["dsn"],
  ["api", "key"],
  ["access", "key"],
  ["pat"],
];
const credWord = fc.constantFrom(...CRED_WORDS);

type Style = "snake" | "upper" | "kebab" | "camel" | "pascal" | "dot";
const STYLES: readonly Style[] = ["snake", "upper", "kebab", "camel", "pascal", "dot"];

/** An identifier made of `words` in `style`: `zorvix_api_key`, `ZORVIX_API_KEY`, `zorvixApiKey`, … */
function ident(words: readonly string[], style: Style): string {
  switch (style) {
    case "snake":
      return words.join("_");
    case "upper":
      return words.join("_").toUpperCase();
    case "kebab":
      return words.join("-");
    case "camel":
      return words.map((w, i) => (i === 0 ? w : capital(w))).join("");
    case "pascal":
      return words.map(capital).join("");
    case "dot":
      return words.length > 1 ? `${words[0]}.${words.slice(1).join("_")}` : (words[0] ?? "");
  }
}

/** Vendor name cased one of three ways. */
const casedVendor = fc
  .tuple(vendorName, fc.constantFrom("lower", "upper", "capital"))
  .map(([v, c]) => (c === "lower" ? v : c === "upper" ? v.toUpperCase() : capital(v)));

/** Credential word(s) written in prose, cased one of three ways (`api key`, `API KEY`, `Api key`). */
const proseCred = fc.tuple(credWord, fc.constantFrom("lower", "upper", "capital")).map(([w, c]) => {
  const s = w.join(" ");
  return c === "lower" ? s : c === "upper" ? s.toUpperCase() : capital(s);
});

const quote = fc.constantFrom('"', "'", "");
const hostName = fc
  .tuple(vendorName, fc.constantFrom("io", "com", "net", "internal", "dev", "cloud"))
  .map(([v, t]) => `${v}.${t}`);
const userName = fc.constantFrom(
  "admin",
  "deploy",
  "svc_build",
  "root",
  "ci",
  "jdoe",
  "app_user",
  "sa",
  "ops",
);
const pathPart = fc.constantFrom("v1/items", "api/v2/jobs", "x", "upload", "v3/users/42", "graphql", "");

// ---------------------------------------------------------------------------------------------------------
// Cases and shapes

/** One generated case: the text scrubbed, and the secrets that must not survive (in any of their forms). */
export interface ShapeCase {
  family: string;
  shape: string;
  /** The body kind (`base62`, `hex`, `word+digit`, `bcrypt`, …), reported per kind. */
  body: string;
  text: string;
  secrets: string[];
}

/** A shape: its family (recall is asserted per family), its name, and the arbitrary of its cases. */
export interface Shape {
  family: string;
  name: string;
  arb: fc.Arbitrary<ShapeCase>;
}

/**
 * A shape whose text is `build(secret)`: cases where `build("")` already holds a form of the secret (the
 * template spells the password) are dropped, so every case can be caught.
 */
function shape<T>(
  family: string,
  name: string,
  parts: fc.Arbitrary<T>,
  bodyArb: fc.Arbitrary<Body>,
  build: (p: T) => (secret: string) => string,
): Shape {
  const arb = fc
    .tuple(parts, bodyArb)
    .map(([p, b]): ShapeCase & { skeleton: string } => {
      const render = build(p);
      return {
        family,
        shape: name,
        body: b.kind,
        text: render(b.value),
        secrets: [b.value],
        skeleton: render(""),
      };
    })
    .filter((c) => secretForms(c.secrets[0] ?? "").every((f) => !c.skeleton.includes(f)))
    .map(({ skeleton: _, ...c }) => c);
  return { family, name, arb };
}

/** A shape whose cases make their own secrets (hashes, key blocks, JWTs). */
function rawShape(
  family: string,
  name: string,
  arb: fc.Arbitrary<{ body: string; text: string; secrets: string[] }>,
): Shape {
  return { family, name, arb: arb.map((c) => ({ family, shape: name, ...c })) };
}

// ---------------------------------------------------------------------------------------------------------
// Family "context": a value assigned to / introduced by a name holding an invented vendor + credential word

const vendorIdent = fc
  .tuple(vendorName, credWord, fc.constantFrom(...STYLES))
  .map(([v, c, st]) => ident([v, ...c], st));

/** "The password is s" in other languages and scripts. */
const LOCALIZED_PASSWORDS: readonly ((s: string) => string)[] = [
  (s) => `Passwort: ${s}`,
  (s) => `Das Passwort ist ${s}`,
  (s) => `le mot de passe est ${s}`,
  (s) => `contraseña: ${s}`,
  (s) => `a senha é ${s}`,
  (s) => `wachtwoord: ${s}`,
  (s) => `пароль: ${s}`,
  (s) => `密码：${s}`,
  (s) => `パスワード: ${s}`,
  (s) => `비밀번호: ${s}`,
  (s) => `şifre: ${s}`,
  (s) => `hasło: ${s}`,
];

export const CONTEXT_SHAPES: readonly Shape[] = [
  shape(
    "context",
    "localized `пароль: s`, `Das Passwort ist s`, `密码：s`",
    fc.constantFrom(...LOCALIZED_PASSWORDS),
    anyBody.filter((b) => /^[!-~]+$/.test(b.value) && !/["'`]/.test(b.value) && /[\d\W_]/.test(b.value)),
    (form) => (s) => form(s),
  ),
  shape(
    "context",
    'assign `v_cred = "s"`',
    fc.tuple(
      vendorIdent,
      fc.constantFrom("=", " = ", "= ", " ="),
      quote,
      fc.constantFrom("", "  ", "const ", "let ", "$", "set "),
      fc.constantFrom("", ";", "\n", "  # from vault", ","),
    ),
    anyBody,
    ([id, eq, q, pre, post]) =>
      (s) =>
        `${pre}${id}${eq}${q}${s}${q}${post}`,
  ),
  shape(
    "context",
    "yaml `vCred: s`",
    fc.tuple(
      vendorName,
      credWord,
      fc.constantFrom("camel", "pascal", "snake", "nested"),
      fc.constantFrom("", '"', "'"),
      fc.constantFrom("", "  ", "    "),
    ),
    anyBody,
    ([v, c, st, q, indent]) =>
      (s) =>
        st === "nested"
          ? `${v}:\n${indent}  ${ident([...c], "camel")}: ${q}${s}${q}\n${indent}  region: eu-west-1`
          : `${indent}${ident([v, ...c], st)}: ${q}${s}${q}`,
  ),
  shape(
    "context",
    "markdown `**V cred**: s`, `| V_CRED | s |`, `login is u / s`",
    fc.tuple(
      vendorName,
      credWord,
      fc.constantFrom<((name: string, s: string) => string)[]>(
        (n, s) => `- **${n}**: \`${s}\``,
        (n, s) => `__${n}__: ${s}`,
        (n, s) => `| name | value |\n|---|---|\n| ${n} | ${s} |\n| region | eu-west-1 |`,
        (n, s) => `| ${n} | \`${s}\` |`,
      ),
    ),
    anyBody.filter((b) => !/[\s|`*_]/.test(b.value)),
    ([v, c, place]) =>
      (s) =>
        place(ident([v, ...c], "upper"), s),
  ),
  shape(
    "context",
    "prose `changed the v password from 'a' to 's'`",
    fc.tuple(vendorName, fc.constantFrom("'", '"', "`")),
    anyBody.filter((b) => !/[\s'"`]/.test(b.value) && /[0-9]/.test(b.value) && b.value.length >= 6),
    ([v, q]) =>
      (s) =>
        `I changed the ${v} password from ${q}Winter2023!${q} to ${q}${s}${q} and restarted it.`,
  ),
  shape(
    "context",
    "yaml block `vCred: |⏎  s`",
    fc.tuple(vendorName, credWord, fc.constantFrom("|", "|-", ">", ">-"), fc.constantFrom(...NEWLINES)),
    // One line of a block scalar: no blank in it.
    anyBody.filter((b) => !/\s/.test(b.value)),
    ([v, c, header, nl]) =>
      (s) =>
        `${ident([v, ...c], "snake")}: ${header}${nl}  ${s}${nl}region: eu-west-1`,
  ),
  shape(
    "context",
    "env `export VENDOR_TOKEN=s`",
    fc.tuple(
      vendorName,
      credWord,
      fc.constantFrom("export ", "", "ENV ", "$env:", "set "),
      fc.constantFrom("", '"', "'"),
    ),
    anyBody,
    ([v, c, pre, q]) =>
      (s) =>
        `${pre}${ident([v, ...c], "upper")}=${pre === "$env:" && q === "" ? '"' : q}${s}${pre === "$env:" && q === "" ? '"' : q}`,
  ),
  shape(
    "context",
    'json in a string `{"v_key": "s"}`',
    fc.tuple(
      vendorName,
      credWord,
      fc.constantFrom<Style>("snake", "camel", "upper", "kebab"),
      // Quotes as JSON, JSON in a string, and JSON in a string in a string (a tool printing one).
      fc.constantFrom('"', '\\"', '\\\\\\"'),
      fc.boolean(),
    ),
    // A body with `"` or `\\` would be escaped in the text: the planted secret would not be there.
    anyBody.filter((b) => !/["\\]/.test(b.value)),
    ([v, c, st, q, first]) =>
      (s) => {
        const member = `${q}${ident([v, ...c], st)}${q}: ${q}${s}${q}`;
        const other = `${q}region${q}: ${q}eu-west-1${q}`;
        return `{${first ? `${member}, ${other}` : `${other}, ${member}`}}`;
      },
  ),
  shape(
    "context",
    'pair `auth=("user", "s")`',
    fc.tuple(
      fc.constantFrom("auth", "credentials", "basic_auth", "login"),
      fc.constantFrom("=", " = ", ": "),
      fc.constantFrom<[string, string]>(["(", ")"], ["[", "]"]),
      userName,
      fc.constantFrom('"', "'"),
    ),
    anyBody.filter((b) => !/["'\r\n]/.test(b.value)),
    ([name, eq, [open, close], u, q]) =>
      (s) =>
        `requests.get(url, ${name}${eq}${open}${q}${u}${q}, ${q}${s}${q}${close})`,
  ),
  shape(
    "context",
    "arrow `v_secret => 's'`",
    fc.tuple(vendorIdent, fc.constantFrom("", ":", "'", '"'), fc.constantFrom("'", '"')),
    anyBody,
    ([id, key, q]) =>
      (s) => {
        const name = key === ":" ? `:${id}` : `${key}${id}${key}`;
        return `{ ${name} => ${q}${s}${q} }`;
      },
  ),
  shape(
    "context",
    "walrus `VENDOR_PAT := s`",
    fc.tuple(vendorIdent, fc.constantFrom("", '"')),
    anyBody,
    ([id, q]) =>
      (s) =>
        `${id} := ${q}${s}${q}`,
  ),
  shape(
    "context",
    "dash `vendor token - 's'`",
    fc.tuple(casedVendor, proseCred, quote),
    anyBody,
    ([v, c, q]) =>
      (s) =>
        `${v} ${c} - ${q}${s}${q}`,
  ),
  shape(
    "context",
    "log `[DEBUG] Using vendor KEY=s`",
    fc.tuple(
      casedVendor,
      credWord,
      fc.constantFrom("DEBUG", "INFO", "TRACE", "WARN"),
      fc.constantFrom("", "2024-05-01 12:00:03 ", "12:00:03.123 "),
    ),
    anyBody,
    ([v, c, level, time]) =>
      (s) =>
        `${time}[${level}] Using ${v} ${ident([...c], "upper")}=${s}`,
  ),
  shape(
    "context",
    "prose `Your VENDOR key is s`",
    fc.tuple(
      casedVendor,
      proseCred,
      fc.constantFrom("Your", "your", "FYI your", "The new"),
      fc.constantFrom("", ".", " (keep it safe)", "\n"),
    ),
    anyBody,
    ([v, c, lead, tail]) =>
      (s) =>
        `${lead} ${v} ${c} is ${s}${tail}`,
  ),
  shape(
    "context",
    'prose `the password is "s"`',
    fc.tuple(
      fc.constantFrom(["password"], ["password"], ["passphrase"], ...CRED_WORDS),
      fc.constantFrom("", "OK, ", "Note: ", "fyi "),
      quote,
      fc.constantFrom("is", "is:", "was"),
    ),
    anyBody,
    ([c, lead, q, verb]) =>
      (s) =>
        `${lead}the ${c.join(" ")} ${verb} ${q}${s}${q}`,
  ),
  shape(
    "context",
    "label `Vendor API key:⏎  s`, `VENDOR_TOKEN⏎    s`",
    fc.tuple(
      vendorName,
      credWord,
      fc.constantFrom("upper", "camel", "label"),
      fc.constantFrom("", "  ", "    "),
      fc.constantFrom(...NEWLINES),
    ),
    // Alone on its line: one token, with a digit or a symbol (a word there is a heading's).
    anyBody.filter((b) => !/[\s"'`]/.test(b.value) && /[\d\W_]/.test(b.value) && !/^[[{(<#$%]/.test(b.value)),
    ([v, c, st, indent, nl]) =>
      (s) =>
        st === "label"
          ? `${capital(v)} ${c.join(" ")}:${nl}${indent}${s}${nl}`
          : `${ident([v, ...c], st === "upper" ? "upper" : "camel")}${nl}${indent || "    "}${s}${nl}`,
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "cli": command lines

const tool = vendorName;
const sub = fc.constantFrom("deploy", "login", "push", "sync", "run", "upload");
const kebabFlag = fc
  .tuple(vendorName, credWord, fc.boolean())
  .map(([v, c, withVendor]) => ident(withVendor ? [v, ...c] : [...c], "kebab"));

const CLI_SHAPES: readonly Shape[] = [
  shape(
    "cli",
    "flag `--token=s`",
    fc.tuple(tool, sub, kebabFlag, quote),
    anyBody,
    ([t, c, f, q]) =>
      (s) =>
        `${t} ${c} --${f}=${q}${s}${q} --region eu`,
  ),
  shape(
    "cli",
    "flag `--api-key s`",
    fc.tuple(tool, sub, kebabFlag, quote),
    anyBody,
    ([t, c, f, q]) =>
      (s) =>
        `${t} ${c} --${f} ${q}${s}${q} --verbose`,
  ),
  shape(
    "cli",
    'header `-H "X-Vendor-Key: s"`',
    fc.tuple(vendorName, credWord, hostName, pathPart, fc.constantFrom('"', "'")),
    anyBody,
    ([v, c, h, p, q]) =>
      (s) =>
        `curl -s -H ${q}X-${capital(v)}-${c.map(capital).join("-")}: ${s}${q} https://api.${h}/${p}`,
  ),
  shape(
    "cli",
    'header `-H "Authorization: Bearer s"`',
    fc.tuple(
      hostName,
      pathPart,
      fc.constantFrom('"', "'"),
      fc.constantFrom("Authorization", "authorization"),
    ),
    anyBody,
    ([h, p, q, a]) =>
      (s) =>
        `curl -X POST https://${h}/${p} -H ${q}${a}: ${a === "authorization" ? "bearer" : "Bearer"} ${s}${q}`,
  ),
  shape(
    "cli",
    "powershell `-Password s`",
    fc.tuple(
      vendorName,
      fc.constantFrom("Connect", "New", "Set", "Invoke"),
      fc.constantFrom("Password", "ApiKey", "Token", "Secret", "AccessKey", "Pat"),
      fc.constantFrom("", '"', "'"),
    ),
    anyBody,
    ([v, verb, p, q]) =>
      (s) =>
        `${verb}-${capital(v)}Session -UserName admin -${p} ${q}${s}${q} -Force`,
  ),
  shape(
    "cli",
    "psexec `-u admin -p s`",
    fc.tuple(
      fc.constantFrom("PsExec", "PsExec.exe", "psexec64"),
      vendorName,
      fc.constantFrom("admin", "CORP\\admin", "administrator"),
      fc.constantFrom("cmd", "cmd /c whoami", "powershell -nop"),
    ),
    anyBody,
    ([p, h, u, c]) =>
      (s) =>
        `${p} \\\\${h}01 -u ${u} -p ${s} ${c}`,
  ),
  shape(
    "cli",
    "mysql `-u root -ps`",
    fc.tuple(
      fc.constantFrom("mysql", "mysqldump", "mariadb"),
      fc.constantFrom("root", "admin", "app"),
      hostName,
      fc.boolean(),
    ),
    anyBody,
    ([m, u, h, joined]) =>
      (s) =>
        `${m} ${joined ? `-u${u}` : `-u ${u}`} -p${s} -h db.${h} appdb`,
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "tool": the password arguments of common tools, which no credential word names

/** A password as a shell would take it: quoted when it holds a blank or a shell operator. */
const shellQuoted = (s: string, q: string): string => (/[\s|;&<>"'$`\\]/.test(s) ? `'${s}'` : `${q}${s}${q}`);

/** A password inside Bash's `$'…'` quotes: its backslashes and quotes escaped. */
const ansiC = (s: string): string => s.replaceAll("\\", "\\\\").replaceAll("'", "\\'");

const TOOL_COMMANDS: readonly ((s: string, q: string, h: string) => string)[] = [
  (s, q, h) => `sshpass -p ${shellQuoted(s, q)} ssh deploy@${h} uptime`,
  (s, q) => `ssh-keygen -t ed25519 -N ${shellQuoted(s, q)} -f ~/.ssh/deploy_key`,
  (s, q, h) => `redis-cli -h cache.${h} -a ${shellQuoted(s, q)} ping`,
  (s, q) => `keytool -list -keystore app.jks -storepass ${shellQuoted(s, q)}`,
  (s, q, h) => `ldapsearch -x -H ldap://${h} -D cn=admin,dc=x -w ${shellQuoted(s, q)} -b dc=x`,
  (s, q) => `zip -r -P ${shellQuoted(s, q)} backup.zip data/`,
  (s) => `7z a -p'${s}' backup.7z data/`,
  (s, q) => `openssl enc -aes-256-cbc -k ${shellQuoted(s, q)} -in a.tar -out a.enc`,
  (s, q, h) => `xfreerdp /v:${h} /u:admin /p:${shellQuoted(s, q)} /cert:ignore`,
  (s, _q, h) => `smbclient //${h}/share -U CORP/bob%${s} -c ls`,
  (s, q, h) => `net use Z: \\\\${h}\\share ${shellQuoted(s, q)} /user:CORP\\bob`,
  (s, q) => `net user svc_backup ${shellQuoted(s, q)} /add`,
  (s, q, h) => `snmpwalk -v3 -l authPriv -u mon -a SHA -A ${shellQuoted(s, q)} -x AES ${h}`,
  (s, _q, h) => `sqlplus system/${s}@${h}:1521/ORCL`,
  (s, _q, h) => `impacket-psexec corp/admin:${s}@${h}`,
  (s) => `$pw = ConvertTo-SecureString '${s}' -AsPlainText -Force`,
  (s, q) => `echo ${shellQuoted(s, q)} | sudo -S systemctl restart app`,
  (s) => `echo 'svc:${s}' | chpasswd`,
  (s, q) => `security add-generic-password -a deploy -s registry -w ${shellQuoted(s, q)}`,
  (s, q) => `echo ${shellQuoted(s, q)} | gh auth login --with-token`,
  (s, q) => `printf '%s' ${shellQuoted(s, q)} | gcloud secrets versions add db-pass --data-file=-`,
  (s, q) => `echo ${shellQuoted(s, q)} | npx wrangler secret put DB_PASSWORD`,
  (s, q) => `htpasswd -b /etc/nginx/.htpasswd admin ${shellQuoted(s, q)}`,
  (s, q) => `rabbitmqctl add_user app ${shellQuoted(s, q)}`,
  (s, q, h) => `mc alias set backup https://${h}:9000 backup-user ${shellQuoted(s, q)}`,
  (s, q, h) => `http -a deploy:${shellQuoted(s, q)} GET https://${h}/api/status`,
  (s) => `echo -n 'deploy:${s}' | base64`,
  (s) => `mysql -e "CREATE USER 'app'@'%' IDENTIFIED BY '${s}';"`,
  (s) => `docker secret create db_pass - <<< '${s}'`,
  (s, q) => `gh secret set DEPLOY_KEY --body ${shellQuoted(s, q)}`,
  (s) => `echo "::add-mask::${s}"`,
  (s, q) => `openssl passwd -6 -salt s4lt ${shellQuoted(s, q)}`,
  (s, q) => `mkpasswd -m sha-512 ${shellQuoted(s, q)}`,
  (s, q) => `rclone obscure ${shellQuoted(s, q)}`,
  (s, q) => `caddy hash-password --plaintext ${shellQuoted(s, q)}`,
  (s, q) => `doveadm pw -s SHA512-CRYPT -p ${shellQuoted(s, q)}`,
  (s) => `smbpasswd -s -a jdoe <<< $'${ansiC(s)}\\n${ansiC(s)}'`,
];

/** Commands that print a stored secret; the secret is the line after them. */
const SECRET_READERS: readonly ((v: string) => string)[] = [
  (v) => `vault kv get -field=password secret/${v}`,
  (v) => `op read op://Private/${v}/password`,
  (v) => `echo $${v.toUpperCase()}_TOKEN`,
  (v) => `printenv ${v.toUpperCase()}_API_KEY`,
  (v) => `kubectl get secret ${v} -o jsonpath='{.data.password}' | base64 -d`,
  (v) => `security find-generic-password -s ${v} -w`,
  (v) =>
    `aws ssm get-parameter --name /prod/${v}/password --with-decryption --query Parameter.Value --output text`,
  (v) => `gcloud secrets versions access latest --secret=${v}-password`,
  (v) => `cat /run/secrets/${v}_password`,
];

/** Interpreters' and debuggers' prompts reading a credential, and how each prints a string back. */
const INTERPRETER_ECHOES: readonly ((name: string, s: string) => string)[] = [
  (n, s) => `>>> os.environ["${n.toUpperCase()}"]\n'${s}'`,
  (n, s) => `>>> print(settings.${n.toUpperCase()})\n${s}`,
  (n, s) => `In [4]: cfg.${n}\nOut[4]: '${s}'`,
  (n, s) => `> process.env.${n.toUpperCase()}\n'${s}'`,
  (n, s) => `irb(main):002> ENV.fetch("${n.toUpperCase()}")\n=> "${s}"`,
  (n, s) => `(gdb) p cfg->${n}\n$1 = 0x5555557592a0 "${s}"`,
  (n, s) => `(lldb) po self.${n}\n${s}`,
  (n, s) => `PS C:\\app> $env:${n.toUpperCase()}\n${s}`,
];

const TOOL_SHAPES: readonly Shape[] = [
  shape(
    "tool",
    'interpreter `>>> os.environ["X_TOKEN"]⏎\'s\'`, `(gdb) p cfg->password⏎$1 = "s"`, …',
    fc.tuple(fc.constantFrom(...INTERPRETER_ECHOES), vendorName, credWord, fc.constantFrom(...NEWLINES)),
    anyBody.filter((b) => !/[\s"'`\\]/.test(b.value) && !/^[$#>{[<(]/.test(b.value)),
    ([echo, v, c, nl]) =>
      (s) =>
        `${echo(ident([v, ...c], "snake"), s).replace("\n", nl)}${nl}`,
  ),
  shape(
    "tool",
    "printed `$ vault kv get -field=password x⏎s`, `$ echo $X_TOKEN⏎s`, …",
    fc.tuple(
      fc.constantFrom(...SECRET_READERS),
      vendorName,
      fc.constantFrom(...NEWLINES),
      fc.constantFrom("$ ", "", "% "),
    ),
    // The secret stands alone on its line: one token.
    anyBody.filter((b) => !/\s/.test(b.value) && !/^[$#>{[]/.test(b.value)),
    ([reader, v, nl, prompt]) =>
      (s) =>
        `${prompt}${reader(v)}${nl}${s}${nl}${prompt}`,
  ),
  shape(
    "tool",
    "tool `sshpass -p s`, `smbclient -U u%s`, `sqlplus u/s@db`, …",
    fc.tuple(fc.constantFrom(...TOOL_COMMANDS), fc.constantFrom("", "'", '"'), hostName),
    // Forms that take it unquoted (`user/password@db`, `user%password`) end it at these characters.
    anyBody.filter((b) => !/[\s'"@:/%|;&<>`\\]/.test(b.value)),
    ([cmd, q, h]) =>
      (s) =>
        cmd(s, q, h),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "call": credentials passed as call arguments

const CALL_SHAPES: readonly Shape[] = [
  shape(
    "call",
    'call `new NetworkCredential("user", "s")`',
    fc.tuple(userName, fc.boolean(), fc.constantFrom("", "var cred = ", "client.Credentials = ")),
    anyBody,
    ([u, domain, pre]) =>
      (s) =>
        `${pre}new NetworkCredential("${u}", "${s}"${domain ? ', "CORP"' : ""});`,
  ),
  shape(
    "call",
    'call `login("user", "s")`',
    fc.tuple(userName, fc.constantFrom("", "client.", "ftp.", "smtp.", "server.", "await api."), quote),
    anyBody,
    ([u, obj, q0]) =>
      (s) => {
        const q = q0 === "" ? '"' : q0;
        return `${obj}login(${q}${u}${q}, ${q}${s}${q})`;
      },
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "url": URLs, connection strings, query strings (the secret percent-encoded where a URL needs it)

const URL_SHAPES: readonly Shape[] = [
  shape(
    "url",
    "userinfo `https://user:s@host/x`",
    fc.tuple(
      fc.constantFrom("https", "http", "ftp", "sftp", "amqp", "zorvix+https"),
      userName,
      hostName,
      pathPart,
    ),
    anyBody,
    ([sc, u, h, p]) =>
      (s) =>
        `${sc}://${u}:${encodeURIComponent(s)}@${h}/${p}`,
  ),
  shape(
    "url",
    "ado `Server=x;User Id=sa;Password=s;`",
    fc.tuple(
      hostName,
      fc.constantFrom("Server", "Data Source"),
      fc.constantFrom("User Id", "UID", "User ID"),
      fc.constantFrom("Password", "Pwd", "password"),
      fc.boolean(),
    ),
    anyBody,
    ([h, server, user, pw, tail]) =>
      (s) =>
        `${server}=${h};Database=app;${user}=sa;${pw}=${s};${tail ? "Encrypt=True;" : ""}`,
  ),
  shape(
    "url",
    "db url `postgres://u:s@h:5432/db`",
    fc.tuple(
      fc.constantFrom("postgres", "postgresql", "mysql", "mongodb", "redis", "mssql", "cockroachdb"),
      userName,
      hostName,
    ),
    anyBody,
    ([sc, u, h]) =>
      (s) =>
        `${sc}://${u}:${encodeURIComponent(s)}@db.${h}:5432/app`,
  ),
  shape(
    "url",
    "query `?access_token=s&x=1`",
    fc.tuple(
      hostName,
      pathPart,
      fc.oneof(
        fc.constantFrom(
          "access_token",
          "api_key",
          "apikey",
          "token",
          "key",
          "sig",
          "signature",
          "auth",
          "password",
        ),
        vendorIdent.map((i) => i.replace(/[^A-Za-z0-9_]/g, "_")),
      ),
      fc.boolean(),
    ),
    anyBody,
    ([h, p, param, first]) =>
      (s) =>
        `https://${h}/${p}?${first ? "" : "page=2&"}${param}=${encodeURIComponent(s)}&x=1`,
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "config": credential files and config formats

/** A Jenkins `{AQAAABAAAA…}` secret: version 1, IV length 16, data length, IV, AES blocks, base64. */
const jenkinsSecret = fc
  .tuple(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 1, max: 4 }))
  .chain(([iv, blocks]) =>
    fc.uint8Array({ minLength: blocks * 16, maxLength: blocks * 16 }).map((data) => {
      const head = Buffer.from([1, 0, 0, 0, 16, 0, 0, 0, data.length]);
      return Buffer.concat([head, iv, data]).toString("base64");
    }),
  );

/** Service configurations whose password directive holds no common credential word. */
const SERVICE_CONFIGS: readonly ((s: string, u: string, h: string) => string)[] = [
  (s) => `network={\n    ssid="Office"\n    psk="${s}"\n}`,
  (s, _u, h) => `${h} %any : PSK "${s}"`,
  (s) => `bind 127.0.0.1\nrequirepass ${s}\nmaxmemory 256mb`,
  (s) => `replicaof 10.0.0.5 6379\nmasterauth ${s}`,
  (s) => `rocommunity ${s} 10.0.0.0/8\nsyslocation rack4`,
  (s) => `snmp-server community ${s} RO`,
  (s, u) => `Login: ${u} / ${s}`,
];

/** A credential's name given as a field's value, its value in the field beside it. */
const NAMED_VALUES: readonly ((s: string, n: string) => string)[] = [
  (s, n) => `env:\n  - name: ${n}\n    value: "${s}"`,
  (s, n) => `{"name": "${n}", "value": "${s}"}`,
  (s, n) => `"Tags": [{"Key": "${n}", "Value": "${s}"}]`,
  (s, n) => `aws cloudformation create-stack --parameters ParameterKey=${n},ParameterValue=${s}`,
  (s, n) => `variable "${n.toLowerCase()}" {\n  type    = string\n  default = "${s}"\n}`,
  (s, n) => `az keyvault secret set --vault-name kv1 --name ${n} --value ${s}`,
  (s, n) => `<entry key="${n.toLowerCase().replace(/_/g, ".")}">${s}</entry>`,
];

const CONFIG_SHAPES: readonly Shape[] = [
  shape(
    "config",
    'named values `{"name": "DB_PASSWORD", "value": "s"}`, k8s env, tags, stack parameters, …',
    fc.tuple(
      fc.constantFrom(...NAMED_VALUES),
      fc
        .tuple(vendorName, fc.constantFrom("PASSWORD", "API_TOKEN", "SECRET", "API_KEY", "CLIENT_SECRET"))
        .map(([v, c]) => `${v.toUpperCase()}_${c}`),
    ),
    anyBody.filter((b) => !/[\s"'\\<>&,]/.test(b.value)),
    ([form, n]) =>
      (s) =>
        form(s, n),
  ),
  shape(
    "config",
    "services `psk=`, `requirepass`, `rocommunity`, `Login: u / s`",
    fc.tuple(fc.constantFrom(...SERVICE_CONFIGS), userName, hostName),
    // Bare in these files: a password ends at a blank, `"`, `/`, `#` or `,`.
    anyBody.filter((b) => !/[\s"'/#,;\\]/.test(b.value) && b.value.length >= 6 && /[\d\W_]/.test(b.value)),
    ([cfg, u, h]) =>
      (s) =>
        cfg(s, u, h),
  ),
  shape(
    "config",
    ".netrc `machine h login u password s`",
    fc.tuple(hostName, userName, fc.constantFrom(" ", "\n  ", "\n")),
    anyBody,
    ([h, u, sep]) =>
      (s) =>
        `machine ${h}${sep}login ${u}${sep}password ${s}`,
  ),
  shape(
    "config",
    'gradle `credentials { username "u" password "s" }`',
    fc.tuple(userName, fc.constantFrom(" ", " = "), fc.constantFrom('"', "'")),
    anyBody,
    ([u, eq, q]) =>
      (s) =>
        `credentials {\n    username${eq}${q}${u}${q}\n    password${eq}${q}${s}${q}\n}`,
  ),
  shape(
    "config",
    "xml `<password>s</password>`",
    fc.tuple(
      fc.oneof(
        fc.constantFrom("password", "Password", "apiKey", "token", "secret", "privateToken", "passphrase"),
        vendorName.map((v) => `${v}Token`),
      ),
      fc.boolean(),
    ),
    anyBody,
    ([tag, maven]) =>
      (s) =>
        maven
          ? `<server>\n  <id>central</id>\n  <username>deploy</username>\n  <${tag}>${s}</${tag}>\n</server>`
          : `<${tag}>${s}</${tag}>`,
  ),
  rawShape(
    "config",
    "jenkins `<secret>{AQAAABAAAA…}</secret>`",
    fc
      .tuple(
        jenkinsSecret,
        fc.constantFrom("secret", "password", "apiToken", "privateKeyPassphrase"),
        fc.boolean(),
      )
      .map(([b, tag, indent]) => ({
        body: "jenkins",
        text: `${indent ? "    " : ""}<${tag}>{${b}}</${tag}>`,
        secrets: [b],
      })),
  ),
  shape(
    "config",
    'app.config `<add key="Password" value="s"/>`',
    fc.tuple(
      fc.oneof(
        fc.constantFrom("Password", "ApiKey", "ClientSecret", "ConnectionPassword", "AuthToken"),
        vendorName.map((v) => `${capital(v)}.Token`),
        vendorName.map((v) => `${capital(v)}Secret`),
      ),
      fc.constantFrom(" />", "/>"),
    ),
    anyBody,
    ([k, end]) =>
      (s) =>
        `<add key="${k}" value="${s}"${end}`,
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "prefix": tokens with an invented vendor prefix, bare in free text (no credential word near them)

/** Prefixes a real vendor uses (the invented ones must not be one). */
const REAL_PREFIX =
  /^(?:sk|pk|rk|gh[pousr]|xox|glpat|npm|pypi|hf|akia|asia|shp|dop|sg|tvly|lin|key|api|ya29|eyj)/i;
const FREE_TEXT: readonly ((t: string) => string)[] = [
  (t) => `using ${t} to call the service`,
  (t) => `ran the job with ${t}, got 200`,
  (t) => `copied ${t} into the config`,
  (t) => t,
  (t) => `\`${t}\``,
  (t) => `'${t}'`,
  (t) => `("${t}")`,
  (t) => `trying ${t} now`,
];
const freeText = fc.constantFrom(...FREE_TEXT);
const prefixBody = token(ALNUM, 20, 48);

function prefixShape(name: string, prefix: fc.Arbitrary<string>): Shape {
  return rawShape(
    "prefix",
    name,
    fc
      .tuple(
        prefix.filter((p) => !REAL_PREFIX.test(p)),
        prefixBody,
        freeText,
      )
      .map(([p, b, around]) => ({ body: "base62", text: around(`${p}${b}`), secrets: [`${p}${b}`] })),
  );
}

const PREFIX_SHAPES: readonly Shape[] = [
  prefixShape(
    "prefix `abcd_…`",
    chars(LOWER, 2, 5).map((p) => `${p}_`),
  ),
  prefixShape(
    "prefix `xy-…`",
    chars(LOWER, 2, 4).map((p) => `${p}-`),
  ),
  prefixShape(
    "prefix `ab.cd.…`",
    fc.tuple(chars(LOWER, 2, 3), chars(LOWER, 2, 4)).map(([a, b]) => `${a}.${b}.`),
  ),
  prefixShape(
    "prefix `UPPR-…`",
    chars(UPPER, 3, 5).map((p) => `${p}-`),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "hash": password hashes (crypt formats, argon2, Kerberos roasting output)

const HASH_PLACES: readonly ((h: string) => string)[] = [
  (h) => `root:${h}:19523:0:99999:7:::`,
  (h) => `admin:${h}`,
  (h) => `found ${h}`,
  (h) => `hashcat -m 1800 '${h}' rockyou.txt`,
  (h) => `{"user": "jdoe", "hash": "${h}"}`,
  (h) => h,
];
const hashPlace = fc.constantFrom(...HASH_PLACES);

function hashShape(name: string, arb: fc.Arbitrary<{ hash: string; secrets: string[] }>): Shape {
  return rawShape(
    "hash",
    name,
    fc.tuple(arb, hashPlace).map(([h, place]) => ({ body: name, text: place(h.hash), secrets: h.secrets })),
  );
}

const bcrypt = (v: string) =>
  hashShape(
    `bcrypt \`$${v}$10$…\``,
    fc
      .tuple(fc.integer({ min: 4, max: 14 }), chars(CRYPT, 53))
      .map(([cost, body]) => ({ hash: `$${v}$${String(cost).padStart(2, "0")}$${body}`, secrets: [body] })),
  );

const hexOf = (min: number, max: number) =>
  fc.tuple(chars(HEX, min, max), fc.boolean()).map(([h, up]) => (up ? h.toUpperCase() : h));
const realm = fc.constantFrom("CORP.LOCAL", "AD.EXAMPLE.COM", "LAB.INTERNAL");

const HASH_SHAPES: readonly Shape[] = [
  hashShape(
    "md5crypt `$1$salt$hash`",
    fc
      .tuple(chars(CRYPT, 4, 8), chars(CRYPT, 22))
      .map(([salt, h]) => ({ hash: `$1$${salt}$${h}`, secrets: [h] })),
  ),
  bcrypt("2a"),
  bcrypt("2b"),
  hashShape(
    "sha256crypt `$5$salt$hash`",
    fc
      .tuple(chars(CRYPT, 8, 16), chars(CRYPT, 43))
      .map(([salt, h]) => ({ hash: `$5$${salt}$${h}`, secrets: [h] })),
  ),
  hashShape(
    "sha512crypt `$6$rounds=5000$…`",
    fc
      .tuple(fc.boolean(), chars(CRYPT, 8, 16), chars(CRYPT, 86))
      .map(([rounds, salt, h]) => ({ hash: `$6$${rounds ? "rounds=5000$" : ""}${salt}$${h}`, secrets: [h] })),
  ),
  hashShape(
    "argon2id `$argon2id$v=19$m=…$…$…`",
    fc
      .tuple(
        fc.constantFrom("argon2id", "argon2i"),
        fc.constantFrom(19456, 65536, 47104),
        fc.integer({ min: 1, max: 4 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
      )
      .map(([alg, m, t, salt, h]) => {
        const s = Buffer.from(salt).toString("base64").replace(/=+$/, "");
        const hh = Buffer.from(h).toString("base64").replace(/=+$/, "");
        return { hash: `$${alg}$v=19$m=${m},t=${t},p=1$${s}$${hh}`, secrets: [hh] };
      }),
  ),
  hashShape(
    "mysql `*` + 40 hex",
    hexOf(40, 40).map((h) => ({ hash: `*${h.toUpperCase()}`, secrets: [h.toUpperCase()] })),
  ),
  hashShape(
    "scram `SCRAM-SHA-256$4096:salt$stored:server`",
    fc
      .tuple(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
      )
      .map(([salt, st, sv]) => {
        const [a, b, c] = [salt, st, sv].map((x) => Buffer.from(x).toString("base64"));
        return { hash: `SCRAM-SHA-256$4096:${a}$${b}:${c}`, secrets: [b as string, c as string] };
      }),
  ),
  hashShape(
    "django `sha1$salt$hex`",
    fc.tuple(fc.constantFrom("sha1", "md5"), chars(ALNUM, 5, 12), fc.boolean()).chain(([alg, salt]) =>
      hexOf(alg === "sha1" ? 40 : 32, alg === "sha1" ? 40 : 32).map((h) => ({
        hash: `${alg}$${salt}$${h.toLowerCase()}`,
        secrets: [h.toLowerCase()],
      })),
    ),
  ),
  rawShape(
    "hash",
    "cisco `secret 9 $9$…`, `password 7 …`",
    fc
      .tuple(
        fc.constantFrom("8", "9", "7"),
        chars(CRYPT, 14),
        chars(CRYPT, 43),
        fc.integer({ min: 3, max: 12 }).chain((n) => hexOf(2 * n, 2 * n)),
        fc.constantFrom("username admin", "enable", "username ops privilege 15"),
        fc.constantFrom<((line: string) => string)[]>(
          (l) => l,
          (l) => `router#show running-config | include secret\n${l}\nline vty 0 4`,
          (l) => `{"config": "${l}"}`,
        ),
      )
      .map(([t, salt, h, x, who, place]) => {
        const secret = t === "7" ? x.toUpperCase() : h;
        const line = t === "7" ? `${who} password 7 ${secret}` : `${who} secret ${t} $${t}$${salt}$${h}`;
        return { body: "cisco", text: place(line), secrets: [secret] };
      }),
  ),
  rawShape(
    "hash",
    "pgpass `host:port:db:user:password`",
    fc
      .tuple(
        hostName,
        fc.constantFrom("5432", "*", "6432"),
        fc.constantFrom("app", "*", "postgres"),
        userName,
        anyBody,
        fc.constantFrom<((line: string) => string)[]>(
          (l) => l,
          (l) => `$ cat ~/.pgpass\n${l}\n`,
          (l) => `echo '${l}' >> ~/.pgpass && chmod 600 ~/.pgpass`,
        ),
      )
      .filter(([, , , , b]) => !/[\s:"'`\\]/.test(b.value) && b.value.length >= 6)
      .map(([h, port, db, u, b, place]) => ({
        body: "pgpass",
        text: place(`db.${h}:${port}:${db}:${u}:${b.value}`),
        secrets: [b.value],
      })),
  ),
  rawShape(
    "hash",
    "ansible vault `$ANSIBLE_VAULT;1.1;AES256`",
    fc
      .tuple(
        hexOf(64, 64),
        hexOf(64, 64),
        hexOf(32, 600),
        fc.constantFrom("1.1;AES256", "1.2;AES256;dev", "1.2;AES256;prod"),
        fc.constantFrom(...NEWLINES),
        fc.constantFrom<((v: string, nl: string) => string)[]>(
          (v) => v,
          (v, nl) => `$ cat group_vars/all/vault.yml${nl}${v}`,
          (v, nl) =>
            `db_password: !vault |${nl}${v
              .split(nl)
              .map((l) => `          ${l}`)
              .join(nl)}`,
        ),
      )
      .map(([salt, mac, ct, header, nl, place]) => {
        // The body is the hex of `salt\nhmac\nciphertext` (each in hex), cut in lines of 80.
        const body = Buffer.from(`${salt.toLowerCase()}\n${mac.toLowerCase()}\n${ct.toLowerCase()}`).toString(
          "hex",
        );
        const lines = body.match(/.{1,80}/g) ?? [];
        return {
          body: "ansible-vault",
          text: place([`$ANSIBLE_VAULT;${header}`, ...lines].join(nl), nl),
          secrets: lines.filter((l) => l.length >= 16),
        };
      }),
  ),
  hashShape(
    "kerberos `$krb5asrep$23$user@REALM:…`",
    fc
      .tuple(userName, realm, hexOf(32, 32), hexOf(200, 400))
      .map(([u, r, c, e]) => ({ hash: `$krb5asrep$23$${u}@${r}:${c}$${e}`, secrets: [e] })),
  ),
  hashShape(
    "kerberos `$krb5tgs$23$*…`",
    fc.tuple(userName, realm, vendorName, hexOf(32, 32), hexOf(300, 600)).map(([u, r, h, c, e]) => ({
      hash: `$krb5tgs$23$*${u}$${r}$MSSQLSvc/${h}.${r.toLowerCase()}:1433*$${c}$${e}`,
      secrets: [e],
    })),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Families "key-block" and "jwt"

const b64Lines = fc
  .tuple(fc.array(chars(B64, 64), { minLength: 3, maxLength: 12 }), chars(B64, 8, 60))
  .map(([lines, last]) => [...lines, `${last}${"=".repeat((4 - (last.length % 4)) % 4)}`]);

function blockShape(name: string, label: string, headers: fc.Arbitrary<string[]>): Shape {
  return rawShape(
    "key-block",
    name,
    fc
      .tuple(b64Lines, headers, fc.constantFrom(...NEWLINES), fc.constantFrom("", "key: ", "cat id_key\n"))
      .map(([lines, head, nl, pre]) => ({
        body: "base64",
        text:
          pre +
          [`-----BEGIN ${label}-----`, ...head, ...lines, `-----END ${label}-----`]
            .join(nl)
            .replace(/\n\n/g, nl),
        secrets: lines.filter((l) => l.length >= 16),
      })),
  );
}

const BLOCK_SHAPES: readonly Shape[] = [
  blockShape(
    "rsa `BEGIN RSA PRIVATE KEY`",
    "RSA PRIVATE KEY",
    fc.oneof(
      fc.constant<string[]>([]),
      hexOf(32, 32).map((iv) => ["Proc-Type: 4,ENCRYPTED", `DEK-Info: AES-128-CBC,${iv.toUpperCase()}`, ""]),
    ),
  ),
  blockShape("ec `BEGIN EC PRIVATE KEY`", "EC PRIVATE KEY", fc.constant([])),
  blockShape("openssh `BEGIN OPENSSH PRIVATE KEY`", "OPENSSH PRIVATE KEY", fc.constant([])),
  blockShape(
    "pgp `BEGIN PGP PRIVATE KEY BLOCK`",
    "PGP PRIVATE KEY BLOCK",
    fc.constantFrom(["Version: GnuPG v2", ""], ["Comment: exported", ""], [""]),
  ),
  blockShape("encrypted `BEGIN ENCRYPTED PRIVATE KEY`", "ENCRYPTED PRIVATE KEY", fc.constant([])),
];

const jsonValue = fc.oneof(
  chars(LOWER, 3, 12),
  fc.integer({ min: 0, max: 2_000_000_000 }),
  fc.boolean(),
  uuid,
);
const jwt = fc
  .tuple(
    fc.constantFrom("HS256", "RS256", "ES256", "PS512", "EdDSA"),
    fc.option(chars(ALNUM, 8, 20), { nil: undefined }),
    fc.dictionary(chars(LOWER, 2, 8), jsonValue, { minKeys: 1, maxKeys: 6 }),
    fc.uint8Array({ minLength: 32, maxLength: 64 }),
  )
  .map(([alg, kid, claims, sig]) => {
    const h = Buffer.from(
      JSON.stringify(kid === undefined ? { alg, typ: "JWT" } : { alg, kid, typ: "JWT" }),
    ).toString("base64url");
    const p = Buffer.from(JSON.stringify(claims)).toString("base64url");
    const s = Buffer.from(sig).toString("base64url");
    return { jwt: `${h}.${p}.${s}`, tail: `${p}.${s}` };
  });

const JWT_SHAPES: readonly Shape[] = [
  rawShape(
    "jwt",
    "jwt bare / cookie / query",
    fc
      .tuple(
        jwt,
        fc.constantFrom<((j: string) => string)[]>(
          (j) => j,
          (j) => `got ${j} back`,
          (j) => `Cookie: sid=${j}; theme=dark`,
          (j) => `https://app.example.com/cb?id_token=${j}&state=x`,
          (j) => `"${j}"`,
        ),
      )
      .map(([t, place]) => ({ body: "jwt", text: place(t.jwt), secrets: [t.jwt, t.tail] })),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "seed-phrase": a wallet's BIP-39 recovery phrase, under a name or on a line of its own

const mnemonic = fc
  .constantFrom(16, 20, 24, 28, 32)
  .chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
  .map((entropy) => entropyToMnemonic(entropy, wordlist));

const SEED_PHRASE_SHAPES: readonly Shape[] = [
  rawShape(
    "seed-phrase",
    'named `mnemonic: …`, `SEED_PHRASE="…"`',
    fc
      .tuple(
        mnemonic,
        fc.constantFrom<((p: string) => string)[]>(
          (p) => `mnemonic: ${p}`,
          (p) => `"mnemonic": "${p}"`,
          (p) => `{\\"mnemonic\\": \\"${p}\\"}`,
          (p) => `SEED_PHRASE="${p}"`,
          (p) => `export WALLET_MNEMONIC='${p}'`,
          (p) => `const seedPhrase = "${p}";`,
          (p) => `Your secret recovery phrase is ${p}`,
          (p) => `recovery_words = ${p}`,
        ),
      )
      .map(([p, place]) => ({ body: "bip39", text: place(p), secrets: [p] })),
  ),
  rawShape(
    "seed-phrase",
    "alone, as wallet tools print it",
    fc
      .tuple(
        mnemonic,
        fc.constantFrom<((p: string) => string)[]>(
          (p) => p,
          (p) => `Save this seed phrase to recover your new keypair:\n${p}\n===========`,
          (p) =>
            `Successfully created new keypair.\nAddress: 0x52908400098527886E0F7030069857D2E4169EE7\nPhrase:\n${p}`,
          (p) => `echo "${p}" > words.txt`,
        ),
      )
      .map(([p, place]) => ({ body: "bip39", text: place(p), secrets: [p] })),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Family "repeated": one secret several times in a text, raw then percent-encoded or base64

const REPEATED_SHAPES: readonly Shape[] = [
  shape(
    "repeated",
    "repeat `token = 'S' | 'S'`",
    fc.tuple(vendorIdent, fc.constantFrom(" | ", ", ", " || ", "\n"), fc.boolean()),
    anyBody,
    ([id, sep, three]) =>
      (s) =>
        `${id} = '${s}'${sep}'${s}'${three ? `${sep}'${s}'` : ""}`,
  ),
  shape(
    "repeated",
    "repeat `S … again S`",
    fc.tuple(vendorIdent, fc.constantFrom("\n", " ... ", "; "), fc.boolean()),
    anyBody,
    ([id, sep, three]) =>
      (s) =>
        `${id}: ${s}${sep}request failed, retrying with ${s} again${three ? `${sep}still failing: ${s}` : ""}`,
  ),
  shape(
    "repeated",
    "repeat then percent-encoded",
    fc.tuple(vendorIdent, hostName),
    anyBody.filter((b) => encodeURIComponent(b.value) !== b.value),
    ([id, h]) =>
      (s) =>
        `${id}=${s}\nredirecting to https://${h}/cb?next=${encodeURIComponent(s)}&lang=en`,
  ),
  shape(
    "repeated",
    "repeat then base64",
    fc.tuple(vendorIdent, fc.constantFrom<BufferEncoding>("base64", "base64url")),
    anyBody,
    ([id, enc]) =>
      (s) =>
        `${id}=${s}\npayload: ${Buffer.from(s).toString(enc)}`,
  ),
];

/** Every value shape, by family. */
export const VALUE_SHAPES: readonly Shape[] = [
  ...CONTEXT_SHAPES,
  ...CLI_SHAPES,
  ...TOOL_SHAPES,
  ...CALL_SHAPES,
  ...URL_SHAPES,
  ...CONFIG_SHAPES,
  ...PREFIX_SHAPES,
  ...HASH_SHAPES,
  ...BLOCK_SHAPES,
  ...JWT_SHAPES,
  ...SEED_PHRASE_SHAPES,
  ...REPEATED_SHAPES,
];

// ---------------------------------------------------------------------------------------------------------
// Member names: the context texts, and bare high-entropy tokens (16+ characters), as object keys

const asName = (s: Shape): Shape => ({
  family: "member-name",
  name: `${s.family}: ${s.name}`,
  arb: s.arb.map((c) => ({ ...c, family: "member-name", shape: `${s.family}: ${s.name}` })),
});

export const MEMBER_NAME_SHAPES: readonly Shape[] = [
  ...[
    ...CONTEXT_SHAPES,
    ...CLI_SHAPES,
    ...CALL_SHAPES,
    ...URL_SHAPES,
    ...CONFIG_SHAPES,
    ...PREFIX_SHAPES,
  ].map(asName),
  ...(["base62", "base64", "base64url", "hex", "base36"] as const).map((kind) =>
    rawShape(
      "member-name",
      `bare ${kind} token`,
      (HIGH_BODIES[kind] as fc.Arbitrary<string>).map((v) => ({ body: kind, text: v, secrets: [v] })),
    ),
  ),
];

// ---------------------------------------------------------------------------------------------------------
// Negatives: texts without a secret, which must come out unchanged

/** A negative family: texts that hold no secret. */
export interface Negative {
  family: string;
  arb: fc.Arbitrary<string>;
}

const hex = (n: number) => chars(HEX, n);
const ID_WORDS = [
  "get",
  "set",
  "user",
  "account",
  "settings",
  "for",
  "tenant",
  "max",
  "retry",
  "count",
  "before",
  "backoff",
  "default",
  "request",
  "handler",
  "factory",
  "config",
  "provider",
  "session",
  "timeout",
  "cache",
  "entry",
  "parse",
  "token",
  "key",
  "password",
  "reset",
  "validator",
];
const isoTime = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2035-12-31T23:59:59Z"), noInvalidDate: true })
  .chain((d) =>
    fc
      .constantFrom("ms", "s", "offset", "date")
      .map((f) =>
        f === "ms"
          ? d.toISOString()
          : f === "s"
            ? d.toISOString().replace(/\.\d+Z$/, "Z")
            : f === "offset"
              ? d.toISOString().replace(/\.\d+Z$/, "+02:00")
              : d.toISOString().slice(0, 10),
      ),
  );
const semver = fc
  .tuple(
    fc.nat({ max: 30 }),
    fc.nat({ max: 60 }),
    fc.nat({ max: 300 }),
    fc.constantFrom("", "-beta.4", "-rc.1", "+build.567", "-alpha"),
  )
  .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre}`);
const pkgName = fc.oneof(
  fc.constantFrom("lodash", "react", "typescript", "vitest", "fast-check", "left-pad", "express", "zod"),
  fc
    .tuple(vendorName, fc.constantFrom("core", "cli", "client-s3", "utils", "plugin-react"))
    .map(([s, n]) => `@${s}/${n}`),
);
const srcPath = fc
  .tuple(
    fc.constantFrom("src", "lib", "packages/app/src", "test/unit"),
    fc.constantFrom("components", "services", "utils", "redact", "api"),
    fc.array(fc.constantFrom(...ID_WORDS), { minLength: 1, maxLength: 3 }),
    fc.constantFrom(".tsx", ".ts", ".py", ".go", ".rs", ".test.ts"),
  )
  .map(([a, b, w, ext]) => `${a}/${b}/${w.map(capital).join("")}${ext}`);

export const NEGATIVES: readonly Negative[] = [
  {
    family: "sha256 tag",
    arb: fc
      .tuple(
        hex(64),
        fc.constantFrom<((d: string) => string)[]>(
          (d) => `sha256:${d}`,
          (d) => `docker pull ghcr.io/acme/app@sha256:${d}`,
          (d) => `digest: sha256:${d} size: 1573`,
          (d) => `"digest": "sha256:${d}"`,
          (d) => `FROM node:20@sha256:${d}`,
        ),
      )
      .map(([d, place]) => place(d)),
  },
  {
    family: "git sha (git context)",
    arb: fc
      .tuple(
        hex(40),
        fc.constantFrom<((d: string) => string)[]>(
          (d) => `commit ${d}`,
          (d) => `git checkout ${d}`,
          (d) => `git show ${d} --stat`,
          (d) => `git reset --hard ${d}`,
          (d) => `git cherry-pick ${d}`,
          (d) => `commit ${d} (HEAD -> main, origin/main)`,
          (d) => `HEAD is now at ${d} fix tests`,
        ),
      )
      .map(([d, place]) => place(d)),
  },
  {
    family: "uuid id",
    arb: fc
      .tuple(
        uuid,
        fc.constantFrom<((u: string) => string)[]>(
          (u) => `request id ${u}`,
          (u) => `requestId: ${u}`,
          (u) => `trace_id=${u}`,
          (u) => `X-Request-Id: ${u}`,
          (u) => `run ${u} finished`,
          (u) => `GET /api/v1/items/${u} 404`,
          (u) => `conversation ${u}`,
        ),
      )
      .map(([u, place]) => place(u)),
  },
  {
    family: "iso timestamp",
    arb: fc
      .tuple(isoTime, fc.constantFrom("", "at ", "created_at: ", '"timestamp": "', "[", "expires "))
      .map(([t, pre]) => `${pre}${t}${pre.endsWith('"') ? '"' : pre === "[" ? "] started" : ""}`),
  },
  {
    family: "file path",
    arb: fc.oneof(
      fc.constantFrom(
        "/usr/lib/x86_64-linux-gnu/libssl.so.3",
        "/etc/ssl/certs/ca-certificates.crt",
        "/var/lib/docker/overlay2/l/ABCDEFGHIJ",
        "node_modules/.pnpm/@types+node@20.12.7/node_modules/@types/node/index.d.ts",
        "C:\\Program Files\\nodejs\\node.exe",
        "/opt/homebrew/Cellar/openssl@3/3.3.1/lib/libcrypto.3.dylib",
      ),
      srcPath,
      srcPath.map((p) => `${p}:${42}:7`),
    ),
  },
  {
    family: "long identifier",
    arb: fc
      .tuple(
        fc.array(fc.constantFrom(...ID_WORDS), { minLength: 3, maxLength: 6 }),
        fc.constantFrom<Style>("camel", "pascal", "upper", "snake"),
      )
      .map(([w, st]) => ident(w, st)),
  },
  {
    family: "prose about recovery phrases",
    arb: fc
      .tuple(
        fc.array(fc.constantFrom(...wordlist), { minLength: 11, maxLength: 11 }),
        fc.constantFrom(12, 15, 18, 24),
        fc.constantFrom<((words: string[], n: number) => string)[]>(
          (_, n) => `Write down your ${n}-word recovery phrase and keep it offline.`,
          (_, n) => `mnemonic: ${n} words (BIP-39), checksum ok`,
          () => "the seed phrase is shown once; never paste it into a chat or a ticket",
          (w) => `error: invalid mnemonic: word "${w[0]}1" is not in the BIP-39 list`,
          () => "seed: 42",
          // Eleven list words: one short of any phrase.
          (w) => `mnemonic: ${w.join(" ")}`,
          (w) => w.join(" "),
          // List words broken by words off the list (`the`, `a`, `is`).
          (w) => `the ${w.slice(0, 6).join(" ")} is a ${w.slice(6).join(" ")} and the rest`,
        ),
      )
      .map(([w, n, place]) => place(w, n)),
  },
  {
    family: "prose with credential words",
    arb: fc.oneof(
      fc.constantFrom(
        "the token expired",
        "press any key to continue",
        "password reset email sent",
        "pass the tests",
        "primary_key = id",
        "sort_key: created_at",
        "Invalid API key provided",
        "password must be at least 8 characters",
        "the secret scanner found nothing",
        "refresh the auth session and retry",
        "the key is missing from the map",
        "Password: changed yesterday",
        "Secret: stored in Vault",
        "Token: rotated weekly by the job",
        "__Secret__: stored in Vault",
        "token limit exceeded, shortening the prompt",
      ),
      fc.nat({ max: 200_000 }).map((n) => `max_tokens: ${n}`),
      fc.nat({ max: 200_000 }).map((n) => `input_tokens=${n}`),
      fc.nat({ max: 200_000 }).map((n) => `"output_tokens": ${n}`),
      fc.nat({ max: 200_000 }).map((n) => `cache_read_input_tokens: ${n}, cache_creation_input_tokens: 0`),
    ),
  },
  {
    family: "placeholder",
    arb: fc
      .tuple(
        vendorName.map((v) => v.toUpperCase()),
        fc.constantFrom<((v: string) => string)[]>(
          (v) => `password = \${${v}_PASSWORD}`,
          (v) => `token: $${v}_TOKEN`,
          (v) => `api_key=<your-${v.toLowerCase()}-api-key>`,
          (v) => `secret: process.env.${v}_SECRET`,
          () => "password: ********",
          (v) => `key: %${v}_API_KEY%`,
          (v) => `token: \${{ secrets.${v}_TOKEN }}`,
          (v) => `api_key = os.environ["${v}_API_KEY"]`,
          () => "password: <redacted>",
          (v) => `export ${v}_TOKEN=your_token_here`,
        ),
      )
      .map(([v, place]) => place(v)),
  },
  {
    // "Password" in other languages, in prose that gives none.
    family: "localized prose about passwords",
    arb: fc.constantFrom(
      "Passwort vergessen?",
      "Das Passwort ist falsch",
      "пароль: неверный",
      "mot de passe oublié",
      "la contraseña es incorrecta",
      "密码错误，请重试",
      "パスワードを忘れた場合",
      "비밀번호를 입력하세요",
      "şifre: yanlış",
      "a senha é obrigatória",
    ),
  },
  {
    // Family "config"'s named values under the names of settings, not credentials.
    family: "named settings",
    arb: fc
      .tuple(
        fc.constantFrom("LOG_LEVEL", "REGION", "NODE_ENV", "MAX_TOKENS", "TOKEN_LIMIT", "KEY_ID", "Owner"),
        fc.constantFrom("debug", "eu-west-1", "production", "4096", "team-infra", "7", "AKIDX"),
        fc.constantFrom<((n: string, v: string) => string)[]>(
          (n, v) => `env:\n  - name: ${n}\n    value: "${v}"`,
          (n, v) => `{"name": "${n}", "value": "${v}"}`,
          (n, v) => `"Tags": [{"Key": "${n}", "Value": "${v}"}]`,
          (n, v) => `variable "${n.toLowerCase()}" {\n  default = "${v}"\n}`,
          (n, v) => `az appconfig kv set --name cfg --key ${n} --value ${v}`,
        ),
      )
      .map(([n, v, form]) => form(n, v)),
  },
  {
    // The tools of family "tool", with flags that hold no password, and other tools' look-alike flags.
    family: "commands without a password",
    arb: fc
      .tuple(
        hostName,
        fc.constantFrom<((h: string) => string)[]>(
          (h) => `curl -s -w "%{http_code}" -o /dev/null https://${h}/health`,
          () => `grep -P "\\d{3}-\\d{4}" contacts.txt`,
          (h) => `ldapsearch -x -H ldap://${h} -s base -b "" namingContexts`,
          (h) => `snmpwalk -v3 -l authNoPriv -u mon -a SHA -x AES ${h} sysDescr`,
          () => "zip -r -q backup.zip data/ -x '*.log'",
          () => "7z x archive.7z -o/tmp/out -y",
          () => "openssl x509 -in cert.pem -noout -text",
          () => "net user bob /domain",
          (h) => `net use \\\\${h}\\share /user:CORP\\bob`,
          (h) => `psql -U postgres -h ${h} -c "select 1"`,
          (h) => `mysql -uroot -p -h ${h} appdb`,
          (h) => `echo $DB_PASSWORD | docker login -u bob --password-stdin ${h}`,
          () => "keytool -list -keystore app.jks -storepass:env STORE_PASS",
          () => "openssl pkcs12 -export -in c.pem -passout env:P12_PASS -out c.p12",
          () => "sqlplus / as sysdba",
          () => "time: 2024-05-01 12:30:45, file src/app.ts:120:5: warning",
          (h) => `redis-cli -h ${h} --scan --pattern 'user:*'`,
        ),
      )
      .map(([h, cmd]) => cmd(h)),
  },
  {
    family: "code and markup",
    arb: fc
      .tuple(
        fc.uint8Array({ minLength: 40, maxLength: 400 }),
        fc.constantFrom("png", "jpeg", "webp", "svg+xml", "gif"),
        fc.constantFrom("token", "apiKey", "secret", "password"),
        fc.constantFrom("test", "fake", "dummy", "mock"),
        fc.constantFrom<((img: string, type: string, name: string, word: string) => string)[]>(
          (img, type) => `<img alt="logo" src="data:image/${type};base64,${img}">`,
          (img) => `  src: url(data:font/woff2;charset=utf-8;base64,${img}) format("woff2");`,
          (_, __, name) => `const ${name} = req.headers.authorization?.split(" ")[1];`,
          (_, __, name) => `const ${name} = config?.auth?.${name}(options);`,
          (_, __, name, word) =>
            `monkeypatch.setenv("API_${name.toUpperCase()}", "${word}-${name.toLowerCase()}")`,
          (_, __, name, word) => `${name}: "${word}-${name.toLowerCase()}-value",`,
        ),
      )
      .map(([bytes, type, name, word, place]) =>
        place(
          Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(bytes)]).toString("base64"),
          type,
          name,
          word,
        ),
      ),
  },
  {
    family: "shell transcripts",
    arb: fc
      .tuple(
        fc.constantFrom(...NEWLINES),
        fc.constantFrom<((nl: string) => string)[]>(
          (nl) => `$ echo $PATH${nl}/usr/local/bin:/usr/bin:/bin`,
          (nl) => `$ echo $NODE_ENV${nl}production`,
          (nl) => `$ cat package.json${nl}{"name": "app", "version": "1.4.2"}`,
          (nl) => `$ cat token.txt${nl}cat: token.txt: No such file or directory`,
          (nl) => `$ vault kv get -field=password secret/app${nl}Error reading secret/app: permission denied`,
          (nl) => `$ echo "$API_KEY"${nl}undefined`,
          (nl) => `$ echo $GITHUB_TOKEN${nl}${nl}$ git push`,
          (nl) => `$ echo $TOKEN_URL${nl}https://auth.example.com/oauth/token`,
        ),
      )
      .map(([nl, place]) => place(nl)),
  },
  {
    family: "lock file hashes",
    arb: fc
      .tuple(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.constantFrom("github.com/aws/aws-sdk-go-v2", "golang.org/x/net", "github.com/spf13/cobra"),
        fc.constantFrom<((sha256: Uint8Array, sha512: Uint8Array, mod: string) => string)[]>(
          (h, _, m) =>
            `${m} v1.24.0 h1:${Buffer.from(h).toString("base64")}\n${m} v1.24.0/go.mod h1:${Buffer.from(h.slice().reverse()).toString("base64")}`,
          (h) =>
            `[[package]]\nname = "serde"\nversion = "1.0.193"\nchecksum = "${Buffer.from(h).toString("hex")}"`,
          (_, h) => `  "integrity": "sha512-${Buffer.from(h).toString("base64")}"`,
          (h) => `requests==2.31.0 \\\n    --hash=sha256:${Buffer.from(h).toString("hex")}`,
        ),
      )
      .map(([a, b, m, place]) => place(a, b, m)),
  },
  {
    family: "request and trace ids",
    arb: fc
      .tuple(
        hex(32),
        hex(16),
        fc.uint8Array({ minLength: 48, maxLength: 48 }),
        fc.constantFrom<((trace: string, span: string, amz: string) => string)[]>(
          (t, sp) => `traceparent: 00-${t}-${sp}-01`,
          (t, sp) => `{"headers": {"traceparent": "00-${t}-${sp}-00"}}`,
          (t, sp) => `curl -H 'traceparent: 00-${t}-${sp}-01' https://api.example.com/v1/items`,
          (t, _, a) => `x-amz-request-id: ${t.slice(0, 16).toUpperCase()}\nx-amz-id-2: ${a}`,
        ),
      )
      .map(([t, sp, a, place]) => place(t, sp, Buffer.from(a).toString("base64"))),
  },
  {
    family: "cluster and plan output",
    arb: fc
      .tuple(
        fc.constantFrom("api", "web", "payments-api", "worker", "db-migrate", "ingress-nginx-controller"),
        chars(KUBE_SAFE, 8, 10),
        chars(KUBE_SAFE, 5),
        chars(AWS_ID_BODY, 17),
        fc.constantFrom<((name: string, rs: string, pod: string, uid: string) => string)[]>(
          (n, rs, pod) =>
            `NAME${" ".repeat(26)}READY   STATUS    RESTARTS   AGE\n${n}-${rs}-${pod}   1/1     Running   0          3d`,
          (n, rs, pod) => `kubectl logs pod/${n}-${rs}-${pod} -n prod --tail=50`,
          (n, rs) => `replicaset.apps/${n}-${rs} created`,
          (n, _, pod) => `job pod ${n}-${pod} completed`,
          () =>
            "      + secret               = (sensitive value)\n      + id                   = (known after apply)",
          (_, __, ___, uid) =>
            `{\n    "UserId": "AIDA${uid}",\n    "Arn": "arn:aws:iam::123456789012:user/ci-bot"\n}`,
        ),
      )
      .map(([n, rs, pod, uid, place]) => place(n, rs, pod, uid)),
  },
  {
    family: "model / tool id",
    arb: fc.oneof(
      fc.constantFrom(
        "claude-3-5-sonnet-20241022",
        "claude-3-opus-20240229",
        "claude-sonnet-4-20250514",
        "gpt-4o-2024-08-06",
        "gemini-1.5-pro-002",
      ),
      chars(ALNUM, 22, 24).map((b) => `toolu_01${b}`),
      chars(ALNUM, 22).map((b) => `msg_01${b}`),
      chars(ALNUM, 6, 24).map((b) => `call_${b}`),
      chars(ALNUM, 22).map((b) => `"tool_use_id": "toolu_01${b}"`),
    ),
  },
  {
    family: "version string",
    arb: fc
      .tuple(semver, fc.constantFrom("v", "", "Python ", "node v", "go", "openssl ", "version "))
      .map(([v, pre]) => `${pre}${v}`),
  },
  {
    family: "npm package@version",
    arb: fc
      .tuple(pkgName, semver, fc.constantFrom("", "npm install ", "added ", "+ "))
      .map(([n, v, pre]) => `${pre}${n}@${v}`),
  },
  {
    family: "url without credentials",
    arb: fc
      .tuple(
        hostName,
        pathPart,
        fc.constantFrom("", "?page=2&limit=50", "?q=redact+secrets&lang=en", "#section-3", "?ref=main"),
        fc.constantFrom("https", "http"),
      )
      .map(([h, p, q, sc]) => `${sc}://${h}/${p}${q}`),
  },
];

// ---------------------------------------------------------------------------------------------------------
// Sampling

/** A stable 32-bit hash of a name (FNV-1a): each shape's seed, so adding a shape changes no other. */
function seedOf(name: string, base: number): number {
  let h = 0x811c9dc5 ^ base;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * `n` cases of `shape`, drawn from a seed fixed by the shape's name (reproducible). Without bias: fast-check's
 * bias towards small values would make "random" bodies full of `AAAA` and `ffff` runs, which real secrets are not.
 */
export function sampleShape(shape: Shape, n: number, base = 20_240_601): ShapeCase[] {
  return fc.sample(fc.noBias(shape.arb), { seed: seedOf(`${shape.family}/${shape.name}`, base), numRuns: n });
}

/** `n` texts of a negative family, drawn from a fixed seed. */
export function sampleNegative(negative: Negative, n: number, base = 20_240_601): string[] {
  return fc.sample(fc.noBias(negative.arb), {
    seed: seedOf(`negative/${negative.family}`, base),
    numRuns: n,
  });
}
