/**
 * A secret found once is redacted wherever it recurs later in the file, whichever thread redacted
 * the line that revealed it: with workers, a later batch may be redacted by a thread that never
 * saw the earlier one, so the writer carries what each batch learned to every batch after it, in
 * file order. The copy is the same on one thread and on workers.
 */
import { describe, expect, it } from "vitest";
import type { LayerCOrigin } from "#shared/formats/index.js";
import type { ParallelOptions } from "#shared/parallel/index.js";
import { inspectRedactTask, redactChecked, redactFile } from "#shared/redact/index.js";
import { LINE_WORKER } from "../../../support/worker.js";
import { fakeHash } from "./helpers.js";

const ONE_THREAD: ParallelOptions = { workers: 0 };
/** Small batches, every one on a worker or here as the scheduler goes. */
const workers = (batchBytes: number): ParallelOptions => ({
  workers: 1,
  threshold: 0,
  batchBytes,
  waitForWorkers: true,
  workerScript: LINE_WORKER,
});
const WORKERS = workers(2048);

const ORIGIN: LayerCOrigin = {
  replay_hash: fakeHash("0"),
  verdict: "passed",
  checks_total: { passed: 1, failed: 0, unverifiable: 0 },
  errors_total: 0,
};

const SESSION = "6b1f4a52-0d1c-4a8e-9d55-4b8c2f0e7a10";

/** A Verification event: its `command` is text a Layer C copy keeps. */
function event(step: number, command: string): string {
  return JSON.stringify({
    type: "Verification",
    ts: `2026-02-15T09:00:${String(step % 60).padStart(2, "0")}.000Z`,
    session_id: SESSION,
    command,
    cwd: "/workspace/repo",
    exit_code: 0,
    duration_ms: 1200 + step,
    verification_delta: 0,
  });
}

/**
 * A replay where each secret is revealed once, by what stands around it, and recurs bare (nothing
 * around it says what it is) many batches later, between blanks, quotes, escapes or in a URL.
 */
function replay(secrets: readonly string[], filler: number): string {
  const lines = [
    JSON.stringify({
      type: "ReplayHeader",
      replay_version: 1,
      producer: "test",
      created_at: "2026-02-15T08:00:00Z",
    }),
  ];
  let step = 0;
  for (const secret of secrets) lines.push(event(++step, `export DB_PASSWORD='${secret}'`));
  for (let k = 0; k < filler; k++)
    lines.push(event(++step, `ls -la src/module-${k} && npm run build --workspace=pkg-${k}`));
  for (const secret of secrets) {
    lines.push(event(++step, `psql -c "select 1" ${secret}`));
    lines.push(event(++step, `cat notes.txt\n${secret}\ndone`));
    lines.push(event(++step, `curl https://example.com/login?next=${secret}&x=1`));
  }
  return `${lines.join("\n")}\n`;
}

/** A Braintrust span under the root span `root` (or the root itself): its `name` is kept text. */
const span = (id: string, name: string): string =>
  JSON.stringify({
    id,
    span_id: id,
    root_span_id: "root",
    ...(id === "root" ? {} : { span_parents: ["root"] }),
    created: "2026-02-03T02:52:03.000Z",
    span_attributes: { name, type: "task" },
  });

