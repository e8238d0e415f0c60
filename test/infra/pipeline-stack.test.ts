import { readFileSync } from "node:fs";
import { Token } from "aws-cdk-lib";
import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { INGEST_SUFFIXES, isReceiptName } from "#shared/pipeline/keys.js";
import { STACK_OUTPUTS } from "../../cli/remote.js";
import { PUBLISHED_MAX_AGE_SECONDS } from "../../functions/adapters/s3-publisher.js";
import { CONFIG_VARIABLES, readConfig } from "../../functions/lib/config.js";
import {
  AUDIT_METRIC,
  AUDIT_SERVICE,
  INGEST_METRIC,
  INGEST_SERVICE,
  METRICS_NAMESPACE,
  VERDICT_DIMENSION,
} from "../../functions/lib/metrics.js";
import { tableDefinition } from "../../functions/lib/table.js";
import {
  INGEST_EPHEMERAL_MIB,
  INGEST_MEMORY_MB,
  INGEST_TIMEOUT_SECONDS,
  VIEWER_PAGES_EPHEMERAL_MIB,
  VISIBILITY_FACTOR,
} from "../../infra/sizing.js";
import { statementsOf } from "../support/iam-statements.js";
import { type CfnResource, logicalId, synthPipeline } from "../support/pipeline-stack.js";

const pipeline = synthPipeline();
const { template, json, stack } = pipeline;
const resources = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const props = (id: string) => (json.Resources[id] as CfnResource).Properties ?? {};

const ids = {
  ingest: logicalId(json, "AWS::S3::Bucket", "StorageIngest"),
  published: logicalId(json, "AWS::S3::Bucket", "StoragePublished"),
  reports: logicalId(json, "AWS::S3::Bucket", "StorageReports"),
  logs: logicalId(json, "AWS::S3::Bucket", "StorageAccessLogs"),
  queue: logicalId(json, "AWS::SQS::Queue", "IngestQueue"),
  dlq: logicalId(json, "AWS::SQS::Queue", "IngestDeadLetters"),
  ingestFn: logicalId(json, "AWS::Lambda::Function", "IngestFunction"),
  auditFn: logicalId(json, "AWS::Lambda::Function", "AuditFunction"),
  table: logicalId(json, "AWS::DynamoDB::GlobalTable", "StorageIndex"),
  topic: logicalId(json, "AWS::SNS::Topic", "AlarmsTopic"),
};

describe("the stack", () => {
  it("names no account or region and looks nothing up", () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
    expect(JSON.stringify(json)).not.toMatch(/\b\d{12}\b/);
  });

  it("emits the outputs the CLI's --stack reads", () => {
    for (const [name, bucketOrTable] of [
      [STACK_OUTPUTS.ingestBucket, ids.ingest],
      [STACK_OUTPUTS.publishedBucket, ids.published],
      [STACK_OUTPUTS.reportsBucket, ids.reports],
      [STACK_OUTPUTS.tableName, ids.table],
    ] as const)
      template.hasOutput(name, { Value: { Ref: bucketOrTable } });
  });

  it("matches its snapshot (asset hashes normalized)", () => {
    const text = JSON.stringify(json, null, 2).replace(/[0-9a-f]{64}/g, "<asset-hash>");
    expect(text).toMatchSnapshot();
  });
});

