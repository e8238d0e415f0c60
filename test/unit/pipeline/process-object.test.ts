import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { TransientError } from "../../../shared/errors.js";
import { inspect } from "../../../shared/formats/inspect.js";
import { memoryPorts } from "../../../shared/pipeline/memory-ports.js";
import type { ObjectSource, Spool } from "../../../shared/pipeline/ports.js";
import { type ProcessOptions, processObject } from "../../../shared/pipeline/process-object.js";
import { RECORD_ROW_CHARS } from "../../../shared/pipeline/record-bounds.js";
import { generateReceipt, serializeReceipt } from "../../../shared/receipt/index.js";
import { memorySpool } from "../../../shared/spool/index.js";
import { exampleReplays, PROJECT_ROOT } from "../../support/corpus.js";

const OPTIONS: ProcessOptions = { toolVersion: "9.9.9-test", parallel: { workers: 0 } };
const EXAMPLES = join(PROJECT_ROOT, "examples");
const example = (name: string): Buffer => readFileSync(join(EXAMPLES, name));
const FIX_AUTH = example("fix-auth.REPLAY.jsonl").toString("utf8");
/** The example with one hashed param changed: its own params_hash row fails. */
const TAMPERED = FIX_AUTH.replace('"params":{"path":"src/auth.rs"}', '"params":{"path":"src/evil.rs"}');

async function receiptFor(text: string): Promise<string> {
  const inspected = await inspect(
    (async function* () {
      yield Buffer.from(text);
    })(),
    { file: "r", keepToolCalls: true },
  );
  return serializeReceipt(generateReceipt(inspected, { createdAt: "2026-03-01T00:00:00Z" }));
}

describe("processObject: every format, one read, a verdict for each", () => {
  it.each(exampleReplays())("%s (and gzip-compressed)", async (name) => {
    const ports = memoryPorts();
    for (const [key, bytes] of [
      [`acme/s-1/${name}`, example(name)],
      [`acme/s-1/${name}.gz`, gzipSync(example(name))],
    ] as const) {
      let reads = 0;
      const source = ports.objects.put(key, bytes);
      const counted: ObjectSource = {
        ...source,
        open: () => {
          reads++;
          return source.open();
        },
      };
      const result = await processObject(counted, ports, OPTIONS);
      expect(reads, key).toBe(1);
      expect(result.outcome).toBe("written");
      expect(["passed", "unverifiable"]).toContain(result.record.verdict);
      expect(result.document).toMatchObject({
        schema: "replay-pipeline.verdict.v1",
        tool: { name: "replay-pipeline", version: "9.9.9-test" },
        kind: "replay",
        tenant: "acme",
        session: "s-1",
      });
      expect(result.document.report?.format).toBe(result.record.format);
      // Published, and the copy records the original's hash and verdict.
      const copyKey = result.record.layer_c_key as string;
      expect(copyKey).toMatch(/^acme\/s-1\/.*\.layer-c/);
      expect(copyKey.endsWith(".gz")).toBe(false);
      expect(ports.publisher.copies.get(copyKey)?.toString("utf8")).toContain(
        result.record.replay_hash as string,
      );
      expect(JSON.parse(ports.publisher.documents.get(`results/${key}.json`) as string).verdict).toBe(
        result.record.verdict,
      );
      expect(await ports.index.getFile("acme", "s-1", key)).toMatchObject({ verdict: result.record.verdict });
    }
  });
});

describe("processObject: bytes that cannot be read within the limits are a verdict", () => {
  it.each([["a gzip bomb past the size limit", gzipSync(Buffer.alloc(4 * 1024 * 1024)), "gzip.too_large"]])(
    "%s: invalid, recorded once, nothing published",
    async (_what, bytes, code) => {
      const ports = memoryPorts();
      const result = await processObject(ports.objects.put("acme/s-1/bomb.jsonl.gz", bytes), ports, {
        ...OPTIONS,
        maxDecompressedBytes: 1024 * 1024,
      });
      expect(result.outcome).toBe("written");
      expect(result.record).toMatchObject({ kind: "replay", verdict: "invalid", first_error: { code } });
      expect(result.document.error?.code).toBe(code);
      expect(ports.publisher.copies.size).toBe(0);
      expect(await ports.index.getFile("acme", "s-1", "acme/s-1/bomb.jsonl.gz")).toMatchObject({
        verdict: "invalid",
      });
    },
  );
});

