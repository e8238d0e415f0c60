/**
 * The building blocks of our own pattern rules (`rules.ts` `PATTERN_RULES`): placeholders, the
 * assignment and keyword forms of gitleaks' catalogue, the vendor-family rule maker and scanners.
 */
import { BASE64_DIGIT, inTable } from "./chars.js";
import { isMaskChar, isMasked, ORDERED_RUN } from "./detect/randomness.js";
import type { Detection, PatternRule } from "./rule-types.js";

const PLACEHOLDER =
  /^(?:\[REDACTED[^\]]*\]?.*|\*+|x{3,}|\.{3}|…|null|none|nil|true|false|undefined|string|str|number|int|bool|boolean|any|unknown|optional\[str\]|new|(?:big)?u?int(?:8|16|32|64)(?:clamped)?array|float(?:32|64)array|arraybuffer|dataview|buffer|bytes|bytearray|keyobject|cryptokey|securestring|secretstr|secretbytes|byte\[\]|char\[\]|\[\]byte|&str|vec<u8>|<[^>]*>|\$\{[^}]*\}|%\([^)]*\)s|\{\{[^}]*\}\}|%[A-Za-z_]\w*%|\$env\{[^}]*\}|op:\/\/.+)$/i;
/**
 * Documentation's words for a credential (`secret`, `password`, `changeme`): a placeholder where a
 * value only may be a credential, a password where one must stand (`Password=secret;`,
 * `postgres://user:password@host`): real default credentials are such words. In capitals a
 * constant's name (`-p PASSWORD`).
 */
const SAMPLE_WORD = /^(?:foo|bar|baz|example|password|passwd|secret|token|test|dummy|sample|change_?me)$/i;
/**
 * `$DB_PASSWORD`, `config.password`, `process.env.API_KEY`, `getToken()`, `ACCESS_TOKEN`, `$(cat …)`,
 * `<tag …`: code, markup or a constant's name, not a value. A constant holding digits
 * (`S3RVER_CREDENTIALS`, `KeySpec.ECC_NIST_P256`) is not told from a password in capitals
 * (`AAA.AAAA_AA9`, the leak property's), so it stays a value.
 */
