// Bundles the CLI, the benchmark, the line worker and the CDK app into dist/ so `npx replay-pipeline` runs plain JavaScript.
import { existsSync } from "node:fs";
import { build } from "esbuild";

const entryPoints = {
  cli: "./cli/main.ts",
  bench: "./bench/run.ts",
  "bench-e2e": "./bench/e2e.ts",
  // The worker entry listing every line task; the CLI and the benchmark hand its path (beside
  // them in dist/, see cli/worker-script.ts) to the pool in shared/parallel/.
  "line-worker": "./shared/worker-tasks.ts",
  // The CDK app (npm run synth, cdk.json): it bundles the Lambda handlers itself, from functions/.
  infra: "./infra/app.ts",
  // The zod schemas of the --json outputs, for scripts/schemas.mjs.
  schemas: "./cli/output/schemas.ts",
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
