/**
 * Replay formats: detection, one folder per format (schema, reader, summary, and the field lists
 * Layer C keeps), `inspect`, the session model, and the ReplayBundle exporter.
 */
export { ExportError } from "../errors.js";
export { SPAN_FIELD_SET_OF_SCHEMA, SPAN_FIELDS } from "./braintrust/index.js";
export {
  EXPORT_VERSION,
  type ExportOptions,
  type ExportResult,
  exportReplayBundle,
  notBundle,
} from "./export.js";
export { type GzipLimits, gunzipped } from "./gzip.js";
export {
  type InspectOptions,
  type InspectReport,
  type InspectResult,
  inspect,
  verdictOf,
} from "./inspect.js";
export { type LayerCOrigin, layerCOriginOf } from "./layer-c-record.js";
export { locatePath, pathSegments } from "./locate.js";
export { detectFormat, readerFor } from "./registry.js";
export { BUNDLE_EVENT_TYPES, BUNDLE_FIELDS } from "./replay-bundle/index.js";
export {
  detectReplayDialect,
  REPLAY_DIALECTS,
  REPLAY_EVENT_FIELDS_OF_SCHEMAS,
  REPLAY_FORMAT_IDS,
  type ReplayEventFields,
  type ReplayFormatId,
} from "./replay-jsonl/index.js";
export {
  computeChecksum,
  computeStepHash,
  LEGACY_VERSION,
  RPK_FIELDS,
  RUN_KEYS,
  STEP_KEYS,
  STEP_TYPES,
  type StepContent,
  stepContent,
} from "./replaykit/index.js";
export {
  type CheckRow,
  type CheckStatus,
  type DocumentFormat,
  emptySummary,
  type FieldSet,
  type Finding,
  Findings,
  FORMAT_IDS,
  type FormatId,
  type FormatOptions,
  type FormatReader,
  fillResult,
  findingOf,
  type LineConsumer,
  type LineFormat,
  type LineTap,
  MAX_FAILED_KEPT,
  MAX_ROWS,
  type RuntimeEventRecord,
  type Session,
  type SessionSummary,
  type TappedLine,
  type ToolCallRecord,
  type ToolCallSink,
  type ToolResultFields,
  type Turn,
  type Verdict,
  type VerificationRecord,
} from "./types.js";
export { describe, validate, zHash, zInteger, zNumber } from "./validate.js";
