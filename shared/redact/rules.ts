/**
 * Detection rules of the Layer C string scrubber: our own pattern rules plus the secretlint
 * `preset-recommend` rules, driven synchronously (see {@link SecretlintScanner}).
 *
 * Every rule returns {@link Finding}s: half-open UTF-16 ranges `[start, end)` of the text that must be replaced.
 */

import { isIPv6 } from "node:net";
import {
  creator as recommendPreset,
  rules as recommendRules,
} from "@secretlint/secretlint-rule-preset-recommend";

/** A range of a string to replace. */
export interface Finding {
  start: number;
  end: number;
  /** Rule id, written into the replacement: `[REDACTED:<rule>]`. */
  rule: string;
  /** `secret` findings always win and are merged with each other; `privacy` findings yield to secrets. */
  kind: "secret" | "privacy";
  /** Fixed replacement text instead of `[REDACTED:…]` (home-path: `~`). */
  replacement?: string;
}

/** Which preset switch enables a privacy rule. */
export type PolicySwitch = "redactEmails" | "redactIps" | "homePaths";

/** One of our own detection rules. */
export interface PatternRule {
  id: string;
  kind: "secret" | "privacy";
  /** Privacy rules run only when this policy switch is on. */
  policy?: PolicySwitch;
  /** Cheap pre-check: the rule runs only if the text contains one of these (case-sensitive) strings. */
  needles?: readonly string[];
  /**
   * Cheap pre-check (speed only): the rule runs only if `gate.test(text)`. Must be a NECESSARY condition: every
   * match of `pattern` that `accept` would keep implies a match of `gate` (non-global, same case flags).
   */
  gate?: RegExp;
  /**
   * Cheap pre-check (speed only), shared by the credential families: every match holds a run of 16 or more
   * token characters `[A-Za-z0-9_+/=.~-]` and one of the rule's `needles` (required with it). All such rules
   * are skipped at once for a text without such a run or without any of their needles: two tests per text
   * instead of each rule's needles (most texts hold neither).
   */
  tokenRun?: boolean;
  /**
   * Global regexp with the `d` flag; `group` names the capture to replace (default: whole match), or several
   * captures of which the first one that matched is replaced.
   */
  pattern?: RegExp;
  group?: number | readonly number[];
  /** Extra check on a match. */
  accept?: (match: RegExpExecArray, text: string) => boolean;
  /** Custom matcher instead of `pattern` (linear-time scanners). */
  scan?: (text: string, out: Finding[], rule: PatternRule) => void;
  replacement?: string;
  /** Rule id to write for this match when it depends on the match (url-password vs db-connection-string). */
  ruleFor?: (match: RegExpExecArray) => string;
}

const PLACEHOLDER =
  /^(?:\[REDACTED[^\]]*\]?.*|\*+|x{3,}|\.{3}|…|null|none|nil|true|false|undefined|string|str|number|int|bool|boolean|any|unknown|optional\[str\]|foo|bar|baz|new|example|password|passwd|secret|token|<[^>]*>|\$\{[^}]*\}|%\([^)]*\)s|\{\{[^}]*\}\}|%[A-Za-z_]\w*%)$/i;
/**
 * `$DB_PASSWORD`, `config.password`, `process.env.API_KEY`, `getToken()`, `ACCESS_TOKEN`, `$(cat …)`, `<tag …`,
 * `{expr}`: code, markup or a constant's name, not a value.
 */
const CODE_REFERENCE =
  /^(?:\$[A-Z_][A-Z0-9_]*|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+(?:\(\))?|[A-Z]+(?:_[A-Z]+)+|\$(?:\(.*)?|<[\w:-]+(?:[\s/>].*)?|\{.*)$/;
/** Elided or already redacted (`ops_eyJ…`, `abc...`, `…[Redacted]`), or code holding an assignment (`a = b`). */
const NOT_A_VALUE = /\.\.$|…$|\[redacted|\s=(?:\s|$)/i;

/** True for values that are placeholders, type names or code references rather than secrets. */
export function isPlaceholder(value: string): boolean {
  return (
    value.length === 0 || PLACEHOLDER.test(value) || CODE_REFERENCE.test(value) || NOT_A_VALUE.test(value)
  );
}

const DB_SCHEMES =
  /^(?:postgres|postgresql|mysql|mysqlx|mariadb|mongodb|mongodb\+srv|redis|rediss|amqp|amqps|mssql|sqlserver|oracle|cockroachdb|clickhouse|couchdb|neo4j|neo4j\+s|bolt|memcached|cassandra|jdbc:[a-z]+)$/i;

const AWS_ID =
  /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}/;

function hasMixedCase(s: string, min: number): boolean {
  let upper = 0;
  let lower = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) upper++;
    else if (c >= 97 && c <= 122) lower++;
  }
  return upper >= min && lower >= min;
}

