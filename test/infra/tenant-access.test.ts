/**
 * The tenants' roles, evaluated offline by an IAM policy simulator (@cloud-copilot/iam-simulate)
 * on the synthesized template, its intrinsics resolved to one deployment's ARNs. The requests are
 * not listed by hand: the CLI's own pipeline commands run against mocked AWS clients, and every
 * call they send becomes the IAM request AWS would authorize (action, ARN, `dynamodb:LeadingKeys`),
 * so a call the CLI gains is simulated too, or fails the mapping.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { CloudFormationClient, DescribeStacksCommand, type Stack } from "@aws-sdk/client-cloudformation";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { runSimulation } from "@cloud-copilot/iam-simulate";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { pullCommand, pushCommand, sessionsCommand, showCommand } from "../../cli/commands/remote.js";
import { reportCommand } from "../../cli/commands/report.js";
import { STACK_OUTPUTS } from "../../cli/remote.js";
import { TABLE_SCHEMA } from "../../functions/lib/table.js";
import {
  layerCKey,
  parseObjectKey,
  REJECTED,
  rejectedPlace,
  verdictKey,
} from "../../shared/pipeline/keys.js";
import { DEPLOYMENT, physicalName, resolveIntrinsics } from "../support/cfn-resolve.js";
import { fileRecord } from "../support/index-records.js";
import { type CfnTemplate, logicalId, PROJECT_ROOT, synthPipeline } from "../support/pipeline-stack.js";

// Two tenants, one's name a prefix of the other's: `acme/*` and `T#acme#*` must not reach `acme-evil`.
const TENANTS = ["acme", "acme-evil"] as const;
const { json } = synthPipeline({
  tenants: [{ name: "acme", githubRepositories: ["acme/app", "acme/infra"] }, "acme-evil"],
});
/** The logical id of `tenant`'s role: `Tenants<name without punctuation><hash>`. */
function roleOf(tenant: string): string {
  const pattern = new RegExp(`^Tenants${tenant.replace(/[^A-Za-z0-9]/g, "")}[0-9A-F]{8}$`);
  const ids = Object.keys(json.Resources).filter(
    (id) => pattern.test(id) && json.Resources[id]?.Type === "AWS::IAM::Role",
  );
  if (ids.length !== 1) throw new Error(`${ids.length} roles of ${tenant}`);
  return ids[0] as string;
}
const bucket = (prefix: string) => physicalName(logicalId(json, "AWS::S3::Bucket", prefix));
const NAMES = {
  ingest: bucket("StorageIngest"),
  published: bucket("StoragePublished"),
  reports: bucket("StorageReports"),
  table: physicalName(logicalId(json, "AWS::DynamoDB::GlobalTable", "StorageIndex")),
};
const { account, region } = DEPLOYMENT;
const tableArn = `arn:aws:dynamodb:${region}:${account}:table/${NAMES.table}`;

/** One request as IAM authorizes it. */
interface IamRequest {
  /** The SDK command that makes it. */
  call: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

const s3 = mockClient(S3Client);
const dynamo = mockClient(DynamoDBDocumentClient);
const cfn = mockClient(CloudFormationClient);
const scratch = mkdtempSync(join(tmpdir(), "tenant-access-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

function textBody(text: string) {
  // What the CLI reads of a GetObject body: a stream (pull) or transformToString (documents).
  return Object.assign(Readable.from([Buffer.from(text)]), { transformToString: async () => text });
}

beforeEach(() => {
  for (const mock of [s3, dynamo, cfn]) mock.reset();
  const outputs = [
    [STACK_OUTPUTS.ingestBucket, NAMES.ingest],
    [STACK_OUTPUTS.publishedBucket, NAMES.published],
    [STACK_OUTPUTS.reportsBucket, NAMES.reports],
    [STACK_OUTPUTS.tableName, NAMES.table],
  ];
  cfn.on(DescribeStacksCommand).resolves({
    Stacks: [{ Outputs: outputs.map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })) } as Stack],
  });
  s3.on(PutObjectCommand).resolves({ ETag: '"e1"' });
  s3.on(GetObjectCommand).callsFake(() => ({ Body: textBody('{"report":null}\n') }));
  // The index answers each file's record from the key asked for, as the pipeline would have written it.
  dynamo.on(GetCommand).callsFake((input: { Key: Record<string, string> }) => {
    const key = String(input.Key[TABLE_SCHEMA.sortKey]).replace(/^FILE#/, "");
    const parsed = parseObjectKey(key);
    if (!parsed.ok) throw new Error(`the CLI asked for ${key}`);
    const { tenant, session, file } = parsed.key;
    const record = fileRecord(tenant, session, file);
    return { Item: { ...record, layer_c_key: layerCKey(parsed.key), verdict_key: verdictKey(key) } };
  });
  // A session's file records: the one file `pull` and `show` name; checks and day pages: none.
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => {
    const [, tenant, session] =
      /^T#([^#]+)#S#([^#]+)$/.exec(input.ExpressionAttributeValues[":pk"] ?? "") ?? [];
    const files = input.ExpressionAttributeValues[":prefix"] === "FILE#" && tenant && session;
    return { Items: files ? [fileRecord(tenant, session, "fix-auth.REPLAY.jsonl")] : [] };
  });
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
});

