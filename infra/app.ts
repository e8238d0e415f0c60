/**
 * The CDK app: `npm run synth` (or `npx cdk synth|deploy`, see cdk.json) runs the bundled copy,
 * dist/infra.js. One stack, named by the context value `stackName`, checked by cdk-nag's
 * AwsSolutions rules: an unacknowledged finding fails synthesis.
 */
import { fileURLToPath } from "node:url";
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { PipelineStack } from "./pipeline-stack.js";
import { readSettings } from "./settings.js";

// This file runs as infra/app.ts or as dist/infra.js: either way the root is one folder up.
const projectRoot = fileURLToPath(new URL("..", import.meta.url));
// The CDK CLI names the output folder; run alone, the app writes cdk.out/ like the CLI would.
const app = new App(process.env.CDK_OUTDIR ? {} : { outdir: "cdk.out" });
const settings = readSettings(app.node);
new PipelineStack(app, settings.stackName, { projectRoot, settings });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
