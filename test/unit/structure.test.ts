/**
 * The layout rules of DESIGN.md that a reader cannot see at a glance: shared/ is the domain and
 * imports nothing of cli/; parallel/ knows no domain module; shared/ keeps no module-level mutable
 * state (scratch is owned by an object made per read; see test/support/module-state.ts for what
 * counts); no import cycle anywhere, type-only imports counted (a type cycle still ties two
 * modules' changes together); a folder of shared/ is reached only through its index.ts, which
 * exports only what other folders use. Files are split by concept, not by a line count; a function
 * over 80 lines says why it is not split.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/corpus.js";
import { bindingsOf, exportsOf, indexOf, sharedFolderOf } from "../support/folder-imports.js";
import { importCycles, importsOf, sourceFiles } from "../support/imports.js";
import { LONG_FUNCTION_LINES, LONG_MARKER, longFunctions } from "../support/long-functions.js";
import { moduleState, moduleStateOf } from "../support/module-state.js";
import { tempDir } from "../support/temp.js";

/**
 * Module-level state in shared/ kept on purpose, each with why. Anything else found by
 * `moduleState` fails: scratch belongs to an object its reader makes and passes explicitly.
 */
const ALLOWED_MODULE_STATE: Record<string, string> = {
  "shared/parallel/line-pool.ts: poolStats (a top-level const the module mutates)":
    "diagnostic counters the tests read to see that batches ran on workers; no result depends on them",
  "shared/redact/rules.ts: NEEDLES (a top-level const the module mutates)":
    "a WeakMap cache of a pure function of its key (a rule list's needles), like memo.ts's `remembered`",
  "shared/redact/rules.ts: STICKY (a top-level const the module mutates)":
    "a WeakMap cache of a pure function of its key (a regular expression's sticky twin)",
  "shared/redact/needles.ts: INDEXES (a top-level const the module mutates)":
    "a cache of a pure function of its key (the needle index of a set of rule lists; the lists are the rule table's, so a handful)",
  "shared/pipeline/provenance.ts: digests (a top-level const the module mutates)":
    "a cache of a pure function of its key (the rules digest of a preset: one entry per preset)",
};

/**
 * Imports that reach past a folder's index.ts on purpose, each with why. Anything else from
 * outside a top-level folder of shared/ goes through that folder's index.ts. Bundle size is no
 * reason: package.json says `"sideEffects": false`, so esbuild leaves out the modules of an index
 * whose exports a bundle does not use (the line worker, the CDK app and the Lambdas stay as small).
 */
const ALLOWED_DEEP_IMPORTS: Record<string, string> = {};

