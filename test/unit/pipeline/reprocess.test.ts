import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ProcessOptions } from "../../../shared/pipeline/job-types.js";
import { memoryPorts } from "../../../shared/pipeline/memory-ports.js";
import type { FileRecord } from "../../../shared/pipeline/ports.js";
import { processObject } from "../../../shared/pipeline/process-object.js";
import { rulesDigest } from "../../../shared/pipeline/provenance.js";
import {
  changeOf,
  isStale,
  itemOf,
  reportOf,
  selects,
  withdrawReplaced,
} from "../../../shared/pipeline/reprocess.js";
import {
  type DayRecords,
  daysOf,
  reprocessItem,
  runItems,
  selectItems,
} from "../../../shared/pipeline/reprocess-run.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

const FIX_AUTH = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8");
/** The example with an e-mail address in a kept text: `private_repo` redacts it, `open_source` does not. */
const WITH_EMAIL = FIX_AUTH.replace(
  '"commands":["cargo test -p auth"]',
  '"commands":["cargo test -p auth && mail ops@example.org"]',
);
const OLD: ProcessOptions = { toolVersion: "1.0.0", preset: "open_source", parallel: { workers: 0 } };
const NEW: ProcessOptions = { toolVersion: "1.1.0", preset: "private_repo", parallel: { workers: 0 } };
const FILTER = {
  since: "2000-01-01T00:00:00Z",
  until: "2100-01-01T00:00:00Z",
  rulesDigest: rulesDigest("private_repo"),
};

/** `n` replays in session `s-1` of tenant `acme` processed with `OLD`; every fourth holds an e-mail address. */
async function seeded(n: number) {
  const ports = memoryPorts();
  for (let i = 0; i < n; i++) {
    const source = ports.objects.put(
      `acme/s-1/r${String(i).padStart(3, "0")}.REPLAY.jsonl`,
      i % 4 === 0 ? WITH_EMAIL : FIX_AUTH,
    );
    await processObject(source, ports, OLD);
  }
  return ports;
}

/** Counts the records each run replaced, per key: what "processed once" is measured by. */
function countingReplaces(ports: ReturnType<typeof memoryPorts>): Map<string, number> {
  const written = new Map<string, number>();
  const replace = ports.index.replaceFile.bind(ports.index);
  ports.index.replaceFile = async (record, runId) => {
    const outcome = await replace(record, runId);
    if (outcome === "written") written.set(record.ref.key, (written.get(record.ref.key) ?? 0) + 1);
    return outcome;
  };
  return written;
}

describe("provenance on records", () => {
  it("records the tool version and rules digest in the record, the verdict document and the attestation", async () => {
    const ports = await seeded(1);
    const [record] = [...ports.index.files.values()] as [FileRecord];
    const provenance = { tool_version: "1.0.0", rules_digest: rulesDigest("open_source") };
    expect(record.provenance).toEqual(provenance);
    const document = JSON.parse(ports.publisher.documents.get(record.verdict_key) as string);
    expect(document.provenance).toEqual(provenance);
    const attestation = JSON.parse(
      ports.publisher.documents.get(`${record.verdict_key.replace(/\.json$/, "")}.intoto.json`) ?? "null",
    );
    const statement = JSON.parse(Buffer.from(attestation.payload, "base64").toString("utf8"));
    expect(statement.predicate.policy.annotations.rules_digest).toBe(provenance.rules_digest);
  });
});

