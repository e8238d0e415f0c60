/** The audit report: built from index records, rendered as JSON, markdown and HTML. */
export {
  type AuditInput,
  type AuditReport,
  buildAuditReport,
  type DayVerdicts,
  zeroVerdicts,
} from "./audit.js";

export { renderAuditHtml } from "./html.js";
export { renderAuditMarkdown } from "./markdown.js";
