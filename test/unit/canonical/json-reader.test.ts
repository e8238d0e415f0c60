import { describe, expect, it } from "vitest";
import { JsonNumber, readJson } from "#shared/canonical/index.js";
import { JsonInputError } from "#shared/errors.js";

function errorOf(text: string, options?: Parameters<typeof readJson>[1]): JsonInputError {
  try {
    readJson(text, options);
  } catch (error) {
    if (error instanceof JsonInputError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe("readJson", () => {
  it("keeps each number's source text", () => {
    const value = readJson('{"a":1.0,"b":1,"c":12345678901234567890123,"d":-0,"e":1E+2}') as Record<
      string,
      JsonNumber
    >;
    expect(Object.values(value).map((n) => n.text)).toEqual([
      "1.0",
      "1",
      "12345678901234567890123",
      "-0",
      "1E+2",
    ]);
    expect(value.a).toBeInstanceOf(JsonNumber);
    expect(value.a?.isIntegerText).toBe(false);
    expect(value.b?.isIntegerText).toBe(true);
  });

  it("reads every kind of value and all JSON whitespace", () => {
    expect(readJson(' \t\r\n[true, false, null, "x", {}, []] \n')).toEqual([true, false, null, "x", {}, []]);
  });

  it("decodes every escape", () => {
    expect(readJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\ud83d\\ude00"')).toBe('"\\/\b\f\n\r\tAé😀');
  });

  it("keeps __proto__ as an ordinary member", () => {
    const value = readJson('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects duplicate keys naming both positions", () => {
    const error = errorOf('{"a":1,\n  "b":{"a":2},\n  "a":3}');
    expect(error.code).toBe("json.duplicate_key");
    expect(error.location).toMatchObject({ line: 3, column: 3 });
    expect(error.message).toContain('"a"');
    expect(error.message).toContain("first at column 2, 2 lines above");
  });

  it("treats escaped and raw spellings of one name as duplicates", () => {
    expect(errorOf('{"a":1,"\\u0061":2}').code).toBe("json.duplicate_key");
  });

  it.each([
    ["NaN", '{"x": NaN}'],
    ["Infinity", "[Infinity]"],
    ["-Infinity", "[-Infinity]"],
  ])("rejects %s with its own code", (_name, text) => {
    expect(errorOf(text).code).toBe("json.non_finite");
  });

  it("rejects lone surrogates unless told to keep them", () => {
    const error = errorOf('["ok", "\\ud800x"]');
    expect(error.code).toBe("json.lone_surrogate");
    expect(error.location.column).toBe(9);
    expect(errorOf('"\\udc00"').code).toBe("json.lone_surrogate");
    expect(readJson('"\\ud800"', { rejectLoneSurrogates: false })).toBe("\ud800");
  });

  it("rejects raw lone surrogates in a string given as text", () => {
    expect(errorOf('"a\ud800"').code).toBe("json.lone_surrogate");
  });

  it("bounds nesting at 512 by default and at any configured depth", () => {
    expect(() => readJson(`${"[".repeat(512)}${"]".repeat(512)}`)).not.toThrow();
    const error = errorOf(`${"[".repeat(513)}${"]".repeat(513)}`);
    expect(error.code).toBe("json.too_deep");
    expect(error.location.column).toBe(513);
    expect(errorOf('{"a":{"b":[1]}}', { maxDepth: 2 }).code).toBe("json.too_deep");
  });

  it("never recurses: a million open brackets fail cleanly", () => {
    expect(errorOf("[".repeat(1_000_000), { maxDepth: 2_000_000 }).code).toBe("json.syntax");
    expect(errorOf('{"a":'.repeat(200_000), { maxDepth: 1_000_000 }).code).toBe("json.syntax");
  });

  it.each([
    ["empty input", "", "json.syntax", 1, 1],
    ["only whitespace", "  \n ", "json.syntax", 2, 2],
    ["trailing comma in array", "[1,]", "json.syntax", 1, 4],
    ["trailing comma in object", '{"a":1,}', "json.syntax", 1, 8],
    ["missing colon", '{"a" 1}', "json.syntax", 1, 6],
    ["single quotes", "{'a':1}", "json.syntax", 1, 2],
    ["unquoted key", "{a:1}", "json.syntax", 1, 2],
    ["leading zero", "[01]", "json.syntax", 1, 2],
    ["bare dot", "[1.]", "json.syntax", 1, 4],
    ["bare exponent", "[1e]", "json.syntax", 1, 4],
    ["plus sign", "[+1]", "json.syntax", 1, 2],
    ["two values", "{} {}", "json.syntax", 1, 4],
    ["unterminated string", '["abc', "json.syntax", 1, 2],
    ["unterminated array", "[1, 2", "json.syntax", 1, 6],
    ["raw newline in string", '"a\nb"', "json.control_character", 1, 3],
    ["raw tab in string", '"a\tb"', "json.control_character", 1, 3],
    ["bad escape", '"\\x41"', "json.bad_escape", 1, 2],
    ["short unicode escape", '"\\u12"', "json.bad_escape", 1, 2],
    ["byte order mark", "\ufeff{}", "json.bom", 1, 1],
    ["comment", "[1] // no", "json.syntax", 1, 5],
    ["truncated literal", "[tru]", "json.syntax", 1, 2],
  ])("rejects %s", (_name, text, code, line, column) => {
    const error = errorOf(text);
    expect(error.code).toBe(code);
    expect(error.location).toMatchObject({ line, column });
  });

  it("counts columns in code points, after astral characters", () => {
    const error = errorOf('["😀😀", x]');
    expect(error.location).toMatchObject({ line: 1, column: 8 });
  });

  it("says what it expected and what it found", () => {
    expect(errorOf('{"a":1 "b":2}').message).toBe(
      "line 1, column 8: expected ',' or '}' after an object member, found '\"'",
    );
  });
});
