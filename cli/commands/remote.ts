/**
 * The commands that talk to a running pipeline (local stack or AWS): `push` (upload, and with
 * `--wait` the verdicts, for CI), `sessions`, `show`, `pull`. Every read names its tenant and reads
 * only that tenant's partitions: no command lists or reads across tenants.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  type Envelope,
  attestationKey as loadAttestationKey,
  parseStatement,
  unverifiedStatement,
  verifyEnvelope,
} from "../../shared/attest/index.js";
import { ReplayPipelineError, TransientError } from "../../shared/errors.js";
import type { InspectReport, Verdict } from "../../shared/formats/index.js";
import type {
  CatalogueShard,
  FileRecord,
  ReceiptCheckRecord,
  VerdictDocument,
} from "../../shared/pipeline/index.js";
import {
  attestationKey,
  catalogueShardKeys,
  catalogueShardOf,
  parseObjectKey,
  rejectedPlace,
  scrubbedKey,
  settlementOf,
} from "../../shared/pipeline/index.js";
import { intOption, parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { outputError, readInput, toInputError, writeOut } from "../io.js";
import {
  emitVerdicts,
  FORMAT_OPTIONS,
  type Format,
  formatOption,
  isQuiet,
  jsonLine,
  pushView,
  type VerdictView,
} from "../output/index.js";
import { checkName, connect, TARGET_HELP, TARGET_OPTIONS, type Target } from "../remote.js";
import { exitCodeOf } from "./inspect.js";

/** Help text of `push`. */
export const PUSH_HELP = `Usage: replay-pipeline push <files...> --tenant T --session S [--wait] [options]

Uploads each file to the ingest bucket as T/S/<file name>. With --wait, waits for each file's
verdict in the index (consistent reads) and exits with the worst verdict over the files and the
session's receipt checks of them: 0 passed, 1 failed or invalid, 3 unverifiable, 2 usage or timeout.

Options:
  --tenant T           tenant (required)
  --session S          session (required)
  --wait               wait for the verdicts
  --timeout S          seconds to wait (default 300)
  --attest DIR         save the pipeline's attestation of each replay's verdict (an in-toto
                       Statement with the SLSA VSA predicate) as DIR/<file name>.intoto.json
  --json               one index record per line (with tool_version, schema_version)
  --format F           text (default), json, github (annotations + job summary), junit
${TARGET_HELP}`;

/** Help text of `sessions`. */
export const SESSIONS_HELP = `Usage: replay-pipeline sessions --tenant T [--since YYYY-MM-DD] [--status S] [options]

Lists the tenant's sessions with files processed since a day (UTC, default 7 days ago): files,
worst verdict, last processed. --status keeps sessions whose worst verdict is S.

${TARGET_HELP}`;

/** Help text of `show`. */
export const SHOW_HELP = `Usage: replay-pipeline show <tenant>/<session> [--json] [options]

The session's files (verdict, format, bytes, Layer C key), and its receipt checks.

${TARGET_HELP}`;

/** Help text of `pull`. */
export const PULL_HELP = `Usage: replay-pipeline pull <tenant>/<session>/<file> [-o OUT] [--verify [--key KEY]] [options]

Writes the published Layer C copy of the file (never the original) to OUT or standard output.
Exit 1 when the file has no published copy.

With --verify, checks the copy against the tenant's catalogue (the manifest of the copy's shard,
<tenant>/_catalogue/shards/<xx>.json in the published bucket: listed, not withdrawn, the sha256 of
the bytes pulled) and the entry
against the pipeline's attestation (results/<key>.intoto.json: its subject is the file, its digest
the entry's replay_hash; with --key, its signature too, as verify-attestation checks it). Exit 1,
naming what differs, when any of it does not match (OUT is then removed); 0 when all of it does.

${TARGET_HELP}`;

const rank: Record<Verdict, number> = { passed: 0, unverifiable: 1, failed: 2, invalid: 3 };

/** The worse verdict. */
function worst(a: Verdict, b: Verdict): Verdict {
  return rank[b] > rank[a] ? b : a;
}

