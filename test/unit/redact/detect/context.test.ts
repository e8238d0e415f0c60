/**
 * The context layer's references: a backquoted command assigned in shell (the value is its output) and a
 * UUID under an access id (a record's name). Each is generated from a fixed seed with, right beside it,
 * the credentials of the same names that must still be caught.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectHidden, expectKept } from "./helpers.js";

const SEED = 20_261_128;
const RUNS = 100;
const sample = <T>(arb: fc.Arbitrary<T>): T[] => fc.sample(fc.noBias(arb), { seed: SEED, numRuns: RUNS });

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const token = fc.tuple(chars(BASE62, 20, 40), chars("0123456789", 2)).map(([b, d]) => `Kq${d}${b}x`);
const uuid = fc.uuid({ version: [1, 4, 7] });

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

const credName = fc.constantFrom(
  "SUMO_ACCESS_KEY",
  "DB_PASSWORD",
  "GITHUB_TOKEN",
  "api_key",
  "ClientSecret",
  "zorvix_auth_token",
);
const command = fc
  .tuple(
    fc.constantFrom(
      "cat",
      "etcdctl get",
      "vault read -field=value",
      "pass show",
      "aws ssm get-parameter --name",
      "op read",
    ),
    fc.constantFrom(
      "/run/secrets/db",
      "secret/app/token",
      "~/.config/key.txt",
      "prod/api",
      "op://vault/item/field",
    ),
  )
  .map(([c, arg]) => `${c} ${arg}`);
const prefix = fc.constantFrom("", "export ", "-e ", "docker run -e ", "env ");

describe("a shell assignment of a backquoted command", () => {
  it("is the command's output, not a value: kept", () => {
    for (const [p, name, cmd] of sample(fc.tuple(prefix, credName, command))) {
      const text = `${p}${name}=\`${cmd}\``;
      expect(scrub(text), text).toBe(text);
    }
  });

  it("a backquoted token (no blank) is still a credential", () => {
    for (const [p, name, t] of sample(fc.tuple(prefix, credName, token))) {
      expect(scrub(`${p}${name}=\`${t}\``)).not.toContain(t);
    }
  });

  it("a backquoted passphrase after a blank is still a credential", () => {
    const phrase = fc
      .array(fc.constantFrom("correct", "horse", "battery", "staple", "purple", "tiger"), {
        minLength: 2,
        maxLength: 4,
      })
      .map((w) => w.join(" "));
    for (const [name, ph, form] of sample(
      fc.tuple(credName, phrase, fc.constantFrom(" = ", ": ", ":", " := ")),
    )) {
      const out = scrub(`${name}${form}\`${ph}\``);
      expect(out, `${name}${form}\`${ph}\``).not.toContain(ph);
    }
  });
});

describe("a UUID under an access id names a record", () => {
  const idName = fc.constantFrom("report_access_id", "accessId", "ACCESS_ID", "share-access-id", "AccessID");
  const form = fc.constantFrom(
    (n: string, v: string) => `${n}: ${v}`,
    (n: string, v: string) => `${n}=${v}`,
    (n: string, v: string) => `"${n}": "${v}"`,
  );

  it("is kept", () => {
    for (const [n, v, f] of sample(fc.tuple(idName, uuid, form))) {
      const text = f(n, v);
      expect(scrub(text), text).toBe(text);
    }
  });

  it("a UUID under a key is still a credential (Heroku's API keys are UUIDs)", () => {
    const keyName = fc.constantFrom(
      "api_key",
      "KEY",
      "access_key",
      "HEROKU_API_KEY",
      "licenseKey",
      "auth_token",
    );
    for (const [n, v, f] of sample(fc.tuple(keyName, uuid, form))) {
      expect(scrub(f(n, v)), f(n, v)).not.toContain(v);
    }
  });

  it("a generated access id that is no UUID is still half of a credential pair", () => {
    const accessId = chars(BASE62, 14).map((b) => `su${b.slice(2, 8)}7Q${b.slice(8)}`);
    for (const [n, v, f] of sample(fc.tuple(idName, accessId, form))) {
      expect(scrub(f(n, v)), f(n, v)).not.toContain(v);
    }
  });
});

describe("a bare value that names a credential", () => {
  // Random passwords of letters and digits, each holding a credential word (`pin`, `key`, `pw`, …)
  // by chance, as a generator happened to write `PINAyAAA9`.
  const word = fc.constantFrom("PIN", "Key", "pw", "Auth", "SIG", "otp");
  const chance = fc
    .tuple(word, chars(BASE62, 2, 6), chars("0123456789", 1, 2), chars(BASE62, 0, 3))
    .map(([w, a, d, b]) => `${w}${a}${d}${b}`)
    .filter((v) => /\d/.test(v));
  const named = fc.constantFrom(
    "api-key",
    "github_token",
    "secretKey",
    "DB_PASSWORD",
    "ApiToken",
    "db.password",
  );

  it("written as a name (words of letters, joined or in camel case) refers to one: kept", () => {
    for (const value of sample(named)) expect(scrub(`password=${value} `)).toBe(`password=${value} `);
  });

  it("holding a credential word by chance among digits is the password: redacted", () => {
    for (const value of sample(chance)) expect(scrub(`password=${value} `), value).not.toContain(value);
  });
});

const word = (min: number, max: number) => chars("abcdefghijklmnopqrstuvwxyz", min, max);
const capitalized = word(3, 10).map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`);

const contextOnly = new Scrubber({ layers: ["context"] });

describe("an Authorization header of any scheme", () => {
  it("the credential after the scheme word is redacted, the scheme kept", () => {
    const scheme = fc.oneof(
      capitalized,
      word(3, 8).map((w) => w.toUpperCase()),
    );
    for (const [s, t, sep] of sample(fc.tuple(scheme, token, fc.constantFrom(": ", ":", " = ")))) {
      const text = `curl -H "Authorization${sep}${s} ${t}" https://api.example.com/v1`;
      expect(scrub(text), text).not.toContain(t);
      // The context layer alone reads past the scheme: it redacts the credential, not the word.
      const out = contextOnly.scrub(text, "$.error.message");
      expect(out, text).not.toContain(t);
      expect(out, text).toContain(`${s} `);
    }
  });
});

describe("a password in prose, after the account it is for", () => {
  it("`the password for user 'u' is 'p'`: the password is redacted, the user kept", () => {
    const quote = fc.constantFrom("'", '"');
    const pw = fc.tuple(word(4, 8), chars("0123456789", 1, 3)).map(([w, d]) => `${w}${d}`);
    for (const [q, lead, user, p, who] of sample(
      fc.tuple(
        quote,
        fc.constantFrom("the", "The default", "Ensure the"),
        word(4, 10),
        pw,
        fc.constantFrom("user", "the user", "account"),
      ),
    )) {
      const text = `${lead} password for ${who} ${q}${user}${q} is ${q}${p}${q}.`;
      const out = scrub(text);
      expect(out, text).not.toContain(p);
      expect(out, text).toContain(`${q}${user}${q}`);
    }
  });

  it("prose about an account without a value is kept", () => {
    for (const user of sample(word(4, 10))) {
      const text = `the token for user ${user} is expired`;
      expect(scrub(text), text).toBe(text);
    }
  });
});

describe("a call of an endpoint, a user and a password", () => {
  const scheme = fc.constantFrom("jdbc:mysql", "jdbc:postgresql", "LDAP", "ldaps", "ftp", "smb");
  const pw = fc
    .tuple(capitalized, chars("0123456789", 2, 4), fc.constantFrom("!", "#", ""))
    .map((a) => a.join(""));
  const callee = fc.constantFrom("new DirectoryEntry", "DriverManager.getConnection", "Open", "client.bind");

  it("the third string is the password: redacted; the endpoint and the user kept", () => {
    for (const [c, s, user, p] of sample(fc.tuple(callee, scheme, word(4, 10), pw))) {
      const text = `${c}("${s}://db.example.com:3306/app", "${user}", "${p}");`;
      const out = scrub(text);
      expect(out, text).not.toContain(p);
      expect(out, text).toContain(`"${user}"`);
      expect(out, text).toContain(`${s}://db.example.com`);
    }
  });

  it("three strings after a web URL, to a callee naming no credential, are kept", () => {
    for (const [a, b] of sample(fc.tuple(word(3, 8), word(3, 8)))) {
      const text = `fetch("https://api.example.com/items", "${a}", "${b}")`;
      expect(scrub(text), text).toBe(text);
    }
  });
});

describe("a key in hex under a qualified credential name", () => {
  // Long digit runs, as real keys have: the shape layer's switch rate alone would take it for a digest.
  const hexKey = (n: number) =>
    fc
      .tuple(chars("0123456789", n - 12), chars("abcdef", 6), chars("0123456789abcdef", 6))
      .map(([d, l, m]) => `${d.slice(0, 8)}${l}${d.slice(8)}${m}`);

  it("is redacted whatever its digits: `-D<tool>.login=<40 hex>`, `<tool>_license_key: <32 hex>`", () => {
    for (const [tool, h40, h32] of sample(fc.tuple(word(4, 8), hexKey(40), hexKey(32)))) {
      for (const text of [`mvn verify -D${tool}.login=${h40}`, `${tool}_license_key: ${h32}`]) {
        expect(scrub(text), text).not.toContain(text.endsWith(h40) ? h40 : h32);
        const out = contextOnly.scrub(text, "$.error.message");
        expect(out, text).not.toContain(text.endsWith(h40) ? h40 : h32);
        expect(out, text).toContain(tool);
      }
    }
  });

  it("a digest under a name of its own is kept", () => {
    for (const h of sample(hexKey(40))) {
      const text = `checked out commit ${h}`;
      expect(scrub(text), text).toBe(text);
    }
  });
});

describe("an article before a word is a placeholder, not before a password", () => {
  // `your_api_key`, `my-secret`, `the token`: words after an article describe the value. A
  // password that starts with `A_` or `a-` (`A_AAAAAAA9`, as the leak property generated) is not one.
  const described = fc
    .tuple(
      fc.constantFrom("your", "my", "the", "a", "an", "some"),
      fc.constantFrom("_", "-"),
      word(3, 8),
      word(0, 6),
    )
    .map(([article, sep, w, more]) => `${article}${sep}${w}${more === "" ? "" : `${sep}${more}`}`);
  const password = fc
    .tuple(fc.constantFrom("A_", "a-", "An_", "my-"), chars(BASE62, 5, 12), chars("0123456789", 1, 2))
    .map(([start, body, digits]) => `${start}${body}${digits}`);

  it("words after an article: kept", () => {
    for (const value of sample(described)) expect(scrub(`password=${value} `)).toBe(`password=${value} `);
  });

  it("an article, then letters and digits: redacted", () => {
    for (const value of sample(password)) expect(scrub(`password=${value} `), value).not.toContain(value);
    expect(scrub("password=A_AAAAAAA9 ")).not.toContain("A_AAAAAAA9");
  });
});

describe("a `/` flag stands after a blank, not inside a run", () => {
  it("`…AAAA/AAAPw metadata` keeps `metadata` (the leak property's counterexample); `/Password x` is a flag", () => {
    const text = "aws_secret_access_key=0AAAAAAAAAAAAAAAAAAA/AAAAAAAAAAAAAAAAAPw metadata";
    expect(scrub(text)).toMatch(/ metadata$/);
    expect(scrub("net use Z: /user:bob /Password Summer2021#")).not.toContain("Summer2021#");
    expect(scrub("tool /pw s3cr3tPass1")).not.toContain("s3cr3tPass1");
  });
});

describe("a value in parentheses", () => {
  it("keeps the parentheses, which are prose", () => {
    for (const t of sample(token)) {
      expect(scrub(`the zorvix key (${t}) expired`)).toBe(
        "the zorvix key ([REDACTED:generic-secret]) expired",
      );
    }
  });
  it("words in parentheses are prose (Terraform's plan); one word there is the value", () => {
    const plan = "+ secret = (sensitive value)\n+ id     = (known after apply)";
    expect(scrub(plan)).toBe(plan);
    expect(scrub("password = (hunter2)")).toBe("password = ([REDACTED:generic-secret])");
  });
  it("a call's parentheses are code, not a value", () => {
    expect(scrub("api_key = getKey(config)")).toBe("api_key = getKey(config)");
  });
});

describe("values that are code or a test's stand-in", () => {
  it("optional chaining is a member access: kept", () => {
    const line = 'const token = req.headers.authorization?.split(" ")[1];';
    expect(scrub(line)).toBe(line);
  });
  it("a test's word then words (`test-token`) is kept; a test prefix on a generated body is not", () => {
    expect(scrub('monkeypatch.setenv("API_TOKEN", "test-token")')).toBe(
      'monkeypatch.setenv("API_TOKEN", "test-token")',
    );
    for (const t of sample(token)) {
      expect(scrub(`api_key = "test-${t}"`)).not.toContain(t);
    }
  });
});

describe("a YAML block scalar", () => {
  it("its first line is the value, raw or in an escaped string", () => {
    for (const t of sample(token)) {
      expect(scrub(`zorvix_password: |\n  ${t}\nregion: eu`)).toBe(
        "zorvix_password: |\n  [REDACTED:generic-secret]\nregion: eu",
      );
      expect(scrub(`{"values": "api_token: >-\\n  ${t}\\nregion: eu"}`)).not.toContain(t);
    }
  });
  it("under a name that is no credential's, prose stays", () => {
    const text = "description: |\n  The password is shown once.\nname: x";
    expect(scrub(text)).toBe(text);
  });
});

describe("credentials in an agent's prose and Markdown", () => {
  it("reads Markdown labels and tables, a login pair in prose and a password changed from one to another", () => {
    for (const t of sample(token)) {
      for (const text of [
        `- **Password**: \`${t}\``,
        `| name | value |\n|---|---|\n| API_TOKEN | ${t} |`,
        `The admin login is admin / ${t} (change it).`,
        `Changed the password from 'Winter2023!' to '${t}'.`,
        `the secret value was "${t}", which I removed`,
        `Password: ${t} (rotated weekly)`,
      ]) {
        expect(scrub(text), text).not.toContain(t);
      }
    }
    expect(scrub("Changed the password from 'Winter2023!' to 'x'.")).not.toContain("Winter2023!");
  });
  it("leaves prose and tables about credentials", () => {
    for (const text of [
      "The login is successful / failed depending on the flag.",
      "Changed the password from the default to a random one.",
      "The password for the database is stored in Vault.",
      "**Note**: the token expires in 1h.",
      "| Name | Description |\n|---|---|\n| password | The password of the user |",
      "echo $PASSWORD | base64",
      "Password: changed yesterday",
      "Secret: stored in Vault",
      "cat secrets.txt | grep token | wc -l",
    ]) {
      expect(scrub(text)).toBe(text);
    }
  });
});

describe("an ODBC connection string's braces", () => {
  it("quote the value: `Pwd={p};` loses p, keeps the braces", () => {
    for (const t of sample(token)) {
      expect(scrub(`Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=sa;Pwd={${t}};`)).toBe(
        "Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=sa;Pwd={[REDACTED:generic-secret]};",
      );
    }
  });
  it("a template in braces is still a reference", () => {
    expect(scrub("password={{ vault_password }};")).toBe("password={{ vault_password }};");
    expect(scrub("token={TOKEN};")).toBe("token={TOKEN};");
  });
});

describe("credentials passed to calls", () => {
  it("a JWT library's signing key, a client's auth(p), a PDO DSN's password", () => {
    for (const t of sample(token)) {
      for (const text of [
        `jwt.encode(payload, "${t}", algorithm="HS256")`,
        `const s = jwt.sign({ sub: user.id }, '${t}', { expiresIn: "1h" });`,
        `jedis.auth("${t}");`,
        `$pdo = new PDO('mysql:host=db;dbname=app', 'root', '${t}');`,
      ]) {
        expect(scrub(text), text).not.toContain(t);
      }
    }
  });
  it("keeps a key given by reference and calls that take none", () => {
    for (const text of [
      'jwt.sign({ sub: user.id }, process.env.JWT_SECRET, { expiresIn: "1h" })',
      'jwt.encode(payload, key, algorithm="HS256")',
      'new PDO("sqlite:/tmp/db.sqlite")',
      'db.query("SELECT 1", [id])',
    ]) {
      expect(scrub(text)).toBe(text);
    }
  });
});

describe("documentation's words where a credential must stand", () => {
  const words = ["secret", "password", "Password", "changeme", "test", "example", "passwd", "dummy"];
  it("are the password of a strong name's assignment, a connection string, a URL, a flag or an argument", () => {
    for (const w of words) {
      for (const text of [
        `Server=db;User Id=sa;Password=${w};Database=app;`,
        `db_password = "${w}"`,
        `export DB_PASSWORD=${w}`,
        `postgresql://app:${w}@db.internal:5432/app`,
        `sqlcmd -S db -U sa -P ${w} -Q "select 1"`,
        `new DirectoryEntry("LDAP://dc.corp", "corp\\\\svc", "${w}")`,
        `password "${w}"`,
      ]) {
        const out = scrub(text);
        expect(out, text).toContain("[REDACTED:");
        expect(out.replaceAll(/\[REDACTED:[a-z-]+\]/g, ""), text).not.toMatch(new RegExp(`[=:"' ]${w}\\b`));
      }
    }
  });
  it("stay where a value only may be a credential, in capitals (a constant's name), and as a self-declared stand-in", () => {
    expectKept(scrub, [
      'session = "secret"',
      "the key is secret",
      "PsExec \\\\host -u admin -p PASSWORD cmd",
      "Password=PASSWORD;",
      'monkeypatch.setenv("API_TOKEN", "test-token")',
      "DB_PASSWORD=my-password",
      'api_key = "your_api_key_here"',
    ]);
  });
  it("are redacted where they stand, never in the rest of the text (the word is prose there)", () => {
    expect(scrub("Password=secret; keep the secret manager's default secret rotation")).toBe(
      "Password=[REDACTED:generic-secret]; keep the secret manager's default secret rotation",
    );
    const s = new Scrubber();
    s.scrub("DB_PASSWORD=changeme", "$.a");
    expect(s.scrub("run changeme.sh to rotate it", "$.b")).toBe("run changeme.sh to rotate it");
  });
});

describe("braces around a value", () => {
  it("an encrypted value in braces (Jenkins' `{AQAAABAAAAAQ…}`) is a value, a template in them is not", () => {
    for (const t of sample(token)) {
      expect(scrub(`<secret>{${t}}</secret>`)).toBe("<secret>[REDACTED:generic-secret]</secret>");
      expect(scrub(`<secret>{vendor AQAAABAAA ${t}}</secret>`)).not.toContain(t);
    }
    expectKept(scrub, ["password = {password}", "token = { config.token }", "secret: {{ .Values.secret }}"]);
  });
});

describe("values counted in order", () => {
  it("are a credential where a strong name must hold one, documentation's elsewhere", () => {
    expect(scrub("harness_token = '3aBcDFE5678901234567890_1a2b3c4d'")).toBe(
      "harness_token = '[REDACTED:generic-secret]'",
    );
    expect(scrub("BRANCH_SECRET=abcdefghijklmnopqrstuvwxyz1234567890ABCD")).toBe(
      "BRANCH_SECRET=[REDACTED:generic-secret]",
    );
    expect(scrub("session = 'abcdefghijklmnopqrstuvwxyz1234567890ABCD'")).toBe(
      "session = 'abcdefghijklmnopqrstuvwxyz1234567890ABCD'",
    );
  });
});

describe("a Markdown table row naming a credential", () => {
  it("takes the first later cell of one word when the next cell describes it", () => {
    for (const t of sample(token)) {
      expect(scrub(`| DB_PASSWORD | Password of the database | ${t} |`)).toBe(
        "| DB_PASSWORD | Password of the database | [REDACTED:generic-secret] |",
      );
      expect(scrub(`| AADRefreshToken   | Refresh token of the Azure app | ${t} |\n| region | eu |`)).toBe(
        "| AADRefreshToken   | Refresh token of the Azure app | [REDACTED:generic-secret] |\n| region | eu |",
      );
      expect(scrub(`| API_TOKEN | ${t} |`)).toBe("| API_TOKEN | [REDACTED:generic-secret] |");
    }
  });
  it("keeps a description with no value beside it, documentation's word and all", () => {
    for (const text of ["| API_TOKEN | Token of the app |", "| DB_PASSWORD | Password of the database |"]) {
      expect(scrub(text), text).toBe(text);
    }
    expect(scrub("password: Secret Manager holds it")).toBe("password: Secret Manager holds it");
  });
});

describe("a flag's argument holding a credential's word", () => {
  it("is no name: the next argument is kept, the flag's own value is the secret", () => {
    for (const [text, want] of [
      [
        "docker login -u release-bot -p and-session-3806 cluster0.x7k2m.mongodb.net",
        "docker login -u release-bot -p [REDACTED:credential-flag] cluster0.x7k2m.mongodb.net",
      ],
      ["podman run --name session-token abc123def", "podman run --name session-token abc123def"],
      [
        "curl -u release-bot:payload-session-7839 https://mq.internal/v2/sessions",
        "curl -u [REDACTED:curl-user] https://mq.internal/v2/sessions",
      ],
      ["the session token abc123def is stale", "the session token [REDACTED:generic-secret] is stale"],
    ] as const) {
      expect(scrub(text), text).toBe(want);
    }
  });
});

describe("a source location after a credential's word", () => {
  it("is a stack frame's place, not a value; a password shaped alike is still one", () => {
    expectKept(scrub, [
      "    at session (lib/schema.json:48:69)",
      "    at token (index.js:12:5)",
      "token: src/auth/token.ts:12",
    ]);
    expect(scrub("DB_PASSWORD=Summer2024.x:12")).toBe("DB_PASSWORD=[REDACTED:generic-secret]");
  });
});

describe("a value found, ending in a credential's word", () => {
  it("is no name for the next word (`…V00Pw https://…`: `pw` ends the token)", () => {
    for (const t of sample(token)) {
      const pw = `${t}Pw`;
      expect(scrub(`curl -H "Authorization: Bearer ${pw}" https://api.example.com/v2/sessions`)).toBe(
        'curl -H "Authorization: Bearer [REDACTED:auth-header]" https://api.example.com/v2/sessions',
      );
      expect(scrub(`"token": "${pw}", "user": "ci"`)).toBe(
        '"token": "[REDACTED:generic-secret]", "user": "ci"',
      );
    }
  });
});

describe("code read by an agent", () => {
  it("keeps a credential's name's type, constant, member, index and usage placeholder", () => {
    expectKept(scrub, [
      "export function sealCursor(key: Uint8Array, scope: string): string {",
      "  private readonly cursorKey: Uint8Array;",
      "function begin(S: Int32Array, key: Uint32Array): void {",
      "  let signature: Uint8Array | undefined;",
      "  const key = positionals[0] as string;",
      "  --private-key FILE   PEM private key of the key pair",
      "def sign(secret: bytes, payload: bytes) -> str:",
    ]);
  });
  it("still takes a password that looks like a word with digits, or a literal beside them", () => {
    expect(scrub("password: Summer2021")).toBe("password: [REDACTED:generic-secret]");
    for (const t of sample(token)) {
      expect(scrub(`const S3_CREDENTIALS = { accessKeyId: "x", secretAccessKey: "${t}" };`)).not.toContain(t);
      expect(scrub(`--private-key ${t}`)).not.toContain(t);
    }
  });
});

describe("cloud code and docs an agent reads", () => {
  it("keeps names, ids, licences and variables where a credential's word stands", () => {
    expectKept(scrub, [
      "credentials: rds.Credentials.fromGeneratedSecret('clusteradmin'), // an admin user",
      "const value = await client.getSecretValue('prod/db-credentials');",
      "cdk.aws_logs.LogDrivers.splunk({ secretToken: secret, url: 'https://x' })",
      "License: BSD-2-Clause",
      "key: 'arn:aws:kms:us-east-1:123456789012:key/12345678-1234-1234-1234-123456789012',",
      "{ testKey1: 'testValue1', testKey2: 'testValue2' }",
      "  preferredMaintenanceWindow: 'Sat:22:15-Sat:22:45',",
    ]);
  });
  it("still takes a literal handed to a setter or given as a value", () => {
    for (const t of sample(token)) {
      expect(scrub(`mysql.createConnection("localhost", "root", "${t}")`)).toBe(
        'mysql.createConnection("localhost", "root", "[REDACTED:credential-argument]")',
      );
      expect(scrub(`mysqli_connect("localhost", "root", "${t}", "app");`)).toBe(
        'mysqli_connect("localhost", "root", "[REDACTED:credential-argument]", "app");',
      );
      expect(scrub(`client.setPassword("${t}")`)).not.toContain(t);
      expect(scrub(`password: SecretValue.unsafePlainText('${t}')`)).not.toContain(t);
      expect(scrub(`License: ${t}`)).not.toContain(t);
    }
  });
});

describe("a value's own punctuation", () => {
  it("an `&` inside a value is the value's; one before another parameter or a command ends it", () => {
    for (const t of sample(token)) {
      const p = `${t.slice(0, 8)}&${t.slice(8)}`;
      expect(scrub(`"Env": ["DB_PASSWORD=${p}", "NODE_ENV=production"]`)).toBe(
        '"Env": ["DB_PASSWORD=[REDACTED:generic-secret]", "NODE_ENV=production"]',
      );
      expect(scrub(`https://api.x.com/v1?access_token=${t}&user=bob`)).toBe(
        "https://api.x.com/v1?access_token=[REDACTED:generic-secret]&user=bob",
      );
      expect(scrub(`DB_PASSWORD=${t}&& ./run.sh`)).toBe("DB_PASSWORD=[REDACTED:generic-secret]&& ./run.sh");
    }
  });
  it("XML escaped for HTML holds its element's value", () => {
    for (const t of sample(token)) {
      expect(scrub(`&lt;password&gt;${t}&lt;/password&gt;`)).toBe(
        "&lt;password&gt;[REDACTED:generic-secret]&lt;/password&gt;",
      );
    }
  });
});

describe("the leak property's counterexamples of this pass", () => {
  it("a name after a name, and capitals with digits, are values where a credential must stand", () => {
    for (const [text, secret] of [
      ["token: password: 'AAAAAAAA9'", "AAAAAAAA9"],
      [" password=AAAA_AAA9 ", "AAAA_AAA9"],
      [" password=A.AAAAAA_9 ", "A.AAAAAA_9"],
      [" https://aaa:AAA.AAAA_AA9@example.com/path ", "AAA.AAAA_AA9"],
    ] as const) {
      expect(scrub(text), text).not.toContain(secret);
    }
  });
});

/** What `scrub` keeps of `text` where `secret` stood: the text with every `secret` gone, or not. */
const hides = (text: string, secret: string): boolean => !scrub(text).includes(secret);