describe("processObject: one published copy per uploaded file", () => {
  it("x and x.gz in one session get two copies, each its own", async () => {
    const ports = memoryPorts();
    const name = exampleReplays()[0] as string;
    const keys: string[] = [];
    for (const [key, bytes] of [
      [`acme/s-1/${name}`, example(name)],
      [`acme/s-1/${name}.gz`, gzipSync(example(name))],
    ] as const) {
      const result = await processObject(ports.objects.put(key, bytes), ports, OPTIONS);
      keys.push(result.record.layer_c_key as string);
    }
    expect(new Set(keys).size).toBe(2);
    for (const key of keys) expect(ports.publisher.copies.has(key), key).toBe(true);
  });
});

describe("processObject: only what did not fail is published", () => {
  it("a failed replay is recorded, never published", async () => {
    const ports = memoryPorts();
    const result = await processObject(ports.objects.put("t/s/REPLAY.jsonl", TAMPERED), ports, OPTIONS);
    expect(result.record).toMatchObject({ verdict: "failed", layer_c_key: null });
    expect(result.document.not_published).toMatch(/failed/);
    expect(ports.publisher.copies.size).toBe(0);
  });

  it("an invalid replay is recorded with its first error", async () => {
    const ports = memoryPorts();
    const result = await processObject(
      ports.objects.put("t/s/REPLAY.jsonl", '{"event":"ReplayHeader"'),
      ports,
      OPTIONS,
    );
    expect(result.record.verdict).toBe("invalid");
    expect(result.record.first_error?.code).toMatch(/json/);
    expect(ports.publisher.copies.size).toBe(0);
  });
});

describe("processObject: receipts in either order", () => {
  it("a receipt already recorded is checked when its replay arrives", async () => {
    const ports = memoryPorts();
    const receipt = await processObject(
      ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH)),
      ports,
      OPTIONS,
    );
    expect(receipt.record).toMatchObject({ kind: "receipt", verdict: "passed" });
    expect(receipt.checks).toEqual([]);
    const replay = await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    expect(replay.checks).toHaveLength(1);
    expect(replay.checks[0]).toMatchObject({ verdict: "passed", withdrawn: null });
    expect(replay.document.receipt_checks[0]?.verdict).toBe("passed");
    expect(replay.record.layer_c_key).not.toBeNull();
    expect(ports.index.checks.size).toBe(1);
  });

  it("a receipt arriving after its replay checks it; a failing one withdraws the published copy", async () => {
    const ports = memoryPorts();
    const replay = await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    const copyKey = replay.record.layer_c_key as string;
    expect(ports.publisher.copies.has(copyKey)).toBe(true);
    const wrong = (await receiptFor(FIX_AUTH)).replace('"tool":"file_read"', '"tool":"file_write"');
    const receipt = await processObject(ports.objects.put("t/s/RECEIPT.json", wrong), ports, OPTIONS);
    expect(receipt.checks).toHaveLength(1);
    expect(receipt.checks[0]).toMatchObject({ verdict: "failed", withdrawn: copyKey });
    expect(receipt.checks[0]?.failed.map((r) => r.check)).toContain("tool");
    expect(ports.publisher.copies.has(copyKey)).toBe(false);
    expect(ports.publisher.withdrawn).toEqual([copyKey]);
    expect((await ports.index.getFile("t", "s", "t/s/REPLAY.jsonl"))?.layer_c_key).toBeNull();
  });

  it("a receipt of any size: its failed rows are cut to fit one index item", async () => {
    const ports = memoryPorts();
    await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    // About 1 MB of receipt: every tool name a long one (three UTF-8 bytes a character), every row failing.
    const huge = "\u20ac".repeat(150_000);
    const wrong = (await receiptFor(FIX_AUTH)).replaceAll(/"tool":"[^"]*"/g, `"tool":"${huge}"`);
    expect(Buffer.byteLength(wrong)).toBeGreaterThan(400 * 1024);
    const receipt = await processObject(ports.objects.put("t/s/RECEIPT.json", wrong), ports, OPTIONS);
    expect(receipt.outcome).toBe("written");
    expect(receipt.checks).toHaveLength(1);
    const row = receipt.checks[0]?.failed.find((r) => r.check === "tool");
    expect(row?.expected?.length).toBe(RECORD_ROW_CHARS + 1);
    expect(row?.expected?.endsWith("\u2026")).toBe(true);
    expect([...ports.index.checks.values()][0]?.failed).toEqual(receipt.checks[0]?.failed);
  });

  it("a failing receipt recorded first keeps the replay from being published at all", async () => {
    const ports = memoryPorts();
    const wrong = (await receiptFor(FIX_AUTH)).replace('"tool":"file_read"', '"tool":"file_write"');
    await processObject(ports.objects.put("t/s/RECEIPT.json", wrong), ports, OPTIONS);
    const replay = await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    expect(replay.checks[0]?.verdict).toBe("failed");
    expect(replay.record.layer_c_key).toBeNull();
    expect(ports.publisher.copies.size).toBe(0);
  });

  it("receipt and replay at the same time: the check is recorded once, by whichever saw both", async () => {
    const ports = memoryPorts();
    const receiptSource = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
    const replaySource = ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH);
    const [a, b] = await Promise.all([
      processObject(receiptSource, ports, OPTIONS),
      processObject(replaySource, ports, OPTIONS),
    ]);
    expect(a.checks.length + b.checks.length).toBeGreaterThanOrEqual(1);
    expect(ports.index.checks.size).toBe(1);
    expect([...ports.index.checks.values()][0]?.verdict).toBe("passed");
  });
});

