/**
 * Tool calls matched while the replay is read (`ToolCallMatcher`): the same rows, in the same
 * order and with the same totals, as pairing two whole lists (the former `matchToolCalls`, kept
 * here as the reference), while holding only what the receipt can still pair with.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Findings, inspect, MAX_ROWS, type ToolCallRecord } from "#shared/formats/index.js";
import { beginVerify, verifyReplay } from "#shared/receipt/index.js";
import { compareValues, ToolCallMatcher } from "#shared/receipt/match.js";
import { normalizeReplaySideEffect, type ReceiptToolCall } from "#shared/receipt/read.js";

// ---- the reference: pairing whole lists, as verify did before it streamed ----

function referenceMatch(receiptCalls: readonly ReceiptToolCall[], replayCalls: readonly ToolCallRecord[]) {
  const byId = new Map<string, number>();
  const byStep = new Map<string, number>();
  replayCalls.forEach((c, k) => {
    if (c.id !== null && !byId.has(c.id)) byId.set(c.id, k);
    if (c.step_id !== null && !byStep.has(c.step_id)) byStep.set(c.step_id, k);
  });
  const used = new Set<number>();
  const pairs: [ReceiptToolCall, ToolCallRecord, number][] = [];
  const missingInReplay: ReceiptToolCall[] = [];
  const unkeyed: ReceiptToolCall[] = [];
  for (const call of receiptCalls) {
    let index: number | undefined;
    let keyed = false;
    if (call.id !== null && byId.size > 0) {
      keyed = true;
      index = byId.get(call.id);
    } else if (call.step_id !== null && byStep.size > 0) {
      keyed = true;
      index = byStep.get(call.step_id);
    }
    if (!keyed) unkeyed.push(call);
    else if (index === undefined || used.has(index)) missingInReplay.push(call);
    else {
      used.add(index);
      pairs.push([call, replayCalls[index] as ToolCallRecord, index]);
    }
  }
  const rest = replayCalls.map((c, k) => [c, k] as [ToolCallRecord, number]).filter(([, k]) => !used.has(k));
  let next = 0;
  for (const call of unkeyed) {
    const replay = rest[next++];
    if (replay === undefined) missingInReplay.push(call);
    else pairs.push([call, replay[0], replay[1]]);
  }
  missingInReplay.sort((a, b) => a.index - b.index);
  return { pairs, missingInReplay, missingInReceipt: rest.slice(next) };
}

const rcName = (c: ReceiptToolCall) => c.id ?? c.step_id ?? `#${c.index}`;
const rpName = (c: ToolCallRecord, k: number) =>
  c.id ?? c.step_id ?? `#${k}${c.line === null ? "" : ` (line ${c.line})`}`;
const setString = (values: readonly string[]) => JSON.stringify([...new Set(values)].sort());

function referenceRows(receiptCalls: readonly ReceiptToolCall[], replayCalls: readonly ToolCallRecord[]) {
  const findings = new Findings();
  const { pairs, missingInReplay, missingInReceipt } = referenceMatch(receiptCalls, replayCalls);
  for (const [rc, call, k] of pairs) {
    const subject = `tool call ${rcName(rc)} (receipt #${rc.index}, replay ${rpName(call, k)})`;
    compareValues(findings, "tool", subject, rc.tool, call.tool);
    compareValues(findings, "params_hash", subject, rc.params_hash, call.params_hash);
    compareValues(findings, "output_hash", subject, rc.output_hash, call.output_hash);
    if (rc.ok !== null)
      compareValues(findings, "ok", subject, String(rc.ok), call.ok === null ? null : String(call.ok));
    if (rc.side_effects !== null)
      compareValues(
        findings,
        "side_effects",
        subject,
        setString(rc.side_effects),
        setString(call.side_effects.map(normalizeReplaySideEffect)),
      );
  }
  for (const rc of missingInReplay)
    findings.check({
      check: "tool_call",
      subject: `tool call ${rcName(rc)} (receipt #${rc.index})`,
      expected: `${rc.tool ?? "(no tool)"} ${rcName(rc)}`,
      actual: "missing in replay",
      status: "failed",
    });
  for (const [call, k] of missingInReceipt)
    findings.check({
      check: "tool_call",
      subject: `tool call ${rpName(call, k)} (replay #${k})`,
      expected: "missing in receipt",
      actual: `${call.tool ?? "(no tool)"} ${rpName(call, k)}`,
      status: "failed",
    });
  return findings;
}

/**
 * The matcher's rows, the replay's calls given as a reader gives them: each call as it comes
 * with its result's fields empty, each result later (here: after the next call).
 */
