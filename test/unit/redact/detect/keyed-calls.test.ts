/**
 * Keys given to keyed hashes, signers and constant-time comparisons as literals: by the callee's
 * place for its key, whatever stands before it (payloads with commas, brackets, quotes and
 * comments), however the literal is quoted (`"`, `'`, `` ` ``, escaped inside a JSON string or a
 * shell's `"…"`) or made bytes (`b"k"`, `[]byte("k")`, `Buffer.from("k")`, `"k".getBytes()`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  commandCallKeys,
  isAlgorithmName,
  keyArguments,
  keyPlaceOf,
} from "#shared/redact/detect/keyed-calls.js";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectKept } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");
const hides = (text: string, secret: string): boolean => !scrub(text).includes(secret);

/** The keys `keyArguments` finds in the call whose callee ends just before the first `(` after `callee`. */
function keysOf(text: string, callee: string): string[] {
  const open = text.indexOf("(", text.indexOf(callee));
  const place = keyPlaceOf(text.slice(0, open));
  if (place === undefined) return [];
  return keyArguments(text, open + 1, place).map(([s, e]) => text.slice(s, e));
}

describe("keyed calls: the key by its place among the arguments", () => {
  it.each([
    ['Algorithm algorithm = Algorithm.HMAC256("s3cr3tK3y");', "HMAC256", "s3cr3tK3y"],
    [
      'tokenString, err := token.SignedString([]byte("Kx9ab2Qz8Lm3Np7R"))',
      "SignedString",
      "Kx9ab2Qz8Lm3Np7R",
    ],
    ["const h = crypto.createHmac('sha256', 'Tr0ub4dor3x');", "createHmac", "Tr0ub4dor3x"],
    ['sig = hmac.new(b"s3cr3tK3y!Prod", msg, hashlib.sha256).hexdigest()', "hmac.new", "s3cr3tK3y!Prod"],
    ['sig = hmac.new(rb"s3cr3tK3y!Prod", msg, "sha256")', "hmac.new", "s3cr3tK3y!Prod"],
    ['sig = hmac.new(msg=m, key=b"s3cr3tK3y!Prod")', "hmac.new", "s3cr3tK3y!Prod"],
    ['h = hmac.new(bytes("s3cr3tK3y!Prod", "utf-8"), msg, "sha256")', "hmac.new", "s3cr3tK3y!Prod"],
    ["$sig = hash_hmac('sha256', $payload, 'Prod$ecretKey24');", "hash_hmac", "Prod$ecretKey24"],
    [
      "$sig = hash_hmac('sha256', json_encode(['a' => 1, 'b' => 2]), 'Prod$ecretKey24');",
      "hash_hmac",
      "Prod$ecretKey24",
    ],
    ['OpenSSL::HMAC.hexdigest("SHA256", "Kx9ab2Qz8Lm3", data)', "HMAC.hexdigest", "Kx9ab2Qz8Lm3"],
    [
      'Jwts.builder().signWith(SignatureAlgorithm.HS512, "Kq7wz3Lr9Tk2".getBytes())',
      "signWith",
      "Kq7wz3Lr9Tk2",
    ],
    ['new SecretKeySpec("Tr0ub4dor&3x".getBytes("UTF-8"), "HmacSHA256")', "SecretKeySpec", "Tr0ub4dor&3x"],
    [
      'var h = new HMACSHA256(System.Text.Encoding.UTF8.GetBytes("Kq7wz3Lr9Tk2"));',
      "HMACSHA256",
      "Kq7wz3Lr9Tk2",
    ],
    ['mac, _ := hmac.New(sha256.New, []byte("Kq7wz3Lr9Tk2"))', "hmac.New", "Kq7wz3Lr9Tk2"],
    ["const h = crypto.createHmac('sha256', Buffer.from('Kq7wz3Lr9Tk2'));", "createHmac", "Kq7wz3Lr9Tk2"],
    ['let mac = HmacSha256::new_from_slice(b"Kq7wz3Lr9Tk2").unwrap();', "new_from_slice", "Kq7wz3Lr9Tk2"],
    [':crypto.mac(:hmac, :sha256, "Kq7wz3Lr9Tk2", data)', ":crypto.mac", "Kq7wz3Lr9Tk2"],
    ["data = jwt.decode(token, 'Kq7wz3Lr9Tk2', algorithms=['HS256'])", "jwt.decode", "Kq7wz3Lr9Tk2"],
    ["const t = jwt.sign(payload, `Kq7wz3Lr9Tk2`, { expiresIn: '1h' });", "jwt.sign", "Kq7wz3Lr9Tk2"],
    ["if hmac.compare_digest(token, 'Kq7wz3Lr9Tk2'): ok()", "compare_digest", "Kq7wz3Lr9Tk2"],
    ["if (hash_equals('Kq7wz3Lr9Tk2', $token)) {}", "hash_equals", "Kq7wz3Lr9Tk2"],
    ['totp = pyotp.TOTP("JBSWY3DPEHPK3PXPQ4ZA")', "TOTP", "JBSWY3DPEHPK3PXPQ4ZA"],
    // A password hasher's plain text.
    ['hashed = bcrypt.hashpw(b"Kq7wz3Lr9Tk2", bcrypt.gensalt())', "hashpw", "Kq7wz3Lr9Tk2"],
    ["const h = await bcrypt.hash('Kq7wz3Lr9Tk2', 10);", "bcrypt.hash", "Kq7wz3Lr9Tk2"],
    ['pw_hash = generate_password_hash("Kq7wz3Lr9Tk2")', "generate_password_hash", "Kq7wz3Lr9Tk2"],
    ['$h = password_hash("Kq7wz3Lr9Tk2", PASSWORD_DEFAULT);', "password_hash", "Kq7wz3Lr9Tk2"],
    ["User::create(['password' => Hash::make('Kq7wz3Lr9Tk2')]);", "Hash::make", "Kq7wz3Lr9Tk2"],
    ["dk = hashlib.pbkdf2_hmac('sha256', b'Kq7wz3Lr9Tk2', salt, 100_000)", "pbkdf2_hmac", "Kq7wz3Lr9Tk2"],
    [
      'code, err := totp.GenerateCode("JBSWY3DPEHPK3PXPQ4ZA", time.Now())',
      "GenerateCode",
      "JBSWY3DPEHPK3PXPQ4ZA",
    ],
    // Payloads and comments before the key hold commas, brackets and quotes of their own.
    ["jwt.sign({ msg: `it's`, n: [1, 2] }, 'Kq7wz3Lr9Tk2')", "jwt.sign", "Kq7wz3Lr9Tk2"],
    ["hash_hmac('sha256', /* the body's bytes, all */ $body, 'Kq7wz3Lr9Tk2')", "hash_hmac", "Kq7wz3Lr9Tk2"],
    ["jwt.encode(\n    {'sub': uid},  # the user's id\n    'Kq7wz3Lr9Tk2',\n)", "jwt.encode", "Kq7wz3Lr9Tk2"],
    // Quoted inside a JSON string or a shell's double quotes.
    [
      '{"content": "sig = hmac.new(b\\"Kq7wz3Lr9Tk2\\", msg, hashlib.sha256)\\n"}',
      "hmac.new",
      "Kq7wz3Lr9Tk2",
    ],
    [
      'php -r "echo hash_hmac(\\"sha256\\", \\"payload\\", \\"Kq7wz3Lr9Tk2\\");"',
      "hash_hmac",
      "Kq7wz3Lr9Tk2",
    ],
  ])("%s", (text, callee, key) => {
    expect(keysOf(text, callee)).toEqual([key]);
    expect(hides(text, key)).toBe(true);
  });

  it("varied: any payload before the key, any quoting, any blanks", () => {
    const payload = fc.constantFrom(
      "payload",
      "{ sub: user.id, roles: ['a', 'b'] }",
      '{"a": "b, c)"}',
      "json_encode(['a' => 1])",
      "data /* it's, (here) */",
    );
    const quote = fc.constantFrom<[string, string]>(['"', '"'], ["'", "'"], ["`", "`"], ['\\"', '\\"']);
    const key = fc
      .tuple(
        fc.stringMatching(/^[A-Za-z]{4,10}$/),
        fc.integer({ min: 10, max: 9999 }),
        fc.constantFrom("!", "#", "x"),
      )
      .map(([w, n, s]) => `${w}${n}${s}Q`);
    const blank = fc.constantFrom("", " ", "\n    ");
    fc.assert(
      fc.property(payload, quote, key, blank, (p, [open, close], k, b) => {
        const text = `const t = jwt.sign(${b}${p},${b}${open}${k}${close}${b})`;
        expect(keysOf(text, "jwt.sign"), text).toEqual([k]);
      }),
      { seed: 20_261_128, numRuns: 300 },
    );
  });

  it("code that names no key stays: variables, digests' encodings, algorithm names, templates", () => {
    expectKept(scrub, [
      "mac = hmac.new(key, msg, hashlib.sha256)",
      'h = hmac.new(secret.encode(), body.encode(), "sha256")',
      "console.log(hmac.digest('hex'));",
      "$h = hash_hmac('sha256', $data, $secret);",
      'key = SecretKeySpec(keyBytes, "HmacSHA256")',
      '.signWith(key, "HS256")',
      'builder.signWith(privateKey, "SHA256withRSA")',
      'OpenSSL::HMAC.hexdigest("SHA256", "#{secret}", data)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is code holding a template
      "jwt.sign(payload, `${prefix}-key`)",
      'jwt.encode({"a": "b, c"}, settings.SECRET_KEY, algorithm="HS256")',
      "if hmac.compare_digest(token, expected): ok()",
      "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
      "const h = await bcrypt.hash(req.body.password, 10);",
      "$h = password_hash($pw, PASSWORD_DEFAULT);",
      "const h = crypto.createHash('sha256');",
      "Algorithm.HMAC256(secretFromVault)",
    ]);
    expect(isAlgorithmName("PBKDF2WithHmacSHA256")).toBe(true);
    expect(isAlgorithmName("Kq7wz3Lr9Tk2")).toBe(false);
  });
});

