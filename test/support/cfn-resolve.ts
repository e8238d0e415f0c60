/**
 * A synthesized template's policies with their CloudFormation intrinsics resolved to the concrete
 * ARNs one deployment would give them (account, region, stack id and physical names chosen here),
 * so an IAM policy simulator can evaluate them. Only the intrinsics the stack's policies use are
 * known; any other throws, so a policy the resolver cannot read fails its test.
 */
import type { CfnTemplate } from "./pipeline-stack.js";

/** The deployment the template is resolved for. */
export const DEPLOYMENT = {
  account: "111122223333",
  region: "eu-west-1",
  stackName: "ReplayPipeline",
  stackId:
    "arn:aws:cloudformation:eu-west-1:111122223333:stack/ReplayPipeline/0e6a4f10-8c2e-11ef-9d1b-0a1b2c3d4e5f",
} as const;

/** The physical name a resource of the template gets here: its logical id, lower-cased. */
export function physicalName(logicalId: string): string {
  return logicalId.toLowerCase();
}

/** The ARN of the resource `logicalId` (`Fn::GetAtt [id, Arn]`). */
export function arnOf(json: CfnTemplate, logicalId: string): string {
  const { account, region } = DEPLOYMENT;
  const name = physicalName(logicalId);
  const type = json.Resources[logicalId]?.Type;
  switch (type) {
    case "AWS::S3::Bucket":
      return `arn:aws:s3:::${name}`;
    case "AWS::DynamoDB::GlobalTable":
    case "AWS::DynamoDB::Table":
      return `arn:aws:dynamodb:${region}:${account}:table/${name}`;
    case "AWS::IAM::Role":
      return `arn:aws:iam::${account}:role/${name}`;
    case "AWS::IAM::OIDCProvider":
      return `arn:aws:iam::${account}:oidc-provider/token.actions.githubusercontent.com`;
    default:
      throw new Error(`no ARN for ${logicalId} (${type})`);
  }
}

/** `value` with every intrinsic resolved. */
export function resolveIntrinsics(json: CfnTemplate, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(json, v));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const [only] = entries;
  if (entries.length === 1 && only !== undefined && (only[0] === "Ref" || only[0].startsWith("Fn::")))
    return intrinsic(json, only[0], only[1]);
  return Object.fromEntries(entries.map(([k, v]) => [k, resolveIntrinsics(json, v)]));
}

function intrinsic(json: CfnTemplate, name: string, argument: unknown): string {
  const { account, region, stackId, stackName } = DEPLOYMENT;
  if (name === "Ref") {
    const pseudo: Record<string, string> = {
      "AWS::Partition": "aws",
      "AWS::AccountId": account,
      "AWS::Region": region,
      "AWS::StackId": stackId,
      "AWS::StackName": stackName,
      "AWS::URLSuffix": "amazonaws.com",
    };
    const id = String(argument);
    const known = pseudo[id];
    if (known !== undefined) return known;
    if (json.Resources[id] === undefined) throw new Error(`Ref to an unknown resource ${id}`);
    return physicalName(id);
  }
  if (name === "Fn::GetAtt") {
    const [id, attribute] = argument as [string, string];
    if (attribute !== "Arn") throw new Error(`Fn::GetAtt ${id}.${attribute} is not resolved here`);
    return arnOf(json, id);
  }
  if (name === "Fn::Join") {
    const [separator, parts] = argument as [string, unknown[]];
    return parts.map((part) => String(resolveIntrinsics(json, part))).join(separator);
  }
  throw new Error(`${name} is not resolved here`);
}