describe("buckets", () => {
  const buckets = [ids.ingest, ids.published, ids.reports, ids.logs];

  it("are four, each private, encrypted, TLS-only and owner-enforced or log-writable", () => {
    expect(
      resources("AWS::S3::Bucket")
        .map(([id]) => id)
        .sort(),
    ).toEqual([...buckets].sort());
    for (const id of buckets) {
      expect(props(id)).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
        },
      });
      template.hasResourceProperties("AWS::S3::BucketPolicy", {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: "Deny",
              Action: "s3:*",
              Condition: { Bool: { "aws:SecureTransport": "false" } },
            }),
          ]),
        },
      });
    }
  });

  it("version ingest, published and reports, expire old versions and abort incomplete uploads", () => {
    for (const id of [ids.ingest, ids.published, ids.reports]) {
      const p = props(id);
      expect(p.VersioningConfiguration).toEqual({ Status: "Enabled" });
      const rules = (p.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
      expect(rules).toContainEqual(
        expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 90 }, Status: "Enabled" }),
      );
      expect(rules).toContainEqual(
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      );
      // The pipeline never deletes an upload (nor a current Layer C copy) by age.
      expect(rules.some((r) => "ExpirationInDays" in r)).toBe(false);
    }
  });

  it("log their access to the log bucket", () => {
    for (const id of [ids.ingest, ids.published, ids.reports])
      expect(props(id).LoggingConfiguration).toMatchObject({ DestinationBucketName: { Ref: ids.logs } });
    expect(props(ids.logs).LifecycleConfiguration).toMatchObject({
      Rules: expect.arrayContaining([expect.objectContaining({ ExpirationInDays: 365 })]),
    });
  });
});

