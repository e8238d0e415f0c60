import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { describe, expect, it } from "vitest";
import { OBJECT_WRITE_ACTIONS } from "../../infra/constructs/ingest.js";
import {
  isS3Write,
  refersTo,
  type Statement,
  statementsOf,
  writableBuckets,
} from "../support/iam-statements.js";
import { type CfnTemplate, logicalId, synthPipeline } from "../support/pipeline-stack.js";

/** Resources a statement may name `*` on, each with AWS's reason. Empty: this stack needs none. */
const STAR_RESOURCES_ALLOWED: Record<string, string> = {};

function rolesOf(json: CfnTemplate) {
  const roleOf = (fnPrefix: string) => {
    const fn = json.Resources[logicalId(json, "AWS::Lambda::Function", fnPrefix)];
    const role = fn?.Properties?.Role as { "Fn::GetAtt": [string, string] } | undefined;
    if (role === undefined) throw new Error(`${fnPrefix} has no role`);
    return role["Fn::GetAtt"][0];
  };
  return {
    ingest: roleOf("IngestFunction"),
    audit: roleOf("AuditFunction"),
    reprocess: roleOf("ReprocessFunction"),
  };
}

function bucketsOf(json: CfnTemplate) {
  return {
    ingest: logicalId(json, "AWS::S3::Bucket", "StorageIngest"),
    published: logicalId(json, "AWS::S3::Bucket", "StoragePublished"),
    reports: logicalId(json, "AWS::S3::Bucket", "StorageReports"),
    logs: logicalId(json, "AWS::S3::Bucket", "StorageAccessLogs"),
  };
}

/** Every finding of the least-privilege rules in `json`: empty when the stack keeps them. */
function leastPrivilegeFindings(json: CfnTemplate): string[] {
  const findings: string[] = [];
  for (const s of statementsOf(json)) {
    if (s.effect !== "Allow") continue;
    for (const action of s.actions)
      if (action.includes("*")) findings.push(`${s.policy}: wildcard action ${action}`);
    if (s.kind === "identity")
      for (const resource of s.resources)
        if (resource === "*" && !s.actions.every((a) => a in STAR_RESOURCES_ALLOWED))
          findings.push(`${s.policy}: resource * for ${s.actions.join(", ")}`);
  }
  return findings;
}

/** Every way the ingest function could write where the pipeline listens. */
function recursionFindings(json: CfnTemplate): string[] {
  const statements = statementsOf(json);
  const roles = rolesOf(json);
  const buckets = bucketsOf(json);
  const findings: string[] = [];
  for (const role of [roles.ingest, roles.audit])
    if (writableBuckets(statements, role, [buckets.ingest]).length > 0)
      findings.push(`${role} may write the ingest bucket`);
  const guard = statements.find(
    (s: Statement) =>
      s.kind === "resource" &&
      s.effect === "Deny" &&
      refersTo(s.principal, roles.ingest) &&
      s.resources.some((r) => refersTo(r, buckets.ingest)),
  );
  if (guard === undefined) findings.push("the ingest bucket's policy does not deny the ingest role");
  else
    for (const action of OBJECT_WRITE_ACTIONS)
      if (!guard.actions.includes(action))
        findings.push(`the ingest bucket's policy does not deny ${action}`);
  return findings;
}

