/**
 * Arrays of strings in the free content Layer C keeps (a failed process's `cmd`, `spawnargs`,
 * `args`) are read as one command line: a password split from its flag or its tool across
 * elements is redacted in its element; lists that hold no secret are kept as they are.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "#shared/canonical/index.js";
import { copyOfError } from "./helpers.js";

const copyOf = (details: JsonObject): string => JSON.stringify(copyOfError(details));

const password = fc
  .tuple(
    fc.constantFrom("Winter", "Tr0ub4", "Qm9v", "hunter", "P@ss"),
    fc.integer({ min: 10, max: 9999 }),
    fc.constantFrom("!", "#", "x", "Z9"),
  )
  .map(([w, n, s]) => `${w}${n}${s}`);
const passwords = fc.sample(fc.noBias(password), { seed: 20_261_127, numRuns: 60 });

describe("an argument vector", () => {
  it("loses the password its elements hold together, each in its own element", () => {
    for (const p of passwords) {
      for (const details of [
        { cmd: ["mysql", "-uroot", `-p${p}`, "-h", "db"] },
        { spawnargs: ["sshpass", "-p", p, "ssh", "deploy@h"] },
        { args: ["--password", p, "--user", "app"] },
        { argv: ["redis-cli", "-a", p, "ping"] },
      ] as JsonObject[]) {
        const copy = copyOf(details);
        expect(copy, JSON.stringify(details)).not.toContain(p);
        expect(copy).toMatch(/"(?:mysql|sshpass|--password|redis-cli)"/);
      }
    }
  });

  it("keeps lists that hold no secret as they are", () => {
    for (const details of [
      { files: ["src/index.ts", "src/auth/token.ts", "README.md"] },
      { tags: ["token", "expired"] },
      { cmd: ["git", "commit", "-m", "fix: rotate the session key before expiry"] },
      { cmd: ["npm", "run", "test", "--", "--grep", "password reset"] },
      { cmd: ["docker", "run", "-e", "NODE_ENV=production", "-p", "8080:8080", "app"] },
      { cmd: ["psql", "-h", "db", "-U", "app", "-c", "select 1"] },
    ] as JsonObject[]) {
      expect(copyOf(details)).toBe(JSON.stringify({ message: "Command failed", ...details }));
    }
  });
});
