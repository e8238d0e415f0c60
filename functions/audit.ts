/**
 * The scheduled audit (EventBridge Scheduler, daily): reads the index for the previous UTC day
 * (or the period the schedule's input names), writes `audits/<date>.{json,md,html}` to the reports
 * bucket, logs one JSON line and emits its counts as metrics (the stack alarms on them). Thin: the
 * work is in lib/audit-job.ts and shared/report/.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { s3DocumentReader } from "./adapters/audit-source.js";
import { DynamoSessionIndex } from "./adapters/dynamo-index.js";
import { type AuditRequest, auditScope, runAudit, storeAudit } from "./lib/audit-job.js";
import { config, dynamo, s3 } from "./lib/clients.js";
import { AUDIT_METRIC, AUDIT_SERVICE, METRICS_NAMESPACE } from "./lib/metrics.js";

const index = new DynamoSessionIndex(dynamo, {
  tableName: config.tableName,
  shards: config.indexShards,
  cursorKey: config.cursorKey,
});
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: AUDIT_SERVICE });
const logger = new Logger({ serviceName: AUDIT_SERVICE });

/** The Lambda handler; the event is the schedule's input: `{}` or `{ since?, until?, tenant? }`. */
export async function handler(event: AuditRequest | null | undefined): Promise<{ keys: string[] }> {
  const started = Date.now();
  const now = new Date();
  const scope = auditScope(event ?? {}, now);
  const audit = await runAudit(index, s3DocumentReader(s3, config.reportsBucket), {
    ...scope,
    now,
    receiptAgeHours: config.receiptAgeHours,
  });
  const keys = await storeAudit(s3, config.reportsBucket, audit);
  const t = audit.report.totals;
  logger.info("audit written", {
    ...scope,
    keys,
    files: t.files,
    verdicts: t.verdicts,
    failed_checks: audit.report.failed_checks.length,
    missing_receipts: audit.report.missing_receipts.length,
    ms: Date.now() - started,
  });
  // The alarms on receipts still missing after AUDIT_RECEIPT_AGE_HOURS and on failed checks.
  metrics.addMetric(AUDIT_METRIC.missingReceipts, MetricUnit.Count, audit.report.missing_receipts.length);
  metrics.addMetric(AUDIT_METRIC.failedChecks, MetricUnit.Count, audit.report.failed_checks.length);
  metrics.publishStoredMetrics();
  return { keys };
}
