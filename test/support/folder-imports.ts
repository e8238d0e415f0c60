/**
 * How code reaches the folders of shared/, as test/unit/structure.test.ts checks it: every import
 * and re-export of a file (relative or `#shared/...`, type-only included) with the names it takes,
 * and the names each folder's index.ts exports. Found with the TypeScript parser.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { PROJECT_ROOT } from "./corpus.js";

/** One import or re-export: the file it names and the names it takes (`*` for a namespace or `export *`). */
export interface Binding {
  readonly target: string;
  readonly names: readonly string[];
}

/** `specifier` as written in `file`, resolved to a .ts file; undefined for a package. */
export function resolveSpecifier(file: string, specifier: string): string | undefined {
  let target: string;
  if (specifier.startsWith(".")) target = resolve(dirname(file), specifier);
  else if (specifier.startsWith("#shared/")) target = resolve(PROJECT_ROOT, "shared", specifier.slice(8));
  else return undefined;
  target = target.replace(/\.js$/, ".ts");
  if (target.endsWith(".ts")) return target;
  return existsSync(`${target}.ts`) ? `${target}.ts` : join(target, "index.ts");
}

/** The imports and re-exports of `file` that name a file of the project. */
export function bindingsOf(file: string): Binding[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: Binding[] = [];
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    const target = resolveSpecifier(file, specifier.text);
    if (target === undefined) continue;
    const names: string[] = [];
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.push("default");
      const bound = clause?.namedBindings;
      if (bound && ts.isNamespaceImport(bound)) names.push("*");
      else if (bound) for (const e of bound.elements) names.push((e.propertyName ?? e.name).text);
    } else {
      const clause = statement.exportClause;
      if (clause === undefined) names.push("*");
      else if (ts.isNamespaceExport(clause)) names.push("*");
      else for (const e of clause.elements) names.push((e.propertyName ?? e.name).text);
    }
    out.push({ target, names });
  }
  return out;
}

/** The names `index` (a folder's index.ts) exports. */
export function exportsOf(index: string): string[] {
  const source = ts.createSourceFile(index, readFileSync(index, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause !== undefined && ts.isNamedExports(clause))
        for (const e of clause.elements) out.push(e.name.text);
      else out.push("*");
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      out.push("(a declaration: an index.ts only re-exports)");
    }
  }
  return out;
}

/** The top-level folder of shared/ that holds `file` (`formats` for shared/formats/replay-jsonl/x.ts), if any. */
export function sharedFolderOf(file: string): string | undefined {
  const path = relative(resolve(PROJECT_ROOT, "shared"), file);
  if (path.startsWith("..")) return undefined;
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** The index.ts of the top-level folder `folder` of shared/. */
export function indexOf(folder: string): string {
  return resolve(PROJECT_ROOT, "shared", folder, "index.ts");
}