async function withTarget<T>(
  command: string,
  values: Parameters<typeof connect>[1],
  run: (t: Target) => Promise<T>,
  needs?: Parameters<typeof connect>[2],
) {
  const t = await connect(command, values, needs);
  try {
    return await run(t);
  } finally {
    t.close();
  }
}

/** `push`: uploads files, and with `--wait` exits with their worst verdict. */
export async function pushCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("push", argv, {
    ...TARGET_OPTIONS,
    tenant: { type: "string" },
    session: { type: "string" },
    wait: { type: "boolean" },
    timeout: { type: "string" },
    attest: { type: "string" },
    ...FORMAT_OPTIONS,
  });
  if (values.help === true) return help(PUSH_HELP);
  const tenant = checkName("push", "tenant", values.tenant);
  const session = checkName("push", "session", values.session);
  const timeout = (intOption("push", "timeout", values.timeout) ?? 300) * 1000;
  const format = formatOption("push", values);
  if (values.attest !== undefined && values.wait !== true)
    throw new UsageError(
      "push: --attest DIR saves the pipeline's attestations of the verdicts; give --wait too",
    );
  await checkPushFiles(tenant, session, positionals);
  return withTarget(
    "push",
    values,
    async (t) => {
      const outcome = await pushFiles(t, {
        tenant,
        session,
        paths: positionals,
        wait: values.wait === true,
        timeout,
        attest: values.attest,
        // Annotations and test cases need the rows, which only the verdict documents hold.
        withReports: format === "github" || format === "junit",
        onUploaded: async (key) => {
          if (format === "text" && !isQuiet()) await writeOut(`pushed s3://${t.ingestBucket}/${key}\n`);
        },
      });
      if (outcome.verdict === null) return 0;
      await emitPush(format, { ...outcome, verdict: outcome.verdict });
      return exitCodeOf(outcome.verdict);
    },
    PUSH_NEEDS,
  );
}

/** What `push` was asked: the files, where to, whether to wait, where to save attestations. */
interface PushRequest {
  tenant: string;
  session: string;
  paths: readonly string[];
  wait: boolean;
  /** Milliseconds to wait for the verdicts. */
  timeout: number;
  /** The folder for the attestations (needs `wait`). */
  attest?: string | undefined;
  /** Fetch each replay's verdict document so the views hold its rows and located errors. */
  withReports: boolean;
  onUploaded?: (key: string) => Promise<void>;
}

/** What `push` found: with `wait`, the files' records and views and the worst verdict; else `verdict` null. */
interface PushOutcome {
  title: string;
  verdict: Verdict | null;
  records: FileRecord[];
  checks: ReceiptCheckRecord[];
  views: VerdictView[];
  /** The attestation files written, in the order of the files. */
  attestations: string[];
}

/** The names of the pipeline `push` needs (not the published bucket, which it never reads). */
export const PUSH_NEEDS = ["ingestBucket", "reportsBucket", "tableName"] as const;

/**
 * Checks the files before anything is uploaded: each exists, no two share a name (they would be
 * one key, the second overwriting the first), and no key holds text the pipeline would redact
 * (it would reject the key, and `--wait` wait for it in vain).
 */
export async function checkPushFiles(tenant: string, session: string, paths: readonly string[]) {
  if (paths.length === 0) throw new UsageError("push: expected at least one file");
  const names = new Map<string, number>();
  for (const [n, path] of paths.entries()) {
    await stat(path).catch((error: unknown) => Promise.reject(toInputError(path, error)));
    const key = `${tenant}/${session}/${basename(path)}`;
    if (scrubbedKey(key) !== key)
      throw new UsageError(
        `push: the key of file ${n + 1} holds text the scrubber redacts (a secret or personal data); rename the file or choose other names`,
      );
    const first = names.get(basename(path));
    if (first !== undefined)
      throw new UsageError(
        `push: files ${first + 1} and ${n + 1} are both named '${basename(path)}' and would be one key; push them in two sessions`,
      );
    names.set(basename(path), n);
  }
}

