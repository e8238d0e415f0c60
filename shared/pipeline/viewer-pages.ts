/**
 * Viewer pages of published copies (`viewerPageKey`: `<copy key>.view.html`, beside the copy): the
 * page `replay-pipeline view` writes, built from the copy's bytes as published and from nothing
 * else. A Layer C copy holds none of what its redaction removed, so its page cannot either; the
 * original is never read for it. A publisher configured with `viewerPages` writes one with each
 * copy and removes it with the copy.
 */
import { scrubReport } from "../redact/index.js";
import type { Spool, SpoolFile } from "../spool/index.js";
import { readSessionView, viewerPage } from "../view/index.js";

/**
 * The viewer page of the copy `copyKey` whose bytes are `copy`: its header, timeline, hashes and
 * redaction markers, every string scrubbed as every page of the viewer is.
 */
export async function copyViewerPage(copyKey: string, copy: AsyncIterable<Uint8Array>): Promise<string> {
  const { view } = await readSessionView(copy, { file: copyKey });
  return viewerPage(scrubReport(view));
}

/** A stream kept in a spool file as it passes (`spooled`). */
export interface SpooledStream {
  /** The stream: read it to its end before `replay`. */
  body: AsyncIterable<Uint8Array>;
  /** The bytes that passed, read back from the spool; throws unless `body` was read to its end. */
  replay(): AsyncIterable<Uint8Array>;
  /** Frees the spool file. Never throws. */
  dispose(): Promise<void>;
}

/**
 * `body` passed through and written to a spool file on the way, each chunk stored before it is
 * handed on (memory stays at one chunk): a copy uploaded from a stream can then be read again, from
 * the function's disk rather than from the bucket.
 */
export function spooled(body: AsyncIterable<Uint8Array>, spool: Spool): SpooledStream {
  const state: { file: SpoolFile | null; size: number; ended: boolean } = {
    file: null,
    size: 0,
    ended: false,
  };
  async function* tee(): AsyncGenerator<Uint8Array> {
    const file = await spool.create();
    state.file = file;
    for await (const chunk of body) {
      await file.write(chunk, state.size);
      state.size += chunk.length;
      yield chunk;
    }
    state.ended = true;
  }
  return {
    body: tee(),
    replay: () => {
      if (!state.ended || state.file === null) throw new Error("spooled: the stream was not read to its end");
      return state.file.read(0, state.size);
    },
    dispose: async () => {
      await state.file?.dispose();
    },
  };
}
