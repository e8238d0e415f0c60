/** Running the built `replay-pipeline` binary in tests, and writing their input files. */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./corpus.js";

/** The binary the tests run (built by `npm run build`). */
export const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");

/**
 * Runs the binary in the project folder with `env` over this process's environment, without the
 * variables that change its output (NO_COLOR, GITHUB_STEP_SUMMARY, CI) unless `env` sets them.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { NO_COLOR: _, GITHUB_STEP_SUMMARY: __, CI: ___, ...rest } = process.env;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: { ...rest, ...env } });
  return {
    code: result.status,
    stdout: result.stdout.toString("utf8"),
    stderr: result.stderr.toString("utf8"),
  };
}

/** A writer of files named in `dir`: returns each file's path. */
export function fileWriter(dir: string): (name: string, content: string | Buffer) => string {
  return (name, content) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
}