describe("processObject: a withdrawal racing a newer upload of the replay", () => {
  /** The example with another tool name: valid and published alone, failed against FIX_AUTH's receipt. */
  const OLDER = FIX_AUTH.replace('"tool":"file_read"', '"tool":"file_write"');

  /** Ports whose `run` hook fires once, from inside the receipt job, at the point `at` names. */
  async function race(at: "replay-read" | "withdraw") {
    const ports = memoryPorts();
    const older = await processObject(ports.objects.put("t/s/REPLAY.jsonl", OLDER), ports, OPTIONS);
    const copyKey = older.record.layer_c_key as string;
    expect(copyKey).not.toBeNull();
    let armed = true;
    let newer: Awaited<ReturnType<typeof processObject>> | undefined;
    const upload = async () => {
      armed = false;
      newer = await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    };
    const open = ports.objects.open.bind(ports.objects);
    ports.objects.open = (ref) =>
      (async function* () {
        yield* open(ref);
        // The receipt job has read the older replay again for its check; the newer one lands now.
        if (ref.key === "t/s/REPLAY.jsonl" && armed && at === "replay-read") await upload();
      })();
    const withdrawCopy = ports.publisher.withdrawCopy.bind(ports.publisher);
    ports.publisher.withdrawCopy = async (key) => {
      if (armed && at === "withdraw") await upload();
      await withdrawCopy(key);
    };
    const receipt = await processObject(
      ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH)),
      ports,
      OPTIONS,
    );
    expect(newer?.record.layer_c_key).toBe(copyKey);
    return { ports, receipt, copyKey, newer: newer as NonNullable<typeof newer> };
  }

  it("the newer version recorded before the withdrawal: its copy and record stay", async () => {
    const { ports, receipt, copyKey, newer } = await race("replay-read");
    expect(receipt.checks[0]).toMatchObject({ verdict: "failed", withdrawn: null });
    expect(ports.publisher.withdrawn).toEqual([]);
    expect(ports.publisher.copies.has(copyKey)).toBe(true);
    expect(await ports.index.getFile("t", "s", "t/s/REPLAY.jsonl")).toEqual(newer.record);
  });

  it("the newer version recorded while the copy is withdrawn: the conditional mark keeps its record", async () => {
    const { ports, receipt, copyKey, newer } = await race("withdraw");
    // The copy is gone (fail closed); the newer record is not marked withdrawn by the older check.
    expect(ports.publisher.withdrawn).toEqual([copyKey]);
    expect(receipt.checks[0]).toMatchObject({ verdict: "failed", withdrawn: null });
    const recorded = await ports.index.getFile("t", "s", "t/s/REPLAY.jsonl");
    expect(recorded).toEqual(newer.record);
    expect(recorded?.layer_c_key).toBe(copyKey);
  });
});

