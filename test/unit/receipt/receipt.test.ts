import { describe, expect, it } from "vitest";
import { canonicalHash, type JsonObject, type JsonValue, readJson } from "#shared/canonical/index.js";
import { type CheckRow, Findings, inspect } from "#shared/formats/index.js";
import { generateReceipt, readReceipt, serializeReceipt, verifyReplay } from "#shared/receipt/index.js";
import { receiptDigest } from "#shared/receipt/read.js";
import type { Inspected } from "#shared/receipt/verify.js";

const json = (v: unknown): JsonValue => readJson(JSON.stringify(v));
const hashOf = (v: unknown) => canonicalHash(json(v), "openagents");

const p1 = { path: "src/a.ts" };
const o1 = { content: "text", error: null, success: true };
const p2 = { cmd: "npm test" };
const o2 = { content: "", error: "boom", success: false };

/**
 * A REPLAY.jsonl v1 with a runtime event, two tool calls and a verification. Its RuntimeEvent
 * carries idempotency_key, so its trajectory_hash is complete (receipts carry and compare it).
 */
function v1Replay(): string {
  const lines: unknown[] = [
    {
      type: "ReplayHeader",
      replay_version: 1,
      producer: "openagents-runtime",
      created_at: "2026-02-01T00:00:00+00:00",
    },
    { type: "SessionStart", ts: "2026-02-01T00:00:00+00:00", session_id: "sess-1", policy_bundle_id: "p" },
    {
      type: "RuntimeEvent",
      ts: "2026-02-01T00:00:01+00:00",
      session_id: "sess-1",
      seq: 1,
      runtime_event_type: "run.started",
      payload_hash: hashOf({ source: "runtime" }),
      payload: { source: "runtime" },
      idempotency_key: null,
    },
    {
      type: "ToolCall",
      ts: "2026-02-01T00:00:02Z",
      step_id: "st1",
      tool: "read",
      params: p1,
      params_hash: hashOf(p1),
    },
    {
      type: "ToolResult",
      ts: "2026-02-01T00:00:03Z",
      step_id: "st1",
      ok: true,
      output: o1,
      output_hash: hashOf(o1),
      latency_ms: 12,
      side_effects: ["fs_read"],
    },
    {
      type: "ToolCall",
      ts: "2026-02-01T00:00:04Z",
      step_id: "st2",
      tool: "shell",
      params: p2,
      params_hash: hashOf(p2),
    },
    {
      type: "ToolResult",
      ts: "2026-02-01T00:00:05Z",
      step_id: "st2",
      ok: false,
      output: o2,
      output_hash: hashOf(o2),
      latency_ms: 30,
      side_effects: [],
    },
    { type: "Verification", ts: "2026-02-01T00:00:06Z", command: "npm test", exit_code: 1 },
    {
      type: "SessionEnd",
      ts: "2026-02-01T00:00:07Z",
      session_id: "sess-1",
      status: "failure",
      confidence: 0.5,
    },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/** A dsrs-dialect replay (the coding loop): calls keyed by id, one Verification with lists. */
function dsrsReplay(): string {
  const lines: unknown[] = [
    {
      event: "ReplayHeader",
      replay_version: 1,
      producer: "adjutant@1.2.3",
      created_at: "2026-01-13T10:00:00Z",
    },
    { event: "SessionStart", t: "2026-01-13T10:00:00Z", session_id: "sess_1", policy_version: "v1" },
    {
      event: "ToolCall",
      t: "2026-01-13T10:00:01Z",
      id: "tc_1",
      tool: "file_read",
      params: p1,
      params_hash: hashOf(p1),
      step_id: "s1",
    },
    {
      event: "ToolResult",
      t: "2026-01-13T10:00:02Z",
      id: "tc_1",
      output: o1,
      output_hash: hashOf(o1),
      step_utility: 0.5,
      latency_ms: 40,
    },
    {
      event: "Verification",
      t: "2026-01-13T10:00:04Z",
      commands: ["cargo test", "cargo clippy"],
      exit_codes: [0, 0],
      verification_delta: 2,
    },
    {
      event: "SessionEnd",
      t: "2026-01-13T10:00:05Z",
      status: "Success",
      confidence: 0.9,
      total_tool_calls: 1,
      total_latency_ms: 40,
    },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

async function inspectText(text: string): Promise<Inspected> {
  const bytes = Buffer.from(text);
  return inspect(
    (async function* () {
      yield bytes;
    })(),
    { file: "replay", keepToolCalls: true },
  );
}

function failed(rows: CheckRow[]): CheckRow[] {
  return rows.filter((r) => r.status === "failed");
}

/** A generated receipt as a plain object, to edit. */
async function v1Setup() {
  const inspected = await inspectText(v1Replay());
  const receipt = JSON.parse(
    serializeReceipt(generateReceipt(inspected, { createdAt: "2026-02-02T00:00:00Z" })),
  );
  return { inspected, receipt };
}

/** Re-seals canonical_json_sha256 after an edit so only the edited row fails. */
function reseal(receipt: Record<string, unknown>): JsonValue {
  const value = json(receipt) as JsonObject;
  value.canonical_json_sha256 = receiptDigest(value);
  return value;
}

describe("generateReceipt", () => {
  it("writes an openagents.receipt.v1 that verifies passed against its replay", async () => {
    // Prepare
    const inspected = await inspectText(v1Replay());
    expect(inspected.report.verdict).toBe("passed");
    // Act
    const receipt = generateReceipt(inspected, { createdAt: "2026-02-02T00:00:00Z" });
    const text = serializeReceipt(receipt);
    const report = verifyReplay(inspected, readJson(text));
    // Assess
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text)).toMatchObject({
      schema: "openagents.receipt.v1",
      session_id: "sess-1",
      trajectory_hash: inspected.report.trajectory_hash,
      replay_hash: inspected.report.replay_hash,
      payments: [],
      verification: [{ command: "npm test", exit_code: 1 }],
      tool_calls: [
        {
          step_id: "st1",
          tool: "read",
          params_hash: hashOf(p1),
          output_hash: hashOf(o1),
          side_effects: ["fs_read"],
          ok: true,
        },
        { step_id: "st2", tool: "shell", ok: false },
      ],
    });
    expect(report.errors).toEqual([]);
    expect(report.verdict).toBe("passed");
    expect(report.receipt_shape).toBe("openagents.receipt.v1+replay_hash");
    const checks = new Set(report.checks.map((c) => c.check));
    for (const c of [
      "canonical_json_sha256",
      "replay_hash",
      "trajectory_hash",
      "session_id",
      "tool",
      "params_hash",
      "output_hash",
      "side_effects",
      "verification.exit_code",
    ])
      expect(checks).toContain(c);
    for (const row of report.checks) expect(row.expected).not.toBeNull();
  });

  it("records policy_bundle_id when given, and trajectory_hash null without runtime events", async () => {
    // Prepare
    const inspected = await inspectText(dsrsReplay());
    // Act
    const receipt = generateReceipt(inspected, { policyBundleId: "pb-1", createdAt: "2026-02-02T00:00:00Z" });
    // Assess
    expect(receipt.policy_bundle_id).toBe("pb-1");
    expect(receipt.trajectory_hash).toBeNull();
    expect(verifyReplay(inspected, readJson(serializeReceipt(receipt))).verdict).toBe("passed");
  });

  it("writes both spec-required members even when unknown, so its own verify has nothing to blame", async () => {
    // Prepare: no policy_bundle_id anywhere, no runtime events.
    const inspected = await inspectText(dsrsReplay());
    // Act
    const receipt = generateReceipt(inspected, { createdAt: "2026-02-02T00:00:00Z" });
    const report = verifyReplay(inspected, readJson(serializeReceipt(receipt)));
    // Assess
    expect(receipt).toMatchObject({ trajectory_hash: null, policy_bundle_id: null });
    expect(report.notices.filter((n) => n.code.startsWith("receipt."))).toEqual([]);
    expect(report.verdict).toBe("passed");
    // An absent member (another producer breaking the spec) is still reported.
    const { trajectory_hash: _t, ...without } = receipt;
    const other = verifyReplay(inspected, readJson(JSON.stringify(without)));
    expect(other.notices.map((n) => n.code)).toContain("receipt.spec_field_missing");
  });
});

describe("readReceipt", () => {
  it("reads an openagents.receipt.v1 and recomputes canonical_json_sha256", async () => {
    // Prepare
    const { receipt } = await v1Setup();
    const findings = new Findings();
    // Act
    const read = readReceipt(json(receipt), findings);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(read?.shape).toBe("openagents.receipt.v1");
    expect(read?.tool_calls).toHaveLength(2);
    expect(findings.checks).toEqual([
      expect.objectContaining({
        check: "canonical_json_sha256",
        status: "passed",
        expected: receipt.canonical_json_sha256,
      }),
    ]);
  });

  it("fails the canonical_json_sha256 row when the receipt was edited after sealing", async () => {
    // Prepare
    const { receipt } = await v1Setup();
    receipt.session_id = "other";
    const findings = new Findings();
    // Act
    readReceipt(json(receipt), findings);
    // Assess
    expect(failed(findings.checks)).toEqual([expect.objectContaining({ check: "canonical_json_sha256" })]);
  });

  it("accepts a bare-hex canonical_json_sha256 and compares in that form", async () => {
    // Prepare
    const { receipt } = await v1Setup();
    receipt.canonical_json_sha256 = String(receipt.canonical_json_sha256).slice("sha256:".length);
    const findings = new Findings();
    // Act
    readReceipt(json(receipt), findings);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.checks[0]).toMatchObject({ check: "canonical_json_sha256", status: "passed" });
  });

  it("reads a SessionReceipt (coding loop), normalizing side effect objects to effect_type:path", () => {
    // Prepare
    const value = json({
      session_id: "sess_1",
      started_at: "2026-01-13T10:00:00Z",
      completed_at: "2026-01-13T10:00:05Z",
      issue_number: 7,
      plan_hash: hashOf({ plan: 1 }),
      tool_calls: [
        {
          id: "tc_1",
          tool: "file_read",
          params_hash: hashOf(p1),
          output_hash: hashOf(o1),
          step_utility: 0.5,
          latency_ms: 40,
          side_effects: [
            { effect_type: "file_write", path: "src/a.ts" },
            { effect_type: "network", path: null },
          ],
        },
      ],
      verification: { commands_run: ["cargo test"], exit_codes: [0], verification_delta: 2 },
      final_confidence: 0.9,
      policy_bundle_id: "pb",
      signature: null,
    });
    const findings = new Findings();
    // Act
    const read = readReceipt(value, findings);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(read).toMatchObject({
      shape: "session-receipt",
      session_id: "sess_1",
      tool_calls: [{ id: "tc_1", side_effects: ["file_write:src/a.ts", "network"] }],
      verification: [{ command: "cargo test", exit_code: 0 }],
    });
  });

  it("reads an ADR-0003 receipt that carries only replay_hash", () => {
    // Prepare
    const findings = new Findings();
    // Act
    const read = readReceipt(json({ replay_hash: hashOf("x"), session_id: "s" }), findings);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(read).toMatchObject({ shape: "adr0003", hasReplayHash: true, tool_calls: null });
  });

  it.each([
    ["an object with no known member", { hello: "world" }, /no "schema"/],
    ["another schema id", { schema: "openagents.receipt.v2", session_id: "s" }, /openagents\.receipt\.v2/],
    ["an array", [1, 2], /JSON object/],
  ])("gives receipt.unknown_shape with the reason for %s", (_name, value, reason) => {
    // Prepare
    const findings = new Findings();
    // Act
    const read = readReceipt(json(value), findings);
    // Assess
    expect(read).toBeNull();
    expect(findings.errors).toHaveLength(1);
    expect(findings.errors[0]?.code).toBe("receipt.unknown_shape");
    expect(findings.errors[0]?.message).toMatch(reason);
  });

  it("makes a malformed field an invalid verdict with its path", async () => {
    // Prepare
    const inspected = await inspectText(v1Replay());
    const value = json({
      schema: "openagents.receipt.v1",
      session_id: "sess-1",
      tool_calls: [{ tool: "read" }],
    });
    // Act
    const report = verifyReplay(inspected, value);
    // Assess
    expect(report.verdict).toBe("invalid");
    expect(report.errors.map((e) => e.path)).toContain("$.tool_calls[0].params_hash");
  });

  it("an unknown shape makes the verify verdict invalid, never passed", async () => {
    // Prepare
    const inspected = await inspectText(v1Replay());
    // Act
    const report = verifyReplay(inspected, json({ anything: 1 }));
    // Assess
    expect(report.verdict).toBe("invalid");
    expect(report.receipt_shape).toBeNull();
  });
});

describe("verifyReceipt mismatches", () => {
  it.each([
    [
      "replay_hash",
      (r: Record<string, unknown>) => {
        r.replay_hash = hashOf("other");
      },
      "replay_hash",
    ],
    [
      "trajectory_hash",
      (r: Record<string, unknown>) => {
        r.trajectory_hash = hashOf("other");
      },
      "trajectory_hash",
    ],
    [
      "session_id",
      (r: Record<string, unknown>) => {
        r.session_id = "sess-2";
      },
      "session_id",
    ],
    [
      "a params_hash",
      (r: { tool_calls: Record<string, unknown>[] }) => {
        (r.tool_calls[0] as Record<string, unknown>).params_hash = hashOf("x");
      },
      "params_hash",
    ],
    [
      "an output_hash",
      (r: { tool_calls: Record<string, unknown>[] }) => {
        (r.tool_calls[1] as Record<string, unknown>).output_hash = hashOf("x");
      },
      "output_hash",
    ],
    [
      "a tool name",
      (r: { tool_calls: Record<string, unknown>[] }) => {
        (r.tool_calls[0] as Record<string, unknown>).tool = "write";
      },
      "tool",
    ],
    [
      "side effects",
      (r: { tool_calls: Record<string, unknown>[] }) => {
        (r.tool_calls[0] as Record<string, unknown>).side_effects = ["fs_write"];
      },
      "side_effects",
    ],
    [
      "ok",
      (r: { tool_calls: Record<string, unknown>[] }) => {
        (r.tool_calls[1] as Record<string, unknown>).ok = true;
      },
      "ok",
    ],
    [
      "an exit code",
      (r: { verification: Record<string, unknown>[] }) => {
        (r.verification[0] as Record<string, unknown>).exit_code = 0;
      },
      "verification.exit_code",
    ],
    [
      "a verification command",
      (r: { verification: Record<string, unknown>[] }) => {
        (r.verification[0] as Record<string, unknown>).command = "npm run lint";
      },
      "verification.command",
    ],
    // biome-ignore lint/suspicious/noExplicitAny: table of edits over differently shaped members
  ] as [string, (r: any) => void, string][])(
    "editing %s fails the row that names it",
    async (_name, edit, check) => {
      // Prepare
      const { inspected, receipt } = await v1Setup();
      edit(receipt);
      // Act
      const report = verifyReplay(inspected, reseal(receipt));
      // Assess
      expect(report.verdict).toBe("failed");
      const rows = failed(report.checks);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.check).toBe(check);
    },
  );

  it("a dropped call is missing in receipt, an added one missing in replay", async () => {
    // Prepare
    const { inspected, receipt } = await v1Setup();
    const dropped = { ...receipt, tool_calls: receipt.tool_calls.slice(1) };
    const added = {
      ...receipt,
      tool_calls: [
        ...receipt.tool_calls,
        {
          step_id: "st9",
          tool: "deploy",
          params_hash: hashOf(1),
          output_hash: hashOf(2),
          latency_ms: 1,
          side_effects: [],
        },
      ],
    };
    // Act
    const droppedReport = verifyReplay(inspected, reseal(dropped));
    const addedReport = verifyReplay(inspected, reseal(added));
    // Assess
    expect(failed(droppedReport.checks)).toEqual([
      expect.objectContaining({ check: "tool_call", expected: "missing in receipt", actual: "read st1" }),
    ]);
    expect(failed(addedReport.checks)).toEqual([
      expect.objectContaining({ check: "tool_call", expected: "deploy st9", actual: "missing in replay" }),
    ]);
  });

  it("matches calls without keys in order", async () => {
    // Prepare
    const { inspected, receipt } = await v1Setup();
    for (const call of receipt.tool_calls) delete call.step_id;
    // Act
    const report = verifyReplay(inspected, reseal(receipt));
    // Assess
    expect(report.verdict).toBe("passed");
    expect(report.checks.filter((c) => c.check === "tool")).toHaveLength(2);
  });

  it("verifies a SessionReceipt against the coding loop's replay by call id, and fails a changed exit code", async () => {
    // Prepare
    const inspected = await inspectText(dsrsReplay());
    const receipt = {
      session_id: "sess_1",
      started_at: "2026-01-13T10:00:00Z",
      completed_at: "2026-01-13T10:00:05Z",
      tool_calls: [
        {
          id: "tc_1",
          tool: "file_read",
          params_hash: hashOf(p1),
          output_hash: hashOf(o1),
          step_utility: 0.5,
          latency_ms: 40,
          side_effects: [],
        },
      ],
      verification: {
        commands_run: ["cargo test", "cargo clippy"],
        exit_codes: [0, 0],
        verification_delta: 2,
      },
      final_confidence: 0.9,
      policy_bundle_id: "v1",
    };
    // Act
    const ok = verifyReplay(inspected, json(receipt));
    const bad = verifyReplay(
      inspected,
      json({ ...receipt, verification: { ...receipt.verification, exit_codes: [0, 1] } }),
    );
    // Assess
    expect(ok.errors).toEqual([]);
    expect(ok.receipt_shape).toBe("session-receipt");
    expect(ok.verdict).toBe("passed");
    expect(bad.verdict).toBe("failed");
    expect(failed(bad.checks)).toEqual([
      expect.objectContaining({ check: "verification.exit_code", expected: "1", actual: "0" }),
    ]);
  });

  it("a signature is unverifiable (no receipt signing scheme is specified)", async () => {
    // Prepare
    const { inspected, receipt } = await v1Setup();
    receipt.signature = "ed25519:abcd";
    // Act
    const report = verifyReplay(inspected, json(receipt));
    // Assess
    expect(report.verdict).toBe("unverifiable");
    expect(report.checks.filter((c) => c.status === "unverifiable")).toEqual([
      expect.objectContaining({ check: "signature", expected: "ed25519:abcd", actual: null }),
    ]);
  });

  it("a trajectory_hash against a replay without runtime events is unverifiable and says why", async () => {
    // Prepare
    const inspected = await inspectText(dsrsReplay());
    const receipt = {
      replay_hash: inspected.report.replay_hash,
      session_id: "sess_1",
      schema: "openagents.receipt.v1",
      trajectory_hash: hashOf("t"),
    };
    // Act
    const report = verifyReplay(inspected, json(receipt));
    // Assess
    expect(report.verdict).toBe("unverifiable");
    expect(report.checks.find((c) => c.check === "trajectory_hash")).toMatchObject({
      status: "unverifiable",
      subject: expect.stringContaining("no runtime events"),
    });
  });

  describe("a trajectory_hash against partial runtime events (a line without idempotency_key)", () => {
    const partial = () => v1Replay().replace(',"idempotency_key":null', "");

    it("is unverifiable, with the reason, when it differs", async () => {
      // Prepare
      const inspected = await inspectText(partial());
      const receipt = { schema: "openagents.receipt.v1", session_id: "sess-1", trajectory_hash: hashOf("t") };
      // Act
      const report = verifyReplay(inspected, json(receipt));
      // Assess
      expect(inspected.report.trajectory_hash_complete).toBe(false);
      expect(report.checks.find((c) => c.check === "trajectory_hash")).toEqual({
        check: "trajectory_hash",
        subject: "runtime events (partial: 1 RuntimeEvent line(s) leave out idempotency_key)",
        expected: hashOf("t"),
        actual: inspected.report.trajectory_hash,
        status: "unverifiable",
      });
      expect(report.verdict).toBe("unverifiable");
    });

    it("passes when equal all the same (the key left out was null)", async () => {
      // Prepare
      const inspected = await inspectText(partial());
      const complete = await inspectText(v1Replay());
      const receipt = {
        schema: "openagents.receipt.v1",
        session_id: "sess-1",
        trajectory_hash: complete.report.trajectory_hash,
      };
      // Act
      const report = verifyReplay(inspected, json(receipt));
      // Assess
      expect(inspected.report.trajectory_hash).toBe(complete.report.trajectory_hash);
      expect(report.checks.find((c) => c.check === "trajectory_hash")?.status).toBe("passed");
    });

    it("is written null in a generated receipt (no claim), never as the partial value", async () => {
      const inspected = await inspectText(partial());
      expect(inspected.report.trajectory_hash).not.toBeNull();
      expect(generateReceipt(inspected).trajectory_hash).toBeNull();
    });
  });

  it("no receipt gives an unverifiable row, not passed", async () => {
    // Prepare
    const inspected = await inspectText(v1Replay());
    // Act
    const report = verifyReplay(inspected, null);
    // Assess
    expect(report.verdict).toBe("unverifiable");
    expect(report.checks).toEqual([
      {
        check: "receipt",
        subject: "RECEIPT.json",
        expected: "a receipt for this replay",
        actual: "no receipt given",
        status: "unverifiable",
      },
    ]);
  });

  it("a failed replay makes the verdict failed even when the receipt matches", async () => {
    // Prepare
    const { receipt } = await v1Setup();
    const tampered = await inspectText(v1Replay().replace('"source":"runtime"},', '"source":"runtimX"},'));
    const sealed = reseal({
      ...receipt,
      replay_hash: tampered.report.replay_hash,
      trajectory_hash: tampered.report.trajectory_hash,
    });
    // Act
    const report = verifyReplay(tampered, sealed);
    // Assess
    expect(tampered.report.verdict).toBe("failed");
    expect(failed(report.checks)).toEqual([]);
    expect(report.verdict).toBe("failed");
  });
});