/** Every AWS call the mocks received, as IAM requests; a call this does not know fails the test. */
function sentRequests(): IamRequest[] {
  const secure = { "aws:SecureTransport": "true" };
  const requests: IamRequest[] = [];
  for (const call of cfn.calls()) {
    const command = call.args[0];
    if (!(command instanceof DescribeStacksCommand)) throw new Error(`unmapped ${command.constructor.name}`);
    requests.push({
      call: "DescribeStacks",
      action: "cloudformation:DescribeStacks",
      resource: DEPLOYMENT.stackId,
      context: secure,
    });
  }
  const s3Actions: Record<string, string> = {
    PutObjectCommand: "s3:PutObject",
    CreateMultipartUploadCommand: "s3:PutObject",
    UploadPartCommand: "s3:PutObject",
    CompleteMultipartUploadCommand: "s3:PutObject",
    AbortMultipartUploadCommand: "s3:AbortMultipartUpload",
    GetObjectCommand: "s3:GetObject",
  };
  for (const call of s3.calls()) {
    const command = call.args[0];
    const name = command.constructor.name;
    const action = s3Actions[name];
    if (action === undefined) throw new Error(`unmapped ${name}`);
    const { Bucket, Key } = command.input as { Bucket: string; Key: string };
    requests.push({
      call: `${name} ${Key}`,
      action,
      resource: `arn:aws:s3:::${Bucket}/${Key}`,
      context: secure,
    });
  }
  for (const call of dynamo.calls()) {
    const command = call.args[0];
    if (command instanceof GetCommand) {
      const pk = String(command.input.Key?.[TABLE_SCHEMA.partitionKey]);
      requests.push({
        call: `GetItem ${pk}`,
        action: "dynamodb:GetItem",
        resource: `arn:aws:dynamodb:${region}:${account}:table/${command.input.TableName}`,
        context: { ...secure, "dynamodb:LeadingKeys": [pk] },
      });
    } else if (command instanceof QueryCommand) {
      const { KeyConditionExpression, ExpressionAttributeValues, IndexName, TableName } = command.input;
      const placeholder = /=\s*(:\w+)/.exec(KeyConditionExpression ?? "")?.[1] ?? "";
      const pk = String(ExpressionAttributeValues?.[placeholder]);
      const table = `arn:aws:dynamodb:${region}:${account}:table/${TableName}`;
      requests.push({
        call: `Query ${IndexName ?? "table"} ${pk}`,
        action: "dynamodb:Query",
        resource: IndexName === undefined ? table : `${table}/index/${IndexName}`,
        context: { ...secure, "dynamodb:LeadingKeys": [pk] },
      });
    } else throw new Error(`unmapped ${command.constructor.name}`);
  }
  return requests;
}

/** The requests of the CLI's pipeline commands for `tenant`, run against the mocks. */
async function cliRequests(tenant: string): Promise<Record<string, IamRequest[]>> {
  const target = ["--stack", DEPLOYMENT.stackName, "--region", region];
  const replay = join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl");
  const today = new Date().toISOString().slice(0, 10);
  const runs: [string, () => Promise<number>][] = [
    [
      "push --wait --attest --format junit",
      () =>
        pushCommand([
          replay,
          ...["--tenant", tenant, "--session", "s1", "--wait", "--format", "junit"],
          ...["--attest", join(scratch, tenant), ...target],
        ]),
    ],
    ["sessions", () => sessionsCommand(["--tenant", tenant, "--since", today, ...target])],
    ["show", () => showCommand([`${tenant}/s1`, ...target])],
    [
      "pull",
      () => pullCommand([`${tenant}/s1/fix-auth.REPLAY.jsonl`, "-o", join(scratch, "copy"), ...target]),
    ],
    [
      "report --tenant",
      () => {
        // `report` finds the pipeline as the functions do: in the environment.
        for (const [variable, value] of Object.entries({
          AWS_REGION: region,
          INGEST_BUCKET: NAMES.ingest,
          PUBLISHED_BUCKET: NAMES.published,
          REPORTS_BUCKET: NAMES.reports,
          TABLE_NAME: NAMES.table,
        }))
          vi.stubEnv(variable, value);
        const period = ["--since", today, "--until", today];
        return reportCommand([
          "--tenant",
          tenant,
          ...period,
          "--format",
          "json",
          "-o",
          join(scratch, "r.json"),
        ]);
      },
    ],
  ];
  const out: Record<string, IamRequest[]> = {};
  for (const [name, run] of runs) {
    for (const mock of [s3, dynamo, cfn]) mock.resetHistory();
    expect(await run(), name).toBe(0);
    out[name] = sentRequests();
  }
  return out;
}

