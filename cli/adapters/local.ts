/**
 * The per-file job for the one-off commands (`inspect`, `verify`, `redact`, `scan`): `processObject`
 * on a path as given, with ports that keep nothing: a receipt given on the command line held in
 * memory, the Layer C copy handed to the command (a file or standard output), verdict documents
 * and index records dropped with the run.
 */

import { tmpdir } from "node:os";
import type { InspectReport } from "#shared/formats/index.js";
import type { LocalReceipt, ObjectSource, Publisher } from "#shared/pipeline/index.js";
import {
  MemoryObjectStore,
  MemorySessionIndex,
  type ProcessOptions,
  type ProcessResult,
  processObject,
} from "#shared/pipeline/index.js";
import { fileSpool } from "#shared/spool/index.js";
import { openStream, readInput, toInputError, toolVersion } from "../io.js";

/** Where a local job's Layer C copy goes (a file, standard output); absent: no copy is made. */
export type CopySink = (body: AsyncIterable<Uint8Array>) => Promise<void>;

/** Options of a local job: `processObject`'s, with the copy's sink and the receipt as paths. */
export interface LocalJobOptions extends Omit<ProcessOptions, "toolVersion" | "mode" | "now"> {
  /** Make the Layer C copy and hand it here; without it the file is only inspected. */
  copy?: CopySink;
  /** A receipt file to check the replay against; null: against none (unverifiable). */
  receipt?: string | null;
}

/** Hands the copy to the command's sink; keeps nothing else. */
class SinkPublisher implements Publisher {
  constructor(private readonly sink: CopySink | undefined) {}

  async publishCopy(_key: string, body: AsyncIterable<Uint8Array>): Promise<void> {
    if (this.sink === undefined) throw new Error("a local job without a copy sink published a copy");
    await this.sink(body);
  }

  async withdrawCopy(): Promise<void> {
    // A local job checks its receipt before it publishes: nothing is ever withdrawn.
  }

  async putDocument(): Promise<void> {
    // The command prints what it needs from the result.
  }
}

/** The source of a path as given (`-` is standard input). */
function pathSource(path: string): ObjectSource {
  return {
    key: path,
    etag: null,
    versionId: null,
    size: null,
    sequencer: null,
    open: () => openStream(path),
  };
}

/**
 * Runs the pipeline's per-file job on `file`: one read, the verdict, the receipt check when a
 * receipt is given, the Layer C copy when a sink is. Read errors name the file they are about.
 */
export async function localJob(file: string, options: LocalJobOptions = {}): Promise<ProcessResult> {
  const { copy, receipt, ...rest } = options;
  const objects = new MemoryObjectStore();
  let checkAgainst: LocalReceipt = receipt === null ? "none" : "unchecked";
  if (typeof receipt === "string") {
    const { open: _, ...ref } = objects.put(receipt, await readInput(receipt));
    checkAgainst = ref;
  }
  const ports = {
    objects,
    publisher: new SinkPublisher(copy),
    index: new MemorySessionIndex(),
    spool: fileSpool(tmpdir()),
  };
  try {
    return await processObject(pathSource(file), ports, {
      ...rest,
      toolVersion: toolVersion(),
      mode: { kind: copy === undefined ? "inspect-only" : "local", receipt: checkAgainst },
    });
  } catch (error) {
    throw toInputError(file, error);
  }
}

/** The (scrubbed) inspect report of a local job, which reads every file as a replay. */
export function reportOf(result: ProcessResult): InspectReport {
  const { report } = result.document;
  if (report === null) throw new Error(`no inspect report for ${result.record.ref.key}`);
  return report;
}