describe("ingest", () => {
  it("notifies the queue from the ingest bucket only, filtered by the pipeline's name endings", () => {
    const notifications = resources("Custom::S3BucketNotifications");
    expect(notifications).toHaveLength(1);
    const p = notifications[0]?.[1].Properties as {
      BucketName: unknown;
      NotificationConfiguration: Record<string, unknown>;
    };
    expect(p.BucketName).toEqual({ Ref: ids.ingest });
    expect(Object.keys(p.NotificationConfiguration)).toEqual(["QueueConfigurations"]);
    const configs = p.NotificationConfiguration.QueueConfigurations as {
      Events: string[];
      Filter: { Key: { FilterRules: { Name: string; Value: string }[] } };
      QueueArn: unknown;
    }[];
    expect(configs.map((c) => c.Filter.Key.FilterRules)).toEqual(
      INGEST_SUFFIXES.map((suffix) => [{ Name: "suffix", Value: suffix }]),
    );
    for (const c of configs) {
      expect(c.Events).toEqual(["s3:ObjectCreated:*"]);
      expect(c.QueueArn).toEqual({ "Fn::GetAtt": [ids.queue, "Arn"] });
    }
    // The recursion guard's other half: no bucket the pipeline writes notifies anything.
    for (const [, bucket] of resources("AWS::S3::Bucket"))
      expect(bucket.Properties).not.toHaveProperty("NotificationConfiguration");
  });

  it("takes every name the pipeline reads, receipts included, gzip'd too", () => {
    const names = [
      "REPLAY.jsonl",
      "fix-auth.REPLAY.jsonl.gz",
      "RECEIPT.json",
      "x.RECEIPT.json.gz",
      "autopilot.bundle.json",
      "summarize.rpk",
      "export.bundle",
      "trace.jsonl",
    ];
    for (const name of names)
      expect(
        INGEST_SUFFIXES.some((suffix) => name.endsWith(suffix)),
        name,
      ).toBe(true);
    expect(isReceiptName("RECEIPT.json") && INGEST_SUFFIXES.some((s) => "RECEIPT.json".endsWith(s))).toBe(
      true,
    );
    // S3 refuses two rules of one event type whose suffixes overlap.
    for (const a of INGEST_SUFFIXES)
      for (const b of INGEST_SUFFIXES) if (a !== b) expect(a.endsWith(b), `${a} / ${b}`).toBe(false);
  });

  it("filters by prefix too when one is configured", () => {
    const { json: scoped } = synthPipeline({ ingestPrefix: "acme/" });
    const handler = Object.values(scoped.Resources).find((r) => r.Type === "Custom::S3BucketNotifications");
    const configuration = handler?.Properties?.NotificationConfiguration as {
      QueueConfigurations: unknown[];
    };
    const configs = configuration.QueueConfigurations;
    expect(configs).toHaveLength(INGEST_SUFFIXES.length);
    for (const c of configs)
      expect(c).toMatchObject({
        Filter: { Key: { FilterRules: expect.arrayContaining([{ Name: "prefix", Value: "acme/" }]) } },
      });
  });

  it("queues encrypted, with a dead-letter queue and a visibility of six function timeouts", () => {
    for (const id of [ids.queue, ids.dlq]) expect(props(id).SqsManagedSseEnabled).toBe(true);
    const queue = props(ids.queue);
    const timeout = props(ids.ingestFn).Timeout as number;
    expect(timeout).toBe(INGEST_TIMEOUT_SECONDS);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(VISIBILITY_FACTOR * timeout);
    expect(VISIBILITY_FACTOR).toBeGreaterThanOrEqual(6);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { "Fn::GetAtt": [ids.dlq, "Arn"] },
      maxReceiveCount: 5,
    });
    // S3 may send to the ingest queue only for this account's buckets.
    template.hasResourceProperties("AWS::SQS::QueuePolicy", {
      Queues: [{ Ref: ids.queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Principal: { Service: "s3.amazonaws.com" },
            Action: "sqs:SendMessage",
            Condition: { StringNotEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } },
          }),
        ]),
      },
    });
    for (const id of [ids.queue, ids.dlq])
      template.hasResourceProperties("AWS::SQS::QueuePolicy", {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
          ]),
        },
      });
  });

  it("gives CDK's bucket notification handler a log group with the stack's retention", () => {
    const handler = logicalId(json, "AWS::Lambda::Function", "BucketNotificationsHandler");
    template.hasResourceProperties("AWS::Logs::LogGroup", {
      LogGroupName: { "Fn::Join": ["", ["/aws/lambda/", { Ref: handler }]] },
      RetentionInDays: 90,
    });
  });

  it("runs on Node.js 22 ARM64, sized from the benchmark, with Powertools set by the environment", () => {
    expect(props(ids.ingestFn)).toMatchObject({
      Runtime: "nodejs22.x",
      Architectures: ["arm64"],
      Handler: "index.handler",
      MemorySize: INGEST_MEMORY_MB,
      Timeout: INGEST_TIMEOUT_SECONDS,
      EphemeralStorage: { Size: INGEST_EPHEMERAL_MIB },
      Environment: {
        Variables: expect.objectContaining({
          POWERTOOLS_SERVICE_NAME: INGEST_SERVICE,
          POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
          POWERTOOLS_LOG_LEVEL: "INFO",
        }),
      },
    });
    // One full vCPU (1,769 MB) and /tmp room for a 2 GB file's Layer C spool.
    expect(INGEST_MEMORY_MB).toBeGreaterThanOrEqual(1769);
    expect(INGEST_EPHEMERAL_MIB * 1024 ** 2).toBeGreaterThan(2e9);
    expect(props(ids.ingestFn)).not.toHaveProperty("ReservedConcurrentExecutions");
  });

  it("with viewer pages, tells the per-file functions so and gives them /tmp for the copy twice", () => {
    const { json: paged } = synthPipeline({ viewerPages: "true" });
    for (const name of ["IngestFunction", "ReprocessFunction"]) {
      const fn =
        (paged.Resources[logicalId(paged, "AWS::Lambda::Function", name)] as CfnResource).Properties ?? {};
      expect(fn.EphemeralStorage, name).toEqual({ Size: VIEWER_PAGES_EPHEMERAL_MIB });
      expect((fn.Environment as { Variables: Record<string, unknown> }).Variables.VIEWER_PAGES, name).toBe(
        "true",
      );
    }
    expect(VIEWER_PAGES_EPHEMERAL_MIB).toBeGreaterThanOrEqual(2 * INGEST_EPHEMERAL_MIB);
    expect(VIEWER_PAGES_EPHEMERAL_MIB).toBeLessThanOrEqual(10240);
    expect(
      (props(ids.ingestFn).Environment as { Variables: Record<string, unknown> }).Variables.VIEWER_PAGES,
    ).toBe("false");
  });

  it("takes the queue with batch item failures and a maximum concurrency", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: { "Fn::GetAtt": [ids.queue, "Arn"] },
      FunctionName: { Ref: ids.ingestFn },
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });
});

