/**
 * Detection rules of the Layer C string scrubber: our own pattern rules plus the secretlint
 * `preset-recommend` rules, driven synchronously (see {@link SecretlintScanner}).
 *
 * Every rule returns {@link Detection}s: half-open UTF-16 ranges `[start, end)` of the text that must be replaced.
 */

import { isIPv6 } from "node:net";
import { remembered } from "../memo.js";
import { alnumAnd, inTable } from "./chars.js";
import { CONTEXT_RULES, CREDENTIAL_PAIR_RULE } from "./detect/context.js";
import { FAKE_NAME, isTypedPlaceholder } from "./detect/credential-names.js";
import { isAlgorithmName } from "./detect/keyed-calls.js";
import { isPublishableKey, SHAPE_RULES } from "./detect/shape.js";
import { STRUCTURE_RULES } from "./detect/structure.js";
import { type FoundNeedles, NeedleLists } from "./needles.js";
import {
  AWS_ID,
  CREDENTIAL_KEYWORD,
  CURL_PLACEHOLDER,
  DB_SCHEMES,
  family,
  firstGroup,
  hasMixedCase,
  identifierAt,
  isAuthSchemeWord,
  isCredentialName,
  isCredentialShaped,
  isPasswordStandIn,
  isPlaceholder,
  KEYWORD_SECRET,
  KEYWORD_VALUES,
  KIND_SECRET,
  PUBLIC_GCP_API_KEYS,
  scanAwsSecretNextToId,
  scanEmails,
  scanKubernetesSecret,
} from "./rule-helpers.js";
import type { Detection, PatternRule } from "./rule-types.js";

