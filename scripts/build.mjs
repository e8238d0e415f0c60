// Bundles the CLI, the benchmark and the line worker into dist/ so `npx replay-pipeline` runs plain JavaScript.
import { existsSync } from "node:fs";
import { build } from "esbuild";

const entryPoints = {
  cli: "./cli/main.ts",
  bench: "./bench/run.ts",
  // Loaded by shared/parallel/line-pool.ts as a worker thread, beside the bundle that starts it.
  "line-worker": "./shared/parallel/line-worker.ts",
};
for (const [name, path] of Object.entries(entryPoints)) {
  if (!existsSync(path)) throw new Error(`build: entry point ${name} (${path}) is missing`);
}

await build({
  entryPoints,
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  packages: "external",
  logLevel: "warning",
});
