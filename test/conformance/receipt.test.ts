import { describe, expect, it } from "vitest";
import { type JsonObject, readJson } from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { generateReceipt, serializeReceipt, verifyReplay } from "#shared/receipt/index.js";
import { receiptDigest } from "#shared/receipt/read.js";
import { corpusBytes, corpusList } from "../support/corpus.js";

// Every replay the producers published (the same list the inspect conformance test holds passed).
const FILES: string[][] = [
  ...corpusList("openagents", "replays-type-ts").map((n) => ["openagents", "replays-type-ts", n]),
  ["openagents", "replaybundle-sample.json"],
  ...corpusList("dynamo").map((n) => ["dynamo", n]),
  ...corpusList("replaykit", "runs").map((n) => ["replaykit", "runs", n]),
];

async function inspectCorpus(parts: string[]) {
  const bytes = corpusBytes(...parts);
  return inspect(
    (async function* () {
      yield bytes;
    })(),
    { file: parts.join("/"), keepToolCalls: true },
  );
}

/** A different hash of the same form: the last hex digit changed. */
function otherHash(hash: string): string {
  return hash.slice(0, -1) + (hash.endsWith("0") ? "1" : "0");
}

type Edit = { name: string; check: string; apply: (r: Record<string, unknown>) => void; reseal: boolean };

/** Every hash and tool name in a generated receipt, as an edit and the row it must fail. */
function editsOf(receipt: Record<string, unknown>): Edit[] {
  const edits: Edit[] = [];
  for (const key of ["replay_hash", "trajectory_hash", "canonical_json_sha256"]) {
    if (typeof receipt[key] !== "string") continue;
    edits.push({
      name: key,
      check: key,
      apply: (r) => {
        r[key] = otherHash(r[key] as string);
      },
      reseal: key !== "canonical_json_sha256",
    });
  }
  const calls = receipt.tool_calls as Record<string, unknown>[];
  calls.forEach((call, k) => {
    for (const key of ["params_hash", "output_hash", "tool"]) {
      if (typeof call[key] !== "string") continue;
      edits.push({
        name: `tool_calls[${k}].${key}`,
        check: key,
        apply: (r) => {
          const c = (r.tool_calls as Record<string, unknown>[])[k] as Record<string, unknown>;
          c[key] = key === "tool" ? `${c[key] as string}-edited` : otherHash(c[key] as string);
        },
        reseal: true,
      });
    }
  });
  return edits;
}

describe("a generated receipt verifies passed against its corpus replay", () => {
  it.each(FILES.map((parts) => [parts.join("/"), parts] as const))("%s", async (_name, parts) => {
    // Prepare
    const inspected = await inspectCorpus(parts);
    // Passed, or unverifiable where the format carries no hash (span traces, ReplayBundles).
    expect(["passed", "unverifiable"]).toContain(inspected.report.verdict);
    expect(inspected.report.checks_total.unverifiable).toBe(0);
    // Act
    const text = serializeReceipt(generateReceipt(inspected, { createdAt: "2026-03-01T00:00:00Z" }));
    const report = verifyReplay(inspected, readJson(text));
    // Assess
    expect(report.errors).toEqual([]);
    expect(report.checks.filter((c) => c.status !== "passed")).toEqual([]);
    expect(report.verdict).toBe("passed");
    expect(report.checks.map((c) => c.check)).toEqual(
      expect.arrayContaining(["canonical_json_sha256", "replay_hash", "session_id"]),
    );
    expect(report.checks.filter((c) => c.check === "tool_call")).toEqual([]);
  });
});

describe("editing any hash or tool name in the receipt fails the row that names it", () => {
  it.each(FILES.map((parts) => [parts.join("/"), parts] as const))("%s", async (_name, parts) => {
    // Prepare
    const inspected = await inspectCorpus(parts);
    const original = JSON.parse(serializeReceipt(generateReceipt(inspected))) as Record<string, unknown>;
    const edits = editsOf(original);
    expect(edits.length).toBeGreaterThanOrEqual(2);
    for (const edit of edits) {
      const receipt = structuredClone(original);
      edit.apply(receipt);
      const value = readJson(JSON.stringify(receipt)) as JsonObject;
      if (edit.reseal) value.canonical_json_sha256 = receiptDigest(value);
      // Act
      const report = verifyReplay(inspected, value);
      // Assess
      const failed = report.checks.filter((c) => c.status === "failed");
      expect(report.verdict, edit.name).toBe("failed");
      expect(failed.length, edit.name).toBeGreaterThan(0);
      for (const row of failed) expect(row.check, edit.name).toBe(edit.check);
    }
  });
});