describe("the functions' configuration", () => {
  // AWS's own and the local servers', the literal cursor key (local only), and the distribution's
  // (only with one: external publishing).
  const local = new Set([
    "AWS_REGION",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "CURSOR_KEY",
    "PUBLISHED_DISTRIBUTION_ID",
  ]);
  const others = new Set([
    "NODE_OPTIONS",
    "POWERTOOLS_SERVICE_NAME",
    "POWERTOOLS_METRICS_NAMESPACE",
    "POWERTOOLS_LOG_LEVEL",
  ]);
  // Only the ingest function signs attestations.
  const signing: Record<string, boolean> = { ingestFn: true, auditFn: false };
  const variablesOf = (fn: "ingestFn" | "auditFn") =>
    (props(ids[fn]).Environment as { Variables: Record<string, unknown> }).Variables;

  for (const fn of ["ingestFn", "auditFn"] as const)
    it(`sets every variable config.ts reads, and only those, for the ${fn}`, () => {
      const variables = variablesOf(fn);
      const expected = CONFIG_VARIABLES.filter(
        (name) => !local.has(name) && (signing[fn] || name !== "ATTESTATION_KEY_ID"),
      );
      expect(
        Object.keys(variables)
          .filter((name) => !others.has(name))
          .sort(),
      ).toEqual([...expected].sort());
      // The cursor key's secret is named by its ARN (a Ref), never resolved into the template.
      expect(variables.CURSOR_KEY_SECRET).toEqual({ Ref: expect.stringMatching(/^StorageCursorKey/) });
      // What CloudFormation resolves the references to, read as the function reads it at cold start.
      const resolved = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === "string" ? value : `resolved-${name}`,
        ]),
      );
      const config = readConfig({ ...resolved, AWS_REGION: "eu-west-1" });
      expect(config).toMatchObject({
        indexShards: 8,
        receiptAgeHours: 24,
        tableName: "resolved-TABLE_NAME",
        cursorKey: null,
        cursorKeySecret: "resolved-CURSOR_KEY_SECRET",
        attestationKeyId: signing[fn] ? "resolved-ATTESTATION_KEY_ID" : null,
      });
    });

  it("holds the cursor key in no environment variable: no value, no dynamic reference", () => {
    for (const fn of ["ingestFn", "auditFn"] as const) {
      const text = JSON.stringify(variablesOf(fn));
      expect(text).not.toContain("resolve:secretsmanager");
      expect(variablesOf(fn)).not.toHaveProperty("CURSOR_KEY");
    }
    expect(JSON.stringify(json)).not.toContain("{{resolve:secretsmanager");
  });

  it("generates a cursor key of 43 base64 digits, which config.ts reads as 32 bytes", () => {
    template.hasResourceProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: { PasswordLength: 43, ExcludePunctuation: true, IncludeSpace: false },
    });
  });
});