describe("keyed calls without parentheses, and literals made bytes or decoded", () => {
  it.each([
    ['token = JWT.encode payload, "my$ecretKey2024", "HS256"', "my$ecretKey2024"],
    ["decoded = JWT.decode token, 'an0therS3cretKey', true, { algorithm: 'HS256' }", "an0therS3cretKey"],
    ['digest = OpenSSL::HMAC.hexdigest "SHA256", "s3cr3tK3yV4lu3x9", data', "s3cr3tK3yV4lu3x9"],
    ['h = OpenSSL::HMAC.new "Kq7wz3Lr9Tk2", OpenSSL::Digest.new("sha256")', "Kq7wz3Lr9Tk2"],
    // The key as the last argument: the line's end, a statement's or a modifier follows.
    ['token = JWT.encode payload, "Hunter2Xyz!kq9"', "Hunter2Xyz!kq9"],
    ['JWT.decode token, "Hunter2Xyz!kq9" if ok', "Hunter2Xyz!kq9"],
  ])("Ruby's call without parentheses: %s", (text, key) => {
    expect(commandCallKeys(text).map(([s, e]) => text.slice(s, e))).toEqual([key]);
    expect(hides(text, key)).toBe(true);
  });

  it("a call without parentheses ends with its line: the next line's literals are no arguments", () => {
    const text = 'JWT.encode payload, key\nputs "Kq7wz3Lr9Tk2-not-an-argument"';
    expect(commandCallKeys(text)).toEqual([]);
  });

  it("varied: a literal made bytes or decoded under a credential's name is the value", () => {
    const wrap = fc.constantFrom(
      (k: string) => `new TextEncoder().encode("${k}")`,
      (k: string) => `TextEncoder().encode('${k}')`,
      (k: string) => `Buffer.from("${k}", "utf8")`,
      (k: string) => `bytes.fromhex("${k}")`,
      (k: string) => `base64.b64decode("${k}")`,
      (k: string) => `[]byte("${k}")`,
      (k: string) => `Base64.getDecoder().decode("${k}")`,
      (k: string) => `Convert.FromBase64String("${k}")`,
      (k: string) => `hex.DecodeString("${k}")`,
      (k: string) => `atob('${k}')`,
      (k: string) => `bytearray.fromhex("${k}")`,
      (k: string) => `hex2bin("${k}")`,
    );
    const name = fc.constantFrom(
      "const secret =",
      "SECRET_KEY =",
      "jwtSecret :=",
      "let signingKey =",
      "password =",
    );
    const key = fc.stringMatching(/^[0-9a-f]{32,64}$/).filter((k) => /[a-f]/.test(k) && /\d/.test(k));
    fc.assert(
      fc.property(wrap, name, key, (w, n, k) => {
        const text = `${n} ${w(k)}`;
        expect(hides(text, k), text).toBe(true);
      }),
      { seed: 20_261_128, numRuns: 200 },
    );
  });

  it("a lookup's or a codec's name argument stays", () => {
    expectKept(scrub, [
      'password = os.getenv("DB_PASSWORD")',
      'token = get_token("service-name")',
      'key = bytes(name, "utf-8")',
      'key = bytes.fromhex(config["key_hex"])',
    ]);
  });
});