describe("processObject: events as S3 and SQS deliver them", () => {
  it("the same event three times changes and counts nothing after the first", async () => {
    const ports = memoryPorts();
    const source = ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH);
    const outcomes = [];
    for (let k = 0; k < 3; k++) outcomes.push((await processObject(source, ports, OPTIONS)).outcome);
    expect(outcomes).toEqual(["written", "duplicate", "duplicate"]);
    expect(ports.index.files.size).toBe(1);
    expect(ports.publisher.copies.size).toBe(1);
  });

  it("a late event for an older version never replaces the newer record", async () => {
    const ports = memoryPorts();
    const older = ports.objects.put("t/s/REPLAY.jsonl", TAMPERED);
    const newer = ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH);
    expect((await processObject(newer, ports, OPTIONS)).outcome).toBe("written");
    const late = await processObject(older, ports, OPTIONS);
    expect(late.outcome).toBe("stale");
    expect((await ports.index.getFile("t", "s", "t/s/REPLAY.jsonl"))?.verdict).toBe("passed");
  });

  it.each([
    ["t/../REPLAY.jsonl", "key.session"],
    ["t/s/../x.jsonl", "key.shape"],
    ["t/s%2Fx/REPLAY.jsonl", "key.encoded_separator"],
    ["t/s/REP\u0007LAY.jsonl", "key.control_character"],
    ["t/s/REPLAY\u202Elnosj.exe", "key.invisible_character"],
    ["t/s/RE\u200BPLAY.jsonl", "key.invisible_character"],
    ["t/s\u2066x/REPLAY.jsonl", "key.invisible_character"],
    ["t/REPLAY.jsonl", "key.shape"],
    ["t/a/b/REPLAY.jsonl", "key.shape"],
    [`t/s/${"x".repeat(300)}.jsonl`, "key.file_too_long"],
    ["t e/s/REPLAY.jsonl", "key.tenant"],
  ])("rejects the key %j with a recorded verdict (%s), reading nothing", async (key, code) => {
    const ports = memoryPorts();
    const source = ports.objects.put(key, FIX_AUTH);
    const result = await processObject(
      {
        ...source,
        open: () => {
          throw new Error("must not read");
        },
      },
      ports,
      OPTIONS,
    );
    expect(result.record).toMatchObject({ kind: "rejected", verdict: "invalid", first_error: { code } });
    // Its tenant segment is a name: filed in that tenant's area, where its role reads it.
    const area = key.startsWith("t/") ? "t/_rejected" : "_rejected";
    expect(result.record.verdict_key).toMatch(new RegExp(`^results/${area}/[0-9a-f]{64}\\.json$`));
    expect(result.record.tenant).toBe(key.startsWith("t/") ? "t" : "_rejected");
    expect(ports.publisher.documents.has(result.record.verdict_key)).toBe(true);
    expect(ports.publisher.copies.size).toBe(0);
  });
});

describe("processObject: a port's failure surfaces, nothing half-written", () => {
  it("a transient publisher error throws; no record; the retry does the whole job", async () => {
    const ports = memoryPorts();
    const source = ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH);
    const publish = ports.publisher.publishCopy.bind(ports.publisher);
    const throttled = Object.assign(new Error("SlowDown"), { name: "SlowDown" });
    ports.publisher.publishCopy = async () => {
      throw throttled;
    };
    await expect(processObject(source, ports, OPTIONS)).rejects.toBe(throttled);
    expect(ports.index.files.size).toBe(0);
    expect(ports.publisher.copies.size).toBe(0);
    ports.publisher.publishCopy = publish;
    expect((await processObject(source, ports, OPTIONS)).outcome).toBe("written");
    expect(ports.publisher.copies.size).toBe(1);
  });
  it("a withdrawal whose cache invalidation fails: the copy is gone at once, the retry records it", async () => {
    const ports = memoryPorts();
    const replay = await processObject(ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH), ports, OPTIONS);
    const copyKey = replay.record.layer_c_key as string;
    // The S3 publisher behind CloudFront deletes, then invalidates: here the invalidation fails once.
    const withdraw = ports.publisher.withdrawCopy.bind(ports.publisher);
    const throttled = Object.assign(new Error("TooManyInvalidationsInProgress"), { kind: "transient" });
    let failures = 1;
    ports.publisher.withdrawCopy = async (key) => {
      await withdraw(key);
      if (failures-- > 0) throw throttled;
    };
    const wrong = (await receiptFor(FIX_AUTH)).replace('"tool":"file_read"', '"tool":"file_write"');
    const source = ports.objects.put("t/s/RECEIPT.json", wrong);
    await expect(processObject(source, ports, OPTIONS)).rejects.toBe(throttled);
    expect(ports.publisher.copies.has(copyKey)).toBe(false);
    // The redelivered message withdraws again (deleting what is gone succeeds) and records it.
    const retried = await processObject(source, ports, OPTIONS);
    expect(retried.checks[0]).toMatchObject({ verdict: "failed", withdrawn: copyKey });
    expect(ports.publisher.withdrawn).toEqual([copyKey, copyKey]);
    expect((await ports.index.getFile("t", "s", "t/s/REPLAY.jsonl"))?.layer_c_key).toBeNull();
  });
});

