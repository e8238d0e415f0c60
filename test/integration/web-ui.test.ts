/**
 * The local web UI in headless Chromium over a real local stack holding the examples: from the
 * sessions list to a session to a viewer page, a filter, a diff naming the tampered step, the
 * audits list, paging through more sessions than a page holds, nothing erring, and screenshots at
 * a phone's and a desktop's width.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../cli/local/stack.js";
import { stackSource, startWebUi, type WebUi } from "../../cli/local/web-ui.js";
import { launchChromium } from "../support/chromium.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { tempDir } from "../support/temp.js";

const FIX = "examples/fix-auth/fix-auth.REPLAY.jsonl";
const TAMPERED = "examples/tampered/tampered.REPLAY.jsonl";
const SHOTS = tempDir("web-ui-shots-");
/** Sessions of tenant `paging`, one replay each: more than the pages of 3 the paging test asks for. */
const PAGED = 8;

describe("local web UI in Chromium", () => {
  let stack: LocalStack;
  let ui: WebUi;
  let browser: Browser;

  beforeAll(async () => {
    stack = await LocalStack.start({
      root: tempDir("web-ui-stack-"),
      memory: true,
      s3Port: 0,
      dynamoPort: 0,
    });
    const dir = join(PROJECT_ROOT, "examples");
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      await stack.s3.send(
        new PutObjectCommand({
          Bucket: stack.info.ingestBucket,
          Key: `examples/${entry.name.split(".")[0]}/${entry.name}`,
          Body: await readFile(join(dir, entry.name)),
        }),
      );
    }
    const replay = await readFile(join(dir, "fix-auth.REPLAY.jsonl"));
    for (let n = 0; n < PAGED; n++)
      await stack.s3.send(
        new PutObjectCommand({
          Bucket: stack.info.ingestBucket,
          Key: `paging/p-${n}/fix-auth.REPLAY.jsonl`,
          Body: replay,
        }),
      );
    await stack.settled();
    ui = await startWebUi(stackSource(stack.s3, stack.index, stack.info), { port: 0 });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await stack?.close();
  });

  /** How far `page` is wider than its viewport (0 or less: it fits). */
  const overflow = (page: Page) =>
    page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");

  /** A page that records console errors, page errors and requests leaving the UI. */
  async function opened(width: number, problems: string[]): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith(ui.url)) problems.push(`request ${r.url()}`);
    });
    return page;
  }

  for (const width of [390, 1280]) {
    it(`navigates sessions → session → viewer, filters and diffs at ${width} px`, async () => {
      const problems: string[] = [];
      const page = await opened(width, problems);
      await page.goto(ui.url);
      await expect.poll(() => page.locator("#sessions tbody tr").count()).toBeGreaterThanOrEqual(5);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `sessions-${width}.png`), fullPage: true });

      // The verdict filter keeps the failed session only.
      await page.getByRole("link", { name: "failed", exact: true }).click();
      expect(new URL(page.url()).searchParams.get("verdict")).toBe("failed");
      const failed = await page.locator("#sessions tbody tr td:first-child").allTextContents();
      expect(failed).toContain("examples/tampered");
      expect(failed).not.toContain("examples/fix-auth");

      // Sessions list → session page → the viewer of its published copy.
      await page.getByRole("link", { name: "every verdict" }).click();
      await page.getByRole("link", { name: "examples/fix-auth", exact: true }).click();
      expect(page.url()).toBe(`${ui.url}s/examples/fix-auth`);
      expect(await page.locator("#files").textContent()).toContain("fix-auth.REPLAY.jsonl");
      expect(await page.locator("#checks").textContent()).toContain("fix-auth.RECEIPT.json");
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.getByRole("link", { name: "view copy" }).click();
      expect(page.url()).toBe(`${ui.url}v/${FIX}`);
      expect(await page.locator("#source").textContent()).toContain("published Layer C copy");
      await expect.poll(() => page.locator("#steps tbody tr").count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(SHOTS, `viewer-${width}.png`), fullPage: true });

      // The diff of the replay and its tampered twin names the tampered step.
      await page.goto(`${ui.url}d?a=${encodeURIComponent(FIX)}&b=${encodeURIComponent(TAMPERED)}`);
      const changed = page.locator("tr.changed");
      expect(await changed.count()).toBeGreaterThan(0);
      const first = await changed.first().textContent();
      expect(first).toContain("file_read");
      expect(first).toContain("params");
      expect(await page.locator("#source").textContent()).toContain(
        "which has no published copy (verdict failed)",
      );
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `diff-${width}.png`), fullPage: true });

      await page.goto(`${ui.url}audits`);
      expect(await page.locator("h1").textContent()).toBe("Audit reports");

      expect(problems).toEqual([]);
      for (const name of [`sessions-${width}.png`, `viewer-${width}.png`, `diff-${width}.png`]) {
        const bytes = await readFile(join(SHOTS, name));
        expect((await stat(join(SHOTS, name))).size).toBeGreaterThan(1000);
        expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      }
      await page.close();
    }, 60_000);
  }

  it("pages through more sessions than a page holds, next and back, each session once", async () => {
    const problems: string[] = [];
    const page = await opened(1280, problems);
    await page.goto(`${ui.url}?tenant=paging&size=3`);
    const rowsOf = () => page.locator("#sessions tbody tr td:first-child").allTextContents();
    const pages: string[][] = [];
    for (;;) {
      const rows = await rowsOf();
      expect(rows.length).toBeLessThanOrEqual(3);
      pages.push(rows);
      expect(await page.locator("#pager").textContent()).toContain(`page ${pages.length}`);
      const next = page.locator('#pager a[rel="next"]');
      if ((await next.count()) === 0) break;
      await next.click();
      expect(new URL(page.url()).searchParams.get("tenant")).toBe("paging");
      expect(pages.length).toBeLessThan(10);
    }
    const seen = pages.flat();
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(seen.sort()).toEqual(Array.from({ length: PAGED }, (_, n) => `paging/p-${n}`).sort());
    // Back one page: the same sessions as on the way forward.
    await page.locator('#pager a[rel="prev"]').click();
    expect(await rowsOf()).toEqual(pages.at(-2));
    expect(await page.locator("#pager").textContent()).toContain(`page ${pages.length - 1}`);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("answers only GET and HEAD, and refuses keys that do not fit, with a CSP on every page", async () => {
    const post = await fetch(ui.url, { method: "POST" });
    expect(post.status).toBe(404);
    for (const path of [
      "v/examples/..%2F..%2Fetc/passwd",
      "v/examples/fix-auth",
      "s/%2E%2E/x",
      "audits/..%2Fresults",
      "nope",
    ]) {
      const response = await fetch(`${ui.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    }
    const head = await fetch(ui.url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});
