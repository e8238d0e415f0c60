/**
 * The `context` layer: a value is a credential because of the name it is given to. Any value
 * assigned or passed to a name whose words end in a credential word (key, token, secret,
 * password, auth, credential, cookie, signature, …), in the syntaxes a trace carries: `=`, `:`,
 * `=>`, `:=`, YAML, env files, XML elements and attributes, CLI flags (`--token x`, `-Password
 * x`, `-H "X-Api-Key: x"`), call arguments (`NetworkCredential("u", "p")`), prose (`the
 * password is "x"`, `Your ACME key is x`). A low-entropy password is still a password: the
 * value is redacted whatever its form, unless it is a reference or a placeholder.
 */

import { remembered } from "../../memo.js";
import {
  isAuthSchemeWord,
  isPasswordStandIn,
  isPlaceholder,
  isSampleValue,
  isStandIn,
} from "../rule-helpers.js";
import type { Detection, PatternRule } from "../rule-types.js";
import { nextLineStart } from "../text-lines.js";
import { ARROW_NEEDLES, scanArrowValues } from "./arrow-values.js";
import {
  ALIGNED_TABLE_NEEDLES,
  CREDENTIAL_COLUMN_NEEDLES,
  scanAlignedTables,
  scanCredentialColumns,
} from "./credential-columns.js";
import {
  ASCII_PASSWORD_WORDS,
  credentialName,
  FAKE_NAME,
  isNameChar,
  isTypedPlaceholder,
  nameWords,
  OTHER_LANGUAGE_PASSWORDS,
  type Strength,
  wordStrength,
} from "./credential-names.js";
import { FORM_FILL_NEEDLES, scanFormFills } from "./form-fills.js";
import { FORMAT_NEEDLES, scanFormatArguments } from "./format-arguments.js";
import { groupValues } from "./group-values.js";
import { INTERPRETER_NEEDLES, scanInterpreterEchoes } from "./interpreter-echoes.js";
import { commandCallKeys, isAlgorithmName, keyArguments, keyPlaceOf, wrappedLiteral } from "./keyed-calls.js";
import { LABELLED_LINE_NEEDLES, scanLabelledLines } from "./labelled-lines.js";
import { PRINTED_SECRET_NEEDLES, scanPrintedSecrets } from "./printed-secrets.js";
import { looksGenerated, ORDERED_RUN, UUID } from "./randomness.js";
import { RECOVERY_CODE_NEEDLES, scanRecoveryCodes } from "./recovery-codes.js";
import { toolPasswordRules } from "./tool-passwords.js";

/**
 * `credentialName`, remembered: the same names (`max_tokens`, `session_id`, `api_key`) recur on
 * every line of a trace, and reading one into words is most of a miss's cost.
 */
const strengthOfName = remembered(credentialName, 64, 4096);

const SPACE = /[ \t]/;

/** Where a value starts and ends, and how it was introduced. */
interface Value {
  start: number;
  end: number;
  quoted: boolean;
  /** Introduced by white space alone or by prose (`is`), not by an assignment sign. */
  loose: boolean;
  /** The second of a user and a password (`auth=("bob", "x")`): a password by where it stands. */
  paired?: boolean;
  /** A field that holds the named value (`"value": x`, a parameter's `Default: x`): no prose. */
  field?: boolean;
  /** A literal compared with the name (`password == "x"`). */
  compared?: boolean;
}

/**
 * Closing quote for an opening one at `text[at]`: `\"` in escaped JSON counts as one, and so does
 * `\\\"` in JSON escaped twice (a tool's output that prints an escaped document), at any depth.
 */
function quoteAt(text: string, at: number): string | undefined {
  const c = text[at];
  if (c === '"' || c === "'" || c === "`") return c;
  if (c !== "\\") return undefined;
  let end = at;
  while (text[end] === "\\" && end - at < 16) end++;
  // An odd run escapes the quote (`\"`, `\\\"`); an even one escapes itself (`C:\\"` ends a path).
  return text[end] === '"' && (end - at) % 2 === 1 ? text.slice(at, end + 1) : undefined;
}

/**
 * The value an assignment gives, starting at `s`: a literal, a literal a call makes bytes, decodes
 * (`key = bytes.fromhex("…")`, `secret = Buffer.from("…")`) or makes a SecureString, or a bare
 * word; none for a prompt read (`Read-Host "Password"`).
 */
function assignedValue(text: string, at: number): Value | undefined {
  // YAML's anchor and tags before a scalar (`password: &db x`, `token: !!str x`), a properties
  // file's line continuation (`api.secret=\\⏎    x`).
  // Speed only: each lead starts with one of `&!\`, each inner form with `{`.
  const s = /[&!\\]/.test(text[at] ?? "")
    ? at + (VALUE_LEAD.exec(text.slice(at, at + 80))?.[0].length ?? 0)
    : at;
  // A template's literal piped on (Helm's `{{ "x" | b64enc }}`), an object holding the value
  // (Terraform's output `{"sensitive":true,…,"value":"x"}`): the literal.
  if (text[s] === "{") {
    const head = text.slice(s, s + 300);
    const inner = TEMPLATE_LITERAL.exec(head) ?? HELD_VALUE.exec(head);
    if (inner?.indices?.[1] !== undefined) {
      const [is, ie] = inner.indices[1];
      return { start: s + is, end: s + ie, quoted: true, loose: false };
    }
  }
  const cmdlet = CMDLET_VALUE.exec(text.slice(s, s + 48));
  if (cmdlet !== null) return cmdlet[1] === undefined ? undefined : quoted(text, s + cmdlet[0].length, false);
  const wrapped = wrappedLiteral(text, s);
  if (wrapped !== undefined) return { start: wrapped[0], end: wrapped[1], quoted: true, loose: false };
  const prefix = STRING_PREFIX.exec(text.slice(s, s + 4))?.[0];
  if (prefix !== undefined) {
    const v = prefixedLiteral(text, s + prefix.length, prefix);
    // An interpolating prefix with a field is code (`f"{base}-key"`, C#'s `$"{host}"`); a literal
    // repeated is a fill (`b"\x00" * 32`).
    if (v === undefined || REPEATED.test(text.slice(v.end + 1, v.end + 12))) return undefined;
    return /[fF$]/.test(prefix) && text.slice(v.start, v.end).includes("{") ? undefined : v;
  }
  return quoted(text, s, false) ?? bare(text, s, false);
}

/**
 * YAML's anchor (`&db`) and string tags (`!!str`, `!str`, `!!binary`) before a scalar, then a
 * blank; a line continuation (`\\` and a break, raw or escaped) and the next line's indent.
 */
const VALUE_LEAD = /^(?:(?:(?:&[\w-]+|!!?(?:str|binary))[ \t]+)+(?=\S)|\\(?:\r?\n|\\n)[ \t]*(?=\S))/;
/** A template's quoted literal piped to its functions (`{{ "x" | b64enc }}`), the literal in group 1. */
const TEMPLATE_LITERAL = /^\{\{-?[ \t]*\\?"([^"\\\r\n{}]{1,256})\\?"[ \t]*\|/d;
/** An object whose `value` member holds the value, among its first members (group 1). */
const HELD_VALUE = /^\{[^{}]{0,200}?\\?"value\\?"[ \t]*:[ \t]*\\?"([^"\\\r\n]{1,256})\\?"/d;
/** A triple-quoted literal's one line of its own, trimmed (group 1). */
const OWN_LINE = /^[ \t]*\r?\n[ \t]*(\S+)[ \t]*\r?\n[ \t]*$/d;
/**
 * A string literal's prefix: Python's and Rust's bytes and formatted strings (`b"k"`, `rb'k'`,
 * `u"k"`, `f"k"`), C's and C++'s wide ones (`L"k"`, `u8"k"`), C#'s verbatim and interpolated ones
 * (`@"k"`, `$"k"`), bash's ANSI-C quoting (`$'k'`); escaped in a JSON string too (`b\"k\"`). Not
 * Python's raw strings alone (`r"…"`): patterns and Windows paths (`IPV4_PAT = r"(?:[0-9]{1,3}\.){3}"`).
 */
