/** The OpenAgents ReplayBundle: schemas, the reader (and what the exporter reuses), and what Layer C keeps. */
export { BUNDLE_FIELDS } from "./fields.js";
export {
  type BundleEntry,
  type BundleOutcome,
  type BundleStatus,
  type BundleView,
  bundleOutcome,
  isReplayBundle,
  offsetTimestamp,
  type PairedToolCall,
  pairToolCalls,
  readBundle,
  receiptVerification,
  replayBundleFormat,
  toolCallId,
  toolResultOk,
} from "./reader.js";
export { BUNDLE_EVENT_TYPES } from "./schema.js";
