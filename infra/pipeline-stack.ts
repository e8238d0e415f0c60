/**
 * The pipeline's one stack: storage, ingest, the audit, optional external publishing, the
 * tenants' roles and the alarms, configured by CDK context (infra/settings.ts). It names no
 * account or region and looks nothing up, so it synthesizes offline and deploys to whichever
 * account `cdk deploy` targets.
 */
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { STACK_OUTPUTS } from "../cli/remote.js";
import { STATE_MACHINE_OUTPUT } from "../cli/reprocess-sfn.js";
import { ConfigError } from "../functions/lib/config.js";
import { Alarms } from "./constructs/alarms.js";
import { AttestationKey } from "./constructs/attestation-key.js";
import { Audit } from "./constructs/audit.js";
import { Ingest } from "./constructs/ingest.js";
import { Publishing } from "./constructs/publishing.js";
import { Reprocess } from "./constructs/reprocess.js";
import { Storage } from "./constructs/storage.js";
import { TenantAccess } from "./constructs/tenant-access.js";
import { hasDistribution, type PipelineSettings } from "./settings.js";

/** What the stack is made from. */
export interface PipelineStackProps extends StackProps {
  /** The repository's root: the handlers are bundled from its functions/. */
  projectRoot: string;
  settings: PipelineSettings;
}

/** Buckets, table, queue, functions, schedule, alarms and dashboard of one deployment. */
export class PipelineStack extends Stack {
  readonly storage: Storage;
  readonly ingest: Ingest;
  readonly audit: Audit;
  readonly reprocess: Reprocess;
  readonly alarms: Alarms;
  readonly publishing: Publishing | null;
  readonly tenantAccess: TenantAccess;
  readonly attestationKey: AttestationKey;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, {
      description: "replay-pipeline: validate, rehash, verify and redact replay files",
      ...props,
    });
    const { settings, projectRoot } = props;
    const logRetention = retentionOf(settings.logRetentionDays);
    this.storage = new Storage(this, "Storage", {
      noncurrentVersionDays: settings.noncurrentVersionDays,
      accessLogDays: settings.accessLogDays,
      cloudFrontLogs: hasDistribution(settings),
    });
    const { storage } = this;
    this.publishing = publishingOf(this, storage, settings);
    // What functions/lib/config.ts reads (AWS_REGION is the runtime's own).
    const environment = {
      INGEST_BUCKET: storage.ingestBucket.bucketName,
      PUBLISHED_BUCKET: storage.publishedBucket.bucketName,
      REPORTS_BUCKET: storage.reportsBucket.bucketName,
      TABLE_NAME: storage.table.tableName,
      INDEX_SHARDS: String(settings.indexShards),
      // The secret's ARN, not its value: the functions read the key at cold start.
      CURSOR_KEY_SECRET: storage.cursorKey.secretArn,
      AUDIT_RECEIPT_AGE_HOURS: String(settings.receiptAgeHours),
      VIEWER_PAGES: String(settings.viewerPages),
    };
    this.ingest = new Ingest(this, "Ingest", {
      projectRoot,
      storage,
      environment,
      keyPrefix: settings.ingestPrefix,
      distribution: this.publishing?.distribution ?? null,
      maxConcurrency: settings.ingestMaxConcurrency,
      reservedConcurrency: settings.reservedConcurrency,
      logRetention,
    });
    const ingestRole = this.ingest.function.role;
    if (ingestRole === undefined) throw new ConfigError("config.invalid", "the ingest function has no role");
    this.attestationKey = new AttestationKey(this, "Attestation", { signer: ingestRole });
    this.ingest.function.addEnvironment("ATTESTATION_KEY_ID", this.attestationKey.key.keyArn);
    this.reprocess = new Reprocess(this, "Reprocess", {
      projectRoot,
      storage,
      environment,
      distribution: this.publishing?.distribution ?? null,
      maxConcurrency: settings.reprocessMaxConcurrency,
      logRetention,
    });
    const reprocessRole = this.reprocess.function.role;
    if (reprocessRole === undefined)
      throw new ConfigError("config.invalid", "the reprocess function has no role");
    this.attestationKey.allowSigning("ReprocessRoleSignsOnly", reprocessRole);
    this.reprocess.function.addEnvironment("ATTESTATION_KEY_ID", this.attestationKey.key.keyArn);
    this.audit = new Audit(this, "Audit", {
      projectRoot,
      storage,
      environment,
      schedule: settings.auditSchedule,
      timeZone: settings.auditTimeZone,
      logRetention,
    });
    this.tenantAccess = new TenantAccess(this, "Tenants", {
      storage,
      tenants: settings.tenants,
      githubOidcProvider: settings.githubOidcProvider,
    });
    this.alarms = new Alarms(this, "Alarms", {
      ingest: this.ingest,
      audit: this.audit,
      email: settings.alarmEmail,
      verdictThreshold: settings.verdictAlarmThreshold,
      oldestMessageMinutes: settings.oldestMessageAlarmMinutes,
    });
    this.outputs();
  }

  /** What the CLI and an operator read from the deployed stack. */
  private outputs(): void {
    const { storage } = this;
    // The names `replay-pipeline push --stack NAME` and kin read (cli/remote.ts).
    new CfnOutput(this, STACK_OUTPUTS.ingestBucket, { value: storage.ingestBucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.publishedBucket, { value: storage.publishedBucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.reportsBucket, { value: storage.reportsBucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.tableName, { value: storage.table.tableName });
    // What `replay-pipeline reprocess --stack NAME` starts (cli/reprocess-sfn.ts).
    new CfnOutput(this, STATE_MACHINE_OUTPUT, { value: this.reprocess.stateMachine.stateMachineArn });
    new CfnOutput(this, "IngestQueueUrl", { value: this.ingest.queue.queueUrl });
    new CfnOutput(this, "AlarmTopicArn", { value: this.alarms.topic.topicArn });
    // `aws kms get-public-key --key-id <AttestationKeyId>`: the key verify-attestation --key takes.
    new CfnOutput(this, "AttestationKeyId", { value: this.attestationKey.key.keyId });
    new CfnOutput(this, "AttestationKeyArn", { value: this.attestationKey.key.keyArn });
    new CfnOutput(this, "DashboardName", { value: this.alarms.dashboard.dashboardName });
    if (this.publishing !== null)
      new CfnOutput(this, "PublishedDomainName", {
        value: this.publishing.distribution.distributionDomainName,
      });
    // What `replay-pipeline url --key-pair-id` takes (private publishing).
    if (this.publishing?.signingKey)
      new CfnOutput(this, "PublishedKeyPairId", { value: this.publishing.signingKey.publicKeyId });
  }
}

/** The distribution `settings.publishing` asks for: public, private with its key, or none. */
function publishingOf(scope: Construct, storage: Storage, settings: PipelineSettings): Publishing | null {
  if (settings.publishing === "public")
    return new Publishing(scope, "Publishing", { storage, mode: "public" });
  if (settings.publishing === "private" && settings.publishingPublicKey !== null)
    return new Publishing(scope, "Publishing", {
      storage,
      mode: "private",
      publicKeyPem: settings.publishingPublicKey,
    });
  return null;
}

/** CloudWatch Logs accepts only its own retention values: the nearest one not shorter than `days`. */
export function retentionOf(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays)
    .filter(
      (value): value is RetentionDays =>
        typeof value === "number" && value > 0 && value !== RetentionDays.INFINITE,
    )
    .sort((a, b) => a - b);
  return allowed.find((value) => value >= days) ?? RetentionDays.TEN_YEARS;
}
