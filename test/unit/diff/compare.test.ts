import { describe, expect, it } from "vitest";
import { diffSessions } from "#shared/diff/index.js";
import type { SessionView, ViewStep } from "#shared/view/index.js";
import { readSessionView } from "#shared/view/index.js";
import { chunksOf, everyFormat, layerCCopy } from "../../support/sessions.js";

const FILES = everyFormat();

async function viewOf(bytes: Uint8Array, file: string): Promise<SessionView> {
  return (await readSessionView(chunksOf(bytes), { file, parallel: { workers: 0 } })).view;
}

/** A session of tool steps, each `name:params[:output]`, with ids when `ids`. */
function session(specs: string[], ids = false): SessionView {
  const steps = specs.map((spec, i): ViewStep => {
    const [name = "", params = "", output = "o", id] = spec.split(":");
    return {
      n: i + 1,
      kind: "tool",
      id: ids ? (id ?? `${name}-${params}`) : null,
      name,
      line: null,
      status: "ok",
      duration_ms: i,
      hashes: [
        { field: "params", recorded: `sha256:${params}`, actual: null, status: null },
        { field: "output", recorded: `sha256:${output}`, actual: null, status: null },
      ],
      markers: [],
      text: null,
      call: null,
      receipt: [],
    };
  });
  return {
    file: "x",
    format: "replay-v1",
    verdict: "passed",
    replay_hash: "sha256:0",
    trajectory_hash: null,
    bytes: 0,
    session_id: "s",
    producer: null,
    checks: [],
    checks_total: { passed: 0, failed: 0, unverifiable: 0 },
    errors: [],
    errors_total: 0,
    original: null,
    redaction: null,
    receipt: null,
    steps,
  };
}

describe("diffSessions", () => {
  it("names the tampered step of fix-auth and tampered, and of their two Layer C copies", async () => {
    const a = FILES["examples/fix-auth.REPLAY.jsonl"] as Buffer;
    const b = FILES["examples/tampered.REPLAY.jsonl"] as Buffer;
    for (const [x, y] of [
      [await viewOf(a, "a"), await viewOf(b, "b")],
      [await viewOf(await layerCCopy(a, "a"), "a.lc"), await viewOf(await layerCCopy(b, "b"), "b.lc")],
    ] as const) {
      const diff = diffSessions(x, y);
      expect(diff.equal).toBe(false);
      expect(diff.changed).toHaveLength(1);
      expect(diff.changed[0]?.b.id).toBe("tc_001");
      expect(diff.changed[0]?.fields.map((f) => f.field)).toEqual(["params"]);
      expect(diff.first_divergence).toMatchObject({ op: "changed", b: { id: "tc_001" } });
      expect(diff.counts).toMatchObject({ equal: 1, added: 0, removed: 0 });
    }
  });

  it.each(Object.keys(FILES))("finds %s equal to itself and to its Layer C copy", async (name) => {
    const bytes = FILES[name] as Buffer;
    const view = await viewOf(bytes, name);
    expect(diffSessions(view, view).equal).toBe(true);
    const copy = await viewOf(await layerCCopy(bytes, name), `${name}.lc`);
    const diff = diffSessions(view, copy);
    expect(diff.changed).toEqual([]);
    expect(diff.added.length + diff.removed.length).toBe(0);
    expect(diff.equal).toBe(true);
  });

  it("compares across formats: a ReplayBundle and the REPLAY.jsonl exported from it", async () => {
    const bundle = await viewOf(FILES["openagents/replaybundle-sample.json"] as Buffer, "bundle");
    const exported = await viewOf(FILES["exported/adr0003.REPLAY.jsonl"] as Buffer, "adr0003");
    const diff = diffSessions(bundle, exported);
    expect(diff.counts.equal).toBeGreaterThan(0);
    expect(diff.equal).toBe(true);
  });

  it("aligns an insertion and a deletion without marking what follows as changed", () => {
    const a = session(["read:1", "shell:2", "write:3", "shell:4"]);
    const b = session(["read:1", "grep:9", "shell:2", "shell:4"]);
    const diff = diffSessions(a, b);
    expect(diff.added.map((s) => s.name)).toEqual(["grep"]);
    expect(diff.removed.map((s) => s.name)).toEqual(["write"]);
    expect(diff.changed).toEqual([]);
    expect(diff.counts.equal).toBe(3);
  });

  it("gives the same tool with other params as one changed step, naming params", () => {
    const diff = diffSessions(session(["read:1", "shell:2"]), session(["read:7", "shell:2"]));
    expect(diff.changed).toHaveLength(1);
    expect(diff.changed[0]?.fields).toEqual([{ field: "params", a: "sha256:1", b: "sha256:7" }]);
    expect(diff.first_divergence).toMatchObject({ op: "changed", a: { n: 1 }, b: { n: 1 } });
  });

  it("pairs steps by a shared call id, so a reordered call is one move, not two edits", () => {
    const a = session(["read:1:o:c1", "shell:2:o:c2", "write:3:o:c3", "grep:4:o:c4"], true);
    const b = session(["read:1:o:c1", "write:3:o:c3", "grep:4:o:c4", "shell:2:x:c2"], true);
    const diff = diffSessions(a, b);
    expect(diff.alignment.shared_ids).toBe(4);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    expect(diff.counts.moved).toBe(1);
    const moved = diff.changed[0];
    expect(moved?.a.id).toBe("c2");
    expect(moved?.fields).toEqual([
      { field: "position", a: "2", b: "4" },
      { field: "output", a: "sha256:o", b: "sha256:x" },
    ]);
  });

  it("does not align by position: a step added at the front shifts nothing", () => {
    const a = session(["read:1", "shell:2", "write:3"]);
    const b = session(["plan:0", "read:1", "shell:2", "write:3"]);
    const diff = diffSessions(a, b);
    expect(diff.counts).toMatchObject({ equal: 3, changed: 0, added: 1, removed: 0 });
    expect(diff.first_divergence).toMatchObject({ op: "added", b: { n: 1, name: "plan" } });
  });
});
