/**
 * A credential's label alone on its line and its value alone on the next
 * (`detect/labelled-lines.ts`), through the scrubber that judges the value. Recall over generated
 * secrets is measured by generic-shapes.test.ts (family `context`, shape `label`).
 */
import { describe, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectHidden, expectKept } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("labelled lines", () => {
  it("takes a password or a token alone under a credential's label", () => {
    expectHidden(scrub, [
      ["Password:\nSpring2025?", "Spring2025?"],
      ["Password:\nhunter2", "hunter2"],
      ["REDIS_PASSWORD\n    Spring2025?", "Spring2025?"],
      [
        "JWT_SECRET\n    6efbe015b48151b7e6744bac1a842dce741ef7b742131fca871cd456ab6f7fb5",
        "6efbe015b48151b7e6744bac1a842dce741ef7b742131fca871cd456ab6f7fb5",
      ],
      ["API Key:\n  sk_9f8e7d6c5b4a39281706f5e4d3c2b1a0", "sk_9f8e7d6c5b4a39281706f5e4d3c2b1a0"],
      ["- Client secret:\n  'Xq7#pLm2vR9t'", "Xq7#pLm2vR9t"],
      ["Admin password:\\n  Tr0ub4dor&3\\n", "Tr0ub4dor&3"],
    ]);
  });

  it("leaves headings over words, labels that name no credential, and stand-ins", () => {
    expectKept(scrub, [
      "Reset password\nSuccess",
      "Password\nReset",
      "## Password\nhunter2x",
      "Password:\nRequired",
      "Password:\n********",
      "password:\nstring",
      "DB_PASSWORD\nDB_HOST",
      "Token:\n2024-01-01",
      "Version:\n1.2.3-beta4",
      "Secret key:\n/etc/ssl/private/key.pem",
      "Password policy:\nmin8chars",
      "token:\n  description: the token",
      "Password for user postgres: \nPostgreSQL-16.2",
      "Enter passphrase:\nIdentity added: id_ed25519",
      // Settings without a value, one under the other.
      "GITHUB_API_KEY=\nDYNATRACE_API_KEY=",
      "APP_KEY=\nAPP_DEBUG=true",
      "super_service_api_token:\nsuper_service_api_url:",
      "    password:\n  security:",
    ]);
  });
});
