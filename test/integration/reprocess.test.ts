/**
 * Reprocess on the local stack: small replays (200 in `npm test`; `REPROCESS_FILES=1000` for the
 * issue's 1,000, about five minutes on two cores) ingested under a test rule pack (keyed
 * pseudonyms, a digest of its own), then `reprocess --stale` under the built-in rules, stopped
 * midway and resumed: every selected file replaced exactly once, the copies of files with a
 * finding changed and the others the same bytes.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { reprocessCommand } from "../../cli/commands/reprocess.js";
import { LocalStack } from "../../cli/local/stack.js";
import type { FileRecord } from "../../shared/pipeline/ports.js";
import { rulesDigest } from "../../shared/pipeline/provenance.js";
import type { ReprocessReport } from "../../shared/pipeline/reprocess.js";
import { PROJECT_ROOT } from "../support/corpus.js";

const FIX_AUTH = await readFile(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8");
const WITH_EMAIL = FIX_AUTH.replace(
  '"commands":["cargo test -p auth"]',
  '"commands":["cargo test -p auth && mail ops@example.org"]',
);
const FILES = Number(process.env.REPROCESS_FILES ?? 200);
/** The test rule pack: pseudonyms keyed with its own key, so only copies with a finding differ. */
const PACK = { redactionKey: Buffer.from("test-rule-pack"), rulesDigest: `sha256:${"1".repeat(64)}` };
/** Run A is stopped after about this many files. */
const STOP_AT = Math.floor(FILES * 0.3);
const keyOf = (i: number) => `acme/s-${i % 20}/r${String(i).padStart(4, "0")}.REPLAY.jsonl`;
const hasEmail = (i: number) => i % 10 === 0;

/** Runs `reprocess` with `args --json` in this process; its report (or dry-run report) and exit code. */
async function reprocess(args: string[], signal?: AbortSignal) {
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const code = await reprocessCommand(
      [...args, "--json", "--tenant", "acme"],
      signal === undefined ? {} : { signal },
    );
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
  it(`${FILES} files: --stale re-runs exactly the files made by other rules, stopped and resumed, each once`, {
    timeout: 600_000,
  }, async () => {
    const root = await mkdtemp(join(tmpdir(), "reprocess-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const stack = await LocalStack.start({
      root,
      memory: true,
      s3Port: 0,
      dynamoPort: 0,
      concurrency: 4,
      rules: PACK,
    });
    onTestFinished(() => stack.close());
    const t0 = Date.now();
    await mapLimit(FILES, 16, (i) =>
      stack.s3.send(
        new PutObjectCommand({
          Bucket: stack.info.ingestBucket,
          Key: keyOf(i),
          Body: hasEmail(i) ? WITH_EMAIL : FIX_AUTH,
        }),
      ),
    );
    await stack.settled();
    const ingestMs = Date.now() - t0;
    const recordOf = async (i: number) => (await stack.recordOf(keyOf(i))) as FileRecord;
    const copyOf = async (record: FileRecord) => {
      const out = await stack.s3.send(
        new GetObjectCommand({ Bucket: stack.info.publishedBucket, Key: record.layer_c_key as string }),
      );
      return out.Body?.transformToString("utf8");
    };
    const before = await mapLimit(FILES, 16, recordOf);
    expect(
      before.every((r) => r.provenance?.rules_digest === PACK.rulesDigest && r.layer_c_key !== null),
    ).toBe(true);
    // Every copy with an e-mail address, and every tenth of the others: their bytes before.
    const sampled = before.map((_, i) => i).filter((i) => hasEmail(i) || i % 10 === 1);
    const copiesBefore = new Map(
      await mapLimit(
        sampled.length,
        16,
        async (j) =>
          [sampled[j] as number, await copyOf(before[sampled[j] as number] as FileRecord)] as const,
      ),
    );

    // Today's records only: the day index is read a day at a time.
    const target = ["--local-dir", root, "--since", new Date().toISOString().slice(0, 10)];
    const dry = await reprocess([...target, "--stale", "--dry-run"]);
    expect(dry.report.selected).toBe(FILES);

    // Run A, stopped after about STOP_AT files (a killed CLI: those in flight finish, the rest wait).
    const t1 = Date.now();
    const stop = new AbortController();
    // The manifest is in key order: once file STOP_AT's record is replaced, about that many are through.
    const watch = setInterval(async () => {
      if (!stop.signal.aborted && (await recordOf(STOP_AT))?.reprocess_run === "run-a") stop.abort();
    }, 50);
    const first = await reprocess(
      [...target, "--stale", "--run-id", "run-a", "--max-concurrency", "4"],
      stop.signal,
    ).finally(() => clearInterval(watch));
    expect(first.code).toBe(1);
    expect(first.report.processed).toBeGreaterThan(0);
    expect(first.report.remaining).toBeGreaterThan(0);
    expect(first.report.processed + first.report.remaining).toBe(FILES);

    // A new selection of stale records now finds exactly those run A has not reached.
    const between = await reprocess([...target, "--stale", "--dry-run"]);
    expect(between.report.selected).toBe(FILES - first.report.processed);

    // Run A resumed: its manifest read back; what it finished is skipped, the rest done once.
    const second = await reprocess([...target, "--stale", "--run-id", "run-a", "--max-concurrency", "8"]);
    const runMs = Date.now() - t1;
    expect(second.code).toBe(0);
    expect(second.report.selected).toBe(FILES);
    expect(second.report.already_done).toBe(first.report.processed);
    expect(second.report.processed).toBe(FILES - first.report.processed);
    expect(second.report.failed).toEqual([]);
    expect(second.report.withdrawn).toEqual([]);
    expect(first.report.republished + second.report.republished).toBe(FILES);

    const after = await mapLimit(FILES, 16, recordOf);
    for (const r of after) {
      expect(r.reprocess_run).toBe("run-a");
      expect(r.provenance?.rules_digest).toBe(rulesDigest("private_repo"));
    }
    // Only the copies with a finding changed; the others are the same bytes, and so are records but for provenance.
    for (const i of sampled) {
      const copy = await copyOf(after[i] as FileRecord);
      if (hasEmail(i)) {
        expect(copy).not.toBe(copiesBefore.get(i));
        expect(copy).toContain("[REDACTED:email]");
      } else expect(copy).toBe(copiesBefore.get(i));
      const { provenance: _a, processed_at: _b, ms: _c, reprocess_run: _d, ...rest } = after[i] as FileRecord;
      const { provenance: _e, processed_at: _f, ms: _g, ...was } = before[i] as FileRecord;
      expect(rest).toEqual(was);
    }
    // Nothing is stale any more.
    expect((await reprocess([...target, "--stale", "--dry-run"])).report.selected).toBe(0);
    process.stderr.write(
      `reprocess test: ingest ${FILES} files ${ingestMs} ms; reprocess (stopped + resumed) ${runMs} ms\n`,
    );
  });
});
