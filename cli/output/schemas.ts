/**
 * The zod schemas of every `--json` output, the source of the JSON Schemas in `schemas/`
 * (`npm run schemas`; a test holds the files up to date and validates real outputs against them).
 * Objects are strict: a member added to an output without its schema fails that test, so the
 * schemas never fall behind. test/unit/cli/schemas.test.ts also holds each inferred type equal to
 * the TypeScript type the code writes. `layerCFieldsJson` is generated beside them: the field lists
 * Layer C keeps, from the format schemas, as data.
 */
import { z } from "zod";
import type { FieldLists, LayerCFieldsData } from "#shared/formats/index.js";
import {
  type FieldSet,
  FORMAT_IDS,
  REPLAY_EVENT_FIELDS_OF_SCHEMAS,
  SPAN_FIELD_SET_OF_SCHEMA,
} from "#shared/formats/index.js";
import { PRESETS } from "#shared/redact/index.js";
import { SCHEMA_VERSION } from "./format.js";

const sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const verdict = z.enum(["passed", "failed", "unverifiable", "invalid"]);
const formatId = z.enum(FORMAT_IDS);
const counts = z.record(z.string(), z.number());
const totals = z.strictObject({
  passed: z.number().int(),
  failed: z.number().int(),
  unverifiable: z.number().int(),
});

/** What every `--json` object carries first. */
const envelope = {
  tool_version: z.string().describe("replay-pipeline's version"),
  schema_version: z.literal(SCHEMA_VERSION).describe("the version of this shape"),
};

const checkRow = z.strictObject({
  check: z.string(),
  subject: z.string(),
  expected: z.string().nullable(),
  actual: z.string().nullable(),
  status: z.enum(["passed", "failed", "unverifiable"]),
});

const finding = z.strictObject({
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  path: z.string(),
  code: z.string(),
  message: z.string(),
  expected: z.string().optional(),
  found: z.string().optional(),
});

const layerCOrigin = z.strictObject({
  replay_hash: z.string(),
  verdict,
  checks_total: totals,
  errors_total: z.number().int(),
  failed_checks: z.array(checkRow).optional(),
});

const turn = z.strictObject({
  turn_number: z.number().int(),
  span_id: z.string(),
  user_input: z.string().nullable(),
  assistant_output: z.string().nullable(),
  tool_calls: z.array(z.strictObject({ name: z.string(), span_id: z.string() })),
  timestamp: z.string().nullable(),
  response_id: z.string().nullable(),
  previous_response_id: z.string().nullable(),
});

const sessionSummary = z.strictObject({
  session_id: z.string().nullable(),
  format: formatId,
  producer: z.string().nullable(),
  policy_bundle_id: z.string().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  status: z.string().nullable(),
  confidence: z.number().nullable(),
  counts: z.strictObject({
    events: z.number().int(),
    tool_calls: z.number().int(),
    failed_tool_calls: z.number().int(),
    turns: z.number().int(),
    steps_by_type: counts,
  }),
  total_latency_ms: z.number().nullable(),
  mean_step_utility: z.number().nullable(),
  verification: z.array(z.strictObject({ command: z.string(), exit_code: z.number().int().nullable() })),
  turns: z.array(turn).optional(),
});

/** An `inspect` report (also inside `verify` and the verdict document). */
export const inspectReport = z.strictObject({
  file: z.string(),
  format: formatId.nullable(),
  verdict,
  checks: z.array(checkRow),
  checks_total: totals,
  errors: z.array(finding),
  errors_total: z.number().int(),
  notices: z.array(finding),
  notices_total: z.number().int(),
  replay_hash: sha256,
  bytes: z.number().int(),
  compressed: z.boolean(),
  trajectory_hash: sha256.nullable(),
  original: layerCOrigin.nullable(),
  trajectory_hash_complete: z.boolean().nullable(),
  trajectory_hash_gap: z.string().nullable(),
  summary: sessionSummary.nullable(),
});

/** A `verify` report. */
export const verifyReport = z.strictObject({
  verdict,
  replay: inspectReport,
  receipt_shape: z.string().nullable(),
  checks: z.array(checkRow),
  checks_total: totals,
  errors: z.array(finding),
  errors_total: z.number().int(),
  notices: z.array(finding),
});

