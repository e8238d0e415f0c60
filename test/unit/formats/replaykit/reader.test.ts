import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  canonicalize,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { Findings, type FormatOptions } from "#shared/formats/index.js";
import { isReplaykitArtifact, replaykitFormat } from "#shared/formats/replaykit/index.js";

/**
 * Artifacts are built here and hashed with the `replaykit` profile, the rule HASHING-NOTES.md
 * states (step hash over {type,input,output,metadata} with volatile keys stripped; checksum over
 * {version,metadata,payload}); the corpus conformance test checks the same reader against files
 * the producer wrote.
 */

/** A JSON value as `readJson` gives it (numbers as JsonNumber), from a plain literal. */
const j = (value: unknown): JsonValue => readJson(JSON.stringify(value));

function obj(value: JsonValue | undefined): JsonObject {
  if (!isJsonObject(value)) throw new Error("expected an object");
  return value;
}

function arr(value: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(value)) throw new Error("expected an array");
  return value;
}

const runOf = (doc: JsonObject): JsonObject => obj(obj(doc.payload).run);
const stepsOf = (doc: JsonObject): JsonObject[] => arr(runOf(doc).steps).map(obj);

function stepHashOf(step: JsonObject): string {
  const { type, input, output, metadata } = step;
  return canonicalHash(
    { type: type ?? null, input: input ?? null, output: output ?? null, metadata: metadata ?? {} },
    "replaykit",
    { stripVolatile: true },
  );
}

function step(
  id: string,
  type: string,
  input: unknown,
  output: unknown,
  metadata: unknown = {},
  extra = {},
): JsonObject {
  const s = obj(j({ id, type, input, output, metadata, ...extra }));
  s.hash = stepHashOf(s);
  return s;
}

/** Recomputes the envelope checksum after an edit meant to touch only what is under test. */
function reseal(doc: JsonObject): JsonObject {
  const { version, metadata, payload } = doc;
  doc.checksum = canonicalHash(
    { version: version ?? null, metadata: metadata ?? null, payload: payload ?? null },
    "replaykit",
  );
  return doc;
}

function artifact(steps: JsonObject[], version = "1.0"): JsonObject {
  const doc = obj(
    j({
      version,
      metadata: { run_id: "run-1", created_at: "2026-02-21T14:00:00.000000Z" },
      payload: {
        run: {
          id: "run-1",
          timestamp: "2026-02-21T14:00:00.000000Z",
          environment_fingerprint: { os: "linux" },
          runtime_versions: { python: "3.12.1", replaykit: "0.1.0" },
          steps: [],
        },
      },
    }),
  );
  runOf(doc).steps = steps;
  return reseal(doc);
}

function sample(): JsonObject {
  return artifact([
    step(
      "s1",
      "model.request",
      { prompt: "Hello" },
      { status: "sent" },
      { provider: "openai", duration_ms: 4 },
      { timestamp: "2026-02-21T14:00:01.000000Z" },
    ),
    step(
      "s2",
      "tool.request",
      { tool: "search", call_id: "c1", args: ["weather"] },
      { status: "called" },
      { boundary: "tool" },
      { timestamp: "2026-02-21T14:00:02.000000Z" },
    ),
    step(
      "s3",
      "tool.response",
      { call_id: "c1" },
      { result: { answer: "sunny" } },
      { latency_ms: 12 },
      { timestamp: "2026-02-21T14:00:03.000000Z" },
    ),
    step(
      "s4",
      "output.final",
      {},
      { content: "It is sunny" },
      {},
      { timestamp: "2026-02-21T14:00:04.000000Z" },
    ),
  ]);
}

function read(value: JsonValue, options: FormatOptions = {}) {
  const findings = new Findings();
  const session = replaykitFormat.read(value, findings, options);
  return { findings, session };
}

const failedRows = (f: Findings) =>
  f.checks.filter((c) => c.status === "failed").map((c) => `${c.check} ${c.subject}`);

