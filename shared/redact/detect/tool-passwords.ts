/**
 * The password arguments of common command-line tools, which no credential word names: `sshpass -p x`,
 * `redis-cli -a x`, `ldapsearch -w x`, `zip -P x`, `7z -px`, `smbclient -U user%x`, `sqlplus user/x@db`,
 * `echo x | sudo -S`, `ConvertTo-SecureString "x" -AsPlainText`. A trace's commands are where an agent
 * types them. Each form is read only after its own tool's name, in the same command (no `|`, `;`, `&`
 * or line break between), so `curl -w` or `grep -P` are never read as a password.
 */
import type { Detection, PatternRule } from "../rule-types.js";
import { groupValues } from "./group-values.js";

/** A flag's value: a quoted string or a bare word up to a blank or a shell operator. */
const VALUE = String.raw`("[^"\r\n]+"|'[^'\r\n]+'|[^\s"'|;&<>]+)`;

/**
 * A tool's form: the literals one of which its text must hold (case-sensitive) and one it must
 * hold besides (`requires`), and either one pattern (the value its group 1) or a tool's name and
 * the flags read in the rest of its command.
 */
type Form = { needles: readonly string[]; requires?: string } & (
  | { pattern: RegExp }
  | { tool: RegExp; flag: RegExp }
);

/**
 * A tool (`names`, an alternation; `.exe` allowed) and the form before each password in its
 * command. Flags are case-sensitive (`snmpwalk -a SHA` is a protocol, `-A x` a passphrase); the
 * names and flags of Windows commands are not (`caseless`).
 */
function toolForm(
  needles: readonly string[],
  names: string,
  before: string,
  options: { caseless?: boolean; positional?: boolean } = {},
): Form {
  const i = options.caseless === true ? "i" : "";
  return {
    needles,
    tool: new RegExp(String.raw`(?:^|[\s"'(/\\])(?:${names})(?:\.exe)?(?= )`, `g${i}`),
    // A positional form is read right after the tool's name, a flag anywhere in its command.
    flag:
      options.positional === true
        ? new RegExp(String.raw`\s+(?:${before})${VALUE}`, `dy${i}`)
        : new RegExp(String.raw`(?<=\s)(?:${before})${VALUE}`, `dg${i}`),
  };
}

/** Where the command starting at `from` ends: an unquoted `|`, `;` or `&`, or a line break. */
function commandEnd(text: string, from: number): number {
  let quote = "";
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\n" || c === "\r") return i;
    if (quote !== "") {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "|" || c === ";" || c === "&") return i;
  }
  return text.length;
}

/** `ansible-vault encrypt_string`'s long options that take an argument (`-n` is `--name`). */
const VAULT_OPTIONS = "name|stdin-name|vault-id|vault-password-file|vault-pass-file|encrypt-vault-id|output";

/** Impacket's scripts and the tools that take its `domain/user:password@host` target. */
const IMPACKET_TOOLS = [
  "impacket",
  "psexec",
  "wmiexec",
  "smbexec",
  "atexec",
  "dcomexec",
  "secretsdump",
  "mssqlclient",
  "lookupsid",
  "samrdump",
  "rpcdump",
  "getTGT",
  "getST",
  "GetUserSPNs",
  "GetNPUsers",
  "GetADUsers",
  "addcomputer",
  "changepasswd",
  "netexec",
  "crackmapexec",
  "evil-winrm",
];

/** `net use` and `net user` as Windows users type them (the forms read them in any case). */
const NET_USE = ["net use", "NET USE", "Net use", "Net Use"];
const NET_USER = ["net user", "NET USER", "Net user", "Net User"];

/**
 * `echo`/`printf` before the value it prints (`echo -n`, `printf '%s\n'`): the value follows. Also
 * read by the printed-secret rule (`echo $DB_PASSWORD`).
 */
export const ECHOED = String.raw`\b(?:echo|printf)\s+(?:-[en]+\s+)?(?:'%s(?:\\n)?'\s+|"%s(?:\\n)?"\s+)?`;

