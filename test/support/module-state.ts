/**
 * Module-level mutable state, as test/unit/structure.test.ts forbids it in shared/: found with the
 * TypeScript parser, deliberately simple. A top-level `let` or `var` is state. A top-level `const`
 * is state when it is initialised with something mutable (`new` of a collection, a typed array or
 * a class of the project, `Buffer.alloc`/`allocUnsafe` of a non-empty buffer, an array or object
 * literal) and the same file mutates it: calls a mutating method on it (`set`, `push`, `fill`, …;
 * any method, or handing it to a function, for an instance of a project class), assigns to one of
 * its elements or properties, or increments one. Closures that hold state (`remembered`'s
 * memory) are not seen; `remembered` is the one sanctioned cache (a pure function of its key).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

const MUTABLE_CLASSES = new Set([
  "Map",
  "Set",
  "WeakMap",
  "Array",
  "Uint8Array",
  "Uint16Array",
  "Uint32Array",
  "Int8Array",
  "Int16Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "DataView",
  "ArrayBuffer",
]);

const MUTATORS = new Set([
  "set",
  "add",
  "delete",
  "clear",
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "fill",
  "sort",
  "reverse",
  "copyWithin",
  "write",
  "writeUInt8",
  "writeInt32LE",
  "writeUInt32LE",
  "writeUInt32BE",
]);

/** Classes whose instances do not change (or only in ways no result depends on). */
const IMMUTABLE_CLASSES = new Set(["RegExp", "Error", "TextDecoder", "TextEncoder", "URL"]);

/**
 * How an initialiser's value can change: through the collection methods (`MUTATORS`), through any
 * method (an instance of one of the project's classes, such as a scratch buffer or a scanner
 * whose fields are its working state), or not at all (undefined).
 */
function mutableInit(init: ts.Expression): "mutators" | "methods" | undefined {
  if (ts.isArrayLiteralExpression(init) || ts.isObjectLiteralExpression(init)) return "mutators";
  if (ts.isNewExpression(init)) {
    if (!ts.isIdentifier(init.expression)) return "methods";
    const name = init.expression.text;
    if (IMMUTABLE_CLASSES.has(name)) return undefined;
    return MUTABLE_CLASSES.has(name) ? "mutators" : "methods";
  }
  if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression)) {
    const { expression, name } = init.expression;
    const emptyAlloc =
      name.text === "alloc" && init.arguments[0] !== undefined && init.arguments[0].getText() === "0";
    return ts.isIdentifier(expression) &&
      expression.text === "Buffer" &&
      ["alloc", "allocUnsafe"].includes(name.text) &&
      !emptyAlloc
      ? "mutators"
      : undefined;
  }
  return undefined;
}

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

/**
 * True when the file writes through `name`: a mutating call (any method call for `methods`), an
 * element or property assignment, an increment; or passes it to a function as an argument.
 */
function mutated(source: ts.SourceFile, name: string, how: "mutators" | "methods"): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === name) {
      const parent = node.parent;
      if (
        (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) &&
        parent.expression === node
      ) {
        const outer = parent.parent;
        if (
          ts.isPropertyAccessExpression(parent) &&
          (how === "methods" || MUTATORS.has(parent.name.text)) &&
          ts.isCallExpression(outer) &&
          outer.expression === parent
        )
          found = true;
        if (
          ts.isBinaryExpression(outer) &&
          outer.left === parent &&
          ASSIGNMENTS.has(outer.operatorToken.kind)
        )
          found = true;
        if (
          (ts.isPostfixUnaryExpression(outer) || ts.isPrefixUnaryExpression(outer)) &&
          (outer.operator === ts.SyntaxKind.PlusPlusToken || outer.operator === ts.SyntaxKind.MinusMinusToken)
        )
          found = true;
      }
      // Handed to a function as an argument (`canonicalize(…, sink)`): it may write there.
      if (how === "methods" && ts.isCallExpression(parent) && parent.arguments.includes(node)) found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `name (why)` for each piece of module-level mutable state in the TypeScript `text`. */
export function moduleState(text: string, fileName = "module.ts"): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(source);
      if (!isConst) out.push(`${name} (a top-level let)`);
      else {
        const how = declaration.initializer === undefined ? undefined : mutableInit(declaration.initializer);
        if (how !== undefined && ts.isIdentifier(declaration.name) && mutated(source, name, how))
          out.push(`${name} (a top-level const the module mutates)`);
      }
    }
  }
  return out;
}

/** `moduleState` of a file. */
export function moduleStateOf(file: string): string[] {
  return moduleState(readFileSync(file, "utf8"), file);
}
