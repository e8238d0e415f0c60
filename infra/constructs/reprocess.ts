/**
 * Reprocess runs at scale: a Step Functions state machine whose Distributed Map reads a run's
 * manifest (`reprocess/<run-id>/manifest.json` in the reports bucket, a JSON array the CLI writes)
 * and invokes the reprocess function once per item, `maxConcurrency` at once, writing each item's
 * result under `reprocess/`. The function has the ingest function's data permissions (it runs the
 * same job) and no write on the ingest bucket; the state machine may read the manifests, write the
 * results and invoke that one function.
 */
import { Duration, Size, Stack, Validations } from "aws-cdk-lib";
import type { IDistribution } from "aws-cdk-lib/aws-cloudfront";
import { Effect, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { CfnBucket } from "aws-cdk-lib/aws-s3";
import {
  type CfnStateMachine,
  DefinitionBody,
  DistributedMap,
  JsonPath,
  ResultWriter,
  S3JsonItemReader,
  StateMachine,
  StateMachineType,
} from "aws-cdk-lib/aws-stepfunctions";
import { LambdaInvoke } from "aws-cdk-lib/aws-stepfunctions-tasks";
import { Construct } from "constructs";
import { ConfigError } from "../../functions/lib/config.js";
import { METRICS_NAMESPACE } from "../../functions/lib/metrics.js";
import { INGEST_MEMORY_MB, INGEST_TIMEOUT_SECONDS, perFileEphemeralMib } from "../sizing.js";
import { grantPerFileJob } from "./access.js";
import { OBJECT_WRITE_ACTIONS } from "./ingest.js";
import { pipelineFunction } from "./pipeline-function.js";
import type { Storage } from "./storage.js";

/** Where a run's manifest and results are in the reports bucket. */
const PREFIX = "reprocess/";

/** What `Reprocess` is configured with. */
export interface ReprocessProps {
  projectRoot: string;
  storage: Storage;
  environment: Record<string, string>;
  distribution: IDistribution | null;
  /** Items (reprocess function calls) at once. */
  maxConcurrency: number;
  logRetention: RetentionDays;
}

/** The reprocess function and the state machine that runs it over a manifest. */
export class Reprocess extends Construct {
  readonly function: NodejsFunction;
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: ReprocessProps) {
    super(scope, id);
    const { storage } = props;
    this.function = pipelineFunction(this, "Function", {
      projectRoot: props.projectRoot,
      entry: "functions/reprocess.ts",
      description: "replay-pipeline reprocess: one stored file through the job again, its record replaced",
      memoryMb: INGEST_MEMORY_MB,
      timeoutSeconds: INGEST_TIMEOUT_SECONDS,
      ephemeralStorage: Size.mebibytes(perFileEphemeralMib(props.environment)),
      logRetention: props.logRetention,
      reservedConcurrency: null,
      environment: {
        ...props.environment,
        ...(props.distribution === null
          ? {}
          : { PUBLISHED_DISTRIBUTION_ID: props.distribution.distributionId }),
        POWERTOOLS_SERVICE_NAME: "reprocess",
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: "INFO",
      },
    });
    const role = this.function.role;
    if (role === undefined) throw new ConfigError("config.invalid", "the reprocess function has no role");
    // The same job as ingest's (`processObject`), so the same data permissions, catalogue included.
    grantPerFileJob(role, storage, props.distribution);
    // Like ingest, it never writes what the pipeline listens to.
    storage.ingestBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: "ReprocessFunctionNeverWrites",
        effect: Effect.DENY,
        principals: [role],
        actions: [...OBJECT_WRITE_ACTIONS],
        resources: [storage.ingestBucket.arnForObjects("*")],
      }),
    );

    const invoke = new LambdaInvoke(this, "ReprocessItem", {
      lambdaFunction: this.function,
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    });
    // A fault (a transient one) is tried again; the index makes a second try of a finished item a no-op.
    invoke.addRetry({ maxAttempts: 2, backoffRate: 2, interval: Duration.seconds(5) });
    const map = new DistributedMap(this, "Items", {
      itemReader: new S3JsonItemReader({
        bucket: storage.reportsBucket,
        key: JsonPath.stringAt("$.manifest.key"),
      }),
      itemSelector: { run_id: JsonPath.stringAt("$.run_id"), item: JsonPath.stringAt("$$.Map.Item.Value") },
      maxConcurrency: props.maxConcurrency,
      resultWriter: new ResultWriter({ bucket: storage.reportsBucket, prefix: PREFIX }),
      // A failed item is reported and left for a resumed run; the run itself goes on.
      toleratedFailurePercentage: 100,
    });
    map.itemProcessor(invoke);
    this.stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(map),
    });
    this.acknowledgeMapPermissions(storage);
  }

  /** Why the map's wildcard permissions and the state machine's missing logs and tracing pass cdk-nag. */
  private acknowledgeMapPermissions(storage: Storage): void {
    const stack = Stack.of(this);
    const functionId = stack.getLogicalId(this.function.node.defaultChild as CfnFunction);
    const reportsId = stack.getLogicalId(storage.reportsBucket.node.defaultChild as CfnBucket);
    const machineId = stack.getLogicalId(this.stateMachine.node.defaultChild as CfnStateMachine);
    const executions = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${machineId}"}]}]}`;
    // On the whole construct: the map adds its own policy (child executions) beside the role's default one.
    Validations.of(this).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
        reason:
          "The map's task invokes the reprocess function and its versions (ARN:*): one function, one action.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::<${reportsId}>/*]`,
        reason:
          "The map reads a run's manifest and writes its results in the reports bucket; the run id (the key) is chosen per run, so no narrower key exists at deploy time.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::${executions}:*]`,
        reason:
          "A Distributed Map describes and stops its own child executions: this state machine's executions only.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::${executions}/*:*]`,
        reason:
          "A Distributed Map describes and stops its own map runs: this state machine's executions only.",
      },
    );
    Validations.of(this.stateMachine).acknowledge(
      {
        id: "AwsSolutions-SF1",
        reason:
          "No execution logs: they would need logs:* on every resource ('*'), and a million-item run would log every transition; each item's result is written to the reports bucket and the function logs each item.",
      },
      {
        id: "AwsSolutions-SF2",
        reason:
          "No X-Ray tracing: it needs xray:* on every resource ('*'); the map run's item counts and results say what each item did.",
      },
    );
  }
}
