/** RECEIPT.json: reading its three shapes, verifying it against a replay, and generating one. */
export { generateReceipt, serializeReceipt } from "./generate.js";
export { ToolCallMatcher } from "./match.js";
export {
  normalizeReplaySideEffect,
  parseReceiptJson,
  type ReceiptToolCall,
  readReceipt,
  receiptDigest,
} from "./read.js";
export {
  beginVerify,
  combinedVerdict,
  type Inspected,
  type ReceiptCheck,
  type VerifyReport,
  verifyReplay,
} from "./verify.js";