const policyOf = (roleId: string) => {
  const policies = json.Resources[roleId]?.Properties?.Policies as { PolicyDocument: unknown }[];
  return policies.map((p, n) => ({ name: `inline${n}`, policy: resolveIntrinsics(json, p.PolicyDocument) }));
};

/** The bucket policy of the bucket `resource` is in (S3 evaluates it with the role's policy). */
function bucketPolicyOf(resource: string): unknown {
  const name = /^arn:aws:s3:::([^/]+)/.exec(resource)?.[1];
  if (name === undefined) return undefined;
  const policy = Object.values(json.Resources).find(
    (r) => r.Type === "AWS::S3::BucketPolicy" && resolveIntrinsics(json, r.Properties?.Bucket) === name,
  );
  return policy === undefined ? undefined : resolveIntrinsics(json, policy.Properties?.PolicyDocument);
}

/** IAM's decision on `request` made by a session of `tenant`'s role. */
async function decide(tenant: string, request: IamRequest): Promise<string> {
  const roleId = roleOf(tenant);
  const resourcePolicy = bucketPolicyOf(request.resource);
  const result = await runSimulation(
    {
      request: {
        principal: `arn:aws:sts::${account}:assumed-role/${physicalName(roleId)}/cli`,
        action: request.action,
        resource: { resource: request.resource, accountId: account },
        contextVariables: request.context,
      },
      identityPolicies: policyOf(roleId),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy === undefined ? {} : { resourcePolicy }),
    },
    {},
  );
  if (result.resultType === "error") throw new Error(`${request.call}: ${JSON.stringify(result.errors)}`);
  return result.overallResult;
}

/** The decision on each distinct request (the audit's history queries repeat day after day). */
async function decisions(tenant: string, requests: IamRequest[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const request of requests) {
    const name = `${request.action} ${request.call}`;
    out[name] ??= await decide(tenant, request);
  }
  return out;
}

