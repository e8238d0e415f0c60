import { describe, expect, it } from "vitest";
import { type JsonValue, readJson } from "#shared/canonical/index.js";
import { Findings } from "#shared/formats/index.js";
import { REPLAY_DIALECTS, replayV1Format } from "#shared/formats/replay-jsonl/index.js";
import {
  type Quick,
  qCount,
  qHash,
  qInteger,
  qNumber,
  qRange,
  qTimestamp,
} from "#shared/formats/validate.js";

// The quick checks stand in for zod on valid input (see Quick in validate.ts). Here they are held
// against zod itself: on every input below they must give zod's answer, except where a check is
// documented to be stricter (it may reject what zod accepts, never the reverse).

const zodAccepts = (q: Pick<Quick, "schema">, value: JsonValue | undefined) =>
  q.schema.safeParse(value).success;

/** JSON texts (numbers kept as written) of values of every kind, in and out of each field's range. */
const TEXTS = [
  "null",
  "true",
  "false",
  "0",
  "-0",
  "1",
  "-1",
  "2",
  "0.5",
  "-1.5",
  "1.0",
  "1E0",
  "10e-1",
  "1e400",
  "-1e400",
  "1e-400",
  "9007199254740991",
  "9007199254740992",
  "-9007199254740993",
  "100000000000000000000",
  '""',
  '"x"',
  '"1.0.0"',
  '"success"',
  '"Success"',
  '"timeout"',
  '"toString"',
  '"__proto__"',
  `"sha256:${"ab".repeat(32)}"`,
  `"sha256:${"AB".repeat(32)}"`,
  `"sha256:${"ab".repeat(31)}a"`,
  `"sha256:${"ab".repeat(32)}0"`,
  `"sha1:${"ab".repeat(20)}"`,
  '"sha256:unknown"',
  '"sha256:unknown "',
  '"2026-02-15T09:00:08Z"',
  '"2026-02-15T09:00:08.000Z"',
  '"2026-02-15T09:00:08.123456+00:00"',
  '"2026-02-15t09:00:08z"',
  '"2026-02-15 09:00:08-05:30"',
  '"2026-02-30T00:00:00Z"',
  '"2026-13-01T00:00:00Z"',
  '"2026-00-10T00:00:00Z"',
  '"2026-02-15T24:00:00Z"',
  '"2026-02-15T25:00:00Z"',
  '"2026-02-15T23:59:60Z"',
  '"2026-02-15T00:00:00+24:00"',
  '"2026-02-15T00:00:00+23:59"',
  '"2026-02-15T00:00:00"',
  '"2026-02-15T00:00:00.Z"',
  '"0000-01-01T00:00:00Z"',
  "[]",
  '[""]',
  '["a","b"]',
  "[1]",
  "[1.5]",
  '["a",1]',
  "[null]",
  "{}",
  '{"a":1}',
  '{"__proto__":{}}',
];

/** Values that hold an own `constructor` member: `obj()` leaves them to zod (see replay-jsonl.ts). */
const CONSTRUCTOR_TEXTS = ['{"constructor":1}', '{"constructor":{}}', '{"constructor":{"prototype":{}}}'];

describe("leaf quick checks", () => {
  const leaves: [string, Quick][] = [
    ["qNumber", qNumber()],
    ["qInteger", qInteger()],
    ["qCount", qCount()],
    ["qRange(-1, 1)", qRange(-1, 1)],
    ["qRange(0, 1)", qRange(0, 1)],
    ["qHash", qHash()],
    ["qTimestamp", qTimestamp()],
  ];
  it.each(leaves)("%s gives zod's answer on every sample", (_, q) => {
    for (const text of TEXTS) {
      const value = readJson(text);
      expect([text, q.accepts(value)]).toEqual([text, zodAccepts(q, value)]);
    }
  });

  it("accepts the usual values without zod", () => {
    expect(qTimestamp().accepts("2026-02-15T09:00:08.000Z")).toBe(true);
    expect(qTimestamp().accepts("2026-02-15T08:21:11+00:00")).toBe(true);
    expect(qHash().accepts(`sha256:${"0".repeat(64)}`)).toBe(true);
    expect(qCount().accepts(readJson("87613"))).toBe(true);
    expect(qRange(0, 1).accepts(readJson("0.92"))).toBe(true);
  });
});

