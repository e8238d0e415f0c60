/** The ReplayBundle layout: its event types, member lists and zod schemas (autopilot-core `replay.rs`). */
import { z } from "zod";
import type { JsonValue } from "../../canonical/index.js";
import { zCount, zNumber, zTimestamp } from "../validate.js";

/** Timeline event types the producer writes (`ReplayBundle::from_entries` keeps only these). */
export const BUNDLE_EVENT_TYPES = [
  "phase_start",
  "phase_end",
  "tool_call",
  "tool_result",
  "assistant",
] as const;

/** `BUNDLE_EVENT_TYPES` as a set. */
export const KNOWN_TYPES: ReadonlySet<string> = new Set(BUNDLE_EVENT_TYPES);

/**
 * Types some producers use for a closing event; not written by autopilot-core today, but when
 * present they say how the run ended, so status is read from them as from `phase_end`.
 */
export const CLOSING_TYPES: ReadonlySet<string> = new Set([
  "phase_end",
  "complete",
  "completed",
  "session_complete",
  "session_end",
  "error",
]);

/** Top-level bundle members the producer writes. */
export const TOP_FIELDS: ReadonlySet<string> = new Set([
  "version",
  "id",
  "created_at",
  "metadata",
  "timeline",
  "receipts",
]);
/** `metadata` members the producer writes, plus our Layer C record. */
export const METADATA_FIELDS: ReadonlySet<string> = new Set([
  "issue_url",
  "pr_url",
  "duration_seconds",
  "playback_speed",
  "demo_duration_seconds",
  "model",
  "cost_usd",
  "tokens_in",
  "tokens_out",
  // The record our Layer C copy (`redact`) writes.
  "redaction",
]);
/** `receipts` members the producer writes. */
export const RECEIPT_FIELDS: ReadonlySet<string> = new Set([
  "tests_run",
  "tests_passed",
  "ci_status",
  "files_changed",
  "lines_added",
  "lines_removed",
]);
/** Timeline entry members the producer writes. */
export const ENTRY_FIELDS: ReadonlySet<string> = new Set(["t", "type", "tool", "data"]);

const optionalString = (what: string) =>
  z
    .string({ error: `expected a string or null (${what})` })
    .nullable()
    .optional();

// Only what we need to normalize or export is required; the Rust struct also requires most of
// `metadata` and `receipts`, but a bundle missing them is still readable, so they are optional
// here and only their types are checked.
/** The run metadata (`ReplayMetadata`). */
export const metadataSchema = z.object(
  {
    issue_url: optionalString("the issue URL"),
    pr_url: optionalString("the pull request URL"),
    duration_seconds: zCount().optional(),
    playback_speed: zNumber().optional(),
    demo_duration_seconds: zCount().optional(),
    model: z.string({ error: "expected a string (the model name)" }).optional(),
    cost_usd: zNumber().nullable().optional(),
    tokens_in: zCount().nullable().optional(),
    tokens_out: zCount().nullable().optional(),
  },
  { error: "expected an object (the run metadata)" },
);

/** The run receipts (`ReplayReceipts`). */
export const receiptsSchema = z.object(
  {
    tests_run: zCount().nullable().optional(),
    tests_passed: zCount().nullable().optional(),
    ci_status: optionalString("the CI status"),
    files_changed: zCount().optional(),
    lines_added: zCount().optional(),
    lines_removed: zCount().optional(),
  },
  { error: "expected an object (the run receipts)" },
);

/** The bundle's top level (`ReplayBundle`). */
export const bundleSchema = z.object(
  {
    version: z.string({ error: 'expected a string such as "1.0" (the bundle version)' }),
    id: z
      .string({ error: "expected a string (the bundle id)" })
      .min(1, "expected a non-empty string (the bundle id)"),
    created_at: zTimestamp(),
    metadata: metadataSchema.optional(),
    timeline: z.array(z.unknown(), { error: "expected an array (the timeline events)" }),
    receipts: receiptsSchema.optional(),
  },
  { error: "expected a ReplayBundle object" },
);

/** One timeline entry (`TimelineEvent`). */
export const entrySchema = z.object(
  {
    // u64 milliseconds in the producer; beyond 2^53 a JavaScript number would silently round.
    t: zCount().pipe(z.number().max(Number.MAX_SAFE_INTEGER, "expected at most 2^53-1 milliseconds")),
    type: z.string({ error: "expected a string (the event type)" }),
    tool: optionalString("the tool name"),
    data: z.custom<JsonValue>((v) => v !== undefined, { message: "expected a JSON value (the event data)" }),
  },
  { error: "expected an object (a timeline event)" },
);
