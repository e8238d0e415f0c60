/**
 * The options that name a pipeline (`--local`, `--stack`, …), apart from the AWS clients that
 * reach it, so a command that only sometimes reaches the pipeline (`view`) loads the SDK only then.
 */

/** The options every pipeline command takes to find the pipeline. */
export const TARGET_OPTIONS = {
  local: { type: "boolean" },
  "local-dir": { type: "string" },
  stack: { type: "string" },
  region: { type: "string" },
} as const;

/** Help lines for `TARGET_OPTIONS`. */
export const TARGET_HELP = `  --local              the local stack (npm start), from .local/stack.json
  --local-dir DIR      the local stack whose folder is DIR
  --stack NAME         a deployed stack: its CloudFormation outputs IngestBucketName,
                       PublishedBucketName, ReportsBucketName, TableName
  --region R           AWS region (default: AWS_REGION or the profile's)
Without --local or --stack: INGEST_BUCKET, PUBLISHED_BUCKET, REPORTS_BUCKET, TABLE_NAME.`;
