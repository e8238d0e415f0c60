/**
 * No regular expression literal of the source backtracks exponentially: a string written to make
 * one do so (or a long run of letters that happens to) stalls the Lambda on one line until it
 * times out, and the whole file dead-letters. recheck (makenowjust's ReDoS checker, its native
 * binary where the platform has one) judges each literal found by the TypeScript parser.
 * Polynomial worst cases are not failed here: the detectors read bounded windows, and
 * `npm run bench -- --only adversarial-text` measures them (docs/performance.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { check } from "recheck";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOTS = ["shared", "cli", "functions", "infra"];

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

interface Literal {
  where: string;
  source: string;
  flags: string;
}

/** The regular expression literals of `file`, with their line. */
function literalsOf(file: string): Literal[] {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Literal[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(sf);
      const last = literal.lastIndexOf("/");
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      // `d`, `g` and `y` change what a match returns, not how it backtracks; recheck takes neither.
      found.push({
        where: `${file}:${line + 1}`,
        source: literal.slice(1, last),
        flags: literal.slice(last + 1).replace(/[dgy]/g, ""),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Is the pattern exponential in recheck's judgement (an unknown, past its time limit, is not)? */
async function isExponential({ source, flags }: Pick<Literal, "source" | "flags">): Promise<boolean> {
  const r = await check(source, flags, { timeout: 500 });
  return r.status === "vulnerable" && r.complexity.type === "exponential";
}

describe("regular expressions", () => {
  it("the checker finds exponential backtracking (a name-words check this project once had)", async () => {
    expect(await isExponential({ source: "^[A-Za-z]+(?:[_-]?[A-Za-z]+)+$", flags: "" })).toBe(true);
    expect(await isExponential({ source: "^[A-Za-z]+(?:[_-][A-Za-z]+)*$", flags: "" })).toBe(false);
  });

  it("no literal in shared/, cli/, functions/ or infra/ backtracks exponentially", async () => {
    const literals = ROOTS.flatMap((root) => sources(root)).flatMap(literalsOf);
    expect(literals.length).toBeGreaterThan(300);
    // recheck's native agent checks several at once.
    const judged = await Promise.all(literals.map(async (l) => ((await isExponential(l)) ? [l] : [])));
    expect(judged.flat().map((l) => `${l.where} /${l.source}/`)).toEqual([]);
  }, 180_000);
});
