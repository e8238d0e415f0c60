import { spawnSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/json-reader.js";
import { canonicalize } from "#shared/canonical/profiles.js";
import { CanonicalizationError } from "#shared/errors.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

/**
 * The `replaykit` profile against an independent Python oracle (test/support/replaykit_oracle.py),
 * which applies ReplayKit's rules with Python's own json, float formatting, str.strip,
 * datetime.fromisoformat and posixpath.normpath. One python3 process checks every case; all
 * mismatches are reported together. A missing python3 is a failure, never a skip.
 */

const ORACLE = join(PROJECT_ROOT, "test", "support", "replaykit_oracle.py");
const GENERATED = 2000;

/** A number written exactly as given (so Python sees `1.0` as a float and `1` as an int). */
class Num {
  constructor(readonly text: string) {}
}
const F = (text: string): Num => new Num(text);

type Val = null | boolean | string | number | Num | Val[] | { [key: string]: Val };

/** JSON text of a test value; numbers keep the text they were given. */
function toJson(v: Val): string {
  if (v instanceof Num) return v.text;
  if (v === null || typeof v === "boolean") return String(v);
  if (typeof v === "number") {
    if (!Number.isInteger(v)) throw new Error(`write non-integer ${v} as F("…") so its text is explicit`);
    return String(v);
  }
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  return `{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${toJson(v[k] as Val)}`)
    .join(",")}}`;
}

/** An object with the given members, `__proto__` included as an own member. */
const obj = (entries: [string, Val][]): { [key: string]: Val } => Object.fromEntries(entries);

// ---------------------------------------------------------------------------------------------
// Hand-written nasty cases.

const PATH_KEYS = [
  "path",
  "Path",
  "FILE",
  "file",
  "filepath",
  "file_path",
  "cwd",
  "dir",
  "Directory",
  "working_directory",
  "src_path",
  "OUT_DIR",
  "x_dir",
];
const TIMESTAMP_KEYS = [
  "timestamp",
  "created_at",
  "Updated_At",
  "started_at",
  "ended_at",
  "captured_at",
  "CREATED_AT",
];

const PATHS = [
  "C:\\Users\\me\\repo\\src\\main.ts",
  "c:/Users/../x",
  "D:\\a\\..\\..\\..\\b",
  "C:\\a\\b\\",
  "C:\\",
  "C:/",
  "C:",
  "C:foo",
  "c:\\\\\\a",
  "z:\\.\\y\\.",
  "1:\\x",
  "CC:\\x",
  " C:\\x",
  "C:\\a\nb",
  "C:\\a\n",
  "C:\\a\r\n",
  "C:\\a\n\n",
  "C:\\a\rb",
  "\\\\server\\share\\x",
  "",
  ".",
  "..",
  "../..",
  "./",
  "../",
  "a/./b/../c",
  "/..",
  "/../a",
  "///",
  "/",
  "//",
  "a//b///c/",
  "~/x/",
  "é\\\u{1f600}\\..\\x",
  "a\\b/c\\",
  "/tmp/ends with space ",
  "\t",
  "\ud800\\x",
];

const TIMESTAMPS = [
  "2026-02-22T20:10:00Z",
  "2026-02-22T20:10:00+05:30",
  "2026-02-22T20:10:00-05:00",
  "2026-02-22T20:10:00+00:00",
  "2026-02-22T20:10:00-00:00",
  "2026-02-22T20:10:00+00:00:30",
  "2026-02-22T20:10:00+00:00:30.5",
  "2026-02-22T20:10:00-23:59:59.999999",
  "2026-02-22T20:10:00+23:59",
  "2026-02-22T20:10:00+24:00",
  "2026-02-22T20:10:00+0530",
  "2026-02-22T20:10:00+05",
  "2026-02-22T20:10:00+5:30",
  ...Array.from({ length: 9 }, (_, k) => `2026-02-22T20:10:00.${"123456789".slice(0, k + 1)}+01:00`),
  "2026-02-22T20:10:00.1234567890123Z",
  "2026-02-22T20:10:00,5Z",
  "2026-02-22T20:10:00,123456-03:00",
  "2026-02-22T20:10:00.Z",
  "20260222T201000Z",
  "20260222T201000.5+0100",
  "2026-W08-3T10:00+01:00",
  "2026W083T1000+0100",
  "2026-W08T10:00Z",
  "2026-W53-1T00:00Z",
  "2020-W53-7T00:00Z",
  "2026-W00-1T00:00Z",
  "2026-W08-8T00:00Z",
  "2026-02-22T10+02:00",
  "2026-02-22T1030+02:00",
  "2026-02-22T10:30",
  "2026-02-22T10:30:00",
  "2026-02-22",
  "2026-02-22Z",
  "2026-02",
  "2026-02-30T00:00Z",
  "2023-02-29T12:00Z",
  "2024-02-29T12:00Z",
  "2026-13-01T00:00Z",
  "2026-02-22T24:00Z",
  "2026-02-22T23:60Z",
  "2026-02-22T23:59:60Z",
  " 2026-02-22T10:00Z ",
  "\t2026-02-22T10:00:00+01:00\n",
  "\r\n2026-02-22T10:00:00+01:00\r\n",
  "\u00a02026-02-22T10:00Z\u3000",
  "\u200b2026-02-22T10:00Z",
  "\ufeff2026-02-22T10:00Z",
  "\u001c2026-02-22T10:00Z\u0085",
  "2026-02-22\u00e010:00Z",
  "2026-02-22\u{1f600}10:00Z",
  "2026-02-22 10:00Z",
  "2026-02-22t10:00Z",
  "2026-02-22_10:00Z",
  "2026-02-22T10:00z",
  "2026-02-22T10:00ZZ",
  "2026-02-22T10:00:00+05:30 ",
  "2026-02-22T10:00\u00e9",
  "2026-02-22\ud80010:00Z",
  "0001-01-01T00:00+01:00",
  "0001-01-01T00:00-01:00",
  "0001-01-01T00:00Z",
  "0000-01-01T00:00Z",
  "9999-12-31T23:59:59-01:00",
  "9999-12-31T23:59:59.999999Z",
  "9999-12-31T23:59:59.999999+00:00:00.000001",
  "",
  "   ",
  "Z",
  "not a date",
  "1970-01-01T00:00:00.000001-00:00:00.000001",
  "1970-01-01T00:00:00-00:00:00.000001",
  "2026-02-22T10:00:00.5+00:00:00.999999",
  "2026-02-22T10:00:00+00:00:01.000001",
  "2500-01-01T00:00:00.000001Z",
  "2300-01-01T00:00:00.000001+00:00",
  "1000-06-01T12:00:00.123457Z",
  "1600-02-29T23:59:59.999999-00:30",
];

const FLOATS = [
  "1234567890125.0",
  "1234567890135.0",
  "-1234567890125.0",
  "123456789012.5",
  "999999999999.5",
  "0.1234567890125",
  "0.30000000000000004",
  "1e16",
  "1E16",
  "1e+16",
  "9.999999999995e15",
  "1e15",
  "1e-5",
  "1e-4",
  "0.0001",
  "0.00001",
  "5e-324",
  "-5e-324",
  "2.2250738585072014e-308",
  "1.7976931348623157e308",
  "-0.0",
  "0.0",
  "1.0",
  "1.5",
  "2.5e-7",
  "1e22",
  "9007199254740993.0",
  "123456789012345678901234567890.0",
  "0.1e1",
  "1e400",
  "-1e400",
];

const INTS = [
  "0",
  "-0",
  "12345678901234567890123",
  "-12345678901234567890",
  "9007199254740993",
  "18446744073709551616",
];

const STRINGS = [
  "a\r\nb\rc\n",
  "\r\r\n\n",
  "\u0000\u0001\u001f\u007f",
  "\u{1f600}\u{10ffff}",
  "\ud800",
  "\udfff\ud800",
  "\u2028\u2029",
  "é\ue000\uffff",
  '"\\/',
];

function handWritten(): Val[] {
  const cases: Val[] = [];
  // Every path under "path"; the other path-like keys (any case) take turns, and see a few each.
  for (const [k, p] of PATHS.entries()) {
    cases.push({ path: p }, obj([[PATH_KEYS[1 + (k % (PATH_KEYS.length - 1))] as string, p]]));
  }
  for (const key of PATH_KEYS) cases.push(obj([[key, "C:\\a\\..\\b\\"]]), obj([[key, ""]]));
  for (const [k, t] of TIMESTAMPS.entries()) {
    cases.push({ timestamp: t }, obj([[TIMESTAMP_KEYS[1 + (k % (TIMESTAMP_KEYS.length - 1))] as string, t]]));
  }
  for (const key of TIMESTAMP_KEYS)
    cases.push(obj([[key, " 2026-02-22T10:00:00+05:30 "]]), obj([[key, "2026-02-22T10:00"]]));
  for (const f of FLOATS) cases.push(F(f), [F(f)], { x: F(f) });
  for (const i of INTS) cases.push(F(i), { n: F(i) });
  for (const s of STRINGS) cases.push(s, { s }, { path: s }, { timestamp: s }, { [s]: s });
  // A path key holding non-strings, a timestamp key holding numbers, list items are not paths.
  cases.push(
    { path: [F("1.0"), "C:\\x", { file: "C:\\y\\" }] },
    { timestamp: 1700000000 },
    { created_at: F("1.5") },
  );
  cases.push({ path: null, cwd: true, dir: {}, timestamp: [] });
  // Unordered lists, mixed types, any case of the key, nested.
  const mixed: Val[] = [
    3,
    "b",
    F("1.5"),
    null,
    true,
    false,
    { z: 1, a: [2, 1] },
    [2, 1],
    "a",
    "B",
    "é",
    -1,
    10,
    F("1.0"),
    "\u{1f600}",
    "\ue000",
    {},
    [],
  ];
  for (const key of ["tags", "TAGS", "Labels", "labels", "capabilities", "Capabilities", "tag", "tags_"]) {
    cases.push({ [key]: mixed });
  }
  cases.push({ tags: [{ tags: ["b", "a"] }, { labels: [F("2.0"), 1] }] });
  cases.push({ tags: "not a list", labels: { b: 1, a: 2 }, capabilities: [] });
  cases.push({ tags: [F("1.00000000000049"), F("1.0000000000005"), F("1e-5"), F("1e16"), 1, 10, 9] });
  cases.push({ tags: ["C:\\x", "2026-02-22T10:00Z", "\r\n"] });
  // Volatile keys, any case, at any depth, and near-misses.
  cases.push({
    Duration_MS: 5,
    duration_ms: 6,
    PID: 1,
    pid_: 2,
    request_idx: 3,
    nested: { trace_id: "x", Span_Id: "y", list: [{ span_id: 1, keep: 2, thread_ID: 3 }] },
    captured_at: "2026-02-22T10:00+01:00",
    Captured_NS: F("1.5"),
    wall_time_ms: { timestamp: "2026-02-22T10:00+01:00" },
    latency_ms: null,
  });
  // Keys in code-point order (astral after U+E000 for Python), lone surrogates, __proto__.
  cases.push(
    obj([
      ["\ue000", 1],
      ["\u{1f600}", 2],
      ["\ud800", 3],
      ["\uffff", 4],
      ["é", 5],
      ["__proto__", { path: "C:\\p" }],
      ["", 6],
      ["A", 7],
      ["a", 8],
    ]),
  );
  cases.push({
    a: {
      b: { c: { d: { path: "C:\\deep\\..\\x", tags: ["z", "y"], timestamp: "2026-02-22T10:00-01:00" } } },
    },
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Generated values.

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(""));
const nonZeroLead = (min: number, max: number): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(min - 1, max - 1)).map(([a, b]) => `${a}${b}`);
const sign = fc.constantFrom("", "", "-");

const pathString: fc.Arbitrary<string> = fc
  .array(
    pick([
      "C:",
      "c:",
      "D:",
      "z:",
      "\\",
      "/",
      "//",
      "\\\\",
      "..",
      ".",
      "a",
      "b",
      "dir",
      " ",
      "\n",
      "\r\n",
      "\r",
      "é",
      "\u{1f600}",
      ":",
      "~",
      "C:\\",
      "..\\",
      "\t",
    ]),
    {
      maxLength: 8,
    },
  )
  .map((parts) => parts.join(""));

const two = (fixed: string[]): fc.Arbitrary<string> => fc.oneof(pick(fixed), digits(2, 2));
const timestampString: fc.Arbitrary<string> = fc
  .tuple(
    pick(["", "", "", " ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u200b", "\u001c"]),
    pick(["2026", "2026", "2024", "1970", "0001", "9999", "0000", "2000"]),
    two(["01", "02", "12", "13", "00"]),
    two(["01", "22", "28", "29", "30", "31", "32", "00"]),
    fc.nat(9),
    pick(["T", "T", "T", "T", " ", "t", "_", "\u00e0", "\u2003", "\u{1f600}"]),
    fc.tuple(
      two(["00", "10", "23", "24"]),
      two(["00", "30", "59", "60"]),
      two(["00", "59", "60"]),
      fc.nat(8),
      digits(1, 9),
    ),
    pick([
      "",
      "Z",
      "Z",
      "z",
      "+00:00",
      "-00:00",
      "+05:30",
      "-05:00",
      "+0530",
      "+05",
      "+00:00:30",
      "+01:00:00.5",
      "+23:59",
      "+24:00",
      "-23:59:59.999999",
      "Z+01:00",
    ]),
    pick(["", "", "", " ", "\n", "\u00a0", "\u2029", "x"]),
  )
  .map(([lead, year, mm, dd, dateForm, sep, [hh, mi, ss, timeForm, frac], tz, trail]) => {
    const week = `W${mm}`;
    const date = [
      `${year}-${mm}-${dd}`,
      `${year}-${mm}-${dd}`,
      `${year}-${mm}-${dd}`,
      `${year}${mm}${dd}`,
      `${year}-${week}-${dd.slice(1)}`,
      `${year}${week}${dd.slice(1)}`,
      `${year}-${week}`,
      `${year}-${mm}`,
      `${year}${week}`,
      `${year}-${mm}-${dd}`,
    ][dateForm] as string;
    const time = [
      `${hh}:${mi}:${ss}`,
      `${hh}:${mi}`,
      `${hh}`,
      `${hh}${mi}`,
      `${hh}${mi}${ss}`,
      `${hh}:${mi}:${ss}.${frac}`,
      `${hh}:${mi}:${ss},${frac}`,
      `${hh}${mi}${ss}.${frac}`,
      `${hh}:${mi}${ss}`,
    ][timeForm] as string;
    const withTime = dateForm === 9 ? date : `${date}${sep}${time}`;
    return `${lead}${withTime}${tz}${trail}`;
  });

const anyString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
      {
        weight: 2,
        arbitrary: pick(["\r", "\n", "\r\n", "\t", "\u0000", "\u001f", "\u007f", '"', "\\", "/"]),
      },
      {
        weight: 2,
        arbitrary: pick([
          "é",
          "\u00a0",
          "\u2028",
          "\ue000",
          "\uffff",
          "\u{1f600}",
          "\u{10ffff}",
          "\ud800",
          "\udc00",
        ]),
      },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
    ),
    { maxLength: 10 },
  )
  .map((parts) => parts.join(""));

const stringValue: fc.Arbitrary<string> = fc.oneof(pathString, timestampString, anyString);

/** An odd k / 2^j written with 13 significant digits ending in 5: an exact tie at 12 digits. */
const tieFloat: fc.Arbitrary<Num> = fc
  .tuple(fc.integer({ min: 1, max: 12 }), fc.nat(), fc.nat(), sign, fc.nat(3))
  .map(([intLen, a, k, s, shift]) => {
    const j = 13 - intLen;
    const intPart = String(10 ** (intLen - 1) + (a % (9 * 10 ** (intLen - 1))));
    const odd = 2 * (k % 2 ** (j - 1)) + 1;
    const frac = String((BigInt(odd) * 10n ** BigInt(j)) / 2n ** BigInt(j)).padStart(j, "0");
    // Same digits, with the point moved into an exponent now and then.
    const text = `${intPart}.${frac}`;
    return F(shift === 0 ? `${s}${text}` : `${s}${intPart}${frac}e-${j}`);
  });

const floatText: fc.Arbitrary<Num> = fc.oneof(
  { weight: 2, arbitrary: pick(FLOATS.filter((f) => !f.includes("400"))).map(F) },
  { weight: 3, arbitrary: tieFloat },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        sign,
        fc.oneof(fc.constant("0"), nonZeroLead(1, 18)),
        digits(1, 18),
        fc.option(fc.integer({ min: -330, max: 290 }), { nil: undefined }),
      )
      .map(([s, i, f, e]) => F(`${s}${i}.${f}${e === undefined ? "" : `e${e}`}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(sign, nonZeroLead(1, 3), fc.integer({ min: -330, max: 300 }))
      .map(([s, m, e]) => F(`${s}${m}E${e}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map((d) =>
        F(
          Object.is(d, -0)
            ? "-0.0"
            : String(d).includes(".") || String(d).includes("e")
              ? String(d)
              : `${d}.0`,
        ),
      ),
  },
);

const intText: fc.Arbitrary<Num> = fc.oneof(
  pick(INTS).map(F),
  fc.integer({ min: -1000, max: 1000 }).map((n) => F(String(n))),
  fc.tuple(sign, nonZeroLead(1, 25)).map(([s, d]) => F(`${s}${d}`)),
);

const KEYS = [
  ...PATH_KEYS,
  ...TIMESTAMP_KEYS,
  "duration_ms",
  "Duration_MS",
  "latency_ms",
  "wall_time_ms",
  "request_id",
  "trace_id",
  "SPAN_ID",
  "captured_ns",
  "thread_id",
  "pid",
  "PID",
  "tags",
  "TAGS",
  "labels",
  "Capabilities",
  "a",
  "b",
  "B",
  "name",
  "__proto__",
  "",
  "é",
  "\ue000",
  "\u{1f600}",
  "\ud800",
  "x\r\ny",
];

const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: pick(KEYS) },
  { weight: 1, arbitrary: anyString },
);

const { value: generatedValue } = fc.letrec<{ value: Val; list: Val[]; object: { [key: string]: Val } }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      stringValue,
      floatText,
      intText,
      pick<Val>([null, true, false]),
      tie("list"),
      tie("object"),
    ),
    list: fc.array(tie("value"), { maxLength: 6 }),
    object: fc.uniqueArray(fc.tuple(keyArb, tie("value")), { maxLength: 6, selector: ([k]) => k }).map(obj),
  }),
);

// ---------------------------------------------------------------------------------------------

interface Case {
  text: string;
  strip: boolean;
}

function runOracle(cases: Case[]): string[] {
  const input = cases.map((c) => `{"value":${c.text},"strip":${c.strip}}\n`).join("");
  const result = spawnSync("python3", [ORACLE], { input, encoding: "utf8", maxBuffer: 1 << 28 });
  if (result.error !== undefined) throw new Error(`cannot run python3 ${ORACLE}: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`python3 ${ORACLE} exited with ${result.status}: ${result.stderr}`);
  const lines = result.stdout.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length !== cases.length)
    throw new Error(`oracle answered ${lines.length} lines for ${cases.length} cases`);
  return lines;
}