function streamedRows(receiptCalls: readonly ReceiptToolCall[], replayCalls: readonly ToolCallRecord[]) {
  const matcher = new ToolCallMatcher(receiptCalls);
  let pending: ToolCallRecord | undefined;
  const complete = (call: ToolCallRecord | undefined) => {
    if (call?.line == null) return;
    matcher.result(call.line, {
      output_hash: call.output_hash,
      latency_ms: call.latency_ms,
      ok: call.ok,
      side_effects: call.side_effects,
    });
  };
  for (const call of replayCalls) {
    matcher.call({ ...call, output_hash: null, latency_ms: null, ok: null, side_effects: [] });
    complete(pending);
    pending = call;
  }
  complete(pending);
  const findings = new Findings();
  matcher.finish(findings);
  return { findings, matcher };
}

const rows = (f: Findings) => ({ checks: f.checks, counts: f.checkCounts });

// ---- generated calls: a few keys, so ids and step ids repeat, collide and go missing ----

const key = fc.option(fc.constantFrom("a", "b", "c", "d", "e"), { nil: null });
const hash = fc.option(fc.constantFrom("sha256:1", "sha256:2", "[REDACTED]"), { nil: null });
const replayCall = fc.record({
  id: key,
  step_id: key,
  tool: fc.option(fc.constantFrom("read", "write"), { nil: null }),
  params_hash: hash,
  output_hash: hash,
  latency_ms: fc.constant(null),
  ok: fc.option(fc.boolean(), { nil: null }),
  side_effects: fc.array(fc.constantFrom("fs_read", "fs_write"), { maxLength: 2 }),
});
const receiptCall = fc.record({
  id: key,
  step_id: key,
  tool: fc.option(fc.constantFrom("read", "write"), { nil: null }),
  params_hash: hash,
  output_hash: hash,
  ok: fc.option(fc.boolean(), { nil: null }),
  side_effects: fc.option(fc.array(fc.constantFrom("fs_read", "fs_write"), { maxLength: 2 }), { nil: null }),
});

const withLines = (calls: Omit<ToolCallRecord, "line">[]): ToolCallRecord[] =>
  calls.map((c, k) => ({ ...c, line: 2 * k + 2 }));
const indexed = (calls: Omit<ReceiptToolCall, "index">[]): ReceiptToolCall[] =>
  calls.map((c, index) => ({ ...c, index }));
/** A receipt call with the members not given null. */
const rc = (fields: Partial<Omit<ReceiptToolCall, "index">>): Omit<ReceiptToolCall, "index"> => ({
  id: null,
  step_id: null,
  tool: null,
  params_hash: null,
  output_hash: null,
  ok: null,
  side_effects: null,
  ...fields,
});
/** A replay call with the members not given null (no side effects). */
const rp = (fields: Partial<ToolCallRecord>): ToolCallRecord => ({
  id: null,
  step_id: null,
  tool: null,
  params_hash: null,
  output_hash: null,
  latency_ms: null,
  ok: null,
  side_effects: [],
  line: null,
  ...fields,
});