describe("the attestation key", () => {
  const [keyId, key] = resources("AWS::KMS::Key")[0] ?? [];
  const ingestRole = (props(ids.ingestFn).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  type KeyStatement = { Sid?: string; Effect: string; Principal: unknown; Action: string | string[] };
  const statements = () =>
    (key?.Properties?.KeyPolicy as { Statement?: KeyStatement[] } | undefined)?.Statement ?? [];

  it("is one asymmetric ECC_NIST_P256 key for signing, kept when the stack goes", () => {
    expect(resources("AWS::KMS::Key")).toHaveLength(1);
    expect(key?.Properties).toMatchObject({ KeySpec: "ECC_NIST_P256", KeyUsage: "SIGN_VERIFY" });
    expect(key).toMatchObject({ DeletionPolicy: "Retain" });
  });

  it("lets the ingest and reprocess roles kms:Sign (ECDSA_SHA_256 over a digest) and nothing else", () => {
    const reprocessRole = (
      props(logicalId(json, "AWS::Lambda::Function", "ReprocessFunction")).Role as {
        "Fn::GetAtt": string[];
      }
    )["Fn::GetAtt"][0];
    const signs = expect.objectContaining({
      Effect: "Allow",
      Action: "kms:Sign",
      Condition: { StringEquals: { "kms:SigningAlgorithm": "ECDSA_SHA_256", "kms:MessageType": "DIGEST" } },
    });
    const forRole = statements().filter((s) => JSON.stringify(s.Principal).includes(`"${ingestRole}"`));
    expect(forRole).toEqual([signs]);
    const forReprocess = statements().filter((s) =>
      JSON.stringify(s.Principal).includes(`"${reprocessRole}"`),
    );
    expect(forReprocess).toEqual([signs]);
    // No other statement names a role of the stack: the rest is the account's own (IAM) statement.
    const others = statements().filter((s) => s !== forRole[0] && s !== forReprocess[0]);
    for (const s of others) expect(JSON.stringify(s.Principal)).not.toMatch(/"Fn::GetAtt"/);
  });

  it("gives no function role any KMS action in its own policies", () => {
    const kmsActions = Object.values(json.Resources)
      .filter((r) => r.Type === "AWS::IAM::Policy")
      .flatMap((r) => JSON.stringify(r.Properties?.PolicyDocument).match(/"kms:[A-Za-z*]+"/g) ?? []);
    expect(kmsActions).toEqual([]);
  });

  it("is the ingest function's ATTESTATION_KEY_ID, and an output (for aws kms get-public-key)", () => {
    const variables = (props(ids.ingestFn).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.ATTESTATION_KEY_ID).toEqual({ "Fn::GetAtt": [keyId, "Arn"] });
    template.hasOutput("AttestationKeyId", { Value: { Ref: keyId } });
    template.hasOutput("AttestationKeyArn", { Value: { "Fn::GetAtt": [keyId, "Arn"] } });
  });
});

describe("index table", () => {
  it("is the table of functions/lib/table.ts: keys, attributes, on-demand, day index", () => {
    const definition = tableDefinition("unused");
    const p = props(ids.table);
    expect(p.BillingMode).toBe(definition.BillingMode);
    expect(p.KeySchema).toEqual(definition.KeySchema);
    expect(p.AttributeDefinitions).toEqual(expect.arrayContaining(definition.AttributeDefinitions ?? []));
    expect((p.AttributeDefinitions as unknown[]).length).toBe(definition.AttributeDefinitions?.length);
    expect(p.GlobalSecondaryIndexes).toEqual(definition.GlobalSecondaryIndexes);
  });

  it("has point-in-time recovery, deletion protection and encryption", () => {
    expect(props(ids.table)).toMatchObject({
      Replicas: [
        {
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        },
      ],
      SSESpecification: { SSEEnabled: true },
    });
    template.hasResource("AWS::DynamoDB::GlobalTable", { DeletionPolicy: "Retain" });
  });
});

describe("audit", () => {
  it("runs daily on EventBridge Scheduler with a role of its own", () => {
    const schedule = resources("AWS::Scheduler::Schedule");
    expect(schedule).toHaveLength(1);
    const p = schedule[0]?.[1].Properties as Record<string, unknown> & {
      Target: { RoleArn: unknown; Arn: unknown; Input: string };
    };
    expect(p.ScheduleExpression).toBe("cron(15 2 * * ? *)");
    expect(p.ScheduleExpressionTimezone).toBe("UTC");
    expect(p.Target.Arn).toEqual({ "Fn::GetAtt": [ids.auditFn, "Arn"] });
    expect(JSON.parse(p.Target.Input)).toEqual({});
    const scheduleRole = logicalId(json, "AWS::IAM::Role", "AuditScheduleRole");
    expect(p.Target.RoleArn).toEqual({ "Fn::GetAtt": [scheduleRole, "Arn"] });
    expect(props(scheduleRole).AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Principal: { Service: "scheduler.amazonaws.com" } }],
    });
    const ingestRole = (props(ids.ingestFn).Role as { "Fn::GetAtt": string[] })["Fn::GetAtt"][0];
    const auditRole = (props(ids.auditFn).Role as { "Fn::GetAtt": string[] })["Fn::GetAtt"][0];
    expect(new Set([ingestRole, auditRole, scheduleRole]).size).toBe(3);
  });

  it("follows the configured schedule and time zone", () => {
    const { template: t } = synthPipeline({
      auditSchedule: "cron(0 6 * * ? *)",
      auditTimeZone: "Europe/Berlin",
    });
    t.hasResourceProperties("AWS::Scheduler::Schedule", {
      ScheduleExpression: "cron(0 6 * * ? *)",
      ScheduleExpressionTimezone: "Europe/Berlin",
    });
  });
});

