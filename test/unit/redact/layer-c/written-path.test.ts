/** `WrittenPaths`: where in a written event a place is, as the redaction counts paths. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WrittenPaths } from "#shared/redact/layer-c/written-path.js";

/** The path of one place, asked of a fresh instance (read from the start). */
const writtenPathAt = (json: string, at: number): string => new WrittenPaths().at(json, at);

/** The path of the first occurrence of `needle` in `json`. */
const pathOf = (json: string, needle: string): string => {
  const at = json.indexOf(needle);
  expect(at).toBeGreaterThan(-1);
  return writtenPathAt(json, at);
};

describe("WrittenPaths", () => {
  const event = JSON.stringify({
    type: "ToolResult",
    error: { message: "failed: NEEDLE1", "odd key": { "x.y": "NEEDLE2" } },
    argv: ["a", "NEEDLE3", ["NEEDLE4"]],
    'escaped " \\ key': { inner: '"q" NEEDLE5' },
    after: [{ k: "NEEDLE6" }, 12, { NEEDLE7: true }],
  });

  it("gives a value's own path, as `child` writes it", () => {
    expect(pathOf(event, "NEEDLE1")).toBe("$.error.message");
    expect(pathOf(event, "NEEDLE2")).toBe('$.error["odd key"]["x.y"]');
    expect(pathOf(event, "NEEDLE5")).toBe('$["escaped \\" \\\\ key"].inner');
  });

  it("gives an array element `[*]`, nested arrays and objects in arrays too", () => {
    expect(pathOf(event, "NEEDLE3")).toBe("$.argv[*]");
    expect(pathOf(event, "NEEDLE4")).toBe("$.argv[*][*]");
    expect(pathOf(event, "NEEDLE6")).toBe("$.after[*].k");
  });

  it("gives a member name the path of the object holding it (where scrubKey counts)", () => {
    expect(pathOf(event, "NEEDLE7")).toBe("$.after[*]");
    expect(pathOf(event, "message")).toBe("$.error");
  });

  it("gives `$` outside any string", () => {
    expect(writtenPathAt(event, 0)).toBe("$");
    expect(writtenPathAt(event, event.indexOf("12"))).toBe("$");
  });

  it("gives the same paths to places asked in order, in any order, and of other events between", () => {
    const other = JSON.stringify({ a: ["NEEDLE", { b: "NEEDLE" }] });
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: event.length + 4 }), { maxLength: 40 }),
        fc.boolean(),
        (places, sorted) => {
          const at = sorted ? [...places].sort((x, y) => x - y) : places;
          const paths = new WrittenPaths();
          for (const [k, p] of at.entries()) {
            expect(paths.at(event, p)).toBe(writtenPathAt(event, p));
            if (k % 7 === 3) expect(paths.at(other, 3)).toBe(writtenPathAt(other, 3));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
