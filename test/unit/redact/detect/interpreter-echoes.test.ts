/**
 * A credential an interpreter or a debugger prints back (`detect/interpreter-echoes.ts`): which
 * prompts and expressions read one, which answers count, and what stays. Recall over generated
 * secrets is measured by generic-shapes.test.ts (family `tool`, shape `interpreter`).
 */
import { describe, expect, it } from "vitest";
import { scanInterpreterEchoes } from "#shared/redact/detect/interpreter-echoes.js";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectHidden, expectKept, foundBy } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");
/** The scan alone, with every value judged a secret: what the prompts and answers select. */
const found = foundBy(
  (text, out, rule) => scanInterpreterEchoes(text, out, rule, () => true),
  "printed-secret",
);

describe("interpreter echoes", () => {
  it("takes the answer after a prompt whose expression reads a credential", () => {
    for (const [prompt, answer] of [
      ['>>> os.environ["DB_PASSWORD"]', "'Wint3r#2023x'"],
      ['>>> os.environ.get("DB_PASSWORD")', "'Wint3r#2023x'"],
      ['>>> print(os.getenv("DB_PASSWORD", ""))', "Wint3r#2023x"],
      ["In [3]: cfg.password", "Out[3]: 'Wint3r#2023x'"],
      ["> process.env.DB_PASSWORD", "'Wint3r#2023x'"],
      ['irb(main):001> ENV["DB_PASSWORD"]', '=> "Wint3r#2023x"'],
      ['irb(main):001:0> ENV.fetch("DB_PASSWORD")', '=> "Wint3r#2023x"'],
      ["[2] pry(main)> Rails.application.credentials.secret_key_base", '=> "Wint3r#2023x"'],
      ["(gdb) p cfg->password", '$1 = 0x5555557592a0 "Wint3r#2023x"'],
      ["(gdb) print conn->passwd", '$2 = "Wint3r#2023x"'],
      ["(lldb) po self.apiKey", "Wint3r#2023x"],
      ["(lldb) p config.token", '(std::string) $0 = "Wint3r#2023x"'],
      ["(Pdb) p settings.SECRET_KEY", "'Wint3r#2023x'"],
      ['scala> conf.getString("db.password")', 'res0: String = "Wint3r#2023x"'],
      ['jshell> System.getenv("DB_PASSWORD")', '$1 ==> "Wint3r#2023x"'],
      ["PS C:\\app> $env:DB_PASSWORD", "Wint3r#2023x"],
    ] as const) {
      expect(found(`${prompt}\n${answer}\n`), prompt).toEqual(["Wint3r#2023x"]);
    }
  });

  it("reads a transcript escaped in a JSON string", () => {
    expect(found(">>> settings.API_TOKEN\\n'gho_abc123XYZ'\\n>>> ")).toEqual(["gho_abc123XYZ"]);
  });

  it("leaves expressions that read no credential, and answers that are no value", () => {
    expect(found(">>> os.environ[\"DB_HOST\"]\n'db.internal'")).toEqual([]);
    expect(found(">>> len(api_key)\n40")).toEqual([]);
    expect(found('>>> api_key.startswith("sk-")\nTrue')).toEqual([]);
    expect(found(">>> hashlib.sha256(password.encode()).hexdigest()\n'9f86d081884c7d65'")).toEqual([]);
    expect(found(">>> cfg.password\n'********'")).toEqual([]);
    expect(found("$ cat notes.md\n> the password\nWint3r#2023x")).toEqual([]);
    expect(found(">>> cfg.password\nTraceback (most recent call last):")).toEqual([]);
  });

  it("redacts through the scrubber, which judges the value as an assignment would", () => {
    expectHidden(scrub, [
      [
        ">>> os.environ[\"AWS_SECRET_ACCESS_KEY\"]\n'q8Zr2LmN5pX0vB7cT1wY4kJ6hG9fD3sA'",
        "q8Zr2LmN5pX0vB7cT1wY4kJ6hG9fD3sA",
      ],
      ['(gdb) p cfg->password\n$1 = 0x5555557592a0 "Spring2025?"', "Spring2025?"],
      ["In [7]: client.secret\nOut[7]: 'hunter2x'", "hunter2x"],
    ]);
    expectKept(scrub, [
      ">>> settings.SECRET_KEY_FILE\n'/run/secrets/django_key'",
      "> process.env.API_KEY\nundefined",
      `>>> token\n'\${TOKEN}'`,
      ">>> cfg.password\n'changeme'",
    ]);
  });
});