describe("alarms", () => {
  const alarms = resources("AWS::CloudWatch::Alarm").map(([, r]) => r.Properties as Record<string, unknown>);
  const find = (metricName: string, dimensions?: Record<string, unknown>[]) =>
    alarms.filter(
      (a) =>
        a.MetricName === metricName &&
        (dimensions === undefined || JSON.stringify(a.Dimensions) === JSON.stringify(dimensions)),
    );

  it("all notify the topic, on alarm and back to OK", () => {
    expect(alarms.length).toBeGreaterThanOrEqual(9);
    for (const a of alarms) {
      expect(a.AlarmActions).toEqual([{ Ref: ids.topic }]);
      expect(a.OKActions).toEqual([{ Ref: ids.topic }]);
    }
  });

  it("watch the dead-letter queue, the oldest message, errors and throttles", () => {
    expect(
      find("ApproximateNumberOfMessagesVisible", [
        { Name: "QueueName", Value: { "Fn::GetAtt": [ids.dlq, "QueueName"] } },
      ]),
    ).toMatchObject([{ Threshold: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold" }]);
    expect(
      find("ApproximateAgeOfOldestMessage", [
        { Name: "QueueName", Value: { "Fn::GetAtt": [ids.queue, "QueueName"] } },
      ]),
    ).toMatchObject([{ Threshold: 3600 }]);
    for (const fn of [ids.ingestFn, ids.auditFn])
      for (const metric of ["Errors", "Throttles"])
        expect(find(metric, [{ Name: "FunctionName", Value: { Ref: fn } }]), `${fn} ${metric}`).toHaveLength(
          1,
        );
  });

  it("watch failed and invalid verdicts under the names and dimensions the handler emits", () => {
    for (const verdict of ["failed", "invalid"])
      expect(
        find(INGEST_METRIC.files, [
          { Name: "service", Value: INGEST_SERVICE },
          { Name: VERDICT_DIMENSION, Value: verdict },
        ]),
      ).toMatchObject([{ Namespace: METRICS_NAMESPACE, Statistic: "Sum", Period: 3600, Threshold: 11 }]);
    expect(find(INGEST_METRIC.faults, [{ Name: "service", Value: INGEST_SERVICE }])).toHaveLength(1);
  });

  it("watch that the scheduled audit ran each day (no invocation, or no data, is an alarm)", () => {
    expect(find("Invocations", [{ Name: "FunctionName", Value: { Ref: ids.auditFn } }])).toMatchObject([
      { Period: 86400, Threshold: 1, ComparisonOperator: "LessThanThreshold", TreatMissingData: "breaching" },
    ]);
  });

  it("watch receipts still missing after the configured age (the audit's metric)", () => {
    expect(find(AUDIT_METRIC.missingReceipts, [{ Name: "service", Value: AUDIT_SERVICE }])).toMatchObject([
      { Namespace: METRICS_NAMESPACE, Period: 86400, Threshold: 1 },
    ]);
  });

  it("have a dashboard of the same figures", () => {
    const [, dashboard] = resources("AWS::CloudWatch::Dashboard")[0] ?? [];
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody);
    for (const name of [
      INGEST_METRIC.files,
      INGEST_METRIC.receiptsPending,
      AUDIT_METRIC.missingReceipts,
      "ApproximateAgeOfOldestMessage",
    ])
      expect(body).toContain(name);
  });

  it("mail the configured address, and nobody by default", () => {
    template.resourceCountIs("AWS::SNS::Subscription", 0);
    const { template: t } = synthPipeline({ alarmEmail: "ops@example.com", verdictAlarmThreshold: "0" });
    t.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    t.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: INGEST_METRIC.files, Threshold: 1 });
  });
});

