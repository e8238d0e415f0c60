/**
 * A value after an arrow (`detect/arrow-values.ts`), through the scrubber that judges it as an
 * assignment: a plan's new value, a log's value after its name.
 */
import { describe, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectHidden, expectKept } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("arrow values", () => {
  it("takes the new value of a credential's change, and a value printed after its name", () => {
    expectHidden(scrub, [
      ['              ~ "DB_PASSWORD"   = "Old-Lambda-Pw1" -> "New-Lambda-Pw2"', "New-Lambda-Pw2"],
      ['          ~ "smtp_password" = (sensitive value) -> "New-Smtp-Cm"', "New-Smtp-Cm"],
      ["SECRET_KEY → ow@ojfc+*gd)4z9uqpdy0jlm8v^x&m4o74wl5m#tg=^1eyyesi", "ow@ojfc+*gd)4z9"],
      ["api_token -> x9Kq2mLp7Vz4", "x9Kq2mLp7Vz4"],
    ]);
  });

  it("leaves arrows between words, pointers and names that are no credential's", () => {
    expectKept(scrub, [
      "token -> refresh flow",
      "password_hash -> bcrypt",
      `api_key -> \${var.key}`,
      "x = a->token",
      "if (s->password) return s->password;",
      '      ~ last_modified = "2024-05-20" -> (known after apply)',
      '      ~ image_tag = "2.8.0" -> "2.8.1"',
    ]);
  });
});
