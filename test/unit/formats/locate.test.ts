import { describe, expect, it } from "vitest";
import { locatePath, pathSegments } from "#shared/formats/locate.js";

const doc = `{
  "a": 1,
  "b": { "c": [10, {"d": "x"}], "odd key": true },
  "e": []
}`;

describe("locatePath", () => {
  it.each([
    ["$", 1, 1],
    ["$.a", 2, 8],
    ["$.b", 3, 8],
    ["$.b.c", 3, 15],
    ["$.b.c[0]", 3, 16],
    ["$.b.c[1].d", 3, 26],
    ['$.b["odd key"]', 3, 44],
    ["$.e", 4, 8],
  ])("finds %s at line %i, column %i", (path, line, column) => {
    expect(locatePath(doc, path)).toEqual({ line, column });
  });

  it("returns null for a path that is not there or not a path", () => {
    expect(locatePath(doc, "$.zz")).toBeNull();
    expect(locatePath(doc, "$.e[0]")).toBeNull();
    expect(locatePath(doc, "a.b")).toBeNull();
  });

  it("parses path segments", () => {
    expect(pathSegments('$.a[2]["x y"].b')).toEqual(["a", 2, "x y", "b"]);
    expect(pathSegments("$.a[")).toBeUndefined();
  });
});