describe("processObject: a retry after the record resumes the receipt checks", () => {
  const throttled = Object.assign(new Error("ThrottlingException"), { name: "ThrottlingException" });

  it("a receipt whose check failed to be recorded: the redelivered event records it", async () => {
    const ports = memoryPorts();
    await processObject(ports.objects.put("t/s/REPLAY.jsonl", TAMPERED), ports, OPTIONS);
    const receipt = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
    const putCheck = ports.index.putCheck.bind(ports.index);
    ports.index.putCheck = async () => {
      throw throttled;
    };
    // The receipt's own record is written, then its check of the replay fails: the queue retries.
    await expect(processObject(receipt, ports, OPTIONS)).rejects.toBe(throttled);
    expect(ports.index.checks.size).toBe(0);
    ports.index.putCheck = putCheck;
    const retry = await processObject(receipt, ports, OPTIONS);
    expect(retry.outcome).toBe("duplicate");
    expect(retry.checks.map((c) => c.verdict)).toEqual(["failed"]);
    expect(ports.index.checks.size).toBe(1);
    // A third delivery counts nothing again.
    expect((await processObject(receipt, ports, OPTIONS)).checks).toEqual([]);
    expect(ports.index.checks.size).toBe(1);
  });

  it("a replay whose late-receipt check failed to run: the redelivered event runs it", async () => {
    const ports = memoryPorts();
    const replay = ports.objects.put("t/s/REPLAY.jsonl", TAMPERED);
    const receipt = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
    // The receipt lands while the replay is read (it sees no replay; the replay read it too late).
    const listFiles = ports.index.listFiles.bind(ports.index);
    let lists = 0;
    ports.index.listFiles = async (tenant, session) => {
      lists += 1;
      const found = await listFiles(tenant, session);
      // After the replay looked for receipts (none yet), the receipt is processed and sees no replay.
      if (lists === 1) await processObject(receipt, ports, OPTIONS);
      // The replay's second look, for receipts that landed meanwhile, is throttled.
      if (lists === 3) throw throttled;
      return found;
    };
    await expect(processObject(replay, ports, OPTIONS)).rejects.toBe(throttled);
    expect([...ports.index.files.values()].map((r) => r.kind).sort()).toEqual(["receipt", "replay"]);
    expect(ports.index.checks.size).toBe(0);
    ports.index.listFiles = listFiles;
    const retry = await processObject(replay, ports, OPTIONS);
    expect(retry.outcome).toBe("duplicate");
    expect(retry.checks.map((c) => c.verdict)).toEqual(["failed"]);
  });
});

