import { describe, expect, it } from "vitest";
import { canonicalize, type JsonValue, type Profile, readJson } from "#shared/canonical/index.js";
import { CanonicalizationError } from "#shared/errors.js";

const canon = (text: string, profile: Profile, stripVolatile = false): string =>
  canonicalize(readJson(text, { rejectLoneSurrogates: profile !== "replaykit" }), profile, { stripVolatile });

function failure(text: string, profile: Profile): CanonicalizationError {
  try {
    canon(text, profile);
  } catch (error) {
    if (error instanceof CanonicalizationError) return error;
    throw error;
  }
  throw new Error("expected a CanonicalizationError");
}

describe("number text per profile", () => {
  it.each([
    ["1.0", "1", "1.0", "1.0"],
    ["1", "1", "1", "1"],
    ["-0", "0", "-0.0", "0"],
    ["-0.0", "0", "-0.0", "-0.0"],
    ["1e2", "100", "100.0", "100.0"],
    ["1E+16", "10000000000000000", "1e16", "1e+16"],
    ["0.00001", "0.00001", "0.00001", "1e-05"],
    ["1.5e-7", "1.5e-7", "1.5e-7", "1.5e-07"],
    ["1152921504606846976", "1152921504606847000", "1152921504606846976", "1152921504606846976"],
    ["-9223372036854775808", "-9223372036854776000", "-9223372036854775808", "-9223372036854775808"],
    ["-9223372036854775809", "-9223372036854776000", "-9.223372036854776e18", "-9223372036854775809"],
    ["18446744073709551615", "18446744073709552000", "18446744073709551615", "18446744073709551615"],
    ["18446744073709551616", "18446744073709552000", "1.8446744073709552e19", "18446744073709551616"],
    [
      "123456789012345678901234567890",
      "1.2345678901234568e+29",
      "1.2345678901234568e29",
      "123456789012345678901234567890",
    ],
    ["0.30000000000000004", "0.30000000000000004", "0.30000000000000004", "0.3"],
    ["1234567890125.0", "1234567890125", "1234567890125.0", "1234567890120.0"],
  ])("%s → jcs %s, openagents %s, replaykit %s", (text, jcs, openagents, replaykit) => {
    expect(canon(text, "jcs")).toBe(jcs);
    expect(canon(text, "openagents")).toBe(openagents);
    expect(canon(text, "replaykit")).toBe(replaykit);
  });

  it.each(["1e400", "-1e309"])("rejects %s, which overflows a double, in every profile", (text) => {
    for (const profile of ["jcs", "openagents", "replaykit"] as const) {
      const error = failure(`{"x":[${text}]}`, profile);
      expect(error.code).toBe("canonical.non_finite");
      expect(error.location.path).toBe("$.x[0]");
    }
  });
});

describe("member order", () => {
  // U+E000 (BMP, private use) against U+1F600 (astral: surrogates D83D DE00 in UTF-16).
  const text = '{"\\ue000":1,"\\ud83d\\ude00":2,"a":3,"B":4}';
  it("jcs sorts by UTF-16 code units: the astral key comes first", () => {
    expect(canon(text, "jcs")).toBe('{"B":4,"a":3,"😀":2,"\ue000":1}');
  });
  it("openagents sorts by code point (UTF-8 bytes): U+E000 comes first", () => {
    expect(canon(text, "openagents")).toBe('{"B":4,"a":3,"\ue000":1,"😀":2}');
  });
  it("replaykit sorts by code point too and escapes non-ASCII", () => {
    expect(canon(text, "replaykit")).toBe('{"B":4,"a":3,"\\ue000":1,"\\ud83d\\ude00":2}');
  });
  it("keeps array order", () => {
    expect(canon("[3,1,2]", "openagents")).toBe("[3,1,2]");
  });
});

describe("string escaping", () => {
  const text = '"\\u0041\\/é\\u2028\\u007f\\u0001\\n\\"\\\\😀"';
  it("jcs and openagents keep non-ASCII as UTF-8 and escape only what JSON.stringify does", () => {
    expect(canon(text, "jcs")).toBe('"A/é\u2028\u007f\\u0001\\n\\"\\\\😀"');
    expect(canon(text, "openagents")).toBe(canon(text, "jcs"));
  });
  it("replaykit escapes everything outside printable ASCII as \\uXXXX (lowercase hex)", () => {
    expect(canon(text, "replaykit")).toBe('"A/\\u00e9\\u2028\\u007f\\u0001\\n\\"\\\\\\ud83d\\ude00"');
  });
  it("replaykit keeps a lone surrogate as Python does; the others refuse it", () => {
    expect(canon('"\\udc00"', "replaykit")).toBe('"\\udc00"');
    expect(() => canonicalize("\udc00", "jcs")).toThrow(CanonicalizationError);
  });
});

