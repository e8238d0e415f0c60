/** A viewer page's timeline run in a linkedom document, for the tests that drive its script. */
import { parseHTML } from "linkedom";

/** The page's inline script run (timers immediate), with `key` sending a `keydown` to it. */
export function runViewerPage(page: string) {
  const { document, window } = parseHTML(page);
  const script = [...document.querySelectorAll("script")].find((s) => s.getAttribute("type") === null);
  new Function("document", "setTimeout", "clearTimeout", script?.textContent ?? "")(
    document,
    (f: () => void) => f(),
    () => undefined,
  );
  const key = (k: string): void => {
    const event = new window.Event("keydown");
    Object.assign(event, { key: k });
    document.dispatchEvent(event);
  };
  const rows = () => [...document.querySelectorAll("#steps tbody tr")];
  return { document, window, key, rows };
}