describe("keys that reach a keyed call through names in the same text", () => {
  /** Languages' ways to assign a literal to a name, the literal made bytes or not. */
  const assign = fc.constantFrom(
    (n: string, k: string) => `byte[] ${n} = "${k}".getBytes();`,
    (n: string, k: string) => `String ${n} = "${k}";`,
    (n: string, k: string) => `${n} := []byte(\`${k}\`)`,
    (n: string, k: string) => `${n} := "${k}"`,
    (n: string, k: string) => `${n} = b"${k}"`,
    (n: string, k: string) => `${n} = '${k}'`,
    (n: string, k: string) => `const ${n} = Buffer.from('${k}');`,
    (n: string, k: string) => `var ${n} = Encoding.UTF8.GetBytes("${k}");`,
    (n: string, k: string) => `let ${n} = b"${k}";`,
  );
  /** Keyed calls taking a name as their key. */
  const call = fc.constantFrom(
    (n: string) => `Mac m = new SecretKeySpec(${n}, "HmacSHA256");`,
    (n: string) => `sig = hmac.new(${n}, msg, hashlib.sha256).hexdigest()`,
    (n: string) => `ss, err := token.SignedString(${n})`,
    (n: string) => `const t = jwt.sign(payload, ${n});`,
    (n: string) => `mac := hmac.New(sha256.New, ${n})`,
    (n: string) => `var h = new HMACSHA256(${n});`,
    (n: string) => `let mac = HmacSha256::new_from_slice(${n}).unwrap();`,
  );
  const name = fc.constantFrom("k", "key2", "mySigningBytes", "raw", "buf", "material", "sk_1");
  const filler = fc.array(
    fc.constantFrom("int n = items.size();", 'log.info("ready")', "x = compute(a, b)", "// the message"),
    { maxLength: 3 },
  );
  const key = fc
    .tuple(fc.stringMatching(/^[A-Za-z]{4,9}$/), fc.integer({ min: 10, max: 999 }))
    .map(([w, n]) => `${w}${n}Q`);

  it("varied: a literal assigned to a name, the name given to the call, code between", () => {
    fc.assert(
      fc.property(assign, call, name, filler, key, (a, c, n, f, k) => {
        const text = [a(n, k), ...f, c(n)].join("\n");
        expect(hides(text, k), text).toBe(true);
      }),
      { seed: 20_261_128, numRuns: 400 },
    );
  });

  it.each([
    [
      'String effectivelyConstantString = "s3cr37Q";\nbyte[] key = effectivelyConstantString.getBytes();\nMac m = new SecretKeySpec(key, "HmacSHA256");',
      "s3cr37Q",
    ],
    ['k = "Tr0ub4dor3x"\nkb = k.encode("utf-8")\nsig = hmac.new(kb, msg, "sha256")', "Tr0ub4dor3x"],
  ])("through two names: %s", (text, secret) => {
    expect(hides(text, secret)).toBe(true);
  });

  it("a name assigned no literal before the call, or another name, stays", () => {
    expectKept(scrub, [
      'key = os.environ["HMAC_KEY"]\nsig = hmac.new(key, msg, "sha256")',
      'sig = hmac.new(key, msg, "sha256")\nkey = "rotated-next-time"',
      'label = "billing-service"\nsig = hmac.new(key, label.encode(), "sha256")',
      'alg = "HS256"\ntoken = jwt.encode(payload, secret, alg)',
      'byte[] key = loadKey("hmac");\nnew SecretKeySpec(key, "HmacSHA256")',
    ]);
  });
});