describe("configuration files' and code's shapes of other scanners' fixtures", () => {
  it("escaped or labelled pairs, and a lookup's fallback after its call", () => {
    expect(hides('"os.environ.setdefault(\\"DB_PASSWORD\\", \\"Tr0ub4dor&3\\")\\n",', "Tr0ub4dor&3")).toBe(
      true,
    );
    expect(hides('pw = st.text_input("Admin password", "Tr0ub4dor&3")', "Tr0ub4dor&3")).toBe(true);
    expect(hides('storePassword = System.getenv("SIGNING_STORE_PASSWORD") ?: "android"', "android")).toBe(
      true,
    );
    expect(hides('password = os.environ.get("DB_PASSWORD") or "Hunter2x"', "Hunter2x")).toBe(true);
  });

  it("code of C-like languages and TypeScript's optional members are no values", () => {
    expectKept(scrub, [
      "user.password = line;",
      "const token = next;",
      'credentials?: "omit" | "same-origin" | undefined;',
    ]);
    expect(hides('password: "!Secret-2024"', "!Secret-2024")).toBe(true);
  });

  it("a literal compared with a password or a secret is the credential", () => {
    expect(hides('if user == "admin" and password == "Tr0ub4dor3":', "Tr0ub4dor3")).toBe(true);
    expect(hides("assert db_password != 'hunter2x'", "hunter2x")).toBe(true);
    expectKept(scrub, [
      "if (token === undefined || password == null) return;",
      "if (token === FIRST) return base;",
      'if (tok.type === "ident" && x.token === "«quoted»") next();',
      "if (req.body.password === user.password) ok();",
    ]);
  });

  it("a password in a connection string's fields, a compound name's, a CloudFormation parameter's default", () => {
    expect(scrub("Server=db;Uid=root;Password=admin;")).toBe(
      "Server=db;Uid=root;Password=[REDACTED:generic-secret];",
    );
    expect(hides("dbpass: Xyz12345", "Xyz12345")).toBe(true);
    expect(hides('adminpass = "q9Lzkw"', "q9Lzkw")).toBe(true);
    expect(
      hides("DBPassword:\n  Description: db\n  Type: String\n  NoEcho: true\n  Default: admin", "admin"),
    ).toBe(true);
    expect(hides('"DBPassword": {"Type": "String", "Default": "admin"}', "admin")).toBe(true);
    expectKept(scrub, [
      "highpass: 3000",
      "compass: north",
      "bypass: true",
      "DBUser:\n  Type: String\n  Default: admin",
    ]);
  });

  it("a property list's key and its value, and the items of a plural name's list", () => {
    expect(hides("<key>Password</key>\n<string>hunter2x</string>", "hunter2x")).toBe(true);
    expect(hides("<entry><key>ApiToken</key><value>Kx9ab2Qz8Lm3</value></entry>", "Kx9ab2Qz8Lm3")).toBe(true);
    expect(hides('passwords:\n  - "Hardcoded1"\n  - "S3cret!x"', "Hardcoded1")).toBe(true);
    expect(
      hides('"api_tokens": ["Kx9ab2Qz8Lm3Np7Rt2Vw", "Qz8Lm3Np7Rt2VwKx9ab2"]', "Qz8Lm3Np7Rt2VwKx9ab2"),
    ).toBe(true);
    expect(hides("passwords:\n  - hunter2\n  - letmein99", "letmein99")).toBe(true);
    expectKept(scrub, [
      'tokens: ["the", "quick", "brown"]',
      'keys: ["Ctrl+Shift+F12", "Alt+F4", "Digit1", "Numpad0"]',
      'signatures: ["SHA256withRSA", "Ed25519"]',
      '"max_tokens": [1, 2]',
      "keys:\n  - id\n  - name",
      'ssh_keys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGdxKx9ab2Qz8Lm3Np7Rt2VwQz8Lm3Np7 dev@host"]',
    ]);
  });

  it("a key in an Azure Function's URL (`?code=`)", () => {
    expect(
      hides(
        "GET https://app.azurewebsites.net/api/fn?code=O97nV6v3n5qw8vvhpsxjv_9xcEKIyCzpcI6rCq",
        "O97nV6v3n5qw8vvhpsxjv",
      ),
    ).toBe(true);
  });

  it("references, templates, endpoints and stand-ins are kept", () => {
    expectKept(scrub, [
      "db_password: $$DB_PASSWORD",
      "MasterUserPassword: !Ref DBPassword",
      "db_password: !secret db_password",
      'format_password = "prefix_{}".format(value)',
      'pwd = f"pre_{user}"',
      "slack_webhook: https://hooks.slack.com/services/",
      "hubspot_webhook: https://api.hubapi.com/webhooks/v1/{appId}/",
      "write_key: 's3://{bucket}/events/dt={date}'",
      '"token_uri": "https://oauth2.googleapis.com/token",',
      'theapikey: "somefakekey"',
      'private_key: "config/keys/server.key"',
      "readFile('/etc/passwd', 'utf8', callback)",
      '{"01_password": "$password", "02_password": "$$password"}',
      // npm's mask of a token in `npm config list`.
      "//registry.npmjs.org/:_authToken = (protected)",
      // The Fetch API's credentials modes, labels naming a credential, an ADO.NET parameter.
      "fetch(url, { credentials: 'include' })",
      'fetch(url, { method: "POST", credentials: "same-origin" })',
      '"credentials" : "omit"',
      'const val AUTHORIZATION_TOKEN = "Authorization Token",',
      'headers.Authorization = "Bearer ".concat(auth.bearer);',
      "clientToken: 'client-token',",
      '"connectionString": "Server=db;User Id=@user;Password=@password"',
    ]);
    // A parameter is named as its field; another `@word` is a password.
    expect(hides('password: "@dminPass"', "@dminPass")).toBe(true);
    // A mode or a label is one only where its name says so.
    expect(hides('password: "include"', "include")).toBe(true);
    expect(hides('password: "secret-password"', "secret-password")).toBe(true);
    expectKept(scrub, ["valid_token_types = ('access_token', 'refresh_token')"]);
  });
});

