import { describe, expect, it } from "vitest";
import { readJson } from "#shared/canonical/index.js";
import { braintrustFormat, isBraintrustSpan } from "#shared/formats/braintrust/index.js";
import { Findings, type Session } from "#shared/formats/index.js";

/** Feeds JSON Lines text to the consumer as the pipeline does: non-blank lines, 1-based numbers. */
function read(text: string): { session: Session; findings: Findings } {
  const findings = new Findings();
  const consumer = braintrustFormat.begin(findings, { file: "trace.jsonl" });
  text.split("\n").forEach((line, i) => {
    if (line.trim() !== "") consumer.line(i + 1, readJson(line));
  });
  return { session: consumer.end(), findings };
}

/** One line per span. */
function jsonl(...spans: object[]): string {
  return `${spans.map((s) => JSON.stringify(s)).join("\n")}\n`;
}

const ROOT = "root-1";

function span(id: string, parents: string[] | undefined, extra: object = {}): object {
  return {
    id,
    span_id: id,
    root_span_id: ROOT,
    ...(parents === undefined ? {} : { span_parents: parents }),
    ...extra,
  };
}

function task(id: string, name: string, parents: string[] | undefined, extra: object = {}): object {
  return span(id, parents, { span_attributes: { name, type: "task" }, ...extra });
}

function llm(id: string, parent: string, content: unknown, extra: object = {}): object {
  return span(id, [parent], {
    output: { role: "assistant", content },
    span_attributes: { name: "model", type: "llm" },
    ...extra,
  });
}

function tool(id: string, parent: string, name: string, metrics: object = {}): object {
  return span(id, [parent], {
    input: { command: "ls" },
    output: { stdout: "a\nb" },
    metadata: { tool_name: name },
    metrics,
    span_attributes: { name: `Terminal: ${name}`, type: "tool" },
  });
}

/** A two-turn session with the oddities real traces carry (extra fields, `success: "true"`). */
const TRACE = jsonl(
  task(ROOT, "Claude Code: demo", undefined, {
    created: "2026-02-03T02:52:03.000Z",
    input: "Session: demo",
    metadata: { session_id: "session-abc", workspace: "/w" },
    _written_at: "2026-02-03T02:52:03.000Z",
    _project: "claude-code",
  }),
  task("turn-1", "Turn 1", [ROOT], {
    created: "2026-02-03T02:52:04.000Z",
    input: "how many lines?",
    metrics: { start: 1770087124 },
    _written_at: "2026-02-03T02:52:04.000Z",
  }),
  {
    ...tool("tool-1", "turn-1", "Bash", {
      start: 1770087125,
      end: 1770087125.5,
      duration_ms: 497,
      success: "true",
    }),
    created: "2026-02-03T02:52:05.000Z",
    otel: { duration_ms: 497, success: "true" },
    _written_at: "2026-02-03T02:52:05.000Z",
  },
  llm("llm-1a", "turn-1", "Let me count.", { created: "2026-02-03T02:52:05.500Z" }),
  llm("llm-1b", "turn-1", "It has **225 lines**.", {
    created: "2026-02-03T02:52:06.000Z",
    metrics: { start: 1770087126, end: 1770087129, tokens: 7 },
  }),
  // A task under a turn is not a turn, even when named like one: turns are children of the root.
  task("nested", "Turn inside", ["turn-1"], { created: "2026-02-03T02:52:06.100Z", input: "nested" }),
  // A direct child of the root that is not named "Turn…" is not a turn either.
  task("setup", "Setup", [ROOT], { created: "2026-02-03T02:52:06.200Z", input: "setup" }),
  task("turn-2", "Turn 2", [ROOT], {
    created: "2026-02-03T02:52:07.000Z",
    input: [
      { role: "system", content: "be brief" },
      { role: "user", content: "and the LICENSE?" },
      { role: "user", content: "a later user message" },
    ],
  }),
  llm("llm-2", "turn-2", "201 lines.", { created: "2026-02-03T02:52:08.000Z" }),
);

function codes(findings: Findings): string[] {
  return findings.errors.map((e) => e.code);
}

describe("isBraintrustSpan", () => {
  it("accepts an object with string span_id and root_span_id, and nothing else", () => {
    // Prepare
    const span = readJson('{"span_id": "a", "root_span_id": "a"}');
    const others = [
      readJson('{"span_id": "a"}'),
      readJson('{"span_id": 1, "root_span_id": "a"}'),
      readJson('[{"span_id": "a", "root_span_id": "a"}]'),
      readJson("null"),
      readJson('"span_id"'),
    ];
    // Act
    const verdicts = others.map(isBraintrustSpan);
    // Assess
    expect(isBraintrustSpan(span)).toBe(true);
    expect(verdicts).toEqual([false, false, false, false, false]);
  });
});

