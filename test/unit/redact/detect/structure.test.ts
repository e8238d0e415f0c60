/**
 * Edges of the structure layer's stored-credential formats (`detect/structure.ts`,
 * `detect/seed-phrases.ts`): what ends an Ansible Vault body, which recovery phrases count, and
 * `.netrc`'s `default` against prose. Recall over generated values is measured by
 * generic-shapes.test.ts (families `hash` and `seed-phrase`); these are the edges.
 */
import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPhraseOfListWords, scanSeedPhrases } from "#shared/redact/detect/seed-phrases.js";
import { Scrubber } from "#shared/redact/index.js";
import type { Detection } from "#shared/redact/rule-types.js";
import { expectHidden } from "./helpers.js";

const scrub = (text: string): string =>
  new Scrubber({ preset: "private_repo" }).scrub(text, "$.error.message");
const phrase = (bytes: number, fill: number): string =>
  entropyToMnemonic(new Uint8Array(bytes).fill(fill), wordlist);

describe("ansible vault", () => {
  const body = "6136376136613337353930643666323637626634353531350a316335396364656230623265313634";
  it("redacts the hex body under its header, raw or escaped in a JSON string, and leaves the YAML tag", () => {
    expect(scrub(`secret: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  ${body}\n  3938\nnext: 1`)).toBe(
      "secret: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  [REDACTED:ansible-vault]\nnext: 1",
    );
    expect(scrub(`$ANSIBLE_VAULT;1.2;AES256;dev\\n${body}\\n${body}`)).toBe(
      "$ANSIBLE_VAULT;1.2;AES256;dev\\n[REDACTED:ansible-vault]",
    );
  });
  it("needs the header: hex lines alone are what the shape layer judges", () => {
    expect(scrub(`ANSIBLE_VAULT is the header's word\n${body.slice(0, 12)}`)).toBe(
      `ANSIBLE_VAULT is the header's word\n${body.slice(0, 12)}`,
    );
  });
});

describe("seed phrases", () => {
  const p12 = phrase(16, 0x7f);
  const p24 = phrase(32, 0x80);

  it("counts a phrase of 12 to 24 list words, in threes", () => {
    expect(isPhraseOfListWords(p12)).toBe(true);
    expect(isPhraseOfListWords(p24)).toBe(true);
    expect(isPhraseOfListWords(p12.split(" ").slice(0, 11).join(" "))).toBe(false);
    expect(isPhraseOfListWords(`${p12} abandon`)).toBe(false);
    expect(isPhraseOfListWords(p12.replace(/^\w+/, "zzz"))).toBe(false);
  });

  it("takes a phrase under its name whatever its checksum, and alone only when its checksum holds", () => {
    const broken = p12.replace(/\w+$/, p12.endsWith("zoo") ? "wrong" : "zoo");
    expect(scrub(`mnemonic: ${broken}`)).toBe("mnemonic: [REDACTED:seed-phrase]");
    expect(scrub(broken)).toBe(broken);
    expect(scrub(`Phrase:\n${p12}\n`)).toBe("Phrase:\n[REDACTED:seed-phrase]\n");
  });

  it("finds the longest phrase at a start, then goes on after it", () => {
    const out: Detection[] = [];
    const text = `${p24} ${p12}`;
    scanSeedPhrases(text, out, { id: "seed-phrase", kind: "secret" });
    expect(out.map((d) => text.slice(d.start, d.end))).toEqual([p24, p12]);
  });

  it("leaves prose: list words broken by words off the list, and a name without a phrase", () => {
    for (const text of [
      "the seed is then mixed with a random value of the same length and the words are listed",
      "Write down your 24-word recovery phrase and keep it offline.",
      `the ${p12.split(" ").slice(0, 6).join(" ")} is a ${p12.split(" ").slice(6).join(" ")}`,
    ]) {
      expect(scrub(text)).toBe(text);
    }
  });
});

