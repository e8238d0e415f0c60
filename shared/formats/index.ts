/**
 * Replay formats: detection, one folder per format (schema, reader, summary, and the field lists
 * Layer C keeps), `inspect`, the session model, and the ReplayBundle exporter.
 */

export { SPAN_FIELD_SET_OF_SCHEMA } from "./braintrust/index.js";
export { exportReplayBundle, notBundle } from "./export.js";
export { gunzipped } from "./gzip.js";
export {
  type InspectOptions,
  type InspectReport,
  type InspectResult,
  inspect,
} from "./inspect.js";
export {
  type FieldLists,
  type LayerCFieldsData,
  REPLAY_EVENT_FIELDS,
  SPAN_FIELD_SET,
} from "./layer-c-fields.js";
export type { LayerCOrigin } from "./layer-c-record.js";
export { detectFormat } from "./registry.js";
export { BUNDLE_FIELDS } from "./replay-bundle/index.js";
export {
  REPLAY_EVENT_FIELDS_OF_SCHEMAS,
  type ReplayEventFields,
} from "./replay-jsonl/index.js";
export {
  computeChecksum,
  computeStepHash,
  LEGACY_VERSION,
  RPK_FIELDS,
  stepContent,
} from "./replaykit/index.js";
export { contentShape } from "./shape.js";
export {
  type CheckRow,
  type CheckStatus,
  type ContentShape,
  type FieldSet,
  type Finding,
  Findings,
  FORMAT_IDS,
  type FormatId,
  type FormatOptions,
  type FusedTask,
  fillResult,
  findingOf,
  type LineTap,
  MAX_FAILED_KEPT,
  MAX_ROWS,
  type Session,
  type SessionSummary,
  type TappedLine,
  type ToolCallRecord,
  type ToolCallSink,
  type ToolResultFields,
  type Turn,
  type Verdict,
} from "./types.js";
export {
  describe,
  member,
  numberMember,
  stringMember,
  validate,
  zHash,
  zInteger,
  zNumber,
} from "./validate.js";
