/**
 * Passwords browser tests type into fields their locators name (`detect/form-fills.ts`): each
 * framework's locator and typing call, steps on the element between them, a key typed after the
 * text; and what stays: fields that take no secret, values that are code, nothing typed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanFormFills } from "#shared/redact/detect/form-fills.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanFormFills, "credential-argument");

describe("form fills", () => {
  it.each([
    ["await page.getByLabel('Password').fill('Kq7wz3Lr9!');", "Kq7wz3Lr9!"],
    ["await page.getByRole('textbox', { name: 'Password' }).fill('Kq7wz3Lr9!');", "Kq7wz3Lr9!"],
    ['await page.locator(\'input[type="password"]\').first().fill("Kq7wz3Lr9!")', "Kq7wz3Lr9!"],
    ["cy.get('input[name=password]').type('Kq7wz3Lr9!')", "Kq7wz3Lr9!"],
    ["cy.get('#password').clear().type('Kq7wz3Lr9!{enter}')", "Kq7wz3Lr9!"],
    ['driver.find_element(By.ID, "password").send_keys("Kq7wz3Lr9!")', "Kq7wz3Lr9!"],
    ["browser.find_element_by_name('pwd').send_keys('Kq7wz3Lr9!')", "Kq7wz3Lr9!"],
    ['driver.findElement(By.cssSelector("#passcode")).sendKeys("Kq7wz3Lr9!");', "Kq7wz3Lr9!"],
    ["await $('#pass').setValue('Kq7wz3Lr9!')", "Kq7wz3Lr9!"],
    ["await page.getByPlaceholder('API key').nth(0).fill(`Kq7wz3Lr9!`)", "Kq7wz3Lr9!"],
    ["fill_in 'Password', with: 'Kq7wz3Lr9!'", "Kq7wz3Lr9!"],
    ['fill_in("user_password", with: "Kq7wz3Lr9!")', "Kq7wz3Lr9!"],
  ])("%s", (text, secret) => {
    expect(found(text)).toEqual([secret]);
  });

  it("varied: any secret field's locator, any typing call, any password", () => {
    const field = fc.constantFrom(
      "#password",
      "Password",
      "input[name=pwd]",
      "[data-test=passphrase]",
      "PIN",
      "token",
    );
    const call = fc.constantFrom(
      (f: string, p: string) => `await page.getByLabel('${f}').fill('${p}')`,
      (f: string, p: string) => `cy.get('${f}').type('${p}')`,
      (f: string, p: string) => `driver.find_element(By.CSS_SELECTOR, "${f}").send_keys("${p}")`,
      (f: string, p: string) => `fill_in '${f}', with: '${p}'`,
    );
    const password = fc.stringMatching(/^[A-Za-z0-9!#%&*+=?@^_~-]{6,24}$/);
    fc.assert(
      fc.property(field, call, password, (f, c, p) => {
        expect(found(c(f, p))).toEqual([p]);
      }),
    );
  });

  it("leaves fields that take no secret, values that are code, and nothing typed", () => {
    for (const text of [
      "await page.getByLabel('Username').fill('bob')",
      "cy.get('#search').type('password reset')",
      "await page.fill('#compass', 'north')",
      'driver.find_element(By.NAME, "passenger").send_keys("Bob Smith")',
      "cy.get('#password').type(Cypress.env('PASSWORD'))",
      "cy.get('#password').type('{enter}')",
      "await page.getByLabel('Password').fill(process.env.PW!)",
      "await page.getByLabel('Password').fill('')",
      "fill_in 'Password', with: ENV['PW']",
      "await page.getByLabel('Password').fill('$PW')",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is code holding a template
      "element(by.css('[data-test=password]')).sendKeys(`${pw}`)",
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });
});
