import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteSink, canonicalizeBytes, type TopLevelMembers } from "#shared/canonical/byte-canonical.js";
import { readJson } from "#shared/canonical/json-reader.js";
import { canonicalize } from "#shared/canonical/profiles.js";
import { ReplayPipelineError } from "#shared/errors.js";

/**
 * Edge cases of the fast path's shortcuts: the four-bytes-at-a-time string scan (a stop byte at
 * every offset, bytes that differ from a stop byte only in the high bit), members reordered in
 * place or after partly written output, the top-level key name cache, and the sink left as it was
 * when the fast path gives up after growing it.
 */

const PROFILES = ["jcs", "openagents"] as const;

/** The lossless path's canonical text, or undefined where it rejects the input. */
function slowPath(bytes: Buffer, profile: (typeof PROFILES)[number]): string | undefined {
  try {
    return canonicalize(readJson(bytes.toString("utf8")), profile);
  } catch (error) {
    if (error instanceof ReplayPipelineError) return undefined;
    throw error;
  }
}

function expectAgreement(bytes: Buffer): void {
  for (const profile of PROFILES) {
    const sink = new ByteSink(4);
    const fast = canonicalizeBytes(bytes, profile, sink);
    const slow = slowPath(bytes, profile);
    expect(fast, bytes.toString("utf8")).toBe(slow !== undefined);
    if (fast) expect(sink.view().toString("utf8")).toBe(slow);
    else expect(sink.len).toBe(0);
  }
}

describe("canonicalizeBytes shortcuts", () => {
  it("finds a quote, backslash or control byte at every offset of a string", () => {
    // 0xa2, 0xdc and 0xa0 are a quote, a backslash and a space with the high bit set (inside
    // UTF-8 sequences), which a word-wide test must not mistake for them.
    const fillers = ["a", " ", "é", "¢", "Ü", "\u00a0", "😀"];
    const stops = ['"', "\\n", "\\/", "\\u0041", "\\u001f", "\u0001", "\u001f", "\t"];
    for (const filler of fillers) {
      for (let before = 0; before <= 9; before++) {
        for (const stop of stops) {
          for (let after = 0; after <= 5; after++) {
            const inner = filler.repeat(before) + stop + filler.repeat(after);
            expectAgreement(Buffer.from(`{"k${inner}":"${inner}","a":["${inner}"]}`, "utf8"));
            // Unterminated at the end of the input, at every length.
            expectAgreement(Buffer.from(`["${inner}`, "utf8"));
          }
        }
      }
    }
  });

  it("reorders members whether the object is still pending or partly written", () => {
    const values = ["1", "1E2", "[1.50]", '"x\\/y"', '{ "z" : 1 , "y" : 2 }', '"long string value here"'];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom(...values), { minLength: 6, maxLength: 6 }),
        fc.constantFrom("", " ", "\n"),
        (keys, vals, ws) => {
          const members = keys.map((key, k) => `${ws}"${key}"${ws}:${ws}${vals[k]}`);
          expectAgreement(
            Buffer.from(`[${ws}{${members.join(",")}}${ws},{"b":{${members.join(",")}},"a":0}]`),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("names top-level keys right across lines, cached or not", () => {
    const sink = new ByteSink(8);
    const members: TopLevelMembers = { keys: [], starts: [], ends: [] };
    // Same lengths and first four bytes; non-ASCII names whose bytes read as Latin-1 spell others.
    const lines = ['{"abcdX":1,"Ã©":2}', '{"abcdY":1,"é":2,"Ã":3}', '{"abcdX":1,"\\u00e9":2}', '{"abcdY":1}'];
    for (const line of lines) {
      sink.len = 0;
      expect(canonicalizeBytes(Buffer.from(line), "openagents", sink, { members })).toBe(true);
      const keys = Object.keys(JSON.parse(line)).sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );
      expect(members.keys).toEqual(keys);
    }
    // "Ã©xy" as Latin-1 code units equals the UTF-8 bytes of "éxy": whichever cache slots the
    // suffixes land in, neither name may stand for the other.
    const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (const x of chars) {
      for (const y of chars) {
        for (const name of [`Ã©${x}${y}`, `é${x}${y}`]) {
          sink.len = 0;
          const line = Buffer.from(JSON.stringify({ [name]: 1 }));
          expect(canonicalizeBytes(line, "openagents", sink, { members })).toBe(true);
          expect(members.keys).toEqual([name]);
        }
      }
    }
  });

  it("leaves the sink's length as it was when giving up after the sink grew", () => {
    // Each 1E5 grows to 100000.0, past the room reserved up front.
    const text = `{"b":[${Array(40).fill("1E5").join(",")}],"a":{"d":1,"c":2}} x`;
    for (const profile of PROFILES) {
      const sink = new ByteSink(0);
      expect(canonicalizeBytes(Buffer.from(text), profile, sink)).toBe(false);
      expect(sink.len).toBe(0);
    }
  });

  it("orders an object of more members than the insertion sort takes as the lossless path does, and finds its duplicate", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 33, maxLength: 120 }),
        fc.boolean(),
        fc.nat(),
        (keys, duplicate, at) => {
          const members = keys.map(
            (k, i) => `${JSON.stringify(k)}:${i % 3 === 0 ? `{"b":1,"a":[${i}]}` : i}`,
          );
          if (duplicate) members.push(`${JSON.stringify(keys[at % keys.length])}:0`);
          expectAgreement(
            Buffer.from(`{"outer":{${members.join(",")}},"top":[{${members.join(",")}}]}`, "utf8"),
          );
          expectAgreement(Buffer.from(`{${members.join(",")}}`, "utf8"));
        },
      ),
      { numRuns: 60, seed: 20_261_127 },
    );
  });
});
