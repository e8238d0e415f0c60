/**
 * Reprocess on the local stack, through its queue: 1,000 small replays of tenant `acme` (every
 * tenth holding a token of a new shape, `acmetok-NNNN-NNNN`, which the built-in rules leave) and
 * 20 files of tenant `beta` (half ReplayKit `.rpk` without a signature) ingested under the
 * built-in rules. The stack is restarted with a test rule pack that adds a secret rule for the new
 * token shape; `reprocess --stale` is killed midway (the stack stopped under it) and resumed by its
 * run id: every file replaced exactly once, the token files' copies re-published redacting it, the
 * others' copies untouched (same bytes, not written again) with the same verdicts. Then a rule
 * pack that requires a ReplayKit signature: the `.rpk` files now fail, their copies withdrawn,
 * and the records and catalogue say so. `REPROCESS_FILES` sets the count.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { type ReprocessHooks, reprocessCommand } from "../../cli/commands/reprocess.js";
import { LocalStack, type StackOutcome } from "../../cli/local/stack.js";
import { catalogueManifestKey, catalogueShardKeys } from "../../shared/pipeline/catalogue.js";
import type {
  CatalogueManifest,
  CatalogueShard,
  ManifestRow,
} from "../../shared/pipeline/catalogue-types.js";
import type { RulePack } from "../../shared/pipeline/job-types.js";
import type { FileRecord } from "../../shared/pipeline/ports.js";
import { rulesDigest } from "../../shared/pipeline/provenance.js";
import type { ReprocessReport } from "../../shared/pipeline/reprocess.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { objectExists } from "../support/s3-objects.js";
import { tempDir } from "../support/temp.js";

const FIX_AUTH = await readFile(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8");
const RPK = await readFile(join(PROJECT_ROOT, "examples", "summarize.rpk"));
const FILES = Number(process.env.REPROCESS_FILES ?? 1000);
/** Run A is killed after about this many files. */
const STOP_AT = Math.floor(FILES * 0.3);
const BETA_FILES = 20;

/** A token of a producer's new shape: no built-in rule knows it. */
const token = (i: number) =>
  `acmetok-${String(4000 + i).padStart(4, "0")}-${String(9000 - i).padStart(4, "0")}`;
/** In sessions s-3 and s-13: some before the kill (the manifest is in key order), some after. */
const hasToken = (i: number) => i % 10 === 3;
const replayOf = (i: number) =>
  hasToken(i)
    ? FIX_AUTH.replace(
        '"commands":["cargo test -p auth"]',
        `"commands":["cargo test -p auth && ./notify ${token(i)}"]`,
      )
    : FIX_AUTH;
const keyOf = (i: number) => `acme/s-${i % 20}/r${String(i).padStart(4, "0")}.REPLAY.jsonl`;
const isRpk = (i: number) => i % 2 === 0;
const betaKeyOf = (i: number) =>
  `beta/s-1/f${String(i).padStart(2, "0")}.${isRpk(i) ? "rpk" : "REPLAY.jsonl"}`;

/** The new secret rule: the token shape, as a rule pack adds it. */
const TOKEN_RULE = { id: "acme-token", pattern: "acmetok-[0-9]{4}-[0-9]{4}", needles: ["acmetok-"] };
const WITH_TOKEN_RULE: RulePack = { packRules: [TOKEN_RULE] };
/** Then a signature required (a deployment's HMAC key): unsigned `.rpk` files now fail. */
const SIGNATURE_REQUIRED: RulePack = {
  packRules: [TOKEN_RULE],
  hmacKey: Buffer.from("test-signing-key"),
  rulesDigest: `sha256:${"2".repeat(64)}`,
};

/** Runs `reprocess` with `args --json` in this process; its exit code and report. */
async function reprocess(args: string[], hooks: ReprocessHooks = {}) {
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const code = await reprocessCommand([...args, "--json"], hooks);
    return { code, report: JSON.parse(out.join("")) as ReprocessReport & { items?: unknown[] } };
  } finally {
    write.mockRestore();
    stderr.mockRestore();
  }
}

async function mapLimit<T>(n: number, limit: number, f: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await f(i);
      }
    }),
  );
  return out;
}