/** One row of `scan --json`. */
const scanRow = z.strictObject({
  file: z.string(),
  format: z.string().nullable(),
  verdict,
  exit_code: z.number().int(),
  checks: counts,
  bytes: z.number().int(),
  raw: sha256,
  canonical: z.partialRecord(z.enum(["jcs", "openagents", "replaykit"]), sha256),
  errors: z.partialRecord(
    z.enum(["jcs", "openagents", "replaykit"]),
    z.strictObject({ code: z.string(), message: z.string() }),
  ),
  /** The check against the RECEIPT.json beside the file, when there is one. */
  receipt: z.strictObject({ file: z.string(), verdict, checks: totals }).optional(),
});

/** The check of the RECEIPT.json paired with a replay, in `inspect --json` of several files. */
const receiptCheck = z.strictObject({
  receipt: z.string().nullable(),
  verdict,
  checks_total: totals,
  checks: z.array(checkRow),
  errors: z.array(finding),
});

/** The redaction summary of a Layer C copy (`redact --json`). */
export const layerCSummary = z.strictObject({
  layer: z.literal("C"),
  format: formatId,
  preset: z.enum(PRESETS),
  events: z.number().int(),
  by_rule: counts,
  by_path: counts,
  removed_fields: counts,
  hashes_added: counts,
  total: z.number().int(),
  original: layerCOrigin.extend({
    checksum: z.string().nullable().optional(),
    step_hashes: z.array(z.string().nullable()).optional(),
  }),
  signature: z.literal("removed").optional(),
});

const objectRef = z.strictObject({
  key: z.string(),
  etag: z.string().nullable(),
  versionId: z.string().nullable(),
  size: z.number().int().nullable(),
  sequencer: z.string().nullable(),
});

/** The tool version and rules digest that made a record or verdict document. */
const provenance = z.strictObject({ tool_version: z.string(), rules_digest: z.string() });

/** An index record of one processed object (`push --wait --json`, `show --json`). */
export const fileRecord = z.strictObject({
  tenant: z.string(),
  session: z.string(),
  file: z.string(),
  ref: objectRef,
  kind: z.enum(["replay", "receipt", "rejected"]),
  format: formatId.nullable(),
  verdict,
  checks_total: totals,
  errors_total: z.number().int(),
  first_error: z
    .strictObject({ code: z.string(), message: z.string(), line: z.number().int().nullable() })
    .nullable(),
  replay_hash: sha256.nullable(),
  bytes: z.number().int(),
  layer_c_key: z.string().nullable(),
  verdict_key: z.string(),
  summary: sessionSummary.nullable(),
  summary_truncated: z.literal(true).optional(),
  redactions: counts.nullable(),
  processed_at: z.string(),
  ms: z.number(),
  provenance: provenance.optional(),
  reprocess_run: z.string().optional(),
});

const receiptCheckRecord = z.strictObject({
  tenant: z.string(),
  session: z.string(),
  replay: objectRef,
  receipt: objectRef,
  verdict,
  checks_total: totals,
  failed: z.array(checkRow),
  withdrawn: z.string().nullable(),
  processed_at: z.string(),
});

/** A verdict document (`process --json`, and what the pipeline stores under results/). */
export const verdictDocument = z.strictObject({
  schema: z.literal("replay-pipeline.verdict.v1"),
  tool: z.strictObject({ name: z.literal("replay-pipeline"), version: z.string() }),
  provenance,
  object: objectRef,
  tenant: z.string().nullable(),
  session: z.string().nullable(),
  file: z.string().nullable(),
  kind: z.enum(["replay", "receipt", "rejected"]),
  verdict,
  report: inspectReport.nullable(),
  receipt_checks: z.array(
    z.strictObject({
      replay: objectRef,
      receipt: objectRef,
      verdict,
      checks_total: totals,
      checks: z.array(checkRow),
    }),
  ),
  layer_c: z.strictObject({ key: z.string(), summary: layerCSummary }).nullable(),
  not_published: z.string().nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  timings: z.strictObject({ total_ms: z.number() }),
  processed_at: z.string(),
});

/** The error object a command writes with `--json` when it cannot give its output. */
const errorOutput = z.strictObject({
  ...envelope,
  error: z.strictObject({
    code: z.string(),
    kind: z.enum(["input", "transient", "config", "bug"]),
    message: z.string(),
    file: z.string().nullable(),
    line: z.number().int().nullable(),
    column: z.number().int().nullable(),
    path: z.string().nullable(),
  }),
});

