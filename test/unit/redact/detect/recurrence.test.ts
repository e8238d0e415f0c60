/**
 * A secret found once is redacted wherever it recurs: in the same string (any encoded form), in
 * later strings of the file, in earlier members of the same event, and anywhere in a document.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalHash, type JsonValue } from "#shared/canonical/index.js";
import { encodedForms, KnownSecrets, recurrences } from "#shared/redact/detect/recurrence.js";
import { Scrubber } from "#shared/redact/index.js";
import { redactBytes } from "../layer-c/helpers.js";

const H = (v: JsonValue): string => canonicalHash(v, "openagents");
const jsonl = (events: unknown[]): string => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
/** Low entropy on purpose: only the name beside it (`password=`) says it is a secret. */
const SECRET = "hunter2hunter2";

describe("recurrence in one string", () => {
  it("finds the other occurrences of a found value, raw and encoded", () => {
    const text = `token = '${SECRET}' | '${SECRET}' ${Buffer.from(SECRET).toString("base64")} ${encodeURIComponent(`${SECRET}!`)}`;
    const found = recurrences(text, [
      { start: 9, end: 9 + SECRET.length, rule: "generic-secret", kind: "secret" },
    ]);
    const b64 = Buffer.from(SECRET).toString("base64").replace(/=+$/, "");
    expect(found.map((f) => text.slice(f.start, f.end)).sort()).toEqual([SECRET, SECRET, b64].sort());
    expect(found.some((f) => f.start === 9)).toBe(false);
  });

  it("the scrubber leaves none of them", () => {
    const out = new Scrubber().scrub(
      `password = "${SECRET}" and again ${SECRET}, b64 ${btoa(SECRET)}`,
      "$.x",
    );
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(btoa(SECRET).replace(/=+$/, ""));
  });

  it("encoded forms are base64, base64url and percent-encoding", () => {
    expect(encodedForms("a+b/c?d=e&f")).toEqual([
      "a+b/c?d=e&f",
      "YStiL2M/ZD1lJmY",
      "YStiL2M_ZD1lJmY",
      "a%2Bb%2Fc%3Fd%3De%26f",
    ]);
  });
});

describe("recurrence in later strings", () => {
  it("a secret found in one string is redacted in a later one where nothing names it", () => {
    const s = new Scrubber();
    expect(s.scrub(`password=${SECRET}`, "$.a")).not.toContain(SECRET);
    expect(s.scrub(`login failed for ${SECRET} at 10:00`, "$.b")).toBe(
      "login failed for [REDACTED:generic-secret] at 10:00",
    );
    // A fresh scrubber (another file) knows nothing of it.
    expect(new Scrubber().scrub(`login failed for ${SECRET} at 10:00`, "$.b")).toContain(SECRET);
  });

  it("KnownSecrets finds a value holding chunk breaks as a token of its own, not inside a longer one", () => {
    const known = new KnownSecrets();
    const secret = "Tr0ub4dor&3x";
    known.remember(secret, [{ start: 0, end: secret.length, rule: "r", kind: "secret" }]);
    const found = (text: string) => known.findIn(text).map((f) => text.slice(f.start, f.end));
    expect(found(`next=${secret}&x=1`)).toEqual([secret]);
    expect(found(`ran "${secret}" twice, then ${secret}`)).toEqual([secret, secret]);
    expect(found(`x${secret}`)).toEqual([]);
    expect(found(`${secret}y`)).toEqual([]);
    // Its base64 form holds no break: a chunk like any other.
    expect(found(`b64 ${btoa(secret)}`)).toEqual([btoa(secret).replace(/=+$/, "")]);
    // Written JSON: after an escape too.
    const json = JSON.stringify({ m: `line\n${secret}\tend` });
    expect(known.findInWritten(json).map((f) => json.slice(f.start, f.end))).toEqual([secret]);
  });

  it("KnownSecrets finds chunks, not substrings of longer words", () => {
    const known = new KnownSecrets();
    known.remember(`x ${SECRET}`, [{ start: 2, end: 2 + SECRET.length, rule: "r", kind: "secret" }]);
    expect(known.findIn(`a "${SECRET}" b`)).toHaveLength(1);
    expect(known.findIn(`a x${SECRET}y b`)).toHaveLength(0);
    expect(known.since(0).map((v) => v.value)).toEqual([SECRET]);
    expect(known.since(known.epoch)).toEqual([]);
  });
});

