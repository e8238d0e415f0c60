import { execFileSync } from "node:child_process";

/** Builds dist/ once so CLI tests never run a stale bundle. */
export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
