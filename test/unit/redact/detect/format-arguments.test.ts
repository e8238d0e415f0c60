/**
 * Credentials given to a format string's slot as literals (`detect/format-arguments.ts`): by the
 * slot's place among the arguments, whatever the language's form of the call, and only when the
 * format's text before the slot names a credential.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanFormatArguments } from "#shared/redact/detect/format-arguments.js";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectKept, foundBy } from "./helpers.js";

const found = foundBy(scanFormatArguments, "credential-argument");
const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

/** Calls that fill a format's slots, given the format's literal and its arguments. */
const CALLS: readonly ((format: string, args: readonly string[]) => string)[] = [
  (f, a) => `String url = String.format("${f}", ${a.join(", ")});`,
  (f, a) => `s := fmt.Sprintf("${f}", ${a.join(", ")})`,
  (f, a) => `dsn = "${f}" % (${a.join(", ")})`,
  (f, a) => `dsn = '${f}'.format(${a.join(", ")})`,
  (f, a) => `snprintf(buf, sizeof buf, "${f}", ${a.join(", ")});`,
  (f, a) => `log.info("${f}", ${a.join(", ")})`,
];
/** What stands before a credential's slot in a format. */
const CONTEXTS = [
  "password=",
  "passwd=",
  "pwd:",
  "api_token=",
  "secret_key=",
  "Bearer ",
  "password ",
  "://app:",
];

describe("format strings' credential slots", () => {
  it("varied: the literal filling a credential's slot, the slots before it filled by names and literals", () => {
    const before = fc.array(fc.constantFrom(["host=%s ", "host"], ["user=%s ", '"bob"'], ["db=%s ", "db"]), {
      maxLength: 2,
    });
    const value = fc
      .tuple(
        fc.stringMatching(/^[A-Za-z]{4,8}$/),
        fc.integer({ min: 10, max: 9999 }),
        fc.constantFrom("!", "#", "Q", "_"),
      )
      .map(([w, n, s]) => `${w}${n}${s}`);
    fc.assert(
      fc.property(
        fc.constantFrom(...CALLS),
        before,
        fc.constantFrom(...CONTEXTS),
        value,
        (call, pre, context, v) => {
          const text = call(`${pre.map(([f]) => f).join("")}${context}%s`, [
            ...pre.map(([, a]) => a),
            `"${v}"`,
          ]);
          const dotFormat = text.includes(".format(");
          const written = dotFormat ? text.replaceAll("%s", "{}") : text;
          expect(found(written), written).toContain(v);
          expect(scrub(written), written).not.toContain(v);
        },
      ),
      { seed: 20_261_128, numRuns: 400 },
    );
  });

  it("reads explicit places and Python's single value", () => {
    expect(found('String.format("user=%1$s password=%2$s", "bob", "Qw7kT2zPx9")')).toEqual(["Qw7kT2zPx9"]);
    expect(found('"password={1}&user={0}".format("bob", "Qw7kT2zPx9")')).toEqual(["Qw7kT2zPx9"]);
    expect(found('"password=%s" % "Qw7kT2zPx9"')).toEqual(["Qw7kT2zPx9"]);
    expect(found('"user=%s password=%s" % "Qw7kT2zPx9"')).toEqual([]);
  });

  it("leaves other slots, names, words and stand-ins", () => {
    expectKept(scrub, [
      'log.info("token=%s", token)',
      'print("password: %s" % "required")',
      'String.format("Hello %s, your password was reset", "Bob")',
      'fmt.Printf("%s=%s\\n", "password", "hidden")',
      'logger.debug("Bearer %s", "<token>")',
      '"key=%s" % "sort_order"',
      'String.format("password length: %d", 12)',
      '"user=%s password=%s" % (user, password)',
      'String.format("100%% of %s", "Qw7kT2zPx9")',
    ]);
  });
});