describe("ToolCallMatcher", () => {
  it("adds the rows pairing whole lists adds, for any receipt and replay", () => {
    fc.assert(
      fc.property(
        fc.array(receiptCall, { maxLength: 12 }),
        fc.array(replayCall, { maxLength: 30 }),
        (r, p) => {
          const receipt = indexed(r);
          const replay = withLines(p);
          expect(rows(streamedRows(receipt, replay).findings)).toEqual(rows(referenceRows(receipt, replay)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("gives the same listed rows and totals past the listing cap, holding only what the receipt can pair", () => {
    const calls = 5 * MAX_ROWS;
    const replay = withLines(
      Array.from({ length: calls }, (_, k) =>
        rp({ step_id: `s${k}`, tool: "read", output_hash: `sha256:${k}`, ok: true }),
      ),
    );
    // Keyed calls found late in the replay and missing from it, and calls without a key.
    const receipt = indexed([
      rc({ step_id: `s${calls - 1}`, tool: "read", output_hash: "sha256:x", ok: true }),
      rc({ step_id: "gone", tool: "read" }),
      rc({ tool: "read", output_hash: "sha256:0" }),
      rc({ step_id: `s${MAX_ROWS + 7}`, tool: "write", side_effects: [] }),
    ]);
    const { findings, matcher } = streamedRows(receipt, replay);
    const expected = referenceRows(receipt, replay);
    expect(rows(findings)).toEqual(rows(expected));
    expect(findings.checkCounts.failed).toBeGreaterThan(MAX_ROWS);
    expect(matcher.held).toBeLessThanOrEqual(3 * receipt.length + MAX_ROWS);
  });

  it("holds a bounded number of replay calls however many go by", () => {
    const receipt = indexed([rc({ id: "c5", tool: "t" }), rc({ tool: "t" })]);
    const matcher = new ToolCallMatcher(receipt);
    for (let k = 0; k < 200_000; k++) matcher.call(rp({ id: `c${k}`, tool: "t", line: k + 1 }));
    expect(matcher.held).toBeLessThanOrEqual(3 * receipt.length + MAX_ROWS);
    const findings = new Findings();
    matcher.finish(findings);
    expect(findings.checkCounts).toEqual({ passed: 2, failed: 200_000 - 2, unverifiable: 0 });
    expect(findings.checks.filter((c) => c.status === "failed")).toHaveLength(MAX_ROWS);
  });
});

describe("beginVerify", () => {
  const H = (c: string) => `sha256:${c.repeat(64)}`;
  /** A replay with `n` calls (a duplicate and a call without result among them). */
  function replay(n: number): string {
    const lines = [
      '{"type":"ReplayHeader","replay_version":1,"producer":"t","created_at":"2026-02-01T00:00:00Z"}',
    ];
    for (let k = 0; k < n; k++) {
      lines.push(
        `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s${k % 997}","tool":"read","params_hash":"${H("a")}"}`,
      );
      if (k !== 5)
        lines.push(
          `{"type":"ToolResult","ts":"2026-02-01T00:00:02Z","step_id":"s${k % 997}","ok":${k % 3 !== 0},"output_hash":"${H("b")}","side_effects":["fs_read"]}`,
        );
    }
    lines.push('{"type":"SessionEnd","ts":"2026-02-01T00:00:03Z","status":"success"}');
    return `${lines.join("\n")}\n`;
  }
  const receipt = {
    schema: "openagents.receipt.v1",
    session_id: "x",
    tool_calls: [
      {
        step_id: "s3",
        tool: "read",
        params_hash: H("a"),
        output_hash: H("b"),
        side_effects: ["fs_read"],
        ok: true,
      },
      {
        step_id: "s1",
        tool: "read",
        params_hash: H("a"),
        output_hash: H("b"),
        side_effects: ["fs_read"],
        ok: true,
      },
      { step_id: "nope", tool: "read", params_hash: null, output_hash: null, side_effects: [] },
    ],
  };
  const source = (text: string) =>
    (async function* () {
      yield Buffer.from(text);
    })();

  it("gives the report verifyReplay gives, with no list of the replay's calls", async () => {
    const text = replay(3000);
    const whole = await inspect(source(text), { file: "r", keepToolCalls: true });
    const expected = verifyReplay(whole, receipt as never);
    const check = beginVerify(receipt as never);
    expect(check.readOptions.keepToolCalls).toBe(true);
    const streamed = await inspect(source(text), { file: "r", ...check.readOptions });
    expect(streamed.session?.tool_calls).toEqual([]);
    expect(whole.session?.tool_calls).toHaveLength(3000);
    expect(check.end(streamed)).toEqual(expected);
    expect(expected.checks_total.failed).toBeGreaterThan(MAX_ROWS);
  });

  it("keeps no tool calls when the receipt lists none", () => {
    expect(beginVerify({ schema: "openagents.receipt.v1", session_id: "x" } as never).readOptions).toEqual({
      keepToolCalls: false,
    });
    expect(beginVerify(null).readOptions).toEqual({ keepToolCalls: false });
  });
});
