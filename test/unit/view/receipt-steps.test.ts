import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/index.js";
import { Findings, inspect } from "#shared/formats/index.js";
import { generateReceipt, serializeReceipt, verifyReplay } from "#shared/receipt/index.js";
import { attachReceipt, readSessionView, type SessionView, viewerPage } from "#shared/view/index.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { chunksOf } from "../../support/sessions.js";
import { runViewerPage } from "../../support/viewer-page.js";

const REPLAY = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));
/** tc_001's params_hash in the example. */
const PARAMS_HASH = "sha256:2432e75fcdc5b53e0c60fc6d1514682a9eb0c5b5fd4faefba9f8d6fcfef7d5fd";

/** The example's view with the check of its own receipt, tc_001's params_hash changed in it. */
async function checked(): Promise<SessionView> {
  const genuine = await inspect(chunksOf(REPLAY), { file: "fix-auth.REPLAY.jsonl", keepToolCalls: true });
  const text = serializeReceipt(generateReceipt(genuine, {}));
  const edited = text.replace(PARAMS_HASH, `sha256:${"e".repeat(64)}`);
  expect(edited).not.toBe(text);
  const { view, inspected } = await readSessionView(chunksOf(REPLAY), { file: "fix-auth.REPLAY.jsonl" });
  const report = verifyReplay(inspected, readJson(edited), new Findings());
  attachReceipt(view, {
    file: "RECEIPT.json",
    verdict: report.verdict,
    checks: report.checks,
    checks_total: report.checks_total,
  });
  return view;
}

const row = (subject: string, status: "passed" | "failed" = "failed") => ({
  check: "params_hash",
  subject,
  expected: `sha256:${"1".repeat(64)}`,
  actual: `sha256:${"2".repeat(64)}`,
  status,
});

describe("attachReceipt", () => {
  it("puts each tool call's receipt rows on its step, the failed one on the tampered call", async () => {
    const view = await checked();
    const [read, shell] = view.steps;
    expect(read?.id).toBe("tc_001");
    const failed = read?.receipt.filter((r) => r.status === "failed") ?? [];
    expect(failed.map((r) => r.check)).toEqual(["params_hash"]);
    expect(failed[0]?.subject).toContain("replay tc_001");
    expect(shell?.receipt.length).toBeGreaterThan(0);
    expect(shell?.receipt.every((r) => r.status === "passed")).toBe(true);
    // The header keeps every row; verification rows name no step.
    expect(view.receipt?.checks.length).toBeGreaterThan(
      (read?.receipt.length ?? 0) + (shell?.receipt.length ?? 0),
    );
  });

  it("finds a call by its position when it has no id, and a call the receipt does not list", () => {
    const steps = [0, 1, 2].map((k) => ({
      n: k + 1,
      kind: "tool" as const,
      id: k === 2 ? "c" : null,
      name: "t",
      line: 10 + k,
      status: "ok" as const,
      duration_ms: null,
      hashes: [],
      markers: [],
      text: null,
      call: k,
      receipt: [],
    }));
    const view = { steps, receipt: null } as unknown as SessionView;
    attachReceipt(view, {
      file: "R",
      verdict: "failed",
      checks_total: { passed: 0, failed: 4, unverifiable: 0 },
      checks: [
        row("tool call #0 (receipt #0, replay #0 (line 10))"),
        row("tool call x (receipt #1, replay c) (the replay does not carry it)"),
        { ...row("tool call #1 (line 11) (replay #1)"), check: "tool_call" },
        { ...row("tool call y (receipt #3)"), check: "tool_call" },
      ],
    });
    expect(steps.map((s) => s.receipt.map((r: { subject: string }) => r.subject))).toEqual([
      ["tool call #0 (receipt #0, replay #0 (line 10))"],
      ["tool call #1 (line 11) (replay #1)"],
      ["tool call x (receipt #1, replay c) (the replay does not carry it)"],
    ]);
    expect(view.receipt?.checks).toHaveLength(4);
  });
});

describe("the viewer page's receipt rows", () => {
  it("marks the step whose receipt check failed, keeps it under 'failed checks only' and details it", async () => {
    const page = viewerPage(await checked());
    const { document, window, key, rows } = runViewerPage(page);
    expect(rows()[0]?.textContent).toContain("receipt ✗");
    expect(rows()[1]?.textContent).toContain("receipt ✓");
    const failedOnly = document.getElementById("failed") as unknown as {
      checked: boolean;
      dispatchEvent(e: Event): void;
    };
    failedOnly.checked = true;
    failedOnly.dispatchEvent(new window.Event("change"));
    expect(rows().map((r) => r.querySelector("td.id")?.textContent)).toEqual(["tc_001"]);
    key("Enter");
    const detail = document.getElementById("detail")?.querySelector("table.receipt")?.textContent ?? "";
    expect(detail).toContain("params_hash");
    expect(detail).toContain("failed");
    expect(page).toContain("of these rows name a tool call and are shown on its step too");
  });
});