/** Signs as the producer does: HMAC-SHA256 over replaykit-canonical {version, metadata, payload, checksum}. */
function signed(doc: JsonObject, key: string, algorithm = "hmac-sha256"): JsonObject {
  const { version, metadata, payload, checksum } = doc;
  const text = canonicalize(
    {
      version: version ?? null,
      metadata: metadata ?? null,
      payload: payload ?? null,
      checksum: checksum ?? null,
    },
    "replaykit",
  );
  const mac = createHmac("sha256", key).update(text).digest("hex");
  doc.signature = j({ algorithm, key_id: "default", value: `hmac-sha256:${mac}` });
  return doc;
}

const KEY = new TextEncoder().encode("dev-signing-key");

const sigRows = (f: Findings) =>
  f.checks.filter((c) => c.check === "signature").map((c) => [c.status, c.actual]);

describe("replaykitFormat: a valid artifact", () => {
  it("passes with one step_hash row per step and one checksum row", () => {
    const { findings } = read(sample());
    expect(findings.errors).toEqual([]);
    expect(findings.notices).toEqual([]);
    expect(findings.checks.map((c) => [c.check, c.subject, c.status])).toEqual([
      ["step_hash", "step s1", "passed"],
      ["step_hash", "step s2", "passed"],
      ["step_hash", "step s3", "passed"],
      ["step_hash", "step s4", "passed"],
      ["checksum", "envelope", "passed"],
    ]);
  });

  it("normalizes to a session", () => {
    const { session } = read(sample());
    expect(session.summary).toMatchObject({
      session_id: "run-1",
      format: "replaykit-rpk",
      producer: "replaykit 0.1.0",
      started_at: "2026-02-21T14:00:00.000000Z",
      ended_at: "2026-02-21T14:00:04.000000Z",
      status: "success",
      counts: {
        events: 4,
        tool_calls: 1,
        failed_tool_calls: 0,
        turns: 0,
        steps_by_type: { "model.request": 1, "tool.request": 1, "tool.response": 1, "output.final": 1 },
      },
      total_latency_ms: 16,
      verification: [],
    });
    expect(session.tool_calls).toEqual([
      {
        id: "c1",
        step_id: "s2",
        tool: "search",
        params_hash: null,
        output_hash: null,
        latency_ms: 12,
        ok: true,
        side_effects: [],
        line: null,
      },
    ]);
    expect(session.runtime_events).toEqual([]);
  });

  it("takes the session id and start from metadata, and ended_at null, when the run lacks them", () => {
    const doc = artifact([step("s1", "model.request", {}, {})]);
    delete runOf(doc).id;
    delete runOf(doc).timestamp;
    const { session } = read(reseal(doc));
    expect(session.summary.session_id).toBe("run-1");
    expect(session.summary.started_at).toBe("2026-02-21T14:00:00.000000Z");
    expect(session.summary.ended_at).toBeNull();
  });

  it("status: failed with an error.event, unknown without output.final", () => {
    const failed = artifact([
      step("s1", "error.event", { message: "boom" }, null),
      step("s2", "output.final", {}, {}),
    ]);
    expect(read(failed).session.summary.status).toBe("failed");
    const open = artifact([step("s1", "model.request", {}, {})]);
    expect(read(open).session.summary.status).toBe("unknown");
  });

  it("matches tool results by call_id and counts failed ones", () => {
    const doc = artifact([
      step("a", "tool.request", { tool: "shell", call_id: "c1" }, null),
      step("b", "tool.request", { name: "fetch", call_id: "c2" }, null),
      step("c", "tool.response", { call_id: "c2" }, { status_code: 503 }),
      step("d", "tool.response", { call_id: "c1" }, { ok: true }),
      step("e", "tool.request", {}, null, { tool: "grep" }),
      step("f", "tool.response", {}, { error: { message: "no such file" } }),
      step("g", "tool.response", { call_id: "orphan" }, { result: { exit_code: 2 } }),
    ]);
    const { findings, session } = read(doc);
    expect(findings.errors).toEqual([]);
    expect(session.tool_calls.map((c) => [c.id, c.step_id, c.tool, c.ok])).toEqual([
      ["c1", "a", "shell", true],
      ["c2", "b", "fetch", false],
      [null, "e", "grep", false],
    ]);
    expect(session.summary.counts.tool_calls).toBe(3);
    expect(session.summary.counts.failed_tool_calls).toBe(3);
  });

  it("accepts agent.command, which the published schema lists", () => {
    const { findings } = read(artifact([step("s1", "agent.command", { command: "ls" }, { exit_code: 0 })]));
    expect(findings.errors).toEqual([]);
  });

  it("reads a bundle export (the same envelope) and says what its hashes cover", () => {
    const doc = sample();
    Object.assign(
      obj(doc.metadata),
      j({
        bundle: true,
        source_run_id: "run-0",
        redaction_profile: "default",
        redaction_policy_version: "1.0",
      }),
    );
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(findings.checks.every((c) => c.status === "passed")).toBe(true);
    expect(findings.notices.map((n) => n.code)).toEqual(["rpk.bundle"]);
    expect(findings.notices[0]?.message).toContain(
      "bundle export of run run-0 (redaction profile default, policy 1.0)",
    );
  });
});

