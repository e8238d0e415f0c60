/**
 * Layer C: the published copy of a replay file (raw content removed, hashes kept, strings
 * scrubbed), the secret rules and privacy presets behind it, and the scrubbing of our own reports.
 */
export { RedactError } from "../errors.js";
export {
  type CheckedOptions,
  type CheckedRedaction,
  originOf,
  RedactRefusedError,
  redactChecked,
  refusedError,
} from "./checked.js";
export type { StringScrubber } from "./layer-c/context.js";
export { RPK_MASK, RPK_REDACTION_POLICY_VERSION } from "./layer-c/documents.js";
export { type LayerCOptions, type LayerCRedaction, type LayerCResult, redactFile } from "./layer-c/entry.js";
export { type InspectRedactInit, inspectRedactTask, tapOf } from "./layer-c/fused.js";
export {
  isLinesFormat,
  LineRedactor,
  type LineRedactorOptions,
  type LinesFormat,
  type RedactedLine,
  withSummary,
} from "./layer-c/lines.js";
export { isStructuralKey, PARANOID_TEXT, RAW_KEYS, UNKNOWN_EVENT_ALLOW } from "./layer-c/policy.js";
export { type LayerCCounts, type LayerCSummary, layerCSummary, mergeCounts } from "./layer-c/summary.js";
export { type RedactTaskInit, redactTask } from "./layer-c/task.js";
export { LayerCWriter } from "./layer-c/writer.js";
export {
  DEFAULT_PRESET,
  isPreset,
  PRESETS,
  type Preset,
  type PresetPolicy,
  presetPolicy,
} from "./presets.js";
export { scrubReport, scrubText } from "./report.js";
export { LAYERS, type Layer } from "./rules.js";
export { type RedactionSummary, Scrubber, type ScrubOptions } from "./scrub.js";