const STRING_PREFIX = /^(?:[bB][rR]?|[rR][bBfF]|[uU]8?|[fF][rR]?|L|@\$?|\$@?)(?=\\?["'])/;
/** A literal repeated by an operator (`* 32`). */
const REPEATED = /^[ \t]*\*[ \t]*\d/;

/**
 * The literal after a prefix: C#'s verbatim strings double their quotes (`@"a""b"`), bash's
 * `$'…'` escapes them (`$'a\'b'`); any other as `quoted` reads it.
 */
function prefixedLiteral(text: string, at: number, prefix: string): Value | undefined {
  const q = text[at];
  if (!((prefix.includes("@") && q === '"') || (prefix === "$" && q === "'"))) return quoted(text, at, false);
  for (let i = at + 1; i < text.length && i - at <= 1024; i++) {
    const c = text[i];
    if (c === "\n" || c === "\r") return undefined;
    if (q === "'" && c === "\\") i++;
    else if (c === q) {
      if (q === '"' && text[i + 1] === '"') i++;
      else return i > at + 1 ? { start: at + 1, end: i, quoted: true, loose: false } : undefined;
    }
  }
  return undefined;
}

/**
 * PowerShell's cmdlets as a value: a prompt (`Read-Host`, `Get-Credential`), an object made or a
 * secret read (`New-Object …PSCredential(…)`, `Get-Secret`, `Import-Clixml`), or a literal made a
 * SecureString (group 1).
 */
const CMDLET_VALUE =
  /^(?:Read-Host|Get-Credential|New-Object|Get-Secret|Get-StoredCredential|Get-AzKeyVaultSecret|Import-Clixml)\b|^(ConvertTo-SecureString)(?:[ \t]+-String)?[ \t]+(?=["'])/i;

/** A concatenation's operator at a quoted value's start: the quote closed a literal. */
const CONCATENATED = /^[ \t]*(?:\+|\.\.?|\|\||&)[ \t]/;

/** Reads a quoted value opening at `at`; undefined if it does not close on its line. */
function quoted(text: string, at: number, loose: boolean): Value | undefined {
  const q = quoteAt(text, at);
  if (q === undefined) return undefined;
  // Python's triple-quoted literal (`password='''p'''`), on one line or alone on the line
  // after its quotes (`smtp_pass = """⏎p⏎"""`).
  if ((q === '"' || q === "'") && text.startsWith(q + q + q, at)) {
    const found = text.slice(at + 3, at + 3 + 1024).indexOf(q + q + q);
    const inside = found === -1 ? "" : text.slice(at + 3, at + 3 + found);
    if (inside !== "" && !/[\r\n]/.test(inside))
      return { start: at + 3, end: at + 3 + found, quoted: true, loose };
    const own = OWN_LINE.exec(inside);
    if (own?.indices?.[1] === undefined) return undefined;
    const [ls, le] = own.indices[1];
    return { start: at + 3 + ls, end: at + 3 + le, quoted: true, loose };
  }
  const start = at + q.length;
  let end = start;
  while (end < text.length && end - start <= 1024) {
    if (text.startsWith(q, end)) {
      // `\"` inside a `"`-quoted value is an escaped quote, not the end.
      if (q === '"' && text[end - 1] === "\\") {
        end++;
        continue;
      }
      // A literal's closing quote before a concatenation (`"--password=" + pw + "`) opens no value.
      return end > start && !CONCATENATED.test(text.slice(start, start + 8))
        ? { start, end, quoted: true, loose }
        : undefined;
    }
    const c = text[end];
    if (c === "\n" || c === "\r") return cutShort(text, start, end, loose);
    end++;
  }
  return end >= text.length ? cutShort(text, start, end, loose) : undefined;
}

/**
 * A quoted value cut short before its closing quote (`"password": "bluefalcon42xy...`, a line
 * truncated by the tool that printed it): up to its ellipsis, which the judge then leaves out.
 */
function cutShort(text: string, start: number, end: number, loose: boolean): Value | undefined {
  const m = CUT_SHORT.exec(text.slice(start, end));
  return m === null ? undefined : { start, end: start + m[0].length, quoted: true, loose };
}
/** A value's characters and its ellipsis, then only a truncation's note (`[truncated 2000 chars]`). */
const CUT_SHORT = /^[^\s"'`]{10,1024}?(?:\.\.\.?|…)(?=[ \t]*(?:\[[^\]\r\n]{0,80}\][ \t]*)?$)/;

/** Characters that end a bare value. */
function endsBare(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === 34 ||
    c === 39 ||
    c === 96 ||
    c === 44 ||
    c === 59 ||
    c === 38 ||
    c === 60 ||
    c === 62 ||
    c === 41 ||
    c === 93 ||
    c === 125 ||
    c === 124 ||
    c === 92
  );
}

/**
 * The text of an element named by a credential, its start tag ending at `at`: `<password>v</password>`,
 * or XML escaped for HTML (`&lt;password&gt;v&lt;/password&gt;`).
 */
function elementText(text: string, at: number): Value | undefined {
  if (text[at] !== ">") {
    const close = text.indexOf("&lt;/", at + 4);
    if (close > at + 4 && close - at <= 1024 && !/\s/.test(text.slice(at + 4, close)))
      return { start: at + 4, end: close, quoted: true, loose: false };
    return undefined;
  }
  let s = at + 1;
  while (s < text.length && /\s/.test(text[s] ?? "")) s++;
  // A child element is structure, not the element's value (NuGet's `<packageSourceCredentials>`
  // holds a source's element, whose `add` elements hold the password).
  if (text[s] === "<" && !text.startsWith("<![CDATA[", s)) return undefined;
  const close = closingTag(text, s);
  let e = close;
  while (e > s && /\s/.test(text[e - 1] ?? "")) e--;
  // A CDATA section's text is the value (`<password><![CDATA[x]]></password>`).
  if (text.startsWith("<![CDATA[", s) && text.startsWith("]]>", e - 3)) {
    s += 9;
    e -= 3;
  }
  return close > s && e > s ? { start: s, end: e, quoted: true, loose: false } : undefined;
}

/** An `&` that ends a value: another parameter after it (also as `&amp;`), `&&`, a blank or the end. */
const AMPERSAND_ENDS = /^&(?:&|\s|$|(?:amp;)?[\w.[\]-]+=)/;

/** Reads a bare value at `at` (up to a blank, quote, `,;<>)]}|\`, or an `&` that ends it). */
function bare(text: string, at: number, loose: boolean): Value | undefined {
  // Jenkins-style `{AQAAABAAA…}` and similar braced secrets are one value; in a connection
  // string's field (`Pwd={p};`) the braces are ODBC's quotes.
  if (text[at] === "{") {
    const close = text.indexOf("}", at);
    if (close > at + 1 && close - at <= 1024 && !/\s/.test(text.slice(at, close))) {
      const inList = text[close + 1] === ";" || /;[ \t]*[\w ]+=$/.test(text.slice(Math.max(0, at - 40), at));
      if (text[at - 1] === "=" && inList) return { start: at + 1, end: close, quoted: false, loose };
      return { start: at, end: close + 1, quoted: false, loose };
    }
  }
  // Prose puts a value in parentheses (`the zorvix key (Qm9v…) expired`): they are not the value's.
  // Words in them are prose too (Terraform's `secret = (sensitive value)`, `(known after apply)`).
  if (text[at] === "(") {
    const close = text.indexOf(")", at);
    if (close > at + 1 && close - at <= 1024) {
      const inner = text.slice(at + 1, close);
      if (/^[A-Za-z][a-z]*(?: [a-z]+)+$/.test(inner)) return undefined;
      if (!/[\s(]/.test(inner)) return { start: at + 1, end: close, quoted: false, loose };
    }
  }
  let end = at;
  // An environment's line (`SECRET_KEY=x`, `export X=x`, docker's `"X=x"`) is a value to its end.
  // Read when a closing bracket or an `&` first asks (most values hold neither).
  let ownsClosers: boolean | undefined;
  const envLine = (): boolean => {
    const from = Math.max(0, at - 128);
    ownsClosers ??= ENV_LINE_BEFORE.test((from === 0 ? "" : "\0") + text.slice(from, at));
    return ownsClosers;
  };
  while (end < text.length && end - at <= 1024) {
    const c = text.charCodeAt(end);
    // `&` ends a query's parameter (`?token=x&user=y`) or a command (`x && y`, `x &`); inside a
    // value it is the value's (`DB_PASSWORD=Tr0ub4dor&3x`). On an environment's line only a
    // command's `&` ends it, and a closing bracket only where one is open before it
    // (`f(password=pw)`); else both are the value's (Django's generated `SECRET_KEY=fjlz)y$h1…`,
    // `)tornkx@-+3…`, `…!6*&72=yy8^#&+j_q2`).
    if (
      endsBare(c) &&
      (c !== 38 || (envLine() ? COMMAND_AMPERSAND : AMPERSAND_ENDS).test(text.slice(end, end + 48))) &&
      (!isCloser(c) || !envLine() || isOpen(text, at, end, c))
    )
      break;
    end++;
  }
  // A sentence's full stop or colon is not part of the value; an ellipsis (elided) is.
  if (end > at && /[.:]/.test(text[end - 1] ?? "") && text[end - 2] !== ".") end--;
  return end > at ? { start: at, end, quoted: false, loose } : undefined;
}

/**
 * An `&` that ends an environment line's value: a command's (`x && y`, `x &`) or before a
 * parameter named by a word (`key1=value1&key2=value2`); a generated key's `&72=` is its own.
 */
const COMMAND_AMPERSAND = /^&(?:&|\s|$|[A-Za-z_][\w.[\]-]*=)/;

/** The start of an environment's line up to a value: `NAME=` first on its line or in its quotes. */
const ENV_LINE_BEFORE = /(?:^|[\r\n"'`]|\\n)[ \t]*(?:export[ \t]+)?[A-Za-z_][\w.-]*=$/;

/** `)`, `]` or `}`. */
function isCloser(c: number): boolean {
  return c === 41 || c === 93 || c === 125;
}

/**
 * Is a bracket that `closer` (at `end`) closes open before it: more openers than closers of its
 * kind in the value read so far and the 256 characters before the value (`at`)?
 */
function isOpen(text: string, at: number, end: number, closer: number): boolean {
  const opener = closer === 41 ? 40 : closer - 2;
  let depth = 0;
  for (let i = Math.max(0, at - 256); i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === opener) depth++;
    else if (c === closer && depth > 0) depth--;
  }
  return depth > 0;
}

/**
 * Where the `</` closing an element's text that starts at `from` stands, within 1,024 characters;
 * -1 past them (searched only that far, so many open elements in a long text are read once each).
 */
function closingTag(text: string, from: number): number {
  const close = text.slice(from, from + 1026).indexOf("</");
  return close === -1 || close > 1024 ? -1 : from + close;
}

/** Authorization schemes written before the credential (`Bearer x`, `Basic x`). */
const SCHEME =
  /^(?:bearer|basic|token|digest|negotiate|apikey|api-key|bot|sso-key|key|ntlm|hmac|aws4-hmac-sha256)[ \t]+/i;
/**
 * An `Authorization` header names its scheme before the credential, whatever the scheme
 * (`SSWS x`, `Splunk x`, `GenieKey x`): a word, then a blank and more.
 */
const AUTHORIZATION = /authorization$/i;
const ANY_SCHEME = /^[A-Za-z][A-Za-z0-9-]{1,19}[ \t]+(?=\S)/;
/**
 * Assignment signs, longest first; typed declarations (`: str =`, ` string =`, Swift's and
 * Kotlin's `: String? =`, `: String! =`, `: CharArray =`) before `:`.
 */
const ASSIGN =
  /^[ \t]*(?::[ \t]*(?:str|string|String|SecretStr|bytes|&str|CharArray|ByteArray|\[UInt8\]|(?:\w+\.)?(?:Optional|Final|ClassVar)(?:\[[\w .,|[\]]{1,40}\])?)[?!]?[ \t]*=|[ \t](?:string|String|str|&str|\[\]byte|SecureString|var|val|let|const)[ \t]*=|:{1,3}=|[?+.]=|=>|=|:|\|\||\?\?|\?:)[ \t]*/;
/**
 * `::` before a name that is called or goes on (`::new(`, `::Builder::`, `::from<`): a path
 * (Rust's, C++'s, PHP's, Ruby's), not an assignment; DB2's `pwd::x!` gives `:x!`.
 */
const PATH_SEPARATOR = /^::[A-Za-z_]\w*(?:::|[(<{])/;
/** The part of `v` before a trailing ellipsis, when ten characters or more show and they are no JSON header in base64. */
function shownBeforeEllipsis(text: string, v: Value): Value {
  const value = text.slice(v.start, v.end);
  const m = ELLIPSIS_END.exec(value);
  if (m === null || m.index < 10 || /(?:^|[_-])eyJ[\w-]*$/.test(value.slice(0, m.index))) return v;
  return { ...v, end: v.start + m.index };
}
const ELLIPSIS_END = /(?:\.\.|…)[.…]*$/;
/** A line's break and indent before a JSON member's quoted value. */
const JSON_NEXT_LINE = /^(?:\r?\n|\\n)[ \t]*(?=\\?")/;
/** After a lookup call's quoted name: `)` and a fallback operator. */
const CALL_FALLBACK = /^\)[ \t]*(?:\?\?|\?:|\|\||or(?= ))[ \t]*/;
/**
 * A label's second word after a credential's (`Key Content`, `Secret Value`), before its sign; a
 * secret's id (group 1) is the secret too (Nomad's and Consul's `Secret ID`, Vault's AppRole), a
 * key's id names it.
 */
const LABEL_TAIL = /^[ \t](?:(I[Dd])|Content|Material|Value)(?=[ \t]*[:=])/;
/**
 * A constant's name, qualified or not, that ends in a credential's noun (`DB_PASSWORD`,
 * `Context.SECURITY_CREDENTIALS`, `Keys.API_TOKEN`), or in one and the word a settings class
 * gives its keys (Kafka's `SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG`): a key or a token qualified
 * as one; a lexer's `TOKEN_DATA` or bare `TOKEN` names a kind, TodoMVC's `STORAGE_KEY` a storage
 * slot.
 */
const CONSTANT_KEY =
  /^(?:[A-Za-z_$][\w$]*\.)*(?:[A-Z][A-Z0-9]*_)*(?:PASSWORD|PASSWD|PWD|PASSPHRASE|SECRET|CREDENTIALS?|APIKEY|(?:API|ACCESS|AUTH|BEARER|REFRESH|SESSION|PRIVATE|SECRET|SIGNING|CLIENT|MASTER|ENCRYPTION|PASSWORD)_(?:KEY|TOKEN))(?:_(?:CONFIG|PROP(?:ERTY)?|PARAM|SETTING|OPTION))?$/;
/**
 * What may end a constant key's literal, the setter's last argument: its closing parenthesis, after
 * Java's conversion to the type a password takes (`"x".toCharArray()`, `"x".getBytes(UTF_8)`).
 */
const SETTER_LITERAL_END = /^\\?["'](?:\.(?:toCharArray|getBytes|toByteArray)\([\w.]{0,24}\))?[ \t]*\)/;
/** A lookup's call before the quoted name (`Session("`), and its value assigned (`") = `). */
const LOOKUP_OPEN = /\w\(\\?["']$/;
const LOOKUP_ASSIGNED = /^\)[ \t]*=(?![=>~])/;
/** What reads an enum constant's name or key (`.getName()`, `.name()`, `.key`). */
const ENUM_READER = String.raw`\.(?:getName|name|getKey|key|toString|getValue|value)`;
/** The read and its call before a setter's next argument. */
const ENUM_KEY = new RegExp(String.raw`^${ENUM_READER}(?:\(\))?(?=\s*,)`);
/** The same read at a name's end, before its call's parentheses. */
const ENUM_READ = new RegExp(`${ENUM_READER}$`);
/** A path's last word before the name, in the same string (`'/etc/passwd'`). */
const PATH_BEFORE_NAME = /\/[\w.-]*$/;
/**
 * A comparison between a name and a literal: with blanks (`token === "x"`, `pwd != 'y'`), or
 * without them before a quote (`password=="x"`).
 */
const COMPARE = /^(?:[ \t]+[=!]==?[ \t]+|[ \t]*[=!]==?[ \t]*(?=["']))/;
/** Names whose comparison with a literal gives the credential away. */
const COMPARED_NAME = /pass|pwd|secret/i;
/**
 * Prose between a name and its value: `is`, `was`, `of`, `-`, `set to`, after the account it is
 * for (`the password for user 'postgres' is 'admin'`).
 */
const PROSE =
  /^(?:[ \t]+value)?(?:[ \t]+for[ \t]+(?:the[ \t]+)?(?:(?:user(?:name)?|account|login)[ \t]+(?:"[^"\r\n]{1,64}"|'[^'\r\n]{1,64}'|[^\s"']{1,64})|(?:key|keystore|database|server|vault|wallet|archive|certificate|admin|root)\b))?[ \t]+(?:(?:is|was|are|were|equals|of|to|from|set to|is set to|changed to):?|=|-|–|:)[ \t]+/i;

/**
 * The value field beside a name given as a field's value: `"name": "DB_PASSWORD", "value": "x"`,
 * `- name: API_TOKEN⏎  value: x` (Kubernetes), `{"Key": "password", "Value": "x"}` (AWS tags),
 * `ParameterKey=DbPassword,ParameterValue=x`, `--name /prod/db/password --value x`.
 */
const SIBLING_VALUE =
  /^(?:[ \t]*,[ \t]*(?:\r?\n[ \t]*)?(?:["'](?![Vv]alue["'])[A-Za-z][\w-]{0,30}["'][ \t]*:[ \t]*(?:"[^"\r\n]{0,120}"|[\w.]+|\{\})[ \t]*,[ \t]*(?:\r?\n[ \t]*)?){0,3}|[ \t]*\r?\n[ \t]*(?:-[ \t]+)?|(?:[ \t]+--?[a-z][\w-]{0,20}[ \t]+[^\s-][^\s]{0,40}){0,2}[ \t]+--?)["']?(?:[Vv]alue|VALUE|ParameterValue|parameter_value|SecretString|secret_string)["']?(?:[ \t]*[:=][ \t]*|[ \t]+)/;
/**
 * (Above: a value member after the name's, past up to three members between them, as AWS SSM's
 * parameter, Azure Key Vault's secret and App Service's settings print them:
 * `"Name":"/prod/db/password","Type":"SecureString","Value":"x"`, `"slotSetting": true`.)
 *
 * A CloudFormation parameter's default (`DBPassword:⏎  Type: String⏎  Default: x`, or in JSON
 * `"DBPassword": {"Type": "String", "Default": "x"}`), after the parameter's other properties.
 */
const CFN_DEFAULT =
  /^["']?[ \t]*:[ \t]*(?:\{[^{}]{0,300}?"Default"[ \t]*:[ \t]*|(?:\r?\n[ \t]+(?:Description|Type|NoEcho|MinLength|MaxLength|AllowedPattern|AllowedValues|ConstraintDescription):[^\r\n]*){0,6}\r?\n[ \t]+Default:[ \t]*)/;
/**
 * A command-line option's default in its declaration (argparse's `add_argument("--db-password",
 * type=str, default="x")`, click's `option("--password", default="x")`): the name quoted, then
 * the call's other arguments.
 */
const FLAG_DEFAULT = /^[ \t]*,[^()\r\n]{0,120}?\bdefault[ \t]*=[ \t]*(?=["'])/;
/** A Terraform variable's default (`variable "db_password" {⏎ type = string⏎ default = "x"`). */
const HCL_DEFAULT = /^["']?[ \t]*\{[^{}]{0,300}?\bdefault[ \t]*=[ \t]*/;

/** The border between a Markdown table's cells, when a value cell follows (not the row's end). */
/** What joins a password's old value to its new one in prose (`from 'a' to 'b'`). */
const CHANGED_TO = /^["'`]?[ \t]+to[ \t]+/;
const TABLE_CELL = /^[ \t]*\|[ \t]*(?=[^\s|])/;

/** A table row's end: a newline, raw or escaped. */
const ROW_END = /\r?\n|\\n/;
/** Does the name at `nameStart` start a cell: after a `|` or at its line's start (`apiKey |x`), Markdown's emphasis aside? */
function isFirstOfCell(text: string, nameStart: number): boolean {
  const before = text.slice(Math.max(0, nameStart - 8), nameStart);
  return CELL_BEFORE.test(before) || (nameStart <= 8 && /^[ \t]*[`*]{0,2}$/.test(before));
}
const CELL_BEFORE = /(?:\||\n|\\n)[ \t]*[`*]{0,2}$/;
/** A table's rule under its header: Markdown's `|---|:--:|`, a box-drawn `├────┼`, an ASCII `+----+`, psql's `----+----`. */
const HEADER_RULE = /^[ \t]*(?:\|[ \t]*:?-{3,}|[├╞╟┝+][─═━-]{3,}|:?-{3,}[ \t]*[|+])/;

/** Is the row holding `at` followed by a header's rule, so that it names columns? */
function isHeaderRow(text: string, at: number): boolean {
  const next = nextLineStart(text, at);
  return next < text.length && HEADER_RULE.test(text.slice(next, next + 40));
}

/**
 * In a table row whose cell at `at` holds words (a description), the first later cell of the
 * row holding one word: the value of a `| name | description | value |` row; undefined when the
 * cell is one word, or no later cell is.
 */
function wordCellAfter(text: string, at: number): Value | undefined {
  // The row ends at a newline, also one written as an escape (a table in JSON text).
  const cells = text.slice(at).split(ROW_END, 1)[0]?.split("|") ?? [];
  if (cells.length < 3 || !/\S\s+\S/.test((cells[0] ?? "").trim())) return undefined;
  let start = at + (cells[0]?.length ?? 0) + 1;
  for (const c of cells.slice(1, -1)) {
    const value = c.trim();
    if (value !== "" && !/\s/.test(value)) {
      const s = start + c.indexOf(value);
      return { start: s, end: s + value.length, quoted: false, loose: false };
    }
    start += c.length + 1;
  }
  return undefined;
}

/** A YAML block scalar's header and the indent of its first line (`|`, `>-`, `|2`), raw or escaped. */
const BLOCK_SCALAR = /^[|>][-+]?\d?[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]+(?=\S)/;

/** An SDK's string wrapper just before a quoted name (`aws.String("`, `pulumi.String("`). */
const STRING_WRAPPER_BEFORE = /(?:aws|pulumi|jsii)\.String\(\\?["']$/;

/** A start tag's attributes, up to its `>` (one at least). */
const ATTRIBUTES =
  /^(?:\s+[\w:.-]{1,40}\s*=\s*(?:"[^"<>\r\n]{0,200}"|'[^'<>\r\n]{0,200}'|[^\s"'<>]{1,200}))+\s*(?=>)/;
/** A `value` attribute earlier in the tag than the name's (`<add value="v" key="Password"/>`): its quote and text. */
const VALUE_ATTRIBUTE = /\svalue\s*=\s*(["'])([^"'<>\r\n]{1,256})\1/i;

/** The value given in a `value` attribute before a `key` or `name` attribute holding the name, if any. */
function valueAttributeBefore(text: string, nameStart: number): Value | undefined {
  if (!/(?:key|name)\s*=\s*["']$/i.test(text.slice(Math.max(0, nameStart - 12), nameStart))) return undefined;
  const tag = text.lastIndexOf("<", nameStart);
  if (tag === -1 || nameStart - tag > 400 || text.slice(tag, nameStart).includes(">")) return undefined;
  const m = VALUE_ATTRIBUTE.exec(text.slice(tag, nameStart));
  if (m === null) return undefined;
  const start = tag + m.index + m[0].length - 1 - (m[2] ?? "").length;
  return { start, end: start + (m[2] ?? "").length, quoted: true, loose: false };
}

/** The element after a property list's `<key>…</key>` that holds its value. */
const KEYED_ELEMENT = /^\s*<(?:string|value|data)(?:\s[^<>]{0,80})?>/i;

/** A tuple or list of two strings, a user and a password; the password is group 3. */
const USER_PASSWORD_PAIR =
  /^[([][ \t]*(["'])[^"'\r\n]{0,256}\1[ \t]*,[ \t]*(["'])([^"'\r\n]{1,256})\2[ \t]*[)\]]/d;

/**
 * The value of a field beside the name or declared for it (`, "value": x`, HCL's `default = x`,
 * CloudFormation's `Default: x`, an option's `default="x"`); null when there is none.
 */
function fieldValue(text: string, i: number): Value | undefined | null {
  const sibling =
    SIBLING_VALUE.exec(text.slice(i, i + 120)) ??
    HCL_DEFAULT.exec(text.slice(i, i + 320)) ??
    CFN_DEFAULT.exec(text.slice(i, i + 400)) ??
    (text[i - 1] === '"' || text[i - 1] === "'" ? FLAG_DEFAULT.exec(text.slice(i, i + 160)) : null);
  if (sibling === null) return null;
  const s = i + sibling[0].length;
  const wrapped = wrappedLiteral(text, s);
  const v =
    wrapped !== undefined
      ? { start: wrapped[0], end: wrapped[1], quoted: true, loose: false }
      : (quoted(text, s, false) ?? bare(text, s, false));
  return v === undefined ? undefined : { ...v, field: true };
}

/**
 * The element that holds the value of a name given in markup: `<entry key="db.password">v</entry>`,
 * a property list's `<key>Password</key><string>v</string>` (or `<value>`); null when the name
 * stands in neither.
 */
function keyedElementValue(text: string, nameStart: number, at: number, i: number): Value | undefined | null {
  if (text[i] === ">" && i > at && /(?:key|name)=["']$/i.test(text.slice(nameStart - 6, nameStart))) {
    const close = closingTag(text, i + 1);
    return close > i + 1 ? { start: i + 1, end: close, quoted: true, loose: false } : undefined;
  }
  // A property list's `<key>`, KeePass' `<Key>` (its `<Value ProtectInMemory="True">`).
  if (/^<\/key>/i.test(text.slice(i, i + 6)) && /<key>$/i.test(text.slice(nameStart - 5, nameStart))) {
    const element = KEYED_ELEMENT.exec(text.slice(i + 6, i + 6 + 120));
    return element === null ? undefined : elementText(text, i + 6 + element[0].length - 1);
  }
  return null;
}

/**
 * The length of a declaration's array brackets at `i`, after the name starting at `nameStart`:
 * `[]` (`$apikey[] = "x"`), `[32]` after a C character type (`char pwd[32] = "x"`; not an index,
 * `key[0] = "Ctrl-A1"`); 0 for none.
 */
function arrayBrackets(text: string, nameStart: number, i: number): number {
  const brackets = /^\[(\d{0,6})\](?=[ \t]*=[^=])/.exec(text.slice(i, i + 12));
  if (brackets === null) return 0;
  if (brackets[1] === "") return 2;
  return /(?:char|wchar_t|TCHAR|WCHAR|byte|uint8_t|u8)[ \t]*\*?[ \t]*$/.test(
    text.slice(Math.max(0, nameStart - 24), nameStart),
  )
    ? brackets[0].length
    : 0;
}

/**
 * The value markup gives the name ending at `at` (`i` past its closing quote): an element's text
 * (`<password>v</password>`, with attributes or escaped for HTML), a `value` attribute after or
 * before it (`key="Password" value="v"`, `<add value="v" key="Password"/>`), a keyed element's
 * (`keyedElementValue`); null when the name stands in no markup.
 */
function markupValue(text: string, nameStart: number, at: number, i: number): Value | undefined | null {
  const before = i > at ? valueAttributeBefore(text, nameStart) : undefined;
  if (before !== undefined) return before;
  const keyed = keyedElementValue(text, nameStart, at, i);
  if (keyed !== null) return keyed;
  if (i > at) {
    const attr = /^\s+value\s*=\s*/i.exec(text.slice(i, i + 40));
    if (attr !== null) return quoted(text, i + attr[0].length, false);
  }
  const element = opensElement(text, nameStart);
  // A start tag's attributes; not a lexer's or a tagger's `<token type="keyword">Int32</token>`.
  if (element && !/^token$/i.test(text.slice(nameStart, at))) {
    const attributes = ATTRIBUTES.exec(text.slice(i, i + 1024))?.[0].length;
    if (attributes !== undefined) return elementText(text, i + attributes);
  }
  if (text[i] === ">" ? element : text.startsWith("&gt;", i) && text.endsWith("&lt;", nameStart))
    return elementText(text, i);
  // The name as a cell's or a term's whole text, its value the next one's (`<td>KEY</td><td>x</td>`,
  // `<dt>Password</dt><dd>x</dd>`, `<code>KEY</code>: <code>x</code>`): one word, not a description.
  const cell = text[i] === "<" && />[ \t]*$/.test(text.slice(Math.max(0, nameStart - 8), nameStart));
  const gap = cell ? CELL_GAP.exec(text.slice(i, i + 200)) : null;
  if (gap !== null) {
    const v = elementText(text, i + gap[0].length - 1);
    if (v === undefined || /\s/.test(text.slice(v.start, v.end))) return undefined;
    // A highlighter's string keeps its quotes inside the element (`<span class="hljs-string">'x'</span>`).
    const q = text[v.start];
    return (q === "'" || q === '"') && v.end - v.start > 2 && text[v.end - 1] === q
      ? { ...v, start: v.start + 1, end: v.end - 1 }
      : v;
  }
  return null;
}

/** From a cell's or a term's end tag to the next value's start tag, its `>` last. */
const CELL_GAP =
  /^<\/(?:td|th|dt|span|code|b|strong|em|kbd|samp|label|var)>[ \t]*(?:[:=][ \t]*)?<(?:td|dd|span|code|b|strong|em|kbd|samp|pre|var)(?:[ \t][^<>]{0,120})?>/i;

/** Does the name at `nameStart` open an element, with a namespace's prefix or not (`<password`, `<wsse:Password`)? */
function opensElement(text: string, nameStart: number): boolean {
  return (
    text[nameStart - 1] === "<" ||
    (text[nameStart - 1] === ":" &&
      /<[A-Za-z][\w.-]{0,30}:$/.test(text.slice(Math.max(0, nameStart - 33), nameStart)))
  );
}

/**
 * A literal the name is compared with (`password == "x"`; a bare operand is code: `!= null`,
 * `=== FIRST`), or a lookup's literal fallback (`System.getenv("PASS") ?: "x"`,
 * `os.environ.get("PASS") or "x"`); null when neither follows.
 */
function literalAfter(text: string, at: number, i: number): Value | undefined | null {
  const fallback = i > at ? CALL_FALLBACK.exec(text.slice(i, i + 16)) : null;
  if (fallback !== null) return quoted(text, i + fallback[0].length, false);
  const compare = COMPARE.exec(text.slice(i, i + 8));
  if (compare === null) return null;
  const v = quoted(text, i + compare[0].length, false);
  return v === undefined ? undefined : { ...v, compared: true };
}

/**
 * The literal after a comma that a name gives its value to: `("password", "x")`, `("Admin
 * password", "x")`, escaped too; not a reference or a path's last word before a string
 * (`"$password", "next"`, `('/etc/passwd', 'utf8')`), nor a member's name. A constant's name as a
 * setter's key (`env.put(Context.SECURITY_CREDENTIALS, "x")`, `props.setProperty(PASSWORD_KEY,
 * "x")`) when the literal is the call's last argument. `i`: past the name's closing quote, `rest`:
 * the text from there.
 */
function pairedLiteral(
  text: string,
  nameStart: number,
  at: number,
  i: number,
  rest: string,
): Value | undefined {
  // An enum constant's name or key as the setter's key (`PGProperty.PASSWORD.getName()`).
  const named = ENUM_KEY.exec(rest)?.[0].length ?? 0;
  const pair = /^\s*,\s*/.exec(named === 0 ? rest : rest.slice(named));
  if (pair === null || text[nameStart] === "$") return undefined;
  const constantKey = i === at && text[nameStart - 1] === "(" && CONSTANT_KEY.test(text.slice(nameStart, at));
  if (
    (i === at && !constantKey) ||
    (named > 0 && !constantKey) ||
    PATH_BEFORE_NAME.test(text.slice(Math.max(0, nameStart - 64), nameStart))
  )
    return undefined;
  const v = quoted(text, i + named + pair[0].length, false);
  if (v === undefined) return undefined;
  const after = text.slice(v.end, v.end + 8);
  // In a list, only a pair that ends it and holds a password or a token
  // (`[["DB_PASSWORD","P@ssw0rd123"],…]`); a list's words are tags (`["token","request","remote"]`).
  if (inList(text, nameStart)) {
    const value = text.slice(v.start, v.end);
    const endsList = /^\\?["'`][ \t]*\]/.test(after);
    if (!endsList || !(isPasswordLike(value) || looksGenerated(value, 0, value.length, 16))) return undefined;
  }
  // A JSON member's name after a value (`"…token","temperature":0.7`) is no argument.
  if (
    /^\\?["'`][ \t]*:/.test(after) ||
    (constantKey && !SETTER_LITERAL_END.test(text.slice(v.end, v.end + 40)))
  )
    return undefined;
  return v;
}

/**
 * Does the string at `nameStart` stand in a list (`"tags": ["token", "request"]`) rather than a
 * call's or a tuple's arguments (`setProperty("token", "x")`, `[("password", "x")]`): is the
 * nearest bracket open before it (within 200 characters) a `[`?
 */
function inList(text: string, nameStart: number): boolean {
  let depth = 0;
  for (let i = nameStart - 1; i >= 0 && i >= nameStart - 200; i--) {
    const c = text[i];
    if (c === ")" || c === "]") depth++;
    else if (c === "(" || c === "[") {
      if (depth === 0) return c === "[";
      depth--;
    }
  }
  return false;
}

/**
 * The value given to the name that ends at `at`, if any: after an assignment sign, a flag's
 * blank, `", "` (`setProperty("KEY", "v")`), `value="` (`key="Password" value="v"`), or prose.
 */
function valueAfter(text: string, nameStart: number, at: number, isFlag: boolean): Value | undefined {
  // A label's second word that still names the credential (Nomad's `Secret ID    = …`, netsh's
  // `Key Content            : …`).
  const tail = text[at] === " " || text[at] === "\t" ? LABEL_TAIL.exec(text.slice(at, at + 64)) : null;
  const named = tail !== null && (tail[1] === undefined || /secret$/i.test(text.slice(nameStart, at)));
  let i = at + (named ? tail[0].length : 0);
  // The name's own closing quote or bracket: `"api_key": …`, `['token'] = …`, `\"pwd\": …`.
  i += quoteAt(text, i)?.length ?? 0;
  // An SDK's string wrapper around the name (`Name: aws.String("DB_PASSWORD"), Value: …`).
  if (text[i] === ")" && STRING_WRAPPER_BEFORE.test(text.slice(Math.max(0, nameStart - 24), nameStart))) i++;
  // A lookup by the name, assigned to (VB's and classic ASP's `Session("Password") = "x"`,
  // `obj('APIKEY') = 'x'`); a comparison (`==`) is not.
  else if (text[i] === ")" && LOOKUP_OPEN.test(text.slice(Math.max(0, nameStart - 4), nameStart))) {
    if (LOOKUP_ASSIGNED.test(text.slice(i, i + 24))) i++;
  }
  if (text[i] === "]") i++;
  // An array's brackets (C's `char password[] = "x"`, `[32]`; PHP's `$apikey[] = "x"`).
  else if (text[i] === "[") i += arrayBrackets(text, nameStart, i);
  const literal = literalAfter(text, at, i);
  if (literal !== null) return literal;
  // Markdown's emphasis closing a label (`**Password**: x`, `__Token__: x`).
  if ((text[i] === "*" || text[i] === "_") && text[i - 1] !== " ") i += text[i + 1] === text[i] ? 2 : 1;
  const rest = text.slice(i, i + 120);
  const field = fieldValue(text, i);
  if (field !== null) return field;
  const markup = markupValue(text, nameStart, at, i);
  if (markup !== null) return markup;
  const cell = TABLE_CELL.exec(rest);
  if (cell !== null && isFirstOfCell(text, nameStart)) {
    // A Markdown table's row (`| DB_PASSWORD | x |`): the next cell is the value, or the first
    // later one of one word when it holds words (`| DB_PASSWORD | Password of the db | x |`). A
    // header row names columns (`| Name | Password | Role |`, then `|---|`).
    const s = i + cell[0].length;
    if (isHeaderRow(text, s)) return undefined;
    return wordCellAfter(text, s) ?? quoted(text, s, false) ?? bare(text, s, false);
  }
  const paired = pairedLiteral(text, nameStart, at, i, rest);
  if (paired !== undefined) return paired;
  // A path's separator (Rust's `Credentials::new(…)`, C++'s `Secret::get`) assigns nothing.
  if (PATH_SEPARATOR.test(rest)) return undefined;
  const assign = ASSIGN.exec(rest);
  if (assign !== null && assign[0].trim() !== "") {
    let s = i + assign[0].length;
    // A JSON member's value on the next line (`"password":⏎    "x"`).
    if (assign[0].trim() === ":" && quoteAt(text, at) !== undefined)
      s += JSON_NEXT_LINE.exec(text.slice(s, s + 40))?.[0].length ?? 0;
    // A value on the same line only (a YAML block `key:\n  …` holds names, not a value).
    const scheme = (AUTHORIZATION.test(text.slice(nameStart, at)) ? ANY_SCHEME : SCHEME).exec(
      text.slice(s, s + 24),
    );
    if (scheme !== null) s += scheme[0].length;
    // A YAML block scalar (`password: |⏎  x`): its first line is the value.
    const block = BLOCK_SCALAR.exec(text.slice(s, s + 40));
    if (block !== null) return bare(text, s + block[0].length, false);
    // A user and a password as a pair (`auth=("bob", "x")`, `credentials: ["bob", "x"]`): the second.
    const pair = USER_PASSWORD_PAIR.exec(text.slice(s, s + 600));
    if (pair?.indices?.[3] !== undefined) {
      const [ps, pe] = pair.indices[3];
      return { start: s + ps, end: s + pe, quoted: true, loose: false, paired: true };
    }
    // A fallback (`env["PASS"] ?: "x"`, `process.env.TOKEN ?? "x"`) of a literal; a bare one is code.
    if (/\?[?:]/.test(assign[0]))
      return /^[ \t]*\?\?|^[ \t]+\?:/.test(assign[0]) ? quoted(text, s, false) : undefined;
    return assignedValue(text, s);
  }

  const prose = PROSE.exec(rest);
  if (prose !== null) {
    const s = i + prose[0].length;
    return quoted(text, s, true) ?? bare(text, s, true);
  }
  if (SPACE.test(text[i] ?? "")) {
    let s = i;
    while (SPACE.test(text[s] ?? "")) s++;
    const scheme = SCHEME.exec(text.slice(s, s + 24));
    if (scheme !== null) s += scheme[0].length;
    return quoted(text, s, !isFlag) ?? bare(text, s, !isFlag);
  }
  return undefined;
}

/**
 * Values that are not a value: references, templates, types, code, encrypted values, masks,
 * CloudFormation's functions (`!Ref X`, `!Not [...]`), self-declared stand-ins (`not-a-real-key`).
 */
const REFERENCE =
  /^(?:\$\{.*|\$__(?:env|file|vault)\{.*|%env\([^)]*\)%|#\{.*|@\(.*\)|vault:.*|\$[A-Za-z_][\w.]*|ENC\[.*|!vault|!(?:Ref|GetAtt|Sub|Join|Select|Split|If|Not|Equals|And|Or|FindInMap|ImportValue|Base64|Cidr|GetAZs|Condition|Transform)\b.*|(?:[a-z]+[-_])+(?:placeholder|not[-_]a[-_]real|fake|dummy)(?:[-_][a-z0-9]+)*|(?:placeholder|not[-_]a[-_]real|fake|dummy)(?:[-_][a-z0-9]+)+|\$\(.*\)|%[\w.]+%|\$env:\w+|env\.\w+|process\.env\b.*|os\.environ\b.*|os\.getenv\b.*|ENV\[.*|secrets\.\w+|vars\.\w+|\{\{.*\}\}|ext:\w+|projects\/[^/\s]+\/secrets\/\S+|<[^<>]*>|\[[^\]]*\]|\*+|[xX•.·]{3,}|(?:your|my|the|an?|some|test|fake|dummy|mock|sample|example)[-_ ][a-z]+(?:[-_ ][a-z]+)*|(?:[a-z]+ )+your(?: [a-z]+)* here|.*_HERE|REPLACE_?ME|redacted|masked|hidden|protected|none|null|nil|undefined|true|false|yes|no|on|off|enabled|disabled|required|optional|string|str|int|bool|boolean|number|object|any|bytes|key|value|placeholder|todo|tbd|n\/a)$/i;
/**
 * A file given by its path (curl's and the cloud CLIs' `@secret.json`, `@~/token`); in lower case,
 * as files are named: `@dm1n.Pass` is a password.
 */
const FILE_REFERENCE =
  /^@(?:[~.]?\/\S*|[\w.-]+\.(?:txt|json|ya?ml|pem|key|env|conf|cfg|ini|toml|crt|cer|csr|p12|pfx|jks|bin|dat|secret|pass|pw))$/;
/**
 * A YAML alias (`password: *db_password`, `*DB_PASSWORD`), a borrow of a variable or a field
 * (Rust's and C's `&config.password`, `&mut pw`), a Ruby instance variable (`@user.password`) and
 * an annotation (`@JsonIgnore`): written as names are (`*ljjPcOtzkswrZ`, `@dm1n.Pass` are passwords).
 */
const ALIAS_OR_BORROW =
  /^(?:\*(?:[a-z]+(?:[_-][a-z]+)*|[a-z]+(?:[A-Z][a-z]+)+|[A-Z]+(?:_[A-Z]+)+)|[&@](?:mut[ \t]+)?[a-z]+(?:_[a-z0-9]+)*(?:\.[a-z_]\w*)*|@[A-Z][a-z]+(?:[A-Z][a-z]+)+)$/;
/**
 * A Makefile's or a compose file's escaped reference (`$$DB_PASSWORD`, `$${TOKEN:-x}`,
 * `$$password`, `$$db_pass2`): a name in capitals, in lower case of letters alone, or in snake
 * case. In docker-compose `$$` is a literal `$`: `$$ecure2024` and `$$ecretPassword` are passwords.
 */
const ESCAPED_REFERENCE = /^\$\$(?:\{.*|[A-Z_][A-Z0-9_]*|[a-z]+|[a-z][a-z0-9]*_[a-z0-9_]*)$/;
/**
 * Does `value` stand for a credential without being one (a reference, template, type, mask)?
 * Where a credential must stand (a strong name's assignment, a password flag or argument, a
 * URL's password), anything else is one: `Password=secret;` holds a password, and real default
 * credentials are such words.
 */
function isStandInValue(value: string): boolean {
  const scheme = AUTH_SCHEME_PREFIX.exec(value);
  // A header's scheme before a reference (`"Bearer ${BuildConfig.API_TOKEN}"`) refers to one too.
  if (scheme !== null) return isStandInValue(value.slice(scheme[0].length));
  return isStandIn(value) || isReference(value);
}
/** A reference of any kind: a variable's, a file's, an alias, a borrow, an escaped one. */
function isReference(value: string): boolean {
  return (
    REFERENCE.test(value) ||
    FILE_REFERENCE.test(value) ||
    ALIAS_OR_BORROW.test(value) ||
    ESCAPED_REFERENCE.test(value)
  );
}
/** An HTTP authorization scheme's word and its blank, before a credential. */
const AUTH_SCHEME_PREFIX = /^(?:Bearer|Basic|Token|token|Bot|Digest|SSWS)[ \t]+(?=\S)/;

/** Is `value` a stand-in or a sample value (`secret`, `my-password`): no credential where one only may stand? */
function isPlaceholderValue(value: string): boolean {
  return isPlaceholder(value) || isReference(value);
}

/**
 * A call, an index or a member access (`getToken()`, `positionals[0]`, `self.token`,
 * `config.password`, `req.headers.authorization?.split(…`, `TOTP::create(…`, Terraform's
 * `random_password.db[0].result`), a call whose names
 * hold digits or a macro's `!` (`boto3.Session(profile_name=`, Elixir's `System.fetch_env!(`), or a
 * Rust raw string's opening (`br#"…"#`).
 */
const CODE =
  /^[A-Za-z_$][A-Za-z_$]*(?:[?!]?\.[A-Za-z_$][A-Za-z_$]*)+(?:[([].*)?$|^[A-Za-z_$][\w$]*(?:::[A-Za-z_$][\w$]*)+(?:\(.*)?$|^[A-Za-z_$][\w$]*[([]|^[rbRB]{1,2}#+$|^(?:new[ \t]+)?[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*!?\(/;
/**
 * A path, not a key: `~/.ssh/id_rsa`, `./key.pem`, `/etc/ssl/private/x.key`, `C:\keys\x.pfx`, one
 * after an id (systemd's `LoadCredential=db-password:/etc/app/db-password`), a
 * relative one of words to a file (`config/keys/server.key`), and
 * a source location (`lib/schema.json:48:69`, a stack frame's `at session (…)`).
 */
const PATH =
  /^(?:~?\/|\.\.?\/|[A-Za-z]:\\|[\w.-]+:\/(?!\/))[^\s]*$|^[a-z][a-z_-]*(?:\/[a-z][a-z_-]*)+\.[a-z]{2,5}$|^[\w.-]+(?:[/\\][\w.-]+)+\.[A-Za-z]\w*:\d+(?::\d+)?$|^[\w.-]+\.[A-Za-z]\w*:\d+:\d+$/;
const COMMON_WORD = /^[a-z]+$/;
/** A word as prose writes one, in lower case or capitalized (`via`, `Force`). */
const PROSE_WORD = /^[A-Za-z][a-z]+$/;

/**
 * Is the bare word `text[start, end)` a sentence's, more words following it on its line (`Password:
 * changed yesterday`, a usage text's `--askpass   Force user to …`)?
 */
function isSentenceWord(text: string, start: number, end: number): boolean {
  const word = text.slice(start, end);
  // Capitalized, only after a usage text's column gap: `PGPASSWORD=Postgres psql` is a password.
  const prose =
    COMMON_WORD.test(word) ||
    (PROSE_WORD.test(word) && COLUMN_GAP.test(text.slice(Math.max(0, start - 2), start)));
  return prose && SENTENCE_GOES_ON.test(text.slice(end, end + 24));
}
/** Two blanks or more: a usage text's gap between a flag and its description. */
const COLUMN_GAP = /^[ \t]{2}$/;
/** More words after a value's word, on its line. */
const SENTENCE_GOES_ON = /^[ \t]+[a-z]{2,}\b/;
/** After a value's word: more words on its line, code's punctuation or an assignment. */
const NOT_ALONE = /^(?:[ \t]+[A-Za-z]{2,}\b|[ \t]*[,)}\]:=])/;
/**
 * A name as code writes one: `api-key`, `GITHUB_TOKEN`, `db.password`, `secretKey`, `ApiToken`,
 * `github_pat_TODO`; capitalized words joined by dashes are a password's (`Docker-Pg-Pw`).
 */
const IDENTIFIER =
  /^(?:[A-Za-z]+(?:[._][A-Za-z]+)+|[a-z]+(?:-[a-z]+)+|[A-Z]+(?:-[A-Z]+)+|[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,}|[a-z]+|[A-Z]+)$/;
/** A dotted, snake or kebab name in lower case (`jetbrains.mps.v8_elimination`, `cmp2-qat-12`). */
const LOWER_IDENTIFIER = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)+$/;
/** 32 to 64 hex digits, letters and digits both. */
const HEX_KEY = /^(?=[\da-f]*[a-f])(?=[\da-f]*\d)[\da-f]{32,64}$/i;
/**
 * Eight of one character in a row: typed by hand (`000…0TUVWXYZ`, `xoxp-…-####…`); a generated
 * value has such a run about once in 10^13.
 */
const FILLED = /(.)\1{7}/;

/**
 * A shell assignment of a backquoted command (``KEY=`cat key.txt` ``, ``SECRET=`vault read -field=v
 * x` ``, the older spelling of `$(…)`): the value is the command's output. Only `=` right before
 * the backquote and words in it: a backquoted token has no blank (`` token = `ghp_…` ``), and prose
 * quotes a passphrase after a blank (`` password: `correct horse battery` ``).
 */
function isCommand(text: string, v: Value): boolean {
  return text[v.start - 1] === "`" && text[v.start - 2] === "=" && /\S\s+\S/.test(text.slice(v.start, v.end));
}

/** A format string's field: `{}`, `{0}`, `{name}`, `{user.id}`. */
const FORMAT_FIELD = /\{[\w.]*\}/;
/**
 * CloudFormation's and Home Assistant's tags (`!Ref DBPassword`, `!Sub '…'`, `!secret db_password`):
 * a reference; bare, or quoted with its argument (a quoted `"!Secret-2024"` is a password).
 */
const YAML_TAG =
  /^!(?:Ref|Sub|GetAtt|GetAZs|ImportValue|Join|Select|Split|FindInMap|Base64|Cidr|If|Transform|secret|env_var|include)(?:\s|$)/;
/** An OpenSSH public key (`ssh-ed25519 AAAA… user@host`): published by design. */
const SSH_PUBLIC_KEY =
  /^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)[ \t]+AAAA/;
/** A URL's start: a scheme and `//`. */
const URL_START = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/**
 * An endpoint, not a credential: a URL with no user, password or query, whose path holds only
 * words, short versions (`v1`) and format fields (`https://hooks.slack.com/services/`,
 * `https://api.hubapi.com/webhooks/v1/{appId}/`, `https://oauth2.googleapis.com/token`).
 */
const ENDPOINT_URL =
  /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[A-Za-z0-9.-]+(?::\d+)?(?:\/(?:[A-Za-z]+(?:[_-][A-Za-z]+)*|[A-Za-z]?\d{1,2}|\{[\w.-]+\}))*\/?$/;

/**
 * Is the value a template filled in elsewhere: a format string (`"prefix_{}".format(v)`,
 * `f"…{v}"`, `$"…{v}"`, `"%s…" % v`) or a URL with fields (`s3://{bucket}/…`, `https://{host}/…`)?
 */
function isTemplate(text: string, v: Value, value: string): boolean {
  // A bare value ends at `}`: a field may be cut at its end (`https://api.hubapi.com/…/{appId`).
  if (URL_START.test(value))
    return /\{[\w.-]*(?:\}|$)/.test(value) && !/:\/\/[^/\s:@{]+:[^@\s{]+@/.test(value);
  if (!v.quoted) return false;
  const after = text.slice(v.end + 1, v.end + 12);
  if (/^\.format\(|^[ \t]*%[ \t]*[(\w]/.test(after)) return /\{[\w.]*\}|%[sdr]/.test(value);
  const prefix = text[v.start - 2];
  return (prefix === "f" || prefix === "$") && FORMAT_FIELD.test(value);
}

/** Is the value `text[v.start, v.end)` given to a name of `strength` a credential? */
function isCredentialValue(text: string, v: Value, strength: Strength, followedByCall: boolean): boolean {
  const value = text.slice(v.start, v.end);
  // A strong name's value, given as a value (assigned, or quoted after a blank), must be a credential.
  const certain = strength === "strong" && (!v.loose || v.quoted);
  if (value.length < 3 || (certain ? isStandInValue(value) : isPlaceholderValue(value))) return false;
  if (isTemplate(text, v, value) || ENDPOINT_URL.test(value) || SSH_PUBLIC_KEY.test(value)) return false;
  if (YAML_TAG.test(value) && (!v.quoted || /\s/.test(value))) return false;
  // Documentation's word (`secret`) is the password only where a credential must stand (a weaker
  // name's placeholder test above has it), and standing alone: not before more words (prose, `|
  // API_TOKEN | Token of the app |`), code's punctuation (a variable, `{ secretToken: secret, url
  // }`) or an assignment (a name, `token: password: 'p'`).
  const sample = isSampleValue(value);
  if (sample && !v.quoted && NOT_ALONE.test(text.slice(v.end, v.end + 24))) return false;
  if (strength !== "strong" && FILLED.test(value)) return false;
  // A word with more words after it on its line is a sentence (`Password: changed yesterday`,
  // `Secret: stored in Vault`), not a value.
  if (!v.quoted && isSentenceWord(text, v.start, v.end)) return false;
  if (!v.quoted && (CODE.test(value) || followedByCall)) return false;
  if (TIMESTAMP.test(value) || PATTERN.test(value) || ALGORITHM_VALUE.test(value)) return false;
  if (/^\d+$/.test(value)) return strength === "strong" && value.length >= 4 && value.length <= 64;
  if (/^[\d.:/-]+$/.test(value)) return false;
  if (isCommand(text, v)) return false;
  const generated = looksGenerated(text, v.start, v.end, 8);
  // A counted run (`0123456789`) marks documentation's value, a credential where one must stand.
  const counted = !certain && ORDERED_RUN.test(value);
  if (generated) return !counted;
  if (counted || /\d+\.\d+\.\d+/.test(value) || PATH.test(value)) return false;
  // A bare value that names a credential (`secretKey: api-key`, `name: github_token`) refers to
  // one; quoted, it is the password (`password = "rootpasswd"`). Only a name written as one:
  // words of letters, joined by `_ - .` or in camel case; `PINAyAAA9` holds `pin` by chance.
  // A sample word where a credential must stand is the password (`Password=secret;`).
  if (
    !v.quoted &&
    IDENTIFIER.test(value) &&
    !sample &&
    nameWords(value).some((w) => wordStrength(w) !== undefined)
  )
    return false;
  // A weak name (`key`, `session`) needs a value that looks generated; a qualified one
  // (`heroku_key`) one that looks like a credential: a UUID, letters and digits mixed.
  const passwordLike = isPasswordLike(value);
  // A qualified name (`heroku_key`) also takes a UUID, and a key in hex of a key's length
  // (`-Dsonar.login=<40 hex>`, `license_key=<32 hex>`) however its digits run: digests stand under
  // names of their own (`sha`, `commit`, `checksum`). A bare weak one (`key`, `accessId`) takes neither.
  if (strength === "qualified") return passwordLike || UUID.test(value) || HEX_KEY.test(value);
  if (strength === "weak") return passwordLike && !UUID.test(value) && !URL_START.test(value);
  if (v.loose) {
    // A loose form (`password is`, a blank): a quoted word, or a word with letters and digits.
    if (v.quoted) return value.length >= 4 && !/\s/.test(value);
    return value.length >= 6 && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
  }
  // A strong name: anything that is not a word of prose (`password: required` is caught above),
  // and any word in a connection string's fields (`Uid=root;Password=admin;`: no blanks; code's
  // `password = line;` is a variable).
  if (
    !v.quoted &&
    COMMON_WORD.test(value) &&
    value.length < 6 &&
    !sample &&
    !(text[v.end] === ";" && text[v.start - 1] === "=" && text[v.start - 2] !== " ") &&
    v.field !== true
  )
    return false;
  return value.length >= 4 || /[^A-Za-z]/.test(value);
}

/** A date, a time or both (ISO 8601, LDAP's generalized time `20240501100000Z`): never a credential. */
const TIMESTAMP =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$|^\d{14}(?:\.\d+)?Z$/;
/** A hash's, a cipher's, a signature's or a SASL mechanism's name as a whole value (`SHA-256`, `SSHA512`, `RS256`, `A256GCM`, `AES-256-CBC`, `CRAM-MD5`). */
const ALGORITHM_VALUE =
  /^(?:SHA-?\d{1,3}|S?SHA\d{0,3}|MD5|[HREP]S\d{3}(?:-PSS)?|ES256K|PBKDF2[\w-]*|bcrypt|argon2(?:id|i|d)?|scrypt|AES-?\d{3}(?:-[A-Z]{3})?|A\d{3}(?:GCM|KW|CBC-HS\d{3})|Ed25519|EdDSA|CRAM-MD5|DIGEST-MD5|SCRAM-SHA-\d{1,3}(?:-PLUS)?|XOAUTH2|OAUTHBEARER|GSSAPI|NTLM)$/i;
/** A regular expression (`^(?=.*[0-9]).{8,20}$`, `ghp_[A-Za-z0-9]{36}`): a credential's pattern, not one. */
const PATTERN = /^\^.*\$$|\(\?[=!:<]|\[(?:A-Z|a-z|0-9|A-Za-z)[^\]]{0,20}\](?:\{\d+(?:,\d*)?\}|[+*])/;

/**
 * Letters and digits with a capital or a symbol, no blanks (`Summer2021#`, `Orange84`): a
 * password, where `value1`, `v2` or `node-18` are words and versions.
 */
function isPasswordLike(value: string): boolean {
  return (
    value.length >= 6 &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /[A-Z]|[^\w.-]/.test(value) &&
    !/\s/.test(value) &&
    !LOWER_IDENTIFIER.test(value)
  );
}

/**
 * An access id (`accessId`, `report_access_id`) holding a UUID names a record, where a key
 * (`KEY=<uuid>`, Heroku's API keys) holds a credential.
 */
function isRecordId(text: string, v: Value, name: string): boolean {
  return (
    v.end - v.start === 36 &&
    UUID.test(text.slice(v.start, v.end)) &&
    /^(?:access)?id$/.test(nameWords(name).at(-1) ?? "")
  );
}

/** Finds credential words; the name around each is then read whole. */
const CREDENTIAL_WORD = new RegExp(
  String.raw`pass|pwd|pw\b|secret|token|key|auth|credential|creds?\b|bearer|cookie|dsn|webhook|pat\b|jwt|otp|sas\b|hmac|psk\b|session|signature|sig\b|licen[cs]e|pin\b|private|salt|login|access[_.-]?id|dockerc(?:fg|onfigjson)|${ASCII_PASSWORD_WORDS.join("|")}`,
  "gi",
);

/**
 * Does the name at `start` stand where it names no value of its own: a URL's user
 * (`https://__token__:****@host`, whose password the URL rules read), a request's path
 * (`POST /oauth/token HTTP/1.1`), a public key's label
 * (`Public key: age1…`, `public key: ACEN…=`), or a shell expansion's error message
 * (`${DB_PASSWORD:?set it in .env}`; its default, `${DB_PASSWORD:-x}`, is a value)?
 */
function isNotNaming(text: string, start: number): boolean {
  if (text.startsWith("://", start - 3)) return true;
  // An ARN's resource type (`arn:aws:secretsmanager:…:secret:prod/db`): the secret's name follows.
  if (text[start - 1] === ":" && ARN_BEFORE.test(text.slice(Math.max(0, start - 120), start))) return true;
  if (
    PUBLIC_BEFORE.test(text.slice(Math.max(0, start - 8), start)) &&
    KEY_NAME.test(text.slice(start, start + 4))
  )
    return true;
  if (text[start - 1] === "/") {
    // A request's path (`POST /oauth/token HTTP/1.1`): what follows is the protocol's version. A
    // parameter's path names its value (`/prod/smtp/password⇥S` from `aws ssm get-parameters`).
    const end = endOfName(text, start);
    return /^[ \t]+HTTP\/\d/.test(text.slice(end, end + 12));
  }
  if (text[start - 1] !== "{" || text[start - 2] !== "$") return false;
  return /^:?[?+]/.test(text.slice(endOfName(text, start), endOfName(text, start) + 2));
}

/** Where the name starting at `start` ends. */
function endOfName(text: string, start: number): number {
  let end = start;
  while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
  return end;
}
/** An ARN up to its resource type: `arn:partition:service:region:account:`. */
const ARN_BEFORE = /\barn:aws[\w-]*:[\w-]+:[\w-]*:\d*:$/;
const PUBLIC_BEFORE = /(?:^|[^A-Za-z])public[ \t]$/i;
/** The name `key` alone (`Public key:`); a class's `public password = …` is a field. */
const KEY_NAME = /^key(?![A-Za-z0-9_])/i;

/** Where the name around a credential's word ending at `wordEnd` ends. */
function nameEnd(text: string, start: number, wordEnd: number): number {
  let end = wordEnd;
  while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
  // A sentence's full stop or a trailing dash is not part of the name.
  while (end > wordEnd && /[.-]/.test(text[end - 1] ?? "")) end--;
  // An enum constant read for its name (`(PGProperty.PASSWORD.getName(), "x")`) names the constant.
  if (text[start - 1] === "(") {
    const read = ENUM_READ.exec(text.slice(start, end));
    if (read !== null && CONSTANT_KEY.test(text.slice(start, end - read[0].length))) end -= read[0].length;
  }
  return end;
}

/**
 * Appends the values given to credential names in `text`: each occurrence of a credential word
 * is read as the name around it, and the value after that name (if any) is judged by how
 * strongly the name names a credential.
 */
function scanCredentialAssignments(text: string, out: Detection[], rule: string): void {
  CREDENTIAL_WORD.lastIndex = 0;
  let doneUntil = -1;
  // The last value found: a value is rescanned for names (`token => client_secret='…'`), but a
  // word at its end (`…V00Pw`, a token ending in `pw`) makes no name of the value itself.
  let found: Value | undefined;
  for (let m = CREDENTIAL_WORD.exec(text); m !== null; m = CREDENTIAL_WORD.exec(text)) {
    if (m.index < doneUntil) continue;
    let start = m.index;
    while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
    const end = nameEnd(text, start, m.index + m[0].length);
    doneUntil = end;
    CREDENTIAL_WORD.lastIndex = end;
    const name = text.slice(start, end);
    // A settings class's key as a setter's first argument names what it sets (Kafka's
    // `props.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, "…")`); its own definition assigns the key.
    const strength =
      strengthOfName(name) ?? (text[start - 1] === "(" && CONSTANT_KEY.test(name) ? "strong" : undefined);
    if (strength === undefined) {
      scanListOf(text, name, end, out, rule);
      continue;
    }
    if (FAKE_NAME.test(name) || isNotNaming(text, start)) continue;
    // A `/` flag (`/Password x`) stands after a blank or at the start: after any other character the
    // `/` is inside a run (`…AAAA/AAAPw metadata` is base64, not the flag `/…Pw` and its value).
    const slashFlag = text[start - 1] === "/" && (start === 1 || SPACE.test(text[start - 2] ?? ""));
    const isFlag = text[start - 1] === "-" || slashFlag || name.startsWith("-");
    let v = literalBefore(text, start) ?? valueAfter(text, start, end, isFlag);
    if (v === undefined) continue;
    // A variable's expansion (`"$DEPLOY_TOKEN" "$URL"`) names no value that follows a blank.
    if (text[start] === "$" && v.loose) continue;
    // A found value ending in a credential's word names nothing (`…V00Pw https://`, `"…Pw", "user"`)
    // unless a value is assigned to it (`token: password: 'p'`, `token => client_secret='…'`).
    if (
      found !== undefined &&
      start < found.end &&
      end >= found.end &&
      !/[:=]/.test(text.slice(end, v.start))
    )
      continue;
    // A flag's argument holding a credential's word (`-p and-session-3806 host`) is no name: the
    // word after it is the command's next argument.
    if (v.loose && !v.quoted && FLAG_ARGUMENT.test(text.slice(Math.max(0, start - 40), start))) continue;
    // A usage text's placeholder for a flag's value (`--private-key FILE`, `--token <TOKEN>`).
    if (isFlag && !v.quoted && METAVAR.test(text.slice(v.start, v.end))) continue;
    const followedByCall = text[v.end] === "(";
    // A flag or a URL query names what it takes: `--key x`, `?sig=x` are as good as `api_key`.
    const inQuery = text[start - 1] === "?" || text[start - 1] === "&";
    let judged: Strength = strength;
    if (v.paired === true) judged = "strong";
    else if (strength === "weak" && (isFlag || inQuery)) judged = "qualified";
    // A value cut short (`KEY=6x8SH8LOlGCIN3cch60j...`, a truncated line) shows most of itself:
    // what shows is judged, unless it is a few characters or a JSON header in base64 (a mask).
    const shown = shownBeforeEllipsis(text, v);
    if (!isSecretFor(text, name, shown, judged, followedByCall) || isRecordId(text, shown, name)) continue;
    v = shown;
    out.push({ start: v.start, end: v.end, rule, kind: "secret" });
    found = v;
    // `password changed from 'a' to 'b'`: the new one too.
    const to = v.loose ? CHANGED_TO.exec(text.slice(v.end, v.end + 12)) : null;
    if (to !== null) {
      const s = v.end + to[0].length;
      const next = quoted(text, s, true) ?? bare(text, s, true);
      if (next !== undefined && isCredentialValue(text, next, judged, false)) {
        out.push({ start: next.start, end: next.end, rule, kind: "secret" });
      }
    }
    // Rescan the value: `token => client_secret='…'` holds a second assignment.
    if (v.start > start) {
      CREDENTIAL_WORD.lastIndex = v.start;
      doneUntil = v.start;
    }
  }
}

/**
 * Is `v` a secret given to `name` of strength `judged`? Code compares a token or a key with
 * literals of its grammar (`tok.type === "ident"`, `key === "Enter"`): such a name takes only a
 * literal that looks like a credential by itself; a password or a secret compared with a literal
 * is checked against the credential itself.
 */
function isSecretFor(
  text: string,
  name: string,
  v: Value,
  judged: Strength,
  followedByCall: boolean,
): boolean {
  const grammar = v.compared === true && !COMPARED_NAME.test(name);
  const value = text.slice(v.start, v.end);
  // A message compared (`assertEquals("This field is required.", errors.password)`): a sentence.
  if (v.compared === true && COMPARED_PROSE.test(value)) return false;
  return (
    isCredentialValue(text, v, grammar ? "weak" : judged, followedByCall) &&
    (!grammar || isMadeUpLiteral(text, v)) &&
    !isTypedPlaceholder(name, value) &&
    !isSettingValue(name, value)
  );
}

const COMPARED_PROSE = /^[A-Z][a-z',]*(?: [A-Za-z',]+){2,}[.?]$/;

/** A comparison's operator and blanks at the end of the text before a name, and blanks before it. */
const COMPARE_BEFORE = /[ \t]*[=!]==?[ \t]*$/;

/**
 * The literal compared with the name starting at `start` from before it (`"x" == password`,
 * `'x' !== token`, `\"x\" == pwd` inside a JSON string).
 */
function literalBefore(text: string, start: number): Value | undefined {
  // The operator's `=` next to the name (past blanks) before any regexp: most names have none.
  let j = start;
  while (j > 0 && SPACE.test(text[j - 1] ?? "")) j--;
  if (text[j - 1] !== "=") return undefined;
  const op = COMPARE_BEFORE.exec(text.slice(Math.max(0, start - 64), start));
  if (op === null) return undefined;
  const v = literalClosingAt(text, start - op[0].length - 1);
  return v === undefined ? undefined : { ...v, compared: true };
}

/**
 * The literal whose closing quote (`"` or `'`, or one escaped inside a JSON string: `\"x\"`) is at
 * `close`, on one line; undefined when none is.
 */
function literalClosingAt(text: string, close: number): Value | undefined {
  const q = text[close];
  if (q !== '"' && q !== "'") return undefined;
  const escaped = text[close - 1] === "\\";
  for (let open = close - 1 - (escaped ? 1 : 0); open >= 0 && close - open <= 1024; open--) {
    const c = text[open];
    if (c === "\n" || c === "\r") return undefined;
    if (c !== q) continue;
    // Inside `\"…\"` the literal opens with an escaped quote; a plain one opens with its quote alone.
    if (escaped !== (text[open - 1] === "\\")) continue;
    const end = escaped ? close - 1 : close;
    return open + 1 < end ? { start: open + 1, end, quoted: true, loose: false } : undefined;
  }
  return undefined;
}

/**
 * Is `value`, given to `name`, a setting's word rather than a credential: the Fetch API's
 * `credentials: "include" | "omit" | "same-origin"` (HTML's `use-credentials`), a label that is
 * the name in words (`AUTHORIZATION_TOKEN = "Authorization Token"`, `clientToken: 'client-token'`;
 * `password: "secret-password"` is a password) or beside another label, or a query's parameter named as its field
 * (ADO.NET's `Password=@password`; `@dminPass` is a password)? Or a scheme's word alone.
 */
function isSettingValue(name: string, value: string): boolean {
  // An `Authorization` scheme's word alone (`headers.Authorization = "Bearer ".concat(token)`).
  if (isAuthSchemeWord(value)) return true;
  // A form's prompt naming the password (`"Forgot your password?"`, `"Enter your password:"`).
  if (/\s/.test(value) && PASSWORD_WORD_IN.test(value) && PROMPT.test(value)) return true;
  const words = nameWords(name);
  // A token's or a key's name's own words as an identifier (`IAM_ROLE_STATEMENTS_TOKEN =
  // 'iamRoleStatements'`); a password of them is a password (`ADMIN_PASSWORD=admin_admin`,
  // `MYSQL_PASSWORD: MySQLPassword`).
  if (!COMPARED_NAME.test(name) && /^[A-Za-z]+(?:[_-][A-Za-z]+)*$/.test(value)) {
    const valueWords = nameWords(value);
    if (valueWords.length >= 2 && valueWords.every((w) => words.includes(w))) return true;
  }
  if (FETCH_CREDENTIALS.test(value)) return words[words.length - 1] === "credentials";
  // A cookie's name with no value (`Set-Cookie: sessionid=""; Max-Age=0`: cleared).
  if (/cookie$/i.test(name) && /^(?:[a-z_][a-z0-9_.-]*|[A-Z_][A-Z0-9_.-]*)=$/.test(value)) return true;
  // A label beside another (`('access_token', 'refresh_token')`): names listed, not a value.
  if (CREDENTIAL_LABEL.test(value))
    return nameWords(value).join(" ") === words.join(" ") || CREDENTIAL_LABEL.test(name);
  return value.startsWith("@") && value.slice(1).toLowerCase() === name.toLowerCase();
}
const FETCH_CREDENTIALS = /^(?:include|omit|same-origin|use-credentials)$/;
/** "Password" as a word, in English or another language (`Lösenord`, `mot de passe`). */
const PASSWORD_WORD_IN = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:passwords?|${OTHER_LANGUAGE_PASSWORDS.join("|")})(?![\p{L}\p{N}])`,
  "iu",
);
/** A prompt: a question, a label's colon, or addressed to the reader. */
const PROMPT = /[?:？：]$|\b(?:your|votre|ihr|dein|tu|su)\b/i;
const CREDENTIAL_LABEL =
  /^(?:(?:api|access|auth|authorization|bearer|client|refresh|session|private|public|secret|token|key|password|passphrase|credentials?|id)[ _-]+)+(?:api|access|auth|authorization|bearer|client|refresh|session|private|secret|token|key|password|passphrase|credentials?|id)$/i;

/**
 * Is the literal `v` a credential by itself, compared with a token or a key: generated, or holding
 * a password's punctuation (`Summer2024!`, `k3y#prod`). Code compares keys and tokens with
 * shortcuts (`Ctrl+Shift+1`), paths (`alias/aws/s3`, `$.data[0]`), type names (`EC2Instance`,
 * `secp256k1`) and cache keys (`app:v1:settings`), none of which is either.
 */
function isMadeUpLiteral(text: string, v: Value): boolean {
  const value = text.slice(v.start, v.end);
  if (isAlgorithmName(value)) return false;
  // Short names of formats and keys (`base64url`, `Shift+F10`) read as generated by chance.
  return looksGenerated(text, v.start, v.end, GENERATED_COMPARED) || PASSWORD_PUNCTUATION.test(value);
}
/** Fewest characters of a compared literal judged generated. */
const GENERATED_COMPARED = 12;
const PASSWORD_PUNCTUATION = /[!@#%^&*~?]/;

/**
 * A plural name's list: each password of `passwords: ["a", "b"]` (or a block list), each generated item of
 * another's (`api_tokens:⏎  - x`; a tokenizer's `tokens: ["the", "quick"]` and a key map's
 * `keys: ["Ctrl+F12"]` hold words).
 */
function scanListOf(text: string, name: string, end: number, out: Detection[], rule: string): void {
  const one = name.endsWith("s") ? strengthOfName(name.slice(0, -1)) : undefined;
  if (one === undefined || FAKE_NAME.test(name)) return;
  const passwords = /pass|pwd/i.test(name);
  for (const item of listItems(text, end)) {
    const credential = passwords
      ? isCredentialValue(text, item, "strong", false)
      : looksGenerated(text, item.start, item.end, 16) &&
        !SSH_PUBLIC_KEY.test(text.slice(item.start, item.end));
    if (credential) out.push({ start: item.start, end: item.end, rule, kind: "secret" });
  }
}

/** An assignment opening a list: a flow list's `[`, or a line break before a block list's `- `. */
const LIST_OPENS = /^["']?[ \t]*(?::|=>|=)[ \t]*(?:\[|(?=\r?\n[ \t]*-[ \t]))/;
/** A block list's next item: a line break, the indent, `- `. */
const BLOCK_ITEM = /^\r?\n[ \t]*-[ \t]+/;
/** Items read from one list, at most. */
const LIST_ITEMS = 32;

/** The items of a list assigned after `at` (`["a", "b"]`, a YAML block list), quoted or bare. */
function listItems(text: string, at: number): Value[] {
  const open = LIST_OPENS.exec(text.slice(at, at + 40));
  if (open === null) return [];
  const items: Value[] = [];
  let p = at + open[0].length;
  if (text[p - 1] === "[") {
    while (items.length < LIST_ITEMS) {
      while (p < text.length && /\s/.test(text[p] ?? "")) p++;
      const v = quoted(text, p, false) ?? bare(text, p, false);
      if (v === undefined) break;
      items.push(v);
      p = v.quoted ? v.end + 1 : v.end;
      while (p < text.length && /\s/.test(text[p] ?? "")) p++;
      // A key of a map, not an item of a list (PHP's `'passwords' => [ 'users' => [`).
      if (text.startsWith("=>", p) || (v.quoted && text[p] === ":")) return [];
      if (text[p] !== ",") break;
      p++;
    }
    return items;
  }
  for (let m = BLOCK_ITEM.exec(text.slice(p, p + 200)); m !== null && items.length < LIST_ITEMS; ) {
    const v = quoted(text, p + m[0].length, false) ?? bare(text, p + m[0].length, false);
    if (v === undefined) break;
    items.push(v);
    p = v.quoted ? v.end + 1 : v.end;
    m = BLOCK_ITEM.exec(text.slice(p, p + 200));
  }
  return items;
}

/** A flag's value in a usage text: a word in capitals (`FILE`, `KEY_PATH`). */
const METAVAR = /^[A-Z][A-Z0-9_-]*$/;

/** A command-line flag and a blank before the token a word stands in: the token is the flag's argument. */
const FLAG_ARGUMENT = /(?:^|\s)--?[A-Za-z][\w-]*[ \t]+\S*$/;

/** A callee's last name beginning with a verb that reads, makes or checks a credential by name. */
const LOOKUP_CALLEE =
  /^(?:get|from|fetch|read|load|lookup|find|generate|gen|create|delete|remove|describe|list|rotate|revoke|has|is|validate|verify|check|require|resolve)(?=[A-Z_]|$)/;

/**
 * A callee that opens a session or an account with what it is given (`getConnection`,
 * `createConnection`, `loginWith`, Firebase's `createUserWithEmailAndPassword`).
 */
const SESSION_CALLEE = /connect|login|signin|auth|With\w{0,24}Password$/i;

/** Callee names that take a credential (`NetworkCredential`, `login`, `authenticate`, `setPassword`). */
const CALLEE_WORD =
  /credential|login|logon|auth|password|secret|token|signin|connect|ldap_(?:sasl_)?bind|simple_bind/i;
/** A host's name or address (`localhost`, `10.0.0.5`, `db.internal`). */
const HOST = /^(?:localhost|[\d.:]+|[\w-]+(?:\.[\w-]+)+)$/;
/** An e-mail address: an account's name, never its password. */
const EMAIL_ADDRESS = /^[^@\s]+@[\w-]+(?:\.[\w-]+)+$/;
/** Callees that may take a name before a user and a password, or before a new password. */
const LEADING_NAME_CALLEE =
  /^(?:getConnection|Connection|connect|open|login|logon|signIn|authenticate|ldap_bind|ldap_sasl_bind|(?:change|update|set|reset)Password|(?:signIn|signUp|logIn|createUser|reauthenticate)With\w{0,24}Password)$/i;
/**
 * A name as a call's first argument, or two, and their commas (`url, `, `ctx, `, `this.password, `,
 * Firebase's `auth, email, `); not a construct's scope (CDK's `new Secret(this, 'Secret')`,
 * `fromConnectionName(stack, 'Id', 'name')`).
 */
const LEADING_NAME_ARGUMENT =
  /^(?!(?:this|self|scope|stack|app|parent|construct)[ \t]*,)(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?[ \t]*,[ \t]*){1,2}(?=["'])/;
/**
 * A string argument and what ends it: a comma, the call's `)`, or the text's end; after a
 * conversion to an owned string or to bytes (Rust's `"p".to_owned()`, Java's `"p".toCharArray()`).
 */
const STRING_ARG =
  /^(?:"((?:[^"\\\r\n]|\\.){1,512})"|'((?:[^'\\\r\n]|\\.){1,512})')(?:\.(?:to_owned|to_string|into|toCharArray|getBytes|toByteArray)\(\))?\s*(,\s*|\)|$)/;
/** An empty first argument (Go's `smtp.PlainAuth("", user, password, host)`: no identity). */
const EMPTY_FIRST_ARG = /^(?:""|'')[ \t]*,[ \t]*/;
/**
 * An endpoint written as a URL of a scheme (`jdbc:mysql://…`, `LDAP://…`, `ftp://…`) or as PHP's
 * PDO names one (`mysql:host=db;dbname=app`).
 */
const ENDPOINT = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)+\/\/|^[a-z]+:(?:host|dbname|server|Server)[ \t]*=/;
/** An LDAP distinguished name of a user (`cn=admin,dc=example,dc=org`, `uid=bob, ou=people`). */
const DISTINGUISHED_NAME = /^(?:cn|uid|CN|UID)=[^,="]{1,64},[ \t]*(?:ou|dc|o|cn|OU|DC|O|CN)=/;
/** A key store's file as a call's first string (`"cert.pfx", `, `'keystore.jks',`). */
const KEY_STORE_FIRST =
  /^(["'])(?:[A-Za-z]:)?[^"'\r\n%{}=:]{1,200}\.(?:pfx|p12|jks|keystore|pkcs12|bks|jceks)\1[ \t]*,/i;
/** A file's name or path (`server.key`), or how a file is opened or read (`"rb+"`, `"base64"`, `"PKCS12"`). */
const FILE_NAME_OR_MODE =
  /\.[A-Za-z][A-Za-z0-9]{1,7}$|^(?:[rwabxtU+]{1,4}|utf-?8|ascii|latin-?1|base64|hex|binary|pem|der|pkcs[-#]?12|jks|jceks|bks|x509|AndroidKeyStore)$/i;
/** A callee that binds to a directory with a user's name and password (`simple_bind_s`, `Bind`, `bindAs`). */
const BIND_CALLEE = /bind|auth|login|logon|connect|cred/i;
/** What a call's first string may be for its strings to be read whatever its callee. */
const ENDPOINT_OR_DN = new RegExp(`${ENDPOINT.source}|${DISTINGUISHED_NAME.source}`);
const WEB = /^https?:/i;

/**
 * Callees that compare two strings (`strcmp`, `Objects.equals`, `string.Equals`, `assertEquals`),
 * or compare a literal with their argument (`"x".equals(password)`).
 */
const COMPARE_CALLEE =
  /^(?:\.|\w+(?:\.|::))?(?:str(?:n)?(?:case)?cmp|_?str(?:n)?icmp|wcs(?:n)?cmp|equals(?:IgnoreCase)?|Equals?|assert(?:Equals|Equal|_equal|_eq)|isEqual(?:ToString)?)$/;
/** The receiver of an `equals` method (`password.equals(…)`, `cfg.token.Equals(…)`). */
const RECEIVER = /^([A-Za-z_$][\w$.]*)\.(?:equals(?:IgnoreCase)?|Equals)$/;
/** A name passed to a comparison: a path of names, a getter's call (`user.password`, `cfg->pwd`, `getToken()`). */
const NAME_ARGUMENT = /^&?([A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*)(?:\(\))?[ \t]*(?=[,)])/;

/**
 * The literals a comparison call compares a credential's name with: `strcmp(passwd, "x")`,
 * `Objects.equals("x", token)`, `"x".equals(password)` (the callee starting at `start`, its
 * arguments at `at`); judged as a literal compared with the name (`password == "x"`).
 */
function comparedArguments(text: string, callee: string, start: number, at: number): Value[] {
  const args: ({ name: string } | Value)[] = [];
  let i = at;
  // Three at most: a message first (JUnit's `assertEquals("msg", "x", pwd)`), a test's handle
  // (testify's `assert.Equal(t, "x", cfg.Password)`), a length (`strncmp(a, "x", 8)`).
  while (args.length < 3) {
    i += LITERAL_PREFIX.exec(text.slice(i, i + 3))?.[0].length ?? 0;
    const v = quoted(text, i, false);
    const name = v === undefined ? NAME_ARGUMENT.exec(text.slice(i, i + 120)) : null;
    if (v !== undefined) args.push(v);
    else if (name !== null) args.push({ name: name[1] as string });
    else if (args.length === 0) return [];
    else break;
    i = v === undefined ? i + (name?.[0].length ?? 0) : v.end + 1;
    while (SPACE.test(text[i] ?? "")) i++;
    if (text[i] !== ",") break;
    i++;
    while (SPACE.test(text[i] ?? "")) i++;
  }
  if (args.length === 1) {
    // One argument: the other operand is the method's receiver, a name (`password.equals("x")`)
    // or a literal (`"x".equals(password)`).
    const receiver = RECEIVER.exec(callee);
    const dot = text[start] === "." ? start : start - 1;
    const before = text[dot] === "." ? literalClosingAt(text, dot - 1) : undefined;
    if (receiver !== null) args.unshift({ name: receiver[1] as string });
    else if (before !== undefined) args.unshift(before);
  }
  // The credential's name among the arguments, and the literals next to it.
  const k = args.findIndex((a) => "name" in a && strengthOfName(lastName(a.name)) !== undefined);
  const named = args[k];
  if (named === undefined || !("name" in named)) return [];
  const name = lastName(named.name);
  const strength = strengthOfName(name);
  if (strength === undefined || FAKE_NAME.test(name)) return [];
  return [args[k - 1], args[k + 1]].filter(
    (a): a is Value =>
      a !== undefined && !("name" in a) && isSecretFor(text, name, { ...a, compared: true }, strength, false),
  );
}

/** The last name of a path (`cfg.password` → `password`, `user->pwd`, `Config::TOKEN`). */
function lastName(path: string): string {
  return path.slice(
    Math.max(path.lastIndexOf(".") + 1, path.lastIndexOf(">") + 1, path.lastIndexOf(":") + 1),
  );
}

/** A literal's prefix: C's and C++'s wide and UTF-8 strings (`L"x"`, `u8"x"`), Objective-C's `@"x"`. */
const LITERAL_PREFIX = /^(?:L|u8|u|U|@)(?=["'])/;

/**
 * Appends the credential arguments of calls: every string argument after the first (the user)
 * of a callee naming a credential, login or connection; a lone argument when the callee names
 * a password, secret or token (`setPassword("p")`). A call of three strings whose first is an
 * endpoint takes them as endpoint, user, password (`getConnection("jdbc:…", "u", "p")`,
 * `new DirectoryEntry("LDAP://…", "u", "p")`), whatever its callee unless the endpoint is a web URL.
 */
function scanCredentialArguments(text: string, out: Detection[], rule: string): void {
  for (let open = text.indexOf("("); open !== -1; open = text.indexOf("(", open + 1)) {
    // The callee: the name before `(` (blanks allowed between).
    let end = open;
    while (end > 0 && SPACE.test(text[end - 1] ?? "")) end--;
    // A Rust macro's `!` (`assert_eq!(`).
    if (text[end - 1] === "!") end--;
    let start = end;
    while (start > 0 && end - start < 80 && isNameChar(text.charCodeAt(start - 1))) start--;
    // A path's segments (Rust's `Credentials::new`): the type names what the call makes.
    while (text.startsWith("::", start - 2) && isNameChar(text.charCodeAt(start - 3)) && end - start < 80) {
      start -= 2;
      while (start > 0 && end - start < 80 && isNameChar(text.charCodeAt(start - 1))) start--;
    }
    if (end - start < 3) continue;
    const callee = text.slice(start, end);
    let at = open + 1;
    while (at < text.length && /\s/.test(text[at] ?? "")) at++;
    const place = keyPlaceOf(text.slice(Math.max(0, start - 48), end));
    if (place !== undefined) {
      const keys = keyArguments(text, at, place);
      pushArguments(text, keys, out, rule);
      // A password's characters are one way to call `load` or `PasswordAuthentication`; strings are another.
      if (typeof place !== "object" || keys.length > 0) continue;
    }
    if (COMPARE_CALLEE.test(callee)) {
      const compared = comparedArguments(text, callee, start, at);
      for (const v of compared) out.push({ start: v.start, end: v.end, rule, kind: "secret" });
      if (compared.length > 0) continue;
    }
    pushArguments(text, namedCallArguments(text, callee, at), out, rule);
  }
}

/** Appends the arguments found as credentials that are no stand-ins, of 3 characters or more. */
function pushArguments(
  text: string,
  found: readonly [number, number][],
  out: Detection[],
  rule: string,
): void {
  for (const [s, e] of found) {
    if (e - s >= 3 && !isStandInValue(text.slice(s, e))) out.push({ start: s, end: e, rule, kind: "secret" });
  }
}

/**
 * The credential arguments of the call of `callee` whose arguments start at `at`, as `[start, end)`
 * of their strings' contents (see `scanCredentialArguments`).
 */
function namedCallArguments(text: string, callee: string, at: number): [number, number][] {
  // A callee that looks a credential up, makes or describes one takes its name, not the secret
  // (`fromGeneratedSecret('postgres')`, `getSecretValue('db')`, `fromSecretName(this, 'Db', 'x')`).
  const last = callee.slice(callee.lastIndexOf(".") + 1);
  const named = CALLEE_WORD.test(callee) && !(LOOKUP_CALLEE.test(last) && !SESSION_CALLEE.test(last));
  // Any other callee only when its first argument is a quoted endpoint.
  const quotedFirst = text[at] === '"' || text[at] === "'";
  const keyStore = quotedFirst && KEY_STORE_FIRST.test(text.slice(at, at + 260));
  if (!named && !keyStore && !(quotedFirst && ENDPOINT_OR_DN.test(text.slice(at + 1, at + 48)))) return [];
  // A session's or a password's callee may take a name first (`getConnection(url, "u", "p")`,
  // Go's `client.Login(ctx, "u", "p")`, `ChangePassword(old, "new")`): the strings after it are
  // read as from the start.
  const leading = LEADING_NAME_CALLEE.test(last)
    ? LEADING_NAME_ARGUMENT.exec(text.slice(at, at + 120))
    : null;
  const args = stringArguments(text, at + (leading?.[0].length ?? 0));
  if (args === undefined) return [];
  const first = args[0] === undefined ? "" : text.slice(args[0][0], args[0][1]);
  const second = args[1] === undefined ? undefined : text.slice(args[1][0], args[1][1]);
  const bound = second === undefined ? undefined : boundPassword(first, second, last, keyStore);
  if (bound !== undefined) return bound ? args.slice(1, 2) : [];
  const endpoint = args.length === 3 && ENDPOINT.test(first) && (named || !WEB.test(first));
  if (!named && !endpoint) return [];
  if (leading !== null) return afterLeadingName(args, first, last);
  // `setPassword("p")`, and a client's `auth("p")` (Redis' `AUTH`).
  if (args.length === 1 && /password|secret|token|passphrase|(?:^|\.)auth$/i.test(callee)) return args;
  // A connection of three or four strings takes host, user, password (and database):
  // `mysql.createConnection("localhost", "root", "p")`, PHP's `mysqli_connect(h, u, p, db)`.
  const hostFirst = args.length >= 3 && /connect/i.test(last);
  return endpoint || hostFirst ? args.slice(2, 3) : args.slice(1, 2);
}

/**
 * Up to four string arguments from `i`, as `[start, end)` of their contents; undefined for a call
 * cut after a string (a truncated line) unless it shows two strings, the last like a password
 * (`UserPasswordCredential("username1"` shows a user, `login("bob", "Welcome to the app"` a message).
 */
function stringArguments(text: string, from: number): [number, number][] | undefined {
  const args: [number, number][] = [];
  let i = from + (EMPTY_FIRST_ARG.exec(text.slice(from, from + 8))?.[0].length ?? 0);
  let cut = false;
  for (let k = 0; k < 4; k++) {
    const a = STRING_ARG.exec(text.slice(i, i + 1100));
    if (a === null) break;
    const s = i + 1;
    args.push([s, s + (a[1] ?? a[2] ?? "").length]);
    i += a[0].length;
    cut = a[3] === "";
    if (a[3] === ")" || cut) break;
  }
  const lastArg = args.at(-1);
  if (
    cut &&
    (args.length < 2 || lastArg === undefined || !isPasswordLike(text.slice(lastArg[0], lastArg[1])))
  )
    return undefined;
  return args;
}

/**
 * Is the second string of a call the password of what its first names, when the first is an
 * LDAP user's DN or a key store's file; undefined when it is neither.
 */
function boundPassword(first: string, second: string, last: string, keyStore: boolean): boolean | undefined {
  // An LDAP bind's user is a distinguished name, its password the next string
  // (`ldap.simple_bind_s("cn=admin,dc=example", "p")`, Go's `l.Bind("uid=u,ou=people", "p")`);
  // JNDI's `bind(name, object)` binds objects (`bind("cn=Fruit,o=Tutorial", "apple")`), so a
  // bare `bind` takes a word with a digit or of 8 characters or more, and `rebind` nothing.
  if (DISTINGUISHED_NAME.test(first) && BIND_CALLEE.test(last) && !/^rebind$/i.test(last))
    return !/^bind$/i.test(last) || (!/\s/.test(second) && (/\d/.test(second) || second.length >= 8));
  // A key store's file, then its password (`new X509Certificate2("cert.pfx", "p")`), only when it
  // looks like one: a copy's destination, an alias, a bucket, a store's type or a MIME type stand
  // there too (`copy("a.p12", "backup/")`, `sign("a.jks", "release")`).
  if (keyStore)
    return (
      isPasswordLike(second) &&
      !/\//.test(second) &&
      !FILE_NAME_OR_MODE.test(second) &&
      !isAlgorithmName(second)
    );
  return undefined;
}

/**
 * The credential among the strings after a leading name: the URL's user and password
 * (`getConnection(url, "u", "p")`), the new password after the old (`ChangePassword(old, "new")`);
 * not a host and a port (`connect(socket, "localhost", "8080")`).
 */
function afterLeadingName(args: [number, number][], first: string, last: string): [number, number][] {
  // ldap3's `Connection(server, "cn=…", "p")`; not any connection's strings (`Connection(ctx, "db", "readonly")`).
  if (/^Connection$/.test(last) && !DISTINGUISHED_NAME.test(first)) return [];
  if (args.length >= 2) return HOST.test(first) ? [] : args.slice(1, 2);
  // An e-mail address is the account, not its password (`…WithEmailAndPassword(auth, "a@b.io", pw)`).
  if (args.length !== 1 || HOST.test(first) || EMAIL_ADDRESS.test(first)) return [];
  // One string after a name: the new password, or a login's password when it looks like one
  // (`server.login(user, "S3cret!x")`; not a role, a path or a mechanism: `login(page, "admin")`,
  // `login(page, "/dashboard")`, `authenticate(sock, "SCRAM-SHA-256")`).
  const login =
    /^(?:login|logon|signIn|authenticate)$/i.test(last) &&
    isPasswordLike(first) &&
    /[a-z]/.test(first) &&
    !/[/:]/.test(first);
  return /password|secret|token/i.test(last) || login ? args : [];
}

/** `-u user -p secret` (PsExec, mysql, sqlcmd…) and `mysql … -psecret`: `-p` next to a user. */
const USER_FLAG = /(?:^|\s)['"]?(?:-u|-U|--user(?:name)?|-l)(?:[\s=]|(?=[A-Za-z]))/;
/**
 * `-p x`, `--password x`, or mysql's `-px` (not `-password`, `-port`, `--password-stdin`); quoted
 * whole as `bash -x` prints it (`'-pMy-Dep!oy-7'`) too.
 */
const P_FLAG =
  /(?:^|\s)['"]?(?:-(?:p|P|-pass(?:word)?|pw)[ \t=]+|-[pP](?!ass|ort|rofile|rint|retty|w\b)(?=[^\s-]))("[^"\r\n]+"|'[^'\r\n]+'|[^\s"']+)/dg;

/** Prose's little words, never a password given to a flag. */
const FUNCTION_WORD =
  /^(?:via|the|and|for|with|from|into|onto|instead|when|which|that|this|then|than|are|was|were|has|have|can|may|must|should|will|not|only|also)$/i;

function scanPasswordFlags(text: string, out: Detection[], rule: string): void {
  if (!USER_FLAG.test(text)) return;
  for (const { start, end, quoted: isQuoted } of groupValues(P_FLAG, text, /["']/)) {
    const value = text.slice(start, end);
    // A port mapping or number (`-p 8080:80`, `-P 2222`) is not a password; nor prose's little
    // word after a flag named in a sentence (Docker's `Using --password via the CLI is insecure`).
    if (/^[\d:./-]+$/.test(value) || value.length < 3 || isStandInValue(value)) continue;
    if (!isQuoted && FUNCTION_WORD.test(value)) continue;
    out.push({ start, end, rule, kind: "secret" });
  }
}

/** The words `LOCALIZED_PASSWORD` reads, as they are, capitalized and in capitals: its rule's needles. */
const LOCALIZED_SPELLINGS = OTHER_LANGUAGE_PASSWORDS.flatMap((w) => [
  w,
  w[0]?.toUpperCase() + w.slice(1),
  w.toUpperCase(),
]);

/**
 * "Password" in another language (`OTHER_LANGUAGE_PASSWORDS`, also capitalized and in capitals),
 * then a separator or a copula, then the value (group 1). Not case-insensitive: with
 * `iu` the value's class would lose `s` and `k` (they fold to `ſ` and `K`, outside ASCII).
 */
const LOCALIZED_PASSWORD = new RegExp(
  String.raw`(?<![\p{L}\p{N}_])(?:${LOCALIZED_SPELLINGS.join("|")})(?:[ \t]*[:：=][ \t]*|[ \t]+(?:ist|est|es|é|is|är|er|on|jest|je|είναι|—|-)[ \t]+|[ \t]*(?:は|는|은|是|为|為)[ \t]*)("[^"\r\n]{1,256}"|'[^'\r\n]{1,256}'|「[^」\r\n]{1,256}」|[^\s"'「」，。、,;\u0080-\uFFFF]{3,256})`,
  "dgu",
);

function scanLocalizedPasswords(text: string, out: Detection[], rule: string): void {
  for (const { start, end: to, quoted } of groupValues(LOCALIZED_PASSWORD, text, /["'「]/)) {
    // A sentence's full stop, comma or colon is not part of a bare value (an ellipsis is).
    const end = !quoted && /[.,:]/.test(text[to - 1] ?? "") && text[to - 2] !== "." ? to - 1 : to;
    const value = text.slice(start, end);
    if (value.length < 3 || isPlaceholderValue(value)) continue;
    if (!quoted && !/[\d\W_]/.test(value)) continue;
    out.push({ start, end, rule, kind: "secret" });
  }
}

/** `user:password` as a whole member name (`{"deploy:S3cr3t!": …}`): no name holds one. */
const CREDENTIAL_PAIR = /^[^\s:@/"']{1,64}:([^\s]{6,256})$/;

/**
 * Appends the password of a member name that is a `user:password` pair: a second part with a
 * letter and a digit or a symbol, that is no port, time, path, URL or tag (`sha256:…`).
 */
export function scanCredentialPairName(name: string, out: Detection[]): void {
  const m = CREDENTIAL_PAIR.exec(name);
  const secret = m?.[1];
  if (
    secret === undefined ||
    /^\d+$|^\/|^[\d:.]+$/.test(secret) ||
    /^(?:sha\d*|md5|https?|ftp|urn|data)$/i.test(name.slice(0, name.indexOf(":")))
  ) {
    return;
  }
  if (!/[A-Za-z]/.test(secret) || !/[\d\W_]/.test(secret) || isPlaceholderValue(secret)) return;
  const start = name.length - secret.length;
  out.push({ start, end: name.length, rule: CREDENTIAL_PAIR_RULE, kind: "secret" });
}

/**
 * A value alone under its label that reads as one: letters with a digit or a symbol (`hunter2`,
 * `Spring2025?`), or a generated token; a word alone (`Required`, `Enabled`) is the label's text.
 */
function isLabelledValue(value: string): boolean {
  return (
    (value.length >= 6 && /[A-Za-z]/.test(value) && /[\d\W_]/.test(value)) ||
    looksGenerated(value, 0, value.length, 16)
  );
}

/**
 * Would `value` be redacted as assigned to `name` (`name = "value"`, or `name = value` when not
 * `quoted`)? The judgment of a value that something other than an assignment ties to a
 * credential's name.
 */
function isAssignedSecret(name: string, value: string, quoted = true): boolean {
  const quote = !quoted ? "" : value.includes('"') ? "'" : '"';
  const found: Detection[] = [];
  scanCredentialAssignments(`${name} = ${quote}${value}${quote}`, found, "");
  return found.length > 0;
}

/** The rule id of `scanCredentialPairName` (a member-name rule of the context layer). */
export const CREDENTIAL_PAIR_RULE = "credential-pair";

/** The context layer's rules. */
export const CONTEXT_RULES: readonly PatternRule[] = [
  {
    // The assignment form keeps the id of the rule it replaced (a regular expression of
    // gitleaks' assignment shapes, of which this reads every one).
    id: "generic-secret",
    kind: "secret",
    layer: "context",
    scan: (text, out, rule) => scanCredentialAssignments(text, out, rule.id),
  },
  {
    id: "credential-argument",
    kind: "secret",
    layer: "context",
    needles: ["("],
    scan: (text, out, rule) => scanCredentialArguments(text, out, rule.id),
  },
  {
    // Ruby's keyed calls without parentheses (`JWT.encode payload, "k", "HS256"`).
    id: "credential-argument",
    kind: "secret",
    layer: "context",
    needles: ["JWT.", "HMAC."],
    scan: (text, out, rule) => {
      pushArguments(text, commandCallKeys(text), out, rule.id);
    },
  },
  {
    // A format string's credential slot filled with a literal (`String.format("…password=%s", h, "p")`).
    id: "credential-argument",
    kind: "secret",
    layer: "context",
    needles: FORMAT_NEEDLES,
    scan: (text, out, rule) => scanFormatArguments(text, out, rule.id),
  },
  {
    // A password a browser test types into a field its locator names (`getByLabel('Password').fill('p')`).
    id: "credential-argument",
    kind: "secret",
    layer: "context",
    needles: FORM_FILL_NEEDLES,
    scan: (text, out, rule) => scanFormFills(text, out, rule.id),
  },
  {
    id: "credential-flag",
    kind: "secret",
    layer: "context",
    needles: ["-"],
    scan: (text, out, rule) => scanPasswordFlags(text, out, rule.id),
  },
  {
    // "Password" in other languages and scripts, before its value (`Passwort: x`, `le mot de passe
    // est x`, `пароль: x`, `密码：x`, `パスワードはx`): a quoted value, or a bare one of ASCII with a
    // digit or a symbol (`Passwort: falsch eingegeben` is prose).
    id: "localized-password",
    kind: "secret",
    layer: "context",
    needles: LOCALIZED_SPELLINGS,
    scan: (text, out, rule) => scanLocalizedPasswords(text, out, rule.id),
  },
  {
    // A label and a user and password (`Login: admin / S3cret!`, `creds: admin:S3cret!`): the
    // password, when it holds a letter and a digit or a symbol (`Login: success/failed` is prose).
    id: "login-pair",
    kind: "secret",
    layer: "context",
    needles: ["ogin", "OGIN", "redentials", "REDENTIALS", "reds", "REDS"],
    pattern:
      /\b(?:[Ll]ogin|LOGIN|[Cc]redentials|CREDENTIALS|[Cc]reds|CREDS)(?:[ \t]*[:=]|[ \t]+(?:is|are))[ \t]*[^\s/:,;]+[ \t]*[/:][ \t]*([^\s/,;()]+)/dg,
    group: 1,
    accept: (m) => {
      const value = m[1] ?? "";
      return value.length >= 6 && /[A-Za-z]/.test(value) && /[\d\W_]/.test(value) && !isPlaceholder(value);
    },
  },
  {
    // A prompt's answer at its line's end, or a password announced for an account, the line naming
    // whose password it is (`[sudo] password for bob: x`, `Enter passphrase for key '~/.ssh/id_rsa':
    // x`, `Enter PEM pass phrase: x`, `Enter passphrase (empty for no passphrase): x`, MySQL's `A
    // temporary password is generated for root@localhost: x`): one unquoted word with a digit or a
    // symbol, there or alone on the next line (Elasticsearch's `Password for the elastic user (reset
    // with …):⏎  x`, also under Docker Compose's `es01-1  | ` prefix). A name's own value
    // (`password: x`) is `generic-secret`'s.
    id: "password-prompt",
    kind: "secret",
    layer: "context",
    needles: ["assword", "ASSWORD", "assphrase", "ASSPHRASE", "ass phrase", "ASS PHRASE"],
    pattern:
      /(?:(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))(?:(?:[ \t]+(?:is|was|has|have|been|being|generated|created|assigned|set|randomly|automatically|temporarily)){0,4}[ \t]+(?:for|of|For|FOR|OF)[ \t]+(?:'[^'\r\n]{1,120}'|"[^"\r\n]{1,120}"|[^:\r\n]{1,80})|[ \t]*\([^()\r\n]{1,60}\)|[ \t]+again)|(?:[Pp]ass|PASS) (?:phrase|PHRASE)):(?:[ \t]+|[ \t]*\r?\n(?:[\w.-]{1,64}[ \t]+\|)?[ \t]+)([^\s"'`]{3,128})[ \t]*(?=\r?\n|$)/dg,
    group: 1,
    // The answer looks like a password: not a status, a placeholder, a path or a time (`N/A`,
    // `(none)`, `[hidden]`, `%DB_PASSWORD%`, `OK.`, `/var/jenkins_home/secrets/initialAdminPassword`,
    // a log line's `2024-05-01T10:00:00Z` after a prompt that got no answer).
    accept: (m) => {
      const value = m[1] ?? "";
      return (
        isPasswordLike(value) &&
        !TIMESTAMP.test(value) &&
        !/[/\\]|^[([<%]|\.$/.test(value) &&
        !isPasswordStandIn(value) &&
        !isPlaceholder(value)
      );
    },
  },
  {
    // A password a server generated and announces (MySQL's `A temporary password is generated for
    // root@localhost: x`): any run of printable characters to the line's end, where a prompt's
    // answer must look like a password. mysqld's passwords start with `(`, `<` or `%`, hold `/` or
    // `"` and end in `.` about one time in four.
    id: "password-prompt",
    kind: "secret",
    layer: "context",
    needles: ["generated for", "created for", "assigned for", "GENERATED FOR"],
    pattern:
      /(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))[ \t]+(?:is|was|has[ \t]+been|IS|WAS)[ \t]+(?:(?:randomly|automatically|temporarily)[ \t]+)?(?:generated|created|assigned|GENERATED)[ \t]+(?:for|FOR)[ \t]+[^:\r\n]{1,80}:[ \t]+(\S{6,128})[ \t]*(?=\r?\n|$)/dg,
    group: 1,
    accept: (m) => !isStandInValue(m[1] ?? "") && !TIMESTAMP.test(m[1] ?? ""),
  },
  ...toolPasswordRules("tool-password"),
  {
    id: "printed-secret",
    kind: "secret",
    layer: "context",
    needles: PRINTED_SECRET_NEEDLES,
    scan: (text, out, rule) => scanPrintedSecrets(text, out, rule.id),
  },
  {
    id: "printed-secret",
    kind: "secret",
    layer: "context",
    needles: INTERPRETER_NEEDLES,
    scan: (text, out, rule) => scanInterpreterEchoes(text, out, rule.id, isAssignedSecret),
  },
  {
    id: "recovery-code",
    kind: "secret",
    layer: "context",
    needles: RECOVERY_CODE_NEEDLES,
    scan: (text, out, rule) => scanRecoveryCodes(text, out, rule.id),
  },
  {
    // A value after an arrow: a plan's new value, a log's value after its name.
    id: "generic-secret",
    kind: "secret",
    layer: "context",
    needles: ARROW_NEEDLES,
    // Bare, it must read as a value (prose draws arrows between words: `token -> refresh flow`).
    scan: (text, out, rule) =>
      scanArrowValues(
        text,
        out,
        rule.id,
        (name, value, quoted = true) =>
          (quoted || isLabelledValue(value)) && isAssignedSecret(name, value, quoted),
      ),
  },
  {
    // A value alone under its label: a password or a generated token, as an assignment would judge it.
    id: "generic-secret",
    kind: "secret",
    layer: "context",
    needles: LABELLED_LINE_NEEDLES,
    scan: (text, out, rule) =>
      scanLabelledLines(
        text,
        out,
        rule.id,
        // Judged bare, as it stands: a call or an expression there is code (`for p in pwd:⏎  update(p)`).
        (name, value) => isLabelledValue(value) && isAssignedSecret(name, value, false),
      ),
  },
  {
    id: "credential-column",
    kind: "secret",
    layer: "context",
    needles: CREDENTIAL_COLUMN_NEEDLES,
    scan: (text, out, rule) => scanCredentialColumns(text, out, rule.id),
  },
  {
    id: "credential-column",
    kind: "secret",
    layer: "context",
    needles: ALIGNED_TABLE_NEEDLES,
    scan: (text, out, rule) => scanAlignedTables(text, out, rule.id),
  },
];
