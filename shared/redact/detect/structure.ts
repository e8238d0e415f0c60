/**
 * The `structure` layer's own rules: the formats credentials are stored in, whoever made them.
 * (Key blocks, JWTs, URLs with a password and Kubernetes Secrets are older rules of the same
 * layer, in `rules.ts`.)
 */
import { isPlaceholder, isStandIn } from "../rule-helpers.js";
import type { Detection, PatternRule } from "../rule-types.js";
import { UUID } from "./randomness.js";
import { isPhraseOfListWords, scanSeedPhrases, TWELVE_WORDS } from "./seed-phrases.js";

/** CouchDB's section of administrators and their passwords. */
const ADMINS_SECTION = /(?<=^|\n)[ \t]*\[admins\][ \t]*\r?\n/g;
/** An INI entry's value (group 1), to the line's end. */
const INI_ENTRY = /(?<=^|\n)[ \t]*[\w.@-]+[ \t]*=[ \t]*([^\s;#][^\r\n]*?)[ \t]*(?=\r?\n|$)/dg;
/**
 * A list of 16 bytes or more written in hex (`{ 0x2e, 0xe6, … }`, Java's `(byte) 0x9c`), its
 * contents in group 1.
 */
const HEX_BYTES =
  /[{[][ \t\r\n]*((?:(?:\(byte\)[ \t]*)?0[xX][0-9a-fA-F]{2}[ \t]*,[ \t\r\n]*){15,}(?:\(byte\)[ \t]*)?0[xX][0-9a-fA-F]{2})/dg;
/**
 * A key's declaration just before its bytes: a name holding `key`, `secret`, `token` or
 * `password`, an array's size or a type, `=`, and the array's constructor (C's `uint8_t fw_key[16]
 * =`, Rust's `AES_KEY: [u8; 32] =` and `vec!`, Go's `[]byte`, Java's and C#'s `new byte[]`).
 */
const KEY_DECLARATION =
  /(?:key|secret|token|passw(?:or)?d)\w*(?:[ \t]*\[[^\]\n]{0,12}\])?(?:[ \t]*:[^=\n]{1,40})?[ \t]*=[ \t]*(?:new[ \t]+\w+[ \t]*\[[ \t]*\][ \t]*|\[\]byte[ \t]*|\w+![ \t]*)?$/i;

export const STRUCTURE_RULES: readonly PatternRule[] = [
  {
    // Modular crypt and friends: `$1$salt$hash`, `$2b$10$…`, `$5$`, `$6$rounds=…$…`, `$y$`, Cisco's
    // `$8$`/`$9$`, `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, `$pbkdf2-sha256$…`, `$scrypt$…`, `$apr1$`,
    // phpass `$P$`/`$H$`: a cracker's input is a password. Their alphabet has no `:`, so a shadow
    // line's fields after the hash (`root:$1$…$…:19523:0:…`) end it.
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: ["$"],
    pattern:
      /\$(?:1|2[abxy]?|5|6|7|8|9|y|gy|sha1|md5|apr1|P|H|argon2(?:id|i|d)|pbkdf2(?:-sha(?:1|256|512))?|scrypt|bcrypt(?:-sha256)?)\$[A-Za-z0-9./+=$,*-]{8,}/dg,
    // A hash has a body of its alphabet after its last `$`: `$1$` alone or a price is not one.
    accept: (m) => /[A-Za-z0-9./+=]{8,}$/.test(m[0]),
  },
  {
    // Hashes whose fields hold a user, a realm or a service (`:`, `@`, `#`, `*`): Kerberos roasting
    // output (`$krb5asrep$23$user@REALM:…$…`, `$krb5tgs$23$*user$realm$spn*$…`), `$DCC2$`, `$NT$`,
    // NetNTLM and MS-SNTP captures.
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: ["$"],
    pattern: /\$(?:krb5(?:asrep|tgs|pa)|DCC2|NT|mscash2?|sntp-ms|netntlmv?2?)\$[^\s"'`<>,;]{8,}/dg,
    accept: (m) => /[A-Za-z0-9./+=]{8,}$/.test(m[0]),
  },
  {
    // MySQL's `mysql_native_password` hash: `*` and 40 hex digits.
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: ["*"],
    pattern: /\*[0-9A-F]{40}(?![0-9A-Za-z])/dg,
    accept: (m, text) => !/[A-Za-z0-9*]/.test(text[m.index - 1] ?? ""),
  },
  {
    // PostgreSQL's SCRAM verifier (`SCRAM-SHA-256$4096:salt$stored:server`), Django's older
    // `sha1$salt$hex` and `md5$salt$hex`: hashes stored without a leading `$`.
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: ["SCRAM-SHA-", "sha1$", "md5$"],
    pattern:
      /SCRAM-SHA-(?:1|256)\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+|\b(?:unsalted_)?(?:sha1|md5)\$[A-Za-z0-9]*\$[0-9a-f]{32,40}\b/dg,
  },
  {
    // Cisco IOS: `password 7 0822455D0A16` is reversible, `password 0 x` is the password itself
    // (types 5, 8 and 9 are crypt hashes, above).
    id: "cisco-password",
    kind: "secret",
    layer: "structure",
    needles: [" 7 ", " 0 "],
    pattern:
      /\b(?:password|secret|key-string|key|authentication-key|md5) +(?:7 +((?:[0-9A-F]{2}){3,})\b|0 +([^\s"'`<>]+)(?=[ \t]*(?:\r?\n|\\n|$)))/dg,
    group: [1, 2],
  },
  {
    // Cisco IOS's other forms, at a line's start as `show running-config` prints them, or after the
    // device's prompt (`R1(config)#`), also in a JSON string's `\n`: `enable password [level n] x`,
    // `enable secret x`, `username u [privilege n] password x [privilege n] [role r]` (NX-OS, ASA,
    // EOS), a TACACS+ or RADIUS server's `key x` (after its ports and timeout); the type digit
    // (`0`, `7`, `5`…) is not the password. The value ends its line, as in a configuration, and a
    // word (`username or password incorrect`, `enable password authentication`) is a password only
    // in a configuration (`isDeviceConfigValue`).
    id: "cisco-password",
    kind: "secret",
    layer: "structure",
    needles: ["enable ", "username ", "-server "],
    pattern:
      /(?:^|\n|\\n)[ \t]*(?:[\w.-]+(?:\([\w-]+\))?#[ \t]*)?(?:enable[ \t]+(?:password|secret)|username[ \t]+(?!(?:and|or|and\/or|&)[ \t])\S+(?:[ \t]+privilege[ \t]+\d+)?[ \t]+(?:password|secret)|(?:tacacs|radius)-server[ \t]+(?:host[ \t]+\S+(?:[ \t]+(?:auth-port|acct-port|port|timeout|retransmit)[ \t]+\d+|[ \t]+single-connection)*[ \t]+)?key)(?:[ \t]+level[ \t]+\d+)?(?:[ \t]+\d(?=[ \t]))?[ \t]+([^\s"'(<[][^\s"']*)(?=(?:[ \t]+(?:privilege[ \t]+\d+|role[ \t]+[\w-]+|encrypted))*[ \t]*(?:\r?\n|\\[rn]|\r?$))/dg,
    group: 1,
    accept: (m, text) => isDeviceConfigValue(m[1] ?? "", text),
  },
  {
    // An SNMP community string, a password in all but name: `rocommunity x` (snmpd.conf),
    // `snmp-server community x RO` (Cisco IOS), `set snmp community "x"` (Junos).
    id: "snmp-community",
    kind: "secret",
    layer: "structure",
    needles: ["community"],
    pattern:
      /\b(?:r[ow]community6?|snmp-server community|set snmp community[ \t]+"?(?=[^\s"'#]+"?[ \t]*(?:$|\r?\n|\\n|[ \t](?:authorization|clients|client-list-name|view|routing-instance|logical-system)\b)))[ \t]*([^\s"'#]+)/dg,
    group: 1,
    accept: (m) => {
      const value = m[1] ?? "";
      return !isStandIn(value) && !isPlaceholder(value) && !/^(?:[A-Z_]+|[Yy]our[-_].*)$/.test(value);
    },
  },
  {
    // HPE ProCurve and Aruba switches: `password manager [user-name u] plaintext x`.
    id: "device-password",
    kind: "secret",
    layer: "structure",
    needles: ["plaintext "],
    pattern:
      /\bpassword[ \t]+(?:manager|operator|all)(?:[ \t]+user-name[ \t]+\S+)?[ \t]+plaintext[ \t]+(?:\\?"((?:[^"\\\r\n]|\\[^"\r\n])+)\\?"|([^\s"'`]+))/dg,
    group: [1, 2],
    // A quoted value, one holding a digit or a symbol, or a word that ends its line (`plaintext on
    // the wire` is prose).
    accept: (m, text) =>
      m[1] !== undefined ||
      /[^A-Za-z]/.test(m[2] ?? "") ||
      /^[ \t]*(?:$|\r?\n|\\[rn])/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 4)),
  },
  {
    // A `.pgpass` line, `host:port:database:user:password`: the password.
    id: "pgpass-password",
    kind: "secret",
    layer: "structure",
    needles: [":"],
    gate: /:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:/,
    pattern:
      /(?:(?<=^|[\s"'`])|(?<=\\n))(?=[^:\s]*[A-Za-z.*])[A-Za-z0-9.*_-]+:(?:\d{2,5}|\*):[^:\s"'`]+:[^:\s"'`]+:([^\s"'`]+?)(?=[\s"'`]|\\[nr]|$)/dg,
    group: 1,
    // Two digits are a time's minutes (`Sat:22:15-Sat:22:45`, a maintenance window), not a password.
    accept: (m) => !/^\d{1,2}$/.test(m[1] ?? ""),
  },
  {
    // `{SSHA}…`, `{SHA512}…`, `{PBKDF2}…` (LDAP userPassword), Jenkins' encrypted secrets
    // (`{AQAAABAAAAAQ…}`, in credentials.xml).
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: ["{"],
    pattern:
      /\{(?:S?SHA(?:256|384|512)?|S?MD5|CRYPT|PBKDF2(?:-SHA\d+)?|ARGON2|BCRYPT)\}[A-Za-z0-9+/.$=]{8,}|\{AQAAAB[A-Za-z0-9+/]{16,}={0,2}\}/dg,
  },
  {
    // NTLM pwdump lines (`user:1001:<LM hex>:<NT hex>:::`): both hashes.
    id: "password-hash",
    kind: "secret",
    layer: "structure",
    needles: [":::"],
    pattern: /:(?:[0-9a-fA-F]{32}|\*{32}):[0-9a-fA-F]{32}:::/dg,
  },
  {
    // A PuTTY private key file: the private lines and the MAC.
    id: "private-key",
    kind: "secret",
    layer: "structure",
    needles: ["Private-Lines:"],
    pattern:
      /Private-Lines:\s*\d+(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]+(?:\s|\\[nr])+)*?Private-(?:MAC|Hash):\s*[0-9a-fA-F]+/dg,
  },
  {
    // Bundler's per-host credentials (`BUNDLE_GEMS__EXAMPLE__COM=user:password`, in env files and
    // `.bundle/config`): the `user:password` after a host written as a variable name.
    id: "bundler-credentials",
    kind: "secret",
    layer: "structure",
    needles: ["BUNDLE_"],
    pattern:
      /\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+["']?[ \t]*[:=][ \t]*["']?([^\s"':]{1,256}:[^\s"']{1,256}?)["']?(?=[\s;&]|$)/dg,
    group: 1,
  },
  {
    // `.npmrc`'s per-registry credentials (`//registry.npmjs.org/:_authToken=t`, `//host/path/:_auth=
    // base64`, `:_password=base64`): whatever their value but a reference (`${NPM_TOKEN}`,
    // `${{ secrets.NPM_TOKEN }}`, `$env:NPM_TOKEN`, `<%= ENV['NPM_TOKEN'] %>`, `#{token}`) or a word
    // in parentheses (`(protected)`).
    id: "npmrc-credentials",
    kind: "secret",
    layer: "structure",
    needles: [":_auth", ":_password"],
    pattern: /\/\/[^\s"'`]{0,256}?:_(?:authToken|auth|password)[ \t]*=[ \t]*["']?([^\s"'`\\]{1,1024})/dg,
    group: 1,
    accept: (m) => !isStandIn(m[1] ?? "") && !/^(?:\$|<%|#\{|%\w)|^\(\w+\)$/.test(m[1] ?? ""),
  },
  {
    // `.netrc` / `_netrc`: `machine host login user password secret` (also `default … password`).
    id: "netrc-password",
    kind: "secret",
    layer: "structure",
    needles: ["password", "passwd"],
    gate: /\b(?:machine|default|login)\s/,
    // `default` opens a line, as in the file: prose says "the default password for the user".
    pattern:
      /(?:\bmachine\s+\S+|(?<=^|\n|\\n)[ \t]*default)(?:\s+(?:login|account)\s+\S+)*\s+pass(?:word|wd)\s+(\S+)/dg,
    group: 1,
  },
  {
    // Postfix's `sasl_passwd`: a relay host in brackets, its port, then `user:password`
    // (`[smtp.gmail.com]:587 alerts@gmail.com:app-password`), a line of the file or the string an
    // `echo` or Ansible's `line:` writes there; Gmail's app passwords are four groups of four.
    id: "netrc-password",
    kind: "secret",
    layer: "structure",
    needles: ["]:"],
    // Only beside mail: `[api.github.com]:443 status:completed` is a log line.
    gate: /sasl|postfix|postmap|relayhost|smtp|mail/i,
    pattern:
      /(?<=^|\n|\\n|["'])[ \t]*\[[\w.-]+\.[A-Za-z]{2,}\](?::\d{1,5})?[ \t]+[^\s:"']+:([a-z]{4}(?: [a-z]{4}){3}|[^\s"'\\]{4,256})(?=[ \t]*(?:$|\r?\n|\\?["'\\]))/dg,
    group: 1,
    accept: (m) => !isStandIn(m[1] ?? ""),
  },
  {
    // The same without brackets (`smtp.mailgun.org:587 user:password`, also valid), only where the
    // file is named: a host and a `name:value` after it are otherwise any log line.
    id: "netrc-password",
    kind: "secret",
    layer: "structure",
    needles: ["sasl_passwd"],
    pattern:
      /(?<=^|\n|\\n|["'])[ \t]*[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?::\d{1,5})?[ \t]+[^\s:"']+:([a-z]{4}(?: [a-z]{4}){3}|[^\s"'\\]{4,256})(?=[ \t]*(?:$|\r?\n|\\?["'\\]))/dg,
    group: 1,
    accept: (m) => !isStandIn(m[1] ?? ""),
  },
  {
    // A key written as its bytes in hex, under a key's name (`static const uint8_t fw_key[16] = {
    // 0xC8, … }`): the list is the key, however random its bytes look one by one.
    id: "key-bytes",
    kind: "secret",
    layer: "structure",
    needles: ["0x", "0X"],
    scan: (text, out, rule) => {
      for (const m of text.matchAll(HEX_BYTES)) {
        const [start, end] = m.indices?.[1] ?? [0, 0];
        const at = m.index ?? 0;
        if (KEY_DECLARATION.test(text.slice(Math.max(0, at - 100), at)))
          out.push({ start, end, rule: rule.id, kind: "secret" });
      }
    },
  },
  {
    // A value decoded on the command line (`echo 'U3ByaW5nMjAyNT8=' | base64 -d`, `base64 -d <<<
    // "…"`, inside `$(…)`): what is decoded there is a Secret's data or a credential being read
    // back, when it is one token of text.
    id: "decoded-argument",
    kind: "secret",
    layer: "structure",
    needles: ["base64"],
    pattern:
      /\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?(["']?)([A-Za-z0-9+/]{8,512}={0,2})\1[ \t]*\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b|\bbase64[ \t]+(?:-d|--decode|-D)[ \t]*<<<[ \t]*(["']?)([A-Za-z0-9+/]{8,512}={0,2})\3/dg,
    group: [2, 4],
    accept: (m) => isDecodedToken(m[2] ?? m[4] ?? ""),
  },
  {
    // SMTP's AUTH in a transcript (`openssl s_client`, `swaks`, a mail library's debug log): the
    // base64 of `\0user\0password` after `AUTH PLAIN`, and the client's line after the server's
    // `334 UGFzc3dvcmQ6` (base64 of `Password:`) in `AUTH LOGIN`.
    id: "smtp-auth",
    kind: "secret",
    layer: "structure",
    needles: ["AUTH PLAIN ", "UGFzc3dvcmQ6", "cGFzc3dvcmQ6"],
    pattern:
      /\bAUTH[ \t]+PLAIN[ \t]+([A-Za-z0-9+/]{8,}={0,2})|334[ \t]+(?:UGFzc3dvcmQ6|cGFzc3dvcmQ6)[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*(?:[A-Za-z]{1,3}:[ \t]*|[~<>-]{1,3}[ \t]*)?([A-Za-z0-9+/]{4,}={0,2})(?=[ \t]*(?:\r?\n|\\[rn]|$))/dg,
    group: [1, 2],
  },
  {
    // A browser's cookies as text (Playwright's `storageState`, a HAR file: `"cookies": [{"name":
    // "sid", "value": "x", …}]`): every cookie's value, whatever its name, as the kept-object rule
    // takes them.
    id: "cookie-list",
    kind: "secret",
    layer: "structure",
    needles: ['"cookies"', '\\"cookies\\"'],
    scan: (text, out, rule) => {
      for (const m of text.matchAll(COOKIE_LIST))
        out.push(...cookieValues(text, m.index + m[0].length, rule.id));
    },
  },
  {
    // A webhook's URL holds its own credential: whoever has it can post (Zapier's
    // `hooks.zapier.com/hooks/catch/5829104/3kx9fq2/`, n8n's `/webhook/<uuid>/chat`, Discord's
    // `/api/webhooks/<id>/<token>`, `webhook.site/<uuid>`). The path's segments after a hook's
    // segment, or after a hook's host, are the key where they look made (a UUID, letters and
    // digits mixed, Zapier's key after its account's number); a hook's number (GitHub's
    // `hooks/12345`), a word or a source file (`src/hooks/useAuth2.ts`) is not.
    id: "webhook-url",
    kind: "secret",
    layer: "structure",
    needles: ["hook"],
    scan: (text, out, rule) => {
      for (const m of text.matchAll(HOOK_PATH)) {
        const tail = m[1] ?? "";
        if (!inUrl(text, m[0].startsWith("//") ? m.index + 2 : m.index)) continue;
        let at = m.indices?.[1]?.[0] ?? m.index;
        const parts = tail.split("/");
        for (let k = 0; k < parts.length; k++) {
          const part = parts[k] as string;
          const zapier = k >= 2 && parts[k - 2] === "catch" && /^\d+$/.test(parts[k - 1] ?? "");
          if (part.length >= 6 && (isHookKey(part) || (zapier && /^[a-z0-9]{6,8}$/.test(part))))
            out.push({ start: at, end: at + part.length, rule: rule.id, kind: "secret" });
          at += part.length + 1;
        }
      }
    },
  },
  {
    // Redis' ACL rules (`users.acl`, `ACL SETUSER`, `user` in redis.conf): `>password` adds a
    // password in the clear, after the user's name and its other rules (`on`, `~keys:*`, `+@all`);
    // after `user` at least one of them, or `grep user file >out` would be one.
    id: "redis-acl-password",
    kind: "secret",
    layer: "structure",
    needles: [" >"],
    pattern:
      /(?<![\w-])(?:(?:SETUSER|setuser)[ \t]+[^\s<>]+(?:[ \t]+(?:on|off|reset\w*|nopass|all\w+|nocommands|[~%&+#<-][^\s]*))*|user[ \t]+[^\s<>]+(?:[ \t]+(?:on|off|reset\w*|nopass|all\w+|nocommands|[~%&+#<-][^\s]*))+)[ \t]+>([^\s"'\\]{1,256})/dg,
    group: 1,
    accept: (m) => !isStandIn(m[1] ?? ""),
  },
  {
    // CouchDB's `[admins]` section (`local.ini`, a container's `docker.ini`): each `name = password`
    // up to the next section.
    id: "netrc-password",
    kind: "secret",
    layer: "structure",
    needles: ["[admins]"],
    // Only CouchDB's: another program's `[admins]` lists people (`users = alice, bob`).
    gate: /couch|chttpd/i,
    scan: (text, out, rule) => {
      for (const m of text.matchAll(ADMINS_SECTION)) {
        const from = (m.index ?? 0) + m[0].length;
        const to = text.slice(from).search(/\n[ \t]*\[/);
        const section = text.slice(from, to < 0 ? text.length : from + to);
        for (const e of section.matchAll(INI_ENTRY)) {
          const [s, end] = e.indices?.[1] ?? [0, 0];
          if (end - s >= 4 && !isStandIn(section.slice(s, end)))
            out.push({ start: from + s, end: from + end, rule: rule.id, kind: "secret" });
        }
      }
    },
  },
  {
    // An Ansible Vault (a file, or a `!vault |` value): `$ANSIBLE_VAULT;1.1;AES256[;label]`, then
    // lines of hex ciphertext. Its key comes from a password (PBKDF2), so the body is cracked
    // offline like a password hash.
    id: "ansible-vault",
    kind: "secret",
    layer: "structure",
    needles: ["$ANSIBLE_VAULT;"],
    pattern:
      /\$ANSIBLE_VAULT;\d+\.\d+;[A-Z0-9]+(?:;[\w.-]*)?[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*([0-9a-fA-F]{16,}(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*[0-9a-fA-F]+)*)/dg,
    group: 1,
  },
  {
    // A wallet's recovery phrase (BIP-39) under a name that says so (`mnemonic`, `seed_phrase`,
    // `Recovery phrase:`): 12 to 24 words of the list, whatever their checksum (a phrase typed
    // with a word changed still names a wallet's words).
    id: "seed-phrase",
    kind: "secret",
    layer: "structure",
    needles: [
      "mnemonic",
      "seed",
      "phrase",
      "words",
      "Mnemonic",
      "Seed",
      "Phrase",
      "Words",
      "MNEMONIC",
      "SEED",
      "PHRASE",
      "WORDS",
    ],
    gate: TWELVE_WORDS,
    pattern:
      /(?:[Mm]nemonic|MNEMONIC|(?:[Ss]eed|SEED)(?:[ _-]?(?:[Pp]hrase|[Ww]ords|PHRASE|WORDS))?|(?:[Rr]ecovery|[Bb]ackup|[Ss]ecret|RECOVERY|BACKUP|SECRET)[ _-]?(?:[Pp]hrase|[Ww]ords|PHRASE|WORDS))\w*(?:\\?["'])?[ \t]*(?:[:=]|\bis\b)[ \t]*(?:\\?["'`])?((?:[a-z]{3,8} ){11,23}[a-z]{3,8})(?![a-z])/dg,
    group: 1,
    accept: (m) => isPhraseOfListWords(m[1] ?? ""),
  },
  {
    // A recovery phrase standing alone (`cast wallet new-mnemonic`, `solana-keygen new` print one
    // under a line of their own): its checksum must hold.
    id: "seed-phrase",
    kind: "secret",
    layer: "structure",
    gate: TWELVE_WORDS,
    scan: scanSeedPhrases,
  },
];

/** Lines only a network device's configuration holds (`hostname R1`, `interface Gi0/1`, `line vty 0 4`, `!`). */
const DEVICE_CONFIG =
  /(?:^|\n|\\n|["'])[ \t]*(?:hostname[ \t]+\S+|interface[ \t]+\S+|line[ \t]+(?:vty|con|aux)\b|!|end|[\w.-]+\(config[\w-]*\)#.*)[ \t]*(?=\r?\n|\\[rn]|$)/;

/**
 * Is `value`, set as a device's password, one? Not a stand-in (`{{ enable_secret }}`, `%s`,
 * `$PASS`); a word of letters alone only where the text is a device's configuration (prose ends
 * with words: `username or password incorrect`).
 */
function isDeviceConfigValue(value: string, text: string): boolean {
  if (isStandIn(value) || /^(?:[%$]|\{\{)/.test(value) || /[.,;:]$/.test(value)) return false;
  return !/^[a-z]+$/i.test(value) || DEVICE_CONFIG.test(text);
}

/** Does `value` decode from base64 to one token of printable ASCII (a password, a key)? */
function isDecodedToken(value: string): boolean {
  const decoded = Buffer.from(value, "base64").toString("latin1");
  return decoded.length >= 6 && /^[\x21-\x7e]+$/.test(decoded);
}

/** A cookie list's start, raw or escaped in a JSON string. */
const COOKIE_LIST = /\\?"cookies\\?"[ \t]*:[ \t]*\[/g;
/** A cookie's value member inside the list (group 1). */
const COOKIE_VALUE = /\\?"value\\?"[ \t]*:[ \t]*\\?"((?:[^"\\\r\n]|\\[^"\r\n]){1,4096}?)\\?"/dg;

/** The values of the cookies in the list that starts at `from`, but empty ones and stand-ins. */
function cookieValues(text: string, from: number, rule: string): Detection[] {
  const list = text.slice(from, listEnd(text, from));
  return [...list.matchAll(COOKIE_VALUE)]
    .map((v): [number, number] => v.indices?.[1] ?? [0, 0])
    .filter(([s, e]) => e - s >= 4 && !isStandIn(list.slice(s, e)))
    .map(([s, e]) => ({ start: from + s, end: from + e, rule, kind: "secret" as const }));
}

/** Where the list opened before `from` closes (its `]` at depth 0), within 64 KiB. */
function listEnd(text: string, from: number): number {
  let depth = 0;
  const stop = Math.min(text.length, from + 65_536);
  for (let i = from; i < stop; i++) {
    const c = text[i];
    if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return stop;
}

/**
 * A hook's segment (`/hooks/`, `/webhook/`) or a hook's host (`webhook.site/`, `hooks.zapier.com/`),
 * then up to five segments of the path (group 1).
 */
const HOOK_PATH =
  /(?:\/(?:hooks?|webhooks?|webhookb2|webhook-test)|\/\/[\w-]*hooks?\.[\w.-]+)\/((?:[\w-]+\/){0,4}[\w-]+)\/?(?=[\s"'`<>?#)\]},;|\\]|$)/dg;

/** A UUID, or a run of letters and digits mixed (`3kx9fq2`, `aB3kQ9xZ`) that names no thing. */
function isHookKey(segment: string): boolean {
  if (UUID.test(segment)) return true;
  return (
    /[A-Za-z]/.test(segment) &&
    /\d/.test(segment) &&
    // Words and a version or a number (`useAuth2`, `hook-v1`, `release-2024`, `v1beta1`), a
    // constant's name (`SLACK_ALERTS2`), an id in hex (Sentry's `a1b2c3d4e5f6`, a 24-digit object
    // id) or typed by its prefix (Stripe's `we_1Mr5jULk…`, Vercel's `account_hook_GflD…`) name a thing.
    !/^(?:[a-z]+(?:[A-Z][a-z]+)+\d{0,4}|[A-Za-z]+(?:[-_][A-Za-z]+)*[-_]v?\d{1,4}|v\d+(?:(?:alpha|beta)\d*)?|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[\da-f]+|[a-z]+(?:_[a-z]+)*_[A-Za-z0-9]{8,})$/.test(
      segment,
    ) &&
    !isPlaceholder(segment)
  );
}

/** Is `at` inside a URL: a run of non-blank characters before it holding a scheme or a host? */
function inUrl(text: string, at: number): boolean {
  let s = at;
  while (s > 0 && at - s < 512 && !/[\s"'`<>(]/.test(text[s - 1] ?? "")) s--;
  const run = text.slice(s, at);
  return run.includes("://") || /^[\w-]+(?:\.[\w-]+)+$/.test(run.split("/")[0] ?? "");
}