const CODE_REFERENCE =
  /^(?:\$[A-Z_][A-Z0-9_]*|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+(?:\(\))?|[A-Z]+(?:_[A-Z]+)+|\$(?:\(.*)?|<[\w:-]+(?:[\s/>].*)?)$/;
/**
 * A run of 20+ base64 or hex characters mixing letters and digits: what an encrypted or hashed
 * value in braces holds (Jenkins' `{AQAAABAAAAAQ…}`, LDAP's `{SSHA}…`), and a template's `{expr}` never.
 */
const TOKEN_IN_BRACES = /(?=[A-Za-z+/=_-]*\d)(?=[\d+/=_-]*[A-Za-z])[A-Za-z0-9+/=_-]{20,}/;

/** `{expr}`, `{ config.password }`, a block of code: braces around a template or code, not a value. */
function isBracedCode(value: string): boolean {
  return value.startsWith("{") && !TOKEN_IN_BRACES.test(value);
}
/**
 * What names a resource or a licence, never a secret: an ARN (`arn:aws:kms:…:key/…`), an SPDX
 * licence id (`BSD-2-Clause`, `Apache-2.0`), a self-declared stand-in in camel case (`testValue1`,
 * `fakeToken`, `dummyKey`).
 */
const IDENTIFIER_VALUE =
  /^(?:arn:aws[a-z-]*:\S+|(?:MIT|ISC|0BSD|BSD-[234]-Clause(?:-\w+)?|Apache-[12]\.[01]|(?:A|L)?GPL-[23]\.0(?:-only|-or-later|\+)?|MPL-[12]\.[01]|EPL-[12]\.0|CC0-1\.0|CC-BY(?:-SA)?-[34]\.0|Unlicense|Zlib|BlueOak-1\.0\.0|Artistic-2\.0|WTFPL|PSF-2\.0|Python-2\.0)|(?:test|fake|dummy|mock|sample|example|my)[A-Z][a-z]+(?:[A-Z][a-z]+)*\d*|(?:some|my|a|the)(?:fake|dummy)(?:key|pass(?:word)?|token|secret|value)?|(?:fake|dummy)(?:key|pass(?:word)?|token|secret|value))$/;
/**
 * Elided or masked as dashboards print keys (`ops_eyJ…`, `abc...`, `sk-...abcd`, `ghp_…Cv4Z`),
 * already redacted (`…[Redacted]`), or code holding an assignment (`a = b`).
 */
const NOT_A_VALUE = /(?:\.\.|…)$|\[redacted|\s=(?:\s|$)/i;
/** A key masked as dashboards print it: a vendor's prefix, an ellipsis, its last characters. */
const MASKED = /^[a-z]{2,8}(?:[-_][\w-]{0,10})?…[\w-]{1,6}$|^[a-z]{2,8}[-_][\w-]{0,10}\.{3}[\w-]{1,6}$/i;

/**
 * True for values that stand for a value without being one: references, templates, type names,
 * code, masks (`${VAR}`, `<token>`, `string`, `process.env.X`, `********`).
 */
export function isStandIn(value: string): boolean {
  return (
    value.length === 0 ||
    PLACEHOLDER.test(value) ||
    CODE_REFERENCE.test(value) ||
    isBracedCode(value) ||
    NOT_A_VALUE.test(value) ||
    ((value.includes("…") || value.includes("...")) && MASKED.test(value)) ||
    IDENTIFIER_VALUE.test(value) ||
    (SAMPLE_WORD.test(value) && value === value.toUpperCase())
  );
}

/**
 * Does `value`, where a password stands in a connection string or a configuration, stand in for
 * one: a stand-in (`isStandIn`) or a format's verb in the password's place (`"%s:%s@tcp(%s)/%s"`)?
 */
export function isPasswordStandIn(value: string): boolean {
  return isStandIn(value) || FORMAT_VERB.test(value);
}
const FORMAT_VERB = /^%[-+ #0-9.]*[a-zA-Z]$/;

/**
 * Is `value` an HTTP `Authorization` scheme's word alone (`Bearer`, `Basic `): the credential's
 * label, never the credential. (`Token` is a scheme too, but also documentation's word, which is
 * the password where one must stand: `password: "token"`.)
 */
export function isAuthSchemeWord(value: string): boolean {
  return AUTH_SCHEME_WORD.test(value);
}
const AUTH_SCHEME_WORD = /^(?:bearer|basic|digest|negotiate|ntlm)\s*$/i;

/**
 * Is `value` one of documentation's words for a credential (`secret`, `Password`, `changeme`)?
 * Redacted where a credential must stand, but never looked for elsewhere: the word is prose there.
 */
export function isSampleValue(value: string): boolean {
  return SAMPLE_WORD.test(value) && value !== value.toUpperCase();
}

/** True for values that are stand-ins ({@link isStandIn}) or sample words ({@link isSampleValue}) rather than secrets. */
export function isPlaceholder(value: string): boolean {
  return isStandIn(value) || SAMPLE_WORD.test(value);
}

export const DB_SCHEMES =
  /^(?:postgres|postgresql|mysql|mysqlx|mariadb|mongodb|mongodb\+srv|redis|rediss|amqp|amqps|mssql|sqlserver|oracle|cockroachdb|clickhouse|couchdb|neo4j|neo4j\+s|bolt|memcached|cassandra|jdbc:[a-z]+)$/i;

export const AWS_ID =
  /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}/;

export function hasMixedCase(s: string, min: number): boolean {
  let upper = 0;
  let lower = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) upper++;
    else if (c >= 97 && c <= 122) lower++;
  }
  return upper >= min && lower >= min;
}

/**
 * An AWS secret access key beside its key id: every run of exactly 40 `[A-Za-z0-9/+]` not
 * followed by `=` (the matches of `(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`, found
 * by a linear scan: the regular expression tried each position of every long run) with both
 * cases and a digit, `/` or `+`, in a text where `AWS_ID` matches.
 */
export function scanAwsSecretNextToId(text: string, out: Detection[], rule: PatternRule): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!inTable(BASE64_DIGIT, text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && inTable(BASE64_DIGIT, text.charCodeAt(i))) i++;
    if (i - start !== 40 || text.charCodeAt(i) === 61) continue;
    const run = text.slice(start, i);
    if (hasMixedCase(run, 1) && /[0-9/+]/.test(run) && AWS_ID.test(text)) {
      out.push({ start, end: i, rule: rule.id, kind: rule.kind });
    }
  }
}