/**
 * Uploads each file as `tenant/session/<file name>`; with `wait`, waits for the verdicts, saves
 * the attestations and builds each file's view (its diagnostics named by the path as given).
 */
export async function pushFiles(t: Target, request: PushRequest): Promise<PushOutcome> {
  const { tenant, session } = request;
  const title = `replay-pipeline push ${tenant}/${session}`;
  const pushed: { key: string; etag: string; path: string }[] = [];
  for (const path of request.paths) {
    const key = `${tenant}/${session}/${basename(path)}`;
    const upload = new Upload({
      client: t.s3,
      params: { Bucket: t.ingestBucket, Key: key, Body: createReadStream(path) },
    });
    const out = await upload.done();
    pushed.push({ key, etag: (out.ETag ?? "").replaceAll('"', ""), path });
    await request.onUploaded?.(key);
  }
  if (!request.wait) return { title, verdict: null, records: [], checks: [], views: [], attestations: [] };
  const { records, checks } = await waitSettled(t, tenant, session, pushed, request.timeout);
  let verdict: Verdict = "passed";
  for (const r of records) verdict = worst(verdict, r.verdict);
  for (const c of checks) verdict = worst(verdict, c.verdict);
  const attestations =
    request.attest === undefined ? [] : await saveAttestations(t, request.attest, records, pushed);
  const reports = request.withReports
    ? await Promise.all(records.map((r) => verdictReport(t, r)))
    : records.map(() => null);
  const views = records.map((r, i) => pushView(pushed[i]?.path ?? r.ref.key, r, checks, reports[i] ?? null));
  return { title, verdict, records, checks, views, attestations };
}

/** Writes the outcome of `push --wait` in `format` (github: annotations and the job summary). */
export async function emitPush(format: Format, outcome: PushOutcome & { verdict: Verdict }): Promise<void> {
  const { records, checks, verdict } = outcome;
  await emitVerdicts(format, {
    title: outcome.title,
    views: outcome.views,
    json: records,
    text: () =>
      [
        ...records.map((r) => `${describeRecord(r)}\n`),
        ...checks.map(
          (c) =>
            `  receipt check ${c.replay.key} against ${c.receipt.key}: ${c.verdict.toUpperCase()}${c.withdrawn === null ? "" : `, copy ${c.withdrawn} withdrawn`}\n`,
        ),
        `worst verdict: ${verdict}\n`,
      ].join(""),
  });
}

/** Where the record of `key` is when the pipeline rejects it; null for a key it takes. */
function rejectedRecordPlace(key: string): { tenant: string; session: string } | null {
  if (parseObjectKey(key).ok) return null;
  const digest = createHash("sha256").update(key, "utf8").digest("hex");
  return rejectedPlace(key, key, digest).key;
}

/**
 * Waits until each pushed file has its record (of the version pushed) and the session has settled
 * (`settlementOf`: every replay checked against every receipt); the pushed files' records then and
 * the session's current checks that involve them. Past `timeout` ms, a transient `io.timeout`
 * naming how far it got.
 */