async function* chunksOf(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

async function copyOf(text: string, parallel: ParallelOptions, file = "REPLAY.jsonl"): Promise<string> {
  const redaction = redactFile(chunksOf(text), { file, original: ORIGIN, parallel });
  const parts: Buffer[] = [];
  for await (const chunk of redaction.chunks) parts.push(Buffer.from(chunk));
  expect(redaction.errors).toEqual([]);
  return Buffer.concat(parts).toString("utf8");
}

/** The copy `redactChecked` makes (the pipeline's path: inspect and Layer C in one read). */
async function checkedCopyOf(text: string, parallel: ParallelOptions): Promise<string> {
  const result = redactChecked(chunksOf(text), {
    task: inspectRedactTask,
    file: "REPLAY.jsonl",
    allowUnverified: true,
    parallel,
  });
  const parts: Buffer[] = [];
  for await (const chunk of result.chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString("utf8");
}

describe("a secret revealed in one batch and recurring in later ones", () => {
  // With chunk breaks too (`&`, `:`, `;`): found by their longest run, then checked whole.
  const secrets = [
    "correcthorsebattery",
    "Tr0ub4dor&3x",
    "hunter2hunter2",
    "plain-words-as-pass",
    "p4ss:w0rd;2026",
  ];
  const text = replay(secrets, 300);

  it("is redacted in every recurrence on one thread", async () => {
    const copy = await copyOf(text, ONE_THREAD);
    for (const secret of secrets) expect(copy).not.toContain(secret);
    expect(copy).toContain("[REDACTED:");
  });

  it("is redacted in every recurrence on workers, and the copy is the one-thread copy", async () => {
    const one = await copyOf(text, ONE_THREAD);
    for (const batchBytes of [700, 2048, 2048, 9000]) {
      const copy = await copyOf(text, workers(batchBytes));
      for (const secret of secrets) expect(copy).not.toContain(secret);
      expect(copy).toBe(one);
    }
  });

  it("the same through inspect and Layer C in one read (the pipeline's path)", async () => {
    const one = await checkedCopyOf(text, ONE_THREAD);
    for (const secret of secrets) expect(one).not.toContain(secret);
    expect(await checkedCopyOf(text, WORKERS)).toBe(one);
  });
});

describe("a secret revealed on the first line", () => {
  // The writer redacts a file's first line itself (it tells the format); the lines after it are
  // redacted by a line task that never saw it.
  const text = `${[
    span("root", "deploy with --password=correcthorsebattery"),
    ...Array.from({ length: 40 }, (_, k) => span(`s-${k}`, `step ${k}: retry correcthorsebattery`)),
  ].join("\n")}\n`;

  for (const [mode, parallel] of [
    ["one thread", ONE_THREAD],
    ["workers", WORKERS],
  ] as const) {
    it(`is redacted on the lines after it (${mode})`, async () => {
      const copy = await copyOf(text, parallel, "spans.jsonl");
      expect(copy).not.toContain("correcthorsebattery");
      expect(copy.split("[REDACTED:").length - 1).toBe(41);
    });
  }
});

describe("a secret revealed after the lines that hold it", () => {
  // The copy is spooled as it is written; once every line is in, the lines before the last one
  // that revealed a secret are read again with all the file revealed, and those that change are
  // swapped in as the copy is read back.
  const secrets = ["correcthorsebattery", "Tr0ub4dor&3x", "hunter2hunter2", "p4ss:w0rd;2026"];
  const header = JSON.stringify({
    type: "ReplayHeader",
    replay_version: 1,
    producer: "test",
    created_at: "2026-02-15T08:00:00Z",
  });
  const lines = [header];
  let step = 0;
  for (const secret of secrets) {
    lines.push(event(++step, `psql -c "select 1" ${secret}`));
    lines.push(event(++step, `cat notes.txt\n${secret}\ndone`));
  }
  for (let k = 0; k < 300; k++)
    lines.push(event(++step, `ls -la src/module-${k} && npm run build --workspace=pkg-${k}`));
  for (const secret of secrets) lines.push(event(++step, `export DB_PASSWORD='${secret}'`));
  const text = `${lines.join("\n")}\n`;

  /** The tags of the copy's events, and the total its summary gives. */
  const tally = (copy: string): { tags: number; total: number } => {
    const [first, ...rest] = copy.trimEnd().split("\n");
    const summary = JSON.parse(first as string).redaction as { total: number };
    return { tags: rest.join("\n").split("[REDACTED:").length - 1, total: summary.total };
  };

  it("is redacted in the lines before it, and counted, on one thread", async () => {
    const copy = await copyOf(text, ONE_THREAD);
    for (const secret of secrets) expect(copy).not.toContain(secret);
    const { tags, total } = tally(copy);
    expect(tags).toBe(3 * secrets.length);
    expect(total).toBe(tags);
  });

  it("gives the one-thread copy on workers, whatever the batches", async () => {
    const one = await copyOf(text, ONE_THREAD);
    for (const batchBytes of [700, 2048, 9000]) expect(await copyOf(text, workers(batchBytes))).toBe(one);
  });

  it("the same through inspect and Layer C in one read (the pipeline's path)", async () => {
    const one = await checkedCopyOf(text, ONE_THREAD);
    for (const secret of secrets) expect(one).not.toContain(secret);
    expect(await checkedCopyOf(text, WORKERS)).toBe(one);
  });

  it("counts each replacement once when the secrets come before their recurrences", async () => {
    const forward = `${[header, ...lines.slice(1).reverse()].join("\n")}\n`;
    const copy = await copyOf(forward, ONE_THREAD);
    for (const secret of secrets) expect(copy).not.toContain(secret);
    expect(tally(copy).tags).toBe(tally(copy).total);
  });
});

describe("a secret on the carrier line, revealed later", () => {
  // The root span carries the summary: its revisited copy is the one the summary is written into.
  const text = `${[
    span("root", "retry correcthorsebattery"),
    ...Array.from({ length: 40 }, (_, k) => span(`s-${k}`, `step ${k}: build`)),
    span("s-last", "deploy with --password=correcthorsebattery"),
  ].join("\n")}\n`;

  for (const [mode, parallel] of [
    ["one thread", ONE_THREAD],
    ["workers", WORKERS],
  ] as const) {
    it(`is redacted there, and the summary counts it (${mode})`, async () => {
      const copy = await copyOf(text, parallel, "spans.jsonl");
      expect(copy).not.toContain("correcthorsebattery");
      const root = JSON.parse(copy.split("\n")[0] as string);
      expect(root.span_attributes.name).toMatch(/^retry \[REDACTED:/);
      expect(root.metadata.redaction.total).toBe(2);
      expect(copy.split("[REDACTED:").length - 1).toBe(2);
    });
  }
});

describe("a secret another line revealed, as a removed member's name", () => {
  // The summary counts removed members by path, and a path holds the member's name.
  const secret = "Zq7-correcthorse+battery/9";
  const removed = (step: number): string => {
    const value = JSON.parse(event(step, "ls")) as Record<string, unknown>;
    value.env = { [secret]: 1 };
    return JSON.stringify(value);
  };
  for (const [order, lines] of [
    ["before", [removed(1), event(2, "ls"), event(3, `export DB_PASSWORD='${secret}'`)]],
    ["after", [event(1, `export DB_PASSWORD='${secret}'`), event(2, "ls"), removed(3)]],
  ] as const) {
    it(`is not spelled out in the summary's paths (revealed ${order} it)`, async () => {
      const header = JSON.stringify({
        type: "ReplayHeader",
        replay_version: 1,
        producer: "test",
        created_at: "2026-02-15T08:00:00Z",
      });
      const copy = await copyOf(`${[header, ...lines].join("\n")}\n`, ONE_THREAD);
      expect(copy).not.toContain(secret);
      expect(copy).toContain('$.env[\\"[REDACTED:generic-secret]\\"]');
    });
  }
});
