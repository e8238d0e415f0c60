/**
 * The view a reader sees (`shared/redact/plain-view.ts`): what it leaves out and decodes, where
 * each of its characters comes from, and the secrets the scrubber finds through it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrubber } from "#shared/redact/index.js";
import { hasNoise, plainView } from "#shared/redact/plain-view.js";

const scrub = (text: string): string =>
  new Scrubber({ preset: "private_repo" }).scrub(text, "$.error.message");
const ESC = "\u001b";

describe("plainView", () => {
  it("leaves out escapes, overstrike and invisible characters, and reads look-alikes as ASCII", () => {
    expect(plainView(`${ESC}[1;32mKEY${ESC}[0m=v`).text).toBe("KEY=v");
    expect(plainView(`${ESC}]8;;https://x.dev${ESC}\\link${ESC}]8;;${ESC}\\`).text).toBe("link");
    expect(plainView("P\bPA\bAS\bSS\bS _\bx").text).toBe("PASS x");
    expect(plainView("pass\u200bword\u00ad=\ufeffv").text).toBe("password=v");
    expect(plainView("KEY\u00a0=\u202fv\u3000w").text).toBe("KEY = v w");
    expect(plainView("ＰＡＳＳ＝ｖ：１").text).toBe("PASS=v:1");
    expect(plainView("│ a ┃ b ║").text).toBe("| a | b |");
    expect(plainView("     1→a: 1\n    12→b → c\\n  3→d").text).toBe("a: 1\nb → c\\nd");
    expect(plainView("Bash(ls)\n  ⎿  x\n  a ⎿ b").text).toBe("Bash(ls)\nx\n  a ⎿ b");
    expect(plainView("&#0034;a&#0034;&colon;b \\/x\\/").text).toBe('"a":b /x/');
    expect(plainView("&quot;a&quot;:&#34;b&#x27;&amp;&lt;&gt;&apos;&nbsp;").text).toBe('"a":"b\'&<>\' ');
    expect(plainView("\\u0022k\\u0022:\\x22v\\x22 \\u00e9").text).toBe('"k":"v" \\u00e9');
  });

  it("maps each character of the view onto the characters it came from", () => {
    const text = `${ESC}[32mK${ESC}[0m&quot;\u00a0x`;
    const v = plainView(text);
    expect(v.text).toBe('K" x');
    expect([...v.starts]).toEqual([5, 10, 16, 17]);
    expect([...v.ends]).toEqual([6, 16, 17, 18]);
  });

  it("is the string itself, place for place, where it holds nothing to change", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 80 }), (s) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what the view changes, taken out
        const text = s.replace(/[\u001b\b&\\]/g, "");
        const v = plainView(text);
        expect(v.text).toBe(text);
        expect([...v.starts]).toEqual([...text].map((_, i) => i));
      }),
    );
  });

  it("drops only what it inserted: noise around a string's characters gives the string back", () => {
    const noise = fc.constantFrom(
      `${ESC}[0m`,
      `${ESC}[38;5;208m`,
      "\u200b",
      "\u00ad",
      "\ufeff",
      `${ESC}]0;t\u0007`,
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(..."abcXYZ09=:_-"), noise), { maxLength: 40 }),
        (parts) => {
          const text = parts.map(([c, n]) => n + c).join("");
          const v = plainView(text);
          expect(v.text).toBe(parts.map(([c]) => c).join(""));
          for (let i = 0; i < v.text.length; i++) expect(text.slice(v.starts[i], v.ends[i])).toBe(v.text[i]);
        },
      ),
    );
  });

  it("is asked for only where the string holds something it changes; CJK prose's punctuation is not", () => {
    expect(hasNoise("plain ascii text = 1")).toBe(false);
    expect(hasNoise("密码：不要告诉别人，好吗？")).toBe(false);
    expect(hasNoise("password：x")).toBe(true);
    expect(hasNoise(`${ESC}[0m`)).toBe(true);
    expect(hasNoise("a&amp;b")).toBe(true);
  });
});

describe("secrets found through the view", () => {
  it("finds a value a reader sees after its name, whatever the terminal or the page put between", () => {
    for (const [text, secret] of [
      [`${ESC}[32mDATADOG_API_KEY${ESC}[0m=bluefish-77-Rain`, "bluefish-77-Rain"],
      [
        `{\n  ${ESC}[1;34m"password"${ESC}[0m${ESC}[1;39m:${ESC}[0m ${ESC}[0;32m"Spring2025?"${ESC}[0m\n}`,
        "Spring2025?",
      ],
      [
        `${ESC}[35m.env${ESC}[m${ESC}[36m:${ESC}[m${ESC}[32m3${ESC}[m${ESC}[36m:${ESC}[m${ESC}[01;31mMYSQL_ROOT_PASSWORD${ESC}[m=Spring2025?`,
        "Spring2025?",
      ],
      ["P\bPA\bAS\bSS\bSW\bWO\bOR\bRD\bD: Spring2025?", "Spring2025?"],
      ["POSTGRES_PASSWORD\u00a0=\u00a0bluefish-77-Rain", "bluefish-77-Rain"],
      ["password＝Spring2025?", "Spring2025?"],
      ["Password：Spring2025?", "Spring2025?"],
      ["pass\u200bword=Spring2025?", "Spring2025?"],
      ["&quot;password&quot;: &quot;Spring2025?&quot;", "Spring2025?"],
      ['<div data-config="{&#34;apiKey&#34;:&#34;Spring2025?&#34;}">', "Spring2025?"],
      ["\\u0022password\\u0022:\\u0022Winter#2023\\u0022", "Winter#2023"],
      ['{"pass\\u0077ord": "Winter#2023"}', "Winter#2023"],
      ["│ CLIENT_SECRET        │ Passw0rd!2022 │", "Passw0rd!2022"],
      ["    12→password: bluefalcon42", "bluefalcon42"],
      [
        "Bash(kubectl get secret db -o jsonpath='{.data.password}')\n  ⎿  Ymx1ZWZhbGNvbjQy",
        "Ymx1ZWZhbGNvbjQy",
      ],
      ["password　=　bluefalcon42", "bluefalcon42"],
      ["token┆bluefalcon42x", "bluefalcon42x"],
      ["{&#0034;password&#0034;:&#0034;bluefalcon42&#0034;}", "bluefalcon42"],
      [
        '{"url":"https:\\/\\/n8n.example.com\\/webhook\\/b08c6f6d-5d1a-411d-b08c-f38689f2c655"}',
        "b08c6f6d-5d1a",
      ],
      [
        "     1→| Name | Password |\n     2→|------|----------|\n     3→| bob  | bluefalcon42 |",
        "bluefalcon42",
      ],
    ] as const) {
      const out = scrub(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toContain("[REDACTED:");
    }
  });

  it("keeps what the view shows is no secret, and a coloured line's colours around a kept value", () => {
    for (const kept of [
      `${ESC}[32mPASS${ESC}[0m tests/login.test.ts (12 tests)`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference, escaped for HTML
      "&quot;password&quot;: &quot;${DB_PASSWORD}&quot;",
      "Le mot de passe doit contenir\u00a0: 12 caractères",
      "密码：请输入",
      "│ password      │ string │ none    │",
      "│   ├── secrets.yaml\n│   └── token_test.go",
    ])
      expect(scrub(kept)).toBe(kept);
  });
});
