/**
 * Which names name a credential: the words of an identifier (`AWS_SECRET_ACCESS_KEY`,
 * `hubspotApiKey`, `db.password`), the credential word among them and how strongly it says so,
 * and the qualifiers that make it none (`sort_key`, `max_tokens`, `fake_token`).
 */

import { isTypedRun } from "./randomness.js";

/**
 * Words that name a credential whatever they hold. `key` and the other weak words below name
 * many things that are not secret (`sort_key`, `session`, `signature`), so their values must
 * also look like one.
 */
/**
 * "Password" in other languages and scripts: German, Dutch, French, Spanish, Portuguese, Russian,
 * Chinese, Japanese, Korean, Turkish, Polish, Swedish, Norwegian, Danish, Finnish, Czech,
 * Hungarian, Croatian, Slovenian, Greek, Hebrew, Arabic, Hindi; with the ASCII spellings written
 * without the marks (`contrasena`, `sifre`, `haslo`).
 */
export const OTHER_LANGUAGE_PASSWORDS: readonly string[] = [
  "passwort",
  "kennwort",
  "wachtwoord",
  "mot de passe",
  "contraseña",
  "contrasena",
  "senha",
  "пароль",
  "密码",
  "密碼",
  "口令",
  "パスワード",
  "비밀번호",
  "şifre",
  "sifre",
  "hasło",
  "haslo",
  "lösenord",
  "losenord",
  "passord",
  "adgangskode",
  "salasana",
  "heslo",
  "jelszó",
  "jelszo",
  "lozinka",
  "geslo",
  "κωδικός",
  "סיסמה",
  "كلمة المرور",
  "पासवर्ड",
];

/** Those of one ASCII word, as identifiers write them (`DB_PASSWORT`, `senha_admin`). */
export const ASCII_PASSWORD_WORDS = OTHER_LANGUAGE_PASSWORDS.filter((w) => /^[a-z]+$/.test(w));

const STRONG_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "passcode",
  "pwd",
  "pass",
  "pw",
  "secret",
  "token",
  "apikey",
  "credential",
  "credentials",
  "creds",
  "cred",
  "bearer",
  "cookie",
  "dsn",
  "webhook",
  "pat",
  "jwt",
  "otp",
  "authorization",
  "authtoken",
  "privatekey",
  "secretkey",
  "accesskey",
  "accesstoken",
  "refreshtoken",
  "apitoken",
  "apisecret",
  "clientsecret",
  "sas",
  "hmac",
  // A pre-shared key (`psk="…"` in wpa_supplicant.conf, `: PSK "…"` in ipsec.secrets).
  "psk",
  "presharedkey",
  // Redis's server password directives (`requirepass x`, `masterauth x`).
  "requirepass",
  "masterauth",
  // PAM's and SSSD's authentication token (`ldap_default_authtok = x`).
  "authtok",
  ...ASCII_PASSWORD_WORDS,
]);
const WEAK_WORDS = new Set([
  // A Kubernetes Secret's registry credentials (`.dockerconfigjson: <base64>`, `.dockercfg`): weak,
  // so `kubectl describe`'s `.dockerconfigjson:  1234 bytes` and a path to the file stay.
  "dockerconfigjson",
  "dockercfg",
  "login",
  "key",
  "auth",
  "session",
  "signature",
  "sig",
  "license",
  "licence",
  "pin",
  "private",
  "salt",
]);

/**
 * Concatenated words ending in a credential word (`dbpassword`, `myapikey`, `xauthtoken`, LDAP's
 * `bindpw` and `rootpw`).
 */
const COMPOUND_END =
  /(?:password|passwd|passphrase|pass|pwd|pw|secret|token|apikey|credentials?|cookie|webhook|privatekey|secretkey|accesskey|authkey)$/;
/** Words ending in a credential word that are not one. */
const NOT_COMPOUND =
  /^(?:monkey|turkey|donkey|hockey|jockey|whiskey|hotkey|passkey|keys|tokens|tokenizer|tokenize[ds]?|bypass|compass|encompass|overpass|underpass|trespass|surpass|passes|passed|passing|passport|impasse|secretary|secretion|jsonwebtoken|(?:high|low|band|all|notch|multi|render|sub|first|second|single|two|one|boarding|season|day|week|hall|ski|bus|free|depth)pass)$/;
