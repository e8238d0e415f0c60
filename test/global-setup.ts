import { execFileSync } from "node:child_process";
import { runTempFolder } from "./support/run-temp-folder.js";

/**
 * Builds dist/ once so CLI tests never run a stale bundle, and runs the tests in a temp folder of
 * their own: at the end it must be empty, or the run fails (exit code 1) naming what was left.
 */
export default function setup(): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const check = runTempFolder();
  return () => {
    try {
      check();
    } catch (error) {
      // Vitest logs a teardown's error without failing the run: the exit code says it.
      process.exitCode = 1;
      throw error;
    }
  };
}
