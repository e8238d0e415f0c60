/**
 * The shipped artifact is the tested artifact: `npm run synth` (dist/infra.js, real esbuild
 * bundling) makes the template and the two Lambda bundles; each bundle is copied out of the
 * repository, where no node_modules can stand in for a dependency it failed to bundle, and run
 * in a child Node process as Lambda runs it (ESM `import()` of `index.mjs`, its `handler` called
 * with an SQS event of S3 notifications, or the schedule's input), with the template's own
 * environment pointed at s3rver and dynalite.
 *
 * Left out of the template's environment for the local run: CURSOR_KEY_SECRET (no Secrets Manager
 * here: a literal CURSOR_KEY, which the configuration accepts, stands in), ATTESTATION_KEY_ID (no
 * KMS: attestations go unsigned) and PUBLISHED_DISTRIBUTION_ID (no CloudFront to invalidate).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { S3Event, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdNotification, sqsEvent, sqsRecord } from "../../cli/local/notifications.js";
import { type LocalServer, S3RVER_CREDENTIALS, startDynalite, startS3rver } from "../../cli/local/servers.js";
import { DynamoSessionIndex } from "../../functions/adapters/dynamo-index.js";
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "../../functions/lib/aws-clients.js";
import { createTable } from "../../functions/lib/table.js";
import { layerCKey, parseObjectKey, verdictKey } from "../../shared/pipeline/keys.js";
import type { FileRecord } from "../../shared/pipeline/ports.js";
import type { AuditReport } from "../../shared/report/index.js";
import { resolveIntrinsics } from "../support/cfn-resolve.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { type CfnTemplate, logicalId } from "../support/pipeline-stack.js";
import { objectExists } from "../support/s3-objects.js";

const run = promisify(execFile);
const REGION = "us-east-1";
/** Settings of AWS services the local stack does not have: dropped from the template's environment. */
const NOT_LOCAL = ["CURSOR_KEY_SECRET", "ATTESTATION_KEY_ID", "PUBLISHED_DISTRIBUTION_ID"];
/** Packages the bundles use: none may be found from a task root (the bundle must carry them). */
const BUNDLED = ["@aws-sdk/client-s3", "@aws-lambda-powertools/logger", "zod"];
/**
 * What the Lambda runtime does with a bundle, in a child process: `import()` of `index.mjs` from
 * the task root, then `handler` called once per event (a cold start, then warm calls), each result
 * written as JSON. First it lists which of BUNDLED the bundle's own `require` could find (it must
 * find none). It exits itself: the SDK's keep-alive sockets would hold it open, as Lambda would
 * freeze it.
 */
const RUNTIME = `
import { readFile, writeFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
const [taskRoot, eventsPath, resultsPath, probes] = process.argv.slice(1);
const bundle = new URL("index.mjs", "file://" + taskRoot + "/");
const resolvable = JSON.parse(probes).filter((name) => {
  try {
    return createRequire(bundle).resolve(name) !== "";
  } catch {
    return false;
  }
});
const { handler } = await import(bundle.href);
const results = [];
for (const event of JSON.parse(await readFile(eventsPath, "utf8"))) {
  const deadline = Date.now() + 60000;
  const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
  results.push(await handler(event, {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:${REGION}:000000000000:function:" + name,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: "/aws/lambda/" + name,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  }));
}
await writeFile(resultsPath, JSON.stringify({ resolvable, results }));
process.exit(0);
`;

const example = (name: string): Promise<Buffer> => readFile(join(PROJECT_ROOT, "examples", name));

/** One deployed function as the test runs it: its bundle's copy and its environment. */
interface ShippedFunction {
  logicalId: string;
  /** The copy of its asset folder, outside the repository: the Lambda's task root. */
  taskRoot: string;
  /** The template's `Environment.Variables`, resolved to the local names, with the local additions. */
  environment: Record<string, string>;
  memoryMb: string;
  /** The Lambda runtime (`nodejs22.x`). */
  runtime: string;
}

let work = "";
let template: CfnTemplate;
let servers: LocalServer[] = [];
let s3: S3Client;
let raw: DynamoDBClient;
let index: DynamoSessionIndex;
let ingest: ShippedFunction;
let audit: ShippedFunction;
let invocations = 0;

/**
 * Runs `fn`'s bundle on `events` in a child process; the handler's results, in order. Fails when
 * the child could resolve a package the bundle should carry.
 */
