import type { CheckRow, CheckStatus, FormatId, LayerCOrigin, Verdict } from "../formats/index.js";

/** What a step is: a tool call, a model turn of a span trace, or a ReplayKit step. */
export type StepKind = "tool" | "turn" | "step";

/** How a step ended, as far as the file says. */
export type StepStatus = "ok" | "error" | "unknown";

/**
 * One hash of a step: what the file records and, where a check row recomputed it, the value the
 * content gives (`actual`) and the row's status; `status` null when no listed row covers it.
 */
export interface StepHash {
  /** `params`, `output`, `step` (a ReplayKit step hash), `original_step` (a Layer C copy's record). */
  field: string;
  recorded: string | null;
  actual: string | null;
  status: CheckStatus | null;
}

/** A redaction marker of a Layer C copy: what was removed or masked, and by which rule. */
export interface RedactionMarker {
  /** The member (`params`, `output`, `input`) or `name` for a tag found in a kept string. */
  what: string;
  /** `removed` (the value is gone, its hash kept), `masked` (values replaced in place), `scrubbed`. */
  how: "removed" | "masked" | "scrubbed";
  rule: string;
}

/** One entry of the timeline, the same shape for every format. */
export interface ViewStep {
  /** 1-based position in the timeline. */
  n: number;
  kind: StepKind;
  /** The call id, span id or step id; null when the file gives none. */
  id: string | null;
  /** Tool name, step type, or `turn N`. */
  name: string;
  /** Line of the file (JSON Lines), null for documents. */
  line: number | null;
  status: StepStatus;
  duration_ms: number | null;
  hashes: StepHash[];
  markers: RedactionMarker[];
  /** A short excerpt of the turn's text (span traces), already cut to a bounded length. */
  text: string | null;
  /**
   * A tool call's 0-based position among the file's tool calls, in file order (what a receipt
   * row's `replay #k` counts); null for other steps.
   */
  call: number | null;
  /** The receipt check rows about this step (`attachReceipt`): a tool call's, compared with the receipt's. */
  receipt: CheckRow[];
}

/** The redaction record a Layer C copy carries (counts by rule, path, removed member). */
export interface RedactionRecord {
  preset: string | null;
  by_rule: Record<string, number>;
  by_path: Record<string, number>;
  removed_fields: Record<string, number>;
  hashes_added: Record<string, number>;
}

/** A session as the viewer and `diff` see it: the inspect header plus the timeline. */
export interface SessionView {
  file: string;
  format: FormatId | null;
  verdict: Verdict;
  replay_hash: string;
  trajectory_hash: string | null;
  bytes: number;
  session_id: string | null;
  producer: string | null;
  /** Check rows not tied to a step (envelope checksum, signature), and receipt rows when given. */
  checks: CheckRow[];
  checks_total: Record<CheckStatus, number>;
  errors: { line: number | null; path: string; code: string; message: string }[];
  errors_total: number;
  /** A Layer C copy: its claim about the original, and its redaction record. */
  original: LayerCOrigin | null;
  redaction: RedactionRecord | null;
  /** A receipt check, when one was given. */
  receipt: {
    file: string;
    verdict: Verdict;
    checks: CheckRow[];
    checks_total: Record<CheckStatus, number>;
  } | null;
  steps: ViewStep[];
}
