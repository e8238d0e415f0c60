import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  canonicalize,
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { inspect, type LayerCOrigin } from "#shared/formats/index.js";
import { redactFile } from "#shared/redact/index.js";
import { isStructuralKey, PARANOID_TEXT } from "#shared/redact/layer-c/policy.js";
import { ALL_PRESETS, fakeHash, parseLines, redactBytes } from "./helpers.js";

const H = (v: JsonValue): string => canonicalHash(v, "openagents");
const ORIGIN: LayerCOrigin = {
  replay_hash: fakeHash("0"),
  verdict: "passed",
  checks_total: { passed: 1, failed: 0, unverifiable: 0 },
  errors_total: 0,
};
const jsonl = (events: unknown[]): string => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;

async function inspectText(text: string) {
  return (await inspect(Readable.from([Buffer.from(text)]), { file: "copy" })).report;
}

const PARAMS = { command: "cat /Users/alice/secret.txt", token: "sk-7Hq2Lm9Xz4Vb8Nc1Rt6Yw3Pd" };
const OUTPUT = { content: "TOP SECRET OUTPUT", error: null, success: true };
const V1 = [
  { type: "ReplayHeader", replay_version: 1, producer: "openagents", created_at: "2026-02-01T00:00:00Z" },
  {
    type: "SessionStart",
    ts: "2026-02-01T00:00:00Z",
    session_id: "sess-1",
    policy_bundle_id: "policy.v1",
    repo: { remote: "git@github.com:alice/private.git", branch: "main" },
  },
  {
    type: "ToolCall",
    ts: "2026-02-01T00:00:01Z",
    step_id: "s1",
    tool: "bash",
    params: PARAMS,
    params_hash: H(PARAMS),
  },
  {
    type: "ToolResult",
    ts: "2026-02-01T00:00:02Z",
    step_id: "s1",
    ok: true,
    output: OUTPUT,
    output_hash: H(OUTPUT),
    latency_ms: 12,
    side_effects: ["/Users/alice/project/a.txt"],
    error: null,
  },
  {
    type: "Verification",
    ts: "2026-02-01T00:00:03Z",
    command: "npm test --token=sk-7Hq2Lm9Xz4Vb8Nc1Rt6Yw3Pd",
    exit_code: 0,
  },
  {
    type: "MysteryEvent",
    ts: "2026-02-01T00:00:04Z",
    id: "m1",
    status: "ok",
    secret_note: "do not publish",
    nested: { data: "hidden" },
    tool: "grep",
    note_hash: fakeHash("b"),
  },
  {
    type: "SessionEnd",
    ts: "2026-02-01T00:00:05Z",
    status: "success",
    confidence: 1.0,
    summary: "Fixed bug for alice@example.com",
  },
];