/** Linear e-mail scanner: expands around each `@` (a regexp would backtrack on long alphanumeric runs). */
function scanEmails(text: string, out: Finding[], rule: PatternRule): void {
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

/** Names whose value is a secret; a name must END in one of them ("max_tokens=" is no secret's name). */
const SECRET_WORD =
  "(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)";
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

/**
 * The keyword-assignment rule: a secret word ending a name, then (a) an assignment and a value (groups 1-6,
 * 5 a template), (b) `QUOTED_PAIR` (groups 7, 8), or (c) an XML element `<xToken>…</xToken>` (group 9).
 */
const GENERIC_SECRET = new RegExp(
  String.raw`${SECRET_WORD}(?:(?:\\?["'${BT}])?${ASSIGN}${VALUE}|${QUOTED_PAIR})|(?<=<[\w.:-]{0,60})${SECRET_WORD}>\s*([^\s<>][^<>\r\n]{0,1023}?)\s*<\/`,
  "dgi",
);
const GENERIC_VALUES = [1, 2, 3, 4, 6, 7, 8, 9] as const;
/** Names ending in a secret word that hold no secret: public tokens, CSRF tokens (`authenticity_token`), `io.jsonwebtoken`. */
const NOT_A_SECRET_NAME = /public[_.-]?token|csrf|authenticity[_.-]?token|jsonwebtoken/i;

/** The identifier (`[\w.-]` run) around index `at` of `text`. */
function identifierAt(text: string, at: number): string {
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
const CREDENTIAL_KEYWORD =
  "(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token|login|adafruit|adobe|airtable|algolia|alibaba|asana|atlassian|confluence|jira|beamer|bitbucket|bittrex|meraki|cloudflare|codecov|cohere|coinbase|confluent|contentful|datadog|discord|droneci|dropbox|etsy|facebook|fastly|finicity|finnhub|flickr|freshbooks|gitter|gocardless|heroku|hubspot|intercom|jfrog|artifactory|bintray|xray|kraken|kucoin|launchdarkly|linear|linked[_-]?in|lob|looker|mailchimp|mailgun|mapbox|mattermost|message[_-]?bird|netlify|new[_-]?relic|nytimes|okta|plaid|private[_-]?ai|rapidapi|sendbird|sentry|snyk|sonar|squarespace|sourcegraph|sumo|telegr|travis|twitch|twitter|typeform|yandex|zendesk|contribsys)";
/**
 * A keyword, up to 20 more name characters, then an assignment and a value (groups 2-7, 6 a template) or
 * `QUOTED_PAIR` (groups 8, 9); group 1 is the name from the keyword on.
 */
const KEYWORD_SECRET = new RegExp(
  String.raw`(${CREDENTIAL_KEYWORD}[\w.-]{0,20})(?:(?:\\?["'${BT}])?${ASSIGN}${VALUE}|${QUOTED_PAIR})`,
  "dgi",
);
const KEYWORD_VALUES = [2, 3, 4, 5, 7, 8, 9] as const;
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
function isCredentialName(text: string, at: number, name: string): boolean {
  const keyword = KEYWORD_AT_START.exec(name)?.[0] ?? "";
  const isLower = (c: number) => c >= 97 && c <= 122;
  const isUpper = (c: number) => c >= 65 && c <= 90;
  const before = text.charCodeAt(at - 1);
  if (isUpper(before) || (isLower(before) && !isUpper(name.charCodeAt(0)))) return false;
  const next = name.charCodeAt(keyword.length);
  if (isUpper(keyword.charCodeAt(keyword.length - 1)) && isLower(next)) return false;
  if (!GENERIC_KEYWORD.test(keyword)) return true;
  // A generic word must end where the name's part does: `tokenizer`, `keyboard`, `authors` hold none.
  if (isLower(next)) return false;
  const identifier = identifierAt(text, at);
  return (
    !BARE_GENERIC_WORD.test(identifier) &&
    !NOT_A_CREDENTIAL_NAME.test(identifier) &&
    !NOT_A_SECRET_NAME.test(identifier)
  );
}
const GENERIC_KEYWORD = /^(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token|login)$/i;
const BARE_GENERIC_WORD = /^(?:access|auth|api|key|login)$/i;

/** The first of `groups` that matched. */
function firstGroup(m: RegExpExecArray, groups: readonly number[]): string | undefined {
  for (const g of groups) {
    const v = m[g];
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * Does `value` look like a generated credential (the keyword rule's test)? 10-150 characters of a token
 * alphabet, with a digit and a letter, and a Shannon entropy of at least 3 bits per character: words,
 * numbers, paths, version strings and placeholders are not.
 */
function isCredentialShaped(value: string): boolean {
  if (value.length < 10 || value.length > 150 || !/^[\w.=+/~-]+$/.test(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value) || ALPHABET.test(value)) return false;
  // Versions (`1.2.3`, `-SNAPSHOT`) are not credentials.
  if (/\d\.\d+\.\d|SNAPSHOT/.test(value)) return false;
  return entropy(value) >= 3;
}

/** A value spelling the alphabet is a character set or an example (gitleaks' stop word). */
const ALPHABET = /abcdefghijklmnopqrstuvwxyz/i;

/** Shannon entropy of `s`, in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/**
 * True for a token-shaped text that is a placeholder, not a credential: a filler character (`a x X 1 * #`)
 * makes up at least half of it (`ghp_xxxx…`, `AIzaaaa…`, `glc_1111…`), it ends in `EXAMPLE` (AWS's
 * documentation keys) or it says `YOUR_…`/`…_HERE`. A generated credential of 8 or more characters never is.
 */
export function isPlaceholderToken(s: string): boolean {
  if (s.length < 8) return false;
  const counts = new Map<string, number>();
  for (const c of s) if (FILLER.includes(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const n of counts.values()) if (n * 2 >= s.length) return true;
  return s.endsWith("EXAMPLE") || /YOUR_|_HERE/i.test(s);
}
const FILLER = "axX1*#";

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
function family(
  id: string,
  needles: readonly string[],
  pattern: RegExp,
  options: FamilyOptions = {},
): PatternRule {
  const bounded =
    options.group === undefined
      ? new RegExp(String.raw`(?<![A-Za-z0-9])(?:${pattern.source})(?![\w-]|\.\w)`, pattern.flags)
      : pattern;
  const rule: PatternRule = { id, kind: "secret", tokenRun: true, needles, pattern: bounded };
  if (options.group !== undefined) rule.group = options.group;
  if (options.accept !== undefined) rule.accept = options.accept;
  return rule;
}

/** GCP API keys gitleaks' catalogue lists as public (shipped in Google's own SDKs and samples). */
const PUBLIC_GCP_API_KEYS: ReadonlySet<string> = new Set([
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

const KIND_SECRET = /kind:[ \t]*["']?secret\b/i;
const DOCUMENT_BREAK = /^---[ \t]*\r?$/gm;

/**
 * Finds the values under each `data:` / `stringData:` line of a Kubernetes Secret manifest (a YAML document
 * saying `kind: Secret`): the lines below it indented deeper, `name: value` or `name: |` followed by the
 * value's lines; comments are skipped. `data:` values are base64 of 10+ characters (shorter ones are
 * examples such as `YmFyCg==`), `stringData:` values any text but a placeholder.
 */
function scanKubernetesSecret(text: string, out: Finding[], rule: PatternRule): void {
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
const CURL_PLACEHOLDER = /^(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\*+|x+|y+)$|^[<[$]|^\{\{/i;

/**
 * Our own rules. Secret rules run for every preset; privacy rules only when their policy switch is on.
 * Leading boundaries are kept only where the prefix is short enough to occur inside words (`sk-`, AWS ids);
 * distinctive prefixes (`ghp_`, `xoxb-`, `npm_`, `sk-ant-`, `eyJ`) match anywhere so that a token glued to
 * other characters is still found.
 */
export const PATTERN_RULES: readonly PatternRule[] = [
  {
    // Whole PEM block, including blocks written with literal "\n" escapes; a block without END (truncated
    // output) is redacted up to the first character that cannot belong to it.
    id: "private-key",
    kind: "secret",
    needles: ["PRIVATE KEY"],
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,.-]|\\[nrt])*)/dg,
    // A key has a base64 body; `-----BEGIN PRIVATE KEY-----\nanything\n-----END…` is documentation.
    accept: (m) => /[A-Za-z0-9+/]{16}/.test(m[0].slice(m[0].indexOf("KEY") + 3)),
  },
  {
    id: "anthropic-key",
    kind: "secret",
    needles: ["sk-ant-"],
    // Real keys carry 90+ characters after the type (`api03-`, `admin01-`) and end in `AA`.
    pattern: /sk-ant-[A-Za-z0-9_-]{80,}AA(?![A-Za-z0-9_-])/dg,
  },
  {
    // Legacy `sk-` + 48, project/service/admin keys `sk-proj-…`; not `sk-ant-` (above).
    id: "openai-key",
    kind: "secret",
    needles: ["sk-"],
    pattern: /sk-(?<![A-Za-z0-9]sk-)(?!ant-)[A-Za-z0-9_-]{20,}/dg,
    accept: (m) => {
      const body = m[0].slice(3);
      return /[0-9]/.test(body) || hasMixedCase(body, 2) || body.length >= 40;
    },
  },
  {
    id: "aws-access-key-id",
    kind: "secret",
    // Every match starts with "A" followed by one of the listed prefixes' remaining letters.
    gate: /A(?:3T|KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|PKA|ROA)/,
    pattern:
      /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}/dg,
  },
  {
    // Labelled secret access key (`aws_secret_access_key = …`, `SecretAccessKey: …`).
    id: "aws-secret-key",
    kind: "secret",
    // "secret" is a mandatory literal of the pattern (both case-insensitive).
    gate: /secret/i,
    pattern:
      /(?:aws)?[_-]?secret[_-]?(?:access)?[_-]?key(?:[_-]?id)?["']?\s*(?:=|:|=>)\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
    group: 1,
  },
  {
    // A 40-character base64 token in the same string as an access key id ("secret key next to it").
    id: "aws-secret-key",
    kind: "secret",
    // `accept` requires AWS_ID to match somewhere in the text.
    gate: AWS_ID,
    pattern: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/dg,
    accept: (m, text) => hasMixedCase(m[0], 1) && /[0-9/+]/.test(m[0]) && AWS_ID.test(text),
  },
  {
    id: "github-token",
    kind: "secret",
    needles: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})/dg,
  },
  {
    id: "slack-token",
    kind: "secret",
    needles: ["xox", "xapp-"],
    // gitleaks' Slack shapes: bot/user/legacy (`xoxb-` + team id + …), workspace (`xoxa-2-…`), config
    // (`xoxe.xoxp-1-…`, `xoxe-1-…`) and app tokens (`xapp-1-…`); every one starts with digits.
    pattern:
      /(?:xox[abposre]-\d{6,}-[A-Za-z0-9-]{8,}|xox[os]-\d+-\d+-\d+-[A-Fa-f0-9]+|xox[ar]-(?:\d-)?[A-Za-z0-9]{8,48}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|xoxe-\d-[A-Za-z0-9]{100,}|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)/dg,
  },
  {
    id: "slack-webhook",
    kind: "secret",
    needles: ["hooks.slack.com"],
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_+-]{10,}/dg,
  },
  // Credential families secretlint's preset lacks, one id per family, from the shapes gitleaks' rule
  // catalogue gives (prefix, alphabet, length). A placeholder (`ghp_xxxx…`) is no credential: see
  // isPlaceholderToken, applied to every secret finding.
  family(
    "1password-secret-key",
    ["A3-"],
    /A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}/dg,
  ),
  family("adobe-client-secret", ["p8e-"], /p8e-[A-Za-z0-9]{32}/dg),
  family("age-secret-key", ["AGE-SECRET-KEY-1"], /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/dg),
  family("airtable-token", ["pat"], /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}/dg),
  family("alibaba-access-key-id", ["LTAI"], /LTAI[A-Za-z0-9]{20}/dg),
  family("artifactory-token", ["AKCp", "cmVmd"], /(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})/dg),
  family("atlassian-api-token", ["ATATT3"], /ATATT3[A-Za-z0-9_=-]{186}/dg),
  family(
    "authress-access-key",
    [".acc_", ".acc-"],
    /(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}/dg,
  ),
  family(
    "aws-bedrock-api-key",
    ["ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"],
    // base64 "BedrockAPIKey-…" (long-lived) and "bedrock.amazonaws.com…" (short-lived).
    /(?:ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/%&=-]*)/dg,
  ),
  family("azure-ad-client-secret", ["Q~"], /(?<![~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![~.])/dg),
  family("clickhouse-secret-key", ["4b1d"], /4b1d[A-Za-z0-9]{38}/dg),
  family("clojars-token", ["CLOJARS_"], /CLOJARS_[A-Za-z0-9]{60}/dg),
  family("cloudflare-origin-ca-key", ["v1.0-"], /v1\.0-[a-f0-9]{24}-[a-f0-9]{146}/dg),
  family("defined-networking-token", ["dnkey-"], /dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}/dg),
  family("digitalocean-token", ["_v1_"], /do[opr]_v1_[a-f0-9]{64}/dg),
  family("doppler-token", ["dp.pt."], /dp\.pt\.[A-Za-z0-9]{43}/dg),
  family("duffel-token", ["duffel_"], /duffel_(?:test|live)_[A-Za-z0-9_=-]{43}/dg),
  family("dynatrace-token", ["dt0c01."], /dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}/dg),
  family("easypost-token", ["EZAK", "EZTK"], /EZ[AT]K[A-Za-z0-9]{54}/dg),
  family(
    "facebook-token",
    ["EAA", "|", "%7C"],
    /(?:EAA[MC][A-Za-z0-9]{100,}|\d{15,16}(?:\||%7C)[A-Za-z0-9_-]{27,40})/dg,
  ),
  family("flutterwave-key", ["FLWSECK", "FLWPUBK"], /FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?/dg),
  family(
    "flyio-token",
    ["fo1_", "fm1", "fm2_"],
    /(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})/dg,
  ),
  family("frameio-token", ["fio-u-"], /fio-u-[A-Za-z0-9_=-]{64}/dg),
  family("gcp-api-key", ["AIza"], /AIza[\w-]{35}/dg, { accept: (m) => !PUBLIC_GCP_API_KEYS.has(m[0]) }),
  family(
    "gitlab-token",
    [
      "glcbt-",
      "gldt-",
      "glffct-",
      "glft-",
      "glimt-",
      "glagent-",
      "gloas-",
      "glptt-",
      "GR1348941",
      "glrt-",
      "glsoat-",
      "_gitlab_session=",
    ],
    // A routable runner token ends in `.` + 9 characters (`glpat-`, which secretlint knows, is left to it).
    /(?:glrt-[\w-]{20,300}(?:\.[0-9a-z]{9})?|glcbt-[0-9a-zA-Z]{1,5}_[\w-]{20}|gl(?:dt|ffct|ft|soat)-[\w-]{20,}|glimt-[\w-]{25}|glagent-[\w-]{50}|gloas-[\w-]{64}|glptt-[0-9a-f]{40}|GR1348941[\w-]{20}|_gitlab_session=[0-9a-z]{32})/dg,
  ),
  family("grafana-api-key", ["eyJrIjoi"], /eyJrIjoi[A-Za-z0-9]{70,400}={0,3}/dg),
  family("harness-token", ["pat.", "sat."], /[ps]at\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}/dg),
  family("hashicorp-tf-token", [".atlasv1."], /[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}/dg),
  family("heroku-api-key", ["HRKU-"], /HRKU-AA[\w-]{58}/dg),
  family("huggingface-org-token", ["api_org_"], /api_org_[A-Za-z]{34}/dg),
  family("infracost-token", ["ico-"], /ico-[A-Za-z0-9]{32}/dg),
  family("intra42-client-secret", ["s-s4t2"], /s-s4t2(?:ud|af)-[a-fA-F0-9]{64}/dg),
  family("mailchimp-api-key", ["-us"], /[a-f0-9]{32}-us\d{1,2}/dg),
  family("mailgun-key", ["key-"], /(?:pub)?key-[a-f0-9]{32}/dg),
  family("mapbox-token", ["pk.", "sk.", "tk."], /[pst]k\.[A-Za-z0-9]{60}\.[A-Za-z0-9]{22}/dg),
  family("maxmind-license-key", ["_mmk"], /[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk/dg),
  family(
    "microsoft-teams-webhook",
    ["webhook.office.com"],
    /webhook\.office\.com\/webhookb2\/[\w-]{36}@[\w-]{36}\/IncomingWebhook\/[A-Za-z0-9]{32}\/[\w-]{36}/dg,
  ),
  family(
    "new-relic-key",
    ["NRAK-", "NRII-", "NRJS-"],
    /(?:NRAK-[A-Za-z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19})/dg,
  ),
  family("octopus-deploy-api-key", ["API-"], /API-[A-Z0-9]{26}/dg),
  family("openshift-token", ["sha256~"], /sha256~[\w-]{43}/dg),
  family("perplexity-api-key", ["pplx-"], /pplx-[A-Za-z0-9]{48}/dg),
  family(
    "plaid-token",
    ["access-sandbox-", "access-development-", "access-production-"],
    /access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/dg,
  ),
  family("planetscale-token", ["pscale_"], /pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}/dg),
  family("postman-api-key", ["PMAK-"], /PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}/dg),
  family("prefect-api-key", ["pnu_"], /pnu_[A-Za-z0-9]{36}/dg),
  family("pulumi-token", ["pul-"], /pul-[a-f0-9]{40}/dg),
  family("pypi-token", ["pypi-AgEIcHlwaS5vcmc"], /pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}/dg),
  family("readme-api-key", ["rdme_"], /rdme_[a-z0-9]{70}/dg),
  family("rubygems-api-key", ["rubygems_"], /rubygems_[a-f0-9]{48}/dg),
  family("scalingo-token", ["tk-us-"], /tk-us-[\w-]{48}/dg),
  family("sendinblue-api-key", ["xkeysib-"], /xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}/dg),
  family(
    "sentry-token",
    ["sntrys_", "sntryu_"],
    /(?:sntrys_eyJpYXQiO[A-Za-z0-9+/=]{20,600}_[A-Za-z0-9+/]{43}|sntryu_[a-f0-9]{64})/dg,
  ),
  family("settlemint-token", ["sm_aat_", "sm_pat_", "sm_sat_"], /sm_[aps]at_[A-Za-z0-9]{16}/dg),
  family("shippo-token", ["shippo_"], /shippo_(?:live|test)_[a-fA-F0-9]{40}/dg),
  family(
    "sidekiq-secret",
    ["CONTRIBSYS", "contribsys"],
    /BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM["']?[ \t]*[:=][ \t]*["']?([a-f0-9]{8}:[a-f0-9]{8})/dgi,
    { group: 1 },
  ),
  family("sonar-token", ["sqa_", "sqp_", "squ_"], /sq[apu]_[A-Za-z0-9]{40}/dg),
  family("sourcegraph-token", ["sgp_"], /sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}/dg),
  family(
    "square-token",
    ["EAAA", "sq0atp-", "sq0csp-"],
    /(?:EAAA[\w-]{22,60}|sq0atp-[\w-]{22}|sq0csp-[\w-]{43})/dg,
  ),
  family("stripe-key", ["sk_", "rk_"], /[sr]k_(?:test|live|prod)_[A-Za-z0-9]{10,99}/dg),
  family("telegram-bot-token", [":A"], /\d{5,16}:A[\w-]{34}/dg),
  family("twilio-api-key", ["SK"], /SK[0-9a-fA-F]{32}/dg),
  family("twitter-bearer-token", ["AAAAAAAAAAAAAAAAAAAAA"], /A{22}[A-Za-z0-9%]{80,100}/dg),
  family("typeform-token", ["tfp_"], /tfp_[A-Za-z0-9_.=-]{59}/dg),
  family("yandex-token", ["t1.", "AQVN"], /(?:t1\.[\w-]+={0,2}\.[\w-]{86}={0,2}|AQVN[\w-]{35,38})/dg),
  {
    id: "npm-token",
    kind: "secret",
    needles: ["npm_"],
    pattern: /npm_[A-Za-z0-9]{36}/dg,
  },
  {
    // header.payload.signature, base64url; the signature may be empty (alg "none").
    id: "jwt",
    kind: "secret",
    needles: ["eyJ"],
    // A header may be as short as `{"svt":0}` (eyJzdnQiOjB9).
    pattern: /eyJ[A-Za-z0-9_-]{5,}={0,2}\.[A-Za-z0-9_-]{2,}={0,2}\.[A-Za-z0-9_-]*={0,2}/dg,
  },
  {
    // scheme://user:password@host — keep scheme, user and host; redact the password. Database schemes are
    // reported as db-connection-string. The password may contain "@" (the last "@" before the host wins);
    // RFC 3986 requires "?", "#" in userinfo to be percent-encoded.
    id: "url-password",
    kind: "secret",
    needles: ["://"],
    // Every match is "://", then non-blank user ":" password (no \s in either), then "@".
    gate: /:\/\/\S*@/,
    pattern:
      /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}|jdbc:[a-z]+):\/\/([^\s:/?#@"'<>[\]\\]*):([^\s?#"'<>\\]+)@(?=[A-Za-z0-9[_])/dg,
    group: 3,
    // "/" is allowed in the password (seen unencoded in the wild), but "host:3000/@vite/client" is a port.
    accept: (m) => !isPlaceholder(m[3] ?? "") && !/^\d{1,5}\//.test(m[3] ?? ""),
    ruleFor: (m) => (DB_SCHEMES.test(m[1] ?? "") ? "db-connection-string" : "url-password"),
  },
  {
    // `Authorization: Bearer …` / `Proxy-Authorization: Basic …` (credential only; the scheme is kept).
    id: "auth-header",
    kind: "secret",
    // "authorization" is a mandatory literal of the pattern (both case-insensitive).
    gate: /authorization/i,
    pattern:
      /authorization["']?\s*(?:=|:|=>)\s*["']?(?:(?:bearer|basic|token|api-token|digest|negotiate|apikey|api-key|bot)\s+)?([^\s"',;]{6,})/dgi,
    group: 1,
    accept: (m) => !isPlaceholder(m[1] ?? ""),
  },
  {
    id: "bearer-token",
    kind: "secret",
    // "bearer" is a mandatory literal of the pattern (both case-insensitive).
    gate: /bearer/i,
    pattern: /\bbearer\s+([A-Za-z0-9._~+/-]{12,}=*)/dgi,
    group: 1,
    accept: (m) => /[0-9]/.test(m[1] ?? "") || (m[1]?.length ?? 0) >= 24,
  },
  {
    // `curl -u user:password`, `curl --user "user:pw"`: the whole credential (a colon in it: without one,
    // curl prompts for the password).
    id: "curl-user",
    kind: "secret",
    needles: ["curl"],
    gate: /\s(?:-u|--user)[\s=]/,
    pattern:
      /(?<=\s)(?:-u|--user)(?:=|[ \t]+)((?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"':]+)(?::(?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"']*))?)/dg,
    group: 1,
    accept: (m) => {
      const credential = (m[1] ?? "").replace(/["']/g, "");
      const colon = credential.indexOf(":");
      if (colon < 0 || credential.length < 2 || /^[<[$]/.test(credential)) return false;
      return !CURL_PLACEHOLDER.test(credential.slice(colon + 1));
    },
  },
  {
    // The values of a Kubernetes Secret's `data:` / `stringData:` block.
    id: "kubernetes-secret",
    kind: "secret",
    needles: ["ata:"],
    gate: KIND_SECRET,
    scan: scanKubernetesSecret,
  },
  {
    // password=…, token: "…", api_key => …, X_TOKEN ::= "…", `var xToken string = "…"`,
    // setProperty("X_TOKEN", "…"), <xToken>…</xToken>, key="Password" value="…"; see GENERIC_SECRET.
    id: "generic-secret",
    kind: "secret",
    // Every name alternative contains one of these (case-insensitive): password/passwd/passphrase → pass;
    // secret, client_secret → secret; token; api_key, apikey, access/secret/private/signing/encryption/master/
    // auth_key → key; credential(s) → credential.
    gate: /pass|secret|token|key|credential/i,
    pattern: GENERIC_SECRET,
    group: GENERIC_VALUES,
    accept: (m, text) => {
      const value = firstGroup(m, GENERIC_VALUES);
      // Shorter than 4 is no password (`PuttyPassword=0`); `…` holding blanks is a shell command.
      if (value === undefined || value.length < 4 || isPlaceholder(value) || ALPHABET.test(value))
        return false;
      if (m[3] !== undefined && /\s/.test(value)) return false;
      return !NOT_A_SECRET_NAME.test(identifierAt(text, m.index));
    },
  },
  {
    // A credential-shaped value assigned to a name holding a gitleaks keyword: `HEROKU_KEY = "…"`.
    id: "keyword-secret",
    kind: "secret",
    gate: new RegExp(CREDENTIAL_KEYWORD, "i"),
    pattern: KEYWORD_SECRET,
    group: KEYWORD_VALUES,
    accept: (m, text) => {
      const value = firstGroup(m, KEYWORD_VALUES);
      return (
        value !== undefined &&
        isCredentialShaped(value) &&
        !isPlaceholder(value) &&
        isCredentialName(text, m.index, m[1] ?? "")
      );
    },
  },
  {
    id: "home-path",
    kind: "privacy",
    policy: "homePaths",
    needles: ["/home/", "/Users/", "Users\\"],
    pattern: /(?<![A-Za-z0-9_.~-])(?:\/home\/|\/Users\/|[A-Za-z]:\\{1,2}Users\\{1,2})[^/\\\s"'<>:|*?`]+/dg,
    replacement: "~",
  },
  { id: "email", kind: "privacy", policy: "redactEmails", needles: ["@"], scan: scanEmails },
  {
    id: "ipv4",
    kind: "privacy",
    policy: "redactIps",
    needles: ["."],
    pattern:
      /(?<![0-9.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![0-9]|\.[0-9])/dg,
    accept: (m) => m[0] !== "127.0.0.1" && m[0] !== "0.0.0.0",
  },
  {
    id: "ipv6",
    kind: "privacy",
    policy: "redactIps",
    needles: [":"],
    // (?:hex{0,4}:){2,7} holds two consecutive groups: ":" hex{0,4} ":".
    gate: /:[0-9A-Fa-f]{0,4}:/,
    pattern: /(?<![A-Za-z0-9:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![A-Za-z0-9:])/dg,
    accept: (m) => {
      const s = m[0];
      if (s === "::" || s === "::1" || !/[0-9]/.test(s) || !isIPv6(s)) return false;
      return s.split(":").filter((g) => g.length > 0).length >= 2;
    },
  },
];

/** Ids of all our own rules (plus `secret-key-name`, `paranoid` and secretlint's `secretlint-*`). */
export const OWN_RULE_IDS: readonly string[] = [
  ...new Set([...PATTERN_RULES.map((r) => r.id), "db-connection-string"]),
];

function includesAny(text: string, needles: readonly string[]): boolean {
  for (const n of needles) if (text.includes(n)) return true;
  return false;
}

const TOKEN_RUN = /[A-Za-z0-9_+/=.~-]{16}/;
const FAMILY_NEEDLES = new WeakMap<readonly PatternRule[], RegExp>();

/** One regexp matching any needle of the `tokenRun` rules of `rules` (made once per list). */
function familyNeedles(rules: readonly PatternRule[]): RegExp {
  let re = FAMILY_NEEDLES.get(rules);
  if (re === undefined) {
    const needles = new Set(rules.flatMap((r) => (r.tokenRun === true ? (r.needles ?? []) : [])));
    re = new RegExp([...needles].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));
    FAMILY_NEEDLES.set(rules, re);
  }
  return re;
}

/** The range of `m` to replace: the whole match, capture `group`, or the first of `group` that matched. */
function matchRange(m: RegExpExecArray, group: PatternRule["group"]): [number, number] | undefined {
  if (group === undefined) return m.indices?.[0];
  if (typeof group === "number") return m.indices?.[group];
  for (const g of group) {
    const range = m.indices?.[g];
    if (range !== undefined) return range;
  }
  return undefined;
}

/** Runs `rules` over `text`, appending findings to `out`. */
export function runPatternRules(text: string, rules: readonly PatternRule[], out: Finding[]): void {
  let families: boolean | undefined;
  for (const rule of rules) {
    if (rule.tokenRun === true) {
      families ??= TOKEN_RUN.test(text) && familyNeedles(rules).test(text);
      if (!families) continue;
    }
    if (rule.needles !== undefined && !includesAny(text, rule.needles)) continue;
    if (rule.gate !== undefined && !rule.gate.test(text)) continue;
    if (rule.scan !== undefined) {
      rule.scan(text, out, rule);
      continue;
    }
    const re = rule.pattern;
    if (re === undefined) continue;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      if (rule.accept !== undefined && !rule.accept(m, text)) continue;
      const range = matchRange(m, rule.group);
      if (range === undefined || range[1] <= range[0]) continue;
      // Rescan from the start of the redacted group: `token => client_secret='…'` holds a second assignment.
      if (range[0] > m.index) re.lastIndex = range[0];
      const finding: Finding = {
        start: range[0],
        end: range[1],
        rule: rule.ruleFor?.(m) ?? rule.id,
        kind: rule.kind,
      };
      if (rule.replacement !== undefined) finding.replacement = rule.replacement;
      out.push(finding);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// secretlint

type RuleCreator = (typeof recommendRules)[number];
type RuleContext = Parameters<RuleCreator["create"]>[0];
type RuleHandler = ReturnType<RuleCreator["create"]>;
type FileSource = Parameters<NonNullable<RuleHandler["file"]>>[0];

/** The secretlint preset and version this engine was written against (`package.json` pins it exactly). */
export const SECRETLINT_PRESET_ID = recommendPreset.meta.id;

/**
 * Rules of the preset we never run: `filter-comments` would let a `secretlint-disable` comment INSIDE the
 * scrubbed data switch detection off — data must not be able to disable its own redaction. `slack` matches
 * any `xoxb-word-word` (documentation's `xoxb-my-bot-token`); our `slack-token` and `slack-webhook` follow
 * the shapes of gitleaks' Slack rules instead.
 */
const SECRETLINT_DISABLED = new Set([
  "@secretlint/secretlint-rule-filter-comments",
  "@secretlint/secretlint-rule-slack",
]);

/** `@secretlint/secretlint-rule-aws` → `secretlint-aws`. */
export function secretlintRuleName(ruleId: string): string {
  return `secretlint-${ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}`;
}

const SECRETLINT_NEEDLES = ["://", "PRIVATE KEY", "_authToken", "ccount", "CCOUNT"];
const LONG_TOKEN = /[A-Za-z0-9_+/=.-]{16}/;

/**
 * May secretlint be skipped for `text`? (Speed shortcut; our own rules ALWAYS run.) True when the text is
 * shorter than 8 characters, or consists of letters and blanks only (every preset-recommend pattern needs a
 * digit or one of `_ - . : / = @ +`, except Databricks' `dapi` + 32 hex, so `dapi` is never skipped), or has
 * no run of 16+ token characters `[A-Za-z0-9_+/=.-]` and none of `://` (basic-auth and database URLs),
 * `PRIVATE KEY`, `_authToken` (npmrc), `account` (AWS account ids): every other preset rule we run matches a
 * token of 16+ such characters. Tests check both that no secret sample is skipped and that secretlint finds
 * nothing in generated strings the shortcut skips.
 */
export function canSkipSecretlint(text: string): boolean {
  if (text.length < 8) return true;
  if (/^[A-Za-z \t]*$/.test(text)) return !text.includes("dapi");
  return !LONG_TOKEN.test(text) && !SECRETLINT_NEEDLES.some((n) => text.includes(n));
}

/**
 * Per-rule pre-checks for secretlint 12.0.0's preset-recommend (speed only): a rule's `file` handler runs
 * only when its gate matches. Each gate is a NECESSARY condition, read off the rule's source: every pattern
 * the rule runs on a text source (our source has no file path and ext "") contains one of these literals,
 * with the same case sensitivity. Rules without an entry (or a future preset version's new rules) always run.
 */
const SECRETLINT_GATES: Readonly<Record<string, RegExp>> = {
  // AccessKeyID: (A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)…; SecretAccessKey:
  // (?:SECRET|secret|Secret)…; AccountID: (ACCOUNT|account|Account)… (all case-sensitive).
  "@secretlint/secretlint-rule-aws":
    /A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|SECRET|[Ss]ecret|ACCOUNT|[Aa]ccount/,
  // `-----BEGIN… PRIVATE KEY… -----END…` (case-sensitive).
  "@secretlint/secretlint-rule-privatekey": /PRIVATE KEY/,
  // npm_…; package.json / .npmrc checks (x-oauth-basic, _authToken=) need a file path we never pass, listed anyway.
  "@secretlint/secretlint-rule-npm": /npm_|_authToken|x-oauth-basic/,
  // (https?|ftp|ftps)://user:password@…
  "@secretlint/secretlint-rule-basicauth": /:\/\//,
  "@secretlint/secretlint-rule-sendgrid": /SG\./,
  // (shppa|shpca|shpat|shpss)_…
  "@secretlint/secretlint-rule-shopify": /shp/,
  // (ghp|gho|ghu|ghs|ghr)_…, github_pat_…
  "@secretlint/secretlint-rule-github": /gh[pousr]_|github_pat_/,
  "@secretlint/secretlint-rule-gitlab": /glpat-/,
  "@secretlint/secretlint-rule-grafana": /glc_|glsa_/,
  // sk-(proj|svcacct|admin)-…T3BlbkFJ…, sk-…T3BlbkFJ…
  "@secretlint/secretlint-rule-openai": /sk-/,
  "@secretlint/secretlint-rule-anthropic": /sk-ant-api0/,
  "@secretlint/secretlint-rule-groq": /gsk_/,
  "@secretlint/secretlint-rule-huggingface": /hf_/,
  "@secretlint/secretlint-rule-linear": /lin_api_/,
  "@secretlint/secretlint-rule-notion": /ntn_/,
  "@secretlint/secretlint-rule-1password": /ops_/,
  // mongodb(+srv)://, (jdbc:)mysql(x)://, postgres(ql):// (case-insensitive, "://" has no letters).
  "@secretlint/secretlint-rule-database-connection-string": /:\/\//,
  "@secretlint/secretlint-rule-hashicorp-vault": /hv[sbr]\./,
  // (vcp|vci|vca|vcr|vck)_…
  "@secretlint/secretlint-rule-vercel": /vc[piark]_/,
  "@secretlint/secretlint-rule-databricks": /dapi/,
  "@secretlint/secretlint-rule-docker": /dckr_pat_/,
  "@secretlint/secretlint-rule-figma": /figd_/,
};

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Runs secretlint's `preset-recommend` rules synchronously over one decoded string.
 *
 * We do not call `@secretlint/core`'s `lintSource` per string: it is asynchronous (our `scrub()` is not), and
 * every call records ~30 `performance.mark` entries in Node's global timeline through `@secretlint/profiler`
 * (measured: 0.3 MB/s, 1 GB RSS after 20,000 short strings, plus a quadratic observer). Instead each rule
 * of the preset is instantiated ONCE with a rule context whose `report` appends to the current findings,
 * and its `file(source)` handler is called on a light source object — the same rule code `lintSource` runs
 * (a test checks both give the same ranges). Rules are created with their default options, except the AWS
 * rule gets `enableIDScanRule: true`.
 */
export class SecretlintScanner {
  private readonly handlers: { id: string; handler: RuleHandler; gate: RegExp | undefined }[] = [];
  private sink: Finding[] = [];

  /** @param disabled secretlint rule names (`secretlint-aws`) or full ids to leave out; `secretlint` = all. */
  constructor(disabled: ReadonlySet<string> = new Set()) {
    if (disabled.has("secretlint")) return;
    for (const creator of recommendRules) {
      const id = creator.meta.id;
      if (SECRETLINT_DISABLED.has(id) || disabled.has(id) || disabled.has(secretlintRuleName(id))) continue;
      const rule = secretlintRuleName(id);
      const context = {
        sharedOptions: {},
        // Message texts are never used (they would embed the credential): return the id only.
        createTranslator: () => (messageId: string, data?: unknown) => ({
          message: messageId,
          messageId,
          data,
        }),
        report: (descriptor: { range: readonly [number, number] }) => {
          const [start, end] = descriptor.range;
          if (end > start) this.sink.push({ start, end, rule, kind: "secret" });
        },
        ignore: () => {},
      } as unknown as RuleContext;
      const options = id === "@secretlint/secretlint-rule-aws" ? { enableIDScanRule: true } : {};
      this.handlers.push({
        id,
        handler: creator.create(context, options as never),
        gate: SECRETLINT_GATES[id],
      });
    }
  }

  /** Appends secretlint's findings on `text` to `out`. */
  scan(text: string, out: Finding[]): void {
    const active: RuleHandler[] = [];
    for (const { handler, gate } of this.handlers) {
      if (gate === undefined || gate.test(text)) active.push(handler);
    }
    if (active.length === 0) return;
    let starts: number[] | undefined;
    const lines = (): number[] => {
      starts ??= lineStarts(text);
      return starts;
    };
    const indexToPosition = (index: number) => {
      const ls = lines();
      let lo = 0;
      let hi = ls.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((ls[mid] ?? 0) <= index) lo = mid;
        else hi = mid - 1;
      }
      return { line: lo + 1, column: index - (ls[lo] ?? 0) };
    };
    const positionToIndex = (p: { line: number; column: number }) => (lines()[p.line - 1] ?? 0) + p.column;
    const source = {
      hasBOM: false,
      content: text,
      filePath: undefined,
      physicalFilePath: undefined,
      contentType: "text",
      ext: "",
      getFilePath: () => undefined,
      getPhysicalFilePath: () => undefined,
      indexToPosition,
      positionToIndex,
      rangeToLocation: (r: readonly [number, number]) => ({
        start: indexToPosition(r[0]),
        end: indexToPosition(r[1]),
      }),
      locationToRange: (loc: {
        start: { line: number; column: number };
        end: { line: number; column: number };
      }) => [positionToIndex(loc.start), positionToIndex(loc.end)],
    } as unknown as FileSource;
    this.sink = out;
    try {
      for (const handler of active) {
        try {
          const result = handler.file?.(source) as unknown;
          if (result instanceof Promise) result.catch(() => {});
        } catch {
          // A rule that throws on odd input must not break scrubbing; our own rules still run.
        }
      }
    } finally {
      this.sink = [];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// member names

const SECRET_NAME =
  /token|secret|passw|passphrase|credential|auth|cookie|api_?key|apikey|private_?key|access_?key|signing_?key|(?:^|[^a-z])keys?(?:[^a-z]|$)/i;
const SECRET_CAMEL_KEY = /[a-z0-9]Keys?(?:[A-Z_]|$)/;
const NON_SECRET_NAME =
  /^(?:(?:input|output|prompt|completion|total|max|min|cached|reasoning|cache_creation_input|cache_read_input|num|n|context)_?tokens?(?:_(?:count|details|used|limit))?|tokens?_?(?:count|counts|usage|used|limit|total|type|estimate)|tokens|tokenizer|keyword|keywords|keyboard|author|authors|author_name|authored_at|authority|key_count|primary_?key|foreign_?key|sort_?key|partition_?key|idempotency_?key|cache_?key|hotkey|monkey|turkey)$/i;

/**
 * Does member `name` hold a secret as a whole (rule `secret-key-name`)? True when it contains token, secret,
 * password, passphrase, credential, auth, cookie, or the word key (`api_key`, `apiKey`, `key`, `x-api-key`),
 * unless it is a well-known non-secret name (`max_tokens`, `input_tokens`, `author`, `keyword`, `primary_key`…).
 */
export function isSecretMemberName(name: string): boolean {
  if (NON_SECRET_NAME.test(name)) return false;
  return SECRET_NAME.test(name) || SECRET_CAMEL_KEY.test(name);
}