async function invoke(fn: ShippedFunction, events: unknown[]): Promise<unknown[]> {
  const n = ++invocations;
  const eventsPath = join(work, `events-${n}.json`);
  const resultsPath = join(work, `results-${n}.json`);
  await writeFile(eventsPath, JSON.stringify(events));
  try {
    await run(
      process.execPath,
      ["--input-type=module", "-e", RUNTIME, fn.taskRoot, eventsPath, resultsPath, JSON.stringify(BUNDLED)],
      {
        cwd: fn.taskRoot,
        // Only what Lambda gives a function: nothing of this process's environment (NODE_PATH,
        // NODE_OPTIONS, AWS profiles) leaks in.
        env: {
          ...fn.environment,
          AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: fn.memoryMb,
          AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
          AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
          LAMBDA_TASK_ROOT: fn.taskRoot,
          TZ: ":UTC",
          HOME: work,
        },
        maxBuffer: 64 * 1024 ** 2,
        timeout: 120_000,
      },
    );
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${fn.logicalId}'s bundle failed: ${stderr ?? ""}\n${stdout ?? ""}`, { cause: error });
  }
  const { resolvable, results } = JSON.parse(await readFile(resultsPath, "utf8")) as {
    resolvable: string[];
    results: unknown[];
  };
  expect(resolvable, `packages ${fn.logicalId}'s task root can resolve`).toEqual([]);
  return results;
}

/** `fn`'s asset folder in `outdir`, by the template's S3 key and the assets manifest. */
async function assetFolder(outdir: string, id: string): Promise<string> {
  const code = template.Resources[id]?.Properties?.Code as { S3Key?: string } | undefined;
  const hash = code?.S3Key?.replace(/\.zip$/, "");
  if (hash === undefined) throw new Error(`${id} has no asset`);
  const manifest = JSON.parse(await readFile(join(outdir, "ReplayPipeline.assets.json"), "utf8")) as {
    files: Record<string, { source: { path: string; packaging?: string } }>;
  };
  const source = manifest.files[hash]?.source;
  if (source === undefined) throw new Error(`${id}: no asset ${hash} in the manifest`);
  expect(source.packaging, id).toBe("zip");
  return join(outdir, source.path);
}

/** The function `id` of the template: its bundle copied to `join(work, name)`, its environment made local. */
async function shipped(
  outdir: string,
  id: string,
  name: string,
  local: Record<string, string>,
): Promise<ShippedFunction> {
  const properties = template.Resources[id]?.Properties ?? {};
  expect(properties.Handler, id).toBe("index.handler");
  // The child runs this machine's Node, which may be older than the runtime: the bundle's target
  // (node22) is syntax Node 20 runs too.
  expect(properties.Runtime, id).toMatch(/^nodejs\d+\.x$/);
  const taskRoot = join(work, name);
  await cp(await assetFolder(outdir, id), taskRoot, { recursive: true });
  const variables = {
    ...((properties.Environment as { Variables?: Record<string, unknown> }).Variables ?? {}),
  };
  for (const variable of NOT_LOCAL) delete variables[variable];
  const resolved = resolveIntrinsics(template, variables) as Record<string, unknown>;
  for (const [variable, value] of Object.entries(resolved))
    expect(typeof value, `${id}'s ${variable} resolves to text`).toBe("string");
  return {
    logicalId: id,
    taskRoot,
    environment: { ...(resolved as Record<string, string>), ...local },
    memoryMb: String(properties.MemorySize),
    runtime: String(properties.Runtime),
  };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "shipped-bundles-"));
  const outdir = join(work, "cdk.out");
  // `npm run synth` as a deployer runs it: no credentials, real bundling (synth.test.ts).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")));
  await run(process.execPath, [join(PROJECT_ROOT, "dist", "infra.js")], {
    cwd: PROJECT_ROOT,
    env: { ...env, CDK_OUTDIR: outdir, AWS_EC2_METADATA_DISABLED: "true", HOME: work },
    maxBuffer: 16 * 1024 ** 2,
  });
  template = JSON.parse(await readFile(join(outdir, "ReplayPipeline.template.json"), "utf8")) as CfnTemplate;
  const ingestId = logicalId(template, "AWS::Lambda::Function", "IngestFunction");
  const auditId = logicalId(template, "AWS::Lambda::Function", "AuditFunction");
  // The names the template's references resolve to (cfn-resolve: the logical id, lower-cased) are
  // the local buckets' and table's names.
  const names = resolveIntrinsics(template, {
    ingest: { Ref: logicalId(template, "AWS::S3::Bucket", "StorageIngest") },
    published: { Ref: logicalId(template, "AWS::S3::Bucket", "StoragePublished") },
    reports: { Ref: logicalId(template, "AWS::S3::Bucket", "StorageReports") },
  }) as Record<string, string>;
  const [s3rver, dynalite] = await Promise.all([
    startS3rver({ buckets: Object.values(names) }),
    startDynalite(),
  ]);
  servers = [s3rver, dynalite];
  const local = {
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_S3: s3rver.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    CURSOR_KEY: randomBytes(32).toString("base64"),
  };
  ingest = await shipped(outdir, ingestId, "ingest", local);
  audit = await shipped(outdir, auditId, "audit", local);
  expect(ingest.environment).toMatchObject({
    INGEST_BUCKET: names.ingest,
    PUBLISHED_BUCKET: names.published,
    REPORTS_BUCKET: names.reports,
  });
  const tableName = ingest.environment.TABLE_NAME ?? "no TABLE_NAME";
  expect(audit.environment.TABLE_NAME).toBe(tableName);
  const credentials = S3RVER_CREDENTIALS;
  s3 = makeS3Client({ region: REGION, endpoint: s3rver.endpoint, credentials });
  raw = makeDynamoClient({ region: REGION, endpoint: dynalite.endpoint, credentials });
  await createTable(raw, tableName);
  index = new DynamoSessionIndex(makeDocumentClient(raw), { tableName });
  // The copies hold what Lambda gets, and cdk.out is no longer needed.
  await rm(outdir, { recursive: true, force: true });
}, 240_000);