describe("processObject: review mends (a retry, the attestation, the spool)", () => {
  const throttled = Object.assign(new Error("ThrottlingException"), { name: "ThrottlingException" });
  /** The stored attestation's result for `key`'s replay. */
  const attested = (ports: ReturnType<typeof memoryPorts>, key: string): string => {
    const text = ports.publisher.documents.get(`results/${key}.intoto.json`);
    if (text === undefined) throw new Error(`no attestation of ${key}`);
    // A DSSE envelope (unsigned here: memory ports have no signer) around the statement.
    const { payload } = JSON.parse(text) as { payload: string };
    const statement = JSON.parse(Buffer.from(payload, "base64").toString("utf8"));
    return (statement as { predicate: { verificationResult: string } }).predicate.verificationResult;
  };

  it("a retry after the failed check was recorded still does not publish the replay", async () => {
    const ports = memoryPorts();
    await processObject(ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH)), ports, OPTIONS);
    const replay = ports.objects.put(
      "t/s/REPLAY.jsonl",
      FIX_AUTH.replace('"tool":"file_read"', '"tool":"file_write"'),
    );
    const putFile = ports.index.putFile.bind(ports.index);
    ports.index.putFile = async () => {
      throw throttled;
    };
    await expect(processObject(replay, ports, OPTIONS)).rejects.toBe(throttled);
    expect(ports.index.checks.size).toBe(1);
    ports.index.putFile = putFile;
    const retry = await processObject(replay, ports, OPTIONS);
    expect(retry.record.layer_c_key).toBeNull();
    expect(retry.document.not_published).toMatch(/receipt check failed/);
    expect(retry.document.receipt_checks.map((c) => c.verdict)).toEqual(["failed"]);
    expect(ports.publisher.copies.size).toBe(0);
  });

  it("the attestation of a replay that passed on its own but failed its receipt says FAILED, either order", async () => {
    const other = FIX_AUTH.replace('"tool":"file_read"', '"tool":"file_write"');
    for (const receiptFirst of [true, false]) {
      const ports = memoryPorts();
      const receipt = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
      const replay = ports.objects.put("t/s/REPLAY.jsonl", other);
      if (receiptFirst) await processObject(receipt, ports, OPTIONS);
      const own = await processObject(replay, ports, OPTIONS);
      expect(own.record.verdict).toBe("passed");
      if (!receiptFirst) {
        expect(attested(ports, "t/s/REPLAY.jsonl")).toBe("PASSED");
        await processObject(receipt, ports, OPTIONS);
      }
      expect([...ports.index.checks.values()].map((c) => c.verdict)).toEqual(["failed"]);
      expect(attested(ports, "t/s/REPLAY.jsonl")).toBe("FAILED");
    }
  });

  it("a receipt checking a session of three replays is read once", async () => {
    const ports = memoryPorts();
    for (const s of ["a", "b", "c"])
      await processObject(ports.objects.put(`t/s/${s}.REPLAY.jsonl`, FIX_AUTH), ports, OPTIONS);
    const open = ports.objects.open.bind(ports.objects);
    let receiptReads = 0;
    ports.objects.open = (ref) => {
      if (ref.key === "t/s/RECEIPT.json") receiptReads += 1;
      return (async function* () {
        yield* open(ref);
      })();
    };
    const receipt = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
    const result = await processObject(
      { ...receipt, open: () => ports.objects.open(receipt) },
      ports,
      OPTIONS,
    );
    expect(result.checks.map((c) => c.verdict)).toEqual(["passed", "passed", "passed"]);
    expect(receiptReads).toBe(1);
  });

  it("a receipt's retry after a try that stopped part-way checks only the replays not yet checked", async () => {
    const ports = memoryPorts();
    const names = ["a", "b", "c", "d"].map((s) => `t/s/${s}.REPLAY.jsonl`);
    for (const key of names) await processObject(ports.objects.put(key, FIX_AUTH), ports, OPTIONS);
    const open = ports.objects.open.bind(ports.objects);
    const reads: string[] = [];
    let failOn: string | null = "t/s/c.REPLAY.jsonl";
    ports.objects.open = (ref) => {
      reads.push(ref.key);
      if (ref.key === failOn) throw new TransientError("io.timeout", "the try ran out of time");
      return (async function* () {
        yield* open(ref);
      })();
    };
    const receipt = ports.objects.put("t/s/RECEIPT.json", await receiptFor(FIX_AUTH));
    await expect(processObject(receipt, ports, OPTIONS)).rejects.toThrow(/ran out of time/);
    expect(ports.index.checks.size).toBe(2);
    failOn = null;
    reads.length = 0;
    const retry = await processObject(receipt, ports, OPTIONS);
    expect(reads.filter((k) => k.endsWith(".REPLAY.jsonl"))).toEqual([
      "t/s/c.REPLAY.jsonl",
      "t/s/d.REPLAY.jsonl",
    ]);
    expect(retry.checks.map((c) => c.replay.key)).toEqual(["t/s/c.REPLAY.jsonl", "t/s/d.REPLAY.jsonl"]);
    expect(ports.index.checks.size).toBe(4);
  });

  it("a failed upload of the copy frees its spool file", async () => {
    const ports = memoryPorts();
    const inner = memorySpool();
    let created = 0;
    let disposed = 0;
    const counting: Spool = {
      async create() {
        created += 1;
        const file = await inner.create();
        return {
          write: (chunk, position) => file.write(chunk, position),
          read: (from, to) => file.read(from, to),
          dispose: async () => {
            disposed += 1;
            await file.dispose();
          },
        };
      },
    };
    ports.publisher.publishCopy = async (_key, body) => {
      for await (const _ of body) throw throttled;
    };
    const source = ports.objects.put("t/s/REPLAY.jsonl", FIX_AUTH);
    await expect(processObject(source, { ...ports, spool: counting }, OPTIONS)).rejects.toBe(throttled);
    expect(created).toBe(1);
    expect(disposed).toBe(1);
  });
});