describe("passwords the JCA takes as characters", () => {
  it.each([
    ['new java.net.PasswordAuthentication(usr, "k33pOut!".toCharArray());', "k33pOut!"],
    ['ks.load(new FileInputStream("keystore.p12"), "k33pOut!".toCharArray());', "k33pOut!"],
    ['Key k = store.getKey("alias", "k33pOut!".toCharArray());', "k33pOut!"],
    ['kmf.init(ks, "k33pOut!".toCharArray());', "k33pOut!"],
    ['ks.setKeyEntry("a", key, "k33pOut!".toCharArray(), chain);', "k33pOut!"],
    ['PBEKeySpec spec = new PBEKeySpec("k33pOut!".toCharArray(), salt, 65536, 256);', "k33pOut!"],
    ['String p = "k33pOut!";\nstore.getKey("", p.toCharArray());', "k33pOut!"],
  ])("%s", (text, secret) => {
    expect(hides(text, secret)).toBe(true);
  });

  it("characters of a literal anywhere else stay (character sets, loops)", () => {
    expectKept(scrub, [
      'int i = StringUtils.indexOfAny(path, "/\\\\:".toCharArray());',
      'for (char c : "abcdef".toCharArray()) { count(c); }',
      'private static final char[] HEX = "0123456789abcdef".toCharArray();',
      'cache.load(key, "value");',
      "ks.load(in, password);",
    ]);
  });
});