describe("least privilege", () => {
  const { json } = synthPipeline();
  const statements = statementsOf(json);
  const roles = rolesOf(json);
  const buckets = bucketsOf(json);
  const allowed = (role: string) =>
    statements.filter((s) => s.kind === "identity" && s.effect === "Allow" && s.roles.includes(role));

  it("no statement allows a wildcard action, and none names '*' as its resource", () => {
    expect(statements.length).toBeGreaterThan(10);
    expect(leastPrivilegeFindings(json)).toEqual([]);
  });

  it("attaches one managed policy: the basic execution role of CDK's deploy-time notification handler", () => {
    const managed = Object.entries(json.Resources)
      .filter(([, r]) => r.Type === "AWS::IAM::Role" && r.Properties?.ManagedPolicyArns !== undefined)
      .map(([id, r]) => [id.replace(/[0-9A-F]{8}$/, ""), JSON.stringify(r.Properties?.ManagedPolicyArns)]);
    expect(managed).toEqual([
      [
        expect.stringMatching(/^BucketNotificationsHandler/),
        expect.stringContaining(":iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"),
      ],
    ]);
  });

  it("the ingest role reads the ingest bucket and writes only the published and reports buckets", () => {
    expect(writableBuckets(statements, roles.ingest, Object.values(buckets))).toEqual(
      [buckets.published, buckets.reports].sort(),
    );
    const reads = allowed(roles.ingest).filter((s) => s.actions.includes("s3:GetObject"));
    expect(reads).toHaveLength(2);
    expect(reads[0]?.resources.every((r) => refersTo(r, buckets.ingest))).toBe(true);
    expect(reads[0]?.actions.sort()).toEqual(["s3:GetObject", "s3:GetObjectVersion"]);
    // The catalogue's entries and manifest, and nothing else of the published bucket.
    expect(reads[1]?.actions).toEqual(["s3:GetObject"]);
    expect(JSON.stringify(reads[1]?.resources)).toContain("/*/_catalogue/*");
    expect(reads[1]?.resources.every((r) => refersTo(r, buckets.published))).toBe(true);
  });

  it("the ingest role touches the table with the adapter's item operations only", () => {
    const table = logicalId(json, "AWS::DynamoDB::GlobalTable", "StorageIndex");
    const dynamo = allowed(roles.ingest).filter((s) => s.actions.some((a) => a.startsWith("dynamodb:")));
    expect(dynamo.flatMap((s) => s.actions).sort()).toEqual(
      [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
      ].sort(),
    );
    for (const s of dynamo) expect(s.resources.every((r) => refersTo(r, table))).toBe(true);
  });

  it("the audit role reads the table and writes the reports bucket only", () => {
    expect(writableBuckets(statements, roles.audit, Object.values(buckets))).toEqual([buckets.reports]);
    const actions = allowed(roles.audit).flatMap((s) => s.actions);
    expect(actions.filter((a) => a.startsWith("dynamodb:")).sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
      "dynamodb:Query",
    ]);
  });

  it("each role writes only its own prefix of the reports bucket: ingest results/, audit audits/", () => {
    for (const [role, own, other] of [
      [roles.ingest, "/results/*", "/audits/"],
      [roles.audit, "/audits/*", "/results/"],
    ] as const) {
      const writes = allowed(role).filter(
        (st) => st.actions.includes("s3:PutObject") && st.resources.some((r) => refersTo(r, buckets.reports)),
      );
      expect(writes, role).toHaveLength(1);
      const resources = JSON.stringify(writes[0]?.resources);
      expect(resources).toContain(own);
      expect(resources).not.toContain(other);
      expect(resources).not.toMatch(/"\/\*"/);
    }
  });

  it("each function role may read the cursor key's secret, that one secret, GetSecretValue only", () => {
    const secret = logicalId(json, "AWS::SecretsManager::Secret", "StorageCursorKey");
    const holders = new Set<string>();
    for (const s of statements) {
      const secrets = s.actions.filter((a) => a.startsWith("secretsmanager:"));
      if (secrets.length === 0) continue;
      expect(s.effect).toBe("Allow");
      expect(s.actions).toEqual(["secretsmanager:GetSecretValue"]);
      expect(s.resources).toEqual([{ Ref: secret }]);
      for (const role of s.roles) holders.add(role);
    }
    expect([...holders].sort()).toEqual([roles.ingest, roles.audit, roles.reprocess].sort());
  });

  it("the schedule role may invoke the audit function and nothing else", () => {
    const scheduleRole = logicalId(json, "AWS::IAM::Role", "AuditScheduleRole");
    const auditFn = logicalId(json, "AWS::Lambda::Function", "AuditFunction");
    const own = allowed(scheduleRole);
    expect(own.flatMap((s) => s.actions)).toEqual(["lambda:InvokeFunction"]);
    expect(own.flatMap((s) => s.resources).every((r) => refersTo(r, auditFn))).toBe(true);
  });

  it("catches a wildcard action or a '*' resource when one is added", () => {
    const { json: widened } = synthPipeline({}, (stack) => {
      stack.storage.reportsBucket.grantRead(stack.audit.function);
      stack.ingest.function.addToRolePolicy(
        new PolicyStatement({
          actions: ["sqs:ListQueues"],
          resources: ["*"],
        }),
      );
    });
    const findings = leastPrivilegeFindings(widened);
    expect(findings.some((f) => f.includes("wildcard action s3:GetObject*"))).toBe(true);
    expect(findings.some((f) => f.includes("resource * for sqs:ListQueues"))).toBe(true);
  });
});

describe("the recursion guard", () => {
  it("no function may write the ingest bucket, and its policy denies the ingest role every write", () => {
    const { json } = synthPipeline();
    expect(recursionFindings(json)).toEqual([]);
  });

  it("treats every kind of object write as a write", () => {
    for (const action of OBJECT_WRITE_ACTIONS) expect(isS3Write(action), action).toBe(true);
    for (const action of ["s3:GetObject", "s3:GetObjectVersion", "s3:ListBucket"])
      expect(isS3Write(action)).toBe(false);
  });

  it("catches a write on the ingest bucket when one is granted", () => {
    const { json } = synthPipeline({}, (stack) => {
      stack.storage.ingestBucket.grantPut(stack.ingest.function);
    });
    expect(recursionFindings(json)).toEqual([`${rolesOf(json).ingest} may write the ingest bucket`]);
  });
});
