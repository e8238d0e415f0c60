/**
 * The per-file job (`processObject`) and its ports, as the handlers, the CLI, the local stack and
 * the benchmark use them: key rules, the catalogue of published copies, in-memory ports, receipt
 * settlement, provenance and the reprocess run.
 */
export {
  type CatalogueKeys,
  type CatalogueStore,
  cataloguedSame,
  catalogueEntryKey,
  cataloguePublished,
  catalogueShardKeys,
  catalogueShardOf,
  catalogueWithdrawn,
  rebuildCatalogue,
  settleCatalogue,
  sha256Tap,
  tenantOfCopy,
} from "./catalogue.js";
export { GENERATION_META } from "./catalogue-html.js";
export type { CatalogueEntry, CatalogueShard, CopyFacts } from "./catalogue-types.js";
export type { LocalReceipt, RulePack, VerdictDocument } from "./job-types.js";
export {
  attestationKey,
  INGEST_SUFFIXES,
  isIngestKey,
  isReceiptName,
  layerCKey,
  layerCName,
  parseObjectKey,
  rejectedPlace,
  viewerPageKey,
} from "./keys.js";
export { MemoryCatalogueStore, MemoryObjectStore, MemorySessionIndex, memoryPorts } from "./memory-ports.js";
export type {
  FileRecord,
  ObjectRef,
  ObjectSource,
  ObjectStore,
  Ports,
  Publisher,
  PublishOptions,
  PutOutcome,
  ReceiptCheckRecord,
  SessionIndex,
  WithdrawOutcome,
} from "./ports.js";
export { type ProcessOptions, type ProcessResult, processObject, scrubbedKey } from "./process-object.js";
export { rulesDigest } from "./provenance.js";
export { publishedUrlPath, tenantPolicy } from "./published-urls.js";
export {
  itemOf,
  manifestKey,
  type ReprocessChange,
  type ReprocessItem,
  type ReprocessReport,
  reportOf,
  selects,
} from "./reprocess.js";
export { reprocessItem, runItems, selectItems } from "./reprocess-run.js";
export { settlementOf } from "./settlement.js";
export { copyViewerPage, type SpooledStream, spooled } from "./viewer-pages.js";
