/**
 * The local stack behind `npm start`: s3rver and dynalite in this process, the buckets and the
 * table made, and a queue with SQS's semantics between them: each object stored in the ingest
 * bucket becomes an S3 notification as AWS shapes it, handed in batches to the same ingest handler
 * the Lambda runs; a record it fails comes back after a visibility delay, and after `maxReceives`
 * receives goes to a dead-letter folder. A reprocess run started with `reprocess --local` goes
 * through the same queue: its items, in batches, to the reprocess handler (`LocalRuns`).
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { ResourceInUseException } from "@aws-sdk/client-dynamodb";
import { HeadObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { S3rverEvent } from "s3rver";
import { DynamoSessionIndex } from "../../functions/adapters/dynamo-index.js";
import { makeDocumentClient, makeDynamoClient, makeS3Client } from "../../functions/lib/aws-clients.js";
import { readConfig } from "../../functions/lib/config.js";
import { type IngestHandler, makeIngestHandler } from "../../functions/lib/ingest.js";
import { makeReprocessBatchHandler, type ReprocessOutcome } from "../../functions/lib/reprocess.js";
import { createTable } from "../../functions/lib/table.js";
import type { FileRecord, RulePack } from "../../shared/pipeline/index.js";
import {
  isIngestKey,
  parseObjectKey,
  rejectedPlace,
  rulesDigest,
  scrubbedKey,
} from "../../shared/pipeline/index.js";
import { createdNotification, lambdaContext, sqsEvent, sqsRecord } from "./notifications.js";
import { LocalRuns } from "./reprocess-runs.js";
import { type LocalServer, S3RVER_CREDENTIALS, startDynalite, startS3rver } from "./servers.js";
import type { TornObject } from "./torn-objects.js";

/** Where the stack's parts are: what `.local/stack.json` holds and `--local` reads. */
export interface StackInfo {
  region: string;
  s3Endpoint: string;
  dynamoEndpoint: string;
  ingestBucket: string;
  publishedBucket: string;
  reportsBucket: string;
  tableName: string;
  /** The process serving the stack: a reader tells a file a killed stack left behind by it. */
  pid?: number;
  /** The digest of the rules the stack's handlers run: what `reprocess --local --stale` compares with. */
  rulesDigest?: string;
}

/** How the local stack runs. */
export interface StackOptions {
  /** The stack's folder: `stack.json`, the servers' data (unless `memory`), `dlq/`. */
  root: string;
  /** Keep no data between runs. */
  memory?: boolean;
  host?: string;
  /** 0 picks a free port. */
  s3Port?: number;
  dynamoPort?: number;
  /** Records per handler call (default 10, SQS's default). */
  batchSize?: number;
  /** Handler calls at once (default 2). */
  concurrency?: number;
  /** Receives before a record goes to the dead-letter folder (default 3). */
  maxReceives?: number;
  /** How long a failed record stays invisible, ms (default 1000). */
  retryDelayMs?: number;
  /** The handler's log level (default SILENT: the stack prints its own table). */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR" | "SILENT";
  /** Called as each object's fate is known. */
  onOutcome?: (outcome: StackOutcome) => void;
  /** Write each published copy's viewer page beside it (the functions' `VIEWER_PAGES`). */
  viewerPages?: boolean;
  /** The rules the ingest and reprocess handlers run, when not the built-in defaults (a test's rule pack). */
  rules?: RulePack;
  /** Reprocess items per handler call (default 10). */
  reprocessBatchSize?: number;
}

/** What became of one queued object. */
export type StackOutcome =
  | { type: "verdict"; key: string; record: FileRecord }
  | { type: "retry"; key: string; receives: number /** A reprocess item's fault. */; error?: unknown }
  | { type: "dead-letter"; key: string; receives: number /** The message's file in `dlq/`. */; path: string };

interface Message {
  id: string;
  /** The object key (an upload), or the reprocess execution the item belongs to. */
  key: string;
  /** Which handler takes it. */
  kind: "ingest" | "reprocess";
  body: string;
  receives: number;
  visibleAt: number;
}

const REGION = "us-east-1";
/** Names of the stack's buckets and table. */
const STACK_NAMES = {
  ingestBucket: "ingest",
  publishedBucket: "published",
  reportsBucket: "reports",
  tableName: "replay-pipeline",
} as const;

let lastSequencer = 0n;
/** A sequencer above every earlier one, also across runs (it starts from the clock). */
function nextSequencer(): string {
  const now = BigInt(Date.now()) << 16n;
  lastSequencer = now > lastSequencer ? now : lastSequencer + 1n;
  return lastSequencer.toString(16).toUpperCase().padStart(16, "0");
}

