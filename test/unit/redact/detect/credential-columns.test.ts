/**
 * The cells under a credential's column (`detect/credential-columns.ts`): which tables have a
 * header (a rule under it), which columns name a credential, which cells count.
 */
import { describe, expect, it } from "vitest";
import { scanAlignedTables, scanCredentialColumns } from "#shared/redact/detect/credential-columns.js";
import { Scrubber } from "#shared/redact/index.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanCredentialColumns, "credential-column");
const foundAligned = foundBy(scanAlignedTables, "credential-column");
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

  it("takes a setting's value where a table of settings by name names a credential", () => {
    expect(found("name,value\nDB_HOST,db.local\nSMTP_PASS,Autumn_Leaves88")).toEqual(["Autumn_Leaves88"]);
    expect(found("key,value\nAPI_TOKEN,ab12cd34ef56gh78\nREGION,eu-west-1")).toEqual(["ab12cd34ef56gh78"]);
    expect(
      found("| Variable | Value |\n|---|---|\n| REDIS_PASSWORD | Spring2025? |\n| REDIS_HOST | cache |"),
    ).toEqual(["Spring2025?"]);
    expect(found("Name,Value\npassword_min_length,12\nTOKEN_TTL,3600")).toEqual([]);
  });

  it("reads no line of values as a header (`API_TOKEN,ab12…`), nor a table's rows as another's header", () => {
    expect(found("API_TOKEN,ab12cd34ef56gh78\nREGION,eu-west-1")).toEqual([]);
    expect(found("service,password\ngithub,Xk9#mPq2\ntoken,ordinary\nplain,row")).toEqual([
      "Xk9#mPq2",
      "ordinary",
    ]);
  });

  it("takes a query's answer in list mode under the query that names a credential's column", () => {
    expect(
      found("sqlite> select username, password from users;\nadmin|Spring2025?\nbob|hunter2x\nsqlite> "),
    ).toEqual(["Spring2025?", "hunter2x"]);
    expect(found('$ psql -At -c "select u.name, s.token from sessions s"\nbob\tX9k2mQp7Lz')).toEqual([
      "X9k2mQp7Lz",
    ]);
    expect(found("mysql> SELECT id, api_key AS k FROM clients;\n1\tak_9f8e7d6c5b4a3928")).toEqual([
      "ak_9f8e7d6c5b4a3928",
    ]);
    expect(found("sqlite> select id, password_reset_at from users;\n1|2024-01-01")).toEqual([]);
    expect(found("sqlite> select word, token from vocab;\n1|hello")).toEqual([]);
    expect(found("sqlite> select * from users;\n1|admin|Spring2025?")).toEqual([]);
  });

  it("takes the cell under a credential's column of a table aligned by blanks, left- or right-aligned", () => {
    expect(
      foundAligned(
        "name       user          pass              host\nbilling    billing_svc   B1ll-svc-Pass     db1.internal\nreports    reports_ro    r3ports-RO!       db2.internal",
      ),
    ).toEqual(["B1ll-svc-Pass", "r3ports-RO!"]);
    // pandas: an index column the header lacks, cells right-aligned under their names.
    expect(
      foundAligned(
        "   id   service    username           password           updated_at\n0   1     vpn      jsmith     Autumn-Leaves-12  2024-03-01 10:00:00\n1   2    wifi       guest     CoffeeShop2024  2024-04-11 08:30:00",
      ),
    ).toEqual(["Autumn-Leaves-12", "CoffeeShop2024"]);
    // sqlite3 -column: the dashes give each column its width; a wide cell before reaches over.
    expect(
      foundAligned(
        "id  name        api_key           secret\n--  ----------  ----------------  ----------------\n2   zendesk     mDiOQXA8OgGOKHfECq5LRvPDm0  Zend3sk-Legacy\n3   hubspot     none              none",
      ),
    ).toEqual(["mDiOQXA8OgGOKHfECq5LRvPDm0", "Zend3sk-Legacy"]);
  });

  it("leaves tables aligned by blanks whose columns name no credential, and cells of several words", () => {
    expect(
      foundAligned("NAME      READY   STATUS    RESTARTS   AGE\nweb-1     1/1     Running   0          3d"),
    ).toEqual([]);
    expect(foundAligned("user      password      note\nalice     not set yet   first admin")).toEqual([]);
    expect(foundAligned("user   password\n$ ls\nalice  S3cr3t-Pw9")).toEqual([]);
    // Pairs aligned by blanks: a row whose value names a credential is no header of the rows after it.
    expect(
      foundAligned(
        "accessor            7rTqY2pLm9XzWb4nKc1vD8sF\ndisplay_name        userpass-dev\nentity_id           5516fd47-b165-4d63-9696-7da4322309ff",
      ),
    ).toEqual([]);
  });
});