describe("braintrustFormat: turns", () => {
  it("derives the turns in file order, with answers, tool calls and the previous_response_id chain", () => {
    // Prepare
    const text = TRACE;
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(session.summary.turns).toEqual([
      {
        turn_number: 1,
        span_id: "turn-1",
        user_input: "how many lines?",
        assistant_output: "It has **225 lines**.",
        tool_calls: [{ name: "Bash", span_id: "tool-1" }],
        timestamp: "2026-02-03T02:52:04.000Z",
        response_id: "resp_turn-1",
        previous_response_id: null,
      },
      {
        turn_number: 2,
        span_id: "turn-2",
        user_input: "and the LICENSE?",
        assistant_output: "201 lines.",
        tool_calls: [],
        timestamp: "2026-02-03T02:52:07.000Z",
        response_id: "resp_turn-2",
        previous_response_id: "resp_turn-1",
      },
    ]);
  });

  it("summarizes the session: id from root metadata, time range, counts, latency, tool calls", () => {
    // Prepare
    const text = TRACE;
    // Act
    const { session } = read(text);
    // Assess
    const s = session.summary;
    expect(s.format).toBe("braintrust-spans");
    expect(s.producer).toBe("braintrust");
    expect(s.session_id).toBe("session-abc");
    expect(s.started_at).toBe("2026-02-03T02:52:03.000Z");
    expect(s.ended_at).toBe("2026-02-03T02:52:08.000Z");
    expect(s.status).toBe("success");
    expect(s.counts).toEqual({
      events: 9,
      tool_calls: 1,
      failed_tool_calls: 0,
      turns: 2,
      steps_by_type: { task: 5, tool: 1, llm: 3 },
    });
    // max(metrics.end) - min(metrics.start) = 1770087129 - 1770087124 seconds.
    expect(s.total_latency_ms).toBe(5000);
    expect(session.tool_calls).toEqual([
      {
        id: "tool-1",
        step_id: "tool-1",
        tool: "Bash",
        params_hash: null,
        output_hash: null,
        latency_ms: 497,
        ok: true,
        side_effects: [],
        line: 3,
      },
    ]);
    expect(session.runtime_events).toEqual([]);
  });

  it("falls back to the root span_id for the session id, and to metrics for the time range", () => {
    // Prepare
    const text = jsonl(
      task(ROOT, "Session", undefined, { metrics: { start: 1770087120 } }),
      task("turn-1", "Turn 1", [ROOT], { input: "hi", metrics: { start: 1770087121, end: 1770087122.25 } }),
    );
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(session.summary.session_id).toBe(ROOT);
    expect(session.summary.started_at).toBe("2026-02-03T02:52:00.000Z");
    expect(session.summary.ended_at).toBe("2026-02-03T02:52:02.250Z");
    expect(session.summary.total_latency_ms).toBe(2250);
    expect(session.summary.turns?.[0]?.timestamp).toBeNull();
  });
});

describe("braintrustFormat: user input", () => {
  it.each([
    ["a string", "What is 2+2?", "What is 2+2?"],
    [
      "a messages array (first user message with string content)",
      [
        { role: "assistant", content: "earlier answer" },
        { role: "user", content: [{ type: "text", text: "parts are skipped" }] },
        { role: "user", content: "What is 2+2?" },
      ],
      "What is 2+2?",
    ],
    ["an array without a user message", [{ role: "system", content: "x" }], null],
    ["an object", { prompt: "What is 2+2?" }, null],
    ["missing", undefined, null],
  ])("input as %s", (_label, input, expected) => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined), task("turn-1", "Turn 1", [ROOT], { input }));
    // Act
    const { session } = read(text);
    // Assess
    expect(session.summary.turns?.map((t) => t.user_input)).toEqual([expected]);
  });
});

describe("braintrustFormat: notices", () => {
  it("reports each unknown field once per file, with how many lines carry it", () => {
    // Prepare
    const text = TRACE;
    // Act
    const { findings } = read(text);
    // Assess
    const unknown = findings.notices.filter((n) => n.code === "spans.unknown_field");
    expect(unknown.map((n) => [n.path, n.line])).toEqual([
      ["$._written_at", 1],
      ["$._project", 1],
      ["$.otel", 3],
    ]);
    expect(unknown[0]?.message).toContain("on 3 lines, first 1");
    expect(unknown[2]?.message).toContain("on line 3");
  });

  it('notices a string metric (success: "true") once, without an error', () => {
    // Prepare
    const text = TRACE;
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.notices.filter((n) => n.code === "spans.metric_not_number").map((n) => n.path)).toEqual([
      "$.metrics.success",
    ]);
  });

  it("notices a span type outside Braintrust's enum", () => {
    // Prepare
    const text = jsonl(span(ROOT, undefined, { span_attributes: { name: "x", type: "agent" } }));
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.notices.map((n) => n.code)).toEqual(["spans.unknown_span_type"]);
  });
});