/** A path of three or more lowercase segments: a resource's name, never a credential's value. */
const RESOURCE_PATH = /^[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*){2,}$/;

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
    layer: "structure",
    needles: ["PRIVATE KEY"],
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,.-]|\\[nrt])*)/dg,
    // A key has a base64 body; `-----BEGIN PRIVATE KEY-----\nanything\n-----END…` is documentation.
    accept: (m) => /[A-Za-z0-9+/]{16}/.test(m[0].slice(m[0].indexOf("KEY") + 3)),
  },
  {
    id: "anthropic-key",
    kind: "secret",
    layer: "vendor",
    needles: ["sk-ant-"],
    // Real keys carry 90+ characters after the type (`api03-`, `admin01-`) and end in `AA`.
    pattern: /sk-ant-[A-Za-z0-9_-]{80,}AA(?![A-Za-z0-9_-])/dg,
  },
  {
    // Legacy `sk-` + 48, project/service/admin keys `sk-proj-…`; not `sk-ant-` (above).
    id: "openai-key",
    kind: "secret",
    layer: "vendor",
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
    layer: "vendor",
    // Every match starts with "A" followed by one of the listed prefixes' remaining letters.
    gate: /A(?:3T|KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|PKA|ROA)/,
    pattern:
      /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}(?![A-Z0-9])/dg,
  },
  {
    // Labelled secret access key (`aws_secret_access_key = …`, `SecretAccessKey: …`).
    id: "aws-secret-key",
    kind: "secret",
    layer: "vendor",
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
    layer: "vendor",
    // Only in a text where AWS_ID matches.
    gate: AWS_ID,
    scan: scanAwsSecretNextToId,
  },
  {
    id: "github-token",
    kind: "secret",
    layer: "vendor",
    needles: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})/dg,
  },
  {
    id: "slack-token",
    kind: "secret",
    layer: "vendor",
    needles: ["xox", "xapp-"],
    // gitleaks' Slack shapes: bot/user/legacy (`xoxb-` + team id + …), workspace (`xoxa-2-…`), config
    // (`xoxe.xoxp-1-…`, `xoxe-1-…`) and app tokens (`xapp-1-…`); every one starts with digits.
    pattern:
      /(?:xox[abposre]-\d{6,}-[A-Za-z0-9-]{8,}|xox[os]-\d+-\d+-\d+-[A-Fa-f0-9]+|xox[ar]-(?:\d-)?[A-Za-z0-9]{8,48}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|xoxe-\d-[A-Za-z0-9]{100,}|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)/dg,
  },
  {
    id: "slack-webhook",
    kind: "secret",
    layer: "vendor",
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
    layer: "vendor",
    needles: ["npm_"],
    pattern: /npm_[A-Za-z0-9]{36}/dg,
  },
  {
    // header.payload.signature, base64url; the signature may be empty (alg "none").
    id: "jwt",
    kind: "secret",
    layer: "structure",
    needles: ["eyJ"],
    // A header may be as short as `{"svt":0}` (eyJzdnQiOjB9). A token starts a run of its
    // alphabet: tried at every `eyJ` inside a run without dots (`eyJeyJeyJ…`), the search was
    // quadratic in the run's length.
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}={0,2}\.[A-Za-z0-9_-]{2,}={0,2}\.[A-Za-z0-9_-]*={0,2}/dg,
  },
  {
    // scheme://user:password@host — keep scheme, user and host; redact the password. Database schemes are
    // reported as db-connection-string. The password may contain "@" (the last "@" before the host wins);
    // RFC 3986 requires "?", "#" in userinfo to be percent-encoded. The host may be concatenated,
    // templated or formatted after the literal (`"scheme://user:p@" + domain`, `@${host}`, `@%s`).
    id: "url-password",
    kind: "secret",
    layer: "structure",
    needles: ["://"],
    // Every match is "://", then non-blank user ":" password (no \s in either, 256 characters at
    // most each), then "@". Bounded, so a long run of `://a:` without `@` is read once, not once
    // per `://` (which was quadratic in its length).
    gate: /:\/\/\S{0,513}@/,
    // A match starts in the run of scheme characters (and `jdbc:`'s colon) right before its "://".
    anchor: { at: "://", before: schemeRunBefore },
    pattern:
      /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}|jdbc:[a-z]+):\/\/([^\s:/?#@"'<>[\]\\]{0,256}):([^\s?#"'<>\\][^\s?#"<>\\]{0,255})@(?=[A-Za-z0-9[_]|["'`][ \t]*[+.]|\$\{|\{|%[sv])/dg,
    group: 3,
    // "/" is allowed in the password (seen unencoded in the wild), but "host:3000/@vite/client" is a
    // port; so is "'" after its first character (a sub-delimiter of RFC 3986's userinfo), but
    // "'https://url:8000';" is a port before a closing quote, and in a URL quoted with "'" the "'"
    // closes it (`['http://a:b','c@d.com']`).
    accept: (m, text) => {
      const password = m[3] ?? "";
      if (isPasswordStandIn(password) || /^\d{1,5}(?:\/|'(?:[;,)\s]|$))/.test(password)) return false;
      // A host concatenated, templated or formatted after the literal: a password holds no `/`
      // there (`"https://github.com:owner/repo@" + sha` is a path).
      if (!/[A-Za-z0-9[_]/.test(text[m.index + m[0].length] ?? "") && password.includes("/")) return false;
      return !(password.includes("'") && text[m.index - 1] === "'");
    },
    ruleFor: (m) => (DB_SCHEMES.test(m[1] ?? "") ? "db-connection-string" : "url-password"),
  },
  {
    // Go's `database/sql` DSN (go-sql-driver/mysql's, clickhouse-go's): `user:password@tcp(host:port)/db`,
    // `user:password@unix(/run/mysqld.sock)/db`, a connection string without a scheme.
    id: "db-connection-string",
    kind: "secret",
    layer: "structure",
    needles: ["@tcp(", "@tcp6(", "@unix(", "@udp(", "@/"],
    // Not after `//` or `:`: a URL's userinfo (`jdbc:mysql://u:p@tcp(…)`) is `url-password`'s.
    // The password runs to the last `@` (the driver splits there); `user:password@/db` takes the
    // default address.
    // Not regexp or code punctuation (`(?:[\r\n]|$)|@(?:use`, `[!;=,{}&|:.\[\]@()]`).
    pattern: /(?<![\w.$:/-])[\w.$-]{0,64}:([^\s"'`/\\|()[\]{}]{1,256})@(?:(?:tcp6?|unix|udp)\(|\/(?=\w))/dg,
    group: 1,
    accept: (m) => !isPasswordStandIn(m[1] ?? ""),
  },
  {
    // Oracle's JDBC URL, `user/password@` after the driver (`jdbc:oracle:thin:scott/tiger@//db:1521/svc`),
    // where `url-password`'s `user:password@` does not stand.
    id: "db-connection-string",
    kind: "secret",
    layer: "structure",
    needles: ["jdbc:oracle:", "JDBC:ORACLE:", "jdbc:Oracle:"],
    // The password runs to the last `@` before the address, or is quoted (`scott/"p@ss"@db`).
    pattern:
      /jdbc:oracle:(?:thin|oci8?|kprb):(?:"[^"\r\n]{1,64}"|[\w$#.-]{1,64})\/(?:"([^"\r\n]{1,256})"|([^\s/"']{1,256}))@(?=[^@\s"']*(?:[\s"']|$))/dgi,
    group: [1, 2],
    accept: (m) => !isPasswordStandIn(m[1] ?? m[2] ?? ""),
  },
  {
    // `Authorization: Bearer …` / `Proxy-Authorization: Basic …` / `Authorization: SSWS …`: the
    // credential only; the scheme, whatever its word, is kept.
    id: "auth-header",
    kind: "secret",
    layer: "context",
    // "authorization" is a mandatory literal of the pattern (both case-insensitive).
    gate: /authorization/i,
    pattern:
      /authorization["']?\s*(?:=|:|=>)\s*["']?(?:[A-Za-z][A-Za-z0-9-]{1,19}[ \t]+(?=[^\s"',;]{6,}))?([^\s"',;]{6,})/dgi,
    group: 1,
    // A scheme's word alone is no credential (`"Authorization": "Bearer token"`, a placeholder).
    // A setting's word (MongoDB's `authorization: enabled`) neither.
    accept: (m) =>
      !isPlaceholder(m[1] ?? "") &&
      !isAuthSchemeWord(m[1] ?? "") &&
      !/^token$/i.test(m[1] ?? "") &&
      !/^[a-z]+$/.test(m[1] ?? ""),
  },
  {
    id: "bearer-token",
    kind: "secret",
    layer: "context",
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
    layer: "context",
    needles: ["curl"],
    gate: /\s(?:-u|--user)[\s=]/,
    pattern:
      /(?<=\s)(?:-u|--user)(?:=|[ \t]+)((?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"':]+)(?::(?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"']*))?)/dg,
    group: 1,
    accept: (m) => {
      const credential = (m[1] ?? "").replace(/["']/g, "");
      const colon = credential.indexOf(":");
      if (colon < 0 || credential.length < 2 || /^[<[$]/.test(credential)) return false;
      // `user:` with nothing after the colon sends an empty password: only a key there is secret
      // (Stripe's `-u sk_test_…:`), a name (`-u admin:`) is not.
      if (colon === credential.length - 1) return colon >= 10 && /\d/.test(credential);
      return !CURL_PLACEHOLDER.test(credential.slice(colon + 1));
    },
  },
  {
    // The values of a Kubernetes Secret's `data:` / `stringData:` block.
    id: "kubernetes-secret",
    kind: "secret",
    layer: "structure",
    needles: ["ata:"],
    gate: KIND_SECRET,
    scan: scanKubernetesSecret,
  },
  ...CONTEXT_RULES,
  {
    // A credential-shaped value assigned to a name holding a gitleaks keyword: `HEROKU_KEY = "…"`.
    id: "keyword-secret",
    kind: "secret",
    layer: "vendor",
    gate: new RegExp(CREDENTIAL_KEYWORD, "i"),
    pattern: KEYWORD_SECRET,
    group: KEYWORD_VALUES,
    accept: (m, text) => {
      const value = firstGroup(m, KEYWORD_VALUES);
      return (
        value !== undefined &&
        isCredentialShaped(value) &&
        !isPlaceholder(value) &&
        !isAlgorithmName(value) &&
        !isTypedPlaceholder(m[1] ?? "", value) &&
        isCredentialName(text, m.index, m[1] ?? "") &&
        !FAKE_NAME.test(identifierAt(text, m.index)) &&
        // A callee is code (Dart's `_secret = utf8.encode("…")`): its literal is the context rules'.
        text[m.index + m[0].length] !== "(" &&
        // A resource's path (GCP's `projects/p/secrets/db-password/versions/latest`) names a secret.
        !RESOURCE_PATH.test(value) &&
        !isPublishableKey(value)
      );
    },
  },
  ...STRUCTURE_RULES,
  ...SHAPE_RULES,
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
    // A product's version (`Chrome/125.0.0.0` in a User-Agent) is no address.
    accept: (m, text) =>
      m[0] !== "127.0.0.1" &&
      m[0] !== "0.0.0.0" &&
      !/[A-Za-z][\w-]*\/$/.test(text.slice(Math.max(0, m.index - 32), m.index)),
  },
  {
    id: "ipv6",
    kind: "privacy",
    policy: "redactIps",
    needles: [":"],
    // (?:hex{0,4}:){2,7} holds two consecutive groups: ":" hex{0,4} ":".
    gate: /:[0-9A-Fa-f]{0,4}:/,
    // Its first ":" is at most 4 characters after its start.
    anchor: { at: ":", before: 4 },
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
  ...new Set([...PATTERN_RULES.map((r) => r.id), "db-connection-string", CREDENTIAL_PAIR_RULE]),
];

const TOKEN_RUN = /[A-Za-z0-9_+/=.~-]{16}/;

const NEEDLES = new WeakMap<readonly PatternRule[], NeedleLists>();

/** The needles of `rules`, per rule (made once per list). */
function needlesOf(rules: readonly PatternRule[]): NeedleLists {
  let needles = NEEDLES.get(rules);
  if (needles === undefined) {
    needles = new NeedleLists(rules.map((r) => r.needles));
    NEEDLES.set(rules, needles);
  }
  return needles;
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

/**
 * How many characters before `at` are of `[A-Za-z0-9+.:-]`: a URL's scheme (`jdbc:mysql`) is
 * all of them, so a match of the URL rule starts no further back than that.
 */
function schemeRunBefore(text: string, at: number): number {
  let i = at;
  while (i > 0 && inTable(SCHEME_CHAR, text.charCodeAt(i - 1))) i--;
  return at - i;
}
const SCHEME_CHAR = alnumAnd("+.:-");

const STICKY = new WeakMap<RegExp, RegExp>();

/**
 * The first match of `re` (a rule's global pattern) in `text` that starts at `from` or later, or
 * null. With an `anchor`, only the starts it allows are tried, with a sticky copy of `re`: the
 * same first match, without an attempt at every position of the text.
 */
function nextMatch(rule: PatternRule, re: RegExp, text: string, from: number): RegExpExecArray | null {
  const anchor = rule.anchor;
  if (anchor === undefined) {
    re.lastIndex = from;
    return re.exec(text);
  }
  let sticky = STICKY.get(re);
  if (sticky === undefined) {
    sticky = new RegExp(re.source, `${re.flags}y`);
    STICKY.set(re, sticky);
  }
  let tried = from - 1;
  for (let c = text.indexOf(anchor.at, from); c !== -1; c = text.indexOf(anchor.at, c + 1)) {
    const before = typeof anchor.before === "number" ? anchor.before : anchor.before(text, c);
    for (let start = Math.max(tried + 1, c - before); start <= c; start++) {
      sticky.lastIndex = start;
      const m = sticky.exec(text);
      if (m !== null) return m;
    }
    tried = c;
  }
  return null;
}

/**
 * Runs `rules` over `text`, appending findings to `out`. `found`: the needles of `text`, when the
 * caller looked for them together with others (one pass over the text for both); its first lists
 * are those of `rules`, in their order.
 */
export function runPatternRules(
  text: string,
  rules: readonly PatternRule[],
  out: Detection[],
  found?: FoundNeedles,
): void {
  const needles = found?.lists ?? needlesOf(rules);
  let mark = found?.mark;
  let tokenRun: boolean | undefined;
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r] as PatternRule;
    if (rule.tokenRun === true) {
      tokenRun ??= TOKEN_RUN.test(text);
      if (!tokenRun) continue;
    }
    if (needles.has(r)) {
      mark ??= needles.find(text);
      if (!needles.holds(mark, r)) continue;
    }
    if (rule.gate !== undefined && !rule.gate.test(text)) continue;
    if (rule.scan !== undefined) {
      rule.scan(text, out, rule);
      continue;
    }
    const re = rule.pattern;
    if (re === undefined) continue;
    let at = 0;
    for (let m = nextMatch(rule, re, text, 0); m !== null; m = nextMatch(rule, re, text, at)) {
      at = m.index + m[0].length;
      if (m[0].length === 0) at++;
      if (rule.accept !== undefined && !rule.accept(m, text)) continue;
      const range = matchRange(m, rule.group);
      if (range === undefined || range[1] <= range[0]) continue;
      // Rescan from the start of the redacted group: `token => client_secret='…'` holds a second assignment.
      if (range[0] > m.index) at = range[0];
      const finding: Detection = {
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
 * Remembered: the scrubber asks it of each string value's member name, the same few on every line.
 */
export const isSecretMemberName: (name: string) => boolean = remembered(
  (name) => !NON_SECRET_NAME.test(name) && (SECRET_NAME.test(name) || SECRET_CAMEL_KEY.test(name)),
);

export { isPlaceholderFinding } from "./rule-helpers.js";
export { type Detection, LAYERS, type Layer, type PackRule, type PatternRule } from "./rule-types.js";
export {
  canSkipSecretlint,
  SECRETLINT_PRESET_ID,
  SecretlintScanner,
  secretlintRuleName,
} from "./secretlint-scanner.js";