describe("processObject: nothing stored holds a secret from the input", () => {
  it("index record, verdict document and check rows are scrubbed", async () => {
    const secret = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
    const leaky = FIX_AUTH.replace(
      /"commands":\[[^\]]*\]/,
      `"commands":["git push https://x:${secret}@github.com/o/r"]`,
    ).replace(/"exit_codes":\[[^\]]*\]/, '"exit_codes":[0]');
    expect(leaky).toContain(secret);
    const ports = memoryPorts();
    await processObject(ports.objects.put("t/s/REPLAY.jsonl", leaky), ports, OPTIONS);
    const stored =
      JSON.stringify([...ports.index.files.values()]) + [...ports.publisher.documents.values()].join("");
    expect(stored).toMatch(/git push/);
    expect(stored).not.toContain(secret);
    expect([...ports.publisher.copies.values()].join("")).not.toContain(secret);
  });

  it("a key holding a secret is rejected, filed under its scrubbed form, nothing published", async () => {
    const secret = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
    const ports = memoryPorts();
    // A valid key (the token is a valid name), and keys the rules reject that quote the secret.
    const sources = [`t/s/${secret}.REPLAY.jsonl`, `${secret}/s/REPLAY.jsonl`, `t/${secret}+x/f.jsonl`].map(
      (key) => ports.objects.put(key, FIX_AUTH),
    );
    const tenants: string[] = [];
    for (const source of sources) {
      const result = await processObject(source, ports, OPTIONS);
      expect(result.record).toMatchObject({ kind: "rejected", verdict: "invalid", layer_c_key: null });
      expect(result.record.ref.key).not.toContain(secret);
      tenants.push(result.record.tenant);
    }
    // A secret in the tenant segment: no readable tenant, so the operator-only area.
    expect(tenants).toEqual(["t", "_rejected", "t"]);
    const first = [...ports.index.files.values()].map((r) => r.first_error?.code);
    expect(first).toEqual(["key.redacted", "key.redacted", "key.session"]);
    expect(ports.publisher.copies.size).toBe(0);
    const stored =
      JSON.stringify([...ports.index.files.values()]) + [...ports.publisher.documents.entries()].join("");
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(0, 30));
    // The same event again finds its record: nothing is written twice.
    expect((await processObject(sources[0] as ObjectSource, ports, OPTIONS)).outcome).toBe("duplicate");
  });
});

