/**
 * The `shape` layer: tokens told by their form alone, whoever issued them. A run of token
 * characters is a credential when its body reads as generated (see `looksGenerated`): a
 * vendor-style token (`tvly-…`, `dp.st.…`, `odt_…`, `NRIQ-…`), a base64, base62 or hex secret.
 * Left alone where a generated run is known not to be a secret: a hash after its algorithm's
 * name (`sha256:…`) or in a line about hashes and commits, a UUID, and the ids model APIs give
 * messages and tool calls (`msg_…`, `toolu_…`, `call_…`).
 */
import { remembered } from "../../memo.js";
import { inTable, TOKEN_CHAR } from "../chars.js";
import { isPlaceholderFinding } from "../rule-helpers.js";
import type { Detection, PatternRule } from "../rule-types.js";
import { FAKE_NAME, isNameChar } from "./credential-names.js";
import { holdsCountedRun, looksGenerated, UUID } from "./randomness.js";

/** Characters of a token run: base64, base64url, and the separators tokens use. */
function isTokenChar(c: number): boolean {
  return inTable(TOKEN_CHAR, c);
}

/** Separators a run is cut at to judge its parts: paths, domains, dotted names. */
function isPartBreak(c: number): boolean {
  return c === 47 || c === 46;
}

/** A short word before a UUID (`req-…`, `sess_…`): an id. */
const PREFIXED_UUID =
  /^(?:[A-Za-z]\w{0,24}[_-])?[0-9a-f]{8}([_-])[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{12}$/i;
/**
 * A name Kubernetes generates for an object (`api-7d9f8c6b5-x2k4p`, a Deployment's pod;
 * `api-7d9f8c6b5`, its ReplicaSet; `migrate-x2k4p`, a Job's pod), as `kubectl get` prints it: a
 * name, then suffixes of its alphabet without vowels or the digits 0, 1 and 3.
 */
const KUBERNETES_NAME =
  /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*?(?:-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}|-[bcdfghjklmnpqrstvwxz2456789]{5}|-[bcdfghjklmnpqrstvwxz2456789]{8,10})$/;
/**
 * Names and ids a cloud generates for resources, not credentials: a CDK logical id (words and 8
 * hex: `MyGlobalTable5DC12DB4`), a CloudFormation physical name (`MyStack-fn5FF616E3-G632ITHSP5HK`),
 * an EC2-style resource id (`ami-04681a1dbd79675a5`), an IAM unique id of a user, role or group
 * (`AROAYBRETNYCYV6ZF2R93`; access key ids, `AKIA…`, are credentials' halves and stay), a Cognito
 * user pool id (`us-east-1_oiuR12Abd`).
 */
const CLOUD_ID =
  /^(?:[a-z]*(?:[A-Z][a-z]+\d*){2,}[0-9A-F]{8}|[A-Za-z][\w]*-[A-Za-z][A-Za-z0-9]*[0-9A-F]{8}-[A-Z0-9]{12,13}|(?:ami|vpc|subnet|sg|igw|eni|vol|snap|i|rtb|acl|eipalloc|nat|tgw|lt|pcx|vpce|fs|fsap|dopt|cgw|vgw|pl)-[0-9a-f]{8}(?:[0-9a-f]{9})?|A(?:GPA|IDA|IPA|NPA|NVA|ROA)[A-Z0-9]{16,17}|[a-z]{2}(?:-gov)?-[a-z]+-\d_[A-Za-z0-9]{9})$/;
/**
 * A build target's part in a package or file name (`lightningcss-win32-arm64-msvc`,
 * `@esbuild/linux-x64`, `node-v22-darwin-arm64.tar.gz`): a name, however few its words.
 */
const PLATFORM_PART =
  /(?:^|[-_/.@])(?:win32|win64|x64|x86|x86_64|ia32|arm64|aarch64|amd64|armv[67]l?|i[36]86|wasm32|riscv64|ppc64le|s390x|loong64)(?=$|[-_/.])/;
