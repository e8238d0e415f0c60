import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { align, type Pair } from "../../../shared/diff/align.js";

/** The edit script as a string: `=x` matched, `-x` removed, `+x` added. */
function script(a: string[], b: string[], pairs: readonly Pair[]): string[] {
  return pairs.map(([i, j]) => (i >= 0 && j >= 0 ? `=${a[i]}` : i >= 0 ? `-${a[i]}` : `+${b[j]}`));
}

/** Length of a longest common subsequence (quadratic; for small property inputs). */
function lcs(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number;
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(up, row[j - 1] as number);
      diag = up;
    }
  }
  return row[b.length] as number;
}

/** Every index of each side appears once, in order; matched pairs have equal keys. */
function wellFormed(a: string[], b: string[], pairs: readonly Pair[]): void {
  const as = pairs.map((p) => p[0]).filter((i) => i >= 0);
  const bs = pairs.map((p) => p[1]).filter((j) => j >= 0);
  expect(as).toEqual(a.map((_, i) => i));
  expect(bs).toEqual(b.map((_, j) => j));
  for (const [i, j] of pairs) if (i >= 0 && j >= 0) expect(a[i]).toBe(b[j]);
}

describe("align", () => {
  it("aligns an insertion without shifting what follows", () => {
    const a = ["r", "s", "t"];
    const b = ["r", "x", "s", "t"];
    expect(script(a, b, align(a, b).pairs)).toEqual(["=r", "+x", "=s", "=t"]);
  });

  it("aligns a deletion", () => {
    const a = ["r", "s", "t", "u"];
    const b = ["r", "t", "u"];
    expect(script(a, b, align(a, b).pairs)).toEqual(["=r", "-s", "=t", "=u"]);
  });

  it("gives a reorder as one removal and one addition, the rest matched", () => {
    const a = ["p", "q", "r", "s"];
    const b = ["p", "r", "s", "q"];
    const s = script(a, b, align(a, b).pairs);
    expect(s.filter((e) => e.startsWith("="))).toHaveLength(3);
    expect(s).toContain("-q");
    expect(s).toContain("+q");
  });

  it("never pairs the same tool with different params (keys differ)", () => {
    const a = ["read|h1", "shell|h2"];
    const b = ["read|h9", "shell|h2"];
    expect(script(a, b, align(a, b).pairs)).toEqual(["-read|h1", "+read|h9", "=shell|h2"]);
  });

  it("is minimal: matches as many as a longest common subsequence", () => {
    const key = fc.constantFrom("a", "b", "c", "d");
    fc.assert(
      fc.property(fc.array(key, { maxLength: 30 }), fc.array(key, { maxLength: 30 }), (a, b) => {
        const { pairs, exact } = align(a, b);
        wellFormed(a, b, pairs);
        expect(exact).toBe(true);
        expect(pairs.filter(([i, j]) => i >= 0 && j >= 0)).toHaveLength(lcs(a, b));
      }),
    );
  });

  it("falls back to the windowed alignment past maxEdits, still well formed", () => {
    const key = fc.constantFrom("a", "b", "c", "d", "e");
    fc.assert(
      fc.property(fc.array(key, { maxLength: 40 }), fc.array(key, { maxLength: 40 }), (a, b) => {
        const { pairs } = align(a, b, { maxEdits: 2, window: 3 });
        wellFormed(a, b, pairs);
      }),
    );
    const a = Array.from({ length: 50 }, (_, i) => `k${i}`);
    const b = a.map((k, i) => (i % 5 === 0 ? `x${i}` : k));
    const result = align(a, b, { maxEdits: 4 });
    expect(result.exact).toBe(false);
    expect(result.pairs.filter(([i, j]) => i >= 0 && j >= 0)).toHaveLength(40);
  });

  it("keeps a long common prefix and suffix out of the traced middle", () => {
    const a = Array.from({ length: 100_000 }, (_, i) => `s${i}`);
    const b = [...a];
    b[50_000] = "changed";
    const { pairs, exact } = align(a, b, { maxEdits: 4 });
    expect(exact).toBe(true);
    expect(pairs).toHaveLength(100_001);
    expect(pairs[50_000]).toEqual([50_000, -1]);
  });
});
