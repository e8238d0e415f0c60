/**
 * Long functions, as test/unit/structure.test.ts limits them: found with the TypeScript parser.
 * A function, method, accessor, constructor, arrow or function expression whose text (from its
 * first token to its closing brace, nested functions included) spans more than `LONG_FUNCTION_LINES`
 * lines is long. A long function is excused by a one- or two-line `//` comment directly above the
 * statement that holds it (its declaration, or the `const` an arrow is assigned to), whose first
 * line starts with `LONG_MARKER` and goes on to give the reason.
 */
import ts from "typescript";

/** Lines past which a function must split or say why it must not. */
export const LONG_FUNCTION_LINES = 80;

/** How the comment that excuses a long function begins. */
export const LONG_MARKER = "// Long because:";

/** A long function: where it starts, its name as a reader would search for it, its length, its excuse if any. */
export interface LongFunction {
  readonly line: number;
  readonly name: string;
  readonly lines: number;
  /** The marker comment's text (both lines joined), or undefined when it has none or a malformed one. */
  readonly reason: string | undefined;
}

/** Where an arrow or function expression is named and commented: the statement or member that holds it. */
function holder(node: ts.Node): ts.Node {
  let at = node;
  while (
    ts.isVariableDeclaration(at.parent) ||
    ts.isVariableDeclarationList(at.parent) ||
    ts.isVariableStatement(at.parent) ||
    ts.isPropertyAssignment(at.parent) ||
    ts.isPropertyDeclaration(at.parent) ||
    ts.isParenthesizedExpression(at.parent) ||
    ts.isAsExpression(at.parent) ||
    ts.isSatisfiesExpression(at.parent) ||
    ts.isExportAssignment(at.parent)
  )
    at = at.parent;
  return at;
}

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) {
    const owner = node.parent;
    return `${ts.isClassLike(owner) && owner.name ? owner.name.text : "<class>"}.constructor`;
  }
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return "<anonymous>";
}

/** The excuse above `at`: the run of `//` lines directly before it, if it is one or two lines and starts with the marker. */
function reasonAbove(at: ts.Node, text: string): string | undefined {
  const comments = ts.getLeadingCommentRanges(text, at.getFullStart()) ?? [];
  const run: string[] = [];
  for (let i = comments.length - 1; i >= 0; i--) {
    const comment = comments[i] as ts.CommentRange;
    if (comment.kind !== ts.SyntaxKind.SingleLineCommentTrivia) break;
    const next = comments[i + 1];
    // Directly above: nothing but a line break between this comment and the next (or the node).
    const gap = text.slice(comment.end, next ? next.pos : at.getStart());
    if (!/^\r?\n[ \t]*$/.test(gap)) break;
    run.unshift(text.slice(comment.pos, comment.end));
  }
  const start = run.findIndex((line) => line.startsWith(LONG_MARKER));
  if (start < 0 || run.length - start > 2) return undefined;
  const reason = run.slice(start).join(" ");
  return reason.slice(LONG_MARKER.length).trim().length > 0 ? reason : undefined;
}

/** The functions of `text` (a TypeScript file's source) longer than `LONG_FUNCTION_LINES` lines. */
export function longFunctions(text: string, fileName = "file.ts"): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > LONG_FUNCTION_LINES) {
        const fn = node as ts.FunctionLikeDeclaration;
        out.push({
          line: first + 1,
          name: nameOf(fn, source),
          lines,
          reason: reasonAbove(holder(node), text),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
