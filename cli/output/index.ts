/** The CLI's output: diagnostics, text, JSON, GitHub and JUnit renderers, colour, exit codes. */
export {
  ATTEST_OPTIONS,
  attestTarget,
  checkAttestOptions,
  writeAttestation,
} from "./attest.js";

export type { Diagnostic } from "./diagnostics.js";
export {
  EXIT,
  envelope,
  exitCodeOfError,
  FORMAT_OPTIONS,
  type Format,
  formatOption,
  jsonLine,
  renderError,
  requestedFormat,
  textOptions,
} from "./format.js";
export { escapeData } from "./github.js";
export { renderJunit } from "./junit.js";
export { isQuiet, warn } from "./settings.js";
export { emitVerdicts, VerdictSink } from "./sink.js";
export { renderReport, renderVerify } from "./text.js";
export { inspectView, pushView, type VerdictView, verifyView } from "./view.js";
