/** The audit report: built from index records, rendered as JSON, markdown and HTML. */
export {
  type AuditInput,
  type AuditReport,
  buildAuditReport,
  type DayVerdicts,
  type Distribution,
  distribution,
  reportScope,
  type SessionEntry,
  VERDICTS,
  zeroVerdicts,
} from "./audit.js";
export { renderAuditHtml } from "./html.js";
export { renderAuditMarkdown } from "./markdown.js";
