import { hash } from "node:crypto";
import type { JsonValue } from "./json-value.js";
import { type CanonicalOptions, canonicalize, type Profile } from "./profiles.js";

/** A hash as every producer writes it: `sha256:` and 64 lowercase hex digits. */
export type Sha256Tag = `sha256:${string}`;

/** Matches a well-formed `sha256:<64 lowercase hex>` string. */
export const SHA256_TAG = /^sha256:[0-9a-f]{64}$/;

/** 0 at the code units of a lowercase hex digit, 1 at every other one below 256. */
const NOT_LOWER_HEX: Readonly<Uint8Array> = (() => {
  const table = new Uint8Array(256).fill(1);
  for (const c of "0123456789abcdef") table[c.charCodeAt(0)] = 0;
  return table;
})();

/**
 * `SHA256_TAG.test(text)` by hand, without a branch per digit: digits and letters come in random
 * order, and a test that branches on each mispredicts about every other one (a quarter of a
 * microsecond per hash, the regular expression as much). Every ToolCall and ToolResult holds one.
 */
export function isSha256Tag(text: string): boolean {
  if (text.length !== 71 || !text.startsWith("sha256:")) return false;
  let bad = 0;
  for (let k = 7; k < 71; k++) {
    const c = text.charCodeAt(k);
    bad |= (NOT_LOWER_HEX[c & 0xff] as number) | (c >>> 8);
  }
  return bad === 0;
}

/** `sha256:<hex>` of raw bytes, or of a string's UTF-8 bytes. */
export function sha256Tag(data: string | Uint8Array): Sha256Tag {
  return `sha256:${hash("sha256", data, "hex")}`;
}

/** `sha256:<hex>` of the value's canonical form in `profile`. */
export function canonicalHash(value: JsonValue, profile: Profile, options?: CanonicalOptions): Sha256Tag {
  return sha256Tag(canonicalize(value, profile, options));
}