describe("replaykitFormat: our Layer C record (metadata.redaction)", () => {
  const H = (c: string) => `sha256:${c.repeat(64)}`;
  /** The sample with a Layer C record listing `hashes` as the original step hashes. */
  function layerC(hashes: unknown[], extra: Record<string, unknown> = {}): JsonObject {
    const doc = sample();
    obj(doc.metadata).redaction = j({
      layer: "C",
      format: "replaykit-rpk",
      preset: "private_repo",
      events: 4,
      by_rule: {},
      original: { checksum: H("c"), step_hashes: hashes },
      ...extra,
    });
    return reseal(doc);
  }

  it("knows the record: no unknown-field notice, a notice naming the original, every row passed", () => {
    const { findings } = read(layerC([H("1"), H("2"), null, H("4")], { signature: "removed" }));
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toEqual(["rpk.layer_c"]);
    expect(findings.notices[0]?.message).toContain(`checksum ${H("c")}`);
    expect(findings.checks.every((c) => c.status === "passed")).toBe(true);
  });

  it("an original step hash per step: a different count is an error", () => {
    const { findings } = read(layerC([H("1")]));
    expect(findings.errors.map((e) => [e.code, e.path])).toEqual([
      ["rpk.layer_c_step_count", "$.metadata.redaction.original.step_hashes"],
    ]);
  });

  it("a malformed original hash or a missing original is an error at its path", () => {
    expect(read(layerC(["sha256:xyz", H("2"), H("3"), H("4")])).findings.errors.map((e) => e.path)).toEqual([
      "$.metadata.redaction.original.step_hashes[0]",
    ]);
    const doc = layerC([]);
    delete obj(obj(doc.metadata).redaction).original;
    expect(read(reseal(doc)).findings.errors.map((e) => [e.code, e.path])).toEqual([
      ["rpk.missing_field", "$.metadata.redaction.original"],
    ]);
  });

  it("a metadata.redaction that is not ours (no layer C) is free-form metadata", () => {
    const doc = sample();
    obj(doc.metadata).redaction = j({ layer: "B", original: 1 });
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(findings.notices).toEqual([]);
  });
});

describe("replaykitFormat: tampering", () => {
  it("a changed step input fails that step's hash row, naming the step", () => {
    const doc = sample();
    obj(stepsOf(doc)[1]?.input).tool = "search!";
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(failedRows(findings)).toEqual(["step_hash step s2"]);
    const row = findings.checks.find((c) => c.subject === "step s2");
    expect(row?.expected).toBe(stepsOf(sample())[1]?.hash);
    expect(row?.actual).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(row?.actual).not.toBe(row?.expected);
  });

  it("without resealing, the checksum fails too (it covers the payload)", () => {
    const doc = sample();
    obj(stepsOf(doc)[0]?.input).prompt = "Hellox";
    expect(failedRows(read(doc).findings)).toEqual(["step_hash step s1", "checksum envelope"]);
  });

  it("a changed volatile key is not part of the step hash", () => {
    const doc = sample();
    obj(stepsOf(doc)[0]?.metadata).duration_ms = j(999);
    obj(stepsOf(doc)[0]?.input).request_id = "req-9";
    expect(failedRows(read(reseal(doc)).findings)).toEqual([]);
  });

  it("a changed metadata fails the checksum row only", () => {
    const doc = sample();
    obj(doc.metadata).run_id = "run-2";
    const { findings } = read(doc);
    expect(findings.errors).toEqual([]);
    expect(failedRows(findings)).toEqual(["checksum envelope"]);
  });

  it("a changed version is covered by the checksum", () => {
    const doc = sample();
    doc.version = "1.1";
    expect(failedRows(read(doc).findings)).toEqual(["checksum envelope"]);
  });
});