describe("REPLAY.jsonl v1", () => {
  it("removes params and outputs, keeps their hashes, keeps event count and order", async () => {
    const { text, summary } = await redactBytes(jsonl(V1));
    const lines = parseLines(text);
    expect(lines.map((l) => l.type)).toEqual(V1.map((e) => e.type));
    expect(summary.events).toBe(V1.length);
    const call = lines[2] as JsonObject;
    const result = lines[3] as JsonObject;
    expect(call.params).toBeUndefined();
    expect(call.params_hash).toBe(H(PARAMS));
    expect(result.output).toBeUndefined();
    expect(result.output_hash).toBe(H(OUTPUT));
    expect(text).not.toContain("TOP SECRET OUTPUT");
    expect(text).not.toContain("secret.txt");
    expect(summary.removed_fields["$.params"]).toBe(1);
    expect(summary.removed_fields["$.output"]).toBe(1);
  });

  it("writes every line as canonical openagents JSON", async () => {
    const { text } = await redactBytes(jsonl(V1));
    for (const line of text.split("\n").filter((l) => l !== "")) {
      expect(canonicalize(readJson(decodeUtf8(Buffer.from(line))), "openagents")).toBe(line);
    }
    expect(text.endsWith("\n")).toBe(true);
  });

  it("records the summary on the ReplayHeader", async () => {
    const { text, summary } = await redactBytes(jsonl(V1));
    const header = parseLines(text)[0] as JsonObject;
    expect(header.type).toBe("ReplayHeader");
    const recorded = JSON.parse(JSON.stringify(header.redaction)) as typeof summary;
    expect(recorded).toEqual(summary);
    expect(recorded.layer).toBe("C");
    expect(recorded.preset).toBe("private_repo");
    expect(recorded.by_rule["layer_c.raw_removed"]).toBeGreaterThanOrEqual(2);
    expect(recorded.total).toBe(Object.values(recorded.by_rule).reduce((a, b) => a + b, 0));
  });

  it("scrubs remaining strings with the scrubber", async () => {
    const { text } = await redactBytes(jsonl(V1));
    expect(text).not.toContain("sk-7Hq2Lm9Xz4Vb8Nc1Rt6Yw3Pd");
    expect(text).not.toContain("/Users/alice");
    expect(text).not.toContain("alice@example.com");
  });

  it("adds params_hash / output_hash computed from the original when the file has none", async () => {
    const params = { q: "x" };
    const output = { content: "y", error: null, success: true };
    const events = [
      { event: "ReplayHeader", replay_version: 1, producer: "dsrs", created_at: "2026-02-01T00:00:00Z" },
      {
        event: "ToolCall",
        t: "2026-02-01T00:00:01Z",
        id: "c1",
        tool: "t",
        params,
        params_hash: H(params),
        step_id: "s",
      },
      {
        event: "ToolResult",
        t: "2026-02-01T00:00:02Z",
        id: "c1",
        output,
        output_hash: fakeHash("e"),
        step_utility: 0.5,
        latency_ms: 3,
      },
      { event: "Odd", t: "2026-02-01T00:00:03Z", params: { a: 1 }, payload: [1, 2] },
    ];
    const { text, summary } = await redactBytes(jsonl(events));
    const lines = parseLines(text);
    // A recorded hash is kept as is, even when it does not recompute.
    expect((lines[2] as JsonObject).output_hash).toBe(fakeHash("e"));
    const odd = lines[3] as JsonObject;
    expect(odd.params).toBeUndefined();
    expect(odd.params_hash).toBe(H(readJson('{"a":1}')));
    expect(odd.payload_hash).toBe(H(readJson("[1,2]")));
    expect(summary.hashes_added["$.params_hash"]).toBe(1);
    expect(summary.format).toBe("replay-dsrs");
  });

  it("fails closed on unknown event types", async () => {
    for (const preset of ["open_source", "private_repo"] as const) {
      const { text, summary } = await redactBytes(jsonl(V1), { preset });
      const odd = parseLines(text)[5] as JsonObject;
      expect(Object.keys(odd).sort()).toEqual(["id", "note_hash", "status", "tool", "ts", "type"]);
      expect(odd.note_hash).toBe(fakeHash("b"));
      expect(text).not.toContain("do not publish");
      expect(summary.by_rule["layer_c.fail_closed"]).toBeGreaterThanOrEqual(2);
    }
  });

  it("paranoid keeps only structural and required fields", async () => {
    const { text, summary } = await redactBytes(jsonl(V1), { preset: "paranoid" });
    const lines = parseLines(text);
    const start = lines[1] as JsonObject;
    expect(start.repo).toBeUndefined();
    const result = lines[3] as JsonObject;
    expect(result.side_effects).toEqual([]);
    expect(result.error).toBeUndefined();
    expect((lines[4] as JsonObject).command).toBe(PARANOID_TEXT);
    const odd = lines[5] as JsonObject;
    expect(Object.keys(odd).sort()).toEqual(["id", "note_hash", "status", "ts", "type"]);
    const end = lines[6] as JsonObject;
    expect(end.summary).toBeUndefined();
    for (const line of lines.slice(1)) {
      for (const key of Object.keys(line)) {
        const required = ["policy_bundle_id", "tool", "command", "side_effects", "confidence"].includes(key);
        expect(isStructuralKey(key) || required, key).toBe(true);
      }
    }
    expect(summary.by_rule["layer_c.paranoid"]).toBeGreaterThan(0);
  });

  it("gives copies that inspect reads without errors, under every preset", async () => {
    for (const preset of ALL_PRESETS) {
      const { text } = await redactBytes(jsonl(V1), { preset });
      const report = await inspectText(text);
      expect(report.verdict, JSON.stringify(report.errors)).not.toBe("invalid");
      expect(report.format).toBe("replay-v1");
      expect(report.checks_total.failed).toBe(0);
    }
  });

  it("streams: chunk boundaries do not change the copy", async () => {
    const whole = await redactBytes(jsonl(V1));
    const split = await redactBytes(jsonl(V1), {}, 7);
    expect(split.text).toBe(whole.text);
  });

  it("puts the summary on the first line when there is no ReplayHeader", async () => {
    const { text } = await redactBytes(jsonl(V1.slice(1)));
    const lines = parseLines(text);
    expect(lines).toHaveLength(V1.length - 1);
    expect(isJsonObject((lines[0] as JsonObject).redaction)).toBe(true);
  });

  it("rejects unreadable lines and unknown formats with located errors", async () => {
    await expect(redactBytes(`${jsonl(V1.slice(0, 2))}{oops\n`)).rejects.toMatchObject({
      location: { line: 3, file: "input" },
    });
    await expect(redactBytes('{"hello":1}\n')).rejects.toMatchObject({ code: "format.unknown" });
    await expect(redactBytes("\n\n")).rejects.toMatchObject({ code: "input.empty" });
  });

  it("summary() throws until the chunks were read", async () => {
    const result = redactFile(Readable.from([Buffer.from(jsonl(V1))]), { file: "x", original: ORIGIN });
    expect(() => result.summary()).toThrow(/once every chunk/);
    for await (const _ of result.chunks) {
      // drain
    }
    expect(result.summary().events).toBe(V1.length);
    expect(result.errors).toEqual([]);
  });

  /** Every chunk of `redactFile` over `text`, and its errors. */
  async function findingsOf(text: string) {
    const result = redactFile(Readable.from([Buffer.from(text)]), { file: "x", original: ORIGIN });
    const chunks: Uint8Array[] = [];
    for await (const chunk of result.chunks) chunks.push(chunk);
    return { chunks, errors: result.errors, summary: () => result.summary() };
  }

  it("gives bad input back as located findings and no copy, as inspect does", async () => {
    const bad = await findingsOf(`${jsonl(V1.slice(0, 2))}{oops\n`);
    expect(bad.chunks).toEqual([]);
    expect(bad.errors).toEqual([
      expect.objectContaining({ line: 3, column: 2, path: "$", code: "json.syntax" }),
    ]);
    expect(bad.summary).toThrow(/once every chunk/);
    expect((await findingsOf('{"hello":1}\n')).errors).toMatchObject([{ line: 1, code: "format.unknown" }]);
    expect((await findingsOf("\n\n")).errors).toMatchObject([{ line: null, code: "input.empty" }]);
    expect((await findingsOf(`${jsonl(V1)}[1]\n`)).errors).toMatchObject([{ code: "redact.not_object" }]);
  });

  it("throws what is not the input's fault (a source that fails), so a queue can retry it", async () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(jsonl(V1.slice(0, 2)));
      throw full;
    }
    const result = redactFile(failing(), { file: "x", original: ORIGIN });
    await expect(
      (async () => {
        for await (const _ of result.chunks) {
          // drain
        }
      })(),
    ).rejects.toBe(full);
    expect(result.errors).toEqual([]);
  });
});