afterAll(async () => {
  s3?.destroy();
  raw?.destroy();
  for (const server of servers) await server.close();
  if (work !== "") {
    await rm(work, { recursive: true, force: true });
    expect(existsSync(work), `${work} is removed`).toBe(false);
  }
});

describe("the bundles cdk.out ships, copied out of the repository", () => {
  it("are one ESM file each, with nowhere to resolve a package from", async () => {
    for (const fn of [ingest, audit]) {
      expect((await readdir(fn.taskRoot)).sort()).toEqual(["index.mjs", "index.mjs.map"]);
      const fromRoot = relative(PROJECT_ROOT, fn.taskRoot);
      expect(
        fromRoot.startsWith("..") || isAbsolute(fromRoot),
        `${fn.taskRoot} is outside the repository`,
      ).toBe(true);
      // Node looks for a bare specifier in node_modules of each folder up to the root: none here.
      for (let dir = fn.taskRoot; ; dir = dirname(dir)) {
        expect(existsSync(join(dir, "node_modules")), `${dir}/node_modules`).toBe(false);
        if (dirname(dir) === dir) break;
      }
    }
  });
});

describe("the ingest bundle, run on an SQS batch of S3 notifications", () => {
  const REPLAY = "acme/fix-auth/fix-auth.REPLAY.jsonl";
  const RECEIPT = "acme/fix-auth/fix-auth.RECEIPT.json";
  const TAMPERED = "acme/tampered/tampered.REPLAY.jsonl";
  const GZIP = "acme/gzip/fix-auth.REPLAY.jsonl.gz";
  // A space and a plus in the name: S3 sends `my+file%2Bv2.REPLAY.jsonl`.
  const SPACED = "acme/spaced/my file+v2.REPLAY.jsonl";
  // A space in the session, which no session name may hold: rejected, under the key as decoded.
  const BAD_SESSION = "acme/s 1/my+file.REPLAY.jsonl";
  let batches: SQSEvent[] = [];
  let responses: unknown[] = [];
  let sequencer = 0;

  /** Stores `body` under `key` in the ingest bucket; the SQS record of its notification. */
  async function upload(key: string, body: Buffer) {
    const bucket = ingest.environment.INGEST_BUCKET ?? "";
    const out = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const eTag = (out.ETag ?? "").replaceAll('"', "");
    const next = (++sequencer).toString(16).toUpperCase().padStart(16, "0");
    return sqsRecord(createdNotification({ bucket, key, size: body.length, eTag, sequencer: next }));
  }

  async function recordOf(key: string): Promise<FileRecord | null> {
    const parsed = parseObjectKey(key);
    if (!parsed.ok) throw new Error(`${key}: ${parsed.problem.message}`);
    return index.getFile(parsed.key.tenant, parsed.key.session, key);
  }

  const exists = (bucket: string | undefined, key: string): Promise<boolean> => objectExists(s3, bucket, key);

  async function verdictDocument(key: string): Promise<{ verdict?: string }> {
    const doc = await s3.send(
      new GetObjectCommand({ Bucket: ingest.environment.REPORTS_BUCKET, Key: verdictKey(key) }),
    );
    return JSON.parse(await (doc.Body?.transformToString() ?? "")) as { verdict?: string };
  }

  beforeAll(async () => {
    const replay = await example("fix-auth.REPLAY.jsonl");
    const first = [
      await upload(REPLAY, replay),
      await upload(TAMPERED, await example("tampered.REPLAY.jsonl")),
      await upload(GZIP, gzipSync(replay)),
      await upload(SPACED, replay),
      await upload(BAD_SESSION, replay),
    ];
    // The receipt in a later batch: the replay's record is there to be checked against.
    const second = [await upload(RECEIPT, await example("fix-auth.RECEIPT.json"))];
    batches = [sqsEvent(first), sqsEvent(second)];
    responses = await invoke(ingest, batches);
  }, 120_000);

  it("hands it keys encoded as S3 encodes them", () => {
    const keys = batches.flatMap((batch) =>
      batch.Records.map((r) => (JSON.parse(r.body) as S3Event).Records[0]?.s3.object.key),
    );
    expect(keys).toContain("acme/spaced/my+file%2Bv2.REPLAY.jsonl");
    expect(keys).toContain("acme/s+1/my%2Bfile.REPLAY.jsonl");
  });

  it("fails no record of either batch", () => {
    expect(responses).toEqual([
      { batchItemFailures: [] },
      { batchItemFailures: [] },
    ] satisfies SQSBatchResponse[]);
  });

  it("passes the replay, checks its receipt, and publishes its Layer C copy", async () => {
    expect(await recordOf(REPLAY)).toMatchObject({
      kind: "replay",
      verdict: "passed",
      layer_c_key: "acme/fix-auth/fix-auth.REPLAY.layer-c.jsonl",
    });
    expect(await recordOf(RECEIPT)).toMatchObject({ kind: "receipt", verdict: "passed" });
    const checks = await index.listChecks("acme", "fix-auth");
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      verdict: "passed",
      replay: { key: REPLAY },
      receipt: { key: RECEIPT },
    });
  });

  it("fails the tampered replay: recorded, not published", async () => {
    const record = await recordOf(TAMPERED);
    expect(record).toMatchObject({ kind: "replay", verdict: "failed", layer_c_key: null });
    expect(
      await exists(ingest.environment.PUBLISHED_BUCKET, "acme/tampered/tampered.REPLAY.layer-c.jsonl"),
    ).toBe(false);
  });

  it("reads the gzip file and publishes it uncompressed", async () => {
    expect(await recordOf(GZIP)).toMatchObject({
      verdict: "passed",
      layer_c_key: "acme/gzip/fix-auth.REPLAY.layer-c-gz.jsonl",
    });
  });

  it("decodes a key with a space and a plus as S3 encodes it", async () => {
    expect(await recordOf(SPACED)).toMatchObject({ file: "my file+v2.REPLAY.jsonl", verdict: "passed" });
  });

  it("rejects a session name with a space, filed under the key as decoded", async () => {
    const files = await index.listFiles("acme", "_rejected");
    expect(files.find((f) => f.ref.key === BAD_SESSION)).toMatchObject({
      kind: "rejected",
      verdict: "invalid",
      first_error: { code: "key.session" },
    });
  });

  it("publishes each copy its record names, and writes each verdict document", async () => {
    for (const key of [REPLAY, RECEIPT, TAMPERED, GZIP, SPACED]) {
      const record = await recordOf(key);
      expect(await verdictDocument(key), key).toMatchObject({ verdict: record?.verdict });
      const parsed = parseObjectKey(key);
      if (record?.kind === "replay" && record.layer_c_key !== null && parsed.ok) {
        expect(record.layer_c_key).toBe(layerCKey(parsed.key));
        expect(await exists(ingest.environment.PUBLISHED_BUCKET, record.layer_c_key), key).toBe(true);
      }
    }
  });

  describe("the audit bundle, run on the schedule's input", () => {
    let results: unknown[] = [];
    let day = "";

    async function report(key: string): Promise<AuditReport> {
      const doc = await s3.send(new GetObjectCommand({ Bucket: audit.environment.REPORTS_BUCKET, Key: key }));
      return JSON.parse(await (doc.Body?.transformToString() ?? "")) as AuditReport;
    }

    beforeAll(async () => {
      const schedule = template.Resources[logicalId(template, "AWS::Scheduler::Schedule", "AuditSchedule")];
      const target = schedule?.Properties?.Target as { Input?: string } | undefined;
      const input = JSON.parse(target?.Input ?? "no input") as unknown;
      day = (await recordOf(REPLAY))?.processed_at.slice(0, 10) ?? "no record";
      // The schedule's own input (the previous UTC day), then the day the files above were processed.
      results = await invoke(audit, [input, { since: day, until: day }]);
    }, 120_000);

    it("writes the previous day's report, and the day's, to the reports bucket", async () => {
      const yesterday = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const keys = (label: string) => ({
        keys: ["json", "md", "html"].map((ext) => `audits/${label}.${ext}`),
      });
      expect(results).toEqual([keys(yesterday), keys(day)]);
      for (const key of [...keys(yesterday).keys, ...keys(day).keys])
        expect(await exists(audit.environment.REPORTS_BUCKET, key), key).toBe(true);
      expect((await report(`audits/${yesterday}.json`)).totals.files).toBe(0);
      const today = await report(`audits/${day}.json`);
      expect(today.totals).toMatchObject({ files: 6, verdicts: { passed: 4, failed: 1, invalid: 1 } });
      expect(today.failed_checks.map((f) => f.key)).toContain(TAMPERED);
    });
  });
});
