/**
 * A reprocess run on AWS: the deployed stack's Step Functions state machine (a Distributed Map over
 * the run's manifest, one reprocess Lambda call per item) started and followed until it ends; its
 * status carries where the map's ResultWriter put the results (`reprocess-results.ts` reads them).
 */
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  ListMapRunsCommand,
  type SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import type { RunInput, RunStatus, S3Location } from "./reprocess-results.js";

/** The stack output naming the reprocess state machine. */
export const STATE_MACHINE_OUTPUT = "ReprocessStateMachineArn";

/** Starts the state machine on `input`; the execution's name is the run id and a try number. */
export async function startRun(sfn: SFNClient, stateMachineArn: string, input: RunInput): Promise<string> {
  const out = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn,
      // A resumed run is a new execution of the same run: names are unique per state machine.
      name: `${input.run_id}-${Date.now().toString(36)}`.slice(0, 80),
      input: JSON.stringify(input),
    }),
  );
  if (out.executionArn === undefined) throw new Error("StartExecution returned no execution ARN");
  return out.executionArn;
}

/** The execution's status and its map run's item counts. */
export async function runStatus(sfn: SFNClient, executionArn: string): Promise<RunStatus> {
  const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  const runs = await sfn.send(new ListMapRunsCommand({ executionArn }));
  const items = { total: 0, succeeded: 0, failed: 0, pending: 0, running: 0 };
  const mapRunArn = runs.mapRuns?.[0]?.mapRunArn;
  if (mapRunArn !== undefined) {
    const map = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    const c = map.itemCounts;
    items.total = c?.total ?? 0;
    items.succeeded = c?.succeeded ?? 0;
    items.failed = (c?.failed ?? 0) + (c?.timedOut ?? 0) + (c?.aborted ?? 0);
    items.pending = c?.pending ?? 0;
    items.running = c?.running ?? 0;
  }
  return { status: execution.status ?? "UNKNOWN", items, results: resultsOf(execution.output) };
}

/** Where the map's ResultWriter put the results, from the execution's output; null before it ends. */
function resultsOf(output: string | undefined): S3Location | null {
  try {
    const details = (
      JSON.parse(output ?? "null") as { ResultWriterDetails?: { Bucket?: string; Key?: string } }
    )?.ResultWriterDetails;
    return details?.Bucket === undefined || details.Key === undefined
      ? null
      : { bucket: details.Bucket, key: details.Key };
  } catch {
    return null;
  }
}