describe("processObject for the CLI's one-off commands: keys 'local', no copy, a given receipt", () => {
  const LOCAL: ProcessOptions = { ...OPTIONS, mode: { kind: "local", receipt: "unchecked" } };
  const INSPECT: ProcessOptions = { ...OPTIONS, mode: { kind: "inspect-only", receipt: "unchecked" } };

  it("takes a path as the key (no key rules) and, with publish false, inspects without a copy", async () => {
    const ports = memoryPorts();
    const source = ports.objects.put("../some dir/fix-auth.REPLAY.jsonl", FIX_AUTH);
    const result = await processObject(source, ports, INSPECT);
    expect(result.record).toMatchObject({
      kind: "replay",
      verdict: "passed",
      tenant: "local",
      layer_c_key: null,
    });
    expect(result.document.report?.file).toBe("../some dir/fix-auth.REPLAY.jsonl");
    expect(result.document.not_published).toMatch(/only inspected/);
    expect(ports.publisher.copies.size).toBe(0);
    expect(result.verifications).toEqual([]);
  });

  it("reads a RECEIPT.json given as a local key as a replay (the caller pairs receipts)", async () => {
    const ports = memoryPorts();
    const source = ports.objects.put("RECEIPT.json", await receiptFor(FIX_AUTH));
    const result = await processObject(source, ports, INSPECT);
    expect(result.record.kind).toBe("replay");
    expect(result.record.verdict).toBe("invalid");
  });

  it("checks against a receipt given directly: the whole report in verifications, a failed one blocks the copy", async () => {
    const ports = memoryPorts();
    const { open: _, ...receipt } = ports.objects.put("r/RECEIPT.json", await receiptFor(FIX_AUTH));
    const good = await processObject(ports.objects.put("a/REPLAY.jsonl", FIX_AUTH), ports, {
      ...OPTIONS,
      mode: { kind: "local", receipt },
    });
    expect(good.verifications).toHaveLength(1);
    expect(good.verifications[0]).toMatchObject({ verdict: "passed", receipt_shape: expect.any(String) });
    expect(good.record.layer_c_key).not.toBeNull();
    // A replay whose calls differ from the receipt's: the check fails, nothing is published.
    const other = FIX_AUTH.replace(/"session_id":"[^"]*"/, '"session_id":"another"');
    const bad = await processObject(ports.objects.put("b/REPLAY.jsonl", other), ports, {
      ...OPTIONS,
      mode: { kind: "local", receipt },
    });
    expect(bad.verifications[0]?.verdict).toBe("failed");
    expect(bad.document.layer_c).toBeNull();
    expect(bad.document.not_published).toMatch(/receipt check failed/);
  });

  it("with receipt null, checks against none: one unverifiable report, no check recorded", async () => {
    const ports = memoryPorts();
    const result = await processObject(ports.objects.put("x.jsonl", FIX_AUTH), ports, {
      ...OPTIONS,
      mode: { kind: "inspect-only", receipt: "none" },
    });
    expect(result.verifications.map((v) => v.verdict)).toEqual(["unverifiable"]);
    expect(result.checks).toEqual([]);
  });

  it("publishes a failed file's copy only with publishUnverified, and its record says failed", async () => {
    const refused = memoryPorts();
    const no = await processObject(refused.objects.put("t.jsonl", TAMPERED), refused, LOCAL);
    expect(no.record.verdict).toBe("failed");
    expect(refused.publisher.copies.size).toBe(0);
    const allowed = memoryPorts();
    const yes = await processObject(allowed.objects.put("t.jsonl", TAMPERED), allowed, {
      ...LOCAL,
      publishUnverified: true,
    });
    const copy = [...allowed.publisher.copies.values()][0]?.toString("utf8") ?? "";
    expect(yes.document.layer_c).not.toBeNull();
    expect(JSON.parse(copy.split("\n")[0] as string).redaction.original.verdict).toBe("failed");
  });
});

describe("processObject: the index record stays within a DynamoDB item", () => {
  it("cuts a summary too large for one item; the verdict document keeps it whole", async () => {
    const session = '"session_id":"c24c938c-3eb2-7f63-3ed2-1f0562d3c9dd"';
    const lines = [
      '{"type":"ReplayHeader","replay_version":1,"producer":"openagents-runtime","created_at":"2026-02-15T08:21:11+00:00"}',
      `{"type":"SessionStart","ts":"2026-02-15T09:00:05.000Z",${session},"policy_bundle_id":"policy.default.v1"}`,
      ...Array.from(
        { length: 3000 },
        (_, k) =>
          `{"type":"Verification","ts":"2026-02-15T09:15:01.812Z",${session},"command":"cargo test --workspace case-${k}","exit_code":0}`,
      ),
      `{"type":"SessionEnd","ts":"2026-02-15T12:21:43.604Z",${session},"status":"success","confidence":0.9}`,
    ];
    const ports = memoryPorts();
    const key = "acme/s-9/REPLAY.jsonl";
    const result = await processObject(ports.objects.put(key, `${lines.join("\n")}\n`), ports, OPTIONS);
    expect(result.record.verdict).not.toBe("invalid");
    expect(result.record.summary_truncated).toBe(true);
    const kept = result.record.summary?.verification ?? [];
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(3000);
    expect(kept[7]).toEqual({ command: "cargo test --workspace case-7", exit_code: 0 });
    expect(Buffer.byteLength(JSON.stringify(result.record))).toBeLessThan(100 * 1024);
    expect(result.document.report?.summary?.verification).toHaveLength(3000);
    expect(await ports.index.getFile("acme", "s-9", key)).toEqual(result.record);
  });
});
