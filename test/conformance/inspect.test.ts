import { describe, expect, it } from "vitest";
import { VOLATILE_KEYS } from "#shared/canonical/replaykit-rules.js";
import { inspect } from "#shared/formats/index.js";
import { corpusBytes, corpusList } from "../support/corpus.js";

async function inspectBytes(bytes: Buffer, file: string) {
  return (
    await inspect(
      (async function* () {
        yield bytes;
      })(),
      { file },
    )
  ).report;
}

// Every replay-format file the producers published, and the format it must be detected as.
const FILES: [string[], string][] = [
  ...corpusList("openagents", "replays-type-ts").map((n): [string[], string] => [
    ["openagents", "replays-type-ts", n],
    "replay-v1",
  ]),
  [["openagents", "replaybundle-sample.json"], "replay-bundle"],
  ...corpusList("dynamo").map((n): [string[], string] => [["dynamo", n], "braintrust-spans"]),
  ...corpusList("replaykit", "runs").map((n): [string[], string] => [
    ["replaykit", "runs", n],
    "replaykit-rpk",
  ]),
];

describe("every corpus replay inspects as passed, or unverifiable when it carries no hash", () => {
  it.each(FILES.map(([parts, format]) => [parts.join("/"), parts, format] as const))(
    "%s",
    async (name, parts, format) => {
      const report = await inspectBytes(corpusBytes(...parts), name);
      expect(report.errors).toEqual([]);
      expect(report.format).toBe(format);
      const rows = report.checks_total;
      expect(rows.failed + rows.unverifiable).toBe(0);
      // Span traces and ReplayBundles carry no hash: well-formed is not the same as checked.
      const nothing = format === "braintrust-spans" || format === "replay-bundle";
      expect(rows.passed > 0).toBe(!nothing);
      expect(report.verdict).toBe(nothing ? "unverifiable" : "passed");
      expect(report.notices.some((n) => n.code === "verdict.nothing_checked")).toBe(nothing);
      expect(report.summary?.session_id).toBeTruthy();
    },
  );

  it("gives each OpenAgents replay the replay_hash its fixture recorded", async () => {
    const report = await inspectBytes(
      corpusBytes("openagents", "replays-type-ts", "run_happy_path_v1.REPLAY.jsonl"),
      "r",
    );
    expect(report.replay_hash).toBe(
      "sha256:d0f58fa2c0aef7d87ac809d6420852c6fd8f37b8e24fb489b551867323beec69",
    );
  });
});

describe("the ReplayKit fuzz parser inputs are invalid, with the reason", () => {
  it.each(corpusList("replaykit", "fuzz_corpus", "parser"))("%s", async (name) => {
    const report = await inspectBytes(corpusBytes("replaykit", "fuzz_corpus", "parser", name), name);
    expect(report.verdict).toBe("invalid");
    expect(report.errors.length).toBeGreaterThan(0);
    for (const e of report.errors) expect(e.message.length).toBeGreaterThan(10);
  });
});

/** Changes one character inside the first occurrence of `inside` (a hashed value's text). */
function tamper(bytes: Buffer, inside: string): Buffer {
  const text = bytes.toString("utf8");
  const at = text.indexOf(inside);
  if (at < 0) throw new Error(`fixture text ${inside} not found`);
  const k = at + 1;
  const swapped = text[k] === "x" ? "y" : "x";
  return Buffer.from(text.slice(0, k) + swapped + text.slice(k + 1));
}

describe("one changed byte inside a hashed value fails the row that names it", () => {
  it.each(corpusList("openagents", "replays-type-ts"))("%s: a RuntimeEvent payload", async (name) => {
    const bytes = tamper(corpusBytes("openagents", "replays-type-ts", name), '"source":"runtime"');
    const report = await inspectBytes(bytes, name);
    expect(report.verdict).toBe("failed");
    const failed = report.checks.filter((c) => c.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ check: "payload_hash", subject: "line 3 RuntimeEvent 1 payload" });
  });

  it.each(corpusList("replaykit", "runs"))("%s: a step's input and the run id", async (name) => {
    const original = corpusBytes("replaykit", "runs", name);
    const text = original.toString("utf8");
    // A string under a key that is not volatile (volatile keys are outside the step hash).
    const steps = (JSON.parse(text) as { payload: { run: { steps: { input: Record<string, unknown> }[] } } })
      .payload.run.steps;
    const target = steps
      .flatMap((step) => Object.entries(step.input))
      .find(
        ([key, value]) =>
          typeof value === "string" && value.length > 1 && !VOLATILE_KEYS.has(key.toLowerCase()),
      );
    expect(target).toBeDefined();
    const [key, value] = target as [string, string];
    const match = new RegExp(
      `"${key}":\\s*${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
    ).exec(text);
    expect(match).not.toBeNull();
    const stepReport = await inspectBytes(
      tamper(original, (match as RegExpExecArray)[0].slice(key.length + 3).trimStart()),
      name,
    );
    expect(stepReport.verdict).toBe("failed");
    expect(
      stepReport.checks
        .filter((c) => c.status === "failed")
        .map((c) => c.check)
        .sort(),
    ).toEqual(["checksum", "step_hash"]);
    const runId = /"run_id":\s*"([^"]+)"/.exec(text);
    expect(runId).not.toBeNull();
    const report = await inspectBytes(tamper(original, `"${runId?.[1]}"`), name);
    expect(report.verdict).toBe("failed");
    expect(report.checks.filter((c) => c.status === "failed").map((c) => c.check)).toEqual(["checksum"]);
  });
});