/** An OpenSSH public key's type before its body (`ssh-ed25519 AAAA…`, an `authorized_keys` line). */
const SSH_KEY_BEFORE = /(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)[ \t]+$/;
/** A W3C trace context (`00-<trace id>-<span id>-<flags>`) or an AWS X-Ray trace id (`1-<time>-<id>`): ids of a request's trace. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$|^1-[0-9a-f]{8}-[0-9a-f]{24}$/;
/** An age public key (a recipient, `age1` and 58 bech32 characters): published by design. */
const AGE_RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;
/** Digest lengths (SHA-1, SHA-256, SHA-512 in hex): a bare run of one is a digest or a commit. */
const DIGEST_LENGTHS = new Set([40, 64, 128]);
/** A file name's extension after a content hash (`app-3f9c….js`, `logo.ico-7a38….png`). */
const FILE_EXTENSION = /\.[a-z][a-z0-9]{0,4}$/;
/** Names whose values are not secret: ids, hashes, versions, public and anti-forgery tokens. */
const NON_SECRET_NAME =
  /(?:^|[^a-z])(?:id|ids|account[_-]?sid|uuid|guid|hash|sha\d*|md5|checksum|chksum|digest|version|ver|rev|srcrev|revision|commit|etag|fingerprint|integrity|accessor|(?:public|publishable|primary|foreign|sort|partition|cache|idempotency)[_-]?(?:key|token)|(?:csrf|xsrf|authenticity)[_-]?token|traceparent|tracestate)(?:[_-]?\d+)?$/i;
/** A log line's trace and span ids (`trace=<32 hex>`): the whole name, not `LANGSMITH_TRACE`. */
const TRACE_NAME = /^(?:trace|span|correlation)$/;
/** Ids that model and agent APIs give messages, tool calls, requests and runs: not credentials. */
const ID_PREFIX =
  /^(?:msg|msgbatch|toolu|srvtoolu|call|chatcmpl|cmpl|req|request|run|sess|session|step|span|trace|file|asst|thread|evt|event|resp|batch|job|ftjob|ft|org|proj|user|usr|cus|pi|ch|in|sub|prod|price|txn|tx|ord|inv|vs|res|conv|item|fc|rs|ws|ctx|task|exec|sha256|sha512|sha1)[_-]/;
/**
 * The text before a run names it a hash: `sha256:`, `sha1-`, `@sha256:`, `md5 `, Go's module
 * hash `h1:` (go.sum, `go mod download -json`).
 */
const HASH_BEFORE =
  /(?:(?:sha(?:1|224|256|384|512)?|md5|blake2b?|blake3|xxh\d*|crc32)[:=_-]?\s?|(?<![A-Za-z0-9])h1:)[+/]*$/i;
/**
 * The text before a run says it is public by design: a public key's label (WireGuard's `public
 * key: …` and `peer: …` in `wg show`, `PublicKey = …` in a peer's section, age's `Public key:
 * age1…`), or a hashed `known_hosts` entry (`|1|salt|hash`).
 */
const PUBLISHED_BEFORE =
  /(?:(?<![A-Za-z])[Pp]ublic[ _-]?[Kk]ey[ \t]*[:=][ \t]*["']?[/+]?|(?:^|\n)peer: |\|1\|(?:[A-Za-z0-9+/]{27}=\|)?)$/;
/**
 * A key a browser is given by design: Stripe's publishable keys (`pk_live_…`; its secret keys are
 * `sk_` and `rk_`) and PostHog's project keys (`phc_…`).
 */
const PUBLISHABLE_KEY = /^(?:pk_(?:live|test)_|phc_)[A-Za-z0-9]{20,}$/;

/** A key published by design (Stripe's `pk_live_…`, PostHog's `phc_…`): a page's script holds it. */
export function isPublishableKey(value: string): boolean {
  return PUBLISHABLE_KEY.test(value);
}
/**
 * An Ethereum (EVM) account's or contract's address: `0x` and 40 hex, public by design. A private
 * key is 64 hex, and under its name the context layer reads it.
 */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** An OpenPGP key's id after its algorithm (`cv25519/3D78C3083DC6F04A` in `gpg --list-keys`). */
const OPENPGP_KEY_ID =
  /^(?:rsa\d{3,4}|dsa\d{3,4}|elg\d{3,4}|ed25519|ed448|cv25519|cv448|nistp\d{3}|brainpoolP\d{3}r1|secp256k1)\/[0-9A-F]{8,16}$/;
/** An image's, a font's or a sound's data URI (`data:image/png;base64,…`): media, not a key. */
const DATA_URI_BEFORE = /data:(?:image|font|audio|video)\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,$/i;
/** A line about hashes, digests or commits, where a hex run is one. */
const HASH_LINE =
  /\b(?:sha\d*|md5|hash(?:es)?|digest|checksum|commit(?:ted|s)?|revision|rev|HEAD|merge|tree|blob|parent|git|cherry-pick|rebase|revert|integrity|etag|fingerprint|image|layer)\b/i;

/**
 * Does a part of `text[from, to)` (split at `/ . - _`) of 16 or more characters read as generated
 * with no run counted by hand in it? Then the run carries a body beside its named or typed parts
 * (`12345678/tOWvvSlTWjFB…`, `releases/tOWv…/app-darwin-arm64`).
 */
function holdsPlainGeneratedPart(text: string, from: number, to: number): boolean {
  let part = from;
  for (let i = from; i <= to; i++) {
    const c = i === to ? 47 : text.charCodeAt(i);
    if (c === 47 || c === 46 || c === 45 || c === 95) {
      if (i - part >= 16 && looksGenerated(text, part, i, 16) && !holdsCountedRun(text, part, i)) return true;
      part = i + 1;
    }
  }
  return false;
}

/** Is `text[from, to)` hex digits in one case (`3f9c…`, `3F9C…`; mixed case is no digest)? */
function isHex(text: string, from: number, to: number): boolean {
  let lower = false;
  let upper = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 102) lower = true;
    else if (c >= 65 && c <= 70) upper = true;
    else if (!(c >= 48 && c <= 57)) return false;
  }
  return !(lower && upper);
}

