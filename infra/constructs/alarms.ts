/**
 * What tells the operators something is wrong: alarms to one SNS topic (with an optional e-mail
 * subscription) and a dashboard of the same figures. The pipeline's own metrics are watched under
 * the names the handlers emit (functions/lib/metrics.ts), dimensions included.
 */
import { Duration, Validations } from "aws-cdk-lib";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import { Construct } from "constructs";
import type { Verdict } from "#shared/formats/index.js";
import {
  AUDIT_METRIC,
  AUDIT_SERVICE,
  INGEST_METRIC,
  INGEST_SERVICE,
  METRICS_NAMESPACE,
  VERDICT_DIMENSION,
} from "../../functions/lib/metrics.js";
import type { Audit } from "./audit.js";
import type { Ingest } from "./ingest.js";

/** What `Alarms` watches and its thresholds. */
export interface AlarmsProps {
  ingest: Ingest;
  audit: Audit;
  /** E-mail subscribed to the alarm topic, or null. */
  email: string | null;
  /** `failed` (and, apart, `invalid`) verdicts in one hour above which the alarm fires. */
  verdictThreshold: number;
  /** Minutes the oldest queued message may wait before the alarm fires. */
  oldestMessageMinutes: number;
}

const VERDICTS: readonly Verdict[] = ["passed", "failed", "unverifiable", "invalid"];

/** A pipeline metric of `service` (Powertools adds the `service` dimension to each). */
function pipelineMetric(
  service: string,
  name: string,
  period: Duration,
  dimensions: Record<string, string> = {},
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service, ...dimensions },
    statistic: "Sum",
    period,
  });
}

/** Files of one verdict, per `period`. */
function verdictMetric(verdict: Verdict, period: Duration): Metric {
  return pipelineMetric(INGEST_SERVICE, INGEST_METRIC.files, period, { [VERDICT_DIMENSION]: verdict });
}