describe("tenant roles, simulated on every call of the CLI's pipeline commands", () => {
  it("the commands send the calls the roles are written for (and nothing unmapped)", async () => {
    const sent = await cliRequests("acme");
    const actions = new Set(Object.values(sent).flatMap((requests) => requests.map((r) => r.action)));
    expect([...actions].sort()).toEqual([
      "cloudformation:DescribeStacks",
      "dynamodb:GetItem",
      "dynamodb:Query",
      "s3:GetObject",
      "s3:PutObject",
    ]);
    // sessions reads every day index shard of the tenant's days, never a cross-tenant partition.
    expect(sent.sessions?.filter((r) => r.action === "dynamodb:Query").length).toBe(8);
    const keys = Object.values(sent).flatMap((rs) =>
      rs.flatMap((r) => r.context["dynamodb:LeadingKeys"] ?? []),
    );
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(key).toMatch(/^T#acme#[SDC]#/);
  });

  for (const tenant of TENANTS) {
    const other = TENANTS.find((t) => t !== tenant) as string;
    it(`${tenant}: every call of its own commands is allowed`, async () => {
      const requests = Object.values(await cliRequests(tenant)).flat();
      const decided = await decisions(tenant, requests);
      expect(Object.keys(decided).length).toBeGreaterThanOrEqual(12);
      for (const [call, decision] of Object.entries(decided)) expect(decision, call).toBe("Allowed");
    });

    it(`${tenant}: every call of ${other}'s commands is denied, but reading the stack's outputs`, async () => {
      const requests = Object.values(await cliRequests(other)).flat();
      const decided = await decisions(tenant, requests);
      for (const [call, decision] of Object.entries(decided))
        expect(decision, call).toBe(call.startsWith("cloudformation:") ? "Allowed" : "ImplicitlyDenied");
    });
  }

  it("a tenant reads its own rejected keys' verdicts; no tenant reads the operator-only area", async () => {
    const digest = "ab".repeat(32);
    const own = rejectedPlace("acme/s1/a/b.jsonl", "acme/s1/a/b.jsonl", digest);
    const none = rejectedPlace("no-tenant.jsonl", "no-tenant.jsonl", digest);
    expect(own.key.tenant).toBe("acme");
    expect(none.key.tenant).toBe(REJECTED);
    const read = (place: typeof own): IamRequest[] => [
      {
        call: "GetObject verdict",
        action: "s3:GetObject",
        resource: `arn:aws:s3:::${NAMES.reports}/${place.verdictKey}`,
        context: { "aws:SecureTransport": "true" },
      },
      {
        call: "Query records",
        action: "dynamodb:Query",
        resource: tableArn,
        context: { "dynamodb:LeadingKeys": [`T#${place.key.tenant}#S#${place.key.session}`] },
      },
    ];
    expect(Object.values(await decisions("acme", read(own)))).toEqual(["Allowed", "Allowed"]);
    for (const tenant of TENANTS)
      expect(Object.values(await decisions(tenant, read(none))), tenant).toEqual([
        "ImplicitlyDenied",
        "ImplicitlyDenied",
      ]);
  });

  it("denies what no CLI command does: scans, the tenant registry, keyless requests, writes elsewhere", async () => {
    const request = (action: string, resource: string, keys?: string[]): IamRequest => ({
      call: `${action} ${resource} ${keys?.join(",") ?? ""}`,
      action,
      resource,
      context: keys === undefined ? {} : { "dynamodb:LeadingKeys": keys },
    });
    const denied = [
      request("dynamodb:Scan", tableArn),
      request("dynamodb:Query", tableArn, ["DAY#2026-11-26"]),
      request("dynamodb:Query", tableArn),
      request("dynamodb:GetItem", tableArn, ["T#acme#S#s1", "T#acme-evil#S#s1"]),
      request("dynamodb:PutItem", tableArn, ["T#acme#S#s1"]),
      request("s3:GetObject", `arn:aws:s3:::${NAMES.ingest}/acme/s1/REPLAY.jsonl`),
      request("s3:DeleteObject", `arn:aws:s3:::${NAMES.ingest}/acme/s1/REPLAY.jsonl`),
      request("s3:PutObject", `arn:aws:s3:::${NAMES.published}/acme/s1/REPLAY.layer-c.jsonl`),
      request("s3:PutObject", `arn:aws:s3:::${NAMES.reports}/results/acme/s1/REPLAY.jsonl.json`),
      request("s3:GetObject", `arn:aws:s3:::${NAMES.reports}/audits/2026-11-26.json`),
      request("s3:ListBucket", `arn:aws:s3:::${NAMES.published}`),
    ];
    for (const [call, decision] of Object.entries(await decisions("acme", denied)))
      expect(decision, call).toBe("ImplicitlyDenied");
  });
});

describe("tenant roles' trust", () => {
  const trustOf = (tenant: string) =>
    resolveIntrinsics(json, json.Resources[roleOf(tenant)]?.Properties?.AssumeRolePolicyDocument) as {
      Statement: { Action: string; Principal: Record<string, string>; Condition?: unknown }[];
    };

  it("lets this account's principals assume each role, and GitHub Actions only of the named repositories", () => {
    const root = { AWS: `arn:aws:iam::${account}:root` };
    expect(trustOf("acme").Statement).toEqual([
      { Action: "sts:AssumeRole", Effect: "Allow", Principal: root },
      {
        Action: "sts:AssumeRoleWithWebIdentity",
        Effect: "Allow",
        Principal: { Federated: `arn:aws:iam::${account}:oidc-provider/token.actions.githubusercontent.com` },
        Condition: {
          StringEquals: { "token.actions.githubusercontent.com:aud": "sts.amazonaws.com" },
          StringLike: { "token.actions.githubusercontent.com:sub": ["repo:acme/app:*", "repo:acme/infra:*"] },
        },
      },
    ]);
    expect(trustOf("acme-evil").Statement).toEqual([
      { Action: "sts:AssumeRole", Effect: "Allow", Principal: root },
    ]);
  });

  it("creates the OIDC provider only when told to, and only when a tenant names a repository", () => {
    const providers = (context: Record<string, unknown>) =>
      Object.values(synthPipeline(context).json.Resources).filter((r) => r.Type === "AWS::IAM::OIDCProvider");
    expect(providers({ tenants: "acme", githubOidcProvider: "create" })).toEqual([]);
    const made = providers({
      tenants: [{ name: "acme", githubRepositories: ["acme/app"] }],
      githubOidcProvider: "create",
    });
    expect(made).toHaveLength(1);
    expect(made[0]?.Properties).toMatchObject({
      Url: "https://token.actions.githubusercontent.com",
      ClientIdList: ["sts.amazonaws.com"],
    });
  });
});

describe("tenant roles in the template", () => {
  it("one role and one output per tenant; none without the setting", () => {
    const roles = (template: CfnTemplate) =>
      Object.keys(template.Resources).filter((id) => id.startsWith("Tenants"));
    expect(roles(json).sort()).toEqual([roleOf("acme"), roleOf("acme-evil")].sort());
    expect(Object.keys(json.Outputs ?? {}).filter((id) => id.startsWith("Tenants"))).toHaveLength(2);
    expect(roles(synthPipeline().json)).toEqual([]);
  });
});
