import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { CfnTemplate } from "../support/pipeline-stack.js";

const run = promisify(execFile);

describe("npm run synth (dist/infra.js, built by the global setup)", () => {
  let outdir = "";
  afterAll(async () => {
    if (outdir !== "") await rm(outdir, { recursive: true, force: true });
  });

  it("synthesizes with no AWS credentials, bundling the real handlers with the local esbuild", async () => {
    outdir = await mkdtemp(join(tmpdir(), "cdk-out-"));
    // No credentials, profile or region: synthesis must need none.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")));
    await run(process.execPath, ["dist/infra.js"], {
      env: { ...env, CDK_OUTDIR: outdir, AWS_EC2_METADATA_DISABLED: "true", HOME: outdir },
      maxBuffer: 16 * 1024 ** 2,
    });
    const template = JSON.parse(
      await readFile(join(outdir, "ReplayPipeline.template.json"), "utf8"),
    ) as CfnTemplate;
    const functions = Object.entries(template.Resources).filter(
      ([id, r]) => r.Type === "AWS::Lambda::Function" && /^(Ingest|Audit)Function/.test(id),
    );
    expect(functions).toHaveLength(2);
    const manifest = JSON.parse(await readFile(join(outdir, "ReplayPipeline.assets.json"), "utf8")) as {
      files: Record<string, { source: { path: string } }>;
    };
    for (const [id, fn] of functions) {
      const key = (fn.Properties?.Code as { S3Key?: string } | undefined)?.S3Key ?? `${id} has no S3Key`;
      const assetPath = manifest.files[key.replace(/\.zip$/, "")]?.source.path ?? `no asset for ${key}`;
      const files = (await readdir(join(outdir, assetPath))).sort();
      // One ESM bundle and its source map: no node_modules, and no line-worker.js to ship.
      expect(files, id).toEqual(["index.mjs", "index.mjs.map"]);
      const bundle = await readFile(join(outdir, assetPath, "index.mjs"), "utf8");
      expect(bundle.startsWith("import{createRequire as __cr}")).toBe(true);
      if (id.startsWith("Ingest")) expect(bundle).toMatch(/parallel:\{workers:0\}/);
    }
  }, 240_000);
});