/** A valid event of every known type, per dialect. */
const VALID: Record<keyof typeof REPLAY_DIALECTS, Record<string, object>> = {
  "replay-v1": {
    ReplayHeader: {
      type: "ReplayHeader",
      replay_version: 1,
      producer: "p",
      created_at: "2026-02-15T08:21:11+00:00",
      redaction: {},
    },
    SessionStart: {
      type: "SessionStart",
      ts: "2026-02-15T09:00:05.000Z",
      session_id: "s",
      policy_bundle_id: "b",
      repo: { remote: "r" },
      lane: "interactive",
    },
    ToolCall: {
      type: "ToolCall",
      ts: "2026-02-15T09:00:08.000Z",
      session_id: "s",
      step_id: "step-1",
      tool: "search",
      params: {},
      params_hash: `sha256:${"1".repeat(64)}`,
    },
    ToolResult: {
      type: "ToolResult",
      ts: "2026-02-15T09:01:35.613Z",
      session_id: "s",
      step_id: "step-1",
      ok: true,
      output: {},
      output_hash: `sha256:${"2".repeat(64)}`,
      latency_ms: 87613,
      side_effects: ["process_spawn"],
      error: null,
      step_utility: -0.25,
    },
    Verification: {
      type: "Verification",
      ts: "2026-02-15T09:05:00Z",
      command: "npm test",
      exit_code: 0,
      cwd: "/",
      duration_ms: 1.5,
      verification_delta: -1,
    },
    SessionEnd: {
      type: "SessionEnd",
      ts: "2026-02-15T10:00:00Z",
      status: "canceled",
      confidence: 1,
      summary: "done",
      total_tool_calls: 2,
      total_latency_ms: 10.5,
    },
    RuntimeEvent: {
      type: "RuntimeEvent",
      ts: "2026-02-15T09:00:01Z",
      seq: 0,
      runtime_event_type: "run.started",
      payload: [1],
      payload_hash: `sha256:${"3".repeat(64)}`,
      idempotency_key: null,
    },
  },
  "replay-dsrs": {
    ReplayHeader: {
      event: "ReplayHeader",
      replay_version: 2,
      producer: "p",
      created_at: "2026-01-13T10:00:00Z",
    },
    SessionStart: {
      event: "SessionStart",
      t: "2026-01-13T10:00:00Z",
      session_id: "s",
      issue_number: null,
      policy_bundle_id: "b",
      policy_version: "",
    },
    PlanStart: {
      event: "PlanStart",
      t: "2026-01-13T10:00:00Z",
      plan_hash: `sha256:${"4".repeat(64)}`,
      step_count: 3,
    },
    ToolCall: {
      event: "ToolCall",
      t: "2026-01-13T10:00:02Z",
      id: "tc_1",
      tool: "file_read",
      params: "any",
      params_hash: `sha256:${"5".repeat(64)}`,
      step_id: "step-1",
    },
    ToolResult: {
      event: "ToolResult",
      t: "2026-01-13T10:00:02Z",
      id: "tc_1",
      output: null,
      output_hash: `sha256:${"6".repeat(64)}`,
      exit_code: -1,
      step_utility: 1,
      latency_ms: 0,
    },
    StepComplete: {
      event: "StepComplete",
      t: "2026-01-13T10:00:03Z",
      step_id: "step-1",
      status: "MaxIterationsReached",
      iterations: 4,
    },
    Verification: {
      event: "Verification",
      t: "2026-01-13T10:05:30Z",
      commands: ["a", "b"],
      exit_codes: [0, 1],
      verification_delta: 3,
    },
    Payment: {
      event: "Payment",
      t: "2026-02-25T10:00:06.250+00:00",
      rail: "lightning",
      asset_id: "btc",
      amount_msats: 1000,
      payment_proof: { preimage: "00" },
      job_hash: null,
      status: "released",
    },
    RuntimeEvent: {
      event: "RuntimeEvent",
      t: "2026-02-01T00:00:02+00:00",
      session_id: "s",
      seq: 2,
      runtime_event_type: "run.finished",
      payload: null,
      payload_hash: `sha256:${"7".repeat(64)}`,
      idempotency_key: "finish:happy",
    },
    SessionEnd: {
      event: "SessionEnd",
      t: "2026-01-13T10:05:32Z",
      status: "Timeout",
      confidence: 0,
      total_tool_calls: 2,
      total_latency_ms: 88045,
    },
  },
  "replay-adr0003": {
    ReplayHeader: {
      type: "ReplayHeader",
      version: "1.0.0",
      session_id: "s",
      started_at: "2026-01-01T00:00:00Z",
      policy_bundle_id: "b",
    },
    SessionStart: { type: "SessionStart", task: "", context: { a: 1 }, instructions: "i" },
    ToolCall: { type: "ToolCall", id: "c1", tool: "Read", params: { file_path: "a" } },
    ToolResult: {
      type: "ToolResult",
      id: "c1",
      output: "text",
      step_utility: 0.2,
      latency_ms: 0.5,
      side_effects: [1, "a", null],
    },
    Verification: { type: "Verification", tests_before: 3, tests_after: 5, delta: -2, ci_status: "ok" },
    SessionEnd: {
      type: "SessionEnd",
      ended_at: "2026-01-01T00:10:00Z",
      outcome: "failure",
      error_message: "e",
    },
  },
};