/** Linear e-mail scanner: expands around each `@` (a regexp would backtrack on long alphanumeric runs). */
export function scanEmails(text: string, out: Detection[], rule: PatternRule): void {
  const local = /[A-Za-z0-9._%+-]/;
  const domain = /[A-Za-z0-9.-]/;
  let at = text.indexOf("@");
  while (at !== -1) {
    let s = at;
    while (s > 0 && at - s < 64 && local.test(text[s - 1] ?? "")) s--;
    let e = at + 1;
    while (e < text.length && e - at < 256 && domain.test(text[e] ?? "")) e++;
    while (e > at + 1 && (text[e - 1] === "." || text[e - 1] === "-")) e--;
    while (s < at && text[s] === ".") s++;
    const localPart = text.slice(s, at);
    const host = text.slice(at + 1, e);
    if (
      localPart.length > 0 &&
      localPart !== "git" &&
      /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(host)
    ) {
      out.push({ start: s, end: e, rule: rule.id, kind: rule.kind });
    }
    at = text.indexOf("@", Math.max(e, at + 1));
  }
}

const BT = "`";
/**
 * Between a name (and its closing quote) and its value, on one line: `=`, `:`, `=>`, `:=`, `::=`, `:::=`,
 * `?=`, `.=`, `+=`, `||` (a default), and typed declarations (`token string = …` in Go, `token: str = …` in
 * Python). Typed forms come first: a match `accept` rejects is not retried with another alternative.
 */
const ASSIGN = String.raw`[ \t]*(?::[ \t]*(?:str|string|String|SecretStr|bytes)[ \t]*=|[ \t](?:string|String|str|&str|\[\]byte|SecureString)[ \t]*=|:{1,3}=|[?.+]=|=>|=|:|\|\|)(?:[ \t]*=)?[ \t]*`;
/**
 * An assigned value, as six capture groups: "…", '…', `…`, \"…\" (escaped JSON), a template (`${…}`,
 * `{{…}}`: never a secret), a bare word.
 */
const VALUE = String.raw`(?:"([^"\r\n]{1,1024})"|'([^'\r\n]{1,1024})'|${BT}([^${BT}\r\n]{1,1024})${BT}|\\"([^"\\\r\n]{1,1024})\\"|(\$\{[^}\r\n]{0,200}\}|\{\{[^}\r\n]{0,200}\}\})|([^\s"'${BT}&;,<>(){}[\]]{1,1024}))`;
/** After a quoted name: `, "…"` (`setProperty("X_TOKEN", "…")`, `getenv("TOKEN", "…")`) or `value="…"`. */
const QUOTED_PAIR = String.raw`["'](?:\s*,\s*|\s+value\s*=\s*)(?:"([^"\r\n]{1,1024})"|'([^'\r\n]{1,1024})')`;

/** Names ending in a secret word that hold no secret: public tokens, CSRF tokens (`authenticity_token`), `io.jsonwebtoken`. */
const NOT_A_SECRET_NAME = /public[_.-]?token|csrf|authenticity[_.-]?token|jsonwebtoken/i;

/** The identifier (`[\w.-]` run) around index `at` of `text`. */
export function identifierAt(text: string, at: number): string {
  let start = at;
  while (start > 0 && /[\w.-]/.test(text[start - 1] ?? "")) start--;
  let end = at;
  while (end < text.length && /[\w.-]/.test(text[end] ?? "")) end++;
  return text.slice(start, end);
}

/**
 * Keywords that make a credential-shaped value beside them a secret even when the name does not end in a
 * secret word (`HEROKU_KEY`, `cloudflare:`, `SONAR_LOGIN`, `sumologic.accessId`, `creds`): gitleaks' generic
 * keywords and the vendor keywords of its keyword-only rules. Vendor names stand alone; the generic ones are
 * the same words as gitleaks' `generic-api-key`.
 */
export const CREDENTIAL_KEYWORD =
  "(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token|login|adafruit|adobe|airtable|algolia|alibaba|asana|atlassian|confluence|jira|beamer|bitbucket|bittrex|meraki|cloudflare|codecov|cohere|coinbase|confluent|contentful|datadog|discord|droneci|dropbox|etsy|facebook|fastly|finicity|finnhub|flickr|freshbooks|gitter|gocardless|heroku|hubspot|intercom|jfrog|artifactory|bintray|xray|kraken|kucoin|launchdarkly|linear|linked[_-]?in|lob|looker|mailchimp|mailgun|mapbox|mattermost|message[_-]?bird|netlify|new[_-]?relic|nytimes|okta|plaid|private[_-]?ai|rapidapi|sendbird|sentry|snyk|sonar|squarespace|sourcegraph|sumo|telegr|travis|twitch|twitter|typeform|yandex|zendesk|contribsys)";