describe("reprocess on the local stack", () => {
  it(`${FILES} files: a new secret rule re-runs them through the stack's queue, killed and resumed, each once; only copies with the token change; then a rule that fails .rpk files withdraws their copies`, {
    timeout: 600_000,
  }, async () => {
    const root = tempDir("reprocess-");
    const cpu0 = process.cpuUsage();
    let stack = await LocalStack.start({ root, s3Port: 0, dynamoPort: 0, concurrency: 4 });
    let running = true;
    // The stack's data (some 10,000 small files) goes within the test's time, not a hook's ten seconds.
    onTestFinished(async () => {
      if (running) await stack.close();
      await rm(root, { recursive: true, force: true });
    }, 120_000);
    const retries: string[] = [];
    const onOutcome = (o: StackOutcome) => {
      if (o.type === "retry") retries.push(`${o.key}: ${String(o.error)}`);
    };
    const start = async (rules: RulePack) => {
      stack = await LocalStack.start({ root, s3Port: 0, dynamoPort: 0, concurrency: 4, rules, onOutcome });
      running = true;
    };
    const stop = async () => {
      running = false;
      await stack.close();
    };
    const restart = async (rules: RulePack) => {
      await stop();
      await start(rules);
    };
    const put = (Key: string, Body: string | Buffer) =>
      stack.s3.send(new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key, Body }));
    const t0 = Date.now();
    await mapLimit(FILES, 16, (i) => put(keyOf(i), replayOf(i)));
    await mapLimit(BETA_FILES, 16, (i) => put(betaKeyOf(i), isRpk(i) ? RPK : FIX_AUTH));
    await stack.settled();
    const ingestMs = Date.now() - t0;

    const recordOf = async (key: string) => (await stack.recordOf(key)) as FileRecord;
    const records = (keys: string[]) => mapLimit(keys.length, 16, (i) => recordOf(keys[i] as string));
    /** A copy's bytes and when it was written (a copy written again has a later time). */
    const copyOf = async (record: FileRecord) => {
      const Key = record.layer_c_key as string;
      const out = await stack.s3.send(new GetObjectCommand({ Bucket: stack.info.publishedBucket, Key }));
      return { text: await out.Body?.transformToString("utf8"), modified: out.LastModified?.getTime() };
    };
    const copyGone = async (key: string) => !(await objectExists(stack.s3, stack.info.publishedBucket, key));
    const json = async <T>(Key: string): Promise<T> => {
      const out = await stack.s3.send(new GetObjectCommand({ Bucket: stack.info.publishedBucket, Key }));
      return JSON.parse((await out.Body?.transformToString("utf8")) ?? "null") as T;
    };
    // Every copy row of the tenant's catalogue: its manifest lists the shards, each shard its copies.
    const catalogue = async (tenant: string) => {
      const manifest = await json<CatalogueManifest>(catalogueManifestKey(tenant));
      const rows = new Map<string, ManifestRow>();
      for (const { shard } of manifest.shards) {
        const { copies } = await json<CatalogueShard>(catalogueShardKeys(tenant, shard).manifest);
        for (const row of copies) rows.set(row.key, row);
      }
      return rows;
    };

    const acmeKeys = Array.from({ length: FILES }, (_, i) => keyOf(i));
    const before = await records(acmeKeys);
    const builtIn = rulesDigest("private_repo");
    expect(before.every((r) => r.provenance?.rules_digest === builtIn && r.layer_c_key !== null)).toBe(true);
    // The built-in rules leave the new token shape in the copies.
    const sampled = acmeKeys.map((_, i) => i).filter((i) => hasToken(i) || i % 10 === 1);
    const copiesBefore = new Map(
      await mapLimit(sampled.length, 16, async (j) => {
        const i = sampled[j] as number;
        return [i, await copyOf(before[i] as FileRecord)] as const;
      }),
    );
    expect(copiesBefore.get(3)?.text).toContain(token(3));
    const catalogueBefore = await catalogue("acme");
    expect(catalogueBefore.size).toBe(FILES);

    // The rule changes: the stack runs the pack (its stack.json names the pack's digest).
    await restart(WITH_TOKEN_RULE);
    const packDigest = rulesDigest("private_repo", [TOKEN_RULE]);
    expect(stack.info.rulesDigest).toBe(packDigest);
    const target = ["--local-dir", root, "--since", new Date().toISOString().slice(0, 10)];
    const dry = await reprocess([...target, "--tenant", "acme", "--stale", "--dry-run"]);
    expect(dry.report.selected).toBe(FILES);
    expect(dry.report.rules_digest).toBe(packDigest);

    // Run A, killed: the stack stops under it once the manifest's file STOP_AT (in key order) is
    // through; those in flight finish, the queued rest is lost with the stack.
    const t1 = Date.now();
    const stopKey = [...acmeKeys].sort()[STOP_AT] as string;
    let killed = false;
    const watch = setInterval(async () => {
      if (!killed && (await recordOf(stopKey).catch(() => null))?.reprocess_run === "run-a") {
        killed = true;
        await stop();
      }
    }, 50);
    await expect(
      reprocess([...target, "--tenant", "acme", "--stale", "--run-id", "run-a"]).finally(() =>
        clearInterval(watch),
      ),
    ).rejects.toThrow(/the local stack stopped during run run-a/);
    expect(killed).toBe(true);
    await start(WITH_TOKEN_RULE);
    const afterKill = await records(acmeKeys);
    const done = afterKill.filter((r) => r.reprocess_run === "run-a").length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(FILES);

    // A new selection of stale records now finds exactly those run A has not reached.
    const between = await reprocess([...target, "--tenant", "acme", "--stale", "--dry-run"]);
    expect(between.report.selected).toBe(FILES - done);

    // Run A resumed: its manifest read back; what it finished is skipped, the rest done once.
    const second = await reprocess([...target, "--tenant", "acme", "--stale", "--run-id", "run-a"]);
    const runMs = Date.now() - t1;
    expect(second.code).toBe(0);
    // Each file is replaced once per run id: what run A finished before the kill is "already
    // done", the rest are replaced now. The queue delivers at least once (a batch tried again
    // after a fault reports what its first try replaced as already done too), so the two add up.
    expect(second.report).toMatchObject({
      selected: FILES,
      superseded: 0,
      remaining: 0,
      failed: [],
      verdicts_changed: [],
    });
    expect(second.report.processed + second.report.already_done).toBe(FILES);
    expect(second.report.already_done).toBeGreaterThanOrEqual(done);
    // Re-published, each once the old copy was withdrawn (it redacted less): only token files the
    // resumed run did; every other copy was kept.
    const tokenLeft = acmeKeys.filter((_, i) => hasToken(i) && afterKill[i]?.reprocess_run !== "run-a");
    expect(tokenLeft.length).toBeGreaterThan(0);
    const withdrawn = second.report.withdrawn.map((w) => w.key);
    expect(withdrawn.every((k) => tokenLeft.includes(k))).toBe(true);
    expect(second.report.republished).toBe(withdrawn.length);
    expect(withdrawn.length + second.report.already_done - done).toBeGreaterThanOrEqual(tokenLeft.length);
    expect(second.report.withdrawn.every((w) => w.reason === "redacts-more")).toBe(true);

    const after = await records(acmeKeys);
    for (const [i, r] of after.entries()) {
      // Nothing lost: every record replaced by run A, under the pack's rules, its verdict the same.
      expect(r.reprocess_run).toBe("run-a");
      expect(r.provenance?.rules_digest).toBe(packDigest);
      expect(r.verdict).toBe(before[i]?.verdict);
      expect((r.redactions?.["acme-token"] ?? 0) > 0).toBe(hasToken(i));
    }
    const catalogueAfter = await catalogue("acme");
    for (const i of sampled) {
      const copy = await copyOf(after[i] as FileRecord);
      const was = copiesBefore.get(i);
      const row = catalogueAfter.get(keyOf(i).replace(/\.jsonl$/, ".layer-c.jsonl"));
      const rowBefore = catalogueBefore.get(keyOf(i).replace(/\.jsonl$/, ".layer-c.jsonl"));
      if (hasToken(i)) {
        expect(copy.text).not.toContain(token(i));
        expect(copy.text).toContain("[REDACTED:acme-token");
        expect(row?.sha256).not.toBe(rowBefore?.sha256);
      } else {
        // Untouched: the same bytes, never written again; its catalogue row the same.
        expect(copy).toEqual(was);
        expect(row).toEqual(rowBefore);
      }
      expect(row?.withdrawn_at).toBeNull();
    }
    // Nothing is stale any more.
    expect((await reprocess([...target, "--tenant", "acme", "--stale", "--dry-run"])).report.selected).toBe(
      0,
    );

    // A rule that makes files fail: a signature required; the unsigned .rpk files of beta now fail.
    const betaKeys = Array.from({ length: BETA_FILES }, (_, i) => betaKeyOf(i));
    const betaBefore = await records(betaKeys);
    expect(betaBefore.every((r) => r.verdict === "passed" && r.layer_c_key !== null)).toBe(true);
    const betaCopies = await mapLimit(BETA_FILES, 8, (i) => copyOf(betaBefore[i] as FileRecord));
    await restart(SIGNATURE_REQUIRED);
    const failing = await reprocess([...target, "--tenant", "beta", "--stale"]);
    const rpkKeys = betaKeys.filter((_, i) => isRpk(i)).sort();
    expect(failing.code).toBe(0);
    expect(failing.report).toMatchObject({ selected: BETA_FILES, republished: 0, failed: [], remaining: 0 });
    expect(failing.report.processed + failing.report.already_done).toBe(BETA_FILES);
    // What the report lists is right; a file a retried batch had replaced shows as already done.
    const changed = failing.report.verdicts_changed.map((c) => `${c.key} ${c.from}->${c.to}`);
    expect(changed.every((c) => rpkKeys.some((k) => c === `${k} passed->failed`))).toBe(true);
    expect(changed.length + failing.report.already_done).toBeGreaterThanOrEqual(rpkKeys.length);
    const gone = failing.report.withdrawn.map((w) => `${w.key} ${w.reason}`);
    expect(gone.every((w) => rpkKeys.some((k) => w === `${k} now-fails`))).toBe(true);
    expect(gone.length).toBe(changed.length);
    const betaAfter = await records(betaKeys);
    const betaCatalogue = await catalogue("beta");
    for (const [i, r] of betaAfter.entries()) {
      const copyKey = betaBefore[i]?.layer_c_key as string;
      if (isRpk(i)) {
        expect(r).toMatchObject({ verdict: "failed", layer_c_key: null });
        expect(await copyGone(copyKey)).toBe(true);
        expect(betaCatalogue.get(copyKey)?.withdrawn_at).not.toBeNull();
      } else {
        expect(r.verdict).toBe("passed");
        expect(await copyOf(r)).toEqual(betaCopies[i]);
        expect(betaCatalogue.get(copyKey)?.withdrawn_at).toBeNull();
      }
    }
    // The acme files, not selected, are as they were.
    expect((await recordOf(keyOf(3))).provenance?.rules_digest).toBe(packDigest);

    const cpu = process.cpuUsage(cpu0);
    process.stderr.write(
      `reprocess test: ingest ${FILES + BETA_FILES} files ${ingestMs} ms; reprocess (killed + resumed) ${runMs} ms; CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms; retried: ${retries.length}${retries.length > 0 ? ` (${retries.slice(0, 3).join("; ")})` : ""}\n`,
    );
  });

  it("--in-process runs the files in the CLI over the stack's buckets with the rules given; stopped and resumed, each once", {
    timeout: 120_000,
  }, async () => {
    const root = tempDir("reprocess-in-process-");
    const stack = await LocalStack.start({ root, memory: true, s3Port: 0, dynamoPort: 0, concurrency: 4 });
    onTestFinished(() => stack.close());
    const n = 40;
    await mapLimit(n, 8, (i) =>
      stack.s3.send(
        new PutObjectCommand({ Bucket: stack.info.ingestBucket, Key: keyOf(i), Body: replayOf(i) }),
      ),
    );
    await stack.settled();
    const target = ["--local-dir", root, "--tenant", "acme", "--in-process", "--stale"];
    const hooks = { rules: WITH_TOKEN_RULE };
    // The rules given decide what is stale here, not the stack's (which runs the built-in ones).
    expect((await reprocess([...target, "--dry-run"], hooks)).report.selected).toBe(n);
    expect((await reprocess([...target, "--dry-run"])).report.selected).toBe(0);
    // Stopped once the manifest's tenth file (key order) is through.
    const stopKey = Array.from({ length: n }, (_, i) => keyOf(i)).sort()[10] as string;
    const stop = new AbortController();
    let looking = false;
    const watch = setInterval(() => {
      if (looking || stop.signal.aborted) return;
      looking = true;
      stack
        .recordOf(stopKey)
        .then((r) => r?.reprocess_run === "run-b" && stop.abort())
        .catch(() => undefined)
        .finally(() => {
          looking = false;
        });
    }, 20);
    const first = await reprocess([...target, "--run-id", "run-b", "--max-concurrency", "2"], {
      ...hooks,
      signal: stop.signal,
    }).finally(() => clearInterval(watch));
    expect(first.code).toBe(1);
    expect(first.report.processed).toBeGreaterThan(0);
    expect(first.report.processed + first.report.remaining).toBe(n);
    const second = await reprocess([...target, "--run-id", "run-b"], hooks);
    expect(second.code).toBe(0);
    expect(second.report).toMatchObject({
      selected: n,
      already_done: first.report.processed,
      processed: n - first.report.processed,
      failed: [],
    });
    const tokens = Array.from({ length: n }, (_, i) => i).filter(hasToken).length;
    expect(first.report.republished + second.report.republished).toBe(tokens);
    for (let i = 0; i < n; i++) {
      const record = (await stack.recordOf(keyOf(i))) as FileRecord;
      expect(record.reprocess_run).toBe("run-b");
      expect((record.redactions?.["acme-token"] ?? 0) > 0).toBe(hasToken(i));
    }
  });
});