/**
 * The name a value at `from` is assigned to (`name = `, `"name": "`, `name="n" value="`),
 * lower-cased with words joined by `_`, or "".
 */
function nameBefore(text: string, from: number): string {
  let i = from;
  const skipBlank = () => {
    while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  };
  const skipQuote = () => {
    if (i > 0 && (text[i - 1] === '"' || text[i - 1] === "'" || text[i - 1] === "`")) i--;
  };
  skipQuote();
  skipBlank();
  // `name="n" value="…"`: the name is the attribute before.
  if (text.endsWith("value=", i)) {
    i -= 6;
    skipBlank();
    skipQuote();
    const end = i;
    while (i > 0 && isNameChar(text.charCodeAt(i - 1))) i--;
    return text.startsWith("name=", i - 6) || text.startsWith("name=", i - 5)
      ? wordsOf(text.slice(i, end))
      : "";
  }
  const sign = text[i - 1];
  if (sign !== "=" && sign !== ":" && sign !== ">") return "";
  i--;
  if (sign === ">" && text[i - 1] === "=") i--;
  else if (sign === "=" && text[i - 1] === ":") i--;
  skipBlank();
  skipQuote();
  const end = i;
  while (i > 0 && end - i < 80 && isNameChar(text.charCodeAt(i - 1))) i--;
  return wordsOf(text.slice(i, end));
}

