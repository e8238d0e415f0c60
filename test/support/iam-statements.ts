/**
 * Every policy statement of a synthesized template, with who holds it, for the least-privilege and
 * recursion-guard assertions of test/infra: identity policies (IAM::Policy, inline role policies)
 * and resource policies (bucket, queue, topic policies).
 */
import type { CfnTemplate } from "./pipeline-stack.js";

/** One statement, its actions and resources as lists, and its holder. */
export interface Statement {
  /** The logical id of the policy resource the statement is in. */
  policy: string;
  /** Logical ids of the roles holding it (identity policies), else []. */
  roles: string[];
  /** `identity` (a role's) or `resource` (a bucket's, queue's or topic's). */
  kind: "identity" | "resource";
  effect: "Allow" | "Deny";
  actions: string[];
  resources: unknown[];
  principal: unknown;
}

const list = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const RESOURCE_POLICIES: Record<string, string> = {
  "AWS::S3::BucketPolicy": "PolicyDocument",
  "AWS::SQS::QueuePolicy": "PolicyDocument",
  "AWS::SNS::TopicPolicy": "PolicyDocument",
};

interface RawStatement {
  Effect: "Allow" | "Deny";
  Action?: string | string[];
  Resource?: unknown;
  Principal?: unknown;
}

/** All statements of `json`. */
export function statementsOf(json: CfnTemplate): Statement[] {
  const out: Statement[] = [];
  const add = (policy: string, roles: string[], kind: Statement["kind"], document: unknown) => {
    for (const s of list((document as { Statement?: RawStatement[] } | undefined)?.Statement))
      out.push({
        policy,
        roles,
        kind,
        effect: s.Effect,
        actions: list(s.Action),
        resources: list(s.Resource),
        principal: s.Principal,
      });
  };
  for (const [id, resource] of Object.entries(json.Resources)) {
    const p = resource.Properties ?? {};
    if (resource.Type === "AWS::IAM::Policy") {
      const roles = list(p.Roles as { Ref: string }[] | undefined).map((r) => r.Ref);
      add(id, roles, "identity", p.PolicyDocument);
    } else if (resource.Type === "AWS::IAM::Role") {
      for (const inline of list(p.Policies as { PolicyDocument: unknown }[] | undefined))
        add(id, [id], "identity", inline.PolicyDocument);
    } else {
      const key = RESOURCE_POLICIES[resource.Type];
      if (key !== undefined) add(id, [], "resource", p[key]);
    }
  }
  return out;
}

/** True if `value` (a resource or principal, with its intrinsics) refers to the logical id `id`. */
export function refersTo(value: unknown, id: string): boolean {
  return JSON.stringify(value).includes(`"${id}"`);
}

/** S3 actions that write, replace or remove an object or its settings (anything but reading). */
export function isS3Write(action: string): boolean {
  return /^s3:(Put|Delete|Restore|Abort|Replicate|Create|Complete|Upload|\*)/i.test(action) || action === "*";
}

/** The logical ids among `bucketIds` on which the statements of `roleId` allow some S3 write. */
export function writableBuckets(statements: Statement[], roleId: string, bucketIds: string[]): string[] {
  const writable = new Set<string>();
  for (const s of statements)
    if (
      s.kind === "identity" &&
      s.effect === "Allow" &&
      s.roles.includes(roleId) &&
      s.actions.some(isS3Write)
    )
      for (const bucket of bucketIds)
        if (s.resources.some((r) => r === "*" || refersTo(r, bucket))) writable.add(bucket);
  return [...writable].sort();
}
