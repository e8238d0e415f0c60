import { lintSource } from "@secretlint/core";
import { creator as recommendPreset } from "@secretlint/secretlint-rule-preset-recommend";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRESETS, presetPolicy } from "#shared/redact/index.js";
import {
  canSkipSecretlint,
  type Detection,
  isSecretMemberName,
  OWN_RULE_IDS,
  PATTERN_RULES,
  type PatternRule,
  runPatternRules,
  SecretlintScanner,
  secretlintRuleName,
} from "#shared/redact/rules.js";
import { Scrubber } from "#shared/redact/scrub.js";

// Fake but realistic secrets, assembled at run time so that this file does not trip secret scanners.
const rep = (s: string, n: number) => s.repeat(n);
const S = {
  openaiLegacy: `sk-${rep("a1B2c3D4e5F6", 4)}`, // sk- + 48 (OpenAgents pattern)
  openaiProject: `sk-proj-${rep("Ab3_Cd5-Ef7gH9", 11)}`,
  anthropic: `sk-ant-api03-${rep("xY7_zW3-qR5", 8)}abcdeAA`,
  awsId: "AKIA" + "IOSFODNN7EXAMPL2",
  awsTempId: "ASIA" + "Q7RZ4TKW2LMN8XPV",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEK3Y",
  ghp: `ghp_${rep("a1B2c3", 6)}`, // ghp_ + 36 (OpenAgents pattern)
  ghs: `ghs_${rep("Z9y8X7", 6)}`,
  gho: `gho_${rep("Q1w2E3", 6)}`,
  ghu: `ghu_${rep("R4t5Y6", 6)}`,
  ghr: `ghr_${rep("u7I8o9", 6)}`,
  githubPat: `github_pat_11ABCDEFG0${rep("a1_B2c3D4e5", 7)}`,
  slack: `xoxb-${"123456789012"}-${"1234567890123"}-${"AbCdEfGhIjKlMnOpQrStUvWx"}`,
  slackUser: `xoxp-${"123456789012"}-${"98765432109"}-${"aBcDeF123456"}`,
  npm: `npm_${rep("a1B2c3", 6)}`,
  jwt: [
    Buffer.from('{"alg":"HS256","typ":"JWT"}').toString("base64url"),
    Buffer.from('{"sub":"1234567890","name":"Jane","iat":1516239022}').toString("base64url"),
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  ].join("."),
  gitlab: `glpat-${"Ab1Cd2Ef3Gh4Ij5Kl6Mn"}`,
  sendgrid: `SG.${"ngeVfQFYQlKU0ufo8x5d1A"}.${"TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc1s5crX"}`,
  stripe: `${"sk"}_live_${rep("4eC39HqLyjWDarjtT1zdp7dc", 2)}`,
  gcp: `AIza${"SyD7xQ2mK9pLr4Tn8Vb3Wc6Zh1Jf5Gk0Msq"}`,
  sentryUser: `sntryu_${rep("3f9a1c7e", 8)}`,
  azure: `${"bP8"}8Q~${"rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR"}`,
  heroku: "1f2e3d4c-5b6a-4978-8a1b-2c3d4e5f6a7b",
};
const PEM_BODY = [
  "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z1QxL8d2cXYb0iQp4yEYbJmQ",
  "Vh2m1oJX0pY6Z8aB9cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX3yZ4aB5cD6eF7gH",
  "8iJ9kL0mN1oP2qR3sT4uV5wX6yZ7aB8cD9eF0gH1iJ2kL3mN4oP5qR6sT7uV8wX==",
];
const pem = (label = "RSA PRIVATE KEY", nl = "\n") =>
  [`-----BEGIN ${label}-----`, ...PEM_BODY, `-----END ${label}-----`].join(nl);

const SHA256 = `sha256:${rep("3f2a9c1b", 8)}`;
const GIT_SHA = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c";
const UUID = "123e4567-e89b-12d3-a456-426614174000";

function scrub(text: string, options: ConstructorParameters<typeof Scrubber>[0] = {}): string {
  return new Scrubber(options).scrub(text, "$.x");
}

