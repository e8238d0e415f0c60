import { describe, expect, it } from "vitest";
import {
  type ByteLine,
  canonicalJsonLines,
  decodeUtf8,
  readByteLineGroups,
} from "#shared/canonical/index.js";
import { JsonInputError } from "#shared/errors.js";

async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === "string" ? Buffer.from(p) : p;
}

async function collect(
  source: AsyncIterable<Uint8Array>,
  profile: "jcs" | "openagents" | "replaykit" = "jcs",
): Promise<string> {
  const parts: Buffer[] = [];
  for await (const b of canonicalJsonLines(source, profile, { file: "f.jsonl" })) parts.push(Buffer.from(b));
  return Buffer.concat(parts).toString("utf8");
}

async function rejection(promise: Promise<unknown>): Promise<JsonInputError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JsonInputError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

/** Every line of `source`, as `readByteLineGroups` groups them, one after the other. */
async function* readByteLines(
  source: AsyncIterable<Uint8Array>,
  options?: Parameters<typeof readByteLineGroups>[1],
): AsyncGenerator<ByteLine> {
  for await (const group of readByteLineGroups(source, options)) yield* group;
}

describe("readByteLineGroups, line by line", () => {
  it("splits across chunk boundaries, keeps a last line without newline, and numbers lines", async () => {
    const lines: [number, string, boolean][] = [];
    for await (const l of readByteLines(chunks('{"a"', ':1}\n{"b":2}\n\n{"c"', ":3}")))
      lines.push([l.line, l.bytes.toString(), l.terminated]);
    expect(lines).toEqual([
      [1, '{"a":1}', true],
      [2, '{"b":2}', true],
      [3, "", true],
      [4, '{"c":3}', false],
    ]);
  });

  it("splits a multi-byte character across chunks without damage", async () => {
    const bytes = Buffer.from('"é😀"\n');
    const texts: string[] = [];
    for await (const l of readByteLines(
      chunks(bytes.subarray(0, 2), bytes.subarray(2, 5), bytes.subarray(5)),
    ))
      texts.push(decodeUtf8(l.bytes));
    expect(texts).toEqual(['"é😀"']);
  });

  it("stops a line over the limit as soon as it passes it", async () => {
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) yield Buffer.alloc(1024, 0x61);
    }
    const error = await rejection(
      (async () => {
        for await (const _ of readByteLines(endless(), { maxLineBytes: 10_000 })) {
          // never reached
        }
      })(),
    );
    expect(error.code).toBe("jsonl.line_too_long");
    expect(error.location.line).toBe(1);
  });
});

describe("readByteLineGroups", () => {
  it("gives the lines that end in each chunk as one group, a line across chunks in the later one", async () => {
    const groups: string[][] = [];
    for await (const group of readByteLineGroups(chunks('{"a":1}\n{"b"', ':2}\n{"c":3}\n\n', '{"d":4}')))
      groups.push(group.map((l) => `${l.line}:${l.bytes.toString()}`));
    expect(groups).toEqual([['1:{"a":1}'], ['2:{"b":2}', '3:{"c":3}', "4:"], ['5:{"d":4}']]);
  });

  it("gives the lines before a line over the limit, then its error", async () => {
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const group of readByteLineGroups(chunks(`{}\n{}\n${"x".repeat(50)}\n{}\n`), {
          maxLineBytes: 20,
        }))
          for (const l of group) seen.push(l.line);
      })(),
    );
    expect(seen).toEqual([1, 2]);
    expect(error.code).toBe("jsonl.line_too_long");
    expect(error.location.line).toBe(3);
  });
});

describe("canonicalJsonLines", () => {
  it("canonicalizes each line, skips blank ones, accepts CRLF, and ends every line with \\n", async () => {
    expect(await collect(chunks('{"b":1, "a":2}\r\n\r\n  \n[1.0]\n{"z":"\\u00e9"}'))).toBe(
      '{"a":2,"b":1}\n[1]\n{"z":"é"}\n',
    );
  });

  it("uses the profile's number rules on both paths", async () => {
    expect(await collect(chunks("[1.0,-0]\n"), "openagents")).toBe("[1.0,-0.0]\n");
    expect(await collect(chunks("[1.0,-0]\n"), "replaykit")).toBe("[1.0,0]\n");
  });

  it("names the file, line and column of an error on a later line", async () => {
    const error = await rejection(collect(chunks('{"a":1}\n{"a":1,"a":2}\n')));
    expect(error.code).toBe("json.duplicate_key");
    expect(error.location).toMatchObject({ file: "f.jsonl", line: 2, column: 8 });
    expect(error.message).toBe(
      'f.jsonl: line 2, column 8: duplicate member name "a"; first at column 2 of this line; expected each name once per object',
    );
  });

  it("locates invalid UTF-8 by line and column", async () => {
    const error = await rejection(
      collect(chunks('{"a":1}\n', Buffer.from([0x22, 0xc3, 0xa9, 0xff, 0x22, 0x0a]))),
    );
    expect(error.code).toBe("json.invalid_utf8");
    expect(error.location).toMatchObject({ file: "f.jsonl", line: 2, column: 3 });
  });

  it.each([
    ["a truncated last line", '{"a":1}\n{"a":', "json.syntax", 2],
    ["a byte order mark", '\ufeff{"a":1}\n', "json.bom", 1],
    ["NaN", '{"a":NaN}\n', "json.non_finite", 1],
    ["a lone surrogate", '["\\ud800"]\n', "json.lone_surrogate", 1],
  ])("rejects %s", async (_name, text, code, line) => {
    const error = await rejection(collect(chunks(text)));
    expect(error.code).toBe(code);
    expect(error.location.line).toBe(line);
  });
});