/** Words after the credential word that still name its value (`API_KEY_VALUE`, `TOKEN_B64`). */
const VALUE_SUFFIX = new Set([
  "value",
  // Rails' `SECRET_KEY_BASE`.
  "base",
  "val",
  "str",
  "string",
  "b64",
  "base64",
  "hex",
  "raw",
  "plain",
  "plaintext",
  "txt",
  "text",
  "data",
  "enc",
  "encoded",
  "encrypted",
  "var",
  "prod",
  "production",
  "dev",
  "test",
  "staging",
  "live",
  "old",
  "new",
  "current",
  "primary",
  "secondary",
  "main",
  "default",
  "override",
]);
/** Words before `key`/`token`/… that make the name a non-secret (`sort_key`, `max_tokens`). */
const NOT_SECRET_QUALIFIER = new Set([
  "public",
  "publishable",
  "pub",
  "sort",
  "primary",
  "foreign",
  "partition",
  "hash",
  "range",
  "row",
  "cache",
  "cached",
  "idempotency",
  "dedup",
  "dedupe",
  "hot",
  "max",
  "min",
  "num",
  "total",
  "input",
  "output",
  "prompt",
  "completion",
  "reasoning",
  "context",
  "csrf",
  "xsrf",
  "authenticity",
  "next",
  "page",
  "pagination",
  "continuation",
  "cursor",
  "sync",
  "kms",
  "s3",
  "object",
  "bucket",
  "file",
  "route",
  "routing",
  "index",
  "group",
  "unique",
  "composite",
  "natural",
  "surrogate",
  "sequence",
  "schema",
  "translation",
  "i18n",
  "message",
  "event",
  "lookup",
  "dict",
  "map",
  "mapping",
  "react",
  "shard",
  "distribution",
  "label",
  "tag",
  "sas",
  "form",
  "field",
  "column",
  "meta",
  "metadata",
  "config",
  "setting",
  "settings",
  "option",
  "feature",
  "flag",
  "storage",
  "state",
  "redis",
  "memcache",
  "lock",
  "signing",
  "verify",
  "verification",
]);
/**
 * Is `before` whose password `word` is (`redis_password`, `signing.password`, `storage_passwd`):
 * a system's or a store's name makes a key a slot (`redis_key`, `cache_key`), never a password.
 */
function ownsAPassword(before: string, word: string): boolean {
  return PASSWORD_WORDS.has(word) && PASSWORD_OWNERS.has(before);
}
const PASSWORD_WORDS: ReadonlySet<string> = new Set(["password", "passwd", "pwd", "passphrase", "passcode"]);
/** The words of `NOT_SECRET_QUALIFIER` that name a system or a store, whose password is a password. */
const PASSWORD_OWNERS: ReadonlySet<string> = new Set([
  ...["redis", "memcache", "signing", "storage", "cache", "cached", "kms", "s3", "bucket", "sync"],
  ...["config", "setting", "settings", "primary", "shard", "object", "file", "context", "group"],
]);
/** Words before a weak word that make it a credential's name (`api_key`, `access key`, `auth_key`). */
const SECRET_QUALIFIER = new Set([
  "api",
  "access",
  "secret",
  "private",
  "license",
  "licence",
  "signing",
  "encryption",
  "master",
  "auth",
  "client",
  "app",
  "account",
  "service",
  "admin",
  "root",
  "deploy",
  "session",
  "shared",
  "storage",
  "subscription",
  "consumer",
  "user",
  "developer",
  "product",
  "activation",
  "serial",
  "registration",
]);
/** Qualifiers that do NOT rescue a name from a qualifier above (`signing_key` is a secret). */
const SECRET_QUALIFIER_FOR_KEY = new Set(["signing", "sas"]);

/** Splits an identifier into lower-case words: snake, kebab, dotted, camelCase, digits. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .map((w) => (/[a-z]\d+$/.test(w) ? w.replace(/\d+$/, "") : w))
    .filter((w) => w !== "");
}

/** A vendor's prefix as tokens carry one: `xoxp-`, `sk_`, `tok_`. */
const VENDOR_PREFIX = /^[A-Za-z][A-Za-z0-9]{1,7}[-_]/;

/**
 * Is `value`, given to `name`, a token typed where a generated one goes: one typed run
 * (`isTypedRun`), alone or after a vendor's prefix (`xoxp-1234567890`, `sk_abcdefghij`,
 * `0000000000`)? Only under the name of a secret a machine generates (`token`, `api_key`,
 * `secret`): under the name of one a person chooses (`password`, `passphrase`, `pin`) a run is a
 * weak password (`12345678`), and stays one.
 */
