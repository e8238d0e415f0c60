/** The benchmarks' child processes: each measurement runs in a fresh one, timed by its parent. */
import { spawn } from "node:child_process";

/**
 * Runs `argv` with its stderr passed through; resolves with the last line it printed on stdout
 * (the child's result), rejects when it fails to start or exits other than 0.
 */
export function lastLineOf(argv: readonly string[], name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(out.trim().split("\n").at(-1) ?? "");
      else reject(new Error(`${name} exited with ${signal ?? code}`));
    });
  });
}