/**
 * A keyword, up to 20 more name characters, then an assignment and a value (groups 2-7, 6 a template) or
 * `QUOTED_PAIR` (groups 8, 9); group 1 is the name from the keyword on.
 */
export const KEYWORD_SECRET = new RegExp(
  String.raw`(${CREDENTIAL_KEYWORD}[\w.-]{0,20})(?:(?:\\?["'${BT}])?${ASSIGN}${VALUE}|${QUOTED_PAIR})`,
  "dgi",
);
export const KEYWORD_VALUES = [2, 3, 4, 5, 7, 8, 9] as const;
/** Identifiers the keyword rule leaves alone: the key words of non-secrets (gitleaks' allow-list). */
const NOT_A_CREDENTIAL_NAME =
  /(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version|url|uri|endpoint|base|host)|author|authentication-results|x-ms-exchange-organization-auth|(?:bucket|cache|foreign|hot|idempotency|idx|natural|partition|primary|pub(?:lic)?|schema|sequence|sort)[_.-]?key|key[_.-]?(?:alias|board|code|count|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|type|word|up|down|left|right|file|path)|key[_.-]?(?:vault|hash)|key(?:store|tab)|issuerkeyhash|keying|monkey|turkey|(?:secret|token|credentials?)[_.-]?(?:length|name|size|type|count|file|path|url|uri|endpoint)|csrf|public[_.-]?token|credentials?[_.-]?id|withcredentials)/i;

const KEYWORD_AT_START = new RegExp(`^${CREDENTIAL_KEYWORD}`, "i");

/**
 * Is `name` (found at `at` in `text`, starting with a keyword) a credential's name? The keyword must start a
 * word or a camelCase part (`myHerokuKey`, not `SetSysctl`) and not end inside one (`sumObj`); a generic
 * keyword must end its part (not `tokenizer`), and its identifier must not be a known non-secret
 * (`cache_key`, `api_version`) nor the bare word (`key:` names a key, it does not hold one).
 */
export function isCredentialName(text: string, at: number, name: string): boolean {
  const keyword = KEYWORD_AT_START.exec(name)?.[0] ?? "";
  const isLower = (c: number) => c >= 97 && c <= 122;
  const isUpper = (c: number) => c >= 65 && c <= 90;
  const before = text.charCodeAt(at - 1);
  if (isUpper(before) || (isLower(before) && !isUpper(name.charCodeAt(0)))) return false;
  const next = name.charCodeAt(keyword.length);
  if (isUpper(keyword.charCodeAt(keyword.length - 1)) && isLower(next)) return false;
  const identifier = identifierAt(text, at);
  // A vendor's build or revision (`SENTRY_RELEASE`, `HEROKU_SLUG_COMMIT`): a commit's hash, no key.
  if (REVISION_WORD.test(identifier)) return false;
  if (!GENERIC_KEYWORD.test(keyword)) return true;
  // A generic word must end where the name's part does: `tokenizer`, `keyboard`, `authors` hold none.
  if (isLower(next)) return false;
  return (
    !BARE_GENERIC_WORD.test(identifier) &&
    !NOT_A_CREDENTIAL_NAME.test(identifier) &&
    !NOT_A_SECRET_NAME.test(identifier)
  );
}
const REVISION_WORD = /(?:^|[_.-])(?:commit|sha|release|revision|rev|build|digest|checksum)(?:$|[_.-])/i;
const GENERIC_KEYWORD = /^(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token|login)$/i;
const BARE_GENERIC_WORD = /^(?:access|auth|api|key|login)$/i;