export function isTypedPlaceholder(name: string, value: string): boolean {
  if (!isTypedRun(value) && !isTypedRun(value.slice(VENDOR_PREFIX.exec(value)?.[0].length ?? 0)))
    return false;
  return !nameWords(name).some((w) => /pass|pwd/.test(w) || w === "pw" || w === "pin");
}

/**
 * `strong`: the name says credential whatever the value; `qualified`: a weak word with a
 * qualifier (`heroku_key`, `session_token`), whose value must look like a credential; `weak`: a
 * weak word alone (`key`, `session`), whose value must look generated.
 */
export type Strength = "strong" | "qualified" | "weak";

export function wordStrength(word: string): "strong" | "weak" | undefined {
  if (STRONG_WORDS.has(word)) return "strong";
  if (WEAK_WORDS.has(word)) return "weak";
  if (word.length > 5 && !NOT_COMPOUND.test(word) && COMPOUND_END.test(word)) return "strong";
  // `dbpw`, `newpw`, `dbpwd`: no word ends in `pw` or `pwd` but a password's name.
  if (word.length >= 4 && (word.endsWith("pw") || word.endsWith("pwd"))) return "strong";
  if (word.length > 3 && word.endsWith("key") && !NOT_COMPOUND.test(word)) return "weak";
  return undefined;
}

/**
 * How strongly `name` names a credential: its last credential word, followed only by words that
 * still name the value (`_value`, `_b64`, digits), and not qualified as a non-secret
 * (`sort_key`, `max_tokens`, `public_key`). Undefined when it names none.
 */
export function credentialName(name: string): Strength | undefined {
  // `pass_phrase`, `passPhrase`: one word.
  const all = nameWords(name.replace(/pass[_.-]?phrase/gi, "passphrase"));
  const whole = wordsStrength(all);
  if (whole !== undefined || /[@$/]/.test(name)) return whole;
  // Up to two words after `for`, `to` or `as` qualify a password's or a secret's name before
  // them (`password_for_email`, `passwordToChar`, `passwordAsString`); not in a host's or a path's run
  // (`session-for-4010@db.svc.local`), not a key's (`KEY_FOR_CACHE`, `storageKeyForTheme`).
  const tail = all.findIndex((w, i) => i > 0 && TAIL_PREPOSITION.has(w));
  // Whose a credential is follows its name in configuration's names (`PASSWORD_DB`,
  // `password_couchbase`); in code's camel case it is a property (`tokenIssuer`, `passwordScheme`).
  if (tail === -1) return /[a-z][A-Z]/.test(name) ? undefined : ownerTailed(all);
  const after = all.slice(tail + 1);
  // `as` says what the value is made (`passwordAsString`, `secret_as_bytes`), nothing else
  // (`token_as_header_name`, `send_token_as`).
  if (after.length === 0 || after.length > 2 || (all[tail] === "as" && !after.every((w) => AS_FORM.has(w))))
    return undefined;
  return wordsStrength(all.slice(0, tail)) === "strong" ? "strong" : undefined;
}

/**
 * A password's or a secret's name followed by whose it is (`password_couchbase`, `PASSWORD_DB`,
 * `secret_prod`): one or two words that name no property of it (`password_policy`,
 * `secret_arn`, `token_url`). Weak: its value must look like a password or be generated.
 */
function ownerTailed(words: readonly string[]): Strength | undefined {
  const head = words.findIndex((w) => OWNED_HEADS.has(w));
  if (head === -1) return undefined;
  const tail = words.slice(head + 1);
  if (
    tail.length < 1 ||
    tail.length > 2 ||
    tail.some((w) => NOT_OWNER.has(w) || /^\d/.test(w) || w.length < 2)
  )
    return undefined;
  return wordsStrength(words.slice(0, head + 1)) === "strong" ? "weak" : undefined;
}

/** The heads `ownerTailed` reads. */
// Not `token`: a model's or a lexer's tokens name too many things (`token_budget`, `token_kid`).
const OWNED_HEADS: ReadonlySet<string> = new Set(["password", "passwd", "pwd", "passphrase", "secret"]);

