/**
 * The pipeline stack for the infra tests, synthesized in the test process: the fast path. CDK skips
 * bundling the handlers (each bundle costs seconds of esbuild) and its built-in CloudFormation
 * validation (seconds of WebAssembly); the template is otherwise the one `npm run synth` writes.
 * test/infra/synth.test.ts runs the real app, real bundles and all, once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { PipelineStack } from "../../infra/pipeline-stack.js";
import { readSettings } from "../../infra/settings.js";

/** The repository root, as infra/app.ts finds it. */
export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

/** A synthesized stack and its template. */
export interface SynthesizedPipeline {
  stack: PipelineStack;
  template: Template;
  /** The template as JSON. */
  json: CfnTemplate;
}

/** The parts of a CloudFormation template the tests read. */
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** One resource of a template. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** The stack made from `context` (CDK context values, as `-c key=value` or cdk.json gives them). */
export function synthPipeline(
  context: Record<string, unknown> = {},
  amend?: (stack: PipelineStack) => void,
): SynthesizedPipeline {
  // No stack bundles: `aws:cdk:bundling-stacks` is how `cdk synth --exclusively` skips bundling.
  // An assembly folder of our own, removed once the template is read: without one CDK makes a
  // cdk.out* folder in the temp folder per app and leaves it there.
  const outdir = mkdtempSync(join(tmpdir(), "cdk.out-"));
  const app = new App({ outdir, context: { "aws:cdk:bundling-stacks": [], ...context } });
  const settings = readSettings(app.node);
  const stack = new PipelineStack(app, settings.stackName, { projectRoot: PROJECT_ROOT, settings });
  amend?.(stack);
  // CDK_VALIDATION=false is how `cdk synth --no-validation` turns the built-in validation off.
  const before = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = "false";
  try {
    const template = Template.fromStack(stack);
    return { stack, template, json: template.toJSON() as CfnTemplate };
  } finally {
    if (before === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = before;
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
export function logicalId(json: CfnTemplate, type: string, prefix: string): string {
  const ids = Object.entries(json.Resources)
    .filter(([id, r]) => r.Type === type && id.startsWith(prefix))
    .map(([id]) => id);
  if (ids.length !== 1)
    throw new Error(`${ids.length} resources of ${type} start with ${prefix}: ${ids.join(", ")}`);
  return ids[0] as string;
}