/** [expected rule, input, the part that must disappear] */
const POSITIVES: [string, string, string][] = [
  ["private-key", `key:\n${pem()}\nrest`, PEM_BODY[1] ?? ""],
  ["private-key", `{"k":"${pem("PRIVATE KEY", "\\n")}\\n"}`, PEM_BODY[0] ?? ""],
  ["private-key", pem("OPENSSH PRIVATE KEY"), PEM_BODY[2] ?? ""],
  ["private-key", pem("EC PRIVATE KEY", "\r\n"), PEM_BODY[1] ?? ""],
  ["private-key", pem("PGP PRIVATE KEY BLOCK"), PEM_BODY[1] ?? ""],
  [
    "private-key",
    `truncated: -----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY[0]}\n${PEM_BODY[1]}`,
    PEM_BODY[1] ?? "",
  ],
  [
    "private-key",
    `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n${PEM_BODY.join("\n")}\n-----END RSA PRIVATE KEY-----`,
    PEM_BODY[0] ?? "",
  ],
  ["openai-key", `OPENAI_API_KEY: ${S.openaiLegacy}`, S.openaiLegacy],
  ["openai-key", `client = OpenAI(api_key="${S.openaiProject}")`, S.openaiProject],
  ["openai-key", `"${S.openaiLegacy}",`, S.openaiLegacy],
  ["anthropic-key", `ANTHROPIC_API_KEY=${S.anthropic}\n`, S.anthropic],
  ["anthropic-key", `x-api-key: ${S.anthropic}`, S.anthropic],
  ["aws-access-key-id", `aws_access_key_id = ${S.awsId}`, S.awsId],
  ["aws-access-key-id", `creds ${S.awsTempId} expire`, S.awsTempId],
  ["aws-secret-key", `aws_secret_access_key = ${S.awsSecret}`, S.awsSecret],
  ["aws-secret-key", `"SecretAccessKey": "${S.awsSecret}"`, S.awsSecret],
  ["aws-secret-key", `export AWS_ACCESS_KEY_ID=${S.awsId}\nexport X=${S.awsSecret}`, S.awsSecret],
  ["aws-secret-key", `${S.awsId} ${S.awsSecret}`, S.awsSecret],
  ["github-token", `git remote add o https://${S.ghp}@github.com/o/r.git`, S.ghp],
  ["github-token", `GITHUB_TOKEN=${S.ghs}`, S.ghs],
  ["github-token", `token ${S.gho}`, S.gho],
  ["github-token", `(${S.ghu})`, S.ghu],
  ["github-token", `[${S.ghr}]`, S.ghr],
  ["github-token", `pat: ${S.githubPat}`, S.githubPat],
  ["slack-token", `SLACK_BOT_TOKEN=${S.slack}`, S.slack],
  ["slack-token", `use ${S.slackUser} now`, S.slackUser],
  [
    "slack-webhook",
    "post to https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcDEF123ghiJKL456mno",
    "abcDEF123ghiJKL456mno",
  ],
  ["npm-token", `//registry.npmjs.org/:_authToken=${S.npm}`, S.npm],
  ["npm-token", `NPM ${S.npm}.`, S.npm],
  ["jwt", `cookie session=${S.jwt}; Path=/`, S.jwt],
  ["jwt", `id_token ${S.jwt}`, S.jwt],
  ["url-password", "git clone https://deploy:Tr0ub4dor&3@git.example.com/r.git", "Tr0ub4dor&3"],
  ["url-password", "ftp://anna:pa55word@files.example.org/x", "pa55word"],
  ["url-password", "https://bob:p@ss@w0rd@example.com/", "p@ss@w0rd"],
  // RFC 3986's userinfo takes sub-delimiters, "'" among them.
  ["url-password", "https://user:pass4';.!&*()=,$-+~@example.com", "pass4';.!&*()=,$-+~"],
  ["db-connection-string", "DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"],
  ["db-connection-string", "postgresql://app:Sup3rS3cret@db.internal/app?sslmode=require", "Sup3rS3cret"],
  ["db-connection-string", "mysql://root:My5qlPa55@127.0.0.1:3306/db", "My5qlPa55"],
  ["db-connection-string", "mongodb+srv://admin:M0ng0Pass@cluster0.ab1cd.mongodb.net/test", "M0ng0Pass"],
  ["db-connection-string", "redis://:R3disPa55@cache.example.com:6379/0", "R3disPa55"],
  // Go's database/sql DSN: no scheme, the address in `tcp(…)` or `unix(…)`.
  [
    "db-connection-string",
    'sql.Open("mysql", "app:Kq7wz3Lr9Tk2@tcp(db:3306)/app?parseTime=true")',
    "Kq7wz3Lr9Tk2",
  ],
  ["db-connection-string", "root:summer24@unix(/var/run/mysqld/mysqld.sock)/app", "summer24"],
  // Oracle's JDBC URL: `user/password@` after the driver.
  ["db-connection-string", 'url = "jdbc:oracle:thin:appuser/xK9!mP2qR@dbhost:1521/ORCLPDB1"', "xK9!mP2qR"],
  ["db-connection-string", "jdbc:oracle:thin:appuser/p@ssw0rd@dbhost:1521/ORCLPDB1", "p@ssw0rd"],
  ["db-connection-string", 'jdbc:oracle:thin:appuser/"p@ssw0rd"@dbhost:1521/ORCLPDB1', "p@ssw0rd"],
  ["db-connection-string", "root:p@ssw0rd@tcp(127.0.0.1:3306)/app", "p@ssw0rd"],
  ["db-connection-string", 'sql.Open("mysql", "root:hunter2@/app")', "hunter2"],
  ["auth-header", "Authorization: Bearer abc123.def456-ghi789_jkl", "abc123.def456-ghi789_jkl"],
  [
    "auth-header",
    `headers = {"Authorization": "Basic ${Buffer.from("u:pw12345").toString("base64")}"}`,
    "dTpwdzEyMzQ1",
  ],
  ["bearer-token", "curl -H 'X-Auth: bearer 9f8e7d6c5b4a39281706f5e4'", "9f8e7d6c5b4a39281706f5e4"],
  ["generic-secret", "DB_PASSWORD=hunter2", "hunter2"],
  ["generic-secret", 'login(password: "correct horse battery staple")', "correct horse battery staple"],
  ["generic-secret", "api_key: 'k-9a8b7c6d'", "k-9a8b7c6d"],
  ["generic-secret", "client_secret=Zx81-Qw72_Er63", "Zx81-Qw72_Er63"],
  ["generic-secret", "https://api.example.com/v1?access_token=T0k3nValue&page=2", "T0k3nValue"],
  ["generic-secret", '{"passwd": "s3cr3t!"}', "s3cr3t!"],
  ["secretlint-gitlab", `GL=${S.gitlab}`, S.gitlab],
  ["secretlint-sendgrid", `key ${S.sendgrid}`, S.sendgrid],
  // Assignment forms (gitleaks' sample generator writes each of these).
  ["generic-secret", 'APP_TOKEN ::= "Zx81-Qw72_Er63"', "Zx81-Qw72_Er63"],
  ["generic-secret", 'APP_TOKEN ?= "Zx81-Qw72_Er63"', "Zx81-Qw72_Er63"],
  ["generic-secret", "appToken := `Zx81-Qw72_Er63`", "Zx81-Qw72_Er63"],
  ["generic-secret", 'var appToken string = "Zx81-Qw72_Er63"', "Zx81-Qw72_Er63"],
  ["generic-secret", 'api_token: str = "Zx81-Qw72_Er63"', "Zx81-Qw72_Er63"],
  ["generic-secret", '$appToken .= "Zx81-Qw72_Er63"', "Zx81-Qw72_Er63"],
  ["generic-secret", 'System.setProperty("APP_TOKEN", "Zx81-Qw72_Er63")', "Zx81-Qw72_Er63"],
  ["generic-secret", "<appToken>\n    Zx81-Qw72_Er63\n</appToken>", "Zx81-Qw72_Er63"],
  ["generic-secret", '<add key="ClearTextPassword" value="Zx81-Qw72_Er63" />', "Zx81-Qw72_Er63"],
  ["generic-secret", '{"api_token": "Zx81-Qw72_Er63"}', "Zx81-Qw72_Er63"],
  // A qualified credential name (`HEROKU_KEY`, `accessId`) is the assignment rule's now; the
  // keyword rule finds these too, and names them when the assignment rule is off.
  ["generic-secret", `const HEROKU_KEY = "${S.heroku}"`, S.heroku],
  ["generic-secret", `sumologic.accessId = "su9OL59biWiJu7"`, "su9OL59biWiJu7"],
  ["stripe-key", `charge with ${S.stripe}.`, S.stripe],
  ["gcp-api-key", `maps?key=${S.gcp}&v=3`, S.gcp],
  ["sentry-token", `SENTRY=${S.sentryUser}`, S.sentryUser],
  ["azure-ad-client-secret", `(${S.azure})`, S.azure],
  ["curl-user", "curl -u deploy:Zx81-Qw72_Er63 https://example.com", "deploy:Zx81-Qw72_Er63"],
  [
    "kubernetes-secret",
    "apiVersion: v1\nkind: Secret\ndata:\n  password: UyFCXCpkJHpEc2I9\n",
    "UyFCXCpkJHpEc2I9",
  ],
  [
    "slack-token",
    `legacy ${["xoxs", "155191149137", "155868813314", "338998331396", "9f6d235915"].join("-")}`,
    "338998331396",
  ],
  ["home-path", "cd /home/alice/src && ls", "alice"],
  ["home-path", "/Users/bob.smith/Library/x", "bob.smith"],
  ["home-path", "C:\\Users\\carol\\AppData\\Local", "carol"],
  ["home-path", "file:///home/dave/notes.md", "dave"],
  ["email", "contact: jane.doe+replay@example.co.uk.", "jane.doe+replay@example.co.uk"],
  ["ipv4", "ssh admin@203.0.113.42 -p 22", "203.0.113.42"],
  ["ipv4", "listening on 10.1.2.3:8080", "10.1.2.3"],
  ["ipv6", "from 2001:db8:85a3::8a2e:370:7334 port 443", "2001:db8:85a3::8a2e:370:7334"],
  ["ipv6", "addr fe80::1ff:fe23:4567:890a%eth0", "fe80::1ff:fe23:4567:890a"],
];