/**
 * Tools that read a secret from their standard input, piped (`echo p | …`) or as a here-string
 * (`… <<< p`): `sudo -S`, `passwd --stdin`, a registry's `login --password-stdin`, `gh auth login
 * --with-token`, a secret store's `create`/`put`/`add`/`set`/`insert`/`store-secret` (`gh secret
 * set NAME` without `--body`, `glab variable set`, `pass`/`gopass insert`, `doppler secrets set`,
 * `ansible-vault encrypt_string --stdin-name`), `gpg
 * --passphrase-fd 0`, `kinit`, `smbpasswd`.
 */
const STDIN_READERS = String.raw`sudo\s+(?:-\w+\s+)*-S\b|passwd\s+--stdin|(?:docker|podman|helm|buildah|skopeo|oras|crane)\s+(?:registry\s+)?login\b[^\r\n|;&]{0,256}--password-stdin|gh\s+auth\s+login\b[^\r\n|;&]{0,256}--with-token|gcloud\s+secrets\s+(?:create|versions\s+add)\b[^\r\n|;&]{0,256}--data-file[= ]-(?!\S)|(?:npx\s+)?(?:wrangler\s+secret\s+put|vercel\s+env\s+add|docker\s+secret\s+create)\b|gh\s+secret\s+set\b|glab\s+variable\s+(?:set|create)\b|(?:go)?pass\s+(?:insert|add|create)\b|ansible-vault\s+encrypt_string\b[^\r\n|;&]{0,256}--stdin-name\b|doppler\s+secrets\s+set\b|gpg2?\b[^\r\n|;&<]{0,256}--passphrase-fd[= ]0\b|circleci\s+context\s+store-secret\b|kinit\b|smbpasswd\b`;

/** One of those tools, in the same command, then `<<<`: its here-string follows. */
const HERE_STRING = String.raw`\b(?:${STDIN_READERS})[^\r\n|;&<]{0,256}<<<[ \t]*`;

