/** The Braintrust span as its published `ProjectLogsEvent` schema types it, and the vocabulary the reader knows. */
import { z } from "zod";
import { isJsonObject, type JsonValue } from "../../canonical/index.js";
import { zHash, zInteger, zNumber, zRange, zTimestamp } from "../validate.js";

// Nested objects go through this first: zod's object and looseObject accept any non-array object,
// which includes the `JsonNumber` instances our lossless reader makes for numbers.
const jsonObject = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z
    .custom<Record<string, unknown>>((v) => isJsonObject(v as JsonValue), "expected an object")
    .pipe(z.looseObject(shape));

const optString = () => z.string("expected a string").nullable().optional();
const optBoolean = () => z.boolean("expected true or false").nullable().optional();
const optNumber = () => zNumber().nullable().optional();
const optInteger = () => zInteger().nullable().optional();
const idString = () => z.string("expected a non-empty string").min(1, "expected a non-empty string");
const stringArray = () => z.array(z.string("expected a string"), "expected an array of strings");

/**
 * One span. Required: `span_id`; `root_span_id` too, except on a root span, which is its own
 * root (the producer's own format-parsing test feeds such a line). The rest The rest are typed as Braintrust types them, nullable where
 * it says nullable; anything else passes through (reported once per file as a notice).
 */
export const zSpan = z.looseObject({
  span_id: idString(),
  root_span_id: idString().optional(),
  span_parents: stringArray().nullable().optional(),
  id: optString(),
  created: z.string("expected an ISO-8601 timestamp").pipe(zTimestamp()).nullable().optional(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  expected: z.unknown().optional(),
  error: z.unknown().optional(),
  metadata: jsonObject({ model: optString() }).nullable().optional(),
  span_attributes: jsonObject({ name: optString(), type: optString(), purpose: optString() })
    .nullable()
    .optional(),
  // Braintrust types unlisted metrics as numbers, but real traces carry `success: "true"`; those
  // are reported as notices (see `line`), never errors.
  metrics: jsonObject({
    start: optNumber(),
    end: optNumber(),
    prompt_tokens: optInteger(),
    completion_tokens: optInteger(),
    tokens: optInteger(),
  })
    .nullable()
    .optional(),
  scores: z.record(z.string(), zRange(0, 1).nullable(), "expected an object").nullable().optional(),
  tags: stringArray().nullable().optional(),
  context: jsonObject({
    caller_functionname: optString(),
    caller_filename: optString(),
    caller_lineno: optInteger(),
  })
    .nullable()
    .optional(),
  is_root: optBoolean(),
  origin: jsonObject({}).nullable().optional(),
  comments: z.array(z.unknown(), "expected an array").nullable().optional(),
  audit_data: z.array(z.unknown(), "expected an array").nullable().optional(),
  facets: z
    .record(z.string(), z.string("expected a string").nullable(), "expected an object")
    .nullable()
    .optional(),
  classifications: z
    .record(
      z.string(),
      z.array(jsonObject({ id: z.string("expected a string") }), "expected an array"),
      "expected an object",
    )
    .nullable()
    .optional(),
  _xact_id: optString(),
  _pagination_key: optString(),
  _async_scoring_state: z.unknown().optional(),
  org_id: optString(),
  project_id: optString(),
  log_id: optString(),
  // Insert-side fields (InsertProjectLogsEvent), which exports may keep.
  _object_delete: optBoolean(),
  _is_merge: optBoolean(),
  _merge_paths: z.array(stringArray(), "expected an array").nullable().optional(),
  _array_delete: z.array(z.unknown(), "expected an array").nullable().optional(),
  _parent_id: optString(),
  // What our Layer C copy (`redact`) writes in place of a removed input, output or expected: its
  // openagents hash, so the copy still matches the original's receipt.
  input_hash: zHash().optional(),
  output_hash: zHash().optional(),
  expected_hash: zHash().optional(),
});

/** Every span member this reader knows (Braintrust's own, plus the hashes Layer C adds). */
export const SPAN_FIELDS: ReadonlySet<string> = new Set(Object.keys(zSpan.shape));
/** Metric and context members Braintrust names; others are noticed. */
export const KNOWN_METRICS: ReadonlySet<string> = new Set([
  "start",
  "end",
  "prompt_tokens",
  "completion_tokens",
  "tokens",
  "caller_functionname",
  "caller_filename",
  "caller_lineno",
]);
/** Braintrust's `SpanType` enum; other values are noticed, since the enum grows over time. */
export const SPAN_TYPES: ReadonlySet<string> = new Set([
  "llm",
  "score",
  "function",
  "eval",
  "task",
  "tool",
  "automation",
  "facet",
  "preprocessor",
  "classifier",
  "review",
]);