const NEGATIVES: string[] = [
  "'https://url:8000';@something else",
  'dsn := fmt.Sprintf("%s:%s@tcp(%s:%d)/%s", user, pass, host, port, name)',
  'f"{user}:{password}@tcp({host})/db"',
  "jdbc:oracle:thin:@//db.prod.internal:1521/SVCNA",
  'import Button from "@/components/Button"',
  "const u = 'https://user:' + pw + '@host.com';",
  SHA256,
  `params_hash: ${SHA256}, output_hash: sha256:${rep("0a", 32)}`,
  `commit ${GIT_SHA} (HEAD -> main)`,
  `step ${UUID} finished`,
  "The quick brown fox jumps over the lazy dog. Then it ran the tests, which passed.",
  "Use max_tokens=1024 and prompt_tokens: 512, tokenizer: cl100k_base, token_count=7",
  "function login(password: string, token: string): Promise<void> { return auth(password); }",
  "const pw = config.password; user.password = req.body.password;",
  "the risk-assessment-summary-2024 doc and scikit learn; task-force",
  "version 1.2.3, node v20.11.1, python 3.12.0",
  "2026-01-13T10:22:33.123Z took 1534 ms",
  "see https://example.com/docs?id=42#section and http://localhost:3000/api",
  "/srv/home/shared and /var/lib/app and ~/project",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell placeholder is the point
  "password: ${DB_PASSWORD} token=<YOUR_TOKEN> secret={{ secrets.KEY }} api_key=***",
  "ratio 3:2 at 12:30:45, std::vector<int>, a::b",
  "loopback 127.0.0.1 and 0.0.0.0 and ::1",
  "dGhpcyBpcyBqdXN0IGEgYmFzZTY0IGVuY29kZWQgc2VudGVuY2Ugd2l0aG91dCBhbnkgc2VjcmV0",
  "[REDACTED:jwt] and token=[REDACTED:generic-secret:0a1b2c3d]",
  // Placeholders and examples, whatever rule would match them.
  `token: ghp_${"x".repeat(36)}`,
  `AIza${"a".repeat(35)}`,
  `aws_access_key: AKIA${"IOSFODNN7"}EXAMPLE`,
  "--token=sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXXXXXXXXXXX",
  "OPENAI_API_KEY=sk-proj-YOUR_API_KEY_HERE and sk-Your_Api_Key_Here_0123",
  "xoxb-xoxb-my-bot-token and xoxe.xoxp-1-initial",
  "PuttyPassword=0 and JFROG_SECRET = $(cat /run/secrets/jfrog) and access_token=ACCESS_TOKEN",
  '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
  "export OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoi...",
  // Keyword names that are no credential's.
  "api_version = 2024a10b11, cache_key: c0ffee1234abcd, tokenizer: cl100k_base, SetSysctl = ab12cd34ef56gh",
  "kind: ConfigMap\ndata:\n  mode: c2VjcmV0LW1vZGUtb24=\n",
  "curl --user admin https://example.com && curl -u user:$PASSWORD https://example.com",
  // IAM unique ids (21 characters after `AIDA`, `AROA`) name a user or a role; an access key id has 20.
  '{"UserId": "AIDAJQABLZS4A3QDU576Q", "RoleId": "AROADBQP57FF2AEXAMPLE"}',
];