describe("replaykit normalizations", () => {
  it("turns CRLF and CR into LF in every string", () => {
    expect(canon('{"note":"a\\r\\nb\\rc"}', "replaykit")).toBe('{"note":"a\\nb\\nc"}');
  });

  it.each([
    ["C:\\\\Users\\\\alice\\\\repo\\\\", "/c/Users/alice/repo/"],
    ["\\\\tmp\\\\..\\\\logs\\\\trace.txt", "/logs/trace.txt"],
    ["a//b/./c/../d", "a/b/d"],
    ["../x/../../y", "../../y"],
    ["/..", "/"],
    ["", "."],
    ["./", "./"],
    ["d:/x\\n", "/d/x"],
    ["d:/x\\ny", "d:/x\ny"],
  ])("path %s → %s", (input, output) => {
    expect(JSON.parse(canon(`{"file_path":"${input}"}`, "replaykit")).file_path).toBe(output);
  });

  it("applies path rules by key: exact names, *_path, *_dir, any case; not inside lists", () => {
    const out = JSON.parse(
      canon(
        '{"Path":"a\\\\b","cache_dir":"a\\\\b","log_path":"a\\\\b","dirs":"a\\\\b","paths":["a\\\\b"]}',
        "replaykit",
      ),
    );
    expect(out).toEqual({ Path: "a/b", cache_dir: "a/b", log_path: "a/b", dirs: "a\\b", paths: ["a\\b"] });
  });

  it.each([
    ["2026-02-22T20:10:00-05:00", "2026-02-23T01:10:00.000000Z"],
    ["2026-02-21T14:00:00Z", "2026-02-21T14:00:00.000000Z"],
    ["2026-02-22T01:02:03.123456789+09:00", "2026-02-21T16:02:03.123456Z"],
    ["2026-02-22T01:02:03,5+00:00", "2026-02-22T01:02:03.500000Z"],
    ["2026-02-22 10:00+05:30", "2026-02-22T04:30:00.000000Z"],
    ["20260222T101500Z", "2026-02-22T10:15:00.000000Z"],
    ["2026-02-22T10+02:00", "2026-02-22T08:00:00.000000Z"],
    ["2026-W08-3T10:00:00+01:00", "2026-02-18T09:00:00.000000Z"],
    ["  2026-02-22T10:00:00Z \\n", "2026-02-22T10:00:00.000000Z"],
    ["2026-02-22T10:00:00", "2026-02-22T10:00:00"],
    ["  naive 2026 ", "naive 2026"],
    ["2026-02-30T00:00:00Z", "2026-02-30T00:00:00Z"],
    ["2026-02-22T24:00:00Z", "2026-02-22T24:00:00Z"],
    ["2026-02-22t10:00:00z", "2026-02-22t10:00:00z"],
    ["", ""],
  ])("timestamp %s → %s", (input, output) => {
    expect(JSON.parse(canon(`{"created_at":"${input}"}`, "replaykit")).created_at).toBe(output);
  });

  it("refuses a timestamp that leaves years 1-9999 in UTC, as Python's OverflowError does", () => {
    const error = failure('{"e":{"timestamp":"9999-12-31T23:00:00-05:00"}}', "replaykit");
    expect(error.code).toBe("canonical.timestamp_range");
    expect(error.location.path).toBe("$.e.timestamp");
  });

  it("sorts tags, labels and capabilities lists by each item's canonical text", () => {
    // Canonical texts '"a"' '"z"' '10' '2' '{"b":1}' in byte order: the quote sorts first, 10 before 2.
    expect(canon('{"tags":["z","a",10,2,{"b":1}],"Labels":["b","a"],"list":["b","a"]}', "replaykit")).toBe(
      '{"Labels":["a","b"],"list":["b","a"],"tags":["a","z",10,2,{"b":1}]}',
    );
  });

  it("drops volatile keys at any depth, case-insensitively, only when asked", () => {
    const text = '{"input":{"request_id":"r","Duration_MS":3,"keep":{"PID":1,"x":1}},"latency_ms":5}';
    expect(canon(text, "replaykit", true)).toBe('{"input":{"keep":{"x":1}}}');
    expect(canon(text, "replaykit", false)).toContain('"latency_ms":5');
  });
});

describe("guards", () => {
  it("names the path of a value the profile cannot serialize", () => {
    const value: JsonValue = { a: [{ b: "\ud800" }] };
    expect(() => canonicalize(value, "openagents")).toThrow(/\$\.a\[0\]\.b/);
  });

  it("bounds serialization depth for values built in code", () => {
    let value: JsonValue = [];
    for (let i = 0; i < 600; i++) value = [value];
    expect(() => canonicalize(value, "jcs")).toThrow(CanonicalizationError);
    expect(canonicalize(value, "jcs", { maxDepth: 1000 })).toHaveLength(1202);
  });
});
