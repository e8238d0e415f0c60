/** Looking at sessions: the timeline of any format (`readSessionView`) and its HTML page. */
export { viewerPage } from "./page.js";
export { readSessionView, type ViewOptions } from "./read.js";
export type {
  RedactionMarker,
  RedactionRecord,
  SessionView,
  StepHash,
  StepKind,
  StepStatus,
  ViewStep,
} from "./types.js";
