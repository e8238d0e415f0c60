import { describe, expect, it } from "vitest";
import { remembered } from "#shared/memo.js";

describe("remembered", () => {
  it("computes each short key once and long keys every time", () => {
    // Prepare
    const calls: string[] = [];
    const length = remembered((key: string) => {
      calls.push(key);
      return key.length;
    }, 4);
    // Act
    const results = ["ab", "ab", "abcde", "abcde", "ab"].map(length);
    // Assess
    expect(results).toEqual([2, 2, 5, 5, 2]);
    expect(calls).toEqual(["ab", "abcde", "abcde"]);
  });

  it("starts over when full, and keeps results that are undefined", () => {
    const calls: string[] = [];
    const f = remembered(
      (key: string) => {
        calls.push(key);
        return key === "u" ? undefined : key.toUpperCase();
      },
      64,
      2,
    );
    expect([f("a"), f("u"), f("u"), f("b"), f("a"), f("b")]).toEqual([
      "A",
      undefined,
      undefined,
      "B",
      "A",
      "B",
    ]);
    // "b" found the memory full (a, u) and cleared it, so "a" was computed again.
    expect(calls).toEqual(["a", "u", "b", "a"]);
  });

  it("keeps nothing when the computation throws", () => {
    let calls = 0;
    const f = remembered((key: string) => {
      calls++;
      throw new Error(key);
    });
    expect(() => f("x")).toThrow("x");
    expect(() => f("x")).toThrow("x");
    expect(calls).toBe(2);
  });
});