async function waitSettled(
  t: Target,
  tenant: string,
  session: string,
  pushed: readonly { key: string; etag: string }[],
  timeout: number,
): Promise<{ records: FileRecord[]; checks: ReceiptCheckRecord[] }> {
  const deadline = Date.now() + timeout;
  const keys = new Set(pushed.map((p) => p.key));
  const isVersion = (r: FileRecord | null | undefined, etag: string): r is FileRecord =>
    r !== null && r !== undefined && (r.ref.etag === etag || etag === "");
  for (let pause = 250; ; pause = Math.min(2000, pause * 2)) {
    const files = await t.index.listFiles(tenant, session);
    const records: (FileRecord | undefined)[] = [];
    for (const { key, etag } of pushed) {
      // A key the pipeline rejects (a name it refuses) is filed where `rejectedPlace` says.
      const rejected = rejectedRecordPlace(key);
      const record =
        rejected === null
          ? files.find((r) => r.ref.key === key && isVersion(r, etag))
          : await t.index.getFile(rejected.tenant, rejected.session, key);
      records.push(isVersion(record, etag) ? record : undefined);
    }
    const missing = pushed.filter((_, k) => records[k] === undefined).map((p) => p.key);
    const settlement =
      missing.length === 0 ? settlementOf(files, await t.index.listChecks(tenant, session)) : null;
    if (settlement?.settled === true)
      return {
        records: records as FileRecord[],
        checks: settlement.current.filter((c) => keys.has(c.replay.key) || keys.has(c.receipt.key)),
      };
    if (Date.now() > deadline)
      throw new TransientError(
        "io.timeout",
        settlement === null
          ? `timed out after ${timeout / 1000} s waiting for its verdict`
          : `timed out after ${timeout / 1000} s waiting for the session to settle: ${settlement.recorded} of ${settlement.expected} receipt checks recorded`,
        { file: missing[0] ?? `${tenant}/${session}` },
      );
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** The inspect report in a file's verdict document (reports bucket), null for a receipt or rejected key. */
async function verdictReport(t: Target, record: FileRecord): Promise<InspectReport | null> {
  if (record.kind !== "replay") return null;
  const out = await t.s3.send(new GetObjectCommand({ Bucket: t.reportsBucket, Key: record.verdict_key }));
  const document = JSON.parse(
    (await out.Body?.transformToString("utf8")) ?? "null",
  ) as VerdictDocument | null;
  return document?.report ?? null;
}

/**
 * Downloads the attestation the pipeline stored beside each replay's verdict document
 * (`results/<key>.intoto.json` in the reports bucket) to `<dir>/<file name>.intoto.json`.
 */
async function saveAttestations(
  t: Target,
  dir: string,
  records: FileRecord[],
  pushed: { key: string; path: string }[],
): Promise<string[]> {
  const saved: string[] = [];
  await mkdir(dir, { recursive: true }).catch((error: unknown) => Promise.reject(outputError(dir, error)));
  for (const [i, record] of records.entries()) {
    if (record.kind !== "replay") continue;
    const key = attestationKey(record.verdict_key);
    const out = await t.s3.send(new GetObjectCommand({ Bucket: t.reportsBucket, Key: key }));
    const target = join(dir, `${basename(pushed[i]?.path ?? record.file)}.intoto.json`);
    await writeFile(target, (await out.Body?.transformToString("utf8")) ?? "").catch((error: unknown) =>
      Promise.reject(outputError(target, error)),
    );
    saved.push(target);
  }
  return saved;
}

function describeRecord(r: FileRecord): string {
  const what = [r.kind, r.format].filter((x) => x !== null).join(", ");
  const copy = r.layer_c_key === null ? "not published" : `Layer C ${r.layer_c_key}`;
  const why = r.first_error === null ? "" : `; ${r.first_error.code}: ${r.first_error.message}`;
  // Which rules made the verdict: what `reprocess --stale` compares.
  const rules =
    r.provenance === undefined
      ? "; rules: not recorded"
      : `; made by ${r.provenance.tool_version}, rules ${r.provenance.rules_digest.slice(0, 19)}`;
  return `${r.ref.key}: ${r.verdict.toUpperCase()} (${what}, ${r.bytes} bytes; ${copy}${why}${rules})`;
}

/** `sessions`: a tenant's sessions from the day index. */
export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("sessions", argv, {
    ...TARGET_OPTIONS,
    tenant: { type: "string" },
    since: { type: "string" },
    status: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help === true) return help(SESSIONS_HELP);
  if (positionals.length > 0) throw new UsageError(`sessions: unexpected argument '${positionals[0]}'`);
  const tenant = checkName("sessions", "tenant", values.tenant);
  const since = values.since ?? new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since)))
    throw new UsageError(`sessions: --since '${since}' is not a day; expected YYYY-MM-DD`);
  if (values.status !== undefined && !(values.status in rank))
    throw new UsageError(
      `sessions: --status '${values.status}'; expected passed, failed, unverifiable or invalid`,
    );
  return withTarget("sessions", values, async (t) => {
    const sessions = new Map<string, { files: number; verdict: Verdict; last: string }>();
    const shards = Number(process.env.INDEX_SHARDS ?? 8);
    for (let day = Date.parse(since); day <= Date.now(); day += 86_400_000) {
      const date = new Date(day).toISOString().slice(0, 10);
      for (let shard = 0; shard < shards; shard++) {
        let cursor: string | null = null;
        do {
          const page = await t.index.queryDay(tenant, date, shard, cursor);
          for (const r of page.records) {
            const s = sessions.get(r.session) ?? { files: 0, verdict: "passed" as Verdict, last: "" };
            s.files++;
            s.verdict = worst(s.verdict, r.verdict);
            if (r.processed_at > s.last) s.last = r.processed_at;
            sessions.set(r.session, s);
          }
          cursor = page.cursor;
        } while (cursor !== null);
      }
    }
    const rows = [...sessions.entries()]
      .filter(([, s]) => values.status === undefined || s.verdict === values.status)
      .sort(([, a], [, b]) => (a.last < b.last ? 1 : -1));
    for (const [session, s] of rows)
      await writeOut(
        values.json === true
          ? jsonLine({ tenant, session, ...s })
          : `${session}  ${s.verdict.toUpperCase()}  ${s.files} file(s)  last ${s.last}\n`,
      );
    if (values.json !== true && rows.length === 0)
      await writeOut(`no sessions for ${tenant} since ${since}\n`);
    return 0;
  });
}