describe("rules: positives", () => {
  it.each(POSITIVES)("%s: %s", (rule, input, secret) => {
    const out = scrub(input);
    expect(out).not.toContain(secret);
    if (rule === "home-path") expect(out).toContain("~");
    else expect(out).toContain(`[REDACTED:${rule}]`);
  });

  it("keeps scheme, user and host of credential URLs", () => {
    expect(scrub("postgres://app:Sup3rS3cret@db.internal:5432/app")).toBe(
      "postgres://app:[REDACTED:db-connection-string]@db.internal:5432/app",
    );
    expect(scrub("https://deploy:pw12345@git.example.com/r.git")).toBe(
      "https://deploy:[REDACTED:url-password]@git.example.com/r.git",
    );
  });

  it("keeps the Authorization scheme and the assignment name", () => {
    expect(scrub("Authorization: Bearer abc123.def456-ghi789")).toBe(
      "Authorization: Bearer [REDACTED:auth-header]",
    );
    expect(scrub("DB_PASSWORD=hunter2 rest")).toBe("DB_PASSWORD=[REDACTED:generic-secret] rest");
  });

  it("replaces home directories with ~ and keeps the rest of the path", () => {
    expect(scrub("/home/alice/project/src/a.ts")).toBe("~/project/src/a.ts");
    expect(scrub("C:\\Users\\carol\\repo")).toBe("~\\repo");
  });

  it("covers the OpenAgents ReplayBundle patterns: sk- + 48, ghp_/ghs_ + 36", () => {
    const body48 = rep("Ab1Cd2Ef3Gh4", 4);
    const body36 = rep("x9Y8z7", 6);
    for (const secret of [`sk-${body48}`, `ghp_${body36}`, `ghs_${body36}`]) {
      expect(scrub(`value ${secret} end`)).not.toContain(secret);
    }
  });

  it("redacts a generated key that spells `_HERe` or `yoUR_` by chance (not a placeholder)", () => {
    // Keys of leak-formats.property.test.ts counterexamples (LEAK 2 property, seed -67471865, path 74;
    // the .rpk kept-name strings, scrubbed directly): `/YOUR_|_HERE/i` anywhere in a finding dropped them.
    const keys: [string, string][] = [
      [
        "anthropic-key",
        `sk-ant-api03-${"1FvTxCrBOgiYXzv2FEr8C0jK98JLGZpe_HERe9YDEgshF3vr4gMQX0ifIJfDFJR2assdRWtgJApOXlE7ELlajSyx-4fUwAA"}`,
      ],
      [
        "openai-key",
        `sk-proj-${"48pZP6Mz7HGCd_7w5gybctgwnFOhdUnD8dU2RCvstVnPmqSsYQjM7VFIFfBj-wzeJ8vJdRoQ8mSHHiTeOKowa0tXnQzBq"}${"-lj968bjPuzo79YRqQOE9pc5u_RdbxHykq-tvq_Sv4r9_fSMPOhk2yoUR_BbptbgEu"}`,
      ],
      [
        "github-token",
        `github_pat_${"8K1Qq_ykFyoUr_Tjtq2VuKja4B6JhKpDcbRz2FynVK4qOsw_LtHwaQhktkJNbv6_xSabOdoUGV8xVZOZWu"}`,
      ],
    ];
    for (const [rule, key] of keys) {
      expect(scrub(`yxbpfl o jfkuga\n${key} "fm`)).toBe(`yxbpfl o jfkuga\n[REDACTED:${rule}] "fm`);
    }
  });

  it("redacts secrets in PEM blocks whose newlines are literal \\n sequences", () => {
    const out = scrub(`"private_key": "${pem("PRIVATE KEY", "\\n")}\\n", "client_email": "x"`);
    for (const line of PEM_BODY) expect(out).not.toContain(line);
    expect(out).toContain('"client_email": "x"');
  });
});