function ours(c: Case): { text: string } | { error: unknown } {
  try {
    return {
      text: canonicalize(readJson(c.text, { rejectLoneSurrogates: false }), "replaykit", {
        stripVolatile: c.strip,
      }),
    };
  } catch (error) {
    return { error };
  }
}

describe("replaykit profile vs an independent Python oracle", () => {
  it("agrees on hand-written nasty cases and generated values", () => {
    const values: Val[] = [...handWritten(), ...fc.sample(generatedValue, GENERATED)];
    const cases: Case[] = values.flatMap((v, k) => {
      const text = toJson(v);
      // Generated cases alternate; hand-written ones with volatile-looking keys are run both ways.
      if (k >= values.length - GENERATED) return [{ text, strip: k % 2 === 0 }];
      return /_ms|_id|_at|_ns|pid/i.test(text)
        ? [
            { text, strip: false },
            { text, strip: true },
          ]
        : [{ text, strip: false }];
    });
    const expected = runOracle(cases);
    const mismatches: string[] = [];
    let errors = 0;
    cases.forEach((c, k) => {
      const want = expected[k] as string;
      const got = ours(c);
      const oracleError = want.startsWith('{"error": ')
        ? (JSON.parse(want) as { error: string }).error
        : undefined;
      if (oracleError !== undefined) {
        errors++;
        if (!("error" in got) || !(got.error instanceof CanonicalizationError)) {
          const what = "error" in got ? `threw ${String(got.error)}` : `returned ${got.text}`;
          mismatches.push(`${c.text} (strip ${c.strip}): python raised ${oracleError}, ours ${what}`);
        }
      } else if ("error" in got) {
        mismatches.push(`${c.text} (strip ${c.strip}): python ${want}, ours threw ${String(got.error)}`);
      } else if (got.text !== want) {
        mismatches.push(`${c.text} (strip ${c.strip}): python ${want}, ours ${got.text}`);
      }
    });
    expect(mismatches).toEqual([]);
    // The batch really exercised both outcomes.
    expect(cases.length).toBeGreaterThan(GENERATED);
    expect(errors).toBeGreaterThan(0);
  });
});
