/**
 * A reprocess run on AWS: the deployed stack's Step Functions state machine (a Distributed Map over
 * the run's manifest, one reprocess Lambda call per item) started and followed until it ends.
 */
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  ListMapRunsCommand,
  type SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";

/** The stack output naming the reprocess state machine. */
export const STATE_MACHINE_OUTPUT = "ReprocessStateMachineArn";

/** What a run's execution is given (the map's item reader and item selector read it). */
export interface RunInput {
  run_id: string;
  manifest: { bucket: string; key: string };
}

/** Where a followed execution stands. */
export interface RunStatus {
  status: string;
  /** The map run's item counts; zero until the map has started. */
  items: { total: number; succeeded: number; failed: number; pending: number; running: number };
}

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
  return { status: execution.status ?? "UNKNOWN", items };
}

/** Polls `executionArn` every `everyMs` until it is no longer RUNNING, reporting each status. */
export async function followRun(
  sfn: SFNClient,
  executionArn: string,
  onStatus: (status: RunStatus) => void,
  everyMs = 5_000,
): Promise<RunStatus> {
  for (;;) {
    const status = await runStatus(sfn, executionArn);
    onStatus(status);
    if (status.status !== "RUNNING") return status;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