/** The topic, the alarms and the dashboard. */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, "Topic", { displayName: "replay-pipeline alarms", enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: "AwsSolutions-SNS2",
      reason:
        "Alarm notifications carry alarm names, states and metric values, no pipeline data; CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key would cost more than it protects.",
    });
    if (props.email !== null) this.topic.addSubscription(new EmailSubscription(props.email));
    const action = new SnsAction(this.topic);
    this.ingestAlarms(props, action);
    this.auditAlarms(props, action);
    this.dashboard = this.makeDashboard(props);
  }

  /** An alarm at `threshold` or more of `metric` in one period, no data counting as fine. */
  private alarm(
    action: SnsAction,
    name: string,
    description: string,
    metric: IMetric,
    threshold: number,
  ): Alarm {
    const made = new Alarm(this, name, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.notify(made, action);
    return made;
  }

  /** Sends `made`'s alarms and recoveries to the topic and lists it on the dashboard. */
  private notify(made: Alarm, action: SnsAction): void {
    made.addAlarmAction(action);
    made.addOkAction(action);
    this.alarms.push(made);
  }

  /** The ingest path's alarms: dead letters, backlog, errors, throttles, faults, bad verdicts. */
  private ingestAlarms(props: AlarmsProps, action: SnsAction): void {
    const { ingest } = props;
    const five = Duration.minutes(5);
    const hour = Duration.hours(1);
    this.alarm(
      action,
      "DeadLetters",
      "Messages are in the ingest dead-letter queue: a file failed every retry. Read the ingest logs, mend, then redrive.",
      ingest.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: "Maximum",
      }),
      1,
    );
    this.alarm(
      action,
      "OldestMessage",
      `The oldest ingest message has waited ${props.oldestMessageMinutes} minutes or more: the backlog is not draining.`,
      ingest.queue.metricApproximateAgeOfOldestMessage({ period: five, statistic: "Maximum" }),
      props.oldestMessageMinutes * 60,
    );
    this.alarm(
      action,
      "IngestErrors",
      "The ingest function failed invocations.",
      ingest.function.metricErrors({ period: five }),
      1,
    );
    this.alarm(
      action,
      "IngestThrottles",
      "The ingest function was throttled: raise reserved or account concurrency, or lower ingestMaxConcurrency.",
      ingest.function.metricThrottles({ period: five }),
      1,
    );
    this.alarm(
      action,
      "IngestFaults",
      "The ingest handler met faults that are not transient (a bug or a configuration problem); the records are retried, then dead-lettered.",
      pipelineMetric(INGEST_SERVICE, INGEST_METRIC.faults, five),
      1,
    );
    for (const verdict of ["failed", "invalid"] as const)
      this.alarm(
        action,
        `Verdicts${verdict === "failed" ? "Failed" : "Invalid"}`,
        `More than ${props.verdictThreshold} files in an hour had the verdict '${verdict}'.`,
        verdictMetric(verdict, hour),
        props.verdictThreshold + 1,
      );
  }

  /** The scheduled audit's alarms: errors, throttles, a day without a run, missing receipts. */
  private auditAlarms(props: AlarmsProps, action: SnsAction): void {
    const { audit } = props;
    const day = Duration.days(1);
    this.alarm(
      action,
      "AuditErrors",
      "The scheduled audit failed.",
      audit.function.metricErrors({ period: day }),
      1,
    );
    this.alarm(
      action,
      "AuditThrottles",
      "The scheduled audit was throttled.",
      audit.function.metricThrottles({ period: day }),
      1,
    );
    // The scheduled audit that did not run at all shows no error: watch that it ran each day.
    const notRun = new Alarm(this, "AuditNotRun", {
      alarmDescription:
        "The scheduled audit did not run in the last day (a disabled or deleted schedule, or its role): no audit report was written.",
      metric: audit.function.metricInvocations({ period: day }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });
    this.notify(notRun, action);
    this.alarm(
      action,
      "ReceiptsMissing",
      "The last audit found replays whose receipt had not arrived within AUDIT_RECEIPT_AGE_HOURS (audits/<day>.md lists them).",
      pipelineMetric(AUDIT_SERVICE, AUDIT_METRIC.missingReceipts, day),
      1,
    );
  }

  /** The dashboard: the alarms' states, verdicts, bytes and time, queue, functions, receipts, faults. */
  private makeDashboard(props: AlarmsProps): Dashboard {
    const { ingest, audit } = props;
    const five = Duration.minutes(5);
    const hour = Duration.hours(1);
    const day = Duration.days(1);
    const lambda = (fn: NodejsFunction, title: string) =>
      new GraphWidget({
        title,
        width: 8,
        left: [
          fn.metricInvocations({ period: five }),
          fn.metricErrors({ period: five }),
          fn.metricThrottles({ period: five }),
        ],
        right: [fn.metricDuration({ period: five, statistic: "p99" })],
      });
    return new Dashboard(this, "Dashboard", {
      defaultInterval: Duration.days(7),
      widgets: [
        [new AlarmStatusWidget({ title: "Alarms", alarms: this.alarms, width: 24 })],
        [
          new GraphWidget({
            title: "Files by verdict (per hour)",
            width: 12,
            stacked: true,
            left: VERDICTS.map((verdict) => verdictMetric(verdict, hour).with({ label: verdict })),
          }),
          new GraphWidget({
            title: "Ingested bytes and processing time",
            width: 12,
            left: [pipelineMetric(INGEST_SERVICE, INGEST_METRIC.bytes, hour)],
            right: [
              pipelineMetric(INGEST_SERVICE, INGEST_METRIC.processingTime, hour).with({ statistic: "p99" }),
            ],
          }),
        ],
        [
          new GraphWidget({
            title: "Queue",
            width: 8,
            left: [
              ingest.queue.metricApproximateNumberOfMessagesVisible({ period: five }),
              ingest.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: five }),
            ],
            right: [ingest.queue.metricApproximateAgeOfOldestMessage({ period: five })],
          }),
          lambda(ingest.function, "Ingest function"),
          lambda(audit.function, "Audit function"),
        ],
        [
          new GraphWidget({
            title: "Receipts",
            width: 12,
            left: [
              pipelineMetric(INGEST_SERVICE, INGEST_METRIC.receiptsPending, hour),
              pipelineMetric(AUDIT_SERVICE, AUDIT_METRIC.missingReceipts, day),
            ],
          }),
          new GraphWidget({
            title: "Faults and redeliveries",
            width: 12,
            left: [
              pipelineMetric(INGEST_SERVICE, INGEST_METRIC.faults, five),
              pipelineMetric(INGEST_SERVICE, INGEST_METRIC.transientFaults, five),
              pipelineMetric(INGEST_SERVICE, INGEST_METRIC.redelivered, five),
            ],
          }),
        ],
      ],
    });
  }
}
