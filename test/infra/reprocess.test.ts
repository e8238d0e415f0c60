import { describe, expect, it } from "vitest";
import { refersTo, statementsOf, writableBuckets } from "../support/iam-statements.js";
import { type CfnTemplate, synthPipeline } from "../support/pipeline-stack.js";

/** The one resource of `type` whose logical id starts with `prefix`. */
function only(json: CfnTemplate, type: string, prefix: string): [string, Record<string, unknown>] {
  const found = Object.entries(json.Resources).filter(([id, r]) => r.Type === type && id.startsWith(prefix));
  expect(found.map(([id]) => id)).toHaveLength(1);
  const [id, r] = found[0] as [string, { Properties?: Record<string, unknown> }];
  return [id, r.Properties ?? {}];
}

/** The state machine's definition, its `Fn::Join` parts joined with the tokens as JSON. */
function definitionOf(props: Record<string, unknown>): Record<string, unknown> {
  const join = (props.DefinitionString as { "Fn::Join": [string, unknown[]] })["Fn::Join"];
  const text = join[1].map((part) => (typeof part === "string" ? part : "TOKEN")).join(join[0]);
  return JSON.parse(text) as Record<string, unknown>;
}

describe("reprocess: the Distributed Map and its function", () => {
  const { json } = synthPipeline();
  const [machineId, machine] = only(json, "AWS::StepFunctions::StateMachine", "Reprocess");
  const [functionId] = only(json, "AWS::Lambda::Function", "ReprocessFunction");
  const roleOf = (resource: Record<string, unknown>) =>
    (resource.RoleArn as { "Fn::GetAtt": [string] })["Fn::GetAtt"][0];
  const fnRole = roleOf({ RoleArn: json.Resources[functionId]?.Properties?.Role });
  const machineRole = roleOf(machine);
  const statements = statementsOf(json);

  it("maps the manifest (a JSON array in the reports bucket) over the function, at the setting's concurrency", () => {
    const definition = definitionOf(machine);
    const map = (definition.States as Record<string, Record<string, unknown>>)[
      definition.StartAt as string
    ] as Record<string, unknown>;
    expect(map.Type).toBe("Map");
    expect(map.MaxConcurrency).toBe(100);
    expect((map.ItemProcessor as { ProcessorConfig: unknown }).ProcessorConfig).toEqual({
      Mode: "DISTRIBUTED",
      ExecutionType: "STANDARD",
    });
    expect(map.ItemReader).toMatchObject({
      Resource: "arn:TOKEN:states:::s3:getObject",
      ReaderConfig: { InputType: "JSON" },
      Parameters: { "Key.$": "$.manifest.key" },
    });
    expect(map.ItemSelector).toEqual({ "run_id.$": "$.run_id", "item.$": "$$.Map.Item.Value" });
    expect(map.ResultWriter).toMatchObject({
      Resource: "arn:TOKEN:states:::s3:putObject",
      Parameters: { Prefix: "reprocess/" },
    });
    const other = synthPipeline({ reprocessMaxConcurrency: "7" });
    const [, again] = only(other.json, "AWS::StepFunctions::StateMachine", "Reprocess");
    const againDef = definitionOf(again);
    expect(
      (againDef.States as Record<string, { MaxConcurrency: number }>)[againDef.StartAt as string]
        ?.MaxConcurrency,
    ).toBe(7);
    expect(json.Outputs?.ReprocessStateMachineArn?.Value).toEqual({ Ref: machineId });
  });

  it("lets the state machine invoke that one function, read and write the reports bucket, and nothing else", () => {
    const held = statements.filter((s) => s.roles.includes(machineRole) && s.effect === "Allow");
    const actions = new Set(held.flatMap((s) => s.actions));
    expect([...actions].sort()).toEqual(
      [
        "lambda:InvokeFunction",
        "s3:GetObject",
        "s3:ListMultipartUploadParts",
        "s3:AbortMultipartUpload",
        "s3:PutObject",
        // The map's own child executions (of this state machine only).
        "states:DescribeExecution",
        "states:StopExecution",
        "states:StartExecution",
        "states:RedriveExecution",
      ].sort(),
    );
    for (const s of held.filter((s) => s.actions.includes("lambda:InvokeFunction")))
      for (const r of s.resources) expect(refersTo(r, functionId)).toBe(true);
    const bucketIds = Object.keys(json.Resources).filter(
      (id) => json.Resources[id]?.Type === "AWS::S3::Bucket",
    );
    const reports = bucketIds.filter((id) => id.startsWith("StorageReports"));
    expect(writableBuckets(statements, machineRole, bucketIds).sort()).toEqual(reports);
  });

  it("gives the function ingest's data access, never a write on the ingest bucket (denied by its policy too)", () => {
    const bucketIds = Object.keys(json.Resources).filter(
      (id) => json.Resources[id]?.Type === "AWS::S3::Bucket",
    );
    const writable = writableBuckets(statements, fnRole, bucketIds);
    expect(writable.some((id) => id.startsWith("StorageIngest"))).toBe(false);
    expect(writable.some((id) => id.startsWith("StoragePublished"))).toBe(true);
    const denied = statements.filter(
      (s) => s.kind === "resource" && s.effect === "Deny" && refersTo(s.principal, fnRole),
    );
    expect(denied.flatMap((s) => s.actions)).toContain("s3:PutObject");
    const actions = new Set(statements.filter((s) => s.roles.includes(fnRole)).flatMap((s) => s.actions));
    for (const a of actions) expect(a).not.toMatch(/\*/);
    expect(actions.has("dynamodb:Scan")).toBe(false);
    // It republishes copies, so it keeps their catalogue as ingest does: lists it and reads it.
    expect(actions.has("s3:ListBucket")).toBe(true);
    const own = statements.filter((s) => s.roles.includes(fnRole));
    expect(own.some((s) => JSON.stringify(s.resources).includes("/_catalogue/*"))).toBe(true);
  });
});
