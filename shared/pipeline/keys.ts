/**
 * Object keys of the ingest store: `<tenant>/<session>/<file>` (DESIGN.md storage contracts), and
 * the keys the pipeline writes from them. A key that does not fit is rejected with the reason,
 * never guessed at.
 */

/** A key split into its parts. */
export interface ObjectKey {
  tenant: string;
  session: string;
  file: string;
}

/** Why a key was rejected: a stable code and a sentence naming the part and what was expected. */
export interface KeyProblem {
  code: string;
  message: string;
}

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
/** Longest file name, in UTF-8 bytes (most file systems' limit). */
const MAX_FILE_NAME_BYTES = 255;
// C0 and C1 control characters and DEL: never in a name a person meant.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Characters that change how a name reads without being seen: zero-width ones (U+200B-U+200D,
 * U+2060, U+FEFF), direction marks and overrides (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069),
 * invisible operators (U+2061-U+2064). `REPLAY\u202Elnosj.exe` shows as `REPLAYexe.jsonl`.
 */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
/** `%2F`, `%5C` or `%2E%2E` in a decoded key: an encoded separator or `..` slipped through. */
const ENCODED = /%(?:2f|5c)|%2e%2e/i;

/** The parts of `key`, or the problem with it. */
export function parseObjectKey(
  key: string,
): { ok: true; key: ObjectKey } | { ok: false; problem: KeyProblem } {
  const fail = (code: string, message: string) => ({ ok: false as const, problem: { code, message } });
  if (CONTROL.test(key))
    return fail("key.control_character", "the key holds a control character; expected printable text");
  const invisible = INVISIBLE.exec(key);
  if (invisible !== null) {
    const code = invisible[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
    return fail(
      "key.invisible_character",
      `the key holds U+${code}, a zero-width or direction-changing character that makes a name read as another; expected visible text`,
    );
  }
  if (ENCODED.test(key))
    return fail(
      "key.encoded_separator",
      "the key holds an encoded slash, backslash or '..'; expected plain names",
    );
  if (key.includes("\\"))
    return fail("key.backslash", "the key holds a backslash; expected '/' between its parts");
  const parts = key.split("/");
  if (parts.length !== 3)
    return fail("key.shape", `the key has ${parts.length} part(s); expected <tenant>/<session>/<file>`);
  const [tenant, session, file] = parts as [string, string, string];
  for (const [what, value] of [
    ["tenant", tenant],
    ["session", session],
  ] as const) {
    if (!NAME.test(value) || value === "." || value === "..")
      return fail(
        `key.${what}`,
        `the ${what} ${JSON.stringify(value.slice(0, 40))} is not a name; expected 1-128 of A-Z a-z 0-9 . _ - (not "." or "..")`,
      );
  }
  if (file === "" || file === "." || file === "..")
    return fail("key.file", `the file name ${JSON.stringify(file)} is not a name; expected a file name`);
  if (Buffer.byteLength(file, "utf8") > MAX_FILE_NAME_BYTES)
    return fail(
      "key.file_too_long",
      `the file name is longer than ${MAX_FILE_NAME_BYTES} bytes; expected a shorter one`,
    );
  return { ok: true, key: { tenant, session, file } };
}

/** True for a receipt's name: `RECEIPT.json` or `<anything>.RECEIPT.json` (any case), gzip too. */
export function isReceiptName(file: string): boolean {
  return /(?:^|[._-])receipt\.json(?:\.gz)?$/i.test(file);
}

/**
 * The published Layer C copy's key: the file's name with `.layer-c` before its format extension
 * (the copy is written uncompressed): `REPLAY.jsonl` → `REPLAY.layer-c.jsonl`, and
 * `REPLAY.jsonl.gz` → `REPLAY.layer-c-gz.jsonl` (see `layerCName`).
 */
export function layerCKey(key: ObjectKey): string {
  return `${key.tenant}/${key.session}/${layerCName(key.file)}`;
}

/**
 * The key of a published copy's viewer page, beside it: `<copy key>.view.html`. No copy key ends
 * so (a copy keeps its original's format extension, and an ingest key never ends `.html`), so a
 * page never overwrites a copy nor a copy a page.
 */
export function viewerPageKey(copyKey: string): string {
  return `${copyKey}.view.html`;
}

/**
 * A Layer C copy's file name: `.layer-c` before the format extension; a compressed file's copy
 * (written uncompressed) is marked `.layer-c-gz` (the suffix as written), so that `x.jsonl` and
 * `x.jsonl.gz` of one session never share a copy and a withdrawal deletes only its own. One name
 * per file: a plain file's copy ends `.layer-c` or `.layer-c.<ext>`, a compressed one's never does.
 */
export function layerCName(file: string): string {
  const gz = /\.(gz)$/i.exec(file);
  const plain = gz === null ? file : file.slice(0, gz.index);
  const marker = gz === null ? ".layer-c" : `.layer-c-${gz[1]}`;
  const dot = plain.lastIndexOf(".");
  return dot > 0 ? `${plain.slice(0, dot)}${marker}${plain.slice(dot)}` : `${plain}${marker}`;
}
/**
 * The key of the verdict's attestation (an in-toto Statement with the SLSA VSA predicate), beside
 * its verdict document: `results/<ingest key>.intoto.json`.
 */
export function attestationKey(verdictDocumentKey: string): string {
  return verdictDocumentKey.replace(/\.json$/, ".intoto.json");
}

/**
 * The pseudo-tenant of keys with no readable tenant (and the session of a tenant's rejected keys):
 * a leading `_` no configured tenant may have (infra/settings.ts), so it is operator-only.
 */
export const REJECTED = "_rejected";

/** Where a rejected key is filed: its record's parts and its verdict document's key. */
export interface RejectedPlace {
  key: ObjectKey;
  verdictKey: string;
}

/**
 * Where the rejected `key` (`scrubbed`: as the scrubber passes it) is filed, under `digest` (its
 * sha256, hex). A key whose first segment is a tenant name the scrubber leaves alone stays in
 * that tenant's area, readable by the tenant's role: session `_rejected`, verdict
 * `results/<tenant>/_rejected/<digest>.json`. Any other key goes to the operator-only area:
 * tenant `_rejected`, verdict `results/_rejected/<digest>.json`.
 */
export function rejectedPlace(key: string, scrubbed: string, digest: string): RejectedPlace {
  const tenant = key.slice(0, Math.max(0, key.indexOf("/")));
  if (NAME.test(tenant) && tenant !== "." && tenant !== ".." && scrubbed.startsWith(`${tenant}/`))
    return {
      key: { tenant, session: REJECTED, file: digest },
      verdictKey: `results/${tenant}/${REJECTED}/${digest}.json`,
    };
  return {
    key: { tenant: REJECTED, session: digest.slice(0, 16), file: digest },
    verdictKey: `results/${REJECTED}/${digest}.json`,
  };
}

/** The verdict document's key in the reports store: `results/<ingest key>.json`. */
export function verdictKey(ingestKey: string): string {
  return `results/${ingestKey}.json`;
}

/**
 * Name endings the deployed ingest bucket notifies on (S3 filters compare case-sensitively and allow
 * one suffix per rule, no two overlapping): the formats' files (`.jsonl`, ReplayBundle `.json`,
 * ReplayKit `.rpk` and `.bundle`), receipts (`RECEIPT.json`, see `isReceiptName`) and any of them
 * gzip'd (`.gz`). A key ending otherwise is never processed in AWS.
 */
export const INGEST_SUFFIXES = [".jsonl", ".json", ".rpk", ".bundle", ".gz"] as const;

/**
 * Would the ingest bucket's notification fire for `key`? Its filters are these suffixes, compared
 * as S3 compares them: case-sensitively (`REPLAY.JSONL` notifies nothing). The local stack asks
 * this so that it processes what the deployed one would.
 */
export function isIngestKey(key: string): boolean {
  return INGEST_SUFFIXES.some((suffix) => key.endsWith(suffix));
}