describe("replaykitFormat: validation", () => {
  it("reports missing required fields with their JSON path, expected and found", () => {
    const doc = sample();
    delete obj(doc.metadata).created_at;
    delete runOf(doc).runtime_versions;
    delete stepsOf(doc)[2]?.hash;
    delete stepsOf(doc)[3]?.output;
    const { findings } = read(reseal(doc));
    const byPath = Object.fromEntries(findings.errors.map((e) => [e.path, e]));
    expect(Object.keys(byPath).sort()).toEqual([
      "$.metadata.created_at",
      "$.payload.run.runtime_versions",
      "$.payload.run.steps[2].hash",
      "$.payload.run.steps[3].output",
    ]);
    for (const e of findings.errors) {
      expect(e.code).toBe("rpk.missing_field");
      expect(e.found).toBe("nothing (missing)");
      expect(e.expected).toMatch(/required field is missing/);
      expect(e.message.startsWith(`${e.path}:`)).toBe(true);
    }
    expect(byPath["$.payload.run.runtime_versions"]?.expected).toMatch(/an object/);
    // The steps that failed validation get no row; the others still do.
    expect(findings.checks.map((c) => c.subject)).toEqual(["step s1", "step s2", "envelope"]);
  });

  it("a payload without run, and an envelope without payload or checksum", () => {
    const doc = obj(j({ version: "1.0", metadata: { run_id: "r", created_at: "t" }, payload: {} }));
    const { findings } = read(doc);
    expect(findings.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.payload.run", "rpk.missing_field"],
      ["$.checksum", "rpk.missing_field"],
    ]);
    expect(findings.checks).toEqual([]);
  });

  it("rejects a malformed step hash and checksum", () => {
    const doc = sample();
    const s = stepsOf(doc)[0] as JsonObject;
    s.hash = "sha256:ABC";
    doc.checksum = "md5:1234";
    const { findings } = read(doc);
    expect(findings.errors.map((e) => [e.path, e.code, e.found])).toEqual([
      ["$.checksum", "rpk.invalid_field", 'string "md5:1234"'],
      ["$.payload.run.steps[0].hash", "rpk.invalid_field", 'string "sha256:ABC"'],
    ]);
    expect(findings.errors[1]?.expected).toMatch(/64 lowercase hex/);
    expect(findings.checks.map((c) => c.subject)).toEqual(["step s2", "step s3", "step s4"]);
  });

  it("rejects an unknown step type, listing the allowed ones", () => {
    const doc = sample();
    (stepsOf(doc)[1] as JsonObject).type = "tool.call";
    const { findings } = read(reseal(doc));
    expect(findings.errors).toHaveLength(1);
    expect(findings.errors[0]).toMatchObject({
      path: "$.payload.run.steps[1].type",
      code: "rpk.invalid_field",
      found: 'string "tool.call"',
    });
    expect(findings.errors[0]?.expected).toContain("tool.request");
    expect(findings.errors[0]?.expected).toContain("agent.command");
  });

  it("rejects wrong value types and a number passed off as an object", () => {
    const doc = sample();
    runOf(doc).environment_fingerprint = j(7);
    (stepsOf(doc)[0] as JsonObject).id = j(12);
    const { findings } = read(reseal(doc));
    expect(findings.errors.map((e) => [e.path, e.expected, e.found])).toEqual([
      ["$.payload.run.environment_fingerprint", "expected an object", "number 7"],
      ["$.payload.run.steps[0].id", "expected a string", "number 12"],
    ]);
  });

  it("reports a value ReplayKit cannot hash at its path in the file", () => {
    const doc = artifact([]);
    runOf(doc).steps = [
      obj(
        readJson(
          '{"id":"s1","type":"model.request","input":{"x":1e400},"output":null,"metadata":{},"hash":"sha256:' +
            "0".repeat(64) +
            '"}',
        ),
      ),
    ];
    const { findings } = read(doc);
    expect(findings.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.payload.run.steps[0].input.x", "rpk.unhashable"],
      ["$.payload.run.steps[0].input.x", "rpk.unhashable"],
    ]);
  });

  it("non-object input is an error, not a crash", () => {
    for (const value of [j([1, 2]), j("text"), j(null), j(3)]) {
      const { findings, session } = read(value);
      expect(findings.errors).toHaveLength(1);
      expect(findings.errors[0]).toMatchObject({ path: "$", code: "rpk.not_object", expected: "an object" });
      expect(findings.errors[0]?.message).toMatch(/must be a JSON object/);
      expect(findings.checks).toEqual([]);
      expect(session.summary.format).toBe("replaykit-rpk");
    }
  });

  it("keeps unknown fields and reports them as notices, never errors", () => {
    const doc = sample();
    doc.x_top = "a";
    obj(doc.payload).x_payload = j({});
    runOf(doc).x_run = j(1);
    (stepsOf(doc)[0] as JsonObject)["odd key"] = true;
    obj(doc.metadata).anything = "free-form, not reported";
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => [n.path, n.code])).toEqual([
      ["$.x_top", "rpk.unknown_field"],
      ["$.payload.x_payload", "rpk.unknown_field"],
      ["$.payload.run.x_run", "rpk.unknown_field"],
      ['$.payload.run.steps[0]["odd key"]', "rpk.unknown_field"],
    ]);
    expect(findings.notices[0]?.message).toMatch(/not covered by the checksum/);
    expect(findings.checks.every((c) => c.status === "passed")).toBe(true);
  });

  it("reports an unknown step field once, however many steps carry it", () => {
    const doc = sample();
    for (const s of stepsOf(doc)) s.x_step = "extra";
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.path)).toEqual(["$.payload.run.steps[0].x_step"]);
    expect(findings.notices[0]?.message).toMatch(/in 4 steps/);
    expect(findings.notices[0]?.message).toMatch(/not by the step hash/);
  });

  it("accepts the optional run fields the producer writes", () => {
    const doc = sample();
    Object.assign(
      runOf(doc),
      j({
        source: "listener",
        provider: "openai",
        agent: "codex",
        capture_mode: "passive",
        listener_session_id: "l-1",
        listener_process: { pid: 1 },
        listener_bind: { host: "127.0.0.1", port: 1 },
      }),
    );
    const { findings } = read(reseal(doc));
    expect(findings.errors).toEqual([]);
    expect(findings.notices).toEqual([]);
  });
});

