import { describe, expect, it } from "vitest";
import { type JsonValue, readJson } from "#shared/canonical/index.js";
import { braintrustFormat, isBraintrustSpan } from "#shared/formats/braintrust/index.js";
import { type Finding, Findings, type Turn } from "#shared/formats/index.js";
import { corpusList, corpusText } from "../support/corpus.js";

/*
 * The producer's own traces (ai-dynamo/dynamo, copied byte for byte into test/corpus/dynamo),
 * checked against what the producer's tests expect of them. Read in ai-dynamo/dynamo:
 *   - lib/llm/tests/responses_stateful_integration_test.rs (tests named in the file names);
 *   - lib/llm/src/storage/trace_replay.rs, module test `test_parse_trace_content`, and the code of
 *     `parse_trace_content` / `replay_trace` for what the tests leave implicit: turns are numbered
 *     from 1 in file order, a turn's response is stored as `resp_<turn span_id>`, and each stored
 *     response's metadata.previous_response_id is the previous turn's response id (null first).
 */

const FORMAT_PARSING =
  "responses_stateful_integration_test__test_braintrust_trace_format_parsing__trace_line.jsonl";
const TENANT_ISOLATION =
  "responses_stateful_integration_test__test_trace_replay_tenant_isolation__trace_content.jsonl";
const THROUGH_STORAGE =
  "responses_stateful_integration_test__test_trace_replay_through_storage__trace_content.jsonl";
const SAMPLE_TRACE = "trace_replay__parse_trace_content__SAMPLE_TRACE.jsonl";

interface Expectation {
  session_id: string;
  turns: Turn[];
  /** Errors as [line, path, code]; empty for a trace the producer's parser accepts. */
  errors: [number | null, string, string][];
  /** Whether detection (`isBraintrustSpan` on the first line) recognizes the file. */
  detected: boolean;
}

const EXPECTED: Record<string, Expectation> = {
  // test_braintrust_trace_format_parsing: the line is parsed as a plain serde_json::Value, and the
  // test asserts id == metadata.session_id == "4de2bcf7-…" (the id to store the session under).
  // It is never given to parse_trace_content (whose TraceSpan requires root_span_id). We read a
  // lone parentless span without root_span_id as its own root (a notice, not an error), so the
  // producer's own example inspects as a valid one-span trace with no turns.
  [FORMAT_PARSING]: {
    session_id: "4de2bcf7-793e-494f-a8a6-ef8556bd352f",
    turns: [],
    errors: [],
    detected: true,
  },
  // test_trace_replay_tenant_isolation: replaying for tenant_A and tenant_B each gives
  // turns_replayed == 1 and one response listed under session "isolated-session". The answer
  // comes from an llm span that has no input.
  [TENANT_ISOLATION]: {
    session_id: "isolated-session",
    turns: [
      {
        turn_number: 1,
        span_id: "iso-turn",
        user_input: "Hello",
        assistant_output: "Hi!",
        tool_calls: [],
        timestamp: "2026-02-03T02:52:04.000Z",
        response_id: "resp_iso-turn",
        previous_response_id: null,
      },
    ],
    errors: [],
    detected: true,
  },
  // test_trace_replay_through_storage: turns.len() == 2, user_input "What is 2+2?" then
  // "And 3+3?", session_id "replay-test-session", two response ids, the first stored response's
  // metadata.user_input contains "2+2", and the second's previous_response_id is non-empty
  // (replay_trace sets it to the first turn's response id, "resp_turn-1").
  [THROUGH_STORAGE]: {
    session_id: "replay-test-session",
    turns: [
      {
        turn_number: 1,
        span_id: "turn-1",
        user_input: "What is 2+2?",
        assistant_output: "2+2 equals 4.",
        tool_calls: [],
        timestamp: "2026-02-03T02:52:04.000Z",
        response_id: "resp_turn-1",
        previous_response_id: null,
      },
      {
        turn_number: 2,
        span_id: "turn-2",
        user_input: "And 3+3?",
        assistant_output: "3+3 equals 6.",
        tool_calls: [],
        timestamp: "2026-02-03T02:52:06.000Z",
        response_id: "resp_turn-2",
        previous_response_id: "resp_turn-1",
      },
    ],
    errors: [],
    detected: true,
  },
  // trace_replay.rs test_parse_trace_content: session_id "root-123", one turn, user_input
  // "Hello, how are you?" (the turn span's own input, not the llm span's "Hello"), and
  // assistant_output "I'm doing well!".
  [SAMPLE_TRACE]: {
    session_id: "root-123",
    turns: [
      {
        turn_number: 1,
        span_id: "turn-1",
        user_input: "Hello, how are you?",
        assistant_output: "I'm doing well!",
        tool_calls: [],
        timestamp: "2026-02-03T02:52:04.000Z",
        response_id: "resp_turn-1",
        previous_response_id: null,
      },
    ],
    errors: [],
    detected: true,
  },
};

/** Splits the file as the pipeline does (skip blank lines) and feeds each parsed line. */
function readTrace(name: string) {
  const values: [number, JsonValue][] = [];
  corpusText("dynamo", name)
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() !== "") values.push([i + 1, readJson(line)]);
    });
  const findings = new Findings();
  const consumer = braintrustFormat.begin(findings, { file: name });
  for (const [line, value] of values) consumer.line(line, value);
  return { session: consumer.end(), findings, values };
}

function brief(errors: Finding[]): [number | null, string, string][] {
  return errors.map((e) => [e.line, e.path, e.code]);
}

describe("ai-dynamo/dynamo trace replay corpus", () => {
  const names = corpusList("dynamo").filter((n) => n.endsWith(".jsonl"));

  it("holds exactly the four traces this test has expectations for", () => {
    // Prepare
    const known = Object.keys(EXPECTED).sort();
    // Act
    const present = names;
    // Assess
    expect(present).toEqual(known);
  });

  it.each(names)("%s gives the turns the producer's tests expect", (name) => {
    // Prepare
    const expected = EXPECTED[name];
    if (expected === undefined) throw new Error(`no expectation written for ${name}`);
    // Act
    const { session, findings, values } = readTrace(name);
    // Assess
    expect(brief(findings.errors)).toEqual(expected.errors);
    expect(findings.errorCount).toBe(expected.errors.length);
    expect(isBraintrustSpan(values[0]?.[1])).toBe(expected.detected);
    expect(session.summary.session_id).toBe(expected.session_id);
    expect(session.summary.turns).toEqual(expected.turns);
    expect(session.summary.counts.turns).toBe(expected.turns.length);
    expect(session.summary.counts.events).toBe(values.length);
    expect(session.summary.format).toBe("braintrust-spans");
    expect(session.summary.status).toBe("success");
  });

  it("reads the replay-through-storage trace's time range and step counts", () => {
    // Prepare
    const name = THROUGH_STORAGE;
    // Act
    const { session } = readTrace(name);
    // Assess
    expect(session.summary.started_at).toBe("2026-02-03T02:52:03.000Z");
    expect(session.summary.ended_at).toBe("2026-02-03T02:52:07.000Z");
    expect(session.summary.counts.steps_by_type).toEqual({ task: 3, llm: 2 });
    expect(session.summary.total_latency_ms).toBeNull();
    expect(session.tool_calls).toEqual([]);
  });
});
