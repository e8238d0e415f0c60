/**
 * The cells under a credential's column (`detect/credential-columns.ts`): which tables have a
 * header (a rule under it), which columns name a credential, which cells count.
 */
import { describe, expect, it } from "vitest";
import { scanCredentialColumns } from "#shared/redact/detect/credential-columns.js";
import { Scrubber } from "#shared/redact/index.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanCredentialColumns, "credential-column");
const scrub = (text: string): string =>
  new Scrubber({ preset: "private_repo" }).scrub(text, "$.error.message");

describe("credential columns", () => {
  it("takes the cells under a password's or a token's column in Markdown, psql, mysql and box-drawn tables", () => {
    expect(
      found("| Name | Password | Role |\n|------|----------|------|\n| bob | Tr0ub4dor&3 | admin |"),
    ).toEqual(["Tr0ub4dor&3"]);
    expect(
      found(
        " id | username | password\n----+----------+-------------\n  1 | admin    | Spring2025?\n(1 row)",
      ),
    ).toEqual(["Spring2025?"]);
    expect(
      found(
        "+----+-------------+\n| id | api_key     |\n+----+-------------+\n|  1 | Kx9mPq2vLw7 |\n|  2 | Qz8Lm3Np7Rt |\n+----+-------------+",
      ),
    ).toEqual(["Kx9mPq2vLw7", "Qz8Lm3Np7Rt"]);
    expect(found("│ user │ secret │\n├──────┼────────┤\n│ ci   │ s3cr3tPa55 │")).toEqual(["s3cr3tPa55"]);
    expect(found("┃ user ┃ API Key      ┃\n┣━━━━━━╋━━━━━━━━━━━━━━┫\n┃ bob  ┃ bluefalcon42 ┃")).toEqual([
      "bluefalcon42",
    ]);
    expect(found("| user | DB Password |\n|-|-|\n| bob | bluefalcon42 |")).toEqual(["bluefalcon42"]);
    expect(found("┃ user  ┃ password     ┃\n┡━━━━━━━╇━━━━━━━━━━━━━━┩\n│ alice │ bluefalcon42 │")).toEqual([
      "bluefalcon42",
    ]);
    expect(found("| user | password |\\n|---|---|\\n| ci | Hunter2024! |")).toEqual(["Hunter2024!"]);
  });

  it("takes the cells under a credential's column of CSV whose first line names its columns", () => {
    expect(found('"key","secret"\n"prod","Qwerty!9876"')).toEqual(["Qwerty!9876"]);
    expect(
      found(
        "$ cat creds.csv\nservice,username,password\ngrafana,admin,Spring2025?\nredis,default,Tr0ub4dor&3",
      ),
    ).toEqual(["Spring2025?", "Tr0ub4dor&3"]);
    expect(found("user,password\\nci,Hq7vPz2Lm")).toEqual(["Hq7vPz2Lm"]);
    expect(found("id,name,token_count\n1,a,12")).toEqual([]);
    expect(found("name,secret\nfoo,yes")).toEqual([]);
    expect(found("Hello, world, the password is here\nfoo,bar")).toEqual([]);
    expect(found("user,password\nci,Hq7vPz2Lm\nnot,a,row,of,it")).toEqual(["Hq7vPz2Lm"]);
  });

  it("leaves headers without a rule, other columns, masks, flags, and rows of another table", () => {
    expect(found("| user | password |\n| ci | Hunter2024! |")).toEqual([]);
    expect(
      found("| Option | Secret | Default |\n|---|---|---|\n| --token | yes | none |\n| --url | no | - |"),
    ).toEqual([]);
    expect(found("| user | password |\n|---|---|\n| ci | ******** |\n| bob | NULL |")).toEqual([]);
    expect(found("| user | password |\n|---|---|\n| ci | Hunter2024! |\n| a | b | c |")).toEqual([
      "Hunter2024!",
    ]);
    expect(found("| Name | Description |\n|---|---|\n| password | The user's password |")).toEqual([]);
    // A token's or a secret's column alone: a tokenizer's words, a list of secrets' names.
    expect(found("| Token | ID |\n|---|---|\n| hello | 15339 |\n| Hello | 9906 |")).toEqual([]);
    expect(
      found(
        "| Secret | Description |\n|---|---|\n| `AWS_ROLE_ARN` | IAM role |\n| SLACK_WEBHOOK_URL | hook |",
      ),
    ).toEqual([]);
    expect(found("| Key | Token |\n|---|---|\n| a | IDENTIFIER |")).toEqual([]);
    expect(found("| user | token |\n|---|---|\n| ci | Kx9mPq2vLw7Qz8 |")).toEqual(["Kx9mPq2vLw7Qz8"]);
  });

  it("keeps a header row's cells, which name columns", () => {
    for (const kept of [
      "| Name | Password | Role |\n|------|----------|------|",
      "│ id     │ token   │ created    │ readonly │\n├────────┼─────────┼────────────┼──────────┤\n│ 876061 │ npm_nI0… │ 2024-05-02 │ no       │",
    ])
      expect(scrub(kept)).toBe(kept);
  });
});