describe("rules: negatives", () => {
  it.each(NEGATIVES)("leaves %s alone", (input) => {
    expect(scrub(input)).toBe(input);
  });

  it("knows every rule id it reports", () => {
    for (const [rule] of POSITIVES) {
      expect(OWN_RULE_IDS.includes(rule) || rule.startsWith("secretlint-")).toBe(true);
    }
  });
});

describe("decode-and-scan", () => {
  it("redacts a base64-encoded secret as a whole run", () => {
    const blob = Buffer.from(`export GITHUB_TOKEN=${S.ghp}\n`).toString("base64");
    const out = scrub(`data: ${blob} end`);
    expect(out).toBe("data: [REDACTED:github-token] end");
  });

  it("reads a run as text from 90% printable bytes on, and not below", () => {
    const text = Buffer.from(`export GITHUB_TOKEN=${S.ghp}\n`);
    // The most control bytes that leave the text at 90% printable.
    let most = 0;
    while (text.length >= (text.length + most + 1) * 0.9) most++;
    // Without the shape layer, which takes a run of random-looking bytes whole before it is decoded.
    const scrubber = new Scrubber({ layers: ["vendor", "context", "structure"] });
    const blob = (controls: number) => Buffer.concat([Buffer.alloc(controls, 1), text]).toString("base64");
    expect(scrubber.scrub(`data: ${blob(most)} end`, "p")).toBe("data: [REDACTED:github-token] end");
    expect(scrubber.scrub(`data: ${blob(most + 1)} end`, "p")).toBe(`data: ${blob(most + 1)} end`);
  });

  it("redacts a base64url-encoded secret", () => {
    const blob = Buffer.from(`{"k":"${S.anthropic}"}`).toString("base64url");
    expect(scrub(`?state=${blob}`)).not.toContain(blob);
  });

  it("redacts percent-encoded secrets on the escaped text", () => {
    const encoded = encodeURIComponent(`postgres://app:P@ss/w0rd!@db/app`);
    const out = scrub(`redirect=${encoded}&x=1`);
    expect(out).not.toContain("w0rd");
    expect(out).toContain("&x=1");
    const pemEncoded = encodeURIComponent(pem());
    const out2 = scrub(`k=${pemEncoded}`);
    for (const line of PEM_BODY) expect(out2).not.toContain(encodeURIComponent(line));
  });

  it("a URL's password holding an escape loses the password alone, host and database kept", () => {
    for (const scheme of ["postgresql", "mysql", "mongodb+srv", "redis"]) {
      for (const password of ["3*HGfL0GKbAXwG%23i", "sOzH%5EkgcP%23~7Xi*", "p%40ss%3Aw0rd"]) {
        expect(scrub(`connecting to ${scheme}://ci:${password}@db.internal:5432/app (attempt 1)`)).toBe(
          `connecting to ${scheme}://ci:[REDACTED:db-connection-string]@db.internal:5432/app (attempt 1)`,
        );
      }
    }
  });
});

