/**
 * `SplitEventWriter`, Layer C straight from a split REPLAY line: it takes the common events (tool
 * calls and results, plain headers, ends) and writes what the lossless object path writes for them; it
 * declines, writing and counting nothing, what it leaves to that path (`paranoid`, a member that
 * is an object but not a raw one). The equality over random sessions in random styles is held by
 * lines.test.ts; this file holds that the path is taken at all.
 */
import { describe, expect, it } from "vitest";
import { ByteSink, SplitView, splitInto } from "#shared/canonical/index.js";
import { REPLAY_EVENT_FIELDS } from "#shared/formats/layer-c-fields.js";
import { type Preset, Scrubber } from "#shared/redact/index.js";
import { Context } from "#shared/redact/layer-c/context.js";
import { LineRedactor } from "#shared/redact/layer-c/lines.js";
import {
  NOT_WRITTEN,
  SplitEventWriter,
  WRITTEN,
  WRITTEN_HEADER,
} from "#shared/redact/layer-c/split-event.js";
import { DEFAULT_SEED, ReplayGenerator } from "../../../../bench/generate.js";

const LAZY: ReadonlySet<string> = new Set(["params", "output"]);
const FIELDS = REPLAY_EVENT_FIELDS["replay-v1"];

/** A generated OpenAgents session: header, start, `pairs` dense tool call pairs, end. */
function session(pairs: number): string[] {
  const gen = new ReplayGenerator(DEFAULT_SEED);
  const lines = [gen.header(), gen.sessionStart()];
  for (let k = 0; k < pairs; k++) lines.push(...gen.nextSmallEvents());
  lines.push(gen.sessionEnd());
  return lines;
}

/**
 * Each line through `SplitEventWriter` (its answer and text) and through the lossless path; one
 * writer for all the lines when `shared`, else one per line.
 */
function both(lines: readonly string[], preset: Preset, shared = false) {
  const ctx = new Context(preset, new Scrubber({ preset }));
  const lossless = new LineRedactor("replay-v1", preset, { file: "f", fastRead: false });
  const view = new SplitView();
  const writer = new SplitEventWriter();
  return lines.map((text, k) => {
    const bytes = Buffer.from(text);
    expect(splitInto(bytes, LAZY, view)).toBe(true);
    const out = new ByteSink(16);
    const answer = (shared ? writer : new SplitEventWriter()).redact(view, ctx, FIELDS, out);
    return {
      answer,
      text: out.view().toString("utf8"),
      expected: lossless.line(bytes, k + 1).text.toString("utf8"),
      out,
    };
  });
}

describe("SplitEventWriter", () => {
  it("writes the lossless path's line for every tool call and result, and SessionEnd", () => {
    const results = both(session(50), "private_repo");
    // The generated header and SessionStart hold objects (generator, repo, model): declined.
    expect(results.slice(0, 2).map((r) => r.answer)).toEqual([NOT_WRITTEN, NOT_WRITTEN]);
    for (const r of results.slice(2)) {
      expect(r.answer).toBe(WRITTEN);
      expect(r.text).toBe(r.expected);
    }
  });

  it("writes each line by its own names when a type's names change from line to line", () => {
    const hash = `sha256:${"a".repeat(64)}`;
    const call = (k: number, rest: string) =>
      `{"type":"ToolCall","ts":"2026-02-01T00:00:0${k}Z","step_id":"s${k}","tool":"bash",${rest}}`;
    // As many names each time, in other places: the second has no params_hash (one is added) and
    // an unknown member, the third a name renamed, the fourth the first's again.
    const lines = [
      call(1, `"params":{"a":1},"params_hash":"${hash}"`),
      call(2, `"params":{"a":2},"zz_note":"x"`),
      call(3, `"params":{"a":3},"params_hash2":"${hash}"`),
      call(4, `"params":{"a":4},"params_hash":"${hash}"`),
      call(5, `"params":{"a":5},"zz_note":"y"`),
    ];
    const results = both(lines, "private_repo", true);
    for (const r of results) {
      expect(r.answer).toBe(WRITTEN);
      expect(r.text).toBe(r.expected);
    }
    expect(results[1]?.text).toContain('"params_hash":"sha256:');
  });

  it("marks a ReplayHeader as the carrier", () => {
    const header =
      '{"type":"ReplayHeader","replay_version":1,"producer":"p","created_at":"2026-02-01T00:00:00Z"}';
    const [r] = both([header], "open_source");
    expect(r?.answer).toBe(WRITTEN_HEADER);
    expect(r?.text).toBe(r?.expected);
  });

  it("declines paranoid lines and a member that is an object, having written nothing", () => {
    const lines = session(2);
    for (const r of both(lines, "paranoid")) {
      expect(r.answer).toBe(NOT_WRITTEN);
      expect(r.out.len).toBe(0);
    }
    const withObject = `{"type":"ToolCall","ts":"2026-02-01T00:00:01Z","step_id":"s1","tool":"bash","meta":{"a":1},"params":{}}`;
    const [r] = both([withObject], "open_source");
    expect(r?.answer).toBe(NOT_WRITTEN);
    expect(r?.out.len).toBe(0);
  });
});