describe(".netrc", () => {
  it("reads `default` at the start of a line, as the file has it, and not in prose", () => {
    expect(scrub("default login anonymous password guest99")).toBe(
      "default login anonymous password [REDACTED:netrc-password]",
    );
    expect(scrub("machine h\ndefault login x password p4ss!")).toBe(
      "machine h\ndefault login x password [REDACTED:netrc-password]",
    );
    expect(scrub("The default password for the user is shown once.")).toBe(
      "The default password for the user is shown once.",
    );
  });
});

describe("mail relays' and CouchDB's password files", () => {
  it("takes Postfix's sasl_passwd password after its bracketed relay, not a reference", () => {
    expect(scrub("[smtp.gmail.com]:587 alerts@acme.io:thgnotdzrscngpu6")).not.toContain("thgnotdzrscngpu6");
    expect(scrub("[smtp.office365.com]:587 bob:Qw7kT2zPx9\n[mail.acme.io] ops:S3cret-ops")).toBe(
      "[smtp.office365.com]:587 bob:[REDACTED:netrc-password]\n[mail.acme.io] ops:[REDACTED:netrc-password]",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a template
    const reference = "[mail.example.com]:25 bob:${SMTP_PASS}";
    expect(scrub(reference)).toBe(reference);
    expect(scrub("arr[obj.key]:3 a:b")).toBe("arr[obj.key]:3 a:b");
  });

  it("takes it where an echo or Ansible writes the file, without brackets where the file is named, and an app password", () => {
    expect(scrub('echo "[smtp.office365.com]:587 relay-svc:Qw7kT2zPx9" > /etc/postfix/sasl_passwd')).toBe(
      'echo "[smtp.office365.com]:587 relay-svc:[REDACTED:netrc-password]" > /etc/postfix/sasl_passwd',
    );
    expect(scrub('    line: "[smtp.office365.com]:587 relay-svc:Qw7kT2zPx9"')).not.toContain("Qw7kT2zPx9");
    expect(scrub("[smtp.gmail.com]:587 ops:abcd efgh ijkl mnop")).toBe(
      "[smtp.gmail.com]:587 ops:[REDACTED:netrc-password]",
    );
    expect(scrub("cat /etc/postfix/sasl_passwd\nsmtp.mailgun.org:587 relay:Qw7kT2zPx9")).not.toContain(
      "Qw7kT2zPx9",
    );
    // A host and a `name:value` after it, with no file named, is a log line.
    const log = "relay=smtp.mailgun.org:587 status:deferred";
    expect(scrub(log)).toBe(log);
    const mapped = "smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd";
    expect(scrub(mapped)).toBe(mapped);
  });

  it("takes each password of CouchDB's [admins] section, up to the next section", () => {
    expect(
      scrub(
        "[admins]\n; set on first start\nadmin = copper684quartz\nops = Qw7kT2zPx9\n\n[couchdb]\nuuid = 916441ff",
      ),
    ).toBe(
      "[admins]\n; set on first start\nadmin = [REDACTED:netrc-password]\nops = [REDACTED:netrc-password]\n\n[couchdb]\nuuid = 916441ff",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a template
    const reference = "[admins]\nadmin = ${COUCHDB_PASSWORD}\n[log]\nlevel = info";
    expect(scrub(reference)).toBe(reference);
  });
});

describe("network device configuration (Cisco IOS)", () => {
  it("takes the password that ends a configuration line, whatever its level, privilege or type digit", () => {
    const config = [
      "enable password level 15 MyS3cret",
      "username admin privilege 15 password 0 Cisco123!",
      "username john password hunter2",
      "tacacs-server key T4cacsK3y",
      "radius-server host 10.0.0.9 key Rad1usK3y",
      "radius-server host 10.0.0.7 auth-port 1812 acct-port 1813 key Rad1usK3y2",
      "username ops password Nx0sPass! role network-admin",
    ].join("\n");
    const out = scrub(config);
    for (const secret of [
      "MyS3cret",
      "Cisco123!",
      "hunter2",
      "T4cacsK3y",
      "Rad1usK3y",
      "Rad1usK3y2",
      "Nx0sPass!",
    ]) {
      expect(out, secret).not.toContain(secret);
    }
    expect(out).toContain("username admin privilege 15 password 0 [REDACTED:");
  });
  it("in a configuration, a word too: after a prompt, in a JSON string's lines", () => {
    expect(scrub("R1(config)#enable secret cisco")).toBe(
      "R1(config)#enable secret [REDACTED:cisco-password]",
    );
    expect(scrub('{"config":"hostname R1\\nenable secret cisco\\nusername admin password hunter\\n"}')).toBe(
      '{"config":"hostname R1\\nenable secret [REDACTED:cisco-password]\\nusername admin password [REDACTED:cisco-password]\\n"}',
    );
  });
  it("leaves prose about the same words alone", () => {
    for (const text of [
      "username or password incorrect",
      "username admin password is encrypted",
      "enable secret scanning",
      "enable password authentication",
      "username {{.User}} password {{.Password}}",
      "username %s password %s",
      "username and password are required",
      "username admin password is stored in vault",
      "enable secret is set",
      " enable password (optional)",
      "The enable password is required to enter privileged mode.",
    ]) {
      expect(scrub(text), text).toBe(text);
    }
  });
});

describe("network device configuration (Junos, HPE ProCurve and Aruba)", () => {
  it("takes Junos' SNMP community and a switch's plaintext password", () => {
    const shapes: [string, string][] = [
      ['set snmp community "s3cr3tC0mm" authorization read-only', "s3cr3tC0mm"],
      ["set snmp community Publ1cR0 clients 10.0.0.0/8", "Publ1cR0"],
      ["set snmp community n0cR3ad", "n0cR3ad"],
      ["password manager user-name admin plaintext S3cretPass99", "S3cretPass99"],
      ['password operator plaintext "Op3r8tor!"', "Op3r8tor!"],
      ["switch(config)# password all user-name ops plaintext hunter2x", "hunter2x"],
      ['{"cfg": "password manager plaintext \\"Hunter2Xyz!kq9\\""}', "Hunter2Xyz!kq9"],
      ["set snmp community Xk9comm view all-mibs", "Xk9comm"],
      ["set snmp community Xk9comm routing-instance blue", "Xk9comm"],
      ["password manager plaintext S3cretPass99 ! set by ops", "S3cretPass99"],
      ["password manager plaintext S3cret\\Pass99", "S3cret\\Pass99"],
    ];
    expectHidden(scrub, shapes);
  });

  it("leaves prose about the same words alone", () => {
    for (const text of [
      "set snmp community name is set here",
      "The password manager stores plaintext copies.",
      "password all plaintext on the wire is a bad idea",
      "set snmp community <community-name>",
      "set snmp community $COMMUNITY",
      "set snmp community COMMUNITY view all",
      "set snmp community your-community view all",
    ])
      expect(scrub(text)).toBe(text);
  });
});

describe(".npmrc's registry credentials", () => {
  it("takes `_authToken`, `_auth` and `_password` after a registry's path, whatever the value", () => {
    const token = fc.stringMatching(/^[A-Za-z0-9+/=_-]{3,60}$/);
    const host = fc.constantFrom(
      "//registry.npmjs.org/",
      "//npm.pkg.github.com/acme/",
      "//r.example.com/npm/",
      "//h.io/x",
    );
    const field = fc.constantFrom("_authToken", "_auth", "_password");
    const quote = fc.constantFrom("", '"');
    fc.assert(
      fc.property(host, field, token, quote, (h, f, t, q) => {
        const line = `${h}:${f}=${q}${t}${q}`;
        expect(scrub(line), line).toBe(`${h}:${f}=${q}[REDACTED:npmrc-credentials]${q}`);
      }),
      { seed: 20_261_128, numRuns: 200 },
    );
  });
  it("keeps a reference to the environment", () => {
    for (const line of [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is an .npmrc line holding a reference
      "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
      "//r.example.com/:_auth=$NPM_AUTH",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a workflow's line holding a reference
      'echo "//npm.pkg.github.com/:_authToken=${{ secrets.GITHUB_TOKEN }}" >> .npmrc',
      "//registry.npmjs.org/:_authToken=<%= ENV['NPM_TOKEN'] %>",
      "//registry.npmjs.org/:_authToken=$env:NPM_TOKEN",
    ])
      expect(scrub(line)).toBe(line);
  });
});

describe("Redis' ACL passwords and keys written as bytes", () => {
  it("takes the password `>` adds to a user, not a redirect", () => {
    expect(scrub("user app on >Kx9mPq2vLw7 ~app:* &* +@all -@dangerous")).toBe(
      "user app on >[REDACTED:redis-acl-password] ~app:* &* +@all -@dangerous",
    );
    expect(scrub("127.0.0.1:6379> ACL SETUSER alice >Kx9mPq2vLw7 ~cached:* +get")).not.toContain(
      "Kx9mPq2vLw7",
    );
    for (const kept of [
      "grep user file >out.txt",
      "user default on nopass ~* +@all",
      "if user > 5 and count >10",
    ])
      expect(scrub(kept)).toBe(kept);
  });

  it("takes a key's bytes under a key's name, not a table's", () => {
    const bytes =
      "0xC8, 0x6A, 0x6C, 0x2F, 0x73, 0xEE, 0x73, 0x39, 0x63, 0x33, 0x85, 0x07, 0x48, 0x0A, 0x27, 0x98";
    expect(scrub(`static const uint8_t fw_key[16] = {\n    ${bytes}\n};`)).toBe(
      "static const uint8_t fw_key[16] = {\n    [REDACTED:key-bytes]\n};",
    );
    expect(scrub(`static AES_KEY: [u8; 16] = [${bytes}];`)).not.toContain("0xC8");
    expect(scrub(`byte[] key = new byte[] { (byte)0x9c, ${bytes} };`)).not.toContain("0x9c");
    const table = `static const uint8_t crc_table[16] = { ${bytes} };`;
    expect(scrub(table)).toBe(table);
    expect(scrub("key := []byte{0x01, 0x02}")).toBe("key := []byte{0x01, 0x02}");
  });
});

describe("webhook URLs", () => {
  it("takes the key a hook's path ends in, whoever serves the hook", () => {
    expect(scrub("curl -X POST https://hooks.zapier.com/hooks/catch/192840272/anwidh83/ -d '{}'")).toBe(
      "curl -X POST https://hooks.zapier.com/hooks/catch/192840272/[REDACTED:webhook-url]/ -d '{}'",
    );
    expect(scrub("N8N_URL=https://n8n.acme.dev/webhook/7f3e2a1b-9c8d-4e5f-a6b7-c8d9e0f1a2b3?x=1")).toBe(
      "N8N_URL=https://n8n.acme.dev/webhook/[REDACTED:webhook-url]?x=1",
    );
    expect(scrub("hooks.zapier.com/hooks/catch/5829104/3kx9fq2/")).not.toContain("3kx9fq2");
    expect(scrub("https://hooks.zapier.com/hooks/catch/90397617/tvvyzpj/")).not.toContain("tvvyzpj");
    expect(scrub("https://n8n.acme.dev/webhook/b08c6f6d-5d1a-411d-b08c-f38689f2c655/chat")).toBe(
      "https://n8n.acme.dev/webhook/[REDACTED:webhook-url]/chat",
    );
    expect(scrub("https://webhook.site/b08c6f6d-5d1a-411d-b08c-f38689f2c655")).not.toContain("b08c6f6d");
    expect(scrub('fetch("https://ci.acme.dev/api/webhooks/build/aB3kQ9xZ7m")')).not.toContain("aB3kQ9xZ7m");
  });

  it("keeps a hook's number, words, source files, placeholders and paths outside a URL", () => {
    for (const kept of [
      "GET https://api.github.com/repos/acme/app/hooks/12345678/deliveries",
      "https://gitlab.com/api/v4/projects/42/hooks/7",
      "https://github.com/acme/app/blob/main/src/hooks/useAuth2.ts",
      "see https://react.dev/reference/react/hooks/useEffect2",
      "https://example.com/hooks/release-2024",
      "'1': 'https://hooks.zapier.com/hooks/catch/xxxx/xxxxx',",
      "cp scripts/pre-push .git/hooks/pre-push2",
      "src/hooks/a1b2c3d4",
      "https://sentry.io/settings/acme/projects/web/hooks/a1b2c3d4e5f6/",
      "https://api.datadoghq.com/api/v1/integration/webhooks/configuration/webhooks/SLACK_ALERTS2",
      "https://example.com/webhooks/v1beta1",
      "https://api.netlify.com/api/v1/hooks/5f2a9c1e8b7d6a5f3e2d1c0b",
    ])
      expect(scrub(kept)).toBe(kept);
  });
});

describe("SMTP's AUTH in a transcript", () => {
  it("takes AUTH PLAIN's argument and the client's answer to the server's Password: prompt", () => {
    expect(
      scrub(
        "S: 334 VXNlcm5hbWU6\nC: Ym9iQGV4YW1wbGUuY29t\nS: 334 UGFzc3dvcmQ6\nC: aHVudGVyMmh1bnRlcjI=\nS: 235 ok",
      ),
    ).toBe(
      "S: 334 VXNlcm5hbWU6\nC: Ym9iQGV4YW1wbGUuY29t\nS: 334 UGFzc3dvcmQ6\nC: [REDACTED:smtp-auth]\nS: 235 ok",
    );
    expect(scrub("~> AUTH PLAIN AGJvYgBodW50ZXIy\n<~  235 2.7.0 Authentication successful")).not.toContain(
      "AGJvYgBodW50ZXIy",
    );
    expect(scrub("<~ 334 cGFzc3dvcmQ6\n~> U3ByaW5nMjAyNT8=")).not.toContain("U3ByaW5nMjAyNT8=");
    for (const kept of [
      "AUTH PLAIN (hidden)",
      "250-AUTH PLAIN LOGIN CRAM-MD5",
      "S: 334 VXNlcm5hbWU6\nC: Ym9i",
    ])
      expect(scrub(kept)).toBe(kept);
  });
});

describe("a browser's cookies as text", () => {
  it("takes every cookie's value in a cookies list (storageState, HAR), raw or escaped", () => {
    expect(
      scrub(
        '"cookies": [{"name": "sid", "value": "Passw0rd!2022", "httpOnly": true}, {"name": "theme", "value": "dark"}]',
      ),
    ).toBe(
      '"cookies": [{"name": "sid", "value": "[REDACTED:cookie-list]", "httpOnly": true}, {"name": "theme", "value": "[REDACTED:cookie-list]"}]',
    );
    expect(scrub('{\\"cookies\\":[{\\"name\\":\\"s\\",\\"value\\":\\"eyJzaWQiOjF9abc\\"}]}')).not.toContain(
      "eyJzaWQiOjF9abc",
    );
    for (const kept of [
      '{"cookies":[],"origins":[]}',
      '{"cookies": [{"name": "a", "value": ""}]}',
      '"value": "x1y2z3w4" }] "cookies"',
    ])
      expect(scrub(kept)).toBe(kept);
  });
});

describe("a value decoded on the command line", () => {
  it("takes base64 piped or fed to `base64 -d` when it decodes to one token of text", () => {
    for (const [text, secret] of [
      ["$ echo 'TXlEb2dNYXghMjAxOQ==' | base64 --decode", "TXlEb2dNYXghMjAxOQ=="],
      ['export SMTP_PASS="$(echo TXlEb2dNYXghMjAxOQ== | base64 -d)"', "TXlEb2dNYXghMjAxOQ=="],
      ['base64 -d <<< "U3ByaW5nMjAyNT8="', "U3ByaW5nMjAyNT8="],
    ] as const)
      expect(scrub(text)).not.toContain(secret);
    for (const kept of [
      "echo aGVsbG8gd29ybGQ= | base64 -d",
      "echo SGVsbG8= | base64 -d",
      "cat x | base64 -d",
    ])
      expect(scrub(kept)).toBe(kept);
  });
});
