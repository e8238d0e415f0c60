/** Two-factor recovery codes under the line that names them (`detect/recovery-codes.ts`). */
import { describe, expect, it } from "vitest";
import { scanRecoveryCodes } from "#shared/redact/detect/recovery-codes.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanRecoveryCodes, "recovery-code");

describe("recovery codes", () => {
  it("takes each code of a list under a line naming them, prose between the two allowed", () => {
    expect(found("$ cat ~/Downloads/github-recovery-codes.txt\na1b2c-3d4e5\nf6g7h-8i9j0\n$ ls")).toEqual([
      "a1b2c-3d4e5",
      "f6g7h-8i9j0",
    ]);
    expect(
      found(
        "Below are your recovery codes, please print these out.\nYou will need these to recover access.\n\t8636f0c0de54b5fb\n\tbb340c65c36cf786\n$ ",
      ),
    ).toEqual(["8636f0c0de54b5fb", "bb340c65c36cf786"]);
    expect(found("Your backup codes:\n1234 5678    2345 6789\n3456 7890    4567 8901")).toEqual([
      "1234 5678",
      "2345 6789",
      "3456 7890",
      "4567 8901",
    ]);
  });

  it("leaves prose, a lone code-like line, and lines far from the naming one", () => {
    expect(found("Recovery codes are shown once.\nStore them safely.\nSee docs for more.")).toEqual([]);
    expect(found("## Recovery codes\nUse `gh auth refresh` to create new codes.\nVersion 2.4.1")).toEqual([]);
    expect(found("recovery codes: 2 left")).toEqual([]);
    expect(found("backup codes\none\ntwo\nthree\nab12cd34\nef56gh78")).toEqual([]);
    expect(found("recovery codes\nab12cd34\nthe end")).toEqual([]);
  });
});