describe("replaykitFormat: versions", () => {
  it("2.0 fails fast with one unsupported-major error", () => {
    const { findings } = read(artifact([step("s1", "model.request", {}, {})], "2.0"));
    expect(findings.errors).toHaveLength(1);
    expect(findings.errors[0]).toMatchObject({ path: "$.version", code: "rpk.unsupported_major" });
    expect(findings.errors[0]?.message).toContain("2.0");
    expect(findings.errors[0]?.message).toContain("unsupported major version");
    expect(findings.checks).toEqual([]);
  });

  it("0.8 is another unsupported major (only 0.9 migrates)", () => {
    const { findings } = read(artifact([], "0.8"));
    expect(findings.errors.map((e) => e.code)).toEqual(["rpk.unsupported_major"]);
  });

  it("1.7 is read, with a notice about the unknown minor", () => {
    const { findings } = read(artifact([step("s1", "model.request", {}, {})], "1.7"));
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => [n.path, n.code])).toEqual([["$.version", "rpk.unknown_minor"]]);
    expect(findings.checks.every((c) => c.status === "passed")).toBe(true);
  });

  it.each([["abc"], ["1"], ["1.0.0"], ["v1.0"], [" 1.0"]])("version %j is an error", (version) => {
    const { findings } = read(artifact([], version));
    expect(findings.errors.map((e) => [e.path, e.code])).toEqual([["$.version", "rpk.invalid_version"]]);
    expect(findings.errors[0]?.found).toBe(`string ${JSON.stringify(version)}`);
  });

  it("a version that is not a string, or is missing, is an error", () => {
    const numeric = artifact([]);
    numeric.version = j(1);
    expect(read(numeric).findings.errors.map((e) => [e.code, e.found])).toEqual([
      ["rpk.invalid_version", "number 1"],
    ]);
    const missing = artifact([]);
    delete missing.version;
    expect(read(missing).findings.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.version", "rpk.missing_field"],
    ]);
  });
});

