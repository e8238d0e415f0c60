import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Builds dist/ once so CLI tests never run a stale bundle, and gives the run a temp folder of its
 * own: TMPDIR (read by `os.tmpdir()`, and inherited by the test processes and every program they
 * start) points at a new folder under the OS temp folder. Other runs on the machine make and remove
 * their own entries in the OS folder at the same time, so only this folder tells what this run
 * left behind. At teardown it must be empty: the run fails (exit code 1) naming each leftover,
 * and the folder is removed either way.
 */
export default function setup(): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const outer = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "replay-pipeline-test-"));
  process.env.TMPDIR = root;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    const left = leftovers(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length === 0) return;
    // Vitest logs a teardown's error without failing the run: the exit code says it.
    process.exitCode = 1;
    throw new Error(
      `the tests left ${left.length} entr${left.length === 1 ? "y" : "ies"} in the temp folder (a test must remove what it makes; test/support/temp.ts does):\n${left.map((name) => `  ${name}`).join("\n")}`,
    );
  };
}

/** The entries of `root`, each folder's with up to 3 of its entries, so a leftover says what made it. */
function leftovers(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).map((entry) => {
    if (!entry.isDirectory()) return entry.name;
    const inside = readdirSync(join(root, entry.name));
    const shown = inside.slice(0, 3).join(", ");
    return `${entry.name}/ (${inside.length === 0 ? "empty" : `${shown}${inside.length > 3 ? ", …" : ""}`})`;
  });
}
