import { describe, expect, it } from "vitest";
import { inspect } from "#shared/formats/index.js";
import { readSessionView } from "#shared/view/index.js";
import { chunksOf, everyFormat, layerCCopy } from "../../support/sessions.js";

const FILES = everyFormat();

async function viewOf(bytes: Uint8Array, file: string) {
  return (await readSessionView(chunksOf(bytes), { file, parallel: { workers: 0 } })).view;
}

describe("readSessionView", () => {
  it.each(Object.keys(FILES))("gives %s a timeline that agrees with inspect", async (name) => {
    const bytes = FILES[name] as Buffer;
    const view = await viewOf(bytes, name);
    const { report } = await inspect(chunksOf(bytes), { file: name });
    expect(view.format).toBe(report.format);
    expect(view.format).not.toBeNull();
    expect(view.verdict).toBe(report.verdict);
    expect(view.replay_hash).toBe(report.replay_hash);
    expect(view.steps.map((s) => s.n)).toEqual(view.steps.map((_, i) => i + 1));
    // Every listed row is either a step's or the file's: none is lost.
    const claimed = view.steps.flatMap((s) => s.hashes.filter((h) => h.status !== null)).length;
    expect(claimed + view.checks.length).toBeGreaterThanOrEqual(report.checks.length);
    const c = report.summary?.counts;
    if (c === undefined) throw new Error(`${name}: no summary`);
    if (view.format === "replaykit-rpk") expect(view.steps).toHaveLength(c.events);
    else if (view.format === "braintrust-spans") expect(view.steps).toHaveLength(c.tool_calls + c.turns);
    else
      expect(view.steps.length).toBe(c.tool_calls > 0 ? c.tool_calls : (c.steps_by_type.RuntimeEvent ?? 0));
  });

  it.each(Object.keys(FILES))("views the Layer C copy of %s with its redaction record", async (name) => {
    const copy = await layerCCopy(FILES[name] as Buffer, name);
    const original = await viewOf(FILES[name] as Buffer, name);
    const view = await viewOf(copy, `${name}.layer-c`);
    expect(view.original?.replay_hash).toBe(original.replay_hash);
    expect(view.redaction).not.toBeNull();
    expect(view.steps).toHaveLength(original.steps.length);
    expect(view.steps.map((s) => s.name)).toEqual(original.steps.map((s) => s.name));
    // Something of each copy's steps is marked as removed or masked, by a named rule.
    const markers = view.steps.flatMap((s) => s.markers);
    if (view.steps.some((s) => s.kind !== "turn")) expect(markers.length).toBeGreaterThan(0);
    for (const m of markers) expect(m.rule).not.toBe("");
  });

  it("gives the tampered step its recorded and recomputed params hash", async () => {
    const view = await viewOf(FILES["examples/tampered.REPLAY.jsonl"] as Buffer, "tampered");
    const step = view.steps.find((s) => s.id === "tc_001");
    const params = step?.hashes.find((h) => h.field === "params");
    expect(params?.status).toBe("failed");
    expect(params?.recorded).not.toBe(params?.actual);
    expect(params?.actual).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("keeps the original's failed row in a Layer C copy, on the same step", async () => {
    const bytes = FILES["examples/tampered.REPLAY.jsonl"] as Buffer;
    const view = await viewOf(await layerCCopy(bytes, "tampered"), "tampered.layer-c");
    expect(view.original?.verdict).toBe("failed");
    const params = view.steps.find((s) => s.id === "tc_001")?.hashes.find((h) => h.field === "params");
    expect(params?.status).toBe("failed");
    expect(view.original?.failed_checks?.[0]?.subject).toContain("tc_001");
  });

  it("shows span trace turns with their text and ReplayKit steps with their step hash", async () => {
    const trace = await viewOf(FILES["examples/support-chat.trace.jsonl"] as Buffer, "trace");
    expect(trace.steps.map((s) => `${s.kind} ${s.name}`)).toEqual([
      "turn turn",
      "tool run_tests",
      "turn turn",
    ]);
    expect(trace.steps[0]?.text).toMatch(/^#1 Why does the login test fail\? → /);
    expect(trace.steps[2]?.text).toMatch(/^#2 /);
    const rpk = await viewOf(FILES["examples/summarize.rpk"] as Buffer, "rpk");
    expect(rpk.steps.map((s) => s.hashes[0]?.status)).toEqual(["passed", "passed"]);
    expect(rpk.checks.map((r) => r.check)).toContain("checksum");
  });
});
