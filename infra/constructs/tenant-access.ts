/**
 * Tenant access: for each tenant of the `tenants` setting, a role whose holder can run the CLI's
 * pipeline commands (`push`, `sessions`, `show`, `pull`, `report --tenant`) for that tenant and
 * nothing else. It may put objects under `<tenant>/` in the ingest bucket, read `<tenant>/` in the
 * published bucket and `results/<tenant>/` in the reports bucket (verdict documents, attestations,
 * its rejected keys' verdicts), get and query index items whose partition key is its own
 * (`T#<tenant>#…`, `dynamodb:LeadingKeys`), and read the stack's outputs (`--stack NAME`).
 * Tenant names never hold `#` (settings.ts), so `T#acme#*` matches none of `acme-evil`'s keys.
 * Keys with no readable tenant are filed under `_rejected`, a name no tenant may have.
 */
import { CfnOutput, Stack } from "aws-cdk-lib";
import {
  AccountRootPrincipal,
  CompositePrincipal,
  type IOidcProvider,
  type IPrincipal,
  OidcProviderNative,
  PolicyDocument,
  PolicyStatement,
  Role,
  WebIdentityPrincipal,
} from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { TABLE_SCHEMA } from "../../functions/lib/table.js";
import type { PipelineSettings } from "../settings.js";
import { acknowledgeObjectArns, writeObjects } from "./access.js";
import type { Storage } from "./storage.js";

/** The issuer of GitHub Actions' OIDC tokens (the provider's URL without `https://`). */
const GITHUB_OIDC_ISSUER = "token.actions.githubusercontent.com";

/** What `TenantAccess` is configured with. */
export interface TenantAccessProps {
  storage: Storage;
  tenants: PipelineSettings["tenants"];
  /** Use the account's GitHub OIDC provider (`existing`) or make it in this stack (`create`). */
  githubOidcProvider: PipelineSettings["githubOidcProvider"];
}

/** One role per tenant, and the GitHub OIDC provider when a tenant names repositories. */
export class TenantAccess extends Construct {
  /** Each tenant's role, by tenant name. */
  readonly roles = new Map<string, Role>();

  constructor(scope: Construct, id: string, props: TenantAccessProps) {
    super(scope, id);
    const { storage } = props;
    const stack = Stack.of(this);
    const provider = props.tenants.some((t) => t.githubRepositories.length > 0)
      ? githubProvider(this, props.githubOidcProvider)
      : null;
    for (const { name, githubRepositories } of props.tenants) {
      const principals: IPrincipal[] = [new AccountRootPrincipal()];
      if (provider !== null && githubRepositories.length > 0)
        principals.push(
          new WebIdentityPrincipal(provider.openIdConnectProviderArn, {
            StringEquals: { [`${GITHUB_OIDC_ISSUER}:aud`]: "sts.amazonaws.com" },
            StringLike: { [`${GITHUB_OIDC_ISSUER}:sub`]: githubRepositories.map((r) => `repo:${r}:*`) },
          }),
        );
      const role = new Role(this, name, {
        description: `replay-pipeline tenant ${name}: push, sessions, show, pull of its own keys only`,
        assumedBy: new CompositePrincipal(...principals),
        inlinePolicies: { access: new PolicyDocument({ statements: tenantStatements(storage, name) }) },
      });
      acknowledgeObjectArns(
        role,
        [
          [storage.ingestBucket, `${name}/`],
          [storage.publishedBucket, `${name}/`],
          [storage.reportsBucket, `results/${name}/`],
        ],
        "the tenant's own prefix; its sessions and files are named by its uploads",
      );
      this.roles.set(name, role);
      new CfnOutput(this, `${name}RoleArn`, {
        description: `The role of tenant ${name} (stack ${stack.stackName})`,
        value: role.roleArn,
      });
    }
  }
}

/**
 * What tenant `name` may do: exactly the calls of the CLI's pipeline commands (cli/remote.ts,
 * cli/commands/remote.ts), each on the tenant's own keys.
 */
function tenantStatements(storage: Storage, name: string): PolicyStatement[] {
  const { table } = storage;
  // Every partition key the tenant's requests name starts `T#<name>#` (functions/adapters/dynamo-index.ts);
  // the Null check refuses a request that names none (ForAllValues holds for an empty set).
  const ownPartitions = {
    "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`T#${name}#*`] },
    Null: { "dynamodb:LeadingKeys": "false" },
  };
  return [
    // push: lib-storage's Upload (PutObject, or the multipart calls, which are s3:PutObject too).
    writeObjects(storage.ingestBucket, { delete: false, prefix: `${name}/` }),
    // pull: the Layer C copy; push --wait: verdict documents and attestations.
    new PolicyStatement({
      actions: ["s3:GetObject"],
      resources: [
        storage.publishedBucket.arnForObjects(`${name}/*`),
        storage.reportsBucket.arnForObjects(`results/${name}/*`),
      ],
    }),
    // push --wait, show, pull: the session's items (GetItem, Query with ConsistentRead).
    new PolicyStatement({
      actions: ["dynamodb:GetItem", "dynamodb:Query"],
      resources: [table.tableArn],
      conditions: ownPartitions,
    }),
    // sessions, report --tenant: the tenant's day index partitions.
    new PolicyStatement({
      actions: ["dynamodb:Query"],
      resources: [`${table.tableArn}/index/${TABLE_SCHEMA.dayIndex}`],
      conditions: ownPartitions,
    }),
    // --stack NAME: the bucket and table names in the stack's outputs.
    new PolicyStatement({
      actions: ["cloudformation:DescribeStacks"],
      resources: [Stack.of(storage).stackId],
    }),
  ];
}

/** The account's one provider for GitHub's issuer: made here, or referred to by its fixed ARN. */
function githubProvider(scope: Construct, mode: "existing" | "create"): IOidcProvider {
  if (mode === "create")
    return new OidcProviderNative(scope, "GitHubOidc", {
      url: `https://${GITHUB_OIDC_ISSUER}`,
      clientIds: ["sts.amazonaws.com"],
    });
  const arn = Stack.of(scope).formatArn({
    service: "iam",
    region: "",
    resource: "oidc-provider",
    resourceName: GITHUB_OIDC_ISSUER,
  });
  return OidcProviderNative.fromOidcProviderArn(scope, "GitHubOidc", arn);
}
