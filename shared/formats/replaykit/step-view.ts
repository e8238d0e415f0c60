/** What the parts of the ReplayKit reader share: the step view, and findings located by path. */
import { JsonNumber, type JsonObject, type JsonValue } from "../../canonical/index.js";
import type { Finding, Findings } from "../types.js";

/** One step as hashed and summarized, whichever version it came from. */
export interface StepView {
  index: number;
  path: string;
  /** For check-row subjects: the step id, or its position when it has none. */
  label: string;
  type: string;
  input: JsonValue;
  output: JsonValue;
  metadata: JsonObject;
  /** The hash the file records (`hash`, or 0.9 `step_hash`); undefined when absent. */
  recorded: string | undefined;
  timestamp: string | null;
}

/** A step's name in check rows: its id, or its position when it has none. */
export function stepLabel(id: JsonValue | undefined, index: number): string {
  if (typeof id === "string") return id;
  if (id instanceof JsonNumber) return id.text;
  return `#${index}`;
}

/** An error at a JSON path of the document (a document has no line of its own). */
export function error(findings: Findings, finding: Omit<Finding, "line" | "column">): void {
  findings.error({ line: null, column: null, ...finding });
}

/** A notice at a JSON path of the document. */
export function notice(findings: Findings, path: string, code: string, message: string): void {
  findings.notice({ line: null, column: null, path, code, message });
}