describe("replaykitFormat: 0.9 migration", () => {
  /** A 0.9 envelope: request/response, step_hash, env_fingerprint, runtime; checksum over it as written. */
  function legacy(steps: JsonObject[]): JsonObject {
    const doc = obj(
      j({
        version: "0.9",
        metadata: { run_id: "legacy-1", created_at: "2025-01-01T00:00:00Z" },
        payload: {
          run: {
            id: "legacy-1",
            timestamp: "2025-01-01T00:00:00Z",
            env_fingerprint: { os: "linux" },
            runtime: { replaykit: "0.0.9" },
            steps: [],
          },
        },
      }),
    );
    runOf(doc).steps = steps;
    return reseal(doc);
  }

  function legacyStep(
    id: string,
    type: string,
    request: unknown,
    response: unknown,
    metadata: unknown = {},
  ): JsonObject {
    const s = obj(j({ id, type, request, response, metadata }));
    // The current rule applied to the migrated step, as `migration.py` recomputes it.
    s.step_hash = canonicalHash(
      {
        type: s.type ?? null,
        input: s.request ?? null,
        output: s.response ?? null,
        metadata: s.metadata ?? {},
      },
      "replaykit",
      { stripVolatile: true },
    );
    return s;
  }

  it("reads a 0.9 artifact through migration, with a notice", () => {
    const doc = legacy([
      legacyStep("a", "model.request", { prompt: "hi" }, { status: "sent" }, { latency_ms: 3 }),
      legacyStep("b", "output.final", {}, { content: "done" }),
    ]);
    const { findings, session } = read(doc);
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toEqual(["rpk.migrated"]);
    expect(findings.notices[0]?.message).toMatch(/0\.9.*migrated.*2 preserved, 0 recomputed/);
    expect(findings.checks.map((c) => [c.check, c.subject, c.status])).toEqual([
      ["step_hash", "step a", "passed"],
      ["step_hash", "step b", "passed"],
      ["checksum", "envelope", "passed"],
    ]);
    expect(session.summary).toMatchObject({
      session_id: "legacy-1",
      producer: "replaykit 0.0.9",
      started_at: "2025-01-01T00:00:00Z",
      status: "success",
      total_latency_ms: 3,
      counts: { events: 2, steps_by_type: { "model.request": 1, "output.final": 1 } },
    });
  });

  it("an input present as null wins over request, as the migration's step.get does", () => {
    const s = obj(
      j({ id: "a", type: "model.request", input: null, request: { prompt: "hi" }, metadata: {} }),
    );
    s.step_hash = canonicalHash(
      { type: "model.request", input: null, output: null, metadata: {} },
      "replaykit",
      { stripVolatile: true },
    );
    const { findings } = read(legacy([s]));
    expect(findings.checks.map((c) => [c.subject, c.status])).toEqual([
      ["step a", "passed"],
      ["envelope", "passed"],
    ]);
  });

  it("a legacy step hash that differs is unverifiable, not failed (the producer recomputes it)", () => {
    const s = legacyStep("a", "model.request", { prompt: "hi" }, null);
    s.step_hash = `sha256:${"1".repeat(64)}`;
    const noHash = legacyStep("b", "model.request", {}, null);
    delete noHash.step_hash;
    const { findings } = read(legacy([s, noHash]));
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => [c.subject, c.status, c.expected])).toEqual([
      ["step a", "unverifiable", `sha256:${"1".repeat(64)}`],
      ["step b", "unverifiable", null],
      ["envelope", "passed", recordedChecksum(findings)],
    ]);
    expect(findings.notices[0]?.message).toMatch(/0 preserved, 2 recomputed/);
  });

  it("tampered 0.9 content fails the checksum, which the producer's migration enforces", () => {
    const doc = legacy([legacyStep("a", "model.request", { prompt: "hi" }, null)]);
    obj(stepsOf(doc)[0]?.request).prompt = "hix";
    expect(failedRows(read(doc).findings)).toEqual(["checksum envelope"]);
  });

  it("reports what the migration requires and what it drops", () => {
    const doc = legacy([legacyStep("a", "bogus", {}, null)]);
    delete runOf(doc).timestamp;
    runOf(doc).environment_fingerprint = j({});
    (stepsOf(doc)[0] as JsonObject).timestamp = "2025-01-01T00:00:01Z";
    const { findings } = read(reseal(doc));
    expect(findings.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.payload.run.timestamp", "rpk.missing_field"],
      ["$.payload.run.steps[0].type", "rpk.invalid_field"],
    ]);
    expect(findings.notices.filter((n) => n.code === "rpk.unknown_field").map((n) => n.path)).toEqual([
      "$.payload.run.environment_fingerprint",
      "$.payload.run.steps[0].timestamp",
    ]);
    expect(findings.notices[0]?.message).toMatch(/dropped by the 0\.9 migration/);
  });
});

