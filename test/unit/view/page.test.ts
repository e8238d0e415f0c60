import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import type { SessionView, ViewStep } from "#shared/view/index.js";
import { readSessionView, viewerPage } from "#shared/view/index.js";
import { chunksOf, everyFormat } from "../../support/sessions.js";
import { runViewerPage } from "../../support/viewer-page.js";

const HOSTILE = '</script><script>alert(1)</script><img src=x onerror="alert(2)">';

function view(steps: ViewStep[], over: Partial<SessionView> = {}): SessionView {
  return {
    file: "session.REPLAY.jsonl",
    format: "replay-dsrs",
    verdict: "passed",
    replay_hash: `sha256:${"a".repeat(64)}`,
    trajectory_hash: null,
    bytes: 1,
    session_id: "s",
    producer: null,
    checks: [],
    checks_total: { passed: 0, failed: 0, unverifiable: 0 },
    errors: [],
    errors_total: 0,
    original: null,
    redaction: null,
    receipt: null,
    steps,
    ...over,
  };
}

function step(n: number, name = `tool${n % 7}`, failed = false): ViewStep {
  const hash = `sha256:${n.toString(16).padStart(64, "0")}`;
  return {
    n,
    kind: "tool",
    id: `call-${n}`,
    name,
    line: n + 2,
    status: n % 11 === 0 ? "error" : "ok",
    duration_ms: n % 100,
    hashes: [
      {
        field: "params",
        recorded: hash,
        actual: failed ? `sha256:${"f".repeat(64)}` : hash,
        status: failed ? "failed" : "passed",
      },
    ],
    markers: [],
    text: null,
    call: null,
    receipt: [],
  };
}

/** `src`/`href` attributes and script calls that would make a request. */
function externalRequests(page: string): string[] {
  const found = [...page.matchAll(/\b(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?\/\//gi)].map((m) => m[0]);
  for (const call of ["fetch(", "XMLHttpRequest", "WebSocket", "sendBeacon", "import(", "EventSource"])
    if (page.includes(call)) found.push(call);
  return found;
}

describe("viewerPage", () => {
  it.each(Object.entries(everyFormat()))("is self-contained for %s", async (name, bytes) => {
    const { view: v } = await readSessionView(chunksOf(bytes), { file: name, parallel: { workers: 0 } });
    const page = viewerPage(v);
    expect(externalRequests(page)).toEqual([]);
    expect(page).toContain(`content="default-src 'none'`);
    expect(page.match(/<script\b/g)).toHaveLength(2);
  });

  it("escapes a hostile tool name, id, text and file name: no markup of theirs is executable", () => {
    const s = { ...step(1, HOSTILE), id: HOSTILE, text: HOSTILE };
    const page = viewerPage(
      view([s], {
        file: HOSTILE,
        session_id: HOSTILE,
        checks: [{ check: HOSTILE, subject: HOSTILE, expected: HOSTILE, actual: null, status: "failed" }],
      }),
    );
    expect(page.match(/<script\b/gi)).toHaveLength(2);
    expect(page.match(/<\/script/gi)).toHaveLength(2);
    expect(page).not.toMatch(/<img/i);
    const { document, key, rows } = runViewerPage(page);
    expect(document.querySelectorAll("img")).toHaveLength(0);
    expect(document.querySelectorAll("script")).toHaveLength(2);
    // The name reaches the reader as text, unchanged.
    expect(rows()[0]?.textContent).toContain(HOSTILE);
    key("Enter");
    expect(document.querySelector("#detail")?.textContent).toContain(HOSTILE);
    expect(document.querySelectorAll("img")).toHaveLength(0);
  });

  it("keeps a 100,000-step session to one page of rows, and pages, filters and moves by key", () => {
    const steps = Array.from({ length: 100_000 }, (_, i) => step(i + 1, undefined, i === 76_543));
    const started = performance.now();
    const page = viewerPage(view(steps));
    expect(performance.now() - started).toBeLessThan(10_000);
    const { document, key, rows } = runViewerPage(page);
    expect(rows()).toHaveLength(200);
    expect(document.querySelector("#count")?.textContent).toBe("(100000 of 100000 steps)");
    key("j");
    key("j");
    expect(document.querySelector("tr.sel")?.getAttribute("data-k")).toBe("2");
    key("k");
    expect(document.querySelector("tr.sel")?.getAttribute("data-k")).toBe("1");
    key("Enter");
    // Step 2's recomputed hash equals its recorded one, so the page writes it once: both are shown.
    const hash = `sha256:${(2).toString(16).padStart(64, "0")}`;
    expect(document.querySelector("#detail")?.textContent?.split(hash)).toHaveLength(3);
    key("n");
    expect(rows()[0]?.querySelector("td")?.textContent).toBe("201");
    expect(document.querySelector("#page")?.textContent).toBe("page 2 of 500");
    const failed = document.querySelector("#failed") as unknown as {
      checked: boolean;
      dispatchEvent(e: Event): void;
    };
    failed.checked = true;
    const { window } = parseHTML("");
    failed.dispatchEvent(new window.Event("change"));
    expect(rows()).toHaveLength(1);
    expect(rows()[0]?.textContent).toContain("call-76544");
  });
});
