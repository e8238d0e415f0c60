/**
 * Reprocess on AWS: the Step Functions client (start, status, follow), and `reprocess --stack`
 * against mocked AWS clients: a resumed run (its manifest read back, so no selection) started on
 * the stack's state machine, followed while it runs (the map run's item counts), and its results,
 * read from where the map's ResultWriter put them, made into the change report a local run prints.
 */
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  ListMapRunsCommand,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { reprocessCommand } from "../../../cli/commands/reprocess.js";
import { followStatus } from "../../../cli/reprocess-results.js";
import { runStatus, STATE_MACHINE_OUTPUT, startRun } from "../../../cli/reprocess-sfn.js";
import type { ReprocessChange, ReprocessItem, ReprocessReport } from "../../../shared/pipeline/reprocess.js";

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: "us-east-1" });
const ARN = "arn:aws:states:us-east-1:111122223333:stateMachine:Reprocess";
const EXECUTION = "arn:aws:states:us-east-1:111122223333:execution:Reprocess:run-1-x";
const MAP_RUN = `${EXECUTION}/map`;

beforeEach(() => sfn.reset());

/** A finished execution whose map's ResultWriter put its manifest at `key` in the reports bucket. */
const ended = (key: string) =>
  ({
    status: "SUCCEEDED",
    output: JSON.stringify({ MapRunArn: MAP_RUN, ResultWriterDetails: { Bucket: "reports", Key: key } }),
  }) as never;

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
      .resolves(ended("reprocess/abc/manifest.json"));
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

const cfn = mockClient(CloudFormationClient);
const s3 = mockClient(S3Client);

const item = (n: number): ReprocessItem => ({
  key: `acme/s-1/r${n}.REPLAY.jsonl`,
  tenant: "acme",
  session: "s-1",
  version_id: `v${n}`,
  etag: null,
});
const ITEMS = [item(1), item(2), item(3), item(4)];
const change = (n: number, fields: Partial<ReprocessChange>): ReprocessChange => ({
  key: item(n).key,
  outcome: "written",
  verdict_before: "passed",
  verdict_after: "passed",
  republished: false,
  withdrawn: null,
  ...fields,
});
/** What a child execution looks like in a ResultWriter file. */
const child = (n: number, output: ReprocessChange | null, error?: { Error: string; Cause: string }) => ({
  ExecutionArn: `${MAP_RUN}:${n}`,
  Input: JSON.stringify({ run_id: "run-7", item: item(n) }),
  InputDetails: { Included: true },
  Status: output === null ? "FAILED" : "SUCCEEDED",
  ...(output === null ? error : { Output: JSON.stringify(output), OutputDetails: { Included: true } }),
});
const OBJECTS: Record<string, unknown> = {
  "reprocess/run-7/manifest.json": ITEMS,
  "reprocess/map-1/manifest.json": {
    DestinationBucket: "reports",
    MapRunArn: MAP_RUN,
    ResultFiles: {
      FAILED: [{ Key: "reprocess/map-1/FAILED_0.json", Size: 1 }],
      PENDING: [],
      SUCCEEDED: [{ Key: "reprocess/map-1/SUCCEEDED_0.json", Size: 1 }],
    },
  },
  "reprocess/map-1/SUCCEEDED_0.json": [
    child(1, change(1, { republished: true, withdrawn: "redacts-more" })),
    child(2, change(2, {})),
    child(3, change(3, { verdict_after: "failed", withdrawn: "now-fails" })),
  ],
  "reprocess/map-1/FAILED_0.json": [
    child(4, null, { Error: "TransientError", Cause: "DynamoDB throttled the write" }),
  ],
};

