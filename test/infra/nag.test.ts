import { readFileSync } from "node:fs";
import { App, Stack, Validations } from "aws-cdk-lib";
import { Queue } from "aws-cdk-lib/aws-sqs";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import { describe, expect, it } from "vitest";
import { synthPipeline } from "../support/pipeline-stack.js";
import { tempDir } from "../support/temp.js";

/** The unacknowledged AwsSolutions findings of `scope`, as `rule at construct path` lines. */
function findings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.ruleName} at ${r.resourceLogicalId ?? r.locations?.join(",")}`),
  );
}

/** Every acknowledgement under `scope`: construct path, rule id, reason. */
function acknowledgements(scope: IConstruct): { path: string; id: string; reason: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ""),
          reason: typeof reason === "string" ? reason : JSON.stringify(reason),
        })),
      ),
  );
}

const PEM = readFileSync(new URL("../fixtures/cloudfront/public-key.pem", import.meta.url), "utf8");

describe("cdk-nag AwsSolutions", () => {
  for (const [name, context] of [
    ["the default stack", {}],
    [
      "the stack with public CloudFront, e-mail and reserved concurrency",
      { publishing: "public", alarmEmail: "ops@example.com", reservedConcurrency: 50 },
    ],
    ["the stack with private CloudFront (signed URLs)", { publishing: "private", publishingPublicKey: PEM }],
    [
      "the stack with tenants, GitHub OIDC trust and its own OIDC provider",
      {
        tenants: [{ name: "acme", githubRepositories: ["acme/app"] }, "globex"],
        githubOidcProvider: "create",
      },
    ],
  ] as const)
    it(`finds nothing unacknowledged in ${name}`, () => {
      const { stack } = synthPipeline(context);
      expect(findings(stack)).toEqual([]);
    });

  it("acknowledges each finding by its id, with a reason", () => {
    const { stack } = synthPipeline({ publishing: "public", tenants: "acme" });
    const acks = acknowledgements(stack).filter((a) => a.id.startsWith("AwsSolutions-"));
    expect(acks.length).toBeGreaterThan(5);
    for (const ack of acks) {
      expect(ack.id, ack.path).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
    }
  });

  it("reports a finding when a construct breaks a rule (the check can fail)", () => {
    // An App of ours with its assembly in a test folder: a bare Stack's implicit App leaves a cdk.out* behind.
    const stack = new Stack(new App({ outdir: tempDir("cdk.out-") }));
    new Queue(stack, "Plain");
    const found = findings(stack);
    expect(found.some((f) => f.startsWith("AwsSolutions-SQS3"))).toBe(true);
    expect(found.some((f) => f.startsWith("AwsSolutions-SQS4"))).toBe(true);
  });
});
