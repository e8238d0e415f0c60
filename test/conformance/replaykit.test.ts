import { describe, expect, it } from "vitest";
import { isJsonObject, type JsonObject, type JsonValue, readJson } from "#shared/canonical/index.js";
import { VOLATILE_KEYS } from "#shared/canonical/replaykit-rules.js";
import { Findings } from "#shared/formats/index.js";
import { isReplaykitArtifact, replaykitFormat } from "#shared/formats/replaykit/index.js";
import { corpusList, corpusText } from "../support/corpus.js";

/**
 * The reader against artifacts ReplayKit itself wrote (golden0320230-lab/Replay-Kit @b6f2ae0):
 * their hashes are an oracle nobody here computed. Each run must read clean with every row
 * passed, and one changed character must fail exactly the rows that cover it.
 */

function obj(value: JsonValue | undefined): JsonObject {
  if (!isJsonObject(value)) throw new Error("expected an object");
  return value;
}

function arr(value: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(value)) throw new Error("expected an array");
  return value;
}

/** Python accepts lone surrogates, so ReplayKit files may hold them. */
const load = (...parts: string[]): JsonValue =>
  readJson(corpusText(...parts), { rejectLoneSurrogates: false });

function read(value: JsonValue): Findings {
  const findings = new Findings();
  replaykitFormat.read(value, findings, {});
  return findings;
}

const stepsOf = (doc: JsonValue): JsonObject[] => arr(obj(obj(obj(doc).payload).run).steps).map(obj);
const failed = (f: Findings): string[] =>
  f.checks.filter((c) => c.status !== "passed").map((c) => `${c.check} ${c.subject}`);

/**
 * Appends "x" to the first string inside `value` that the step hash covers (not under a volatile
 * key, which hashing drops). Returns false when there is none.
 */
function touchFirstString(value: JsonValue): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      if (typeof item === "string") {
        value[i] = `${item}x`;
        return true;
      }
      if (touchFirstString(item)) return true;
    }
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (VOLATILE_KEYS.has(key.toLowerCase())) continue;
      const item = value[key] as JsonValue;
      if (typeof item === "string") {
        value[key] = `${item}x`;
        return true;
      }
      if (touchFirstString(item)) return true;
    }
  }
  return false;
}

const runs = corpusList("replaykit", "runs").filter((name) => name.endsWith(".rpk"));

describe("ReplayKit corpus runs", () => {
  it("has the six published runs", () => {
    expect(runs).toHaveLength(6);
  });

  it.each(runs)("%s reads without errors or notices, every row passed", (name) => {
    const doc = load("replaykit", "runs", name);
    expect(isReplaykitArtifact(doc)).toBe(true);
    const findings = read(doc);
    expect(findings.errors).toEqual([]);
    expect(findings.notices).toEqual([]);
    const steps = stepsOf(doc);
    expect(findings.checks).toHaveLength(steps.length + 1);
    expect(findings.checks.map((c) => `${c.check} ${c.subject}`)).toEqual([
      ...steps.map((s) => `step_hash step ${s.id as string}`),
      "checksum envelope",
    ]);
    expect(failed(findings)).toEqual([]);
  });

  it.each(runs)("%s normalizes to a session", (name) => {
    const doc = load("replaykit", "runs", name);
    const session = replaykitFormat.read(doc, new Findings(), {});
    const run = obj(obj(obj(doc).payload).run);
    expect(session.summary.session_id).toBe(run.id);
    expect(session.summary.started_at).toBe(run.timestamp);
    expect(session.summary.producer).toMatch(/^replaykit( \S+)?$/);
    expect(session.summary.counts.events).toBe(stepsOf(doc).length);
    expect(session.summary.counts.tool_calls).toBe(
      stepsOf(doc).filter((s) => s.type === "tool.request").length,
    );
    // None of the published runs records an output.final or error.event step.
    expect(session.summary.status).toBe("unknown");
  });

  it.each(runs)(
    "%s: one character more in the first step's input fails that step and the checksum",
    (name) => {
      const doc = load("replaykit", "runs", name);
      const first = stepsOf(doc)[0] as JsonObject;
      expect(touchFirstString(first.input as JsonValue)).toBe(true);
      // The checksum covers the whole payload, steps included, so it fails with the step.
      expect(failed(read(doc))).toEqual([`step_hash step ${first.id as string}`, "checksum envelope"]);
    },
  );

  it.each(runs)("%s: a changed metadata.run_id fails the checksum only", (name) => {
    const doc = load("replaykit", "runs", name);
    const metadata = obj(obj(doc).metadata);
    metadata.run_id = `${metadata.run_id as string}x`;
    expect(failed(read(doc))).toEqual(["checksum envelope"]);
  });

  it("a real run's summary details (passive_live_capture_golden.rpk)", () => {
    const doc = load("replaykit", "runs", "passive_live_capture_golden.rpk");
    const session = replaykitFormat.read(doc, new Findings(), {});
    expect(session.summary).toMatchObject({
      session_id: "run-passive-live-golden-001",
      producer: "replaykit 0.1.0",
      started_at: "2026-02-26T00:00:00.000000Z",
      ended_at: stepsOf(doc).at(-1)?.timestamp,
      counts: { events: 7, tool_calls: 1, failed_tool_calls: 0 },
    });
    // The one tool.request is answered by the tool.response with the same call_id.
    expect(session.tool_calls).toMatchObject([
      { id: "call-live-0002", step_id: "step-live-004", tool: "shell", ok: true },
    ]);
  });
});

describe("ReplayKit fuzz corpus (parser)", () => {
  it("has the two parser cases", () => {
    expect(corpusList("replaykit", "fuzz_corpus", "parser")).toEqual([
      "missing_required_fields.json",
      "non_object.json",
    ]);
  });

  it("missing_required_fields.json: rejected because payload is missing", () => {
    const doc = load("replaykit", "fuzz_corpus", "parser", "missing_required_fields.json");
    expect(isReplaykitArtifact(doc)).toBe(true);
    const findings = read(doc);
    expect(findings.errors).toHaveLength(1);
    expect(findings.errors[0]).toMatchObject({
      path: "$.payload",
      code: "rpk.missing_field",
      found: "nothing (missing)",
    });
    expect(findings.errors[0]?.message).toMatch(/^\$\.payload: .*required field is missing/);
    expect(findings.checks).toEqual([]);
  });

  it("non_object.json: rejected because it is not an object", () => {
    const doc = load("replaykit", "fuzz_corpus", "parser", "non_object.json");
    expect(isReplaykitArtifact(doc)).toBe(false);
    const findings = read(doc);
    expect(findings.errors).toHaveLength(1);
    expect(findings.errors[0]).toMatchObject({ path: "$", code: "rpk.not_object", found: "an array" });
    expect(findings.errors[0]?.message).toMatch(/must be a JSON object, found an array/);
  });
});