/** Runs the command with `args`; its exit code, standard output and standard error. */
async function run(args: string[], pollMs = 1) {
  const out: string[] = [];
  const err: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((c) => {
    out.push(String(c));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((c) => {
    err.push(String(c));
    return true;
  });
  try {
    const code = await reprocessCommand([...args, "--tenant", "acme", "--region", "us-east-1"], { pollMs });
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    write.mockRestore();
    stderr.mockRestore();
  }
}

/** The stack, its state machine, the manifest and the ResultWriter's files, mocked. */
function mockStack(): void {
  for (const m of [cfn, s3]) m.reset();
  cfn.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: "rp",
        CreationTime: new Date(),
        StackStatus: "CREATE_COMPLETE",
        Outputs: [
          { OutputKey: "IngestBucketName", OutputValue: "ingest" },
          { OutputKey: "PublishedBucketName", OutputValue: "published" },
          { OutputKey: "ReportsBucketName", OutputValue: "reports" },
          { OutputKey: "TableName", OutputValue: "table" },
          {
            OutputKey: STATE_MACHINE_OUTPUT,
            OutputValue: "arn:aws:states:us-east-1:111122223333:stateMachine:R",
          },
        ],
      },
    ],
  });
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const body = OBJECTS[input.Key];
    if (body === undefined) throw Object.assign(new Error("NoSuchKey"), { name: "NoSuchKey" });
    return { Body: { transformToString: async () => JSON.stringify(body) }, ETag: '"e"' };
  });
  s3.on(PutObjectCommand).resolves({});
  sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION, startDate: new Date() });
  sfn
    .on(DescribeExecutionCommand)
    .resolvesOnce({ status: "RUNNING" } as never)
    .resolvesOnce({ status: "RUNNING" } as never)
    .resolves(ended("reprocess/map-1/manifest.json"));
  sfn.on(ListMapRunsCommand).resolves({ mapRuns: [{ mapRunArn: MAP_RUN } as never] });
  sfn
    .on(DescribeMapRunCommand)
    .resolvesOnce({ itemCounts: { total: 4, succeeded: 1, failed: 0, running: 3 } as never } as never)
    .resolvesOnce({ itemCounts: { total: 4, succeeded: 2, failed: 1, running: 1 } as never } as never)
    .resolves({ itemCounts: { total: 4, succeeded: 3, failed: 1, running: 0 } as never } as never);
}

afterEach(() => vi.unstubAllEnvs());

describe("reprocess --stack", () => {
  beforeEach(mockStack);

  it("starts the resumed run on the state machine, follows it, and reports its results like a local run", async () => {
    const { code, out, err } = await run(["--stack", "rp", "--run-id", "run-7", "--json"]);
    // The manifest was read back: no new one written, no selection made.
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input.input ?? "null");
    expect(input).toEqual({
      run_id: "run-7",
      manifest: { bucket: "reports", key: "reprocess/run-7/manifest.json" },
    });
    // Followed until it ended: three polls.
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(3);
    expect(err).toContain("resumed");
    const report = JSON.parse(out) as ReprocessReport;
    expect(report).toMatchObject({
      run_id: "run-7",
      selected: 4,
      processed: 3,
      already_done: 0,
      remaining: 0,
      republished: 1,
      verdicts_changed: [{ key: item(3).key, from: "passed", to: "failed" }],
      withdrawn: [
        { key: item(1).key, reason: "redacts-more" },
        { key: item(3).key, reason: "now-fails" },
      ],
      failed: [{ key: item(4).key, error: "TransientError: DynamoDB throttled the write" }],
    });
    // A failed item: exit 1, the run resumable.
    expect(code).toBe(1);
  });

  it("prints the change report as text, and draws the progress line with failures and ETA", async () => {
    vi.stubEnv("CI", "");
    const tty = process.stderr.isTTY;
    process.stderr.isTTY = true;
    const { configureProgress } = await import("../../../cli/progress.js");
    configureProgress(false);
    try {
      // Polled past the line's least interval (250 ms), so each status is drawn.
      const { out, err } = await run(["--stack", "rp", "--run-id", "run-7"], 300);
      expect(out).toContain("run run-7: 4 selected, 3 reprocessed");
      expect(out).toContain(`withdrawn ${item(3).key}: it now fails`);
      expect(out).toContain(`failed ${item(4).key}: TransientError: DynamoDB throttled the write`);
      expect(out).toContain("resume with: replay-pipeline reprocess --run-id run-7");
      expect(err).toMatch(/reprocess run-7: 1 of 4 \(25%\), [\d.]+\/s, ETA [\d:?]+/);
      expect(err).toMatch(/reprocess run-7: 3 of 4 \(75%\), [\d.]+\/s, ETA [\d:?]+, 1 failed/);
    } finally {
      configureProgress(true);
      process.stderr.isTTY = tty;
    }
  });
});