/** ASCII characters before an ARN's word: quotes, an opening bracket, `, = | ; &`. */
const ARN_WORD_END = new Uint8Array(128).map((_, c) => (/["'`([,=|;&]/.test(String.fromCharCode(c)) ? 1 : 0));

/**
 * Does the run at `from` stand in an ARN (`arn:aws:kinesis:…:stream/f3j09j2230j`,
 * `arn:aws:kms:…:key/0987dcba-…`)? A resource's name or id, never a secret.
 */
function inArn(text: string, from: number): boolean {
  let i = from;
  // Back to the start of the word, at most an ARN's length.
  while (i > 0 && from - i < 2048) {
    const c = text.charCodeAt(i - 1);
    if (c <= 32 || (c < 128 && ARN_WORD_END[c] === 1)) break;
    i--;
  }
  return text.startsWith("arn:", i) && from - i > 4;
}

/** A name's words joined by `_`, in lower case (`primaryKey` is `primary_key`). */
function wordsOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/**
 * Is `text[from, to)` inside a URL (after `scheme://` in the same word) that does not look like
 * one carrying a credential in its path (webhooks, bot tokens)? Content-addressed files and page
 * ids are generated too, and no secret.
 */
function inPlainUrl(text: string, from: number, to: number): boolean {
  let i = from;
  while (i > 0 && from - i < 2048 && !endsUrlWord(text.charCodeAt(i - 1))) i--;
  const before = text.slice(i, from);
  return before.includes("://") && !CREDENTIAL_URL.test(text.slice(i, to));
}
/** ASCII characters of `[\s"'<>()[\]{}\`]`: a URL's word ends there. */
const URL_WORD_END = new Uint8Array(128).map((_, c) =>
  /[\s"'<>()[\]{}`]/.test(String.fromCharCode(c)) ? 1 : 0,
);

/** Does char code `c` match `[\s"'<>()[\]{}\`]` (a table for ASCII, the regexp for the rest)? */
function endsUrlWord(c: number): boolean {
  return c < 128 ? URL_WORD_END[c] === 1 : /\s/.test(String.fromCharCode(c));
}
/**
 * A URL that may carry a credential: its words, a query parameter that takes one (an Azure
 * Function's `?code=`, OpenWeatherMap's `?appid=`), a blockchain node provider's, whose path holds
 * the project's key (`mainnet.infura.io/v3/<key>`, `eth-mainnet.alchemyapi.io/v2/<key>`), or a
 * push service's, whose path holds the device's token (`gcm/send/<token>`).
 */
const CREDENTIAL_URL =
  /hook|token|secret|key|auth|bot\d|sig|credential|passw|trigger|[?&](?:code|appid|apiid|app_id)=|infura\.io\/(?:ws\/)?v3\/|alchemy(?:api)?\.(?:io|com)\/v2\/|quiknode\.pro\/|\/(?:gcm|fcm)\/send\//i;

/** Is `from` inside a SOPS-encrypted value (`ENC[AES256_GCM,data:…,iv:…,tag:…,type:str]`): ciphertext? */
function inSopsValue(text: string, from: number): boolean {
  const open = text.lastIndexOf("ENC[", from);
  if (open === -1 || !/^ENC\[[A-Z0-9_]+,data:/.test(text.slice(open, open + 40))) return false;
  const close = text.indexOf("]", open);
  return close === -1 || close > from;
}

/** Is `text[from, to)` in the body of a public key or certificate block? */
function inPublicBlock(text: string, from: number): boolean {
  const begin = text.lastIndexOf("-----BEGIN ", from);
  if (begin === -1) return false;
  const label = text.slice(begin, begin + 60);
  if (!/^-----BEGIN [A-Z0-9 ]*(?:PUBLIC KEY|CERTIFICATE|SIGNATURE|MESSAGE)/.test(label)) return false;
  const end = text.indexOf("-----END ", begin);
  return end === -1 || end > from;
}

/**
 * Whether a text holds a SOPS value (`ENC[`) or a key block (`-----BEGIN `), each looked for once
 * per text (at its first generated run) rather than once per run.
 */
class TextMarks {
  private hasSops: boolean | undefined;
  private hasBlock: boolean | undefined;
  /** The last line asked about (`aboutHashes`) and its answer: runs come in order, most on one line. */
  private lineStart = -1;
  private lineEnd = -1;
  private lineAboutHashes = false;

  /** Is the line around `[from, to)` about hashes, digests or commits (`HASH_LINE`)? */
  aboutHashes(text: string, from: number, to: number): boolean {
    if (from < this.lineStart || to > this.lineEnd) {
      this.lineStart = text.lastIndexOf("\n", from) + 1;
      const end = text.indexOf("\n", to);
      this.lineEnd = end === -1 ? text.length : end;
      this.lineAboutHashes = HASH_LINE.test(text.slice(this.lineStart, this.lineEnd));
    }
    return this.lineAboutHashes;
  }

  sops(text: string): boolean {
    this.hasSops ??= text.includes("ENC[");
    return this.hasSops;
  }

  block(text: string): boolean {
    this.hasBlock ??= text.includes("-----BEGIN ");
    return this.hasBlock;
  }
}

/**
 * Is the run `text[from, to)` a known non-secret where it stands? `inName`: the text is a member
 * name, where a bare digest is no more expected than any other generated run.
 */
function isKnownNonSecret(
  text: string,
  from: number,
  to: number,
  inName: boolean,
  marks: TextMarks,
): boolean {
  const run = text.slice(from, to);
  if (UUID.test(run) || PREFIXED_UUID.test(run) || ID_PREFIX.test(run)) return true;
  if (holdsCountedRun(text, from, to) && !holdsPlainGeneratedPart(text, from, to)) return true;
  if (
    KUBERNETES_NAME.test(run) ||
    TRACEPARENT.test(run) ||
    CLOUD_ID.test(run) ||
    AGE_RECIPIENT.test(run) ||
    PUBLISHABLE_KEY.test(run) ||
    OPENPGP_KEY_ID.test(run) ||
    EVM_ADDRESS.test(run)
  )
    return true;
  if (PLATFORM_PART.test(run) && !holdsPlainGeneratedPart(text, from, to)) return true;
  if (inArn(text, from)) return true;
  if (CACHE_PATH.test(run)) return true;
  if (text.startsWith("AAAA", from) && SSH_KEY_BEFORE.test(text.slice(Math.max(0, from - 40), from)))
    return true;
  if (HASH_BEFORE.test(text.slice(Math.max(0, from - 12), from))) return true;
  if (PUBLISHED_BEFORE.test(text.slice(Math.max(0, from - 40), from))) return true;
  if (text.charCodeAt(from - 1) === 44 && DATA_URI_BEFORE.test(text.slice(Math.max(0, from - 100), from)))
    return true;
  const name = nameBefore(text, from);
  if (
    isHex(text, from, to) &&
    ((!inName && DIGEST_LENGTHS.has(to - from)) || marks.aboutHashes(text, from, to))
  ) {
    return true;
  }
  if (FILE_EXTENSION.test(run) && run.includes(".") && !run.startsWith(".")) return true;
  if (FAKE_NAME.test(name) || (TRACE_NAME.test(name) && isHex(text, from, to))) return true;
  // `primary_key`, `commit_sha`: unless a credential word stands before (`todo_secret_do_not_commit`).
  if (NON_SECRET_NAME.test(name) && !/secret|passw|token/.test(name.replace(NON_SECRET_NAME, "")))
    return true;
  if (marks.sops(text) && inSopsValue(text, from)) return true;
  return inPlainUrl(text, from, to) || (marks.block(text) && inPublicBlock(text, from));
}

/**
 * Does the run `text[from, to)` hold a generated body? Paths, domains and dotted names are
 * judged part by part (`/usr/lib/x86_64-linux-gnu`, `api.example.com` are words; a base64 key
 * holding `/` has a generated part); other runs as a whole, separators dropped, so a token cut
 * into groups (`dn3fx330-gkts85ui3u`) counts all its characters.
 */
function holdsGenerated(text: string, from: number, to: number, minLength: number, whole: boolean): boolean {
  let hasBreak = false;
  let hasGroupBreak = false;
  let dots = 0;
  let slashes = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (isPartBreak(c)) {
      hasBreak = true;
      if (c === 46) dots++;
      else slashes++;
    } else if (isGroupBreak(c)) hasGroupBreak = true;
  }
  if (
    (whole || !hasBreak || (!hasGroupBreak && readsAsBase64(text, from, to, dots, slashes))) &&
    looksGenerated(text, from, to, minLength)
  )
    return true;
  // One part, the run itself, judged just above.
  if (!hasBreak && !hasGroupBreak) return false;
  // Part by part: a path's or a domain's parts; a token's groups (`xoxb-…-…-GkwFDQoH…`).
  const breaks = hasBreak ? isPartBreak : isGroupBreak;
  let part = from;
  for (let i = from; i <= to; i++) {
    if (i === to || breaks(text.charCodeAt(i))) {
      if (
        i - part >= minLength &&
        looksGenerated(text, part, i, minLength) &&
        !isIdPart(text.slice(part, i))
      ) {
        return true;
      }
      part = i + 1;
    }
  }
  return false;
}

/**
 * May a run holding `/` be one base64 body rather than a path (judged whole, then, as well as
 * part by part): no `.` (and, by the caller, no `-` or `_`: base64url has no `/`), no `/` before
 * it, a `/` per 12 characters at most (random base64 has one in 64), no part a lower-case word of
 * 4 letters or more or a digest (`uploads/…/avatar`, `torvalds/linux/commit/<sha>`)? A path of words
 * (`src/lib/utils`, `OpenAgentsInc/openagents`) does not read as generated whole: it switches case
 * and class too seldom; an ARN's resource (`connection/7d2469ff-…`) holds `-`.
 */
function readsAsBase64(text: string, from: number, to: number, dots: number, slashes: number): boolean {
  if (dots !== 0 || slashes === 0 || slashes * 12 > to - from || text.charCodeAt(from - 1) === 47)
    return false;
  // Without `-` or `_`, `isIdPart` is the digest test.
  return !text
    .slice(from, to)
    .split("/")
    .some((part) => /^[a-z]{4,}$/.test(part) || isIdPart(part));
}

/**
 * A part of a path that is an id: a UUID, a digest, a model API id (`/items/<uuid>`,
 * `/blobs/<sha>`), or a build tool's content hash or scratch folder (`TOOL_PATH_PART`).
 */
function isIdPart(part: string): boolean {
  return (
    UUID.test(part) ||
    PREFIXED_UUID.test(part) ||
    ID_PREFIX.test(part) ||
    KUBERNETES_NAME.test(part) ||
    (DIGEST_LENGTHS.has(part.length) && /^[0-9a-f]+$/i.test(part)) ||
    TOOL_PATH_PART.test(part)
  );
}

/**
 * The names build tools give what they hash or make up, as a path's part: Nix's store path
 * (`kj9h…gi4f-nodejs-22`, 32 of Nix's base-32 digits), Cargo's artifact (`mycrate-40f842319e68ddc3`),
 * Go's build cache (`<sha-256>-d`), pip's wheel cache (a SHA-224 split `77/c1/523f…`), macOS's
 * per-user temporary folder (`z_klmvt45…0000gn`).
 */
/**
 * A path inside a tool's cache (`~/.cache/uv/archive-v0/0wBpIzuY…`, npm's `_cacache/index-v5/4f/2a/…`,
 * Bazel's `_bazel_u/<md5>`, Poetry's virtualenvs): the tool names what it keeps by hashes.
 */
const CACHE_PATH =
  /(?:^|\/)(?:\.cache|_cacache|\.pnpm-store|pypoetry|_bazel_[\w.-]+|sccache|go-build|\.gradle\/caches|\.m2\/repository|Library\/Caches)\//;
const TOOL_PATH_PART =
  /^(?:[0-9a-df-np-sv-z]{32}-[\w+-]+|[a-z][\w-]*-[0-9a-f]{16}|[0-9a-f]{64}-[a-z]|[0-9a-f]{52,56}|[\w+-]{20,40}0000g[a-z])$/;

/** Separators between a token's groups. */
function isGroupBreak(c: number): boolean {
  return c === 45 || c === 95;
}

/**
 * Does the run decode from base64 to printable text? Then it is encoded text, whose content the
 * scrubber judges decoded (`Scrubber.scanBase64`), not a random key.
 */
function encodesText(text: string, from: number, to: number): boolean {
  let end = to;
  while (end > from && text.charCodeAt(end - 1) === 61) end--;
  if (end - from < 16) return false;
  // Decode 4 characters to 3 bytes at a time, without a buffer; stop at the first byte that
  // is not printable.
  let bits = 0;
  let count = 0;
  for (let i = from; i < end; i++) {
    const v = base64Value(text.charCodeAt(i));
    if (v < 0) return false;
    bits = (bits << 6) | v;
    count += 6;
    if (count >= 8) {
      count -= 8;
      const byte = (bits >> count) & 0xff;
      if (!((byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13)) return false;
    }
  }
  return true;
}

/** The value of a base64 or base64url digit, or -1. */
function base64Value(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c === 43 || c === 45) return 62;
  if (c === 47 || c === 95) return 63;
  return -1;
}

/**
 * Fewest characters of a run cut short that are a secret still: a truncated line shows most of a
 * key (`hf_AbCdEfGhIjKlMnOpQrSt…`); fewer are an excerpt or a mask (`ghp_abc…`), and so are a JSON
 * header in base64 and a run cut at both ends (a fragment quoted from within), of any length.
 */
const ELIDED_SHOWN = 20;
/** A JSON document's start in base64 (`eyJ…`, `ops_eyJ…`): a header, not the signature. */
const JSON_HEADER = /(?:^|[_-])eyJ/;

/** Is the run cut short before it (`...6wqX6fNU…`): a fragment quoted from within a value? */
function isElidedBefore(text: string, from: number): boolean {
  return text.startsWith("...", from) || text[from - 1] === "…";
}

/** Is the run cut short in the text (`…` or `...` at either end): an excerpt, not a value? */
function isElided(text: string, from: number, to: number): boolean {
  return (
    text.startsWith("...", to - 3) ||
    text[to] === "…" ||
    text.startsWith("...", from) ||
    text[from - 1] === "…"
  );
}

/** Trims separators off a run's ends, and takes base64's `=` padding after it. */
function trimRun(text: string, from: number, to: number): [number, number] {
  let s = from;
  let e = to;
  const edge = (c: number) => c === 46 || c === 45 || c === 95 || c === 47 || c === 126 || c === 43;
  while (s < e && edge(text.charCodeAt(s))) s++;
  while (e > s && edge(text.charCodeAt(e - 1))) e--;
  if (e === to) {
    while (e < text.length && e < to + 2 && text.charCodeAt(e) === 61) e++;
  }
  return [s, e];
}

/**
 * Appends a finding for every run of token characters in `text` with a generated body of at
 * least `minLength` letters and digits that is not a known non-secret. `whole`: a run holding
 * `/` or `.` is judged whole as well as by parts (a member name is no path or domain).
 */
export function scanGeneratedRuns(
  text: string,
  out: Detection[],
  rule: string,
  minLength: number,
  whole = false,
  covered?: (start: number, end: number) => boolean,
): void {
  const n = text.length;
  const marks = new TextMarks();
  let i = 0;
  while (i < n) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isTokenChar(text.charCodeAt(i))) i++;
    if (i - start < minLength) continue;
    const [s, e] = trimRun(text, start, i);
    if (
      e - s >= minLength &&
      covered?.(s, e) !== true &&
      holdsGenerated(text, s, e, minLength, whole) &&
      !(
        (e - s < ELIDED_SHOWN || JSON_HEADER.test(text.slice(s, e)) || isElidedBefore(text, start)) &&
        isElided(text, start, i)
      ) &&
      !encodesText(text, s, e) &&
      !isKnownNonSecret(text, s, e, whole, marks)
    ) {
      out.push({ start: s, end: e, rule, kind: "secret" });
    }
  }
}

/** Fewest letters and digits of a generated run in free text. */
const GENERATED_RUN_MIN = 16;
/** Fewest in a member name, where a written name is an identifier and a token stands out sooner. */
export const GENERATED_NAME_MIN = 10;

/** The shape layer's rule id. */
export const SHAPE_RULE_ID = "generated-token";

/**
 * A member that holds an id by design (`id`, `run_id`, `requestId`, `trace-id`, `uuid`), or
 * describes the machine (`platform`: `macOS-26.3-x86_64-i386-64bit-Mach-O`, `hostname`, `version`).
 */
const ID_NAME =
  /^(?:id|ids|uuid|guid|ts|timestamp|etag|platform|arch|os|hostname|host|machine|kernel|release|version|user_agent|userAgent)$|[_.-](?:id|ids|uuid|guid|version|platform)$|[a-z](?:Id|Ids|ID|Uuid|UUID|Version|Platform)$/;

/**
 * Does member `key` hold an id or describe the machine, so that a generated-looking value is no
 * secret? Remembered: the scrubber asks it of each string value's member name, the same few on every line.
 */
export const isIdName: (key: string) => boolean = remembered((key) => ID_NAME.test(key));

/** The shape layer's rules. */
export const SHAPE_RULES: readonly PatternRule[] = [
  {
    id: SHAPE_RULE_ID,
    kind: "secret",
    layer: "shape",
    scan: (text, out, rule) =>
      scanGeneratedRuns(text, out, rule.id, GENERATED_RUN_MIN, false, coveredBy(text, out, rule.id)),
  },
];

/**
 * Speed only: does a secret finding already in `out` (the earlier rules' findings on `text`)
 * hold `[start, end)`, one the scrubber keeps (no placeholder: `isPlaceholderFinding`)? A shape
 * finding inside it would change nothing: merged into it, and named after it (the shape layer's
 * label ranks last). Undefined where that does not hold: a text holding one of our tags (findings
 * touching a tag are dropped, so the inner one could outlive the outer one).
 */
function coveredBy(
  text: string,
  out: readonly Detection[],
  rule: string,
): ((start: number, end: number) => boolean) | undefined {
  if (out.length === 0 || text.includes("[REDACTED:")) return undefined;
  /** Per finding of `out`: 0 not judged yet, 1 kept, 2 a placeholder (or not a secret of another rule). */
  const kept: number[] = new Array(out.length).fill(0);
  return (start, end) => {
    for (let i = 0; i < out.length; i++) {
      const f = out[i] as Detection;
      if (f.start > start || f.end < end) continue;
      if (kept[i] === 0)
        kept[i] = f.kind === "secret" && f.rule !== rule && !isPlaceholderFinding(text, f) ? 1 : 2;
      if (kept[i] === 1) return true;
    }
    return false;
  };
}