const stepRef = z.strictObject({
  n: z.number().int(),
  kind: z.enum(["tool", "turn", "step"]),
  id: z.string().nullable(),
  name: z.string(),
});
const fieldChange = z.strictObject({ field: z.string(), a: z.string().nullable(), b: z.string().nullable() });
const diffSide = z.strictObject({
  file: z.string(),
  format: formatId.nullable(),
  verdict,
  replay_hash: z.string(),
  layer_c: z.boolean(),
  steps: z.number().int(),
});
const diffEntry = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("equal"), a: stepRef, b: stepRef }),
  z.strictObject({ op: z.literal("changed"), a: stepRef, b: stepRef, fields: z.array(fieldChange) }),
  z.strictObject({ op: z.literal("removed"), a: stepRef }),
  z.strictObject({ op: z.literal("added"), b: stepRef }),
]);

/** `diff --json`: `SessionDiff` without its aligned entries (shared/diff/types.ts). */
export const sessionDiff = z.strictObject({
  a: diffSide,
  b: diffSide,
  equal: z.boolean(),
  alignment: z.strictObject({ shared_ids: z.number().int(), exact: z.boolean() }),
  header: z.array(fieldChange),
  first_divergence: diffEntry.nullable(),
  changed: z.array(z.strictObject({ a: stepRef, b: stepRef, fields: z.array(fieldChange) })),
  added: z.array(stepRef),
  removed: z.array(stepRef),
  counts: z.strictObject({
    equal: z.number().int(),
    changed: z.number().int(),
    added: z.number().int(),
    removed: z.number().int(),
    moved: z.number().int(),
  }),
});

/** Each command's `--json` output: the file name in `schemas/` → its schema. */
export const OUTPUT_SCHEMAS = {
  diff: sessionDiff.extend(envelope),
  inspect: inspectReport.extend({ ...envelope, receipt_check: receiptCheck.optional() }),
  verify: verifyReport.extend(envelope),
  scan: scanRow.extend(envelope),
  // With several inputs each line also names its file and where its copy went.
  redact: layerCSummary.extend({ ...envelope, file: z.string().optional(), output: z.string().optional() }),
  process: verdictDocument.extend(envelope),
  push: fileRecord.extend(envelope),
  sessions: z.strictObject({
    ...envelope,
    tenant: z.string(),
    session: z.string(),
    files: z.number().int(),
    verdict,
    last: z.string(),
  }),
  show: z.strictObject({
    ...envelope,
    tenant: z.string(),
    session: z.string(),
    files: z.array(fileRecord),
    checks: z.array(receiptCheckRecord),
  }),
  "verify-attestation": z.strictObject({
    ...envelope,
    file: z.string(),
    signed: z.boolean(),
    keyid: z.string().nullable(),
    subject: z.array(z.strictObject({ name: z.string(), digest: z.record(z.string(), z.string()) })),
    verificationResult: z.enum(["PASSED", "FAILED"]),
    verdict: verdict.nullable(),
  }),
  error: errorOutput,
} as const;

/** The JSON Schema (draft 2020-12) of each output, as `schemas/<name>.schema.json` holds it. */
export function jsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(OUTPUT_SCHEMAS)) {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" });
    out[`${name}.schema.json`] =
      `${JSON.stringify({ title: `replay-pipeline ${name} --json`, ...json }, null, 2)}\n`;
  }
  return out;
}

/** `shared/formats/layer-c-fields.json`: the field lists Layer C keeps, from the format schemas. */
export function layerCFieldsJson(): string {
  const plain = (f: FieldSet): FieldLists => ({ known: [...f.known], required: [...f.required] });
  const data: LayerCFieldsData = {
    replay: Object.fromEntries(
      Object.entries(REPLAY_EVENT_FIELDS_OF_SCHEMAS).map(([format, { typeKey, byType }]) => [
        format,
        { typeKey, byType: Object.fromEntries([...byType].map(([type, f]) => [type, plain(f)])) },
      ]),
    ) as LayerCFieldsData["replay"],
    span: plain(SPAN_FIELD_SET_OF_SCHEMA),
  };
  return `${JSON.stringify(data, null, 2)}\n`;
}
