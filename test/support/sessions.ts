/** Replay files of every format for the viewer and diff tests, and their Layer C copies. */
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
