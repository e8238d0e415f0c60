/**
 * Layer C: the published copy of a replay file (raw content removed, hashes kept, strings
 * scrubbed), the secret rules and privacy presets behind it, and the scrubbing of our own reports.
 */

export { redactChecked, refusedError } from "./checked.js";
export { Context } from "./layer-c/context.js";
export { redactFile } from "./layer-c/entry.js";
export { inspectRedactTask } from "./layer-c/fused.js";
export type { LayerCSummary } from "./layer-c/summary.js";
export { redactTask } from "./layer-c/task.js";
export { redactReplayEvent } from "./layer-c/transform.js";

export { isPreset, PRESETS, type Preset, presetPolicy } from "./presets.js";
export { scrubReport, scrubText } from "./report.js";
export { type Layer, PATTERN_RULES, type PackRule, type PatternRule, SECRETLINT_PRESET_ID } from "./rules.js";
export { Scrubber } from "./scrub.js";
