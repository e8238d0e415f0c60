/**
 * Keys given to a call as a literal: a keyed hash's (`hmac.new(b"k", msg, sha256)`), a signer's
 * (`jwt.sign(payload, "k")`, `.signWith(HS256, "k")`), or a constant-time comparison's
 * (`hmac.compare_digest(token, "k")`). The callee says which argument is the key; the arguments
 * before it may be any expression, and the literal may be wrapped to make it bytes
 * (`[]byte("k")`, `Buffer.from("k")`, `Encoding.UTF8.GetBytes("k")`, `"k".getBytes()`).
 */

/**
 * Which argument of a call is the key: its index from 0, every literal argument (`"any"`), or
 * every one from an index on made characters (`{ charsFrom }`: Java's `"p".toCharArray()`, how
 * the JCA takes passwords).
 */
type KeyPlace = number | "any" | { charsFrom: number };

/**
 * Callees by how the text before `(` ends, and where their key stands. Case-sensitive: Go's
 * `hmac.New(h, key)` takes the key second, Python's `hmac.new(key, msg)` first.
 */
const KEYED_CALLS: readonly (readonly [RegExp, KeyPlace])[] = [
  // Java's `Algorithm.HMAC256("k")`, `new SecretKeySpec("k".getBytes(), …)`, jjwt's
  // `hmacShaKeyFor(…)` and `setSigningKey("k")`, Go's `token.SignedString([]byte("k"))`, .NET's
  // `new HMACSHA256(…GetBytes("k"))`, `HMACSHA256.HashData(key, data)` and
  // `SymmetricSecurityKey(…)`, Python's `hmac.new(b"k", …)`/`hmac.HMAC(…)`, Ruby's
  // `OpenSSL::HMAC.new("k", digest)`, Rust's `HmacSha256::new_from_slice(b"k")`.
  [
    /(?:^|[^\w])(?:HMAC(?:256|384|512)|SignedString|HMACSHA(?:1|256|384|512)(?:\.HashData)?|SymmetricSecurityKey|hmac\.(?:new|HMAC)|HMAC\.new|SecretKeySpec|hmacShaKeyFor|setSigningKey|new_from_slice)$/,
    0,
  ],
  // JWT libraries' `encode`/`sign`/`decode`/`verify(payload or token, "k")` (not a wrapper's:
  // `jwtService.verify(token, "refresh")`), jjwt's
  // `.signWith(HS256, "k")`, Ruby's `OpenSSL::HMAC.hexdigest("SHA256", "k", data)`, Go's
  // `hmac.New(sha256.New, []byte("k"))`, Node's `crypto.createHmac("sha256", "k")`.
  [
    /(?:(?:^|[^\w])(?:(?:jwt|JWT|jose|jws|Jwts?|jsonwebtoken|pyjwt)\.(?:encode|decode|sign|verify)|HMAC\.(?:hexdigest|digest|base64digest)|hmac\.New|createHmac)|jsonwebtoken\\?["']\)\.(?:sign|verify)|\.signWith)$/,
    1,
  ],
  // One-time passwords' shared secrets: pyotp's `TOTP("base32")`/`HOTP(…)`, Ruby's
  // `ROTP::TOTP.new(…)`, PHP's `TOTP::create(…)`, Go's `totp.GenerateCode("base32", t)`, otplib's
  // `authenticator.generate(…)`; the code first, Go's `totp.Validate(code, "base32")` and otplib's
  // `authenticator.check(code, …)`.
  [
    /(?:^|[^\w])(?:(?:pyotp\.)?[TH]OTP(?:\.new|::create)?|(?:totp|hotp)\.GenerateCode\w*|authenticator\.generate)$/,
    0,
  ],
  [/(?:^|[^\w])(?:(?:totp|hotp)\.Validate\w*|authenticator\.(?:check|verify))$/, 1],
  // PHP's `hash_hmac("sha256", $data, "k")`, Elixir's `:crypto.mac(:hmac, :sha256, "k", data)`.
  [/(?:^|[^\w])(?:hash_hmac|:crypto\.mac)$/, 2],
  // The JCA's calls that take a password as characters after what it opens: a key store's
  // `load(in, "p".toCharArray())`, `getKey(alias, …)`, `setKeyEntry(alias, key, …, chain)`, a key
  // manager's `init(ks, …)`, `new PasswordAuthentication(user, …)`, Apache's
  // `loadKeyMaterial(ks, …, …)`; not a lexer's `init("1 + 2".toCharArray())`.
  [
    /(?:^|[^\w])(?:load|getKey|setKeyEntry|init|PasswordAuthentication|loadKeyMaterial|loadTrustMaterial)$/,
    { charsFrom: 1 },
  ],
  // `new PBEKeySpec("p".toCharArray(), salt, …)`, `new KeyStore.PasswordProtection(…)`.
  [/(?:^|[^\w])(?:PBEKeySpec|PasswordProtection)$/, { charsFrom: 0 }],
  // A password hasher's plain text: bcrypt's `hashpw(b"p", salt)`/`hash("p", 10)`/`hashSync`,
  // Werkzeug's `generate_password_hash("p")`, PHP's `password_hash("p", …)`, Laravel's
  // `Hash::make("p")`, Ruby's `BCrypt::Password.create("p")`, `argon2.hash("p")`, passlib's
  // `pbkdf2_sha256.hash("p")`, Python's `crypt.crypt("p", salt)` and `hashlib.scrypt(b"p", …)`.
  [
    /(?:^|[^\w])(?:bcrypt(?:js)?\.(?:hashpw|hash|hashSync)|generate_password_hash|password_hash|Hash::make|BCrypt::Password\.create|argon2\.(?:hash|hash_password)|(?:pbkdf2_sha256|pbkdf2_sha512|sha256_crypt|sha512_crypt|bcrypt_sha256|argon2)\.hash|crypt\.crypt|hashlib\.scrypt)$/,
    0,
  ],
  // More hashers and their verifiers, the plain text first: argon2-cffi's `PasswordHasher().hash`,
  // passlib's `pwd_context.hash`/`verify`, FastAPI's `get_password_hash`, jBCrypt's
  // `BCrypt.hashpw`/`checkpw`, Spring's `new BCryptPasswordEncoder().encode`/`passwordEncoder.matches`,
  // Go's `bcrypt.GenerateFromPassword([]byte("p"), …)`, Laravel's `bcrypt('p')`, `bcrypt.checkpw`,
  // bcrypt.js' `compare`, Node's `crypto.scryptSync`/`pbkdf2Sync`.
  [
    /(?:(?:^|[^\w])(?:PasswordHasher\(\)\.hash|\w*(?:pwd|password|passwd)_?context\.(?:hash|verify|encrypt)|get_password_hash|hash_password|BCrypt\.(?:hashpw|checkpw)|bcrypt(?:js)?\.(?:checkpw|compare|compareSync|GenerateFromPassword)|crypto\.(?:scryptSync|scrypt|pbkdf2Sync|pbkdf2))|\w*PasswordEncoder\(\)\.(?:encode|matches)|[pP]asswordEncoder\.(?:encode|matches)|(?:^|[^\w.$])bcrypt)$/,
    0,
  ],
  // `hashlib.pbkdf2_hmac("sha256", b"p", salt, n)`, Go's `bcrypt.CompareHashAndPassword(h, []byte("p"))`,
  // Firebase's `EmailAuthProvider.credential(email, "p")`: the password second.
  [/(?:^|[^\w])(?:hashlib\.pbkdf2_hmac|bcrypt\.CompareHashAndPassword|EmailAuthProvider\.credential)$/, 1],
  // A constant-time comparison of a secret with a literal: the literal is the secret.
  [
    /(?:^|[^\w])(?:compare_digest|hash_equals|timingSafeEqual|ConstantTimeCompare|FixedTimeEquals|secure_compare|MessageDigest\.isEqual)$/,
    "any",
  ],
];

/** Where the key stands among the arguments of a call whose callee's text ends `before`, if it is a keyed call. */
export function keyPlaceOf(before: string): KeyPlace | undefined {
  for (const [callee, place] of KEYED_CALLS) if (callee.test(before)) return place;
  return undefined;
}

/** How far into a call its arguments are read. */
const CALL_REACH = 1024;

/**
 * The literals at `place` among the arguments of the call whose arguments start at `at` (after
 * its `(`), as `[start, end)` of their contents; a keyword argument named as a key (`key=b"k"`,
 * `secret="k"`) wherever it stands. Algorithm names (`HS256`, `SHA256withRSA`) are never keys.
 */
export function keyArguments(text: string, at: number, place: KeyPlace, command = false): [number, number][] {
  const found: [number, number][] = [];
  const take = (start: number, index: number): void => {
    const keyword = KEYWORD_KEY.exec(text.slice(start, start + 24));
    if (typeof place === "number" && index !== place && keyword === null) return;
    const s = start + (keyword?.[0].length ?? 0);
    const chars = typeof place === "object";
    if (chars && (index < place.charsFrom || !madeChars(text, s))) return;
    // A constant-time comparison's name is what is compared (a digest, a fixture), not a key.
    const literal =
      literalAt(text, s, command) ?? (place === "any" ? undefined : assignedLiteral(text, s, s, KEY_HOPS));
    if (literal === undefined) return;
    const value = text.slice(literal[0], literal[1]);
    // A public key or a certificate verifies; characters with a blank or no letter are a lexer's
    // (`init(src, "fn main() {}".toCharArray())`, `"+-*/".toCharArray()`).
    if (isAlgorithmName(value) || PUBLIC_MATERIAL.test(value) || /^[a-z][a-z0-9+.-]*:\/\//i.test(value))
      return;
    if (chars && (/\s/.test(value) || !/[A-Za-z0-9]/.test(value) || ENCODING.test(value))) return;
    found.push(literal);
  };
  let index = 0;
  let depth = 0;
  take(skipBlanks(text, at), 0);
  const end = Math.min(text.length, at + CALL_REACH);
  for (let i = at; i < end; i++) {
    const c = text[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) break;
      depth--;
    } else if (c === "," && depth === 0) take(skipBlanks(text, i + 1), ++index);
    // A call without parentheses (`command`) ends with its line or statement.
    else if (command && depth === 0 && (c === "\n" || c === "\r" || c === ";")) break;
    else i = pastSkipped(text, i);
  }
  return found;
}

/** An argument or a value made characters: a literal's or a name's `.toCharArray()`, on a line of its own too. */
const MADE_CHARS = /^(?:\(?"(?:[^"\\\r\n]|\\.){0,512}"\)?|[A-Za-z_$][\w$]*)\s*\.toCharArray\([ \t]*\)/;

/** Is the argument at `s` made characters, itself or by the name's last assignment (`char[] pw = "p".toCharArray();`)? */
function madeChars(text: string, s: number): boolean {
  if (MADE_CHARS.test(text.slice(s, s + 600))) return true;
  const value = assignmentOf(text, s, s);
  return value !== undefined && MADE_CHARS.test(text.slice(value, value + 600));
}
/** How many names a key may pass through from its literal to the call (`k = "x"; b = k.getBytes(); sign(b)`). */
const KEY_HOPS = 2;
/** How far before its use a name's assignment is looked for. */
const ASSIGNMENT_REACH = 4096;
/**
 * A name as an argument or as an assigned value, possibly made bytes or characters by a method
 * (`key`, `secret.getBytes()`, `k.encode("utf-8")`), up to the argument's or statement's end.
 */
const NAME_VALUE =
  /^((?:(?:this|self)\.)?[A-Za-z_$][\w$]*)(?:\.(?:getBytes|toCharArray|encode|as_bytes|to_vec|into|ToArray|toByteArray)\([^()\r\n]{0,64}\))?[ \t]*(?=[,);\r\n]|$)/;
/** A character set's name (`"UTF-8".toCharArray()` is a parser's). */
const ENCODING = /^(?:utf-?(?:8|16|32)(?:[bl]e)?|us-ascii|ascii|iso-8859-\d+|latin-?1|windows-125\d)$/i;
/** A public key's or a certificate's text (PEM, SubjectPublicKeyInfo's `MII…` base64, OpenSSH's). */
const PUBLIC_MATERIAL =
  /^(?:-----BEGIN (?:PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)|ssh-(?:rsa|ed25519|dss) |ecdsa-sha2-|MIIB[IC]jAN)/;
/** A name that says its key is public or a certificate: what verifies, not what signs. */
const PUBLIC_NAME = /pub|cert|verif/i;

/**
 * Where the value of the last assignment before `before` of the name standing at `at` (made
 * bytes or not: `[]byte(k)`, `Buffer.from(k)`) starts, if any. Typed declarations too
 * (`const k: string =`, `val k: String =`, `var k []byte =`, `let k: &[u8] =`).
 */
function assignmentOf(text: string, at: number, before: number): number | undefined {
  let s = at;
  for (let k = 0; k < 2; k++) {
    const wrap = BYTES_OF.exec(text.slice(s, s + 48));
    if (wrap === null) break;
    s += wrap[0].length;
  }
  const name = NAME_VALUE.exec(text.slice(s, s + 160))?.[1];
  if (name === undefined || /^(?:null|nil|None|true|false|undefined)$/.test(name) || PUBLIC_NAME.test(name))
    return undefined;
  const assignment = new RegExp(
    `(?<![\\w$.])${name.replace(/[$.]/g, "\\$&")}(?:[ \\t]*:[ \\t]*[\\w&'[\\]<>.]{1,32}|[ \\t]+\\[\\]byte|[ \\t]+string)?[ \\t]*:?=(?!=)[ \\t]*`,
    "g",
  );
  // Only the text before the use is read: the last assignment there wins.
  const from = Math.max(0, before - ASSIGNMENT_REACH);
  const window = text.slice(from, before);
  let value: number | undefined;
  for (let m = assignment.exec(window); m !== null; m = assignment.exec(window))
    value = from + m.index + m[0].length;
  return value;
}

/**
 * The literal the name standing at `at` was last assigned before `before` in the same text
 * (`byte[] key2 = "k".getBytes();`, Go's `key := []byte(\`k\`)`, `k = b"k"`), through at most
 * `hops` further names: a key reaches a keyed call through a variable as often as written in it.
 */
function assignedLiteral(
  text: string,
  at: number,
  before: number,
  hops: number,
): [number, number] | undefined {
  const value = assignmentOf(text, at, before);
  if (value === undefined) return undefined;
  return (
    literalAt(text, value, true) ?? (hops > 0 ? assignedLiteral(text, value, value, hops - 1) : undefined)
  );
}

/** A Ruby call of a keyed callee without parentheses (`JWT.encode payload, "k", "HS256"`): its callee's end and blanks. */
const COMMAND_CALL = /(?:JWT|HMAC)\.(?:encode|decode|hexdigest|digest|base64digest|new)[ \t]+(?=[\w"'@:])/g;

/** The key literals of Ruby's keyed calls written without parentheses (see `keyArguments`). */
export function commandCallKeys(text: string): [number, number][] {
  const found: [number, number][] = [];
  COMMAND_CALL.lastIndex = 0;
  for (let m = COMMAND_CALL.exec(text); m !== null; m = COMMAND_CALL.exec(text)) {
    const end = m.index + m[0].trimEnd().length;
    const place = keyPlaceOf(text.slice(Math.max(0, end - 48), end));
    if (place !== undefined) found.push(...keyArguments(text, m.index + m[0].length, place, true));
  }
  return found;
}

/** A keyword argument that names the key (`key=`, `secret =`, `signing_key=`), not a comparison. */
const KEYWORD_KEY = /^(?:key|secret|secret_key|signing_key)[ \t]*=(?!=)[ \t]*/;

/**
 * Algorithm names a signer takes beside its key, and code compares a key's kind with (JWA's
 * `HS256`, JCA's `SHA256withRSA` and `PBKDF2WithHmacSHA256`, `HmacSHA256`, `secp256k1`), and
 * SASL's `scram-sha-256` (PostgreSQL's `--auth=scram-sha-256`).
 */
const ALGORITHM =
  /^(?:[HREP]S(?:256|384|512)|EdDSA|none|Hmac(?:SHA|MD)\d*|SHA-?\d+|MD5|\w+with(?:RSA|ECDSA|DSA|Hmac)\w*|secp\d+[kr]1|aes\d+\w*|scram-sha-\d+)$/i;

/** Is `value` an algorithm's name (see `ALGORITHM`)? */
export function isAlgorithmName(value: string): boolean {
  return ALGORITHM.test(value);
}

/**
 * The last index of what starts at `i` and is not the call's own punctuation: a literal (quoted
 * with `"`, `'` or `` ` ``, or with escaped quotes as inside a JSON string or a shell's `"…"`) or
 * a comment (`/* … *\/`, `//` or `# ` to the line's end); `i` when nothing starts there. A quote
 * that does not close on its line is a character like another (`it's` in prose).
 */
function pastSkipped(text: string, i: number): number {
  const c = text[i];
  if (c === "/" && text[i + 1] === "*") {
    const close = text.indexOf("*/", i + 2);
    return close === -1 ? i : close + 1;
  }
  if ((c === "/" && text[i + 1] === "/") || (c === "#" && (text[i + 1] === " " || text[i + 1] === "\t"))) {
    const close = text.indexOf("\n", i);
    return close === -1 ? text.length : close;
  }
  const quote = quoteAt(text, i);
  if (quote === undefined) return i;
  const close = closingQuote(text, i + quote.length, quote);
  return close === -1 ? i : close + quote.length - 1;
}

/** The quote that opens a literal at `i`: `"`, `'`, `` ` ``, or one escaped (`\"`, `\'`). */
function quoteAt(text: string, i: number): string | undefined {
  const c = text[i];
  if (c === '"' || c === "'" || c === "`") return c;
  if (c === "\\" && (text[i + 1] === '"' || text[i + 1] === "'")) return text.slice(i, i + 2);
  return undefined;
}

/** Where the literal opened by `quote` and going on at `from` closes, on the same line; -1 if it does not. */
function closingQuote(text: string, from: number, quote: string): number {
  for (let j = from; j < text.length && j - from < CALL_REACH; j++) {
    const c = text[j];
    if (c === "\n" || c === "\r") return -1;
    if (text.startsWith(quote, j)) return j;
    // An escape skips the character it escapes; an escaped quote inside `\"…\"` is `\\\"`.
    if (c === "\\") j += quote.length === 2 && text[j + 1] === "\\" ? 3 : 1;
  }
  return -1;
}

/**
 * Calls that make a literal bytes, or decode it, around it: `[]byte(`, `bytes(`, `Buffer.from(`,
 * `new TextEncoder().encode(`, `Encoding.UTF8.GetBytes(`, `Data(`, and the hex and base64
 * decoders of Python, Go, Java, .NET, Ruby and the browser (`base64.b64decode(`, `bytes.fromhex(`,
 * `hex.DecodeString(`, `Base64.getDecoder().decode(`, `Convert.FromBase64String(`, `atob(`), and
 * those that make a key of it (`JWK.asKey(`, Node's `crypto.createSecretKey(`, CryptoKit's
 * `SymmetricKey(data:`), or wrap it for an SDK (`aws.String(`, `pulumi.String(`); Dart's
 * `utf8.encode(` and `base64Decode(`, Elixir's `Base.decode64!(`, Rust's `hex::decode(`, Swift's
 * `Data(hexString:` and `Data(base64Encoded:`.
 */
const BYTES_OF =
  /^(?:\[\]byte|bytes|bytearray|Buffer\.from|(?:new[ \t]+)?TextEncoder\(\)\.encode|(?:System\.Text\.)?Encoding\.\w+\.GetBytes|Data|str\.encode|(?:base64\.)?(?:urlsafe_|standard_)?b(?:64|32)decode|(?:bytes|bytearray)\.fromhex|hex2bin|base64_decode|(?:binascii\.)?(?:unhexlify|a2b_hex|a2b_base64)|hex\.DecodeString|base64\.(?:Raw)?(?:Std|URL)Encoding\.DecodeString|(?:java\.util\.)?Base64\.(?:(?:strict_|urlsafe_)?decode(?:64)?|decodeBase64|get(?:Url|Mime)?Decoder\(\)\.decode)|Convert\.From(?:Base64|Hex)String|atob|Hex\.decodeHex|SecretStr|SecretBytes|(?:jose\.)?JWK\.asKey|(?:crypto\.)?createSecretKey|String::from|(?:Secret(?:String|Box)?|Zeroizing)::new|(?:aws|pulumi|jsii)\.String|(?:utf8|ascii|latin1)\.encode|base64(?:Url)?\.decode|base64Decode|hex(?:\.|::)decode|Base\.(?:url_)?decode(?:64|16)!?|SymmetricKey)\([ \t]*(?:(?:data|hexString|base64Encoded):[ \t]*)?/;
/** A string literal's prefix that makes it bytes or raw (Python's `b"k"`, `rb"k"`, Rust's `b"k"`). */
const LITERAL_PREFIX = /^(?:[bB][rR]?|[rR][bB]?|[uU])(?=\\?["'])/;
/**
 * What may also follow the last argument of a call without parentheses, or an assigned literal:
 * its line's or statement's end (a line break escaped in a JSON string too), a modifier.
 */
const AFTER_COMMAND_KEY = /^[ \t]*(?:$|\r?\n|\\n|;|#|(?:if|unless|do)\b)/;
/** What may follow a key's literal: the argument's end, a method making it bytes, a comment, a cast. */
const AFTER_KEY = /^\s*(?:[,)]|\.\w+\(|\/\*|as\b)/;

/**
 * The contents of the literal a value made of a literal by `BYTES_OF`'s calls holds
 * (`key = bytes.fromhex("…")`, `secret = new TextEncoder().encode("…")`), if the value at `s` is one.
 */
export function wrappedLiteral(text: string, s: number): [number, number] | undefined {
  return BYTES_OF.test(text.slice(s, s + 48)) ? literalAt(text, s) : undefined;
}

/** The contents of the string literal at `s` (an argument's start), if the argument is one. */
function literalAt(text: string, s: number, command = false): [number, number] | undefined {
  let at = s;
  for (let k = 0; k < 2; k++) {
    const wrap = BYTES_OF.exec(text.slice(at, at + 48));
    if (wrap === null) break;
    at += wrap[0].length;
  }
  at += LITERAL_PREFIX.exec(text.slice(at, at + 3))?.[0].length ?? 0;
  const quote = quoteAt(text, at);
  if (quote === undefined) return undefined;
  const start = at + quote.length;
  const close = closingQuote(text, start, quote);
  // A template with a field is code, not a key (`\`${prefix}-key\``).
  if (close === -1 || (quote === "`" && text.slice(start, close).includes("${"))) return undefined;
  const after = close + quote.length;
  const rest = text.slice(after, after + 40);
  return AFTER_KEY.test(rest) || (command && AFTER_COMMAND_KEY.test(rest)) ? [start, close] : undefined;
}

/** The first index at or after `i` that is not a blank, a line break or in a comment: where an argument starts. */
function skipBlanks(text: string, i: number): number {
  let j = i;
  for (;;) {
    while (j < text.length && /\s/.test(text[j] ?? "")) j++;
    const c = text[j];
    if (c !== "/" && c !== "#") return j;
    const past = pastSkipped(text, j);
    if (past === j) return j;
    j = past + 1;
  }
}
