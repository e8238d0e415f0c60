/** Looking at sessions: the timeline of any format (`readSessionView`) and its HTML page. */
export { viewerPage } from "./page.js";
export { readSessionView } from "./read.js";
export { attachReceipt } from "./receipt-steps.js";
export type { SessionView, StepKind, ViewStep } from "./types.js";
