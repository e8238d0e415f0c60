/**
 * Layer C: the published copy of a replay file (raw content removed, hashes kept, strings
 * scrubbed), the secret rules and privacy presets behind it, and the scrubbing of our own reports.
 */

export {
  type CheckedOptions,
  originOf,
  redactChecked,
  refusedError,
} from "./checked.js";

export { RPK_MASK, RPK_REDACTION_POLICY_VERSION } from "./layer-c/documents.js";
export { redactFile } from "./layer-c/entry.js";
export { tapOf } from "./layer-c/fused.js";
export {
  LineRedactor,
  type LinesFormat,
  withSummary,
} from "./layer-c/lines.js";
export { isStructuralKey, PARANOID_TEXT, RAW_KEYS, UNKNOWN_EVENT_ALLOW } from "./layer-c/policy.js";
export { type LayerCCounts, type LayerCSummary, layerCSummary, mergeCounts } from "./layer-c/summary.js";

export { LayerCWriter } from "./layer-c/writer.js";
export {
  PRESETS,
  type Preset,
  presetPolicy,
} from "./presets.js";
export { scrubReport, scrubText } from "./report.js";
export type { Layer } from "./rules.js";
export { Scrubber } from "./scrub.js";
