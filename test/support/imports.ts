/**
 * The project's import graph, as test/unit/structure.test.ts checks it: every relative import and
 * re-export of every .ts file, type-only ones included, resolved to a file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { PROJECT_ROOT } from "./corpus.js";

/** Every .ts file below `dir` (relative to the project), absolute paths. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) out.push(p);
    }
  };
  walk(resolve(PROJECT_ROOT, dir));
  return out;
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?["'](\.[^"']+)["']/g;

/** The files `file` imports or re-exports from, type-only included (relative imports only), absolute paths. */
export function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
    let target = resolve(dirname(file), m[1] as string).replace(/\.js$/, ".ts");
    if (!target.endsWith(".ts"))
      target = existsSync(`${target}.ts`) ? `${target}.ts` : join(target, "index.ts");
    out.push(target);
  }
  return out;
}

/** The import cycles among `files` (Tarjan's strongly connected components of two or more files). */
export function importCycles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((t) => known.has(t))]));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(relative(PROJECT_ROOT, w));
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}
