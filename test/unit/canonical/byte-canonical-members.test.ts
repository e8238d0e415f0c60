import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalizeBytes, type TopLevelMembers } from "#shared/canonical/byte-canonical.js";
import { ByteCanonicalizer, ByteSink, canonicalize, readJson } from "#shared/canonical/index.js";

describe("canonicalizeBytes with top-level member spans", () => {
  it("records each member's canonical value, keys in code-point order", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "grapheme" }), fc.jsonValue(), { minKeys: 1 }),
        (object) => {
          const text = JSON.stringify(object);
          const sink = new ByteSink(8);
          const members: TopLevelMembers = { keys: [], starts: [], ends: [] };
          expect(canonicalizeBytes(Buffer.from(text), "openagents", sink, { members })).toBe(true);
          const value = readJson(text) as Record<string, ReturnType<typeof readJson>>;
          const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          expect(members.keys).toEqual(keys);
          members.keys.forEach((key, k) => {
            const bytes = sink.buf.subarray(members.starts[k], members.ends[k]).toString("utf8");
            expect(bytes).toBe(canonicalize(value[key] ?? null, "openagents"));
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("leaves members empty for a non-object document and reports duplicates by failing", () => {
    const members: TopLevelMembers = { keys: ["stale"], starts: [1], ends: [2] };
    expect(canonicalizeBytes(Buffer.from("[1,2]"), "openagents", new ByteSink(4), { members })).toBe(true);
    expect(members.keys).toEqual([]);
    expect(canonicalizeBytes(Buffer.from('{"a":1,"a":2}'), "openagents", new ByteSink(4), { members })).toBe(
      false,
    );
  });
});

describe("canonicalizeValueAt", () => {
  const ws = fc.constantFrom("", " ", "\t", "\n ", "\r\n");
  const suffix = fc.constantFrom("", ',"next":1}', "]", ", 2]", "}}");

  it("canonicalizes the value at an offset and returns where it (and its whitespace) ends", () => {
    fc.assert(
      fc.property(fc.string(), ws, fc.jsonValue(), ws, suffix, (head, before, value, after, rest) => {
        const text = JSON.stringify(value, null, before.length > 1 ? 1 : undefined);
        const prefix = Buffer.from(`${head}:`);
        const src = Buffer.concat([prefix, Buffer.from(`${before}${text}${after}${rest}`)]);
        const sink = new ByteSink(4);
        sink.len = 2;
        const end = new ByteCanonicalizer().valueAt(src, prefix.length, "openagents", sink);
        expect(end).toBe(prefix.length + Buffer.byteLength(`${before}${text}${after}`));
        expect(sink.buf.subarray(2, sink.len).toString("utf8")).toBe(
          canonicalize(readJson(text), "openagents"),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("returns -1 and leaves the sink as it was for what the lossless reader must judge", () => {
    for (const bad of ['{"a":1,"a":2}', '{"a":1', '["\\ud800"]', "[1e999]", '{"a":"\xff"}', "[01]"]) {
      const sink = new ByteSink(4);
      sink.len = 1;
      const src = Buffer.concat([Buffer.from("x"), Buffer.from(bad, "latin1"), Buffer.from(",1")]);
      expect(new ByteCanonicalizer().valueAt(src, 1, "openagents", sink), bad).toBe(-1);
      expect(sink.len).toBe(1);
    }
  });

  it("gives up past the depth limit", () => {
    const deep = Buffer.from(`${"[".repeat(5)}${"]".repeat(5)},`);
    expect(new ByteCanonicalizer().valueAt(deep, 0, "openagents", new ByteSink(4), { maxDepth: 4 })).toBe(-1);
    expect(new ByteCanonicalizer().valueAt(deep, 0, "openagents", new ByteSink(4), { maxDepth: 5 })).toBe(10);
  });
});

describe("checkValueAt", () => {
  /** Valid JSON texts, then byte-level mutations of them (most no longer read). */
  const texts = fc.oneof(
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v, null, 1))),
    fc
      .tuple(fc.jsonValue(), fc.nat(), fc.constantFrom(0x22, 0x5c, 0x2c, 0x7d, 0x5d, 0x0a, 0x00, 0xff, 0x31))
      .map(([v, at, byte]) => {
        const b = Buffer.from(JSON.stringify(v));
        b[at % b.length] = byte;
        return b;
      }),
    fc
      .constantFrom('{"a":1,"a":2}', '{"b":{"x":1,"y":[1,{"x":2,"x":3}]}}', "[1e999]", "[1.50]", '["\\/"]')
      .map((t) => Buffer.from(t)),
    // Names whose escapes must be rewritten (\u with upper-case hex, \/), so that equal names can
    // be spelled differently.
    fc
      .tuple(
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      )
      .map(([object, flips]) => {
        let k = 0;
        const spell = (c: string): string => {
          if (flips[k++ % 8] !== true || c.length !== 1) return c;
          return c === "/" ? "\\/" : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
        };
        const members = Object.entries(object).map(
          ([name, value]) =>
            `"${[...name].map((c) => (c === '"' || c === "\\" || c < " " ? JSON.stringify(c).slice(1, -1) : spell(c))).join("")}":${JSON.stringify(value)}`,
        );
        return Buffer.from(`{${members.join(",")}}`);
      }),
    fc
      .constantFrom('{"\\u0041":1,"A":2}', '{"\\/":1,"/":2}', '{"\\u00E9":1,"b\\/c":[1,{"\\u0042":2,"a":3}]}')
      .map((t) => Buffer.from(t)),
  );

  it("accepts and rejects exactly what canonicalizeValueAt does, ends at the same offset, writes nothing", () => {
    fc.assert(
      fc.property(texts, fc.constantFrom("", ",1]", "}"), (value, rest) => {
        const src = Buffer.concat([Buffer.from("["), value, Buffer.from(rest)]);
        const canonical = new ByteCanonicalizer().valueAt(src, 1, "openagents", new ByteSink(4));
        const scratch = new ByteSink(4);
        scratch.len = 3;
        scratch.buf.write("abc");
        expect(new ByteCanonicalizer().checkValueAt(src, 1, "openagents", scratch)).toBe(canonical);
        expect(scratch.len).toBe(3);
        expect(scratch.buf.toString("utf8", 0, 3)).toBe("abc");
      }),
      { numRuns: 2000 },
    );
  });

  it("gives up past the depth limit as canonicalizeValueAt does", () => {
    const deep = Buffer.from(`${"[".repeat(5)}${"]".repeat(5)},`);
    expect(
      new ByteCanonicalizer().checkValueAt(deep, 0, "openagents", new ByteSink(4), { maxDepth: 4 }),
    ).toBe(-1);
    expect(
      new ByteCanonicalizer().checkValueAt(deep, 0, "openagents", new ByteSink(4), { maxDepth: 5 }),
    ).toBe(10);
  });
});
