import type { JsonValue } from "../canonical/index.js";
import { braintrustFormat, isBraintrustSpan } from "./braintrust/index.js";
import { isReplayBundle, replayBundleFormat } from "./replay-bundle/index.js";
import {
  detectReplayDialect,
  replayAdr0003Format,
  replayDsrsFormat,
  replayV1Format,
} from "./replay-jsonl/index.js";
import { isReplaykitArtifact, replaykitFormat } from "./replaykit/index.js";
import type { FormatId, FormatReader } from "./types.js";

const READERS: Record<FormatId, FormatReader> = {
  "replay-v1": replayV1Format,
  "replay-dsrs": replayDsrsFormat,
  "replay-adr0003": replayAdr0003Format,
  "replay-bundle": replayBundleFormat,
  "braintrust-spans": braintrustFormat,
  "replaykit-rpk": replaykitFormat,
};

/** The reader of a format. */
export function readerFor(format: FormatId): FormatReader {
  return READERS[format];
}

/**
 * The format of a file from its first value (a JSON Lines file's first line, or a whole
 * document), by content alone; null when it is none of ours.
 */
export function detectFormat(value: JsonValue): FormatId | null {
  if (isReplaykitArtifact(value)) return "replaykit-rpk";
  if (isReplayBundle(value)) return "replay-bundle";
  if (isBraintrustSpan(value)) return "braintrust-spans";
  return detectReplayDialect(value) ?? null;
}