describe("selection", () => {
  const record = (over: Partial<FileRecord>): FileRecord =>
    ({
      kind: "replay",
      verdict: "passed",
      processed_at: "2026-03-01T10:00:00Z",
      provenance: { tool_version: "1", rules_digest: FILTER.rulesDigest },
      ...over,
    }) as FileRecord;

  it("keeps the period (until excluded), the verdicts asked for, stale records only with stale, and never a rejected key", () => {
    const f = { ...FILTER, since: "2026-03-01T00:00:00Z", until: "2026-03-02T00:00:00Z" };
    expect(selects(record({}), f)).toBe(true);
    expect(selects(record({ processed_at: "2026-03-02T00:00:00Z" }), f)).toBe(false);
    expect(selects(record({ processed_at: "2026-02-28T23:59:59Z" }), f)).toBe(false);
    expect(selects(record({ kind: "rejected" }), f)).toBe(false);
    expect(selects(record({ verdict: "failed" }), { ...f, verdicts: ["passed"] })).toBe(false);
    expect(selects(record({ verdict: "failed" }), { ...f, verdicts: ["passed", "failed"] })).toBe(true);
    expect(selects(record({}), { ...f, stale: true })).toBe(false);
    const old = { tool_version: "1", rules_digest: "sha256:old" };
    expect(selects(record({ provenance: old }), { ...f, stale: true })).toBe(true);
    // A record made before provenance was kept: made by unknown rules, so stale.
    expect(isStale({}, FILTER.rulesDigest)).toBe(true);
  });

  it("reads every day of the period, every tenant the registry lists (operator mode), every shard and page", async () => {
    const asked: string[] = [];
    const index: DayRecords = {
      shardCount: 2,
      listTenants: async (day) => (day === "2026-03-02" ? ["a", "b"] : ["a"]),
      queryDay: async (tenant, day, shard, cursor) => {
        asked.push(`${tenant}/${day}/${shard}/${cursor ?? "-"}`);
        const ref = {
          key: `${tenant}/s/${day}-${shard}-${cursor ?? 0}.REPLAY.jsonl`,
          etag: "e",
          versionId: "v",
          size: 1,
          sequencer: "1",
        };
        const rec = record({
          tenant,
          session: "s",
          ref,
          processed_at: `${day}T01:00:00Z`,
          provenance: undefined,
        });
        return { records: [rec], cursor: cursor === null || cursor === undefined ? "next" : null };
      },
    };
    expect(daysOf("2026-03-01T05:00:00Z", "2026-03-02T00:00:00Z")).toEqual(["2026-03-01", "2026-03-02"]);
    const items = await selectItems(index, {
      ...FILTER,
      since: "2026-03-01T00:00:00Z",
      until: "2026-03-02T23:00:00Z",
      stale: true,
      tenant: null,
    });
    // 2026-03-01: a × 2 shards × 2 pages; 2026-03-02: (a, b) × 2 shards × 2 pages.
    expect(asked).toHaveLength(12);
    expect(items).toHaveLength(12);
    expect(items[0]).toEqual({
      key: "a/s/2026-03-01-0-0.REPLAY.jsonl",
      tenant: "a",
      session: "s",
      version_id: "v",
      etag: "e",
    });
  });
});

