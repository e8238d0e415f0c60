/**
 * Our own outputs read cleanly by our own commands: replay → receipt → verify, and replay → Layer C
 * copy → inspect and verify against the original's receipt, on every real producer's file and every
 * example, under every preset. Nothing in the result may blame what we wrote ourselves.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/index.js";
import { type Finding, inspect } from "#shared/formats/index.js";
import { generateReceipt, serializeReceipt, verifyReplay } from "#shared/receipt/index.js";
import { corpusBytes, corpusList, exampleReplays, PROJECT_ROOT } from "../support/corpus.js";
import { ALL_PRESETS, redactBytes } from "../unit/redact/layer-c/helpers.js";

const FILES: [string, () => Buffer][] = [
  ...corpusList("openagents", "replays-type-ts").map((n): [string, () => Buffer] => [
    `openagents/${n}`,
    () => corpusBytes("openagents", "replays-type-ts", n),
  ]),
  ["openagents/replaybundle-sample.json", () => corpusBytes("openagents", "replaybundle-sample.json")],
  ...corpusList("dynamo").map((n): [string, () => Buffer] => [`dynamo/${n}`, () => corpusBytes("dynamo", n)]),
  ...corpusList("replaykit", "runs").map((n): [string, () => Buffer] => [
    `replaykit/${n}`,
    () => corpusBytes("replaykit", "runs", n),
  ]),
  ...exampleReplays().map((n): [string, () => Buffer] => [
    `examples/${n}`,
    () => readFileSync(join(PROJECT_ROOT, "examples", n)),
  ]),
];

async function inspectBytes(bytes: Buffer | string, file: string) {
  return inspect(
    (async function* () {
      yield Buffer.from(bytes);
    })(),
    { file, keepToolCalls: true },
  );
}

/** Notices that say a field or member is not understood, or that a receipt breaks its spec. */
const blames = (notices: readonly Finding[]): string[] =>
  notices
    .filter((n) => /unknown|spec_field_missing|missing_data/.test(n.code))
    .map((n) => `${n.code} ${n.path}`);

describe("replay → receipt → verify: nothing blames the receipt we wrote", () => {
  it.each(FILES)("%s", async (name, bytes) => {
    const inspected = await inspectBytes(bytes(), name);
    const receipt = readJson(
      serializeReceipt(generateReceipt(inspected, { createdAt: "2026-03-01T00:00:00Z" })),
    );
    const report = verifyReplay(inspected, receipt);
    expect(report.errors).toEqual([]);
    expect(report.notices.filter((n) => n.code.startsWith("receipt."))).toEqual([]);
    expect(report.checks.filter((c) => c.status === "failed")).toEqual([]);
    expect(report.verdict).not.toBe("failed");
  });
});

describe("replay → Layer C → inspect and verify: the copy is understood and links to its original", () => {
  it.each(FILES)("%s", async (name, bytes) => {
    const original = await inspectBytes(bytes(), name);
    const receipt = readJson(
      serializeReceipt(generateReceipt(original, { createdAt: "2026-03-01T00:00:00Z" })),
    );
    const before = new Set(blames(original.report.notices));
    for (const preset of ALL_PRESETS) {
      const { text, summary } = await redactBytes(bytes(), { preset, file: name, allowUnverified: false });
      expect(summary.original).toMatchObject({
        replay_hash: original.report.replay_hash,
        verdict: original.report.verdict,
        checks_total: original.report.checks_total,
      });
      const copy = await inspectBytes(text, `${name} (${preset} copy)`);
      expect(copy.report.errors, preset).toEqual([]);
      // Whatever the copy is blamed for, the original was blamed for already: none of it is ours.
      expect(
        blames(copy.report.notices).filter((b) => !before.has(b)),
        preset,
      ).toEqual([]);
      expect(copy.report.original?.replay_hash, preset).toBe(original.report.replay_hash);
      expect(["passed", "unverifiable"], preset).toContain(copy.report.verdict);
      const verified = verifyReplay(copy, receipt);
      expect(
        verified.checks.filter((c) => c.status === "failed"),
        preset,
      ).toEqual([]);
      expect(verified.checks.find((c) => c.check === "replay_hash")?.status, preset).toBe("passed");
    }
  });
});