/** Words after a credential's name that name a property of it or a thing about it, not its owner. */
const NOT_OWNER: ReadonlySet<string> = new Set([
  ...["url", "uri", "arn", "id", "ids", "name", "names", "path", "file", "files", "dir", "ref", "refs"],
  ...["hint", "policy", "policies", "length", "len", "min", "max", "count", "type", "kind", "field"],
  ...["label", "prompt", "placeholder", "hash", "hashed", "digest", "expiry", "expires", "expiration"],
  ...["ttl", "version", "rotation", "endpoint", "enabled", "required", "reset", "regex", "pattern"],
  ...["error", "errors", "message", "msg", "form", "input", "strength", "validator", "validation"],
  ...["manager", "store", "provider", "source", "service", "client", "handler", "helper", "util"],
  ...["utils", "key", "format", "mode", "scope", "scopes", "lifetime", "timeout", "header", "param"],
  ...["env", "var", "variable", "template", "schema", "config", "settings", "option"],
  ...["options", "list", "map", "dict", "set", "table", "column", "col", "attr", "attribute"],
  ...["prefix", "suffix", "separator", "delimiter", "char", "chars", "encoding", "algorithm", "alg"],
  ...["salt", "iv", "nonce", "index", "idx", "offset", "size", "limit", "status", "state", "changed"],
  ...["updated", "created", "at", "date", "time", "valid", "invalid", "exists", "match"],
  ...["types", "kinds", "fields", "labels", "prompts", "hints", "lengths", "counts", "urls", "uris"],
  ...["paths", "headers", "params", "formats", "modes", "states", "rules", "rule", "usage", "used"],
  ...["change", "last", "issued", "issuer", "rotated", "refreshed", "exp", "success", "failure", "attempts"],
  ...["scheme", "algo", "signer", "standard", "encryption", "storage", "fingerprint", "checksum", "selector"],
  ...["glob", "regexp", "re", "expr", "stdin", "stdout", "fd", "cmd", "strategy", "backend"],
  ...["extra", "action", "intent", "arg", "argument", "flag", "pref", "preference", "setting", "budget"],
  // Code's kinds of thing (`CreateOAuth2TokenCommand`, `TokenRequest`, `PasswordResetHandler`).
  ...["command", "request", "response", "output", "exception", "event", "factory", "builder"],
  ...["result", "callback", "listener", "controller", "model", "entity", "dto", "view", "page", "component"],
  ...["module", "class", "interface", "impl", "test", "tests", "spec", "mock", "stub", "fixture"],
]);

/** `credentialName` of a name's words. */
function wordsStrength(words: readonly string[]): Strength | undefined {
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i] ?? "";
    // An access id (`accessId`, `SUMO_ACCESS_ID`) is half of a credential pair when it looks
    // generated (a UUID there is a record's id: `report_access_id`).
    if ((word === "id" || word === "accessid") && (word === "accessid" || words[i - 1] === "access")) {
      return "weak";
    }
    const strength = wordStrength(word);
    if (strength === undefined) {
      if (VALUE_SUFFIX.has(word) || /^\d+$/.test(word) || /^v\d+$/.test(word)) continue;
      return undefined;
    }
    const before = words[i - 1];
    if (strength === "weak" && before !== undefined && SECRET_QUALIFIER.has(before)) return "strong";
    if (before !== undefined && NOT_SECRET_QUALIFIER.has(before) && !ownsAPassword(before, word)) {
      if (!(SECRET_QUALIFIER_FOR_KEY.has(before) && (word === "key" || word === "secret"))) return undefined;
    }
    return strength === "weak" && before !== undefined ? "qualified" : strength;
  }
  return undefined;
}

const TAIL_PREPOSITION: ReadonlySet<string> = new Set(["for", "to", "as"]);
/** What a value is made after `as`: a type or an encoding. */
const AS_FORM: ReadonlySet<string> = new Set([
  "string",
  "str",
  "text",
  "bytes",
  "byte",
  "chars",
  "char",
  "array",
  "buffer",
  "base64",
  "b64",
  "hex",
  "utf8",
  "secure",
  "plain",
]);

/**
 * A name that says its value is not real (`fake_token`, `wrongLength`, `nonMatchingToken`,
 * `example_key`): test fixtures and documentation. (`test` is not one: `TEST_API_KEY` holds a
 * live test-mode key.)
 */
export const FAKE_NAME =
  /(?:^|[^a-z]|[a-z](?=[A-Z]))(?:fake|dummy|example|sample|mock|wrong|invalid|non[_-]?matching|bogus|placeholder)/i;

/** Characters of a name in code, config and prose. */
export function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 36 ||
    c === 64
  );
}