describe("reprocessItem and runItems over memory ports", () => {
  it("re-runs stale records under the new rules: the copies that now redact more withdrawn first, every copy re-published", async () => {
    const ports = await seeded(8);
    const items = [...ports.index.files.values()]
      .filter((r) => selects(r, { ...FILTER, stale: true }))
      .map(itemOf);
    expect(items).toHaveLength(8);
    const { changes, failed } = await runItems(
      items,
      (item) => reprocessItem(item, ports, { ...NEW, mode: { kind: "reprocess", runId: "run-1" } }),
      { concurrency: 3 },
    );
    expect(failed).toEqual([]);
    expect(changes.map((c) => c.outcome)).toEqual(Array(8).fill("written"));
    // Every fourth file held an e-mail address: its old copy is withdrawn, the new one redacts it.
    const withdrawn = changes
      .filter((c) => c.withdrawn === "redacts-more")
      .map((c) => c.key)
      .sort();
    expect(withdrawn).toEqual(["acme/s-1/r000.REPLAY.jsonl", "acme/s-1/r004.REPLAY.jsonl"]);
    const copyOf = (key: string) => ports.index.files.get(JSON.stringify(["acme", "s-1", key]))?.layer_c_key;
    expect(ports.publisher.withdrawn.sort()).toEqual(withdrawn.map(copyOf));
    for (const key of withdrawn)
      expect(ports.publisher.copies.get(copyOf(key) as string)?.toString()).toContain("[REDACTED:email]");
    for (const record of ports.index.files.values()) {
      expect(record.provenance?.rules_digest).toBe(rulesDigest("private_repo"));
      expect(record.reprocess_run).toBe("run-1");
      expect(isStale(record, FILTER.rulesDigest)).toBe(false);
    }
    const report = reportOf("run-1", FILTER.rulesDigest, items.length, changes);
    expect(report).toMatchObject({
      selected: 8,
      processed: 8,
      already_done: 0,
      remaining: 0,
      republished: 8,
    });
    expect(report.withdrawn.map((w) => w.reason)).toEqual(["redacts-more", "redacts-more"]);
  });

  it("a rule pack that changes some outputs: only those copies change bytes, the rest are the same bytes", async () => {
    // The test pack: pseudonyms keyed (a changed rule for every file with a finding), its own digest.
    const pack: ProcessOptions = {
      ...NEW,
      redactionKey: Buffer.from("test-pack-key"),
      rulesDigest: `sha256:${"0".repeat(64)}`,
    };
    const ports = memoryPorts();
    for (let i = 0; i < 6; i++)
      await processObject(
        ports.objects.put(`acme/s-1/r${i}.REPLAY.jsonl`, i % 3 === 0 ? WITH_EMAIL : FIX_AUTH),
        ports,
        pack,
      );
    const before = new Map([...ports.publisher.copies].map(([k, v]) => [k, Buffer.from(v)]));
    const items = [...ports.index.files.values()]
      .filter((r) => selects(r, { ...FILTER, stale: true }))
      .map(itemOf);
    expect(items).toHaveLength(6);
    const { changes } = await runItems(
      items,
      (item) => reprocessItem(item, ports, { ...NEW, mode: { kind: "reprocess", runId: "run-k" } }),
      { concurrency: 2 },
    );
    expect(changes.every((c) => c.outcome === "written" && c.withdrawn === null && c.republished)).toBe(true);
    const changed = [...ports.publisher.copies]
      .filter(([k, v]) => !v.equals(before.get(k) as Buffer))
      .map(([k]) => k);
    expect(changed.sort()).toEqual(
      ["acme/s-1/r0.REPLAY.jsonl", "acme/s-1/r3.REPLAY.jsonl"].map(
        (k) => ports.index.files.get(JSON.stringify(["acme", "s-1", k]))?.layer_c_key,
      ),
    );
    expect(ports.publisher.withdrawn).toEqual([]);
  });

  it("stopped midway and resumed with the same run id: every file replaced exactly once, none lost", async () => {
    const ports = await seeded(20);
    const written = countingReplaces(ports);
    const items = [...ports.index.files.values()].map(itemOf);
    const handle = (item: (typeof items)[number]) =>
      reprocessItem(item, ports, { ...NEW, mode: { kind: "reprocess", runId: "run-2" } });
    const stop = new AbortController();
    const first = await runItems(items, handle, {
      concurrency: 2,
      signal: stop.signal,
      onProgress: (n) => n >= 7 && stop.abort(),
    });
    expect(first.changes.length).toBeGreaterThanOrEqual(7);
    expect(first.changes.length).toBeLessThan(20);
    const second = await runItems(items, handle, { concurrency: 4 });
    expect(second.changes.filter((c) => c.outcome === "duplicate")).toHaveLength(first.changes.length);
    expect(second.changes.filter((c) => c.outcome === "written")).toHaveLength(20 - first.changes.length);
    expect([...written.values()]).toEqual(Array(20).fill(1));
    expect(written.size).toBe(20);
    // A third try of the finished run replaces nothing.
    const third = await runItems(items, handle, { concurrency: 4 });
    expect(third.changes.every((c) => c.outcome === "duplicate")).toBe(true);
  });

  it("leaves a key uploaded again since the selection alone (stale), reading nothing", async () => {
    const ports = await seeded(1);
    const [item] = [...ports.index.files.values()].map(itemOf) as [ReturnType<typeof itemOf>];
    await processObject(ports.objects.put(item.key, FIX_AUTH), ports, NEW);
    const change = await reprocessItem(item, ports, { ...NEW, mode: { kind: "reprocess", runId: "run-3" } });
    expect(change.outcome).toBe("stale");
    expect((await ports.index.getFile("acme", "s-1", item.key))?.reprocess_run).toBeUndefined();
  });
});

describe("withdrawal on reprocess", () => {
  const previous = {
    layer_c_key: "acme/s-1/x.layer-c.jsonl",
    redactions: { email: 1 },
  } as unknown as FileRecord;
  const publisher = () => {
    const withdrawn: string[] = [];
    return { withdrawn, withdrawCopy: async (key: string) => void withdrawn.push(key) };
  };

  it("withdraws a copy the new rules do not publish, or that redacted less; keeps one that redacts the same", async () => {
    const p = publisher();
    await withdrawReplaced(p, previous, null);
    await withdrawReplaced(p, previous, () => ({ email: 1 }));
    await withdrawReplaced(p, previous, () => ({ email: 1, ipv4: 1 }));
    // Counts not known yet: fail closed.
    await withdrawReplaced(p, previous, () => {
      throw new Error("not yet");
    });
    await withdrawReplaced(p, null, null);
    expect(p.withdrawn).toEqual([previous.layer_c_key, previous.layer_c_key, previous.layer_c_key]);
  });

  it("says a copy withdrawn because the file now fails", () => {
    const before = { ...previous, ref: { key: "k" }, verdict: "passed" } as FileRecord;
    const after = { ...before, verdict: "failed", layer_c_key: null } as FileRecord;
    expect(changeOf(before, after, "written")).toEqual({
      key: "k",
      outcome: "written",
      verdict_before: "passed",
      verdict_after: "failed",
      republished: false,
      withdrawn: "now-fails",
    });
  });
});