describe("the secrets learned lately", () => {
  it("since lists the last 256 at most, in order, and learn copies those", () => {
    const known = new KnownSecrets();
    const values = Array.from({ length: 600 }, (_, i) => `secret-value-${1000 + i}`);
    for (const v of values) known.remember(v, [{ start: 0, end: v.length, rule: "r", kind: "secret" }]);
    expect(known.since(0).map((v) => v.value)).toEqual(values.slice(-256));
    expect(known.since(known.epoch - 10).map((v) => v.value)).toEqual(values.slice(-10));
    const other = new KnownSecrets();
    other.learn(known);
    expect(other.since(0).map((v) => v.value)).toEqual(values.slice(-256));
  });
});

describe("what one part of a file learned, for the parts after it", () => {
  const remember = (known: KnownSecrets, ...values: string[]) => {
    for (const v of values) known.remember(v, [{ start: 0, end: v.length, rule: "r", kind: "secret" }]);
  };

  it("takeLearned lists what was remembered since the last call, once; rememberAll takes it in", () => {
    const known = new KnownSecrets();
    remember(known, "first-secret-1", "second-secret-2");
    const learned = known.takeLearned();
    expect(learned).toEqual([
      { value: "first-secret-1", rule: "r" },
      { value: "second-secret-2", rule: "r" },
    ]);
    remember(known, "first-secret-1", "third-secret-3");
    expect(known.takeLearned().map((v) => v.value)).toEqual(["third-secret-3"]);
    const other = new KnownSecrets();
    other.rememberAll(learned);
    expect(other.findIn("ran second-secret-2 twice").map((f) => f.rule)).toEqual(["r"]);
  });

  it("findInWritten finds in written JSON what findIn finds in its strings, and nothing outside them (property)", () => {
    const secrets = [
      "hunter2hunter2",
      "Zq8vN3kP5wR2",
      "12345678901",
      "caf\u00e9-s\u00fcper-key",
      // Chunk breaks inside, a quote and a backslash among them (JSON writes those escaped).
      "Tr0ub4dor&3x",
      'p4ss:w0rd;\\"2026\\\\x',
    ].map((x) => JSON.parse(`"${x}"`)) as string[];
    const known = new KnownSecrets();
    remember(known, ...secrets);
    const forms = secrets.flatMap((x) => [...encodedForms(x)]);
    const text = fc
      .array(
        fc.oneof(
          fc.constantFrom(...forms),
          fc.constantFrom(
            " ",
            "\n",
            "\\n",
            "\\u0001",
            "\t",
            '"',
            "\\",
            "\u0001",
            "=",
            ":",
            "/",
            "-",
            "é",
            "x",
            "\ud83d\ude00",
          ),
          fc.string({ maxLength: 6 }),
        ),
        { maxLength: 10 },
      )
      .map((parts) => parts.join(""));
    const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof(
        { arbitrary: text, weight: 4 },
        fc.constant(12345678901),
        fc.constant(true),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.dictionary(text, tie("value"), { maxKeys: 3 }),
      ),
    })).value;
    const strings = (v: unknown): string[] =>
      typeof v === "string"
        ? [v]
        : Array.isArray(v)
          ? v.flatMap(strings)
          : v !== null && typeof v === "object"
            ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)])
            : [];
    let found = 0;
    let saidNo = 0;
    fc.assert(
      fc.property(fc.dictionary(text, value, { maxKeys: 4 }), (object) => {
        const json = JSON.stringify(object);
        const expected = strings(object).flatMap((x) => known.findIn(x).map((f) => x.slice(f.start, f.end)));
        const got = known
          .findInWritten(json)
          .map((f) => JSON.parse(`"${json.slice(f.start, f.end)}"`) as string);
        found += got.length;
        expect(got).toEqual(expected);
        // The check on the bytes says no only where nothing is found.
        if (!known.mayHoldWritten(Buffer.from(json))) {
          saidNo++;
          expect(got).toEqual([]);
        }
      }),
      { numRuns: 1500, seed: 27 },
    );
    // The property means something only if it found some, and the check said no often.
    expect(found).toBeGreaterThan(300);
    expect(saidNo).toBeGreaterThan(200);
  });
});