describe("braintrustFormat: span errors", () => {
  it("reports a missing span_id with its line and path", () => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined), { root_span_id: ROOT, span_parents: [ROOT] });
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({
        line: 2,
        path: "$.span_id",
        code: "spans.missing_field",
        expected: "expected a non-empty string",
        found: "nothing (missing)",
      }),
    ]);
  });

  it("reports wrong types with the JSON path, what was expected and what was found", () => {
    // Prepare
    const text =
      '{"span_id": "r", "root_span_id": "r", "metrics": {"start": "soon"}, "metadata": 5}\n' +
      '{"span_id": "c", "root_span_id": "r", "span_parents": ["r", 7], "created": "yesterday"}\n';
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors.map((e) => [e.line, e.path, e.code, e.found])).toEqual([
      [1, "$.metadata", "spans.invalid_field", "number 5"],
      [1, "$.metrics.start", "spans.invalid_field", 'string "soon"'],
      [2, "$.span_parents[1]", "spans.invalid_field", "number 7"],
      [2, "$.created", "spans.invalid_field", 'string "yesterday"'],
    ]);
  });

  it("reports a line that is not an object", () => {
    // Prepare
    const text = `${jsonl(task(ROOT, "Session", undefined))}[1, 2]\n`;
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({ line: 2, path: "$", code: "spans.not_object" }),
    ]);
  });
});

describe("braintrustFormat: tree errors", () => {
  it("reports a second root at its line", () => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined), task("other", "Other", [], {}));
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({ line: 2, code: "spans.multiple_roots", found: "2 roots" }),
    ]);
    // Like the producer, the first root still names the session.
    expect(session.summary.session_id).toBe(ROOT);
  });

  it("counts a span listing itself as a root", () => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", [ROOT]), task("turn-1", "Turn 1", [ROOT], { input: "hi" }));
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(session.summary.turns?.map((t) => t.span_id)).toEqual(["turn-1"]);
  });

  it("reports no root when every span has a parent", () => {
    // Prepare
    const text = jsonl(span("a", ["b"]), span("b", ["a"]));
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(codes(findings)).toEqual(["spans.no_root", "spans.cycle"]);
    expect(findings.errors[1]?.message).toContain('"a" → "b" → "a"');
    expect(session.summary.session_id).toBeNull();
    expect(session.summary.turns).toEqual([]);
  });

  it("reports a cycle below the root", () => {
    // Prepare
    const text = jsonl(
      task(ROOT, "Session", undefined),
      span("a", [ROOT, "c"]),
      span("b", ["a"]),
      span("c", ["b"]),
    );
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({ line: 3, path: "$.span_parents[0]", code: "spans.cycle" }),
    ]);
  });

  it("reports an unknown parent with the path of the parent", () => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined), span("a", [ROOT, "ghost"]));
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({
        line: 2,
        path: "$.span_parents[1]",
        code: "spans.unknown_parent",
        found: 'string "ghost"',
      }),
    ]);
  });

  it("reports a span of another trace, naming its line", () => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined), {
      ...span("a", [ROOT]),
      root_span_id: "elsewhere",
    });
    // Act
    const { findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({
        line: 2,
        path: "$.root_span_id",
        code: "spans.foreign_root",
        expected: '"root-1"',
        found: 'string "elsewhere"',
      }),
    ]);
    expect(findings.errors[0]?.message).toContain("line 2");
  });

  it("reports a duplicate span_id, naming the first line, and keeps the first span", () => {
    // Prepare
    const text = jsonl(
      task(ROOT, "Session", undefined),
      task("turn-1", "Turn 1", [ROOT], { input: "first" }),
      task("turn-1", "Turn 1", [ROOT], { input: "second" }),
    );
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([
      expect.objectContaining({ line: 3, path: "$.span_id", code: "spans.duplicate_span" }),
    ]);
    expect(findings.errors[0]?.message).toContain("line 2");
    expect(session.summary.turns?.map((t) => t.user_input)).toEqual(["first"]);
  });

  it("reports an empty trace", () => {
    // Prepare
    const text = "\n\n";
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(codes(findings)).toEqual(["spans.empty"]);
    expect(session.summary.status).toBe("unknown");
  });
});

describe("braintrustFormat: status", () => {
  it('fails the session when a tool reports metrics.success "false" (a string)', () => {
    // Prepare
    const text = jsonl(
      task(ROOT, "Session", undefined),
      task("turn-1", "Turn 1", [ROOT], { input: "run it" }),
      tool("tool-ok", "turn-1", "Read", { success: "true" }),
      tool("tool-bad", "turn-1", "Bash", { success: "false" }),
    );
    // Act
    const { session, findings } = read(text);
    // Assess
    expect(findings.errors).toEqual([]);
    expect(session.summary.status).toBe("failed");
    expect(session.summary.counts.failed_tool_calls).toBe(1);
    expect(session.tool_calls.map((c) => [c.tool, c.ok])).toEqual([
      ["Read", true],
      ["Bash", false],
    ]);
  });

  it.each([
    ["an error field", { error: "boom" }, "failed"],
    ["a null error", { error: null }, "success"],
    ["success false", { metrics: { success: false } }, "failed"],
    ["success 0", { metrics: { success: 0 } }, "failed"],
    ["success true", { metrics: { success: true } }, "success"],
  ])("reads %s", (_label, extra, status) => {
    // Prepare
    const text = jsonl(task(ROOT, "Session", undefined, extra));
    // Act
    const { session } = read(text);
    // Assess
    expect(session.summary.status).toBe(status);
  });
});