describe("secretlint integration", () => {
  it("driving the preset directly gives the same ranges as lintSource", async () => {
    const scanner = new SecretlintScanner();
    const texts = [
      `a ${S.anthropic} b ${S.gitlab} c ${S.sendgrid}`,
      `${S.ghp}\n${S.npm}\n${S.slack}`,
      `aws_secret_access_key="${S.awsSecret}" id ${S.awsId}`,
      `postgres://user:Sup3rS3cret@db.example.com/app https://alice:s3cr3tpw@example.com/x`,
      pem(),
      "nothing to see here, 42 times",
    ];
    const config = {
      rules: [
        {
          id: recommendPreset.meta.id,
          rule: recommendPreset,
          rules: [
            { id: "@secretlint/secretlint-rule-filter-comments", disabled: true },
            { id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } },
          ],
        },
      ],
    };
    for (const content of texts) {
      const result = await lintSource({
        source: { content, filePath: "value.txt", ext: ".txt", contentType: "text" },
        options: { config: config as never, noPhysicFilePath: true },
      });
      // The scanner leaves secretlint's Slack rule to our own slack-token rule.
      const expected = result.messages
        .filter((m) => m.ruleId !== "@secretlint/secretlint-rule-slack")
        .map((m) => `${secretlintRuleName(m.ruleId)}@${m.range[0]}-${m.range[1]}`);
      const found: Detection[] = [];
      scanner.scan(content, found);
      const got = found.map((f) => `${f.rule}@${f.start}-${f.end}`);
      expect(new Set(got)).toEqual(new Set(expected));
    }
  });

  it("ignores secretlint-disable comments inside the data", () => {
    const text = `// secretlint-disable\nconst k = "${S.gitlab}";\n// secretlint-enable`;
    expect(scrub(text)).not.toContain(S.gitlab);
  });

  it("shortcut: never skips a string that holds a secret secretlint knows", () => {
    for (const text of [...Object.values(S), pem()]) expect(canSkipSecretlint(text)).toBe(false);
    const scanner = new SecretlintScanner();
    for (const [, input] of POSITIVES) {
      const found: Detection[] = [];
      scanner.scan(input, found);
      if (found.length > 0) expect(canSkipSecretlint(input)).toBe(false);
    }
  });

  it("shortcut: secretlint finds nothing in the strings it skips", () => {
    const scanner = new SecretlintScanner();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 7 }),
          fc.stringMatching(/^[A-Za-z \t]{8,200}$/),
          fc.constantFrom("dapi", "x").chain((p) => fc.stringMatching(/^[a-f]{32}$/).map((h) => `${p}${h}`)),
          fc.stringMatching(/^[\w .:/=@+-]{8,40}$/),
          fc
            .tuple(
              fc.constantFrom(
                "xoxb-",
                "xapp-",
                "glpat-",
                "SG.",
                "hvs.",
                "sk-ant-api03-",
                "npm_",
                "ghp_",
                "AKIA",
                "dapi",
              ),
              fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/),
              fc.constantFrom("", " ", "-", ".x", "@h.io", "\n"),
            )
            .map(([a, b, c]) => `${a}${b}${c}`),
          fc.stringMatching(/^aws_account_id = \d{4}-?\d{4}-?\d{4}$/),
        ),
        (text) => {
          fc.pre(canSkipSecretlint(text));
          const found: Detection[] = [];
          scanner.scan(text, found);
          expect(found).toEqual([]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("secretlint's ranges in Layer C", () => {
  const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  // No bias: a run of one character is a hand-typed placeholder, which every rule leaves.
  const key = fc
    .noBias(fc.array(fc.constantFrom(...BASE64), { minLength: 40, maxLength: 40 }))
    .map((a) => a.join(""))
    // secretlint's pattern ends in `\b`: a key ending in `+` or `/` is not its.
    .filter((k) => new Set(k).size >= 16 && /[0-9]/.test(k) && /[a-z]/.test(k) && /[A-Za-z0-9]$/.test(k));
  const label = fc.constantFrom(
    "aws_secret_access_key = ",
    'AWS_SECRET_ACCESS_KEY: "',
    "SecretAccessKey => ",
  );
  it("its AWS rule alone (its range starts at the label, with the key's length) leaves no part of the key", () => {
    // Our own rules that read the same shape off: only secretlint sees the key.
    const alone = new Scrubber({ layers: ["vendor"], disableRules: ["aws-secret-key", "keyword-secret"] });
    fc.assert(
      fc.property(label, key, (l, k) => {
        const out = alone.scrub(`${l}${k}`, "$.error.message");
        expect(out).toContain("[REDACTED:secretlint-aws]");
        for (let i = 0; i + 8 <= k.length; i++) expect(out).not.toContain(k.slice(i, i + 8));
      }),
      { numRuns: 200 },
    );
  });
  it("with every rule, the label stays and the key alone is replaced", () => {
    fc.assert(
      fc.property(label, key, (l, k) => {
        const out = new Scrubber().scrub(`${l}${k}`, "$.error.message");
        expect(out.startsWith(l)).toBe(true);
        expect(out).not.toContain(k.slice(-8));
      }),
      { numRuns: 200 },
    );
  });
});

describe("Scrubber API", () => {
  it("keyed replacements are stable per secret and differ between secrets and keys", () => {
    const key = new Uint8Array(32).fill(7);
    const a = new Scrubber({ key });
    const t1 = a.scrub(`x ${S.jwt}`, "$.a");
    const t2 = a.scrub(`y ${S.jwt} z`, "$.b");
    const t3 = a.scrub(`x ${S.ghp}`, "$.c");
    const tag = /\[REDACTED:(?<rule>[a-z0-9-]+):(?<mac>[0-9a-f]{8})\]/;
    const m1 = tag.exec(t1);
    expect(m1?.groups?.rule).toBe("jwt");
    expect(tag.exec(t2)?.groups?.mac).toBe(m1?.groups?.mac);
    expect(tag.exec(t3)?.groups?.mac).not.toBe(m1?.groups?.mac);
    const other = new Scrubber({ key: new Uint8Array(32).fill(8) }).scrub(`x ${S.jwt}`, "$.a");
    expect(tag.exec(other)?.groups?.mac).not.toBe(m1?.groups?.mac);
    expect(new Scrubber().scrub(`x ${S.jwt}`, "$.a")).toBe("x [REDACTED:jwt]");
  });

  it("scans a string or member name that only starts with a tag, and leaves a whole tag alone", () => {
    const s = new Scrubber();
    expect(s.scrub(`[REDACTED:jwt] then ${S.ghp}`, "$.a")).toBe(
      "[REDACTED:jwt] then [REDACTED:github-token]",
    );
    expect(s.scrubKey(`[REDACTED:jwt] ${S.ghp}`, "$.a")).toBe("[REDACTED:jwt] [REDACTED:github-token]");
    expect(s.scrub("[REDACTED:jwt]", "$.a", "token")).toBe("[REDACTED:jwt]");
    expect(s.scrubKey("[REDACTED:generic-secret:0a1b2c3d]", "$.a")).toBe(
      "[REDACTED:generic-secret:0a1b2c3d]",
    );
  });

  it("counts replacements per rule and per path", () => {
    const s = new Scrubber();
    s.scrub(`${S.jwt} and ${S.ghp}`, "$.events[0].text");
    s.scrub(`again ${S.ghp} mail bob@example.com`, "$.events[1].text");
    s.scrub("nothing here", "$.events[2].text");
    s.scrub("hunter2", "$.events[3].env", "DB_PASSWORD");
    expect(s.summary()).toEqual({
      by_rule: { jwt: 1, "github-token": 2, email: 1, "secret-key-name": 1 },
      by_path: { "$.events[0].text": 2, "$.events[1].text": 2, "$.events[3].env": 1 },
      total: 5,
    });
  });

  it("redacts the whole value under secret-like member names", () => {
    const s = new Scrubber();
    for (const name of [
      "token",
      "access_token",
      "apiKey",
      "x-api-key",
      "key",
      "secret",
      "client_secret",
      "password",
      "DB_PASSWORD",
      "auth",
      "Authorization",
      "credentials",
      "aws_session_token",
    ]) {
      expect(s.scrub("plain value 1", "$.p", name)).toBe("[REDACTED:secret-key-name]");
    }
    for (const name of [
      "max_tokens",
      "input_tokens",
      "author",
      "keyword",
      "name",
      "primary_key",
      "token_type",
    ]) {
      expect(isSecretMemberName(name)).toBe(false);
      // A scrubber of its own: `s` knows the value now, and redacts it wherever it recurs.
      expect(new Scrubber().scrub("plain value 1", "$.p", name)).toBe("plain value 1");
      expect(s.scrub("plain value 1", "$.p", name)).toBe("[REDACTED:secret-key-name]");
    }
    expect(s.scrub("", "$.p", "token")).toBe("");
  });

  it("scrubKey scrubs member names", () => {
    const s = new Scrubber();
    expect(s.scrubKey("/home/alice/repo/a.ts", "$.files")).toBe("~/repo/a.ts");
    expect(s.scrubKey(S.ghp, "$.tokens")).toBe("[REDACTED:github-token]");
    expect(s.scrubKey("password", "$.x")).toBe("password");
    expect(s.summary().by_path).toEqual({ "$.files": 1, "$.tokens": 1 });
  });

  it("is idempotent", () => {
    const key = new Uint8Array(16).fill(1);
    for (const [, input] of POSITIVES) {
      const once = new Scrubber({ key }).scrub(input, "$");
      expect(new Scrubber({ key }).scrub(once, "$")).toBe(once);
    }
  });
});

describe("presets", () => {
  it("private_repo is the default and redacts e-mails, IPs and home paths", () => {
    expect(presetPolicy()).toEqual(presetPolicy("private_repo"));
    expect(scrub("mail a@b.example from 10.0.0.1 in /home/al/x")).toBe(
      "mail [REDACTED:email] from [REDACTED:ipv4] in ~/x",
    );
  });

  it("open_source keeps e-mails, IPs and paths but never secrets", () => {
    const text = `mail a@b.example from 10.0.0.1 in /home/al/x with ${S.ghp}`;
    expect(scrub(text, { preset: "open_source" })).toBe(
      "mail a@b.example from 10.0.0.1 in /home/al/x with [REDACTED:github-token]",
    );
  });

  it("paranoid sets keepOnlyStructural and every privacy switch", () => {
    expect(presetPolicy("paranoid")).toEqual({
      name: "paranoid",
      redactEmails: true,
      redactIps: true,
      homePaths: true,
      keepOnlyStructural: true,
    });
    for (const p of PRESETS) expect(presetPolicy(p).name).toBe(p);
    expect(() => presetPolicy("nope" as never)).toThrow(/unknown privacy preset/);
  });
});

describe("Scrubber remembers the findings of short strings", () => {
  it("replaces and counts every occurrence of a repeated string, as a fresh scrubber does", () => {
    const text = `curl -H "Authorization: token ghp_${"c".repeat(36)}" https://api.github.com`;
    const reused = new Scrubber({ key: Buffer.from("k") });
    const outputs = [1, 2, 3].map((n) => reused.scrub(text, `$.p${n}`));
    for (const out of outputs) expect(out).toBe(new Scrubber({ key: Buffer.from("k") }).scrub(text, "$.x"));
    expect(outputs[0]).not.toContain("ghp_");
    const summary = reused.summary();
    expect(summary.total).toBe(3 * new Scrubber().findings(text).length);
    expect(Object.keys(summary.by_path)).toEqual(["$.p1", "$.p2", "$.p3"]);
  });

  it("takeSummary returns the counts since the last call and starts afresh", () => {
    const scrubber = new Scrubber();
    scrubber.scrub("mail me at someone@example.com", "$.a");
    const first = scrubber.takeSummary();
    expect(first.total).toBeGreaterThan(0);
    expect(scrubber.takeSummary()).toEqual({ by_rule: {}, by_path: {}, total: 0 });
    expect(scrubber.summary().total).toBe(0);
  });
});

describe("anchored rules", () => {
  // A rule's `anchor` is speed only: the matches must be those of its regular expression tried
  // at every position.
  it("find what their regular expression finds unanchored", () => {
    const anchored = PATTERN_RULES.filter((r) => r.anchor !== undefined);
    expect(anchored.length).toBeGreaterThan(0);
    const texts = fc
      .array(fc.constantFrom("1", "a", "F", "0", ":", "::", ".", " ", "g", "fe80", "2001", "db8"), {
        maxLength: 40,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(texts, (text) => {
        for (const rule of anchored) {
          const plain: PatternRule = { ...rule };
          delete plain.anchor;
          const a: Detection[] = [];
          const b: Detection[] = [];
          runPatternRules(text, [rule], a);
          runPatternRules(text, [plain], b);
          expect(a).toEqual(b);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("find what the URL rule finds unanchored, the scheme measured back from each ://", () => {
    const url = PATTERN_RULES.find((r) => r.id === "url-password" && r.anchor !== undefined);
    expect(url).toBeDefined();
    if (url === undefined) return;
    const plain: PatternRule = { ...url };
    delete plain.anchor;
    const texts = fc
      .array(
        fc.constantFrom(
          "://",
          "jdbc:",
          "mysql",
          "x+y.z-",
          "u:p4ss@h",
          ":",
          "@",
          "/",
          " ",
          "%40",
          "p4ss",
          "h",
        ),
        { maxLength: 30 },
      )
      .map((parts) => parts.join(""));
    let found = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const a: Detection[] = [];
        const b: Detection[] = [];
        runPatternRules(text, [url], a);
        runPatternRules(text, [plain], b);
        expect(a).toEqual(b);
        found += a.length;
      }),
      { numRuns: 5000 },
    );
    // The texts drawn hold URLs with a password, not only misses.
    expect(found).toBeGreaterThan(0);
  });
});