/** The code of the product: what the folder rules hold for (tests may import the file they test). */
const PRODUCT = ["shared", "cli", "functions", "infra", "bench"];

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

  it("shared/parallel/ imports no domain module (only itself, errors.ts, memo.ts, bytes.ts and canonical/ for the split task)", () => {
    const allowed = (target: string) =>
      inside("shared/parallel")(target) ||
      inside("shared/canonical")(target) ||
      ["errors.ts", "memo.ts", "bytes.ts"].some((name) => target === resolve(PROJECT_ROOT, "shared", name));
    const offending = sourceFiles("shared/parallel").flatMap((file) =>
      importsOf(file)
        .filter((target) => !allowed(target))
        .map((target) => `${relative(PROJECT_ROOT, file)} -> ${relative(PROJECT_ROOT, target)}`),
    );
    expect(offending).toEqual([]);
  });

  it("shared/ holds no module-level mutable state beyond the allowed list", () => {
    const found = shared.flatMap((file) =>
      moduleStateOf(file).map((state) => `${relative(PROJECT_ROOT, file)}: ${state}`),
    );
    expect(found.filter((state) => !Object.hasOwn(ALLOWED_MODULE_STATE, state))).toEqual([]);
    // A reason for a state that is gone is a stale entry.
    expect(Object.keys(ALLOWED_MODULE_STATE).filter((state) => !found.includes(state))).toEqual([]);
  });

  it("finds module-level state where there is some, and not in constants or per-object scratch", () => {
    const found = moduleState(
      [
        "let order = new Int32Array(64);",
        "const sink = Buffer.alloc(1 << 16);",
        "const S = new Int32Array(8);",
        "const seen = new Set<string>();",
        "const stats = { batches: 0 };",
        "const KEYS = new Set(['a']);",
        "const EMPTY = Buffer.alloc(0);",
        "const LIST = [1, 2];",
        "const shared = new ByteCanonicalizer();",
        "const RE = new RegExp('a');",
        "export const g = (b: Buffer) => shared.run(b) && RE.test('a');",
        "export function f(k: string) { sink[0] = 1; S.fill(0); seen.add(k); stats.batches++; return KEYS.has(k) && LIST[0]; }",
        "class Reader { private readonly scratch = new Uint8Array(8); read() { this.scratch[0] = 1; } }",
      ].join("\n"),
    );
    expect(found).toEqual([
      "order (a top-level let)",
      "sink (a top-level const the module mutates)",
      "S (a top-level const the module mutates)",
      "seen (a top-level const the module mutates)",
      "stats (a top-level const the module mutates)",
      "shared (a top-level const the module mutates)",
    ]);
  });

  it("has no import cycle", () => {
    const files = ["shared", "cli", "functions", "infra", "bench"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    expect(importCycles(files)).toEqual([]);
  });

  it("finds a cycle where there is one, type-only imports counted", () => {
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
      // A type-only import closes the cycle just as well.
      writeFileSync(files[2] as string, 'import type { A } from "./a.js";\nexport const c = 1;\n');
      expect(importCycles(files).map((cycle) => cycle.length)).toEqual([3]);
      // So does an inline `type` specifier.
      writeFileSync(files[2] as string, 'import { type A } from "./a.js";\nexport const c = 1;\n');
      expect(importCycles(files).map((cycle) => cycle.length)).toEqual([3]);
      writeFileSync(files[2] as string, "export const c = 1;\n");
      expect(importCycles(files)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`every function over ${LONG_FUNCTION_LINES} lines in shared/, functions/, cli/ and infra/ says why right above it (${LONG_MARKER} …)`, () => {
    const files = ["shared", "functions", "cli", "infra"].flatMap(sourceFiles);
    const found = files.flatMap((file) =>
      longFunctions(readFileSync(file, "utf8"), file).map((fn) => ({
        where: `${relative(PROJECT_ROOT, file)}:${fn.line} ${fn.name} (${fn.lines} lines)`,
        ...fn,
      })),
    );
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((fn) => fn.reason === undefined).map((fn) => fn.where)).toEqual([]);
  });

  it("finds a long function and accepts only a one- or two-line reason with the marker right above it", () => {
    const body = (name: string) => `function ${name}() {\n${"  f();\n".repeat(LONG_FUNCTION_LINES - 1)}}\n`;
    const arrow = (name: string) =>
      `const ${name} = () => {\n${"  f();\n".repeat(LONG_FUNCTION_LINES - 1)}};\n`;
    const short = `function short() {\n${"  f();\n".repeat(LONG_FUNCTION_LINES - 2)}}\n`;
    const text = [
      short,
      body("bare"),
      `/** Docs. */\n${body("docOnly")}`,
      `/** Docs. */\n${LONG_MARKER} a state machine in the hot loop.\n${body("excused")}`,
      `${LONG_MARKER} one line of reason\n// and a second.\n${arrow("excusedArrow")}`,
      `${LONG_MARKER} one line\n// a second\n// and a third is too many.\n${body("tooWordy")}`,
      `${LONG_MARKER}\n${body("noReason")}`,
      `${LONG_MARKER} not right above.\n\n${body("detached")}`,
      `class C {\n  ${LONG_MARKER} a method may be excused too.\n  ${body("method").replace("function ", "")}}\n`,
    ].join("\n");
    const found = longFunctions(text);
    expect(found.map((fn) => [fn.name, fn.reason !== undefined])).toEqual([
      ["bare", false],
      ["docOnly", false],
      ["excused", true],
      ["excusedArrow", true],
      ["tooWordy", false],
      ["noReason", false],
      ["detached", false],
      ["method", true],
    ]);
    expect(found.every((fn) => fn.lines === LONG_FUNCTION_LINES + 1)).toBe(true);
  });

  it("code outside a folder of shared/ reaches it only through its index.ts (beyond the allowed list)", () => {
    const deep = PRODUCT.flatMap(sourceFiles).flatMap((file) =>
      bindingsOf(file)
        .filter(({ target }) => {
          const folder = sharedFolderOf(target);
          return folder !== undefined && folder !== sharedFolderOf(file) && target !== indexOf(folder);
        })
        .map(({ target }) => `${relative(PROJECT_ROOT, file)} -> ${relative(PROJECT_ROOT, target)}`),
    );
    expect([...new Set(deep)].filter((edge) => !Object.hasOwn(ALLOWED_DEEP_IMPORTS, edge))).toEqual([]);
    expect(Object.keys(ALLOWED_DEEP_IMPORTS).filter((edge) => !deep.includes(edge))).toEqual([]);
  });

  it("every top-level folder of shared/ has an index.ts that exports only what code outside the folder uses", () => {
    const folders = readdirSync(resolve(PROJECT_ROOT, "shared"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((folder) => !existsSync(indexOf(folder)))).toEqual([]);
    const bindings = PRODUCT.flatMap(sourceFiles).flatMap((file) =>
      bindingsOf(file).map((binding) => ({ file, ...binding })),
    );
    expect(bindings.length).toBeGreaterThan(500);
    const unused = folders.flatMap((folder) => {
      const index = indexOf(folder);
      const used = new Set(
        bindings
          .filter(({ file, target }) => target === index && sharedFolderOf(file) !== folder)
          .flatMap(({ names }) => names),
      );
      if (used.has("*")) return [];
      return exportsOf(index)
        .filter((name) => !used.has(name))
        .map((name) => `shared/${folder}/index.ts: ${name}`);
    });
    expect(unused).toEqual([]);
  });

  it("reads the names an import, a re-export and an index take, type-only ones included", () => {
    const dir = tempDir("bindings-");
    try {
      const file = (name: string, text: string) => {
        writeFileSync(join(dir, name), text);
        return join(dir, name);
      };
      file("a.ts", "export const a = 1;\nexport type A = number;\n");
      const index = file(
        "index.ts",
        'export { a, type A } from "./a.js";\nexport * from "./a.js";\nexport const own = 2;\n',
      );
      const user = file(
        "user.ts",
        'import { a as b, type A } from "./index.js";\nimport type { A as C } from "./a.js";\nexport { a } from "./a.js";\nimport * as all from "./a.js";\nimport { x } from "pkg";\nexport const u: A | C = b + all.a + x;\n',
      );
      expect(bindingsOf(user)).toEqual([
        { target: index, names: ["a", "A"] },
        { target: join(dir, "a.ts"), names: ["A"] },
        { target: join(dir, "a.ts"), names: ["a"] },
        { target: join(dir, "a.ts"), names: ["*"] },
      ]);
      expect(exportsOf(index)).toEqual(["a", "A", "*", "(a declaration: an index.ts only re-exports)"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
