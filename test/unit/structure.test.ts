/**
 * The layout rules of DESIGN.md that a reader cannot see at a glance: shared/ is the domain and
 * imports nothing of cli/; parallel/ knows no domain module; no file in shared/ grows past 600
 * lines; no import cycle anywhere.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/corpus.js";
import { importCycles, importsOf, sourceFiles } from "../support/imports.js";
import { tempDir } from "../support/temp.js";

const inside = (folder: string) => (file: string) =>
  !relative(resolve(PROJECT_ROOT, folder), file).startsWith("..");

describe("project structure", () => {
  const shared = sourceFiles("shared");

  it("shared/ imports nothing from cli/", () => {
    const offending = shared.flatMap((file) =>
      importsOf(file)
        .filter(inside("cli"))
        .map((target) => `${relative(PROJECT_ROOT, file)} -> ${relative(PROJECT_ROOT, target)}`),
    );
    expect(offending).toEqual([]);
  });

  it("shared/parallel/ imports no domain module (only itself and shared/errors.ts)", () => {
    const allowed = (target: string) =>
      inside("shared/parallel")(target) || target === resolve(PROJECT_ROOT, "shared", "errors.ts");
    const offending = sourceFiles("shared/parallel").flatMap((file) =>
      importsOf(file)
        .filter((target) => !allowed(target))
        .map((target) => `${relative(PROJECT_ROOT, file)} -> ${relative(PROJECT_ROOT, target)}`),
    );
    expect(offending).toEqual([]);
  });

  it("no file in shared/ is over 600 lines", () => {
    const long = shared
      .map((file) => ({
        file: relative(PROJECT_ROOT, file),
        lines: readFileSync(file, "utf8").split("\n").length - 1,
      }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });

  it("has no import cycle", () => {
    const files = ["shared", "cli", "functions", "infra", "bench"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    expect(importCycles(files)).toEqual([]);
  });

  it("finds a cycle where there is one (type-only imports left out)", () => {
    const dir = tempDir("cycles-");
    try {
      const file = (name: string, text: string) => {
        writeFileSync(join(dir, name), text);
        return join(dir, name);
      };
      const files = [
        file("a.ts", 'import { b } from "./b.js";\nexport const a = b;\n'),
        file("b.ts", 'import { c } from "./c.js";\nexport const b = c;\n'),
        file("c.ts", 'import type { A } from "./a.js";\nimport { a } from "./a.js";\nexport const c = 1;\n'),
        file("d.ts", 'import type { A } from "./a.js";\nexport type D = A;\n'),
      ];
      expect(importCycles(files).map((cycle) => cycle.length)).toEqual([3]);
      writeFileSync(files[2] as string, 'import type { A } from "./a.js";\nexport const c = 1;\n');
      expect(importCycles(files)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