describe("external publishing", () => {
  const PEM = readFileSync(new URL("../fixtures/cloudfront/public-key.pem", import.meta.url), "utf8");
  const propsIn = (j: typeof json, id: string) => (j.Resources[id] as CfnResource).Properties ?? {};
  const ingestEnvironment = (j: typeof json) =>
    (
      propsIn(j, logicalId(j, "AWS::Lambda::Function", "IngestFunction")).Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;

  it("is private by default: with no public key, no distribution and nothing to invalidate", () => {
    for (const j of [json, synthPipeline({ publishing: "none" }).json]) {
      expect(Object.values(j.Resources).filter((r) => r.Type.startsWith("AWS::CloudFront::"))).toEqual([]);
      expect(ingestEnvironment(j)).not.toHaveProperty("PUBLISHED_DISTRIBUTION_ID");
      expect(JSON.stringify(j)).not.toContain("cloudfront:");
    }
  });

  for (const [mode, context] of [
    ["public", { publishing: "public" }],
    ["private", { publishingPublicKey: PEM }],
  ] as const)
    describe(mode, () => {
      const { template: t, json: j } = synthPipeline(context);
      const distribution = logicalId(j, "AWS::CloudFront::Distribution", "PublishingDistribution");
      const behavior = () =>
        (propsIn(j, distribution).DistributionConfig as Record<string, unknown>)
          .DefaultCacheBehavior as Record<string, unknown>;

      it("puts CloudFront with origin access control before the published bucket only", () => {
        const oac = logicalId(j, "AWS::CloudFront::OriginAccessControl", "PublishingDistribution");
        const published = logicalId(j, "AWS::S3::Bucket", "StoragePublished");
        t.hasResourceProperties("AWS::CloudFront::Distribution", {
          DistributionConfig: Match.objectLike({
            Origins: [
              Match.objectLike({
                DomainName: { "Fn::GetAtt": [published, "RegionalDomainName"] },
                OriginAccessControlId: { "Fn::GetAtt": [oac, "Id"] },
              }),
            ],
            DefaultCacheBehavior: Match.objectLike({
              ViewerProtocolPolicy: "redirect-to-https",
              AllowedMethods: ["GET", "HEAD"],
            }),
            // One behavior: no path escapes the default one's rules.
            CacheBehaviors: Match.absent(),
          }),
        });
        t.resourceCountIs("AWS::CloudFront::CloudFrontOriginAccessIdentity", 0);
        // Only the published bucket's policy lets CloudFront in, and only this distribution.
        const cloudFrontGrants = Object.values(j.Resources)
          .filter((r) => r.Type === "AWS::S3::BucketPolicy")
          .filter((r) => JSON.stringify(r.Properties).includes("cloudfront.amazonaws.com"));
        expect(cloudFrontGrants).toHaveLength(1);
        expect(cloudFrontGrants[0]?.Properties?.Bucket).toEqual({ Ref: published });
        expect(JSON.stringify(cloudFrontGrants[0]?.Properties)).toContain(distribution);
        t.hasResourceProperties("AWS::S3::Bucket", {
          BucketName: Match.absent(),
          PublicAccessBlockConfiguration: {
            BlockPublicAcls: true,
            BlockPublicPolicy: true,
            IgnorePublicAcls: true,
            RestrictPublicBuckets: true,
          },
        });
        t.hasOutput("PublishedDomainName", Match.anyValue());
      });

      it(`keeps a copy at most ${PUBLISHED_MAX_AGE_SECONDS} s and tells readers so (${mode}, max-age)`, () => {
        const policy = logicalId(j, "AWS::CloudFront::CachePolicy", "PublishingCachePolicy");
        expect(behavior().CachePolicyId).toEqual({ Ref: policy });
        t.hasResourceProperties("AWS::CloudFront::CachePolicy", {
          CachePolicyConfig: Match.objectLike({
            MinTTL: 0,
            DefaultTTL: PUBLISHED_MAX_AGE_SECONDS,
            MaxTTL: PUBLISHED_MAX_AGE_SECONDS,
            ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
              QueryStringsConfig: { QueryStringBehavior: "none" },
              CookiesConfig: { CookieBehavior: "none" },
            }),
          }),
        });
        const headers = logicalId(j, "AWS::CloudFront::ResponseHeadersPolicy", "PublishingResponseHeaders");
        expect(behavior().ResponseHeadersPolicyId).toEqual({ Ref: headers });
        t.hasResourceProperties("AWS::CloudFront::ResponseHeadersPolicy", {
          ResponseHeadersPolicyConfig: Match.objectLike({
            CustomHeadersConfig: {
              Items: [
                {
                  Header: "Cache-Control",
                  Value: `${mode}, max-age=${PUBLISHED_MAX_AGE_SECONDS}`,
                  Override: true,
                },
              ],
            },
            SecurityHeadersConfig: Match.objectLike({
              ContentTypeOptions: { Override: true },
              ReferrerPolicy: { ReferrerPolicy: "no-referrer", Override: true },
            }),
          }),
        });
      });

      it("lets the ingest function invalidate this distribution, and nothing else of CloudFront", () => {
        expect(ingestEnvironment(j).PUBLISHED_DISTRIBUTION_ID).toEqual({ Ref: distribution });
        const reprocessRole = (
          propsIn(j, logicalId(j, "AWS::Lambda::Function", "ReprocessFunction")).Role as {
            "Fn::GetAtt": string[];
          }
        )["Fn::GetAtt"][0] as string;
        // The reprocess function withdraws copies too: the same grant, its own statement.
        const all = statementsOf(j).filter((st) => st.actions.some((a) => a.startsWith("cloudfront:")));
        const grants = all.filter((st) => !st.roles.includes(reprocessRole));
        expect(all.length - grants.length).toBe(1);
        expect(grants).toHaveLength(1);
        expect(grants[0]).toMatchObject({
          kind: "identity",
          effect: "Allow",
          roles: [
            (
              propsIn(j, logicalId(j, "AWS::Lambda::Function", "IngestFunction")).Role as {
                "Fn::GetAtt": string[];
              }
            )["Fn::GetAtt"][0],
          ],
          actions: ["cloudfront:CreateInvalidation"],
        });
        expect(grants[0]?.resources).toHaveLength(1);
        const arn = JSON.stringify(grants[0]?.resources[0]);
        expect(arn).toContain(":distribution/");
        expect(arn).toContain(distribution);
        // The audit function is never told of the distribution.
        const audit = j.Resources[logicalId(j, "AWS::Lambda::Function", "AuditFunction")];
        expect(JSON.stringify(audit)).not.toContain("PUBLISHED_DISTRIBUTION_ID");
      });

      if (mode === "public")
        it("public: serves every request, signed or not (no trusted key group, no key)", () => {
          expect(behavior()).not.toHaveProperty("TrustedKeyGroups");
          t.resourceCountIs("AWS::CloudFront::PublicKey", 0);
          t.resourceCountIs("AWS::CloudFront::KeyGroup", 0);
          expect(j.Outputs).not.toHaveProperty("PublishedKeyPairId");
        });
      else
        it("private: serves only URLs signed by the key group of the given public key", () => {
          const key = logicalId(j, "AWS::CloudFront::PublicKey", "PublishingSigningKey");
          const group = logicalId(j, "AWS::CloudFront::KeyGroup", "PublishingSigningKeys");
          expect(behavior().TrustedKeyGroups).toEqual([{ Ref: group }]);
          t.hasResourceProperties("AWS::CloudFront::KeyGroup", {
            KeyGroupConfig: Match.objectLike({ Items: [{ Ref: key }] }),
          });
          t.hasResourceProperties("AWS::CloudFront::PublicKey", {
            PublicKeyConfig: Match.objectLike({ EncodedKey: PEM.trim() }),
          });
          // The public key only: no private key material anywhere in the template.
          expect(JSON.stringify(j)).not.toMatch(/PRIVATE KEY/);
          t.hasOutput("PublishedKeyPairId", { Value: { Ref: key } });
        });
    });
});

describe("reserved concurrency", () => {
  it("is set on the ingest function when configured", () => {
    const { json: j } = synthPipeline({ reservedConcurrency: "20", ingestMaxConcurrency: "20" });
    const fn = logicalId(j, "AWS::Lambda::Function", "IngestFunction");
    expect(j.Resources[fn]?.Properties?.ReservedConcurrentExecutions).toBe(20);
  });
});