describe("a written copy's check for learned secrets (Scrubber.mayHoldLearned)", () => {
  const learned = (secrets: readonly string[]): { s: Scrubber; epoch: number } => {
    const s = new Scrubber();
    const epoch = s.epoch();
    for (const secret of secrets) s.scrub(secret, "$.p", "password");
    return { s, epoch };
  };

  it("says no for a copy without them, yes for one holding one in any form", () => {
    const { s, epoch } = learned([SECRET]);
    const copy = (text: string) => Buffer.from(JSON.stringify({ message: `ran as ${text} café` }));
    expect(s.mayHoldLearned(copy("nobody"), epoch)).toBe(false);
    for (const form of encodedForms(SECRET)) expect(s.mayHoldLearned(copy(form), epoch)).toBe(true);
    // Nothing learned after the latest epoch.
    expect(s.mayHoldLearned(copy(SECRET), s.epoch())).toBe(false);
  });

  it("says no only where redactLearned changes nothing (property)", () => {
    // Mostly ASCII (the check's fast answer), some of any code unit (its cautious one).
    const secret = fc.oneof(
      { arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 8, maxLength: 24 }), weight: 4 },
      { arbitrary: fc.string({ unit: "binary", minLength: 8, maxLength: 24 }), weight: 1 },
    );
    const pieces = (secrets: readonly string[]) =>
      fc.array(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 12 }),
          fc.constantFrom(...secrets, ...secrets.flatMap((x) => [...encodedForms(x)])),
          fc.constantFrom(...secrets).map((x) => x.slice(1)),
        ),
        { maxLength: 6 },
      );
    const cases = fc
      .array(secret, { minLength: 1, maxLength: 3 })
      .chain((secrets) => fc.tuple(fc.constant(secrets), pieces(secrets)));
    let saidNo = 0;
    fc.assert(
      fc.property(cases, ([secrets, parts]) => {
        const { s, epoch } = learned(secrets);
        const written = JSON.stringify({ a: parts.join(" "), b: parts.join("") });
        if (s.mayHoldLearned(Buffer.from(written), epoch)) return;
        saidNo++;
        expect(s.redactLearned(written, "$", epoch)).toBe(written);
      }),
      { numRuns: 2000, seed: 20 },
    );
    // The property means something only if the check said no often.
    expect(saidNo).toBeGreaterThan(200);
  });
});

describe("recurrence in earlier members of the same event", () => {
  const error = { message: `deploy failed for ${SECRET}`, hint: `password=${SECRET}` };
  const events = [
    { type: "ReplayHeader", replay_version: 1, producer: "t", created_at: "2026-02-01T00:00:00Z" },
    {
      type: "ToolCall",
      ts: "2026-02-01T00:00:01Z",
      step_id: "s1",
      tool: "bash",
      params: {},
      params_hash: H({}),
    },
    {
      type: "ToolResult",
      ts: "2026-02-01T00:00:02Z",
      step_id: "s1",
      ok: false,
      output_hash: H(null),
      latency_ms: 1,
      side_effects: [],
      error,
    },
    { type: "SessionEnd", ts: "2026-02-01T00:00:03Z", status: "failure", confidence: 0.5, summary: "done" },
  ];

  it("an earlier member holding a secret a later member names is redacted too", async () => {
    const { text, summary } = await redactBytes(jsonl(events));
    expect(text).not.toContain(SECRET);
    expect(text).toContain("deploy failed for [REDACTED:generic-secret]");
    expect(summary.by_rule["generic-secret"]).toBe(2);
  });

  it("the check can fail: with the later member alone naming it, the earlier one is only caught by this", async () => {
    // The same event without the `hint` keeps the message as it is: nothing else names the value.
    const plain = events.map((e) =>
      e.type === "ToolResult" ? { ...e, error: { message: error.message } } : e,
    );
    const { text } = await redactBytes(jsonl(plain));
    expect(text).toContain(`deploy failed for ${SECRET}`);
  });
});

describe("recurrence in a document", () => {
  const bundle = (metadata: Record<string, string>) =>
    JSON.stringify({
      version: "1.0",
      id: "bundle_1",
      created_at: "2026-02-01T00:00:00Z",
      metadata,
      timeline: [],
    });

  it("a ReplayBundle's earlier strings lose a secret a later one names (a second pass)", async () => {
    const { text } = await redactBytes(bundle({ notes: `ran as ${SECRET}`, summary: `password: ${SECRET}` }));
    expect(text).not.toContain(SECRET);
    expect(text).toContain("ran as [REDACTED:generic-secret]");
  });

  it("without the later string, nothing names it (the check can fail)", async () => {
    const { text } = await redactBytes(bundle({ notes: `ran as ${SECRET}` }));
    expect(text).toContain(`ran as ${SECRET}`);
  });
});

describe("a secret holding a lone surrogate (JSON allows `\\ud800`)", () => {
  it("is redacted, and remembered in the forms it has, without throwing", () => {
    const scrubber = new Scrubber();
    const secret = "ab\uD800cd$efghijk";
    expect(scrubber.scrub(secret, "$.p", "password")).not.toContain("efghijk");
    expect(scrubber.scrub(`later: ${secret} again`, "$.q")).not.toContain("efghijk");
  });
});