/** `event` with `key` set to the JSON text `text` (numbers kept as written), or without `key`. */
function withMember(event: object, key: string, text: string | undefined): JsonValue {
  const rest: Record<string, unknown> = { ...event };
  delete rest[key];
  if (text === undefined) return readJson(JSON.stringify(rest));
  const marker = JSON.stringify("\u0000member\u0000");
  return readJson(JSON.stringify({ ...rest, [key]: JSON.parse(marker) }).replace(marker, text));
}

describe("event quick checks against zod", () => {
  for (const [id, dialect] of Object.entries(REPLAY_DIALECTS)) {
    const valid = VALID[id as keyof typeof REPLAY_DIALECTS];
    it(`${id}: covers every event type and accepts each valid example without zod`, () => {
      expect(Object.keys(valid).sort()).toEqual([...dialect.rules.keys()].sort());
      for (const [type, event] of Object.entries(valid)) {
        const rule = dialect.rules.get(type);
        const value = readJson(JSON.stringify(event));
        expect([type, rule?.accepts(value)]).toEqual([type, true]);
        expect(rule?.schema.safeParse(value).success).toBe(true);
      }
    });

    it(`${id}: gives zod's answer with any member missing, retyped, out of range or extra`, () => {
      let rejected = 0;
      for (const [type, event] of Object.entries(valid)) {
        const rule = dialect.rules.get(type);
        if (rule === undefined) throw new Error(`no rule for ${type}`);
        for (const key of [...rule.fields, "extra"]) {
          for (const text of [undefined, ...TEXTS, ...CONSTRUCTOR_TEXTS]) {
            const value = withMember(event, key, text);
            const quick = rule.accepts(value);
            const zod = rule.schema.safeParse(value).success;
            if (!quick) rejected++;
            if (text !== undefined && CONSTRUCTOR_TEXTS.includes(text)) {
              // The one place a quick check is stricter than zod: it may reject, zod decides.
              if (quick) expect([type, key, text, zod]).toEqual([type, key, text, true]);
            } else {
              expect([type, key, text, quick]).toEqual([type, key, text, zod]);
            }
          }
        }
      }
      expect(rejected).toBeGreaterThan(0);
    });
  }
});

describe("ReplayConsumer event types", () => {
  it("treats a type named like an Object.prototype member as unknown", () => {
    const findings = new Findings();
    const consumer = replayV1Format.begin(findings, {});
    const lines = [VALID["replay-v1"].ReplayHeader, { type: "toString", ts: "2026-02-15T09:00:00Z" }];
    lines.forEach((line, k) => {
      consumer.line(k + 1, readJson(JSON.stringify(line)));
    });
    consumer.end();
    expect(findings.notices.map((n) => [n.code, n.line])).toEqual([["replay.unknown_event", 2]]);
  });
});
