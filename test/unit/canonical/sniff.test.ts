import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { canonicalDocument, canonicalJsonLines } from "#shared/canonical/index.js";
import { sniffText } from "#shared/canonical/sniff.js";
import { NotTextError } from "#shared/errors.js";
import { inspect } from "#shared/formats/index.js";

const utf16le = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
const LINE = '{"type":"ReplayHeader","replay_version":1}\n';
const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);

describe("sniffText", () => {
  it.each([
    [utf16le(LINE), "input.encoding", "UTF-16 (little-endian) text with a byte order mark"],
    [Buffer.from(LINE, "utf16le"), "input.encoding", "UTF-16 (little-endian) text"],
    [Buffer.from(LINE, "utf16le").swap16(), "input.encoding", "UTF-16 (big-endian) text"],
    [
      Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from("{}")]),
      "input.encoding",
      "UTF-32 (little-endian) text with a byte order mark",
    ],
    [
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LINE)]),
      "json.bom",
      "UTF-8 text with a byte order mark (EF BB BF)",
    ],
    [PNG, "input.binary", "a PNG image"],
    [Buffer.from("PK\x03\x04rest"), "input.binary", "a ZIP archive (or a file format built on ZIP)"],
    [Buffer.from('{"a":"\0"}'), "input.binary", "binary data (it holds NUL bytes)"],
  ])("names %#", (bytes, code, what) => {
    expect(sniffText(bytes)).toEqual({ code, what });
  });

  it("leaves UTF-8 text, even with a stray bad byte, to the JSON reader", () => {
    expect(sniffText(Buffer.from(LINE))).toBeNull();
    expect(sniffText(Buffer.from('{"name":"café ✓"}\n'))).toBeNull();
    expect(
      sniffText(Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3]), Buffer.from('x"}\n')])),
    ).toBeNull();
  });
});

describe("readers report a file that is not text once", () => {
  it.each([
    ["UTF-16", utf16le(LINE.repeat(20)), "input.encoding"],
    ["PNG", Buffer.concat([PNG, Buffer.alloc(200, 0x41)]), "input.binary"],
    ["BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LINE.repeat(5))]), "json.bom"],
  ])(
    "inspect: %s is one error at line 1, column 1, and the hash still covers every byte",
    async (_, bytes, code) => {
      const { report } = await inspect(Readable.from([bytes]), { file: "x.jsonl" });
      expect(report.verdict).toBe("invalid");
      expect(report.errors_total).toBe(1);
      expect(report.errors[0]).toMatchObject({ code, line: 1, column: 1 });
      expect(report.bytes).toBe(bytes.length);
    },
  );

  it("inspect sees through gzip before sniffing", async () => {
    const { report } = await inspect(Readable.from([gzipSync(utf16le(LINE))]), { file: "x.jsonl.gz" });
    expect(report.errors.map((e) => e.code)).toEqual(["input.encoding"]);
  });

  it("canonicalDocument and canonicalJsonLines throw a NotTextError naming the file", async () => {
    expect(() => canonicalDocument(utf16le("{}"), "jcs", { file: "a.json" })).toThrow(NotTextError);
    expect(() => canonicalDocument(utf16le("{}"), "jcs", { file: "a.json" })).toThrow(
      /a\.json: line 1, column 1: the file is UTF-16/,
    );
    const lines = async () => {
      for await (const _ of canonicalJsonLines(Readable.from([PNG]), "jcs", { file: "b.jsonl" })) {
        // drained
      }
    };
    await expect(lines()).rejects.toThrow(/b\.jsonl: line 1, column 1: the file is a PNG image/);
  });
});
