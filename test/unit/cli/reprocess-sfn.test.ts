import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  ListMapRunsCommand,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { followStatus } from "../../../cli/reprocess-results.js";
import { runStatus, startRun } from "../../../cli/reprocess-sfn.js";

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: "us-east-1" });
const ARN = "arn:aws:states:us-east-1:111122223333:stateMachine:Reprocess";
const EXECUTION = "arn:aws:states:us-east-1:111122223333:execution:Reprocess:run-1-x";
const MAP_RUN = `${EXECUTION}/map`;

beforeEach(() => sfn.reset());

describe("reprocess on AWS: the Step Functions client", () => {
  it("starts the state machine with the run id and the manifest's place as input", async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION, startDate: new Date() });
    const input = { run_id: "run-1", manifest: { bucket: "reports", key: "reprocess/run-1/manifest.json" } };
    expect(await startRun(client, ARN, input)).toBe(EXECUTION);
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call?.stateMachineArn).toBe(ARN);
    expect(JSON.parse(call?.input ?? "null")).toEqual(input);
    // A resumed run starts a new execution: the name carries the run id and is unique.
    expect(call?.name).toMatch(/^run-1-[0-9a-z]+$/);
  });

  it("reads the map run's item counts, timed-out and aborted items counted as failed", async () => {
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" } as never);
    sfn.on(ListMapRunsCommand).resolves({ mapRuns: [{ mapRunArn: MAP_RUN } as never] });
    sfn.on(DescribeMapRunCommand).resolves({
      itemCounts: {
        total: 10,
        succeeded: 6,
        failed: 1,
        timedOut: 1,
        aborted: 0,
        pending: 1,
        running: 1,
      } as never,
    } as never);
    expect(await runStatus(client, EXECUTION)).toEqual({
      status: "RUNNING",
      items: { total: 10, succeeded: 6, failed: 2, pending: 1, running: 1 },
      results: null,
    });
  });

  it("follows the execution until it is no longer running; counts are zero before the map starts; the results' place at the end", async () => {
    sfn
      .on(DescribeExecutionCommand)
      .resolvesOnce({ status: "RUNNING" } as never)
      .resolves({
        status: "SUCCEEDED",
        output: JSON.stringify({
          MapRunArn: MAP_RUN,
          ResultWriterDetails: { Bucket: "reports", Key: "reprocess/abc/manifest.json" },
        }),
      } as never);
    sfn
      .on(ListMapRunsCommand)
      .resolvesOnce({ mapRuns: [] })
      .resolves({ mapRuns: [{ mapRunArn: MAP_RUN } as never] });
    sfn
      .on(DescribeMapRunCommand)
      .resolves({ itemCounts: { total: 3, succeeded: 3, failed: 0 } as never } as never);
    const seen: string[] = [];
    const end = await followStatus(
      () => runStatus(client, EXECUTION),
      (s) => seen.push(`${s.status}:${s.items.succeeded}`),
      1,
    );
    expect(seen).toEqual(["RUNNING:0", "SUCCEEDED:3"]);
    expect(end?.items.total).toBe(3);
    // The ResultWriter's manifest, from the execution's output.
    expect(end?.results).toEqual({ bucket: "reports", key: "reprocess/abc/manifest.json" });
  });
});
