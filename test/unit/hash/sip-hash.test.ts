/**
 * SipHash-2-4-128 against the reference implementation's vectors (vectors_sip128 in
 * github.com/veorq/SipHash: key 00..0f, message 00..(n-1)), and the code-unit form against the
 * byte form of the same UTF-16LE bytes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SipHash128 } from "#shared/hash/sip-hash.js";

/** The key 00 01 .. 0f, as the little-endian words `SipHash128` takes. */
const KEY = new Uint32Array(Uint8Array.from({ length: 16 }, (_, i) => i).buffer);

/** vectors_sip128[n], the hash of the n bytes 00..(n-1). */
const VECTORS: Record<number, string> = {
  0: "a3817f04ba25a8e66df67214c7550293",
  1: "da87c1d86b99af44347659119b22fc45",
  2: "8177228da4a45dc7fca38bdef60affe4",
  3: "9c70b60c5267a94e5f33b6b02985ed51",
  4: "f88164c12d9c8faf7d0f6e7c7bcd5579",
  5: "1368875980776f8854527a07690e9627",
  6: "14eeca338b208613485ea0308fd7a15e",
  7: "a1f1ebbed8dbc153c0b84aa61ff08239",
  8: "3b62a9ba6258f5610f83e264f31497b4",
  9: "264499060ad9baabc47f8b02bb6d71ed",
  10: "00110dc378146956c95447d3f3d0fbba",
  11: "0151c568386b6677a2b4dc6f81e5dc18",
  12: "d626b266905ef35882634df68532c125",
  13: "9869e247e9c08b10d029934fc4b952f7",
  14: "31fcefac66d7de9c7ec7485fe4494902",
  15: "5493e99933b0a8117e08ec0f97cfc3d9",
  16: "6ee2a4ca67b054bbfd3315bf85230577",
  17: "473d06e8738db89854c066c47ae47740",
  63: "5150d1772f50834a503e069a973fbd7c",
};

const hex = (out: Uint32Array): string =>
  Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString("hex");

describe("SipHash128", () => {
  for (const [n, expected] of Object.entries(VECTORS)) {
    it(`gives the reference hash of ${n} bytes`, () => {
      const out = new Uint32Array(4);
      new SipHash128(KEY).ofBytes(
        Uint8Array.from({ length: Number(n) }, (_, i) => i),
        out,
      );
      expect(hex(out)).toBe(expected);
    });
  }

  it("of a string's code units equals the hash of its UTF-16LE bytes, lone surrogates too", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.uint32Array({ minLength: 4, maxLength: 4 }),
        (text, words) => {
          const key = Uint32Array.from(words);
          const a = new Uint32Array(4);
          const b = new Uint32Array(4);
          const sip = new SipHash128(key);
          sip.ofUnits(text, a);
          sip.ofBytes(Buffer.from(text, "utf16le"), b);
          expect(hex(a)).toBe(hex(b));
        },
      ),
      { numRuns: 500 },
    );
  });
});
