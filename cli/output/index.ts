/** The CLI's output: diagnostics, text, JSON, GitHub and JUnit renderers, colour, exit codes. */
export {
  ATTEST_OPTIONS,
  attestTarget,
  checkAttestOptions,
  resourceUriOf,
  writeAttestation,
} from "./attest.js";
export { type Paint, painterFor, wantsColour } from "./colour.js";
export {
  type Diagnostic,
  formatDiagnostic,
  LIMIT_HINTS,
  reportDiagnostics,
  withHint,
} from "./diagnostics.js";
export {
  EXIT,
  envelope,
  errorDiagnostic,
  exitCodeOfError,
  FORMAT_OPTIONS,
  FORMATS,
  type Format,
  formatOption,
  jsonLine,
  renderError,
  requestedFormat,
  SCHEMA_VERSION,
  stdoutPaint,
  textOptions,
} from "./format.js";
export { annotation, escapeData, escapeProperty, renderAnnotations, renderSummary } from "./github.js";
export { renderJunit, xmlEscape } from "./junit.js";
export { configureOutput, isQuiet, warn } from "./settings.js";
export { emitVerdicts, type VerdictOutput, VerdictSink } from "./sink.js";
export { renderReport, renderVerify, type TextOptions } from "./text.js";
export { inspectView, pushView, type VerdictView, verifyView } from "./view.js";
