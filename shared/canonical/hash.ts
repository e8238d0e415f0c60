import { hash } from "node:crypto";
import type { JsonValue } from "./json-value.js";
import { type CanonicalOptions, canonicalize, type Profile } from "./profiles.js";

/** A hash as every producer writes it: `sha256:` and 64 lowercase hex digits. */
export type Sha256Tag = `sha256:${string}`;

/** Matches a well-formed `sha256:<64 lowercase hex>` string. */
export const SHA256_TAG = /^sha256:[0-9a-f]{64}$/;

/** `sha256:<hex>` of raw bytes, or of a string's UTF-8 bytes. */
export function sha256Tag(data: string | Uint8Array): Sha256Tag {
  return `sha256:${hash("sha256", data, "hex")}`;
}

/** `sha256:<hex>` of the value's canonical form in `profile`. */
export function canonicalHash(value: JsonValue, profile: Profile, options?: CanonicalOptions): Sha256Tag {
  return sha256Tag(canonicalize(value, profile, options));
}
