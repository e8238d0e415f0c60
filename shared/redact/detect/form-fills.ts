/**
 * A password typed into a form by a browser test: the field is named by its locator, the password
 * by the text typed into it (Playwright's `page.getByLabel('Password').fill('p')`, Cypress's
 * `cy.get('#password').type('p{enter}')`, Selenium's `find_element(By.ID, "pwd").send_keys("p")`,
 * WebdriverIO's `$('#pass').setValue('p')`, Capybara's `fill_in 'Password', with: 'p'`). Agents
 * write and run such tests; their traces hold the test account's password.
 */
import { isStandIn } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";

/**
 * A locator call's arguments (the innermost, and a wrapper's `)` after them:
 * `findElement(By.id("p"))`), optional steps on its element (`.first()`, `.nth(0)`, `.clear()`,
 * Cypress' `.should('be.visible')`), then the typing call and its literal (group 2, 3 or 4).
 */
const TYPED_INTO =
  /\(([^()\r\n]{1,160})\)(?:[ \t]*\))?[ \t]*(?:\.[ \t]*(?:first|last|clear|click|focus)\(\)[ \t]*|\.[ \t]*nth\(\d{1,3}\)[ \t]*|\.[ \t]*should\([^()\r\n]{0,60}\)[ \t]*)*\.[ \t]*(?:fill|type|send_keys|sendKeys|setValue|set_value|pressSequentially|addValue)[ \t]*\([ \t]*(?:"((?:[^"\\\r\n]|\\.){1,256})"|'((?:[^'\\\r\n]|\\.){1,256})'|`((?:[^`\\\r\n$]|\\.){1,256})`)/dg;
/**
 * The selector, then the text, in one call (Puppeteer's `page.type('#password', 'p')`): the
 * selector in group 1, the text in group 2, 3 or 4.
 */
const SELECTOR_FIRST =
  /\.(?:type|fill)\([ \t]*("[^"\r\n]{1,120}"|'[^'\r\n]{1,120}'|`[^`\r\n]{1,120}`)[ \t]*,[ \t]*(?:"((?:[^"\\\r\n]|\\.){1,256})"|'((?:[^'\\\r\n]|\\.){1,256})'|`((?:[^`\\\r\n$]|\\.){1,256})`)/dg;
/**
 * Testing Library's `userEvent.type(getByLabelText(/password/i), 'p')` and `fireEvent.change(…,
 * { target: { value: 'p' } })`: the query's arguments in group 1.
 */
const TESTING_LIBRARY =
  /\b(?:userEvent|user|fireEvent)\.(?:type|paste|change|input)\([ \t]*(?:[\w$]+\.)*\w+\(([^()\r\n]{1,120})\)[ \t]*,[ \t]*(?:\{[ \t]*target:[ \t]*\{[ \t]*value:[ \t]*)?(?:"((?:[^"\\\r\n]|\\.){1,256})"|'((?:[^'\\\r\n]|\\.){1,256})'|`((?:[^`\\\r\n$]|\\.){1,256})`)/dg;
/** Capybara's `fill_in "label", with: "p"` (or `:password`, `:with =>`): the label in group 1. */
const FILL_IN =
  /\bfill_in[ \t(]+(["'][^"'\r\n]{1,80}["']|:\w+)[ \t]*,[ \t]*(?:with:|:with[ \t]*=>)[ \t]*(?:"((?:[^"\\\r\n]|\\.){1,256})"|'((?:[^'\\\r\n]|\\.){1,256})')/dg;

/** A locator or a label naming a field that takes a secret (`#password`, `[name=pwd]`, `Passcode`, `API key`). */
const SECRET_FIELD =
  /passw|passphrase|passcode|pwd|(?<![a-z])(?:pass|pin|otp|secret|token|api[-_ ]?key)(?![a-z])/i;
/**
 * Words of a field about a secret that takes none (`Password hint`, `secretQuestion`, `Token
 * name`, `Search tokens`, `#pass-through-mode`); a locator's own `name:`/`name=` aside.
 */
const NOT_SECRET_FIELD =
  /hint|question|name|description|search|policy|strength|reset|forgot|mode|through|title|toggle|visib|count|length|expir/i;

/** Does the locator's argument text (a quoted string in it) name a field that takes a secret? */
function namesSecretField(args: string): boolean {
  // A string, a regular expression or a symbol names a field; a variable may hold anything.
  if (!/["'`/]|^:/.test(args)) return false;
  const label = args.replace(/\bname\s*[:=]/gi, "");
  return SECRET_FIELD.test(label) && !NOT_SECRET_FIELD.test(label);
}
/** A key Cypress types after the text (`p{enter}`): not part of the password. */
const TRAILING_KEY = /\{[a-zA-Z]+\}$/;

/** Literals one of which a text holding a typed password holds (the typing calls' names). */
export const FORM_FILL_NEEDLES: readonly string[] = [
  "fill(",
  "type(",
  "send_keys",
  "sendKeys",
  "setValue",
  "set_value",
  "pressSequentially",
  "addValue",
  "fill_in",
];

/** Appends the passwords typed into secret fields by browser tests in `text`. */
export function scanFormFills(text: string, out: Detection[], rule: string): void {
  for (const re of [TYPED_INTO, SELECTOR_FIRST, TESTING_LIBRARY, FILL_IN]) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (!namesSecretField(m[1] ?? "")) continue;
      const range = m.indices?.[2] ?? m.indices?.[3] ?? m.indices?.[4];
      if (range === undefined) continue;
      const [start, full] = range;
      const value = text.slice(start, full);
      const end = full - (TRAILING_KEY.exec(value)?.[0].length ?? 0);
      if (end - start < 3 || isStandIn(text.slice(start, end))) continue;
      out.push({ start, end, rule, kind: "secret" });
    }
  }
}