const FORMS: readonly Form[] = [
  toolForm(["sshpass "], "sshpass", String.raw`-p\s*`),
  toolForm(["redis-cli"], "redis-cli", String.raw`(?:-a|--pass)[\s=]+`),
  toolForm(
    ["keytool", "jarsigner"],
    "keytool|jarsigner",
    String.raw`-(?:src|dest)?(?:store|key)pass\s+|-new\s+`,
  ),
  toolForm(["ldap"], "ldap(?:search|add|modify|delete|whoami|compare|modrdn|exop)", String.raw`-w\s+`),
  toolForm(["ldappasswd"], "ldappasswd", String.raw`-[ws]\s+`),
  toolForm(["zip ", "zip.exe "], "zip|unzip|zipcloak|funzip", String.raw`-P\s+`),
  toolForm(
    ["7z ", "7za ", "7zr ", "7zz ", "7z.exe ", "7za.exe "],
    "7z|7za|7zr|7zz",
    String.raw`-p(?=[^\s-])`,
  ),
  toolForm(
    ["rar ", "rar.exe", "RAR ", "RAR.exe", "WinRAR"],
    "rar|unrar|winrar|RAR|UNRAR|WinRAR",
    String.raw`-h?p(?=[^\s-])`,
  ),
  toolForm(["openssl "], "openssl", String.raw`-k\s+|-pass(?:in|out)?\s+pass:`),
  // A key's passphrase: new (`-N`) and old (`-P`); `-N ''` (none) is an empty value, left alone.
  toolForm(["ssh-keygen"], "ssh-keygen", String.raw`-[NP]\s*`),
  toolForm(["freerdp"], "[a-z]*freerdp[0-9]*", "[/+-]p:"),
  {
    // Samba's `user%password` (smbclient, rpcclient, smbmap, mount.cifs, winexe, net rpc).
    needles: ["-U", "--user"],
    requires: "%",
    pattern: /(?:^|\s)(?:-U\s*|--user(?:name)?=)["']?[^\s%"'|;&]+%([^\s"'|;&<>]+)/dg,
  },
  toolForm(NET_USE, "net use", String.raw`/user:\S+\s+(?!/)`, {
    caseless: true,
  }),
  // `net use [X:] \\server\share password`: the password right after the share.
  toolForm(NET_USE, String.raw`net use(?:\s+[A-Za-z]:)?\s+\\\\[^\s]+`, "(?![/*])", {
    caseless: true,
    positional: true,
  }),
  toolForm(NET_USER, String.raw`net user\s+[^\s/]+`, "(?![/*])", {
    caseless: true,
    positional: true,
  }),
  toolForm(["cmdkey", "CMDKEY"], "cmdkey", "/pass(?:word)?:", { caseless: true }),
  toolForm(["schtasks", "SCHTASKS"], "schtasks", String.raw`/RP\s+`, { caseless: true }),
  toolForm(["snmp"], "snmp[a-z]*", String.raw`-[cAX]\s*`),
  toolForm(["wpa_passphrase"], "wpa_passphrase", String.raw`(?:"[^"]*"|'[^']*'|[^\s"']+)\s+`, {
    positional: true,
  }),
  toolForm(["security "], "security", String.raw`-w\s+`),
  toolForm(["nmcli"], "nmcli", String.raw`(?:wifi-sec\.psk|password)\s+`),
  // `rabbitmqctl add_user u p`, `change_password u p`; MinIO's `mc alias set name url access secret`.
  toolForm(["rabbitmqctl"], String.raw`rabbitmqctl\s+(?:add_user|change_password)\s+[^\s|;&]+`, "", {
    positional: true,
  }),
  toolForm(["mc "], String.raw`mc\s+(?:alias\s+set|config\s+host\s+add)(?:\s+[^\s|;&]+){3}`, "", {
    positional: true,
  }),
  // HTTPie's `http -a user:password` (curl's `-u` is a rule of its own).
  toolForm(["http ", "https "], "http|https", String.raw`(?:-a|--auth)[\s=]+["']?[^\s:"']+:`),
  {
    // Oracle's `user/password[@db]` (`sqlplus scott/tiger@orcl`, `rman target sys/x@db`).
    needles: ["sqlplus", "sqlldr", "exp ", "imp ", "expdp", "impdp", "rman ", "dgmgrl", "SQLPLUS"],
    pattern:
      /(?:^|[\s"'(/\\])(?:(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|SQLPLUS)(?:\.exe)?|exp|imp)\s+(?:(?:target|auxiliary|catalog|-\w+)\s+)*["']?[\w$#]+\/([^\s/@"']+)/dg,
  },
  {
    // Impacket's and its kin's targets: `domain/user:password@host`.
    requires: "@",
    needles: IMPACKET_TOOLS,
    pattern: new RegExp(
      String.raw`(?:^|\s)(?:impacket-\w+|(?:${IMPACKET_TOOLS.join("|")})(?:\.py)?)\b[^\r\n|;&]{0,256}?\s['"]?(?:[\w.-]+\/)?[\w.$-]+:([^\s@'"]+)@[\w.-]+`,
      "dg",
    ),
  },
  {
    // PowerShell reads its names in any case (`convertto-securestring "x" -asplaintext`).
    needles: ["SecureString", "securestring", "SECURESTRING", "Securestring"],
    pattern:
      /ConvertTo-SecureString\b(?=[^\r\n|;]{0,256}-AsPlainText)[^\r\n|;"']{0,256}?(?:-String\s+)?("[^"\r\n]+"|'[^'\r\n]+')/dgi,
  },
  {
    // A password piped to a tool that reads it from its input (`sudo -S`, `docker login
    // --password-stdin`, a secret store's `put`/`add`/`create` from standard input).
    needles: [
      "|sudo",
      "| sudo",
      "passwd --stdin",
      "--password-stdin",
      "--with-token",
      "--data-file",
      "secret put",
      "env add",
      "secret create",
      "store-secret",
      "secret set",
      "variable set",
      "variable create",
      "pass insert",
      "pass add",
      "pass create",
      "--stdin-name",
      "secrets set",
      "passphrase-fd",
      "kinit",
      "smbpasswd",
    ],
    requires: "|",
    pattern: new RegExp(
      String.raw`${ECHOED}("[^"\r\n]+"|'[^'\r\n]+'|[^\s"'|;&<>]+)\s*\|\s*(?:${STDIN_READERS})`,
      "dg",
    ),
  },
  {
    // `echo 'u:p' | chpasswd`, and `echo -n 'u:p' | base64` (a Basic credential being made); not
    // a host and its port (`echo localhost:8080 | base64`).
    needles: ["chpasswd", "base64"],
    requires: "|",
    pattern:
      /\b(?:echo|printf)\s+(?:-[en]+\s+)?["']?[^\s:"']+:(?!\d+["']?\s*\|\s*base64)([^\s"'|]+)["']?\s*\|\s*(?:(?:sudo\s+)?chpasswd|base64)\b/dg,
  },
  {
    // SQL's `CREATE USER u IDENTIFIED BY 'p'`, `ALTER USER … IDENTIFIED WITH plugin BY 'p'`,
    // `GRANT … IDENTIFIED BY p` (MySQL, Oracle: also unquoted), in one statement.
    needles: ["IDENTIFIED", "identified", "Identified"],
    pattern:
      /\b(?:(?:create|alter)\s+(?:user|role|login)|grant)\b[^;\r\n]{0,256}?\bidentified\s+(?:with\s+\w+\s+)?by\s+(?:password\s+)?('[^'\r\n]+'|"[^"\r\n]+"|[^\s'";,)]+)/dgi,
  },
  {
    // The same tools fed a here-string (`cmd … <<< "p"`).
    needles: ["<<<"],
    pattern: new RegExp(String.raw`${HERE_STRING}("[^"\r\n]+"|'[^'\r\n]+'|[^\s"'|;&<>]+)`, "dg"),
  },
  {
    // A here-string in Bash's `$'…'` quotes, up to its first `\n` (`smbpasswd -s -a u <<<
    // $'p\np'` gives the password twice, as the tool asks for it).
    needles: ["<<< $'", "<<<$'"],
    pattern: new RegExp(String.raw`${HERE_STRING}\$'((?:[^'\\\r\n]|\\[^n\r\n])+)`, "dg"),
  },
  // `gh secret set NAME --body x` (`-b x`, `-b"x"`).
  toolForm(
    ["gh secret", "gh  secret"],
    String.raw`gh\s+secret\s+set`,
    String.raw`(?:-b|--body)(?:[= ]|(?=["']))\s*`,
  ),
  {
    // An `expect` script's or pexpect's answer to a password prompt (`expect "password:"⏎send
    // "p\r"`, `expect "*assword:*" { send "p\n" }`, `expect "[Pp]assword:"`,
    // `child.expect('Password: ')`, `child.sendline('p')`): what it sends next. A prompt ends in
    // `:` or says whose password it asks for (`'Password changed'` is a message).
    needles: ["assword", "assphrase", "ASSWORD"],
    requires: "send",
    pattern:
      /\bexpect\w*[ \t]*\(?[ \t]*(?:-\w+[ \t]+)?\[?[ \t]*[rbu]?["'][^"'\r\n]{0,60}(?:(?:\[Pp\]|\(P\|p\)|[Pp*])?ass(?:word|phrase)|PASS(?:WORD|PHRASE))(?:[ \t]+for[^"'\r\n:]{1,60}:?|:)[^"'\r\n]{0,4}["'](?:[ \t]*,[^\]\r\n]{0,40}\])?[ \t]*\)?[ \t;{]*(?:\r?\n[ \t]*)?(?:[\w.]+\.)?(?:exp_)?send(?:line)?[ \t]*\(?[ \t]*(?:--[ \t]+)?["']((?:[^"'\\\r\n]|\\[^rn\r\n])+)(?:\\[rn])*["']/dg,
  },
  {
    // lftp's user and password as one argument (`lftp -u user,pass host`, `open -u user,'pass'`).
    needles: ["lftp"],
    pattern:
      /\b(?:lftp|open)\b(?:[^\r\n|;&"']|"[^"\r\n]*"|'[^'\r\n]*'){0,256}?\s-u[ \t]+["']?[^\s,"']+,("[^"\r\n]+"|'[^'\r\n]+'|[^\s"',|;&<>]+)/dg,
  },
  {
    // A GitHub Actions workflow command that masks a value in the log: the value is a secret.
    needles: ["::add-mask::"],
    pattern: /::add-mask::("[^"\r\n]+"|'[^'\r\n]+'|[^\s"']+)/dg,
  },
  // Tools that hash or obscure a password given on their command line: `openssl passwd [-6] [-salt
  // s] p`, `mkpasswd [-m method] p`, `rclone obscure p`, `caddy hash-password --plaintext p`,
  // `doveadm pw -p p`. The password is their first argument that is no option.
  toolForm(
    ["openssl passwd", "mkpasswd", "rclone obscure"],
    String.raw`openssl\s+passwd|mkpasswd|rclone\s+obscure`,
    // Options, those that take an argument (`-salt s`, `-in file`, `-m method`) with it.
    String.raw`(?:-(?:salt|in|m|S|R|P|-method|-salt|-rounds)[\s=]+[^\s|;&]+\s+|-(?!(?:salt|in|m|S|R|P)(?![\w-]))[\w-]+(?:=[^\s|;&]+)?\s+)*(?!-)`,
    { positional: true },
  ),
  // `ansible-vault encrypt_string [options] p --name n`: the string it encrypts is a secret.
  toolForm(
    ["encrypt_string"],
    String.raw`ansible-vault\s+encrypt_string`,
    String.raw`(?:(?:-n|--(?:${VAULT_OPTIONS}))[\s=]+[^\s|;&]+\s+|-(?!n(?![\w-])|-(?:${VAULT_OPTIONS})(?![\w-]))[\w-]+\s+)*(?!-)`,
    { positional: true },
  ),
  toolForm(["caddy hash-password"], String.raw`caddy\s+hash-password`, String.raw`(?:-p|--plaintext)[\s=]+`),
  toolForm(["doveadm pw"], String.raw`doveadm\s+pw`, String.raw`-p\s+`),
  {
    // `htpasswd -b[c] file user password`, `htpasswd -nb user password`: the last argument.
    needles: ["htpasswd"],
    pattern:
      /\bhtpasswd\s+-\w*b\w*\s+(?:[^\s|;&]+\s+)*?("[^"\r\n]+"|'[^'\r\n]+'|[^\s"'|;&<>]+)(?=[ \t]*(?:$|[\r\n|;&]))/dg,
  },
];

/**
 * A value that stands for one (a variable, Tcl's `$env(PASS)` and `[exec …]`, a prompt, a file), or the next flag
 * where none was given.
 */
const NOT_A_VALUE =
  /^(?:\$\{?[A-Za-z_]\w*\}?|\$[A-Za-z_]\w*\([\w,]*\)|\[.*\]|\$\(.*|%\w+%|\$env:\w+|env:\w+|file:.*|-.*|\*|<[^<>]*>|\.{3})$/i;

/** A value's quotes. */
const QUOTE = /["']/;

/** Appends `text[start, end)` unless it stands for a value rather than being one. */
function push(text: string, start: number, end: number, out: Detection[], rule: string): void {
  if (end - start < 2 || NOT_A_VALUE.test(text.slice(start, end))) return;
  out.push({ start, end, rule, kind: "secret" });
}

/** Appends the password arguments of the tools above in `text`. */
export function scanToolPasswords(text: string, out: Detection[], rule: string): void {
  for (const form of FORMS) {
    if (form.needles.some((n) => text.includes(n))) scanForm(form, text, out, rule);
  }
}

/** Appends the password arguments of one form in `text` (which holds one of its needles). */
function scanForm(form: Form, text: string, out: Detection[], rule: string): void {
  if (form.requires !== undefined && !text.includes(form.requires)) return;
  if ("pattern" in form) {
    for (const v of groupValues(form.pattern, text, QUOTE)) push(text, v.start, v.end, out, rule);
    return;
  }
  form.tool.lastIndex = 0;
  for (let t = form.tool.exec(text); t !== null; t = form.tool.exec(text)) {
    const from = t.index + t[0].length;
    const end = commandEnd(text, from);
    // The tool named again in the same command is read with it (each command read once).
    form.tool.lastIndex = end;
    for (const v of groupValues(form.flag, text.slice(from, end), QUOTE)) {
      push(text, from + v.start, from + v.end, out, rule);
      if (form.flag.sticky) break;
    }
  }
}

/**
 * The rule `id`, one rule a form, in the forms' order: each form's needles are looked for in the
 * scrubber's one pass over a text with every other rule's, where one rule for all forms searched
 * the text once per needle of every form (about seventy) when any one stood in it.
 */
export function toolPasswordRules(id: string): PatternRule[] {
  return FORMS.map((form) => ({
    id,
    kind: "secret",
    layer: "context",
    needles: form.needles,
    scan: (text, out, rule) => scanForm(form, text, out, rule.id),
  }));
}