describe("code's defaults and signing keys (semgrep's rule tests' shapes)", () => {
  it("a literal fallback for a credential looked up (`?:`, `??`), and a bare one kept", () => {
    expect(hides('password = env["LIBRARY_PASS"] ?: "Kq7wz3Lr9Tk2"', "Kq7wz3Lr9Tk2")).toBe(true);
    expect(hides('const pw = process.env.DB_PASSWORD ?? "hunter2x";', "hunter2x")).toBe(true);
    expectKept(scrub, ["const here = token ?? FIRST;", 'const x = options.timeout ?? "30s";']);
  });

  it("a token or a key compared with a literal that is a credential by itself, not with its grammar's words", () => {
    expect(hides('if (token === "abcTok3nValue77") {}', "abcTok3nValue77")).toBe(true);
    expect(hides('if api_key == "k3yValu3Prod99": pass', "k3yValu3Prod99")).toBe(true);
    // Without blanks, before a quote.
    expect(hides('if(password=="Hunter2x!") ok();', "Hunter2x!")).toBe(true);
    expect(hides("if (pwd!='Tr0ub4dor3') fail()", "Tr0ub4dor3")).toBe(true);
    expectKept(scrub, [
      'if (tok.type === "ident") return;',
      'if (key === "Enter" || key === "ArrowUp") handle();',
      'if (token.kind === "T_STRING2") x();',
      'if key == "section1Title": pass',
      'if (sessionKey === "session2024") debug();',
      'assert token == "v1.2.3"',
      'if(token=="ident")x',
      // Names of formats, algorithms, shortcuts, paths and resources read as generated by chance.
      'if (key === "base64url") x();',
      'if (key === "secp256k1") x();',
      'if (key === "Shift+F10") x();',
      'if (key === "1.2.3-beta4") x();',
      'if (key === "Sha256WithRsa") x();',
      'if (key === "EC2Instance") x();',
      "if (encryptionKey === undefined || encryptionKey === 'alias/aws/s3') {",
      'if (key === "$.data[0]") x();',
      'if (storageKey === "app:v1:settings") x();',
    ]);
  });

  it('a literal before the name (`"x" == password`) and comparison calls, judged as a comparison after it', () => {
    const shapes: [string, string][] = [
      ['if ("Sup3rS3cr3t!2024" == password) {', "Sup3rS3cr3t!2024"],
      ["if ('Hunter2x!'!==db_password) fail()", "Hunter2x!"],
      ['if ("abcTok3nValue77" === token) {}', "abcTok3nValue77"],
      ['if (strcmp(passwd, "letmein!2023") == 0) {', "letmein!2023"],
      ['if (strcmp("letmein!2023", user->password) == 0) {', "letmein!2023"],
      ['if (strncmp(cfg.secret, "Kq7wz3Lr9Tk2", 12) == 0) {', "Kq7wz3Lr9Tk2"],
      [
        'if (Objects.equals(apiToken, "a8f5f167f44f4964e6c998dee827110c")) ok();',
        "a8f5f167f44f4964e6c998dee827110c",
      ],
      ['if ("Tr0ub4dor&3".equals(password)) login();', "Tr0ub4dor&3"],
      ["if ('Tr0ub4dor&3'.equalsIgnoreCase(pwd)) login();", "Tr0ub4dor&3"],
      ['if (string.Equals(password, "P@ssw0rd2024")) {}', "P@ssw0rd2024"],
      ['assertEquals("s3cretValue!", config.getPassword());', "s3cretValue!"],
      ['if (password.equals("Tr0ub4dor&3xyz")) {', "Tr0ub4dor&3xyz"],
      // Whatever follows the name, blanks, escapes; a message or a test's handle among the arguments.
      ['return "Hunter2Xyz!" == password ? 1 : 0', "Hunter2Xyz!"],
      ["if 'Hunter2Xyz!' == password and user == 'bob':", "Hunter2Xyz!"],
      ['"Hunter2Xyz!" ===    password', "Hunter2Xyz!"],
      ['"Hunter2Xyz!" ==password', "Hunter2Xyz!"],
      ['{"code": "if (\\"Hunter2Xyz!\\" == password) ok()"}', "Hunter2Xyz!"],
      ['wcscmp(password, L"Hunter2Xyz!")', "Hunter2Xyz!"],
      ['assert.Equal(t, "Hunter2Xyz!", cfg.Password)', "Hunter2Xyz!"],
      ['assertEquals("msg", "Hunter2Xyz!", user.getPassword())', "Hunter2Xyz!"],
      // A second review's: both neighbours, far literals, macros, passwords of words compared.
      ['assertEquals("password should match", user.getPassword(), "Hunter2Xyz!")', "Hunter2Xyz!"],
      ['assert_eq!(password, "Hunter2Xyz!")', "Hunter2Xyz!"],
      [`"Hunter2Xyz!"${" ".repeat(30)}== password`, "Hunter2Xyz!"],
      ['if (password == "correct horse battery staple")', "correct horse battery staple"],
      ['strcmp(password, "open sesame")', "open sesame"],
      ['if (pass === "letmein")', "letmein"],
      ['if pwd == "Swordfish":', "Swordfish"],
    ];
    expectHidden(scrub, shapes);
    expectKept(scrub, [
      'if ("Enter" === key) return;',
      "if ('ident' == tok.type) x",
      'if (key.equals("Enter")) {}',
      'if (strcmp(key, "Escape") == 0) {}',
      'if (strcmp(token, "ident") == 0) {}',
      'if (Objects.equals(tokenType, "Bearer")) {}',
      'if (strcmp(name, "password") == 0) {}',
      'assertEquals("expected", actual);',
      // Messages compared: sentences.
      'assertEquals("This field is required.", form.errors.password)',
      'x = "a" == b ? password : null',
    ]);
  });

  it("labels, prompts, concatenations, format verbs and secret references are no passwords", () => {
    expectKept(scrub, [
      // A token's name's own words as an identifier.
      "IAM_ROLE_STATEMENTS_TOKEN = 'iamRoleStatements'",
      // A prompt read, a concatenation's closing quote, a format's verb, a 1Password reference.
      '$MYSQL_PASSWORD = Read-Host "MySQL administrator password" -AsSecureString',
      'param += " --spring.datasource.password=" + password + " --url=" + url;',
      'conn = "--password=" .. pw .. " --host=" .. host',
      'const MQURL = "amqp://admin:%s@host:5672"',
      'const MQURL = "amqp://admin:$env{admin_pwd}@host"',
      "MYSQL_PASSWORD='op://vault/\"quoted folder\"/secret'",
    ]);
    // A literal made a SecureString is the password; a password of words and digits is one.
    expect(hides('$pw = ConvertTo-SecureString "P@ssw0rd2024" -AsPlainText -Force', "P@ssw0rd2024")).toBe(
      true,
    );
    expect(hides('$pw = ConvertTo-SecureString -String "P@ssw0rd2024" -AsPlainText', "P@ssw0rd2024")).toBe(
      true,
    );
    expect(hides('password = "S3cret Passw0rd"', "S3cret Passw0rd")).toBe(true);
    expect(hides('password: "correct horse battery staple"', "correct horse battery staple")).toBe(true);
    expect(hides("password: application:", "application:")).toBe(true);
    // Passwords of words, of the name's words, or like a label are passwords (a review's leaks).
    expectHidden(scrub, [
      ['PASSWORD="correct horse password staple"', "correct horse password staple"],
      ['wifi_password = "Das ist mein Passwort"', "Das ist mein Passwort"],
      ['password: "Winter:"', "Winter:"],
      ["ADMIN_PASSWORD=admin_admin", "admin_admin"],
      ["JENKINS_ADMIN_PASSWORD = 'JenkinsAdmin'", "JenkinsAdmin"],
      ["MYSQL_PASSWORD: MySQLPassword", "MySQLPassword"],
    ]);
    expect(hides('const u = "amqp://admin:S3cretMq@host:5672"', "S3cretMq")).toBe(true);
  });

  it("code's other places for a password: annotations, triple quotes, arguments after a name, a URL before its host is concatenated", () => {
    const shapes: [string, string][] = [
      ['password: Final = "s3cr3t!x"', "s3cr3t!x"],
      ['token: Final[str] = "Kq7wz3Lr9Tk2Np"', "Kq7wz3Lr9Tk2Np"],
      ["DB_PASSWORD: ClassVar[str] = 'Hunter2x!'", "Hunter2x!"],
      [
        "test(password='''U]E8FPETCS_]{,y>bgyzh^$yC5>SP{E*2=;3]G~k&+;kh''')",
        "U]E8FPETCS_]{,y>bgyzh^$yC5>SP{E*2=;3]G~k&+;kh",
      ],
      ['DriverManager.getConnection(url, "admin", "123456x")', "123456x"],
      ['user.ChangePassword(password, "myNewPa55word")', "myNewPa55word"],
      ['setPassword(this.password, "Hunter2x!")', "Hunter2x!"],
      ['string n5 = "scheme://user:azerty123@" + domain;', "azerty123"],
      ["my_secret_password_for_email = 'd6s$f9g!j8mg7hw?n&2'", "d6s$f9g!j8mg7hw?n&2"],
      ["self.my_secret_password_for_email = 'd6s$f9g!j8mg7hw?n&2'", "d6s$f9g!j8mg7hw?n&2"],
      ['DEFAULT_FOR_DB_PASSWORD = "hunter2"', "hunter2"],
      ['override_for_db_password = "Tr0ub4dor&3"', "Tr0ub4dor&3"],
      ['client.Login(ctx, "admin", "Hunter2!x")', "Hunter2!x"],
      ['password: Final[Optional[str]] = "Hunter2!x"', "Hunter2!x"],
      ['password: t.Final[str] = "Hunter2!x"', "Hunter2!x"],
      ['"ftp://user:azerty123@" . $domain', "azerty123"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is code holding a template
      ["`amqp://user:azerty123@${host}`", "azerty123"],
      ['fmt.Sprintf("amqp://user:azerty123@%s/vhost", host)', "azerty123"],
      ['char[] passwordToChar = "SuperSecure".toCharArray();', "SuperSecure"],
      ['String passwordAsString = "hunter2";', "hunter2"],
      ['secret_as_bytes = b"Kq7wz3Lr"', "Kq7wz3Lr"],
      // A literal's prefix: bytes, raw, formatted, wide, verbatim, ANSI-C.
      ["app.secret_key = b'_5#y2L\"F4Q8z\\n\\xec]/'", '_5#y2L"F4Q8z'],
      ['password = b"hunter2x"', "hunter2x"],
      ['SECRET_KEY = rb"Kq7wz3Lr9Tk2xx"', "Kq7wz3Lr9Tk2xx"],
      ['token = u"Kq7wz3Lr9Tk2xx"', "Kq7wz3Lr9Tk2xx"],
      ['PASSWORD = f"hunter2x"', "hunter2x"],
      ['const wchar_t* password = L"hunter2x";', "hunter2x"],
      ['var password = $"hunter2x";', "hunter2x"],
      ["PASSWORD=$'hunter2x'", "hunter2x"],
      // A login's password after the user's name; an LDAP bind's after the user's DN.
      ['server.login(user, "Hx7pq2Lm9")', "Hx7pq2Lm9"],
      ['ldap.simple_bind_s("cn=admin,dc=example,dc=org", "Hx7pq2Lm9")', "Hx7pq2Lm9"],
      ['err = l.Bind("uid=bob, ou=people,dc=example,dc=com", "Hx7pq2Lm9")', "Hx7pq2Lm9"],
    ];
    expectHidden(scrub, shapes);
    expectKept(scrub, [
      "DriverManager.getConnection(url, user, pass)",
      'setKey("Enter")',
      'setSortKey("createdAt")',
      'authorize(user, "read", "documents")',
      'connect(socket, "localhost", "8080")',
      'setToken(state, "loading")',
      'hashPassword(password, "bcrypt")',
      'secret_of_success = "hard work"',
      'KEY_FOR_CACHE = "users:list:v3"',
      '"https://github.com:owner/repo@" + sha',
      // A form's prompts naming the password.
      '"forgot_password": "Forgot your password?",',
      'password = "Enter your password:"',
      'connect(host, "db")',
      'offsetKey("abc123xyz")',
      // A construct's scope and id (CDK), and a path under a name qualified by `to`.
      "const secret = new secretsmanager.Secret(this, 'Secret');",
      "const auth = new apigateway.TokenAuthorizer(this, 'booksAuthorizer', {",
      "connections: [glue.Connection.fromConnectionName(stack, 'Connection', 'connectionName')],",
      'path_to_key = "/etc/ssl/key.pem"',
      'key_as_label = "Sort by date"',
      'password = f"{prefix}-{suffix}"',
      'var password = $"{user.Name}-{env}";',
      'key = b"name"',
      'IPV4_PAT = r"(?:[0-9]{1,3}\\.){3}[0-9]{1,3}"',
      'server.login(user, "localhost")',
      'app.login(request, "Please sign in")',
      'conn.search("cn=users,dc=example,dc=org", "(objectClass=person)")',
      'ldap.search_s("ou=people,dc=example", ldap.SCOPE_SUBTREE, "(uid=bob)")',
    ]);
  });

  it("docker-compose's escaped dollar: a literal `$` before a password, not a reference", () => {
    expect(hides("DB_PASSWORD: $$ecure2024", "ecure2024")).toBe(true);
    expect(hides("POSTGRES_PASSWORD: $$uperSecret", "uperSecret")).toBe(true);
    expectKept(scrub, [
      "DB_PASSWORD: $$DB_PASS",
      "password: $${DB_PASSWORD}",
      "pw: $$password",
      "\tPGPASSWORD=$$db_pass2 psql -h db",
      "token: $$token_v2",
    ]);
  });

  it("a command-line option's default (argparse, click)", () => {
    expect(hides('parser.add_argument("--db-password", type=str, default="Hunter2x")', "Hunter2x")).toBe(
      true,
    );
    expect(hides('@click.option("--password", default="Hunter2x", help="db password")', "Hunter2x")).toBe(
      true,
    );
    expectKept(scrub, [
      'parser.add_argument("--token", default=None)',
      'parser.add_argument("--api-key", default=os.environ.get("API_KEY"))',
      'parser.add_argument("--max-tokens", type=int, default="512")',
    ]);
  });

  it("a pass phrase's name written in two words", () => {
    expect(hides("pass_phrase = 'Kq7wz3Lr9Tk2'", "Kq7wz3Lr9Tk2")).toBe(true);
    expect(hides("passPhrase: Kq7wz3Lr9Tk2", "Kq7wz3Lr9Tk2")).toBe(true);
  });
});

describe("more places a name gives its value (issue 20, blind set 9)", () => {
  it.each([
    ['let password: String! = "Xk29!aaQ"', "Xk29!aaQ"],
    ['val token: String? = "Xk29!aaQ"', "Xk29!aaQ"],
    ['<passphrase data="123">Xk29!aaQ</passphrase>', "Xk29!aaQ"],
    ["<passphrase data=123> Xk29!aaQ </passphrase>", "Xk29!aaQ"],
    ['<apiToken type="bearer">Xk29!aaQ7</apiToken>', "Xk29!aaQ7"],
    ['<wsse:Password Type="#PasswordText">Xk29!aaQ7</wsse:Password>', "Xk29!aaQ7"],
    ['<setting value="Xk29!aaQ7" name="SmtpPassword">', "Xk29!aaQ7"],
    ['<String><Key>Password</Key><Value ProtectInMemory="True">Xk29!aaQ7</Value></String>', "Xk29!aaQ7"],
    ['aws ssm put-parameter --name "/prod/db/password" --type SecureString --value "Xk29!aaQ7"', "Xk29!aaQ7"],
    ["Password for 'https://bob@github.com': Xk29!aaQ7", "Xk29!aaQ7"],
    ["Enter same passphrase again: Xk29!aaQ7", "Xk29!aaQ7"],
    ['err = l.Bind("cn=admin,dc=example,dc=org", "hunter22")', "hunter22"],
    // An SDK's string wrappers around a field's name and value (Go's AWS SDK, Pulumi).
    ['&ecs.KeyValuePair{Name: aws.String("DB_PASSWORD"), Value: aws.String("S3cret!pw")}', "S3cret!pw"],
    ['Name: pulumi.String("API_TOKEN"),\n\tValue: pulumi.String("Xk29aaQ7LmP0zz"),', "Xk29aaQ7LmP0zz"],
    ['<sometag value="Xk29!aaQ" name="db_password"/>', "Xk29!aaQ"],
    ['<add value="Xk29!aaQ" key="Password"/>', "Xk29!aaQ"],
    ['$cert = new X509Certificate2("cert.pfx", "CertP@ssw0rd")', "CertP@ssw0rd"],
    ['ks = load_keystore("server.jks", "ch4ngeIt!")', "ch4ngeIt!"],
    ["data:\n  .dockerconfigjson: eyE1x2a3MpLe", "eyE1x2a3MpLe"],
    ['"dockercfg": "ewE1x2a3MpLe"', "ewE1x2a3MpLe"],
    ["[sudo] password for bob: Hx7pq2Lm9", "Hx7pq2Lm9"],
    ["Enter passphrase for key '/root/.ssh/id_rsa': Hx7pq2Lm9", "Hx7pq2Lm9"],
    ["Enter PEM pass phrase: Hx7pq2Lm9", "Hx7pq2Lm9"],
    ["Enter passphrase (empty for no passphrase): Hx7pq2Lm9", "Hx7pq2Lm9"],
    // A password a server announces for an account, there or alone on the next line (MySQL's
    // first start, Elasticsearch's).
    [
      "2024-05-01T10:00:00.123456Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: Xy8#kLm2?pQw",
      "Xy8#kLm2?pQw",
    ],
    [
      "ℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  K9vq=Xw2LmT7pZs4Rb1N",
      "K9vq=Xw2LmT7pZs4Rb1N",
    ],
    [
      "es01-1  | ℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\nes01-1  |   K9vq=Xw2LmT7pZs4Rb1N",
      "K9vq=Xw2LmT7pZs4Rb1N",
    ],
    ['char password[] = "Qw7kT2zPx9";', "Qw7kT2zPx9"],
    ['wchar_t password[] = L"Qw7kT2zPx9";', "Qw7kT2zPx9"],
    ['char pwd[32] = "Qw7kT2zPx9";', "Qw7kT2zPx9"],
    ['$apikey[] = "Qw7kT2zPx9";', "Qw7kT2zPx9"],
    // A name and its value as fields on lines of their own (Go's `ecs.EnvVar{Name: …, Value: …}`).
    [
      'Environment: []ecs.EnvVar{\n\t{\n\t\tName:  "DATABASE_PASSWORD",\n\t\tValue: "Qw7kT2zPx9",\n\t},',
      "Qw7kT2zPx9",
    ],
    // PDO's DSN with blanks around `=`, then the user and the password.
    [
      'new PDO("sqlsrv:server = tcp:db.example.net,1433; Database = d", "username3", "Qw7kT2zPx9");',
      "Qw7kT2zPx9",
    ],
    // A call cut after its password (a line of a longer call, a truncated log line).
    ['new UserPasswordCredential("username1", "Doodle_BLOB1"', "Doodle_BLOB1"],
    // PowerShell's names in any case.
    // A shell expansion's default, an inline systemd credential, a URL's own password.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a shell expansion
    ["POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Qw7kT2zPx9}", "Qw7kT2zPx9"],
    ["SetCredential=db-password:Qw7kT2zPx9", "Qw7kT2zPx9"],
    [
      "https://__token__:pypi-AgEIcHlwaS5vcmcCJGQ4YjJh@upload.pypi.org/legacy/",
      "pypi-AgEIcHlwaS5vcmcCJGQ4YjJh",
    ],
    ["curl -u bob:Qw7kT2zPx9 https://repo", "Qw7kT2zPx9"],
    // Firebase's sign-in and sign-up: the account's names, then the password.
    ['await signInWithEmailAndPassword(auth, email, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['await createUserWithEmailAndPassword(auth, "bob@corp.io", "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    // A label's second word that still names the credential; an announced password in capitals.
    ["Secret ID    = 3a3a157e-3a7d-4935-a043-8d1961f50923", "3a3a157e-3a7d-4935-a043-8d1961f50923"],
    ["    Key Content            : Walrus@Orbit33", "Walrus@Orbit33"],
    ["Secret Value: Qw7kT2zPx9", "Qw7kT2zPx9"],
    ["ORACLE PASSWORD FOR SYS, SYSTEM AND PDBADMIN: YB7qwkOQwvc4", "YB7qwkOQwvc4"],
    // mysqld's generated passwords, whatever their punctuation.
    ["[Note] A temporary password is generated for root@localhost: (kq2Lp9x#hG7", "(kq2Lp9x#hG7"],
    ["[Note] A temporary password is generated for root@localhost: /-Ct4q.Y%:Jr", "/-Ct4q.Y%:Jr"],
    ["[Note] A temporary password is generated for root@localhost: Ug;r;,Ew7dZ.", "Ug;r;,Ew7dZ."],
    ['[Note] A temporary password is generated for root@localhost: ewp&1%hM"&k', 'ewp&1%hM"&k'],
    // LDAP's and SSSD's bind passwords.
    ["bindpw Qw7kT2zPx9", "Qw7kT2zPx9"],
    ["rootbindpw Qw7kT2zPx9", "Qw7kT2zPx9"],
    ["ldap_default_authtok = Qw7kT2zPx9", "Qw7kT2zPx9"],
    // A constant's name as a setter's key, the literal its last argument.
    ['env.put(Context.SECURITY_CREDENTIALS, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['props.setProperty(PASSWORD_KEY, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['config.set(Keys.API_TOKEN, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    // A settings class's key (Kafka's), and the literal converted to what a password takes.
    ['props.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['env.put(Context.SECURITY_CREDENTIALS, "Qw7kT2zPx9".toCharArray());', "Qw7kT2zPx9"],
    ['props.setProperty(SECRET_PROPERTY, "Qw7kT2zPx9".getBytes(StandardCharsets.UTF_8));', "Qw7kT2zPx9"],
    ['$s = convertto-securestring "sdfdsfd9" -asplaintext -force', "sdfdsfd9"],
  ])("%s", (text, secret) => {
    expect(hides(text, secret)).toBe(true);
  });

  it("varied: a password's or a secret's name, then whose it is, then a password", () => {
    const head = fc.constantFrom("password", "PASSWORD", "passwd", "pwd", "secret", "SECRET", "passphrase");
    const owner = fc.constantFrom(
      "db",
      "couchbase",
      "prod",
      "admin",
      "github",
      "smtp",
      "root",
      "ldap",
      "app",
    );
    const sep = fc.constantFrom("_", "-", ".");
    const value = fc
      .tuple(
        fc.stringMatching(/^[A-Z][a-z]{3,8}$/),
        fc.integer({ min: 10, max: 9999 }),
        fc.constantFrom("#", "!", "@", "Q"),
      )
      .map(([w, n, s]) => `${w}${n}${s}`);
    const assign = fc.constantFrom(
      (n: string, v: string) => `${n}: ${v}`,
      (n: string, v: string) => `${n}=${v}`,
      (n: string, v: string) => `${n} = "${v}"`,
    );
    fc.assert(
      fc.property(head, owner, sep, value, assign, (h, o, s, v, a) => {
        const text = a(`${h}${s}${o}`, v);
        expect(hides(text, v), text).toBe(true);
      }),
      { seed: 20_261_128, numRuns: 300 },
    );
  });

  it("a property of a credential, markup about one, and files opened are no values", () => {
    expectKept(scrub, [
      "password_policy: Min8Chars!",
      "password_reset_url: https://x.com/reset?id=A1b2",
      "password_last_changed: 2024-01-01T00:00:00Z",
      "token_type: Bearer",
      "secret_name: prod-Db2-creds",
      "token_ttl: 3600s",
      "PASSWORD_DB=hunter",
      '<input type="password" name="password" value="">',
      '<password-policy min="8">strict</password-policy>',
      '<label for="password">Password</label>',
      '<input name="password" placeholder="Enter password">',
      'open("store.jks", "rb+")',
      'fs.readFileSync("a.p12", "base64")',
      'convert("in.p12", "out.pem")',
      "type: kubernetes.io/dockerconfigjson",
      // The second review's: timestamps, patterns, issuers, schemes, camel-case properties, tokens' names.
      "last_password_change: 2024-05-01T10:00:00Z",
      "pwdLastSuccess: 20240501100000Z",
      'private static final String PASSWORD_REGEXP = "^(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z]).{8,20}$";',
      'TOKEN_RE = "ghp_[A-Za-z0-9]{36}"',
      "echo $PAT | docker login --password-stdin registry.example.com:5000",
      "tokenIssuer: https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEf123",
      'tokenSigningAlgo: "RS256-PSS"',
      "password_scheme: SSHA512",
      "token_budget: 128K-Ctx",
      "level=info token_kid=2024-05-01-RSA",
      'val PASSWORD_EXTRA: String? = "com.example.EXTRA_PASSWORD2"',
      "  .dockerconfigjson:  1234 bytes",
      'key[0] = "Ctrl-A1";',
      '<token type="keyword" pos="12">Int32</token>',
      '<Password Mode="Hashed">SHA-256</Password>',
      '<Password Condition="$(OS)">@(PasswordItems)</Password>',
      // Key stores' files with other strings.
      's3.upload_file("build/release.keystore", "artifacts-prod-2", "android/release.keystore")',
      'shutil.copy("certs/server.p12", "backup/")',
      'sign("app.keystore", "release")',
      'new KeyStoreSpec("keystore.p12", "PKCS#12")',
      'mime.AddExtensionType(".p12", "application/x-pkcs12")',
      'withProperties("server.ssl.key-store=classpath:ks.p12", "server.port=8443")',
      'fingerprint("cert.pfx", "SHA256")',
      // Prompts answered with a status or a path.
      "Password for user postgres: N/A",
      "Enter password for user root: (none)",
      "Password for DB: %DB_PASSWORD%",
      "Default password for Jenkins: /var/jenkins_home/secrets/initialAdminPassword",
      // A constant naming a credential before a literal that is no value of it.
      'log.info(PASSWORD_RESET_MSG, "bob");',
      'map.put(TOKEN_TYPE, "Bearer");',
      'setHeader(AUTH_HEADER, "application/json")',
      'props.put(SECRET_KEY_FILE, "Qw7kT2zPx9", extra);',
      'OptionalLStrip(TOKEN_DATA, "#bygroup")',
      // A connection's other strings, a variable's password.
      "signInWithEmailAndPassword(auth, email, password)",
      'getConnection(url, user, "jdbc")',
      'open(path, flags, "0644")',
      // A key's or an accessor's id names it.
      "Accessor ID  = 9cba5251-d1b7-4cb2-b453-fd6b967e7884",
      "Key ID: 9cba5251-d1b7-4cb2-b453-fd6b967e7884",
      // CI logs and outputs that name a credential without holding one.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a shell expansion
      "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}",
      "+ docker login -u ci -p **** registry.acme.io\nWARNING! Using --password via the CLI is insecure.",
      'curl --fail -H "PRIVATE-TOKEN: $DEPLOY_TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/releases"',
      "vault kv put -mount=secret app/config db_password=@db_password.txt",
      "Looking in indexes: https://__token__:****@gitlab.com/api/v4/projects/41871239/packages/pypi/simple",
      "psk=ext:WIFI_PSK",
      '$Cred = New-Object System.Management.Automation.PSCredential("CORP\\svc_deploy", $Pass)',
      'Set-Cookie: sessionid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/',
      "LoadCredential=db-password:/etc/orders/credentials/db-password",
      "curl -u %ARTIFACTORY_USER%:%ARTIFACTORY_TOKEN% -T setup.msi https://repo",
      "initdb --auth=scram-sha-256 --pwfile=/run/secrets/pg_pw",
      "  --askpass          Force user to input password with mask from STDIN.",
      // A prompt that got no answer, then the next line of the log.
      "[sudo] password for bob:\nSorry, try again.",
      "Password changed for user admin:\n2024-05-01T10:00:00Z",
      "Enter passphrase for key '/etc/ssh/deploy_key':\nIdentity added: /etc/ssh/deploy_key (deploy)",
      "A temporary password is generated for root@localhost: (see log)",
      "A temporary password is generated for root@localhost: [hidden]",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a shell expansion
      "A temporary password is generated for root@localhost: ${MYSQL_ROOT_PASSWORD}",
      // Connections, binds and cut calls that hold no password.
      'conn = Connection(ctx, "db-primary", "readonly")',
      'conn.open("cn=config,cn=schema", "olcDatabase2")',
      'login("bob", "Welcome to the app"',
      'connect("db.internal", "5432"',
      'Name: aws.String("DB_HOST"), Value: aws.String("db.internal")',
      // A prompt's answer is one unquoted word at the line's end; a name's value is another rule's.
      "Password for the admin account: see the vault entry",
      "Enter passphrase for key '/root/.ssh/id_rsa':",
      'fields = ["password",\n  "value"]',
      'new UserPasswordCredential("username1"',
    ]);
  });
});

describe("a review of the eleventh pass (issue 20)", () => {
  it("keeps what it found over-redacted: log lines, command output after a prompt, fields that take no secret, ids", () => {
    expectKept(scrub, [
      "$ sudo hostname\n[sudo] password for alice: \nDESKTOP-7K3QF2L",
      "$ ssh build01 hostname\nEnter passphrase for key '/etc/ssh/deploy_ed25519': \nAlices-MacBook-Pro-2",
      "$ sudo dmidecode -s system-serial-number\n[sudo] password for alice: \nC02XL0GHJGH5",
      "$ psql -h db -U postgres -Atc 'select version_tag from meta'\nPassword for user postgres: \nPostgreSQL-16.2",
      "2024-05-01 10:00:01 INFO Password reset requested for user: JSmith42",
      "2024-05-01 10:00:01 WARN Password change failed for user: Admin01",
      "WARN  password has expired for account: SVC-Backup1",
      "Password expiry warning sent for user: U100234",
      "[auth] password reset email queued for user_id: USR-88123",
      "Password policy check failed for tenant: ACME-EU-01",
      "INFO password login disabled for org: Org_42A",
      "await page.getByLabel('Token name').fill('ci-deploy-bot');",
      "await page.getByPlaceholder('Search tokens').fill('deploy');",
      "cy.get('#api-key-name').type('Production key');",
      "this.form.get('secretQuestion').setValue('mother maiden name');",
      'const row = Array(numTokens).fill("unk");',
      'sheet.getRange(tokenRow, 3).setValue("expired");',
      "cy.get('#pass-through-mode').type('enabled')",
      "await page.getByLabel('Password hint').fill('first pet');",
      "wrapper.find('[data-test=\"token-description\"]').setValue('Used by the nightly build')",
      'localStorage.setItem(STORAGE_KEY, "todos-vanillajs");',
      'localStorage.setItem(LOCAL_STORAGE_KEY, "react-todos");',
      'localStorage.setItem(STORAGE_KEY, "sidebar-collapsed");',
      'context.put(TOKEN, "IDENTIFIER");',
      'Connection conn = DriverManager.getConnection(DB_URL, "Admin01", pass);',
      'Connection conn = DriverManager.getConnection(url, "Report_User1", System.getenv("DB_PASS"));',
      'expect "*assword:*"\nsend "[lindex $argv 1]\\r"',
      'expect "Password:"\nsend "[exec cat /run/secrets/pw]\\r"',
      "child.expect('Password changed')\nchild.sendline('logout')",
      "ansible-vault encrypt_string --vault-pass-file .vault_pass --stdin-name db_password",
      "ansible-vault encrypt_string --vault-pass-file ~/.ansible/vault.txt --stdin-name db_password",
      "[admins]\nnotify = daily\nescalation = oncall-team",
      "[admins]\nusers = alice, bob\n[editors]\nusers = carol",
      "[api.github.com]:443 status:completed",
      "Secret ID: projects/123456/secrets/db-password",
    ]);
  });

  it("hides what it found leaking that the pass had made leak or left near: capitalized passwords before a command, class fields, announced passwords, expect's prompts", () => {
    expectHidden(scrub, [
      ["A random password has been automatically generated for user admin: Xk9#mQ2vLp7w", "Xk9#mQ2vLp7w"],
      ["Password For Admin User: Xk9#mQ2vLp7w", "Xk9#mQ2vLp7w"],
      ["docker run -d -e MYSQL_ROOT_PASSWORD=Rootpass mysql:8", "Rootpass"],
      ["PGPASSWORD=Postgres psql -h localhost -U postgres -c 'select 1'", "Postgres"],
      ["MYSQL_PWD=Rootpass mysql -uroot -e 'show databases'", "Rootpass"],
      ["env PASSWORD=Sekrit node server.js", "Sekrit"],
      ["POSTGRES_PASSWORD=Postgres docker compose up -d", "Postgres"],
      ['  public password = "S3cr3tPa55!";', "S3cr3tPa55!"],
      ['  public password: string = "Tr0ub4dor&3";', "Tr0ub4dor&3"],
      ["  public $password = 'S3cr3tPa55!';", "S3cr3tPa55!"],
      ["  public $smtp_pass = 'Xk9#mQ2vLp7w';", "Xk9#mQ2vLp7w"],
      ["DB_PASSWORD=@Summer.Time24", "@Summer.Time24"],
      ['spawn ssh deploy@build01\nexpect "assword:"\nsend "Tr0ub4dor&3\\r"', "Tr0ub4dor&3"],
      ["child.expect('[Pp]assword:')\nchild.sendline('Tr0ub4dor&3')", "Tr0ub4dor&3"],
      ['expect -re "(P|p)assword:"\nsend "Tr0ub4dor&3\\r"', "Tr0ub4dor&3"],
    ]);
  });

  it("hides the near variants it found of hashers, browser tests, expect scripts and secret stores", () => {
    expectHidden(scrub, [
      ["await page.type('input[name=\"password\"]', 'Tr0ub4dor&3');", "Tr0ub4dor&3"],
      ["cy.get('#password').should('be.visible').type('Tr0ub4dor&3');", "Tr0ub4dor&3"],
      ["fill_in :password, with: 'Tr0ub4dor&3'", "Tr0ub4dor&3"],
      ["fill_in 'Password', :with => 'Tr0ub4dor&3'", "Tr0ub4dor&3"],
      ["await userEvent.type(screen.getByLabelText(/password/i), 'Tr0ub4dor&3')", "Tr0ub4dor&3"],
      ["await page.locator('#password').fill('$ecretPass1');", "$ecretPass1"],
      ['expect "password:"\nexp_send "Tr0ub4dor&3\\r"', "Tr0ub4dor&3"],
      ["child.expect(r'password:')\nchild.sendline('Tr0ub4dor&3')", "Tr0ub4dor&3"],
      ["i = child.expect(['password:', pexpect.EOF])\nchild.sendline('Tr0ub4dor&3')", "Tr0ub4dor&3"],
      [
        'lftp -e "set ftp:ssl-allow no; mirror -R ./dist /public_html; quit" -u deploy,Tr0ub4dor3 ftp.example.com',
        "Tr0ub4dor3",
      ],
      [
        "echo -n 'Tr0ub4dor&3' | ansible-vault encrypt_string --vault-id dev@.vault_pass --stdin-name 'db_password'",
        "Tr0ub4dor&3",
      ],
      ["echo 'Tr0ub4dor&3' | gopass insert -f web/github", "Tr0ub4dor&3"],
      ['hash = PasswordHasher().hash("Tr0ub4dor&3")', "Tr0ub4dor&3"],
      ['hashed_password = pwd_context.hash("Tr0ub4dor&3")', "Tr0ub4dor&3"],
      ['hashed_password = get_password_hash("Tr0ub4dor&3")', "Tr0ub4dor&3"],
      ['String hashed = BCrypt.hashpw("Tr0ub4dor&3", BCrypt.gensalt(12));', "Tr0ub4dor&3"],
      ['String encoded = new BCryptPasswordEncoder().encode("Tr0ub4dor&3");', "Tr0ub4dor&3"],
      ['hash, err := bcrypt.GenerateFromPassword([]byte("Tr0ub4dor&3"), bcrypt.DefaultCost)', "Tr0ub4dor&3"],
      ["'password' => bcrypt('Tr0ub4dor&3'),", "Tr0ub4dor&3"],
      ['if bcrypt.checkpw(b"Tr0ub4dor&3", stored):', "Tr0ub4dor&3"],
      ['const ok = await bcrypt.compare("Tr0ub4dor&3", user.passwordHash);', "Tr0ub4dor&3"],
      ['key = crypto.scryptSync("Tr0ub4dor&3", "salt", 32)', "Tr0ub4dor&3"],
      ['const cred = EmailAuthProvider.credential(user.email, "Tr0ub4dor&3");', "Tr0ub4dor&3"],
      ['const newpw = "Tr0ub4dor&3";', "Tr0ub4dor&3"],
      ["dbpw: Tr0ub4dor&3", "Tr0ub4dor&3"],
      ["my $dbpw = 'Tr0ub4dor&3';", "Tr0ub4dor&3"],
    ]);
  });
});

describe("project files an agent writes (blind12's misses and over-redactions)", () => {
  it("finds a password under a store's or a signer's name, by position in well-known calls, and through a conversion", () => {
    expectHidden(scrub, [
      ["REDIS_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor&3"],
      ["redis_password: Kx9mPq2vLw7", "Kx9mPq2vLw7"],
      ["signing.password=Blossom4649Aspen!", "Blossom4649Aspen!"],
      ['viper.SetDefault("redis.password", "Pebble8866Sage#")', "Pebble8866Sage#"],
      ['auth := smtp.PlainAuth("", "billing", "Robinfern9810!", "smtp.gmail.com")', "Robinfern9810!"],
      ['let creds = Credentials::new("mailer".to_owned(), "F05sil6284@".to_owned());', "F05sil6284@"],
      [
        "final _secret = utf8.encode('44a5f5293b294ed70066fe2957525d97f66281dd1fa848dc327723190aa61083');",
        "44a5f529",
      ],
      [
        'let signingKey = SymmetricKey(data: Data(hexString: "6b71068637bc2f10833f1a8289eb61d12f14b460d93f1cd649bfea98098d1d61")!)',
        "6b710686",
      ],
    ]);
    // A cache's key is a slot's name, still.
    expectKept(scrub, ['redis_key = "session:42"', 'cache_key: "user-profile"']);
  });

  it("keeps what is code or a reference there", () => {
    expectKept(scrub, [
      'session = boto3.Session(profile_name="prod")',
      '  api_key: System.fetch_env!("SENDGRID_API_KEY")',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Kotlin template
      '.header("Authorization", "Bearer ${BuildConfig.API_TOKEN}")',
      "password = $__env{GF_SMTP_PASSWORD}",
      "    app.api_key: '%env(API_KEY)%'",
      '<add key="ClearTextPassword" value="%ACME_FEED_PAT%" />',
      '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="build" />\n  </acme>\n</packageSourceCredentials>',
      "'passwords' => [\n    'users' => [\n        'provider' => 'users',\n    ],\n],",
      "  authorization: enabled",
      '  secret_id = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/orders/db-AbCdEf"',
      "  DB_PASSWORD_SECRET: projects/acme-prod-3821/secrets/db-password/versions/latest",
      "let creds = Credentials::new(user, pass);",
      // WordPress' wp-config-sample.php.
      "define( 'AUTH_KEY',         'put your unique phrase here' );",
    ]);
    // A password given after them still is one.
    expectHidden(scrub, [
      ['<add key="ClearTextPassword" value="Kx9mPq2vLw7" />', "Kx9mPq2vLw7"],
      ['passwords: ["Kx9mPq2vLw7", "Tr0ub4dor&3"]', "Kx9mPq2vLw7"],
      ["pwd::anothersyntax!", "anothersyntax!"],
      ['password = "correct horse battery staple"', "battery staple"],
    ]);
  });
});

describe("lookups assigned, enum keys, short compounds and files by path", () => {
  it("finds a password assigned to a lookup, given under an enum's name or a five-letter compound", () => {
    expectHidden(scrub, [
      ['Session("Password") = "Hq7vPz2LmWx9"', "Hq7vPz2LmWx9"],
      ["obj('APIKEY') = 'asdasdsadasdad'", "asdasdsadasdad"],
      ['If Request.Form("password") = "letmein2024" Then', "letmein2024"],
      ['x = Session(\\"Password\\") = \\"Hq7vPz2LmWx9\\"', "Hq7vPz2LmWx9"],
      ['hikari.addDataSourceProperty(PGProperty.PASSWORD.getName(), "Tr0ub4dor&3");', "Tr0ub4dor&3"],
      ['props.put(Context.SECURITY_CREDENTIALS.name(), "Tr0ub4dor&3")', "Tr0ub4dor&3"],
      ["dbpwd=Somespeci@!ch@r", "Somespeci@!ch@r"],
      ["DBPWD=Hq7vPz2LmWx9", "Hq7vPz2LmWx9"],
      // `@` and a capitalized word after a dot: a password, not a file.
      ["password: @dm1n.Pass", "@dm1n.Pass"],
      ["DB_PASSWORD=@Summer.Time24", "@Summer.Time24"],
    ]);
  });

  it("keeps comparisons, references and files given by path", () => {
    expectKept(scrub, [
      'Session("Password") = Request.Form("pwd")',
      'getenv("PASSWORD") == expected',
      'foo(PGProperty.PASSWORD.getName(), "description of it", 3)',
      "map.put(Field.PASSWORD.getName(), value)",
      "curl -d password=@secret.txt https://api.example.com/login",
      "az login --password @~/pw.txt",
      "token=@/run/secrets/token",
      "OLDPWD=/workspace/app",
    ]);
  });
});

describe("values cut short, YAML's node properties, and markup between a name and its value", () => {
  it("finds most of a value shown before an ellipsis, after an anchor or a tag, in the next cell", () => {
    expectHidden(scrub, [
      ["API_KEY=6x8SH8LOlGCIN3cch60jDmJIMqtTA4…", "6x8SH8LOlGCIN3cch60j"],
      // A quoted value cut short before its closing quote.
      ['"password": "bluefalcon42xy...', "bluefalcon42xy"],
      ['"api_key": "bluefalcon42xy... [truncated 2000 chars]', "bluefalcon42xy"],
      ["CLIENT_SECRET=bluefish-77-Rain... [output truncated, 4312 more characters]", "bluefish-77-Rain"],
      ["Connecting to db with password M8jZ5pHR02RW75yH6QmeQQ0jcUN5axqe...", "M8jZ5pHR02RW75yH"],
      ["password=Summer2024!..", "Summer2024!"],
      ["password: &dbpw Spring2025?", "Spring2025?"],
      ["password: !!str Spring2025?", "Spring2025?"],
      ['{\n  "password":\n    "MyDogMax!2019"\n}', "MyDogMax!2019"],
      // A password may start with `*` or `&`: an alias or a borrow is named in lower case.
      ["  refresh_token: *ljjPcOtzkswrZ", "ljjPcOtzkswrZ"],
      ["password = &Summer2024", "Summer2024"],
      ["password=*s-vxa1x9", "*s-vxa1x9"],
      ["password: @dmin123", "@dmin123"],
      ["password = &abc123", "&abc123"],
      ["<tr><td>CLIENT_SECRET</td><td>Spring2025?</td></tr>", "Spring2025?"],
      ["<dt>Password</dt><dd>Spring2025?</dd>", "Spring2025?"],
      ["<code>DB_PASSWORD</code>: <code>Spring2025?</code>", "Spring2025?"],
      ['<span class="k">API_KEY</span>=<span class="v">Spring2025?</span>', "Spring2025?"],
      [
        'myURL.<span class="hljs-property">password</span> = <span class="hljs-string">\'Spring2025?\'</span>;',
        "Spring2025?",
      ],
      ["<password><![CDATA[Spring2025?]]></password>", "Spring2025?"],
      ["| `SMTP_PASS` | `c7314afdfce6cbae22b4d3707f17b51ff7307019` |", "c7314afdfce6"],
      ["| **DB_PASSWORD** | Passw0rd!2022 |", "Passw0rd!2022"],
      // AWS SSM's parameter and Azure Key Vault's secret, members between the name and the value.
      [
        '{"Parameter":{"Name":"/prod/db/password","Type":"SecureString","Value":"Passw0rd!2022"}}',
        "Passw0rd!2022",
      ],
      [
        '{"contentType":null,"id":"https://kv.vault.azure.net/secrets/db-pass/abc","kid":null,"managed":null,"name":"db-pass","tags":{},"value":"Spring2025?"}',
        "Spring2025?",
      ],
      ["Variable name | Initial Value\napiKey |e9e0f062f587b423bb6cc6328eb786d75b45783e", "e9e0f062f587"],
    ]);
  });

  it("keeps a value elided to a few characters or to a JSON header, aliases, borrows, and header rows", () => {
    expectKept(scrub, [
      "token: sk-abc...",
      "OPENAI_API_KEY=sk-...abcd",
      "  API key: sk-ant-api03-…AAAA (from ANTHROPIC_API_KEY)",
      "Token: ghp_…Cv4Z",
      "access_key: AKIA…WXYZ  status: Active",
      "token: abcd…wxyz",
      "token: @user.reset_token",
      // What shows before an ellipsis is judged as any value: a URL, code, a placeholder.
      "Fetching token from https://oauth2.googleapis.com/token...",
      'msg = "Connecting to the server...',
      "api_key = settings.OPENAI_API_KEY...",
      "api_key=your-api-key-goes-here...",
      "login(username: @user.email, password: @user.password)",
      "token: @api_token",
      "password: @JsonIgnore",
      "password: *DB_PASSWORD",
      "password: *dbPassword",
      "secret='ghp_....................................'",
      '"PurchaseToken": "eyJ2IjoiMSIsInMiOjEsImMiOi...",',
      "export OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...",
      "password: *db_password",
      "let password = &args.password;",
      "let token = &mut tok;",
      "<tr><th>Password</th><th>Expires</th></tr>",
      // Node's docs, highlighted: a shell's working directory, its quotes inside the element.
      '  <span class="hljs-attr">PWD</span>: <span class="hljs-string">\'/workspace/app\'</span>,',
      "<tr><td>DB_PASSWORD</td><td>Password of the database</td></tr>",
      "| Name | Password | Role |\n|------|----------|------|",
      "password | string | The password",
      '{"Name":"/prod/app/url","Type":"String","Value":"https://x.io"}',
      // A key published by design, beside a vendor's keyword.
      "STRIPE_PUBLISHABLE_KEY=pk_test_51H8xYzAbCdEfGhIjKlMnOpQr",
      // A SASL mechanism after `LOGIN` in a server's capabilities.
      "250-AUTH PLAIN LOGIN CRAM-MD5",
    ]);
  });
});

describe("infrastructure code's references (blind14's over-redactions)", () => {
  it("keeps Terraform's indexed references, CloudFormation's functions and self-declared stand-ins", () => {
    expectKept(scrub, [
      "  encryption_key = aws_kms_key.client_encryption_key[each.key].arn",
      "password = random_password.db[0].result",
      'api_key = module.keys.outputs["heroku"]',
      "  HasPassword: !Not [!Equals [!Ref DBPassword, '']]",
      "  MasterUserPassword: !If [UseSecret, !Ref DBPassword, !Ref AWS::NoValue]",
      '    LifecycleActionToken = "placeholder-token-value"',
      '        os.environ["GITGUARDIAN_API_KEY"] = "not-a-real-key"',
      "curl -u admin: https://localhost",
    ]);
  });

  it("still takes what stands where those would", () => {
    expectHidden(scrub, [
      ["password = Rand0m.db[0x9f]Q", "Rand0m.db[0x9f]Q"],
      ["curl -u admin:S3cr3tx https://localhost", "S3cr3tx"],
      ["  MasterUserPassword: Notr3al!Pw", "Notr3al!Pw"],
    ]);
  });
});

describe("whole command outputs (review 53's leaks and over-redactions)", () => {
  it("reads a closing bracket no bracket opened as the value's own (Django's generated keys)", () => {
    expectHidden(scrub, [
      ["SECRET_KEY=)tornkx@-+3^^9g7gb=^u&iwls^cx7w42$+iwyk$eh$r-ym8l7", "tornkx@-+3^^9g7gb"],
      ["SECRET_KEY=fjlz)y$h1b047ktzj5m$=k^dq($nakky@$s$2+6qma$yu3^+7b", "y$h1b047ktzj5m"],
    ]);
    expectHidden(scrub, [
      ['"Env": ["DJANGO_SECRET_KEY=abc4)g1bpz2^*!6*&72=yy8^#&+j_q2!un4", "X=1"]', "yy8^#&+j_q2"],
    ]);
    expect(scrub("f(password=pw12345)")).toBe("f(password=[REDACTED:generic-secret])");
    // Code, not an environment's line: the brace closes a block opened far before.
    expectKept(scrub, [
      "x;this.apiKey=this.apiKeyResource.attrApiKey}if(modes.some(mode=>x",
      '"Tagging": "key1=value1&key2=value2"',
    ]);
    expect(scrub('{"token": abcDEF123456}')).toBe('{"token": [REDACTED:generic-secret]}');
  });

  it("keeps a request's path segment, a product's version, an EVM address and a vendor's revision", () => {
    expectKept(scrub, [
      '127.0.0.1 - - [21/May/2024:10:00:00 +0000] "POST /oauth/token HTTP/1.1" 200 512',
      "POST https://login.microsoftonline.com/common/oauth2/v2.0/token HTTP/2.0",
      "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/125.0.0.0 Safari/537.36",
      "deployer: 0x0b45173e780eab8f1e39c020ac6896c0809527c9",
      "SENTRY_RELEASE=0cbab53cc2d5bcd71dbd246d118204e58ddfd56a",
      "HEROKU_SLUG_COMMIT=fef25aff3e2ff3a120fc277d4509ad6f7956d87a",
      "TWILIO_ACCOUNT_SID=AC509769aaa29fa0dd60b3d213060801cd",
      '"tags":["token","request","remote"]',
      '"labels":["token","request"]',
    ]);
    expectHidden(scrub, [
      ["curl https://x/token=abc123XYZ789", "abc123XYZ789"],
      ["/prod/smtp/password\tSmtp-Relay-Pw9\n/prod/smtp/user\trelay", "Smtp-Relay-Pw9"],
      [
        '{\n    "name": "STRIPE_WEBHOOK_SECRET",\n    "slotSetting": true,\n    "value": "whsec-human-like"\n  }',
        "whsec-human-like",
      ],
      ['{"OptionName": "RDS_PASSWORD",\n "ResourceName": null,\n "Value": "Eb-Rds-Pass-8"}', "Eb-Rds-Pass-8"],
      ["PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "4c0883a6910293"],
      ["HEROKU_API_KEY=fef25aff-3e2f-f3a1-20fc-277d4509ad6f", "fef25aff-3e2f"],
      ["Set-Cookie: sid=Xk92LpQzR7vT0wYs8NbHjF3uC1mA5dEe; Path=/", "Xk92LpQzR7vT0wYs8NbHjF3uC1mA5dEe"],
      ["docker run -e PGPASSWORD=Docker-Pg-Pw postgres", "Docker-Pg-Pw"],
      ["+ mysql -u deploy '-pMy-Dep!oy-7' shop", "My-Dep!oy-7"],
      ['[["DB_PASSWORD","P@ssw0rd123"],["DB_HOST","db"]]', "P@ssw0rd123"],
    ]);
  });

  it("looks for a found value again only as a word of its own, and never for a service's name as its password", () => {
    const out = scrub(
      "POSTGRES_PASSWORD: postgres\nimage: postgres:16.3\nvolumes: ./data/postgres:/var/lib/postgresql/data",
    );
    expect(out).toContain("image: postgres:16.3");
    expect(out).toContain("/var/lib/postgresql/data");
    expect(out).not.toContain("POSTGRES_PASSWORD: postgres");
    expect(scrub("DB_PASSWORD=pgAdmin16\nmysql -ppgAdmin16 and pgAdmin16db")).toBe(
      "DB_PASSWORD=[REDACTED:generic-secret]\nmysql -p[REDACTED:generic-secret] and pgAdmin16db",
    );
    expect(scrub("DB_PASSWORD=Tr0ub4dor&3x\nsee Tr0ub4dor&3xyz")).not.toContain("Tr0ub4dor&3x");
  });
});