describe("REPLAY.jsonl ADR-0003 dialect", () => {
  it("removes the params and output it requires (see the note on replay-jsonl.ts)", async () => {
    const events = [
      { type: "ReplayHeader", version: "1.0.0", session_id: "s", started_at: "2026-02-01T00:00:00Z" },
      { type: "SessionStart", task: "Fix the bug in /Users/alice/app" },
      { type: "ToolCall", id: "c1", tool: "read", params: { path: "x" } },
      { type: "ToolResult", id: "c1", output: "file body" },
      { type: "SessionEnd", ended_at: "2026-02-01T00:00:09Z", outcome: "success" },
    ];
    const { text } = await redactBytes(jsonl(events), { preset: "paranoid" });
    const lines = parseLines(text);
    expect((lines[1] as JsonObject).task).toBe(PARANOID_TEXT);
    expect((lines[2] as JsonObject).params_hash).toBe(H({ path: "x" }));
    expect((lines[3] as JsonObject).output_hash).toBe(H("file body"));
    expect(text).not.toContain("file body");
  });
});

const SPANS = [
  {
    id: "root",
    span_id: "root",
    root_span_id: "root",
    created: "2026-02-03T02:52:03.000Z",
    input: "Session: secret project",
    metadata: { session_id: "sess", owner: "alice@example.com" },
    span_attributes: { name: "Session /Users/alice", type: "task" },
    _written_at: "2026-02-03T02:52:03.000Z",
    otel: { trace: "abc" },
  },
  {
    id: "turn-1",
    span_id: "turn-1",
    root_span_id: "root",
    span_parents: ["root"],
    created: "2026-02-03T02:52:04.000Z",
    input: "What is the password?",
    span_attributes: { name: "Turn 1", type: "task" },
  },
  {
    id: "llm-1",
    span_id: "llm-1",
    root_span_id: "root",
    span_parents: ["turn-1"],
    created: "2026-02-03T02:52:05.000Z",
    input: [{ role: "user", content: "What is the password?" }],
    output: { role: "assistant", content: "hunter2" },
    metadata: { model: "m", messages: ["hidden message"] },
    metrics: { start: 1, end: 2, tokens: 30 },
    span_attributes: { name: "llm", type: "llm" },
  },
];

