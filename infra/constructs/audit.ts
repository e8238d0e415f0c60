/**
 * The audit: its function (reads the index and the verdict documents, writes `audits/` to the
 * reports bucket) on an EventBridge Scheduler schedule that invokes it with a role of its own,
 * allowed to invoke this one function and nothing else.
 */
import { Stack, TimeZone, Validations } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Schedule, ScheduleExpression, ScheduleTargetInput } from "aws-cdk-lib/aws-scheduler";
import { LambdaInvoke } from "aws-cdk-lib/aws-scheduler-targets";
import { Construct } from "constructs";
import { ConfigError } from "../../functions/lib/config.js";
import { AUDIT_SERVICE, METRICS_NAMESPACE } from "../../functions/lib/metrics.js";
import { AUDIT_MEMORY_MB, AUDIT_TIMEOUT_SECONDS } from "../sizing.js";
import {
  acknowledgeObjectArns,
  listBucket,
  readCursorKey,
  readObjects,
  tableAccess,
  writeObjects,
} from "./access.js";
import { pipelineFunction } from "./pipeline-function.js";
import type { Storage } from "./storage.js";

/** What `Audit` is configured with. */
export interface AuditProps {
  projectRoot: string;
  storage: Storage;
  environment: Record<string, string>;
  /** An EventBridge Scheduler expression: `cron(...)` or `rate(...)`. */
  schedule: string;
  /** The IANA time zone the cron expression is read in. */
  timeZone: string;
  logRetention: RetentionDays;
}

/** The audit function and its schedule. */
export class Audit extends Construct {
  readonly function: NodejsFunction;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: AuditProps) {
    super(scope, id);
    const { storage } = props;
    this.function = pipelineFunction(this, "Function", {
      projectRoot: props.projectRoot,
      entry: "functions/audit.ts",
      description: "replay-pipeline audit: the previous day's report to the reports bucket",
      memoryMb: AUDIT_MEMORY_MB,
      timeoutSeconds: AUDIT_TIMEOUT_SECONDS,
      logRetention: props.logRetention,
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: AUDIT_SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: "INFO",
      },
    });
    const role = this.function.role;
    if (role === undefined) throw new ConfigError("config.invalid", "the audit function has no role");
    for (const statement of [
      ...tableAccess(storage, { write: false }),
      readObjects(storage.reportsBucket, { versions: false }),
      listBucket(storage.reportsBucket),
      // Its reports only: `audits/` (`auditKeyBase`), never a file's verdict document.
      writeObjects(storage.reportsBucket, { delete: false, prefix: "audits/" }),
      readCursorKey(storage),
    ])
      role.addToPrincipalPolicy(statement);
    acknowledgeObjectArns(role, [storage.reportsBucket, [storage.reportsBucket, "audits/"]]);

    const scheduleRole = new Role(this, "ScheduleRole", {
      assumedBy: new ServicePrincipal("scheduler.amazonaws.com"),
      description: "EventBridge Scheduler: invokes the replay-pipeline audit function",
    });
    this.schedule = new Schedule(this, "Schedule", {
      description: "replay-pipeline: the daily audit of the previous UTC day",
      schedule: ScheduleExpression.expression(props.schedule, TimeZone.of(props.timeZone)),
      // `{}`: the audit's default period, the previous UTC day (functions/lib/audit-job.ts).
      target: new LambdaInvoke(this.function, {
        role: scheduleRole,
        input: ScheduleTargetInput.fromObject({}),
        retryAttempts: 2,
      }),
    });
    const functionId = Stack.of(this).getLogicalId(this.function.node.defaultChild as CfnFunction);
    Validations.of(scheduleRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason:
        "The scheduler target grants lambda:InvokeFunction on the audit function and its versions (ARN:*): one function, one action.",
    });
  }
}
