/** Replay files of every format for the viewer and diff tests, and their Layer C copies. */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeUtf8, readJson } from "#shared/canonical/index.js";
import { exportReplayBundle } from "#shared/formats/index.js";
import { inspectRedactTask, redactChecked } from "#shared/redact/index.js";
import { memorySpool } from "#shared/spool/index.js";
import { CORPUS, corpusBytes, PROJECT_ROOT } from "./corpus.js";

/** `bytes` as the chunks a reader takes. */
export async function* chunksOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * Every replay of the corpus and the examples, by a name that says where it is from, and an
 * ADR-0003 REPLAY.jsonl exported from the corpus bundle (the corpus has none of that dialect).
 */
export function everyFormat(): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const folder = (dir: string, test: (name: string) => boolean): void => {
    for (const name of readdirSync(join(CORPUS, dir)).sort())
      if (test(name)) files[`${dir}/${name}`] = corpusBytes(dir, name);
  };
  folder("openagents/replays-type-ts", (n) => n.endsWith(".jsonl"));
  folder("replaykit/runs", (n) => n.endsWith(".rpk"));
  folder("dynamo", (n) => n.endsWith(".jsonl"));
  files["openagents/replaybundle-sample.json"] = corpusBytes("openagents", "replaybundle-sample.json");
  for (const name of readdirSync(join(PROJECT_ROOT, "examples")).sort())
    if (/\.(jsonl|json|rpk)$/.test(name) && !/receipt/i.test(name))
      files[`examples/${name}`] = readFileSync(join(PROJECT_ROOT, "examples", name));
  const bundle = readJson(decodeUtf8(corpusBytes("openagents", "replaybundle-sample.json")));
  files["exported/adr0003.REPLAY.jsonl"] = Buffer.from(
    exportReplayBundle(bundle, { dialect: "adr0003" }).text,
  );
  return files;
}

/** The Layer C copy of `bytes` (a failed input copied too, its failed rows recorded). */
export async function layerCCopy(bytes: Uint8Array, file: string): Promise<Buffer> {
  const result = redactChecked(chunksOf(bytes), {
    task: inspectRedactTask,
    file,
    allowUnverified: true,
    spool: memorySpool(),
    parallel: { workers: 0 },
  });
  const parts: Uint8Array[] = [];
  for await (const chunk of result.chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

/** Secrets planted in `replayWithSecrets`: none may reach a Layer C copy or a page made from one. */
export const PLANTED_SECRETS = ["ghp_Q7r8A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6", "AKIAZ7Q4W2E5R3T6Y2U4"] as const;

/**
 * The `fix-auth` example with one more tool call that reads credentials: the planted secrets in its
 * params and output (both hashed as the format asks, so the file still passes) and in the
 * verification command.
 */
export function replayWithSecrets(): Buffer {
  const [token, key] = PLANTED_SECRETS;
  const hashed = (value: Record<string, unknown>) =>
    `sha256:${createHash("sha256").update(JSON.stringify(value)).digest("hex")}`;
  const params = { command: `curl -H "Authorization: token ${token}" https://api.github.com/user` };
  const output = { content: `aws_access_key_id = ${key}\n`, error: null, success: true };
  const lines = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"), "utf8")
    .trimEnd()
    .split("\n");
  const added = [
    {
      event: "ToolCall",
      id: "tc_003",
      params,
      params_hash: hashed(params),
      step_id: "step-3",
      t: "2026-01-13T10:05:29Z",
      tool: "shell",
    },
    {
      event: "ToolResult",
      id: "tc_003",
      latency_ms: 5,
      output,
      output_hash: hashed(output),
      step_utility: 0.5,
      t: "2026-01-13T10:05:29Z",
    },
  ].map((line) => JSON.stringify(line));
  const withCommand = lines.map((line) =>
    line.includes('"event":"Verification"')
      ? line.replace('"cargo test -p auth"', `"GITHUB_TOKEN=${token} cargo test -p auth"`)
      : line,
  );
  return Buffer.from(`${[...withCommand.slice(0, 6), ...added, ...withCommand.slice(6)].join("\n")}\n`);
}

/**
 * A confidential name no scrubber rule knows (it is not shaped like a credential): only Layer C's
 * removal of content keeps it out of a copy, so a page of the original would show it.
 */
export const PLANTED_NAME = "db-bluefin-orchid-5519";

/** The span-trace example with `PLANTED_NAME` in its first turn's input. */
export function traceWithSecret(): Buffer {
  const text = readFileSync(join(PROJECT_ROOT, "examples", "support-chat.trace.jsonl"), "utf8");
  return Buffer.from(text.replace("login test fail?", `login test fail on host ${PLANTED_NAME}?`));
}
