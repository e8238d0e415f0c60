/**
 * The compact call-id table of the REPLAY.jsonl reader: the same answers as maps of every id
 * (what the reader kept before), in memory that grows by a fixed number of bytes per call,
 * whatever the ids' length.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CallIds } from "#shared/formats/replay-jsonl/call-ids.js";

/** The reader's former bookkeeping: a map of every call id's line and a map of the open calls. */
class MapModel {
  private readonly lines = new Map<string, number>();
  private readonly open = new Map<string, number>();

  call(id: string, line: number): number {
    const earlier = this.lines.get(id) ?? 0;
    this.lines.set(id, line);
    this.open.set(id, line);
    return earlier;
  }

  result(id: string): number {
    const line = this.open.get(id);
    this.open.delete(id);
    if (line === undefined) return this.lines.has(id) ? 0 : -1;
    return line;
  }

  get openCount(): number {
    return this.open.size;
  }

  firstOpenLine(): number {
    return [...this.open.values()][0] ?? 0;
  }
}

describe("CallIds", () => {
  it("tells a duplicate call, a duplicate result and a result without a call apart", () => {
    const ids = new CallIds();
    expect(ids.call("a", 2)).toBe(0);
    expect(ids.call("b", 3)).toBe(0);
    expect(ids.call("a", 4)).toBe(2);
    expect(ids.result("a")).toBe(4);
    expect(ids.result("a")).toBe(0);
    expect(ids.result("zzz")).toBe(-1);
    expect(ids.openCount).toBe(1);
    expect(ids.firstOpenLine()).toBe(3);
  });

  it("keeps an open id's place in open order when it is called again, and moves a reopened one last", () => {
    const ids = new CallIds();
    ids.call("a", 1);
    ids.call("b", 2);
    ids.call("a", 3); // still open: keeps its place, with its latest line
    expect(ids.firstOpenLine()).toBe(3);
    ids.result("a");
    ids.call("a", 4); // reopened: after b
    expect(ids.firstOpenLine()).toBe(2);
  });

  it("answers as maps of every id would, for any sequence of calls and results", () => {
    const op = fc.record({
      result: fc.boolean(),
      id: fc.oneof(fc.constantFrom("a", "b", "c", "d", "\ud800", "\ufffd", ""), fc.string({ maxLength: 3 })),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const ids = new CallIds();
        const model = new MapModel();
        ops.forEach(({ result, id }, k) => {
          const line = k + 1;
          if (result) expect(ids.result(id)).toBe(model.result(id));
          else expect(ids.call(id, line)).toBe(model.call(id, line));
        });
        expect(ids.openCount).toBe(model.openCount);
        expect(ids.firstOpenLine()).toBe(model.firstOpenLine());
      }),
      { numRuns: 300 },
    );
  });

  it("answers as the maps do with more open ids than it keeps as strings, and ids too long to keep", () => {
    // Past 1,024 open ids, or past 64 characters, an id is only found by its digest.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 2 }), (seed) => {
        const ids = new CallIds();
        const model = new MapModel();
        let state = seed;
        const next = (n: number): number => {
          state = (state * 48271) % 2147483647;
          return state % n;
        };
        const idOf = (k: number): string => (k % 3 === 0 ? `${"L".repeat(70)}${k}` : `c${k}`);
        let mostOpen = 0;
        for (let line = 1; line <= 6000; line++) {
          const id = idOf(next(4000));
          // Nine calls in ten first, one in ten after.
          if ((next(10) === 0) === line > 3000) expect(ids.call(id, line)).toBe(model.call(id, line));
          else expect(ids.result(id)).toBe(model.result(id));
          mostOpen = Math.max(mostOpen, model.openCount);
        }
        expect(mostOpen).toBeGreaterThan(1500);
        expect(ids.openCount).toBe(model.openCount);
        expect(ids.firstOpenLine()).toBe(model.firstOpenLine());
      }),
      { numRuns: 20 },
    );
  });

  it("tells ids apart that differ only after a lone surrogate (UTF-8 would not)", () => {
    const ids = new CallIds();
    ids.call("x\ud800", 1);
    expect(ids.result("x\ufffd")).toBe(-1);
    expect(ids.result("x\ud800")).toBe(1);
  });

  it("holds a bounded number of bytes per call, whatever the ids' length", () => {
    const calls = 100_000;
    const short = new CallIds();
    const long = new CallIds();
    const padding = "x".repeat(300);
    for (let k = 0; k < calls; k++) {
      short.call(`c${k}`, k + 1);
      long.call(`${padding}${k}`, k + 1);
      if (k % 2 === 0) {
        short.result(`c${k}`);
        long.result(`${padding}${k}`);
      }
    }
    expect(short.size).toBe(calls);
    expect(long.bytesHeld).toBe(short.bytesHeld);
    // 28 bytes per entry (digest, line, open order) in whole chunks, and the slot table at most
    // half full: under 64 bytes a call once the first chunk is filled.
    expect(short.bytesHeld).toBeLessThan(64 * calls);
    expect(short.openCount).toBe(calls / 2);
  });
});