/** The first of `groups` that matched. */
export function firstGroup(m: RegExpExecArray, groups: readonly number[]): string | undefined {
  for (const g of groups) {
    const v = m[g];
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * Does `value` look like a generated credential (the keyword rule's test)? 10-150 characters of a token
 * alphabet, with a digit and a letter, and a Shannon entropy of at least 3 bits per character: words,
 * numbers, paths, version strings and placeholders are not; nor is a value holding ten in order
 * (`ORDERED_RUN`, which the context and shape layers leave alone too: `…0123456789mnop…`).
 */
export function isCredentialShaped(value: string): boolean {
  if (value.length < 10 || value.length > 150 || !/^[\w.=+/~-]+$/.test(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value) || ALPHABET.test(value) || ORDERED_RUN.test(value))
    return false;
  // Versions (`1.2.3`, `-SNAPSHOT`) are not credentials.
  if (/\d\.\d+\.\d|SNAPSHOT/.test(value)) return false;
  return entropy(value) >= 3;
}

/** A value spelling the alphabet is a character set or an example (gitleaks' stop word). */
const ALPHABET = /abcdefghijklmnopqrstuvwxyz/i;

/**
 * Shannon entropy of `s` (ASCII, as `isCredentialShaped` lets through), in bits per character,
 * summed in the order each character first occurs (the sum's rounding depends on its order).
 */
function entropy(s: string): number {
  // Per call, owned by it: counts per character and the characters in order of first occurrence
  // (plain arrays: a typed array's store lives outside the heap and is freed late).
  const counts: number[] = new Array(128).fill(0);
  const order: number[] = [];
  let distinct = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (counts[c] === 0) {
      order.push(c);
      distinct++;
    }
    counts[c] = (counts[c] as number) + 1;
  }
  let bits = 0;
  for (let k = 0; k < distinct; k++) {
    const n = counts[order[k] as number] as number;
    bits -= (n / s.length) * Math.log2(n / s.length);
  }
  return bits;
}

/**
 * True for a token-shaped text that is a placeholder, not a credential: a filler character (`a x X 1 * #`)
 * makes up at least half of it (`ghp_xxxx…`, `AIzaaaa…`, `glc_1111…`), it ends in `EXAMPLE` (AWS's
 * documentation keys, base64 padding aside), it says `YOUR_…`/`…_HERE` in words (`saysPlaceholder`), a
 * mask stands where its secret was (`isMasked`: `xoxp-…-####…`), or it is a key Google publishes. A
 * generated credential never is.
 */
export function isPlaceholderToken(s: string): boolean {
  if (s.length < 8) return false;
  for (const filler of FILLER) {
    let n = 0;
    for (let i = s.indexOf(filler); i !== -1; i = s.indexOf(filler, i + 1)) n++;
    if (n * 2 >= s.length) return true;
  }
  return endsInExample(s) || saysPlaceholder(s) || isMasked(s) || PUBLIC_GCP_API_KEYS.has(s);
}
const FILLER = "axX1*#";

/**
 * Is the secret finding `f` on `text` a placeholder (`isPlaceholderToken`), or masked where its
 * rule's match stops (`xoxp-<ids>-####…`, where a rule's alphabet stops short of the mask)? The
 * scrubber drops such findings, whichever rule made them.
 */
export function isPlaceholderFinding(text: string, f: Detection): boolean {
  const end = maskEnd(text, f.end);
  return (
    isPlaceholderToken(text.slice(f.start, f.end)) || (end > f.end && isMasked(text.slice(f.start, end)))
  );
}

/**
 * The end of a mask that starts at `at` (`at` itself when none does): one mask character
 * (`#`, `*`, `•`) repeated, which a rule's alphabet stops short of.
 */
function maskEnd(text: string, at: number): number {
  const c = text[at];
  if (!isMaskChar(c)) return at;
  let end = at + 1;
  while (end < text.length && text[end] === c) end++;
  return end;
}
/** AWS's documentation keys end in `EXAMPLE`; a base64 one keeps its `=` padding after it. */
function endsInExample(s: string): boolean {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  return s.endsWith("EXAMPLE", end);
}

const PLACEHOLDER_PHRASE = /(?<![A-Za-z0-9])YOUR_|_HERE(?![A-Za-z0-9])/i;
/** A word as people write it: one case, or capitalized (`YOUR`, `here`, `Key`, `sha256`, `XXXX`). */
const ONE_CASE_WORD = /^(?:[A-Z0-9]*|[A-Z]?[a-z0-9]*)$/;

/**
 * Does `s` spell a placeholder phrase (`sk-proj-YOUR_API_KEY_HERE`, `…XXXX_PUT_YOUR_TOKEN_HERE_XXXX`)?
 * `YOUR_` / `_HERE` must be a word of it, and every word (run of letters and digits) in one case or
 * capitalized: a generated body mixes cases within its words, and spells `yoUR_` or `_HERe` by chance (a
 * body of 130 base64url characters about once in 260,000), so a mere substring lets such a key through.
 */
function saysPlaceholder(s: string): boolean {
  return PLACEHOLDER_PHRASE.test(s) && s.split(/[^A-Za-z0-9]+/).every((w) => ONE_CASE_WORD.test(w));
}

/** How a `family` rule differs from the plain case. */
interface FamilyOptions {
  /** Replace this capture instead of the whole match; the match is then not bounded (see `family`). */
  group?: number;
  /** Extra check on a match (an allow-list). */
  accept?: PatternRule["accept"];
}

/**
 * A rule of a credential family told by its shape: `pattern` (global, `d`) matches the credential, which
 * must not be glued to more token characters on either side (gitleaks' `\b…` and terminator), so that
 * `…JAIzaTesb…` inside a longer base64 run or `x.ico-…32hex….png` are not keys; `needles` are literal
 * parts every match holds, and every match holds a run of 16+ token characters (`tokenRun`).
 */
export function family(
  id: string,
  needles: readonly string[],
  pattern: RegExp,
  options: FamilyOptions = {},
): PatternRule {
  const bounded =
    options.group === undefined
      ? new RegExp(String.raw`(?<![A-Za-z0-9])(?:${pattern.source})(?![\w-]|\.\w)`, pattern.flags)
      : pattern;
  const rule: PatternRule = {
    id,
    kind: "secret",
    layer: "vendor",
    tokenRun: true,
    needles,
    pattern: bounded,
  };
  if (options.group !== undefined) rule.group = options.group;
  if (options.accept !== undefined) rule.accept = options.accept;
  return rule;
}

/** GCP API keys gitleaks' catalogue lists as public (shipped in Google's own SDKs and samples). */
export const PUBLIC_GCP_API_KEYS: ReadonlySet<string> = new Set([
  "AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
  "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
  "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM",
  "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
  "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0",
  "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
  "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c",
  "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
  "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY",
  "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
  "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ",
  "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
  "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU",
  "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
  "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE",
  "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
]);

export const KIND_SECRET = /kind:[ \t]*["']?secret\b/i;
const DOCUMENT_BREAK = /^---[ \t]*\r?$/gm;

/**
 * Finds the values under each `data:` / `stringData:` line of a Kubernetes Secret manifest (a YAML document
 * saying `kind: Secret`): the lines below it indented deeper, `name: value` or `name: |` followed by the
 * value's lines; comments are skipped. `data:` values are base64 of 10+ characters (shorter ones are
 * examples such as `YmFyCg==`), `stringData:` values any text but a placeholder.
 */
export function scanKubernetesSecret(text: string, out: Detection[], rule: PatternRule): void {
  const breaks = [0, ...[...text.matchAll(DOCUMENT_BREAK)].map((b) => b.index), text.length];
  const block = /^([ \t]*)(stringD|d)ata:[ \t]*\r?$/gm;
  for (let m = block.exec(text); m !== null; m = block.exec(text)) {
    const docStart = breaks.findLast((b) => b <= m.index) ?? 0;
    const docEnd = breaks.find((b) => b > m.index) ?? text.length;
    if (!KIND_SECRET.test(text.slice(docStart, docEnd))) continue;
    const indent = (m[1] ?? "").length;
    const base64 = m[2] === "d";
    for (let start = m.index + m[0].length + 1; start < docEnd; ) {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? text.length : newline;
      const line = text.slice(start, end);
      const lead = line.length - line.trimStart().length;
      const content = line.trim();
      if (content !== "" && lead <= indent) break;
      if (content !== "" && !content.startsWith("#")) {
        const entry = /^[\w.-]+:[ \t]*(?:[|>][-+]?)?[ \t]*["']?(.*?)["']?$/.exec(content);
        // A `name: value` line, or a line of a block scalar (`name: |`).
        const value = entry === null ? content : (entry[1] ?? "");
        const ok = base64 ? /^[A-Za-z0-9+/]{10,}={0,3}$/.test(value) : value !== "" && !isPlaceholder(value);
        if (ok) {
          const from = start + line.lastIndexOf(value);
          out.push({ start: from, end: from + value.length, rule: rule.id, kind: rule.kind });
        }
      }
      start = end + 1;
    }
  }
}

/** Passwords of `curl -u` that are examples or variables (gitleaks' allow-list for `curl-auth-user`). */
export const CURL_PLACEHOLDER =
  /^(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\*+|x+|y+|%\w+%)$|^[<[$]|^\{\{/i;
