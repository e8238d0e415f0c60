/** RECEIPT.json: reading its three shapes, verifying it against a replay, and generating one. */
export { generateReceipt, serializeReceipt } from "./generate.js";

export { parseReceiptJson, readReceipt } from "./read.js";
export {
  beginVerify,
  combinedVerdict,
  type ReceiptCheck,
  type VerifyReport,
  verifyReplay,
} from "./verify.js";
