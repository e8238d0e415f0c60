// Bundles the CLI, the benchmark, the line worker and the CDK app into dist/ so `npx replay-pipeline` runs plain JavaScript.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
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
  // The GitHub Action's entry (action.yml runs it after `npm ci` in the action's checkout).
  action: "./cli/github-action.ts",
  // The zod schemas of the --json outputs, for scripts/schemas.mjs.
  schemas: "./cli/output/schemas.ts",
};
for (const [name, path] of Object.entries(entryPoints)) {
  if (!existsSync(path)) throw new Error(`build: entry point ${name} (${path}) is missing`);
}

// `replay-pipeline --version` names the commit the bundle was built from; a build outside git (an
// unpacked source archive) says "unknown".
const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return "unknown";
  }
})();

const common = {
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  sourcemap: true,
  packages: "external",
  logLevel: "warning",
  define: { REPLAY_PIPELINE_COMMIT: JSON.stringify(commit) },
};
const { cli, ...rest } = entryPoints;
await build({ ...common, entryPoints: rest });
// The CLI loads each command's code (and the packages it needs: the AWS SDK, the local servers,
// the report's charts) only when that command runs: split into chunks beside dist/cli.js, so
// `import.meta.url` (the worker script, the schemas) resolves as from dist/cli.js. Chunks of an
// earlier build go first, or they would pile up.
for (const file of existsSync("dist") ? readdirSync("dist") : []) {
  if (file.startsWith("cli-chunk-")) rmSync(`dist/${file}`);
}
await build({ ...common, entryPoints: { cli }, splitting: true, chunkNames: "cli-chunk-[hash]" });