/** The stack's ingest and reprocess handlers, configured as the functions are at a cold start. */
function localHandlers(options: StackOptions, info: StackInfo, s3: S3Client, dynamo: DynamoDBDocumentClient) {
  // The function's own configuration, parsed as at a Lambda cold start.
  const config = readConfig({
    AWS_REGION: REGION,
    INGEST_BUCKET: info.ingestBucket,
    PUBLISHED_BUCKET: info.publishedBucket,
    REPORTS_BUCKET: info.reportsBucket,
    TABLE_NAME: info.tableName,
    AWS_ENDPOINT_URL_S3: info.s3Endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: info.dynamoEndpoint,
    VIEWER_PAGES: options.viewerPages === true ? "true" : "false",
  });
  // EMF lines are for CloudWatch; locally they would only bury the table.
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
  const logger = new Logger({
    serviceName: "replay-pipeline-ingest",
    logLevel: options.logLevel ?? "SILENT",
  });
  const handler = makeIngestHandler({
    config,
    s3,
    dynamo,
    logger,
    // One Metrics for the stack's concurrent batches: the first to finish flushes the others'
    // metrics, and the next warns it has none. Its warnings go to the stack's log, not stderr.
    metrics: new Metrics({ namespace: "ReplayPipeline", serviceName: "ingest", logger }),
    toolVersion: "local",
    ...(options.rules === undefined ? {} : { rules: options.rules }),
  });
  const reprocess = makeReprocessBatchHandler({
    config,
    s3,
    dynamo,
    logger: new Logger({
      serviceName: "replay-pipeline-reprocess",
      logLevel: options.logLevel ?? "SILENT",
    }),
    toolVersion: "local",
    ...(options.rules === undefined ? {} : { rules: options.rules }),
  });
  return { handler, reprocess };
}

/** A running local stack. */
export class LocalStack {
  private readonly queue: Message[] = [];
  private inFlight = 0;
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;
  private idle: (() => void)[] = [];
  private closed = false;
  /** The record a key's verdict lands in (rejected keys: see `rejectedPlace`). */
  readonly index: DynamoSessionIndex;
  private readonly runs: LocalRuns;

  private constructor(
    private readonly options: StackOptions,
    /** Endpoints and names. */
    readonly info: StackInfo,
    /** Clients against the stack's servers. */
    readonly s3: S3Client,
    readonly dynamo: DynamoDBDocumentClient,
    private readonly handler: IngestHandler,
    private readonly reprocess: (events: readonly unknown[]) => Promise<ReprocessOutcome[]>,
    private readonly servers: LocalServer[],
    /** Objects found torn in the data folder at start (a crash mid-upload) and set aside: not served, not processed. */
    readonly torn: TornObject[],
  ) {
    this.index = new DynamoSessionIndex(dynamo, { tableName: info.tableName });
    this.runs = new LocalRuns(s3, info.reportsBucket, (execution, body) =>
      this.enqueue(execution, body, "reprocess"),
    );
  }

  /** Starts the servers, makes buckets and table, writes `stack.json`, and queues objects stored before. */
  static async start(options: StackOptions): Promise<LocalStack> {
    const host = options.host ?? "127.0.0.1";
    const dataDir = options.memory ? null : join(options.root, "data");
    let stack: LocalStack | null = null;
    const early: S3rverEvent[] = [];
    const s3server = await startS3rver({
      host,
      port: options.s3Port ?? 0,
      dataDir,
      buckets: [STACK_NAMES.ingestBucket, STACK_NAMES.publishedBucket, STACK_NAMES.reportsBucket],
      onEvent: (event) => (stack ? stack.accept(event) : early.push(event)),
    });
    let dynamoServer: LocalServer;
    try {
      dynamoServer = await startDynalite({ host, port: options.dynamoPort ?? 0, dataDir });
    } catch (error) {
      // Nothing is left listening when the stack cannot start.
      await s3server.close();
      throw error;
    }
    const info: StackInfo = {
      region: REGION,
      s3Endpoint: s3server.endpoint,
      dynamoEndpoint: dynamoServer.endpoint,
      ...STACK_NAMES,
      pid: process.pid,
      rulesDigest: options.rules?.rulesDigest ?? rulesDigest(options.rules?.preset, options.rules?.packRules),
    };
    const s3 = makeS3Client({ region: REGION, endpoint: info.s3Endpoint, credentials: S3RVER_CREDENTIALS });
    const raw = makeDynamoClient({
      region: REGION,
      endpoint: info.dynamoEndpoint,
      credentials: S3RVER_CREDENTIALS,
    });
    try {
      await createTable(raw, info.tableName).catch((error: unknown) => {
        // Kept from an earlier run.
        if (!(error instanceof ResourceInUseException)) throw error;
      });
      const dynamo = makeDocumentClient(raw);
      const { handler, reprocess } = localHandlers(options, info, s3, dynamo);
      stack = new LocalStack(
        options,
        info,
        s3,
        dynamo,
        handler,
        reprocess,
        [s3server, dynamoServer],
        s3server.torn,
      );
      await mkdir(options.root, { recursive: true });
      await writeFile(join(options.root, "stack.json"), `${JSON.stringify(info, null, 2)}\n`);
      for (const event of early) stack.accept(event);
      // Objects stored while the stack was down have had no event: queue those without a verdict.
      if (dataDir !== null) await stack.catchUp();
    } catch (error) {
      // Nothing is left listening when the stack cannot start.
      if (stack !== null) await stack.close();
      else {
        s3.destroy();
        raw.destroy();
        await Promise.all([s3server.close(), dynamoServer.close()]);
      }
      throw error;
    }
    return stack;
  }

