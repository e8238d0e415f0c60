/**
 * A pipeline Lambda function: one handler file of functions/, bundled by the locally installed
 * esbuild (never Docker) into one ESM file for Node.js 22 on ARM64, with its own log group.
 */
import { join } from "node:path";
import { Duration, RemovalPolicy, type Size, Validations } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";

/** What a pipeline function is made of. */
export interface PipelineFunctionProps {
  /** The repository's root: entry, lock file and tsconfig are found from it. */
  projectRoot: string;
  /** The handler file, relative to the root (`functions/ingest.ts`). */
  entry: string;
  memoryMb: number;
  timeoutSeconds: number;
  ephemeralStorage?: Size;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  description: string;
  /** Reserved concurrency; null: none (the account's unreserved pool). */
  reservedConcurrency?: number | null;
}

/** A NodejsFunction with the pipeline's runtime, bundling and logging. */
export function pipelineFunction(scope: Construct, id: string, props: PipelineFunctionProps): NodejsFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // Its own role, allowed to write its own log group only (not AWSLambdaBasicExecutionRole's
  // logs on every group); the caller adds its data statements.
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
    description: props.description,
  });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, id, {
    role,
    description: props.description,
    entry: join(props.projectRoot, props.entry),
    handler: "handler",
    projectRoot: props.projectRoot,
    depsLockFilePath: join(props.projectRoot, "package-lock.json"),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memoryMb,
    timeout: Duration.seconds(props.timeoutSeconds),
    ...(props.reservedConcurrency == null ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
    ...(props.ephemeralStorage === undefined ? {} : { ephemeralStorageSize: props.ephemeralStorage }),
    logGroup,
    environment: { NODE_OPTIONS: "--enable-source-maps", ...props.environment },
    bundling: {
      forceDockerBundling: false,
      format: OutputFormat.ESM,
      target: "node22",
      minify: true,
      sourceMap: true,
      sourcesContent: false,
      mainFields: ["module", "main"],
      // Bundle the AWS SDK too: the versions the tests ran, not whichever the runtime carries.
      externalModules: [],
      // Some dependencies are CommonJS and call require(): give the ESM bundle one.
      banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
    },
  });
  Validations.of(fn).acknowledge({
    id: "AwsSolutions-L1",
    reason:
      "Node.js 22 is the runtime the pipeline is built and tested for (tsconfig target, esbuild target node22); a runtime change is a tested release, not a deployment default.",
  });
  return fn;
}