/** The checksum row's recorded value (for comparing whole rows). */
function recordedChecksum(findings: Findings): string | null {
  return findings.checks.find((c) => c.check === "checksum")?.expected ?? null;
}

describe("replaykitFormat: signature", () => {
  it("with the right key: passed", () => {
    const { findings } = read(signed(sample(), "dev-signing-key"), { hmacKey: KEY });
    expect(findings.errors).toEqual([]);
    expect(findings.checks.at(-1)).toMatchObject({
      check: "signature",
      subject: "envelope",
      status: "passed",
    });
    expect(findings.checks.every((c) => c.status === "passed")).toBe(true);
  });

  it("with a wrong key: failed", () => {
    const { findings } = read(signed(sample(), "dev-signing-key"), {
      hmacKey: new TextEncoder().encode("other-key"),
    });
    expect(failedRows(findings)).toEqual(["signature envelope"]);
  });

  it("without a key: unverifiable, expected = the signature, actual null", () => {
    const doc = signed(sample(), "dev-signing-key");
    const { findings } = read(doc);
    expect(findings.checks.at(-1)).toEqual({
      check: "signature",
      subject: "envelope",
      expected: obj(doc.signature).value,
      actual: null,
      status: "unverifiable",
    });
  });

  it("the key is trimmed as the producer trims it (a key file's newline)", () => {
    const { findings } = read(signed(sample(), "dev-signing-key"), {
      hmacKey: new TextEncoder().encode("  dev-signing-key\n"),
    });
    expect(findings.checks.at(-1)?.status).toBe("passed");
  });

  it("content changed after signing fails both the checksum and the signature", () => {
    const doc = signed(sample(), "dev-signing-key");
    obj(doc.metadata).run_id = "run-2";
    expect(failedRows(read(doc, { hmacKey: KEY }).findings)).toEqual([
      "checksum envelope",
      "signature envelope",
    ]);
  });

  it("signs exactly the sorted canonical {checksum, metadata, payload, version}", () => {
    // Written out by hand, independent of the canonicalizer: a tiny artifact with no steps.
    const doc = obj(
      readJson(
        '{"version":"1.0","metadata":{"run_id":"r","created_at":"2026-01-01T00:00:00Z"},"payload":{"run":{"id":"r","timestamp":"2026-01-01T00:00:00Z","environment_fingerprint":{},"runtime_versions":{},"steps":[]}},"checksum":"sha256:x"}',
      ),
    );
    const canonical =
      '{"metadata":{"created_at":"2026-01-01T00:00:00.000000Z","run_id":"r"},"payload":{"run":{"environment_fingerprint":{},"id":"r","runtime_versions":{},"steps":[],"timestamp":"2026-01-01T00:00:00.000000Z"}},"version":"1.0"}';
    doc.checksum = `sha256:${createHash("sha256").update(canonical).digest("hex")}`;
    const signedCanonical = `{"checksum":"${doc.checksum}",${canonical.slice(1)}`;
    doc.signature = j({
      algorithm: "hmac-sha256",
      key_id: "k",
      value: `hmac-sha256:${createHmac("sha256", "secret").update(signedCanonical).digest("hex")}`,
    });
    const { findings } = read(doc, { hmacKey: new TextEncoder().encode("secret") });
    expect(findings.errors).toEqual([]);
    expect(findings.checks.map((c) => [c.check, c.status])).toEqual([
      ["checksum", "passed"],
      ["signature", "passed"],
    ]);
  });

  it("given a key, an algorithm other than hmac-sha256 fails the signature row", () => {
    const { findings } = read(signed(sample(), "dev-signing-key", "ed25519"), { hmacKey: KEY });
    expect(findings.errors).toEqual([]);
    expect(sigRows(findings)).toEqual([["failed", 'algorithm "ed25519"']]);
    expect(failedRows(findings)).toEqual(["signature envelope (unsupported algorithm)"]);
  });

  it("without a key, an unsupported algorithm is unverifiable, not invalid", () => {
    const { findings } = read(signed(sample(), "dev-signing-key", "ed25519"));
    expect(findings.errors).toEqual([]);
    expect(findings.checks.find((c) => c.check === "signature")?.status).toBe("unverifiable");
  });

  it("given a key, a removed signature fails: a key means a signature is required", () => {
    const doc = signed(sample(), "dev-signing-key");
    delete (doc as Record<string, unknown>).signature;
    const withKey = read(doc, { hmacKey: KEY }).findings;
    expect(sigRows(withKey)).toEqual([["failed", "no signature"]]);
    expect(failedRows(withKey)).toHaveLength(1);
    // Without a key an unsigned artifact is simply unsigned: no signature row at all.
    expect(sigRows(read(doc).findings)).toEqual([]);
  });

  it("a malformed signature value is a validation error", () => {
    const doc = sample();
    doc.signature = j({ algorithm: "hmac-sha256", key_id: "k", value: "hmac-sha256:zz" });
    const { findings } = read(doc, { hmacKey: KEY });
    expect(findings.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.signature.value", "rpk.invalid_field"],
    ]);
    expect(findings.checks.some((c) => c.check === "signature")).toBe(false);
  });
});

describe("isReplaykitArtifact", () => {
  it("recognizes envelopes, 0.9 included, and a truncated one", () => {
    expect(isReplaykitArtifact(sample())).toBe(true);
    expect(isReplaykitArtifact(j({ version: "0.9", checksum: "x" }))).toBe(true);
    expect(isReplaykitArtifact(j({ version: "1.0", metadata: {}, checksum: "x" }))).toBe(true);
    expect(isReplaykitArtifact(j({ version: "1.0", payload: {}, metadata: {} }))).toBe(true);
  });

  it("rejects other shapes", () => {
    expect(isReplaykitArtifact(j([1]))).toBe(false);
    expect(isReplaykitArtifact(j({ payload: {}, checksum: "x" }))).toBe(false);
    expect(isReplaykitArtifact(j({ version: 1, payload: {}, checksum: "x" }))).toBe(false);
    // An OpenAgents ReplayBundle: version and metadata, but neither payload nor checksum.
    expect(isReplaykitArtifact(j({ version: "1.0", id: "r", metadata: {}, timeline: [] }))).toBe(false);
  });
});
