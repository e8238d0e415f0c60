import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import type { FileRecord } from "../../shared/pipeline/ports.js";
import { intOption, parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { toInputError, writeOut } from "../io.js";
import { LocalStack, type StackOutcome } from "../local/stack.js";

/** Help text of `start`. */
export const START_HELP = `Usage: replay-pipeline start [options]      (npm start -- [options])

Runs the pipeline on this machine: an S3 server (s3rver) and a DynamoDB server (dynalite) on
127.0.0.1, the ingest, published and reports buckets and the index table, and the ingest Lambda's
handler behind a queue with SQS's semantics (batches, retries after a visibility delay, a
dead-letter folder after --max-receives). Uploads the examples, prints each verdict as it lands,
and keeps processing whatever is dropped into the ingest bucket (replay-pipeline push --local, or
any S3 client with --endpoint-url) until Ctrl-C. Endpoints and names go to DIR/stack.json.

Options:
  --once               process the examples and exit: 0 when each got a recorded verdict
  --memory             keep no data (default: DIR/data, kept between runs)
  --dir DIR            the stack's folder (default .local)
  --examples DIR       what to upload first (default examples; key examples/<name up to its first dot>/<name>)
  --s3-port N          S3 port (default 4569; 0 picks a free one)
  --dynamo-port N      DynamoDB port (default 4570; 0 picks a free one)
  --max-receives N     receives before a record goes to DIR/dlq (default 3)
  --timeout S          with --once, seconds to wait for verdicts (default 120)
  --verbose            print the handler's JSON logs too
  -h, --help           this help

Needs Node's legacy OpenSSL provider for s3rver (npm start sets --openssl-legacy-provider).`;

const OPTIONS = {
  once: { type: "boolean" },
  memory: { type: "boolean" },
  dir: { type: "string" },
  examples: { type: "string" },
  "s3-port": { type: "string" },
  "dynamo-port": { type: "string" },
  "max-receives": { type: "string" },
  timeout: { type: "string" },
  verbose: { type: "boolean" },
} as const;

/** One line of the live table. */
function row(outcome: StackOutcome): string {
  const time = new Date().toISOString().slice(11, 19);
  if (outcome.type !== "verdict")
    return `${time}  ${outcome.type.toUpperCase().padEnd(12)}  ${outcome.key}  (receive ${outcome.receives})\n`;
  const r: FileRecord = outcome.record;
  const what = [r.kind, r.format, `${r.ms} ms`].filter((x) => x !== null).join(", ");
  const where = r.layer_c_key === null ? "" : `  → published ${r.layer_c_key}`;
  const why = r.first_error === null ? "" : `  ${r.first_error.code}`;
  return `${time}  ${r.verdict.toUpperCase().padEnd(12)}  ${outcome.key}  (${what})${why}${where}\n`;
}

/** The examples to upload: key `examples/<stem>/<name>` so each example is its own session. */
async function examplesOf(dir: string): Promise<{ path: string; key: string }[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (error) {
    throw toInputError(dir, error);
  }
  return names
    .sort()
    .map((name) => ({ path: join(dir, name), key: `examples/${name.split(".")[0]}/${name}` }));
}

/** `replay-pipeline start`: the local stack. */
export async function startCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("start", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${START_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`start: unexpected argument '${positionals[0]}'`);
  const timeout = (intOption("start", "timeout", values.timeout) ?? 120) * 1000;
  const examples = await examplesOf(values.examples ?? "examples");
  const root = values.dir ?? ".local";
  const stack = await LocalStack.start({
    root,
    memory: values.memory === true,
    s3Port: intOption("start", "s3-port", values["s3-port"], 0) ?? 4569,
    dynamoPort: intOption("start", "dynamo-port", values["dynamo-port"], 0) ?? 4570,
    maxReceives: intOption("start", "max-receives", values["max-receives"]) ?? 3,
    logLevel: values.verbose === true ? "INFO" : "SILENT",
    onOutcome: (outcome) => process.stdout.write(row(outcome)),
  });
  const { info } = stack;
  await writeOut(
    `local stack: S3 ${info.s3Endpoint} (buckets ${info.ingestBucket}, ${info.publishedBucket}, ${info.reportsBucket}), DynamoDB ${info.dynamoEndpoint} (table ${info.tableName}); ${join(root, "stack.json")}\n`,
  );
  for (const { path, key } of examples) {
    await stack.s3.send(
      new PutObjectCommand({ Bucket: info.ingestBucket, Key: key, Body: await readFile(path) }),
    );
  }
  await writeOut(`uploaded ${examples.length} example(s) to s3://${info.ingestBucket}/examples/\n`);
  if (values.once === true) return once(stack, examples, timeout);
  await writeOut(
    `waiting for uploads: replay-pipeline push FILE --local --tenant T --session S, or aws s3 cp FILE s3://${info.ingestBucket}/T/S/ --endpoint-url ${info.s3Endpoint}; Ctrl-C stops\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await stack.close();
  await writeOut("local stack stopped\n");
  return 0;
}

/** `--once`: waits for the examples' verdicts; 0 when each has a record. */
async function once(stack: LocalStack, examples: { key: string }[], timeout: number): Promise<number> {
  const timer = new Promise<"timeout">((resolve) => setTimeout(resolve, timeout, "timeout").unref());
  const outcome = await Promise.race([stack.settled(), timer]);
  const missing: string[] = [];
  for (const { key } of examples) if ((await stack.recordOf(key)) === null) missing.push(key);
  await stack.close();
  if (outcome === "timeout") await writeOut(`timed out after ${timeout / 1000} s\n`);
  await writeOut(
    missing.length === 0
      ? `every example (${examples.length}) has a recorded verdict\n`
      : `no verdict recorded for: ${missing.join(", ")}\n`,
  );
  return missing.length === 0 ? 0 : 1;
}