  /** Queues a message as SQS `SendMessage` would (a redelivery, a message moved back from the dead-letter folder). */
  send(key: string, body: string): void {
    this.enqueue(key, body, "ingest");
  }

  private enqueue(key: string, body: string, kind: Message["kind"]): void {
    this.queue.push({ id: randomUUID(), key, kind, body, receives: 0, visibleAt: Date.now() });
    this.pump();
  }

  /** Resolves once nothing is queued, in flight or being announced. */
  settled(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** The record of `key`'s verdict, or null while it has none. */
  async recordOf(key: string): Promise<FileRecord | null> {
    const parsed = parseObjectKey(key);
    if (parsed.ok) {
      const record = await this.index.getFile(parsed.key.tenant, parsed.key.session, key);
      if (record !== null) return record;
    }
    // A rejected key (one holding a secret too) is filed under its digest and its scrubbed form,
    // in its tenant's area or the operator-only one (`rejectedPlace`).
    const digest = createHash("sha256").update(key, "utf8").digest("hex");
    const scrubbed = scrubbedKey(key);
    const { tenant, session } = rejectedPlace(key, scrubbed, digest).key;
    return this.index.getFile(tenant, session, scrubbed);
  }

  /** Stops taking work, waits for the calls in flight, and stops the servers. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.runs.close();
    while (this.inFlight > 0 || this.pending > 0) await new Promise((r) => setTimeout(r, 20));
    this.s3.destroy();
    this.dynamo.destroy();
    for (const server of this.servers) await server.close();
    // Its endpoints are gone: `--local` must not find them.
    await rm(join(this.options.root, "stack.json"), { force: true });
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0 && this.pending === 0;
  }

  private accept(event: S3rverEvent): void {
    for (const record of event.Records) {
      const { bucket, object } = record.s3;
      if (!record.eventName.startsWith("ObjectCreated:")) continue;
      if (bucket.name === this.info.reportsBucket && LocalRuns.isStart(object.key)) {
        this.pending++;
        this.runs
          .start(object.key)
          .catch((error: unknown) => process.stderr.write(`local stack: ${object.key}: ${String(error)}\n`))
          .finally(() => {
            this.pending--;
            this.pump();
          });
        continue;
      }
      if (bucket.name !== this.info.ingestBucket) continue;
      // The deployed bucket notifies only its suffixes (case-sensitive): the same here.
      if (!isIngestKey(object.key)) continue;
      this.pending++;
      this.announce(object.key, object.eTag, object.size)
        .catch((error: unknown) =>
          process.stderr.write(`local stack: ${scrubbedKey(object.key)}: ${String(error)}\n`),
        )
        .finally(() => {
          this.pending--;
          this.pump();
        });
    }
  }

  /** Queues the notification of `key`; a copy's event lacks the ETag, so it is asked for. */
  private async announce(key: string, eTag?: string, size?: number): Promise<void> {
    if (eTag === undefined || size === undefined) {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.info.ingestBucket, Key: key }));
      eTag = (head.ETag ?? "").replaceAll('"', "");
      size = head.ContentLength ?? 0;
    }
    const body = createdNotification({
      bucket: this.info.ingestBucket,
      key,
      size,
      eTag,
      sequencer: nextSequencer(),
    });
    this.send(key, body);
  }

  private async catchUp(): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.info.ingestBucket, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key === undefined || !isIngestKey(item.Key)) continue;
        const eTag = item.ETag?.replaceAll('"', "");
        // Only what has no verdict of this version yet: a restart does not redo (and reprint) the rest.
        if (eTag !== undefined && (await this.recordOf(item.Key))?.ref.etag === eTag) continue;
        await this.announce(item.Key, eTag, item.Size);
      }
      token = page.NextContinuationToken;
    } while (token !== undefined);
    this.pump();
  }

  /** Starts handler calls while there is room and visible work; wakes again for delayed records. */
  private pump(): void {
    if (this.closed) return;
    const limit = this.options.concurrency ?? 2;
    while (this.inFlight < limit) {
      const now = Date.now();
      // A batch is of one kind: the first visible message's.
      const first = this.queue.find((m) => m.visibleAt <= now);
      if (first === undefined) break;
      const size =
        first.kind === "ingest" ? (this.options.batchSize ?? 10) : (this.options.reprocessBatchSize ?? 10);
      const batch = this.queue.filter((m) => m.visibleAt <= now && m.kind === first.kind).slice(0, size);
      for (const message of batch) {
        message.visibleAt = Number.POSITIVE_INFINITY;
        message.receives++;
      }
      this.inFlight++;
      (first.kind === "ingest" ? this.invoke(batch) : this.invokeReprocess(batch)).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
    const next = Math.min(...this.queue.map((m) => m.visibleAt));
    if (this.timer) clearTimeout(this.timer);
    this.timer = Number.isFinite(next) ? setTimeout(() => this.pump(), Math.max(0, next - Date.now())) : null;
    if (this.isIdle()) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async invoke(batch: Message[]): Promise<void> {
    let failed: Set<string>;
    try {
      const event = sqsEvent(batch.map((m) => sqsRecord(m.body, m.id, m.receives)));
      const response = await this.handler(event, lambdaContext());
      failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    } catch {
      // A handler that throws fails the whole batch, as on Lambda.
      failed = new Set(batch.map((m) => m.id));
    }
    for (const message of batch) {
      if (!failed.has(message.id)) {
        this.queue.splice(this.queue.indexOf(message), 1);
        const record = await this.recordOf(message.key).catch(() => null);
        if (record !== null) this.options.onOutcome?.({ type: "verdict", key: message.key, record });
      } else if (message.receives >= (this.options.maxReceives ?? 3)) {
        this.queue.splice(this.queue.indexOf(message), 1);
        const path = await this.deadLetter(message);
        this.options.onOutcome?.({ type: "dead-letter", key: message.key, receives: message.receives, path });
      } else {
        message.visibleAt = Date.now() + (this.options.retryDelayMs ?? 1000);
        this.options.onOutcome?.({ type: "retry", key: message.key, receives: message.receives });
      }
    }
  }

  /**
   * A batch of reprocess items through the reprocess handler; an item that failed comes back after
   * the visibility delay and, after `maxReceives` receives, ends failed in its execution's results
   * (as a Distributed Map reports an item past its retries).
   */
  private async invokeReprocess(batch: Message[]): Promise<void> {
    let outcomes: ReprocessOutcome[];
    try {
      outcomes = await this.reprocess(batch.map((m) => JSON.parse(m.body) as unknown));
    } catch (error) {
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    for (const [i, message] of batch.entries()) {
      const outcome = outcomes[i] ?? { ok: false, error: new Error("no outcome") };
      if (!outcome.ok && message.receives < (this.options.maxReceives ?? 3)) {
        message.visibleAt = Date.now() + (this.options.retryDelayMs ?? 1000);
        const key = (JSON.parse(message.body) as { item: { key: string } }).item.key;
        this.options.onOutcome?.({ type: "retry", key, receives: message.receives, error: outcome.error });
        continue;
      }
      this.queue.splice(this.queue.indexOf(message), 1);
      await this.runs
        .ended(message.key, message.body, outcome)
        .catch((error: unknown) =>
          process.stderr.write(`local stack: reprocess ${message.key}: ${String(error)}\n`),
        );
    }
  }

  private async deadLetter(message: Message): Promise<string> {
    const dir = join(this.options.root, "dlq");
    await mkdir(dir, { recursive: true });
    const { id, key, body, receives } = message;
    const path = join(dir, `${id}.json`);
    await writeFile(path, `${JSON.stringify({ id, key, receives, body }, null, 2)}\n`);
    return path;
  }
}
