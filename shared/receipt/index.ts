/** RECEIPT.json: reading its three shapes, verifying it against a replay, and generating one. */
export { type GenerateOptions, generateReceipt, serializeReceipt } from "./generate.js";
export { ToolCallMatcher } from "./match.js";
export {
  normalizeReplaySideEffect,
  parseReceiptJson,
  RECEIPT_SCHEMA_V1,
  type Receipt,
  type ReceiptShape,
  type ReceiptToolCall,
  type ReceiptVerification,
  readReceipt,
  receiptDigest,
  shapeName,
  sideEffectString,
} from "./read.js";
export {
  beginVerify,
  combinedVerdict,
  type Inspected,
  type ReceiptCheck,
  type VerifyOptions,
  type VerifyReport,
  verifyReceipt,
  verifyReplay,
} from "./verify.js";
