/**
 * `processObject` checks a replay's tool calls against a receipt while it reads the replay (the
 * receipt recorded before it) or reads it again (the receipt after it): the recorded check is the
 * one `verifyReplay` makes over whole lists of calls, past the listing cap too.
 */
import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/index.js";
import { inspect, MAX_ROWS } from "#shared/formats/index.js";
import { memoryPorts } from "#shared/pipeline/memory-ports.js";
import { processObject } from "#shared/pipeline/process-object.js";
import { verifyReplay } from "#shared/receipt/index.js";

const OPTIONS = { toolVersion: "t", parallel: { workers: 0 } };
const H = (c: string) => `sha256:${c.repeat(64)}`;
const CALLS = 3 * MAX_ROWS;

/** A well-formed replay of `CALLS` calls. */
const REPLAY = `${[
  '{"type":"ReplayHeader","replay_version":1,"producer":"t","created_at":"2026-02-01T00:00:00Z"}',
  ...Array.from({ length: CALLS }, (_, k) => [
    `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s${k}","tool":"read","params_hash":"${H("a")}"}`,
    `{"type":"ToolResult","ts":"2026-02-01T00:00:02Z","step_id":"s${k}","ok":true,"output_hash":"${H("b")}","latency_ms":5,"side_effects":["fs_read"]}`,
  ]).flat(),
  '{"type":"SessionEnd","ts":"2026-02-01T00:00:03Z","status":"success","confidence":0.5}',
].join("\n")}\n`;

/** A receipt of three calls (one that the replay lacks, one that differs), and one without a key. */
const RECEIPT = JSON.stringify({
  schema: "openagents.receipt.v1",
  session_id: "x",
  tool_calls: [
    {
      step_id: "s3",
      tool: "read",
      params_hash: H("a"),
      output_hash: H("b"),
      side_effects: ["fs_read"],
      ok: true,
    },
    { step_id: "s2000", tool: "write", params_hash: H("a"), output_hash: H("b"), side_effects: [], ok: true },
    { step_id: "gone", tool: "read", params_hash: null, output_hash: null, side_effects: [] },
    { tool: "read", params_hash: H("a"), output_hash: H("c"), side_effects: ["fs_read"] },
  ],
});

async function expected() {
  const whole = await inspect(
    (async function* () {
      yield Buffer.from(REPLAY);
    })(),
    { file: "t/s/run.REPLAY.jsonl", keepToolCalls: true },
  );
  return verifyReplay(whole, readJson(RECEIPT));
}

describe("processObject receipt checks of a replay with many tool calls", () => {
  it.each([
    ["the receipt before the replay", ["receipt", "replay"]],
    ["the receipt after the replay", ["replay", "receipt"]],
  ])("%s", async (_, order) => {
    const ports = memoryPorts();
    let checks: Awaited<ReturnType<typeof processObject>>["checks"] = [];
    for (const which of order) {
      const source =
        which === "receipt"
          ? ports.objects.put("t/s/RECEIPT.json", RECEIPT)
          : ports.objects.put("t/s/run.REPLAY.jsonl", REPLAY);
      const result = await processObject(source, ports, OPTIONS);
      checks = [...checks, ...result.checks];
    }
    const want = await expected();
    expect(want.checks_total.failed).toBeGreaterThan(MAX_ROWS);
    expect(checks).toHaveLength(1);
    expect(checks[0]?.verdict).toBe(want.verdict);
    expect(checks[0]?.checks_total).toEqual(want.checks_total);
    expect(checks[0]?.failed).toEqual(want.checks.filter((r) => r.status === "failed").slice(0, 100));
  });
});