function splitKey(command: string, given: string | undefined, parts: number): string[] {
  const split = given?.split("/") ?? [];
  if (split.length !== parts)
    throw new UsageError(
      `${command}: expected ${parts === 2 ? "<tenant>/<session>" : "<tenant>/<session>/<file>"}`,
    );
  checkName(command, "tenant", split[0]);
  checkName(command, "session", split[1]);
  return split;
}

/** `show`: one session's files and receipt checks. */
export async function showCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("show", argv, {
    ...TARGET_OPTIONS,
    json: { type: "boolean" },
  });
  if (values.help === true) return help(SHOW_HELP);
  const [tenant, session] = splitKey("show", positionals[0], 2) as [string, string];
  return withTarget("show", values, async (t) => {
    const files = await t.index.listFiles(tenant, session);
    const checks = await t.index.listChecks(tenant, session);
    if (values.json === true) {
      await writeOut(jsonLine({ tenant, session, files, checks }));
    } else {
      await writeOut(`${tenant}/${session}: ${files.length} file(s), ${checks.length} receipt check(s)\n`);
      for (const f of files) await writeOut(`  ${describeRecord(f)}\n`);
      for (const c of checks)
        await writeOut(
          `  receipt check ${c.replay.key} against ${c.receipt.key}: ${c.verdict.toUpperCase()} (${c.checks_total.passed} passed, ${c.checks_total.failed} failed, ${c.checks_total.unverifiable} unverifiable)${c.withdrawn === null ? "" : `; copy ${c.withdrawn} withdrawn`}\n`,
        );
    }
    return files.length === 0 ? 1 : 0;
  });
}

/** `pull`: the published Layer C copy of one file. */
export async function pullCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("pull", argv, {
    ...TARGET_OPTIONS,
    out: { type: "string", short: "o" },
    verify: { type: "boolean" },
    key: { type: "string" },
  });
  if (values.help === true) return help(PULL_HELP);
  const [tenant, session] = splitKey("pull", positionals[0], 3) as [string, string, string];
  const key = positionals[0] as string;
  if (values.key !== undefined && values.verify !== true)
    throw new UsageError("pull: --key checks the attestation's signature; give --verify too");
  return withTarget("pull", values, async (t) => {
    const record = await t.index.getFile(tenant, session, key);
    if (record?.layer_c_key == null) {
      process.stderr.write(`replay-pipeline: pull: ${key} has no published copy\n`);
      return 1;
    }
    const copyKey = record.layer_c_key;
    const out = await t.s3.send(new GetObjectCommand({ Bucket: t.publishedBucket, Key: copyKey }));
    // The copy may be of any size: streamed through, never held whole, its sha256 taken on the way.
    const body = out.Body as Readable | undefined;
    if (body === undefined) throw new Error(`pull: GetObject ${copyKey} returned no body`);
    const hash = createHash("sha256");
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const toStdout = values.out === undefined || values.out === "-";
    try {
      if (toStdout) await pipeline(body, hashing, process.stdout, { end: false });
      else await pipeline(body, hashing, createWriteStream(values.out as string));
    } catch (error) {
      // No partial copy is left behind to pass for the whole one.
      if (!toStdout) await rm(values.out as string, { force: true });
      throw error;
    }
    if (values.verify !== true) return 0;
    const problem = await verifyPulled(t, key, copyKey, hash.digest("hex"), values.key);
    if (problem === null) {
      if (!isQuiet())
        process.stderr.write(
          `replay-pipeline: pull: ${copyKey} verified against the catalogue and its attestation\n`,
        );
      return 0;
    }
    // A copy that does not check out is not left to pass for one that does.
    if (!toStdout) await rm(values.out as string, { force: true });
    process.stderr.write(`replay-pipeline: pull: ${copyKey} does not verify: ${problem}\n`);
    return 1;
  });
}

