/** The OpenAgents ReplayBundle: schemas, the reader (and what the exporter reuses), and what Layer C keeps. */
export { BUNDLE_FIELDS } from "./fields.js";
export {
  type BundleEntry,
  type BundleView,
  bundleOutcome,
  isReplayBundle,
  offsetTimestamp,
  pairToolCalls,
  readBundle,
  receiptVerification,
  replayBundleFormat,
  toolResultOk,
} from "./reader.js";
