/**
 * The audit page in headless Chromium (Debian's package, /usr/bin/chromium; .ci/run installs it):
 * the charts render with marks, nothing errs or reaches the network, and the page fits a phone
 * (390 px) and a desktop (1280 px). Screenshots land in .local/artifacts/ for a person to look at.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuditReport, renderAuditHtml } from "../../shared/report/index.js";
import { seededInput } from "../support/audit-records.js";
import { launchChromium } from "../support/chromium.js";

const ARTIFACTS = resolve(".local/artifacts");
const PAGE = resolve(ARTIFACTS, "audit.html");

describe("audit HTML in Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(PAGE, renderAuditHtml(buildAuditReport(seededInput())));
    // A missing Chromium fails here: the page must be seen, not skipped.
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [390, 1280]) {
    it(`renders three charts with marks and fits ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("request", (request) => {
        if (!request.url().startsWith("file:")) problems.push(`request ${request.url()}`);
      });
      await page.goto(pathToFileURL(PAGE).href);
      // The tests compile without the DOM library: page code goes as text, results are checked here.
      const charts = page.locator("figure.chart svg[class^='plot-']:visible");
      expect(await charts.count()).toBe(3);
      for (const chart of await charts.all()) {
        expect(
          await chart.locator("g[aria-label='rect'] rect, g[aria-label='bar'] rect").count(),
        ).toBeGreaterThan(0);
        expect((await chart.boundingBox())?.width).toBeLessThanOrEqual(width);
      }
      expect(
        await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth"),
      ).toBeLessThanOrEqual(0);
      // Every failed row's link lands on its session.
      const links = await page.evaluate<string[]>(
        `[...document.querySelectorAll("a[href^='#']")].map((a) => a.getAttribute("href"))`,
      );
      expect(links.length).toBeGreaterThan(0);
      for (const href of links) expect(await page.locator(href).count()).toBe(1);
      await page.screenshot({ path: resolve(ARTIFACTS, `audit-${width}.png`), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
