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
  /** Global regexp with the `d` flag; `group` names the capture to replace (default: whole match). */
  pattern?: RegExp;
  group?: number;
  /** Extra check on a match. */
  accept?: (match: RegExpExecArray, text: string) => boolean;
  /** Custom matcher instead of `pattern` (linear-time scanners). */
  scan?: (text: string, out: Finding[], rule: PatternRule) => void;
  replacement?: string;
  /** Rule id to write for this match when it depends on the match (url-password vs db-connection-string). */
  ruleFor?: (match: RegExpExecArray) => string;
}

const PLACEHOLDER =
  /^(?:\[REDACTED[^\]]*\]?.*|\*+|x{3,}|\.{3}|…|null|none|nil|true|false|undefined|string|str|number|int|bool|boolean|any|unknown|optional\[str\]|<[^>]*>|\$\{[^}]*\}|%\([^)]*\)s|\{\{[^}]*\}\})$/i;
/** `$DB_PASSWORD`, `config.password`, `process.env.API_KEY`, `getToken()`: code, not a value (no digits). */
const CODE_REFERENCE = /^(?:\$[A-Z_][A-Z0-9_]*|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+(?:\(\))?)$/;

/** True for values that are placeholders, type names or code references rather than secrets. */
export function isPlaceholder(value: string): boolean {
  return value.length === 0 || PLACEHOLDER.test(value) || CODE_REFERENCE.test(value);
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
  },
  {
    id: "anthropic-key",
    kind: "secret",
    needles: ["sk-ant-"],
    pattern: /sk-ant-[A-Za-z0-9_-]{20,}/dg,
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
    pattern: /(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/dg,
  },
  {
    id: "slack-webhook",
    kind: "secret",
    needles: ["hooks.slack.com"],
    pattern: /hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{10,}/dg,
  },
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
    pattern: /eyJ[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{2,}={0,2}\.[A-Za-z0-9_-]*={0,2}/dg,
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
      /authorization["']?\s*(?:=|:|=>)\s*["']?(?:(?:bearer|basic|token|digest|negotiate|apikey|api-key|bot)\s+)?([^\s"',;]{6,})/dgi,
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
    // password=…, token: "…", api_key => …; the name must END in the secret word ("max_tokens=" is not one).
    id: "generic-secret",
    kind: "secret",
    // Every name alternative contains one of these (case-insensitive): password/passwd/passphrase → pass;
    // secret, client_secret → secret; token; api_key, apikey, access/secret/private/signing/encryption/master/
    // auth_key → key; credential(s) → credential.
    gate: /pass|secret|token|key|credential/i,
    pattern:
      /(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)["']?\s*(?:=|:=|:|=>)\s*(?:"([^"\r\n]{1,1024})"|'([^'\r\n]{1,1024})'|(\$\{[^}\r\n]{0,200}\}|\{\{[^}\r\n]{0,200}\}\})|([^\s"'&;,<>(){}[\]]{1,1024}))/dgi,
    accept: (m) => m[3] === undefined && !isPlaceholder(m[1] ?? m[2] ?? m[4] ?? ""),
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

/** Runs `rules` over `text`, appending findings to `out`. */
export function runPatternRules(text: string, rules: readonly PatternRule[], out: Finding[]): void {
  for (const rule of rules) {
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
      let range: [number, number] | undefined = m.indices?.[0];
      if (rule.id === "generic-secret") range = m.indices?.[1] ?? m.indices?.[2] ?? m.indices?.[4];
      else if (rule.group !== undefined) range = m.indices?.[rule.group];
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
 * scrubbed data switch detection off — data must not be able to disable its own redaction.
 */
const SECRETLINT_DISABLED = new Set(["@secretlint/secretlint-rule-filter-comments"]);

/** `@secretlint/secretlint-rule-aws` → `secretlint-aws`. */
export function secretlintRuleName(ruleId: string): string {
  return `secretlint-${ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}`;
}

const SECRETLINT_NEEDLES = ["://", "PRIVATE KEY", "_authToken", "ccount", "CCOUNT", "xox", "xapp"];
const LONG_TOKEN = /[A-Za-z0-9_+/=.-]{16}/;

/**
 * May secretlint be skipped for `text`? (Speed shortcut; our own rules ALWAYS run.) True when the text is
 * shorter than 8 characters, or consists of letters and blanks only (every preset-recommend pattern needs a
 * digit or one of `_ - . : / = @ +`, except Databricks' `dapi` + 32 hex, so `dapi` is never skipped), or has
 * no run of 16+ token characters `[A-Za-z0-9_+/=.-]` and none of `://` (basic-auth and database URLs),
 * `PRIVATE KEY`, `_authToken` (npmrc), `account` (AWS account ids), `xox`/`xapp` (Slack tokens have no minimum
 * length): every other preset rule matches a token
 * of 16+ such characters. Tests check both that no secret sample is skipped and that secretlint finds
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
  // (xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-…; https://hooks.slack.com/services/… (case-insensitive, "://" has no letters).
  "@secretlint/secretlint-rule-slack": /xox|xapp|:\/\//,
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
