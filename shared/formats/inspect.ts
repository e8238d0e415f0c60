import { createHash } from "node:crypto";
import { canonicalHash, type JsonValue } from "../canonical/index.js";
import { NotTextError, StreamLimitError } from "../errors.js";
import { type ContentOptions, ContentReader } from "./content-reader.js";
import { decompressed, type GzipLimits } from "./gzip.js";
import type { LayerCOrigin } from "./layer-c-record.js";
import {
  type CheckRow,
  type CheckStatus,
  type Finding,
  Findings,
  type FormatId,
  type Session,
  type SessionSummary,
  type Verdict,
} from "./types.js";

/** Limits and keys for `inspect`: how the content is read, and gzip's limits. */
export interface InspectOptions extends ContentOptions, GzipLimits {}

/** What `inspect` reports for one file (the `inspect --json` object). */
export interface InspectReport {
  file: string;
  format: FormatId | null;
  verdict: Verdict;
  /** The rows, up to MAX_ROWS of each status; `checks_total` counts them all. */
  checks: CheckRow[];
  checks_total: Record<CheckStatus, number>;
  errors: Finding[];
  errors_total: number;
  notices: Finding[];
  notices_total: number;
  /** sha256 of the replay's exact bytes (after gzip decompression). */
  replay_hash: string;
  bytes: number;
  compressed: boolean;
  /** OpenAgents runtime replays: the trajectory hash recomputed from the RuntimeEvents. */
  trajectory_hash: string | null;
  /** A Layer C copy: what its redaction record says of the original (a claim, not recomputed). */
  original: LayerCOrigin | null;
  /**
   * Whether the RuntimeEvent lines carry every member trajectory_hash covers, so that the value
   * is the runtime's own; false means it is partial (see `trajectory_hash_gap`); null without one.
   */
  trajectory_hash_complete: boolean | null;
  /** Why trajectory_hash is partial (the lines leave out idempotency_key, …); null otherwise. */
  trajectory_hash_gap: string | null;
  summary: SessionSummary | null;
}

/** The report and the normalized session (tool calls, runtime events) for receipt checks. */
export interface InspectResult {
  report: InspectReport;
  session: Session | null;
}

/**
 * Inspects one replay file of any supported format from its bytes: detects the format by content
 * (gzip too), validates every line or the document, recomputes every hash the content lets us,
 * and reduces it to the session summary. Bad input never throws: it becomes findings and the
 * `invalid` verdict; only a failure of the source itself (an I/O error) is thrown.
 */
export async function inspect(
  source: AsyncIterable<Uint8Array>,
  options: InspectOptions & { file: string },
): Promise<InspectResult> {
  const findings = new Findings();
  const hash = createHash("sha256");
  const counters = { bytes: 0, compressedBytes: 0, compressed: false };
  const bytes = decompressed(source, options, counters, hash);
  let format: FormatId | null = null;
  let session: Session | null = null;
  try {
    ({ format, session } = await new ContentReader(bytes, findings, options).read());
  } catch (error) {
    // Both end reading; a file that is not text at all is one error, not one per line.
    if (!(error instanceof StreamLimitError || error instanceof NotTextError)) throw error;
    findings.fatal({
      line: error.location.line ?? null,
      column: error.location.column ?? null,
      path: "$",
      code: error.code,
      message: error.detail,
    });
  }
  // Whatever stopped reading, the replay hash covers every byte of the file.
  for await (const _ of bytes) {
    // drained for the hash
  }
  const trajectory =
    session !== null && session.runtime_events.length > 0
      ? canonicalHash(session.runtime_events as unknown as JsonValue, "openagents")
      : null;
  const trajectoryGap = trajectory === null ? null : (session?.trajectory_gap ?? null);
  const original = session?.original ?? null;
  if (original !== null) {
    findings.notice({
      line: null,
      column: null,
      path: "$",
      code: "layer_c.copy",
      message: `a Layer C copy of ${original.replay_hash}, whose own verdict was ${original.verdict} (${original.checks_total.passed} passed, ${original.checks_total.failed} failed, ${original.checks_total.unverifiable} unverifiable); taken from the copy's record, not recomputed`,
    });
  }
  if (format !== null && findings.errorCount === 0 && totalRows(findings) === 0) {
    findings.notice({
      line: null,
      column: null,
      path: "$",
      code: "verdict.nothing_checked",
      message: `well-formed ${format}, but it carries no hash this tool can recompute: only its structure was checked, so it is unverifiable, not passed`,
    });
  }
  const report: InspectReport = {
    file: options.file,
    format,
    verdict: verdictOf(findings, format),
    checks: findings.checks,
    checks_total: { ...findings.checkCounts },
    errors: findings.errors,
    errors_total: findings.errorCount,
    notices: findings.notices,
    notices_total: findings.noticeCount,
    replay_hash: `sha256:${hash.digest("hex")}`,
    bytes: counters.bytes,
    compressed: counters.compressed,
    trajectory_hash: trajectory,
    trajectory_hash_complete: trajectory === null ? null : trajectoryGap === null,
    trajectory_hash_gap: trajectoryGap,
    original,
    summary: session?.summary ?? null,
  };
  return { report, session };
}

/**
 * `invalid` on any error or no format; else `failed` if a row failed, `unverifiable` if a row could
 * not be evaluated or there is no row at all (well-formed, but nothing was recomputed: a CI job
 * must be able to tell that from a real pass), else `passed`.
 */
function verdictOf(findings: Findings, format: FormatId | null): Verdict {
  if (format === null || findings.errorCount > 0) return "invalid";
  if (findings.checkCounts.failed > 0) return "failed";
  if (findings.checkCounts.unverifiable > 0 || totalRows(findings) === 0) return "unverifiable";
  return "passed";
}

function totalRows(findings: Findings): number {
  const c = findings.checkCounts;
  return c.passed + c.failed + c.unverifiable;
}
