/** `isSha256Tag`, the hand-written `SHA256_TAG.test`, against the regular expression itself. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSha256Tag, SHA256_TAG } from "#shared/canonical/index.js";

const HEX = "0123456789abcdef";
/** Hashes and near-hashes: a prefix (right or nearly), then hex-like text of about 64 characters. */
const nearHash = fc
  .tuple(
    fc.constantFrom("sha256:", "SHA256:", "sha256", "sha512:", "", "hmac-sha256:"),
    fc.array(fc.constantFrom(...HEX, "A", "F", "g", " ", "é", "\u0000"), { minLength: 62, maxLength: 66 }),
  )
  .map(([prefix, chars]) => prefix + chars.join(""));

describe("isSha256Tag", () => {
  it("answers as SHA256_TAG does", () => {
    fc.assert(
      fc.property(fc.oneof(nearHash, fc.string()), (text) => {
        expect(isSha256Tag(text)).toBe(SHA256_TAG.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes a tag and refuses its near misses", () => {
    const tag = `sha256:${"0a".repeat(32)}`;
    expect(isSha256Tag(tag)).toBe(true);
    for (const miss of [
      `${tag}0`,
      tag.slice(0, -1),
      tag.toUpperCase(),
      `${tag.slice(0, -1)}g`,
      ` ${tag.slice(1)}`,
    ])
      expect(isSha256Tag(miss)).toBe(false);
  });
});