describe("Braintrust spans", () => {
  it("removes inputs and outputs and adds their hashes", async () => {
    const { text } = await redactBytes(jsonl(SPANS));
    const lines = parseLines(text);
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.span_id)).toEqual(["root", "turn-1", "llm-1"]);
    const llm = lines[2] as JsonObject;
    expect(llm.input).toBeUndefined();
    expect(llm.output).toBeUndefined();
    expect(llm.input_hash).toBe(H(readJson(JSON.stringify(SPANS[2]?.input))));
    expect(llm.output_hash).toBe(H(readJson(JSON.stringify(SPANS[2]?.output))));
    expect((llm.metadata as JsonObject).messages_hash).toBe(H(["hidden message"]));
    for (const secret of ["hunter2", "password", "secret project", "hidden message", "alice@example.com"])
      expect(text).not.toContain(secret);
  });

  it("records the summary in the root span's metadata and fails closed on unknown fields", async () => {
    const { text, summary } = await redactBytes(jsonl(SPANS));
    const root = parseLines(text)[0] as JsonObject;
    const metadata = root.metadata as JsonObject;
    expect(JSON.parse(JSON.stringify(metadata.redaction))).toEqual(summary);
    expect(root._written_at).toBe("2026-02-03T02:52:03.000Z");
    expect(root.otel).toBeUndefined();
    expect(summary.format).toBe("braintrust-spans");
  });

  it("paranoid keeps only ids, types, timings and hashes", async () => {
    const { text } = await redactBytes(jsonl(SPANS), { preset: "paranoid" });
    const llm = parseLines(text)[2] as JsonObject;
    expect(llm.span_attributes).toEqual({ type: "llm" });
    expect(JSON.parse(JSON.stringify(llm.metrics))).toEqual({ start: 1, end: 2 });
    expect(Object.keys(llm).sort()).toEqual(
      [
        "created",
        "id",
        "input_hash",
        "metadata",
        "metrics",
        "output_hash",
        "root_span_id",
        "span_attributes",
        "span_id",
        "span_parents",
      ].sort(),
    );
    expect(llm.metadata).toEqual({ messages_hash: H(["hidden message"]) });
  });

  it("gives copies inspect reads, under every preset", async () => {
    for (const preset of ALL_PRESETS) {
      const { text } = await redactBytes(jsonl(SPANS), { preset });
      const report = await inspectText(text);
      expect(report.verdict, JSON.stringify(report.errors)).not.toBe("invalid");
    }
  });

  it("carries the summary on a root span that is not the first line", async () => {
    const reordered = [SPANS[1], SPANS[0], SPANS[2]];
    const { text } = await redactBytes(jsonl(reordered));
    const lines = parseLines(text);
    expect(lines.map((l) => l.span_id)).toEqual(["turn-1", "root", "llm-1"]);
    expect(isJsonObject((lines[1]?.metadata as JsonObject | undefined)?.redaction)).toBe(true);
    expect(lines[0]?.metadata).toBeUndefined();
  });
});
