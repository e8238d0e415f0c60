/**
 * The test run's own temp folder. Other runs on the machine make and remove their own entries in
 * the OS temp folder at the same time, so only a folder of this run's tells what it left behind.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Points TMPDIR (read by `os.tmpdir()`, inherited by the test processes and every program they
 * start) at a new folder under the current temp folder, and turns off Node 22's compile cache
 * (npm and tsc turn it on: a node-compile-cache folder meant to outlive the process). Returns the
 * check for the end of the run: it puts both variables back and removes the folder, and throws,
 * naming each entry, when anything was left in it.
 */
export function runTempFolder(): () => void {
  const outer = {
    TMPDIR: process.env.TMPDIR,
    NODE_DISABLE_COMPILE_CACHE: process.env.NODE_DISABLE_COMPILE_CACHE,
  };
  const root = mkdtempSync(join(tmpdir(), "replay-pipeline-test-"));
  process.env.TMPDIR = root;
  process.env.NODE_DISABLE_COMPILE_CACHE = "1";
  return () => {
    for (const [name, value] of Object.entries(outer)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    const left = leftovers(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0)
      throw new Error(
        `the tests left ${left.length} entr${left.length === 1 ? "y" : "ies"} in the temp folder (a test must remove what it makes; test/support/temp.ts does):\n${left.map((name) => `  ${name}`).join("\n")}`,
      );
  };
}

/** The entries of `root`, a folder's with up to 3 of its own, so a leftover says what made it. */
function leftovers(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).map((entry) => {
    if (!entry.isDirectory()) return entry.name;
    const inside = readdirSync(join(root, entry.name));
    const shown = inside.slice(0, 3).join(", ");
    return `${entry.name}/ (${inside.length === 0 ? "empty" : `${shown}${inside.length > 3 ? ", …" : ""}`})`;
  });
}
