/**
 * The names the ingest handler's CloudWatch metrics (Powertools EMF) are emitted under, in one place
 * for the handler and the stack's alarms and dashboard, so an alarm watches what is really emitted.
 */

/** The namespace of every pipeline metric. */
export const METRICS_NAMESPACE = "ReplayPipeline";

/** The ingest function's service name: Powertools adds it as the `service` dimension. */
export const INGEST_SERVICE = "ingest";

/** The audit function's service name. */
export const AUDIT_SERVICE = "audit";

/** Metric names of the ingest handler. */
export const INGEST_METRIC = {
  /** SQS records per invocation. */
  messages: "Messages",
  /** Files whose record was written, with the dimension `verdict` (`VERDICT_DIMENSION`). */
  files: "Files",
  bytes: "Bytes",
  processingTime: "ProcessingTime",
  /** A replay that met no receipt yet. */
  receiptsPending: "ReceiptsPending",
  /** A message processed before (its record was already written). */
  redelivered: "Redelivered",
  transientFaults: "TransientFaults",
  faults: "Faults",
} as const;

/** The dimension of `INGEST_METRIC.files` that holds the file's verdict. */
export const VERDICT_DIMENSION = "verdict";

/**
 * The audit's metric, made by a metric filter on its log line (`message` "audit written"): replays
 * whose session still had no receipt `AUDIT_RECEIPT_AGE_HOURS` after processing.
 */
export const AUDIT_METRIC = { missingReceipts: "MissingReceipts", failedChecks: "FailedChecks" } as const;