/** The JSON text of `key` in `bucket`; null when there is none. */
async function getText(t: Target, bucket: string, key: string): Promise<string | null> {
  try {
    const out = await t.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await out.Body?.transformToString("utf8")) ?? "";
  } catch (error) {
    if ((error as Error).name === "NoSuchKey") return null;
    throw error;
  }
}

/**
 * What is wrong with a pulled copy (`digest`: the sha256 of the bytes pulled) of the original
 * `original`, or null when its catalogue entry and the attestation agree with it.
 */
async function verifyPulled(
  t: Target,
  original: string,
  copyKey: string,
  digest: string,
  keyFile: string | undefined,
): Promise<string | null> {
  const tenant = copyKey.slice(0, copyKey.indexOf("/"));
  const manifestKey = catalogueShardKeys(tenant, catalogueShardOf(copyKey)).manifest;
  const text = await getText(t, t.publishedBucket, manifestKey);
  if (text === null) return `the catalogue ${manifestKey} is missing`;
  const entry = (JSON.parse(text) as CatalogueShard).copies?.find((c) => c.key === copyKey);
  if (entry === undefined) return `the catalogue ${manifestKey} does not list it`;
  if (entry.withdrawn_at !== null) return `the catalogue lists it as withdrawn at ${entry.withdrawn_at}`;
  if (entry.sha256 !== digest)
    return `the bytes pulled have sha256 ${digest}; the catalogue lists ${String(entry.sha256)}`;
  if (entry.attestation === null) return "the catalogue names no attestation for it";
  const attestation = await getText(t, t.reportsBucket, entry.attestation);
  if (attestation === null) return `its attestation ${entry.attestation} is missing`;
  let subject: { name: string; digest: Record<string, string> } | undefined;
  try {
    const value = JSON.parse(attestation) as Partial<Envelope>;
    const enveloped = typeof value.payloadType === "string" && typeof value.payload === "string";
    const signed = enveloped && (value.signatures ?? []).length > 0;
    if (keyFile !== undefined && !signed)
      return `its attestation ${entry.attestation} is unsigned, but --key asks for a signature`;
    const statement =
      keyFile !== undefined
        ? verifyEnvelope(value as Envelope, loadAttestationKey(await readInput(keyFile), "verify"))
        : enveloped
          ? unverifiedStatement(value as Envelope)
          : parseStatement(value);
    subject = statement.subject[0];
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof ReplayPipelineError)
      return `its attestation ${entry.attestation} does not check out: ${error.message}`;
    throw error;
  }
  if (subject?.name !== original) return `its attestation is about ${String(subject?.name)}, not ${original}`;
  // replay_hash is `sha256:<hex>`; a subject's digest set holds the bare hex.
  if (`sha256:${subject.digest.sha256}` !== entry.replay_hash)
    return `its attestation's subject digest is ${String(subject.digest.sha256)}; the catalogue lists replay_hash ${String(entry.replay_hash)}`;
  return null;
}

async function help(text: string): Promise<number> {
  await writeOut(`${text}\n`);
  return 0;
}