describe("a review's over-redactions of keys through names, characters, logins and binds", () => {
  it("roles, paths, digests compared, public keys, lexers' characters, JNDI's objects, an `as` that names no form, a fill", () => {
    expectKept(scrub, [
      'await login(page, "admin")',
      'await login(page, "/dashboard")',
      'login(t, "testdata/users.json")',
      'await client.login(process.env.DISCORD_TOKEN, "bot")',
      'audit.login(user, "success")',
      'public_key = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"\njwt.decode(token, public_key, algorithms=["RS256"])',
      'expected = "4a1d9f3b6c2e8a0d7f5b9c1e3a6d8f0b2c4e6a8d0f2b4c6e8a0d2f4b6c8e0a2d"\nassert hmac.compare_digest(sig, expected)',
      'fixture = "t=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"\nassert hmac.compare_digest(header, fixture)',
      'lexer.init("1 + 2 * 3".toCharArray())',
      'String source = "class A { int x; }";\nscanner.init(source.toCharArray());',
      'String word = "banana";\ntrie.load(word.toCharArray());',
      'private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";\nstatic { init(ALPHABET.toCharArray()); }',
      'ctx.bind("cn=Favorite Fruit,o=JNDITutorial", "apple")',
      'rebind("cn=printer,ou=devices,dc=example,dc=com", "printerObject")',
      'password_as_hash_algorithm = "argon2id"',
      'token_as_header_name = "X-Api-Key"',
      'send_token_as = "header"',
      "--token-as=header",
      'secret_as_type = "Opaque"',
      'secret_key = b"\\x00" * 32',
      'cache.store("greeting", "hello world".toCharArray())',
      'lexer.init(src, "fn main() {}".toCharArray())',
      'tokenizer.init(reader, "+-*/".toCharArray())',
      'parser.load(file, "UTF-8".toCharArray())',
      'const key = "-----BEGIN PUBLIC KEY-----\\nMIIBIjAN\\n-----END PUBLIC KEY-----";\njwt.verify(token, key, { algorithms: ["RS256"] });',
      'jwtService.verify(token, "refresh")',
      'const issuerUrl = "https://login.example.com/tenant2";\njwt.verify(token, issuerUrl)',
      'dict.getEntry("apple".toCharArray())',
      'authenticate(sock, "SCRAM-SHA-256")',
    ]);
  });

  it.each([
    ['k := "Zx9vQ2mN7pLk"\nh := hmac.New(sha256.New, []byte(k))', "Zx9vQ2mN7pLk"],
    ['const k = "Zx9vQ2mN7pLk";\nconst h = crypto.createHmac("sha256", Buffer.from(k));', "Zx9vQ2mN7pLk"],
    ['val k = "Zx9vQ2mN7pLk"\nval spec = SecretKeySpec(k.toByteArray(), "HmacSHA256")', "Zx9vQ2mN7pLk"],
    ['const k: string = "Zx9vQ2mN7pLk";\nconst h = crypto.createHmac("sha256", k);', "Zx9vQ2mN7pLk"],
    ['k: bytes = b"Zx9vQ2mN7pLk"\nh = hmac.new(k, msg, hashlib.sha256)', "Zx9vQ2mN7pLk"],
    ['self.k = "Zx9vQ2mN7pLk"\nh = hmac.new(self.k.encode(), m, sha256)', "Zx9vQ2mN7pLk"],
    ['char[] chars = "Qw7!kT2#zP".toCharArray();\nks.load(in, chars);', "Qw7!kT2#zP"],
    [
      'SSLContextBuilder.create().loadKeyMaterial(ks, "Qw7!kT2#zP".toCharArray(), "Qw7!kT2#zQ".toCharArray())',
      "Qw7!kT2#zP",
    ],
    ['ks.load(in, "Qw7!kT2#zP"\n    .toCharArray());', "Qw7!kT2#zP"],
    ['val pw: CharArray = "Qw7kT2zPx9".toCharArray()\nks.load(input, pw)', "Qw7kT2zPx9"],
    ['ldap_bind($ds, "cn=admin,dc=example,dc=org", "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['conn = Connection(server, "cn=admin,dc=example,dc=org", "Qw7kT2zPx9", auto_bind=True)', "Qw7kT2zPx9"],
    ['client.logon(user, "Qw7kT2zPx9");', "Qw7kT2zPx9"],
    ['const token = authenticator.generate("MFRGGZDFMZTWQ2LK");', "MFRGGZDFMZTWQ2LK"],
    ['ok := totp.Validate(passcode, "MFRGGZDFMZTWQ2LK")', "MFRGGZDFMZTWQ2LK"],
    ['totp = ROTP::TOTP.new("MFRGGZDFMZTWQ2LK", issuer: "Acme")', "MFRGGZDFMZTWQ2LK"],
    ["$otp = TOTP::create('MFRGGZDFMZTWQ2LK');", "MFRGGZDFMZTWQ2LK"],
    ['string password = @"Qw7k""T2zPx9";', "T2zPx9"],
    ["export PASSWORD=$'Qw7k\\'T2zPx9'", "T2zPx9"],
    ['password = fr"Qw7kT2zPx9"', "Qw7kT2zPx9"],
    ['"k = \\"Zx9vQ2mN7pLk\\"\\n",\n"sig = hmac.new(k.encode(), m, sha256)\\n",', "Zx9vQ2mN7pLk"],
    ['"password = b\\"Qw7kT2zPx9\\"\\n",', "Qw7kT2zPx9"],
  ])("the same shapes, written otherwise: %s", (text, secret) => {
    expect(hides(text, secret)).toBe(true);
  });
});
