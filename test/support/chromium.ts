/**
 * Debian's headless Chromium for the browser tests (browser downloads are not reachable here). A
 * missing Chromium fails the launch: a page must be seen, not skipped.
 */
import { type Browser, chromium } from "playwright-core";

/** Launches `/usr/bin/chromium` headless, with nothing fetched in the background. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}
