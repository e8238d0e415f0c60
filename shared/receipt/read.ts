import { z } from "zod";
import {
  canonicalHash,
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
  setMember,
} from "../canonical/index.js";
import { ReplayPipelineError } from "../errors.js";
import { describe, type Findings, validate, zHash, zInteger, zNumber } from "../formats/index.js";

/**
 * The receipt shapes found in real files (HASHING-NOTES.md): the spec's `openagents.receipt.v1`,
 * the coding loop's `SessionReceipt`, and a bare ADR-0003 receipt that carries only a
 * `replay_hash` (any of the first two may carry one too).
 */
type ReceiptShape = "openagents.receipt.v1" | "session-receipt" | "adr0003";

/** The `schema` id of the spec receipt. */
export const RECEIPT_SCHEMA_V1 = "openagents.receipt.v1";

/** One tool call as a receipt records it, normalized across shapes. */
export interface ReceiptToolCall {
  /** 0-based position in the receipt's `tool_calls`. */
  index: number;
  id: string | null;
  step_id: string | null;
  tool: string | null;
  params_hash: string | null;
  output_hash: string | null;
  ok: boolean | null;
  /**
   * Side effects as strings; SessionReceipt `{effect_type, path}` objects become
   * `effect_type:path` (`effect_type` alone when there is no path). null when the receipt has none.
   */
  side_effects: string[] | null;
}

/** One verification command as a receipt records it. */
interface ReceiptVerification {
  command: string;
  exit_code: number | null;
}

/** A receipt read and normalized: what `verifyReceipt` compares with the replay. */
export interface Receipt {
  shape: ReceiptShape;
  /** True when the receipt carries a `replay_hash` (ADR-0003), on top of its shape. */
  hasReplayHash: boolean;
  session_id: string | null;
  trajectory_hash: string | null;
  replay_hash: string | null;
  policy_bundle_id: string | null;
  /** null when the receipt has no `tool_calls` member (nothing to compare). */
  tool_calls: ReceiptToolCall[] | null;
  /** null when the receipt has no verification member. */
  verification: ReceiptVerification[] | null;
  /** The `signature` member as written, or undefined when absent. */
  signature: JsonValue | undefined;
}

/** The shape name for reports: the primary shape, `+replay_hash` when it also carries one. */
export function shapeName(receipt: Receipt): string {
  return receipt.hasReplayHash && receipt.shape !== "adr0003"
    ? `${receipt.shape}+replay_hash`
    : receipt.shape;
}

const str = () => z.string({ error: "expected a string" });
const nonEmpty = () => str().min(1, "expected a non-empty string");
const obj = () => z.record(z.string(), z.unknown(), { error: "expected an object" });
/** `sha256:<hex>` or bare 64 hex digits (the member's name already says sha256). */
const zDigest = () =>
  z
    .string({ error: "expected a string" })
    .regex(
      /^(sha256:)?[0-9a-f]{64}$/,
      "expected sha256: and 64 lowercase hex digits (or the 64 digits alone)",
    );

const V1_TOOL_CALL = z.looseObject({
  id: nonEmpty().optional(),
  step_id: nonEmpty().optional(),
  tool: z.union([nonEmpty(), z.null()]),
  params_hash: z.union([zHash(), z.null()]),
  output_hash: z.union([zHash(), z.null()]),
  latency_ms: z.union([zNumber(), z.null()]).optional(),
  side_effects: z.array(str(), { error: "expected an array of strings" }),
  ok: z.boolean({ error: "expected true or false" }).optional(),
  error: obj().nullable().optional(),
});

const V1 = z.looseObject({
  schema: z.literal(RECEIPT_SCHEMA_V1),
  session_id: nonEmpty(),
  // null: the producer says the session has none (our generator writes that; no comparison).
  trajectory_hash: zHash().nullable().optional(),
  policy_bundle_id: nonEmpty().nullable().optional(),
  created_at: str().optional(),
  repo: obj().optional(),
  tool_calls: z.array(V1_TOOL_CALL, { error: "expected an array" }).optional(),
  verification: z
    .array(
      z.looseObject({
        command: str(),
        exit_code: z.union([zInteger(), z.null()]),
        cwd: str().optional(),
        duration_ms: zNumber().optional(),
        verification_delta: zNumber().optional(),
      }),
      { error: "expected an array" },
    )
    .optional(),
  payments: z.array(obj(), { error: "expected an array" }).optional(),
  replay_hash: zHash().optional(),
  canonical_json_sha256: zDigest().optional(),
});

const SIDE_EFFECT = z.union(
  [str(), z.looseObject({ effect_type: nonEmpty(), path: z.union([str(), z.null()]).optional() })],
  { error: "expected a string or an object {effect_type, path}" },
);

const SESSION_RECEIPT = z.looseObject({
  session_id: nonEmpty(),
  started_at: str().optional(),
  completed_at: str().nullable().optional(),
  issue_number: z.union([zInteger(), z.null()]).optional(),
  plan_hash: z.union([zHash(), z.null()]).optional(),
  tool_calls: z.array(
    z.looseObject({
      id: nonEmpty().optional(),
      step_id: nonEmpty().optional(),
      tool: nonEmpty(),
      params_hash: zHash(),
      output_hash: zHash(),
      step_utility: z.union([zNumber(), z.null()]).optional(),
      latency_ms: z.union([zNumber(), z.null()]).optional(),
      side_effects: z.array(SIDE_EFFECT, { error: "expected an array" }).optional(),
    }),
    { error: "expected an array" },
  ),
  verification: z
    .looseObject({
      commands_run: z.array(str(), { error: "expected an array of strings" }),
      exit_codes: z.array(zInteger(), { error: "expected an array of integers" }),
      verification_delta: z.union([zNumber(), z.null()]).optional(),
    })
    .optional(),
  final_confidence: z.union([zNumber(), z.null()]).optional(),
  policy_bundle_id: str().nullable().optional(),
  replay_hash: zHash().optional(),
  canonical_json_sha256: zDigest().optional(),
});

const ADR0003 = z.looseObject({
  replay_hash: zHash(),
  session_id: nonEmpty().optional(),
  canonical_json_sha256: zDigest().optional(),
});

const SESSION_RECEIPT_KEYS = ["started_at", "completed_at", "final_confidence"] as const;

/** A side effect as a string: `effect_type:path` for SessionReceipt objects. */
function sideEffectString(effect: unknown): string {
  if (typeof effect === "string") return effect;
  if (typeof effect === "object" && effect !== null && !Array.isArray(effect)) {
    const e = effect as { effect_type?: unknown; path?: unknown };
    if (typeof e.effect_type === "string")
      return typeof e.path === "string" ? `${e.effect_type}:${e.path}` : e.effect_type;
  }
  return JSON.stringify(effect);
}

/**
 * A replay side effect as a string comparable with receipts: a JSON text of an
 * `{effect_type, path}` object (how the replay reader keeps object side effects) becomes
 * `effect_type:path`; other strings are kept as they are.
 */
export function normalizeReplaySideEffect(effect: string): string {
  if (!effect.startsWith("{")) return effect;
  try {
    const parsed: unknown = JSON.parse(effect);
    if (typeof parsed === "object" && parsed !== null && "effect_type" in parsed)
      return sideEffectString(parsed);
  } catch {
    // not JSON: keep the text
  }
  return effect;
}

/** What shape `value` has, or the reason it has none. */
function detectShape(value: JsonValue): { shape: ReceiptShape } | { reason: string } {
  if (!isJsonObject(value)) return { reason: `a receipt is a JSON object; found ${describe(value)}` };
  if (Object.hasOwn(value, "schema")) {
    const schema = value.schema;
    if (schema === RECEIPT_SCHEMA_V1) return { shape: "openagents.receipt.v1" };
    return {
      reason: `schema ${describe(schema)} is not ${JSON.stringify(RECEIPT_SCHEMA_V1)} (a new schema id is a breaking change this tool does not read)`,
    };
  }
  if (SESSION_RECEIPT_KEYS.some((k) => Object.hasOwn(value, k))) return { shape: "session-receipt" };
  if (Object.hasOwn(value, "replay_hash")) return { shape: "adr0003" };
  const keys = Object.keys(value);
  return {
    reason: `no "schema" (openagents.receipt.v1), no SessionReceipt member (started_at, completed_at, final_confidence) and no replay_hash (ADR-0003); found keys ${keys.length === 0 ? "(none)" : keys.slice(0, 8).join(", ")}`,
  };
}

/**
 * The JSON value of a receipt's bytes, or null with an error finding naming `file` (malformed
 * receipt JSON is an invalid receipt, a verdict, never a usage error).
 */
export function parseReceiptJson(bytes: Uint8Array, file: string, findings: Findings): JsonValue | null {
  try {
    return readJson(decodeUtf8(Buffer.from(bytes)));
  } catch (error) {
    if (!(error instanceof ReplayPipelineError)) throw error;
    findings.error({
      line: error.location.line ?? null,
      column: error.location.column ?? null,
      path: error.location.path ?? "$",
      code: error.code,
      message: `${file}: ${error.detail}`,
    });
    return null;
  }
}

/**
 * Reads a RECEIPT.json value (as `readJson` gives it): detects its shape, validates it (each
 * problem an error finding with code `receipt.*`, so the verdict is invalid), recomputes
 * `canonical_json_sha256` when present (a row), and normalizes it for `verifyReceipt`. An unknown
 * shape is an error `receipt.unknown_shape` with the reason, never silently passed. Returns null
 * when the receipt cannot be used.
 */
export function readReceipt(value: JsonValue, findings: Findings): Receipt | null {
  const detected = detectShape(value);
  if ("reason" in detected) {
    findings.error({
      line: null,
      column: null,
      path: "$",
      code: "receipt.unknown_shape",
      message: `not a receipt shape this tool reads: ${detected.reason}`,
      expected: "an openagents.receipt.v1, a SessionReceipt or an ADR-0003 receipt with replay_hash",
      found: detected.reason,
    });
    return null;
  }
  const object = value as JsonObject;
  const receipt =
    detected.shape === "openagents.receipt.v1"
      ? readV1(value, findings)
      : detected.shape === "session-receipt"
        ? readSessionReceipt(value, findings)
        : readAdr0003(value, findings);
  if (typeof object.canonical_json_sha256 === "string") checkCanonicalDigest(object, findings);
  return receipt;
}

/** An openagents.receipt.v1 receipt, normalized; its missing spec fields are notices. */
function readV1(value: JsonValue, findings: Findings): Receipt | null {
  const r = validate(V1, value, findings, { line: null, code: "receipt" });
  if (r !== undefined) {
    for (const key of ["trajectory_hash", "policy_bundle_id"] as const) {
      if (r[key] === undefined)
        findings.notice({
          line: null,
          column: null,
          path: `$.${key}`,
          code: "receipt.spec_field_missing",
          message: `${key} is required by openagents.receipt.v1 but absent (null would say the session has none); not compared`,
        });
    }
    return {
      shape: "openagents.receipt.v1",
      hasReplayHash: r.replay_hash !== undefined,
      session_id: r.session_id,
      trajectory_hash: r.trajectory_hash ?? null,
      replay_hash: r.replay_hash ?? null,
      policy_bundle_id: r.policy_bundle_id ?? null,
      tool_calls: r.tool_calls?.map((c, index) => toolCallOf(c, index, c.ok ?? null, c.side_effects)) ?? null,
      verification: r.verification?.map((v) => ({ command: v.command, exit_code: v.exit_code })) ?? null,
      signature: (value as JsonObject).signature,
    };
  }
  return null;
}

/** A SessionReceipt, normalized: its verification's two lists paired by index. */
function readSessionReceipt(value: JsonValue, findings: Findings): Receipt | null {
  const r = validate(SESSION_RECEIPT, value, findings, { line: null, code: "receipt" });
  if (r !== undefined) {
    let verification: ReceiptVerification[] | null = null;
    if (r.verification !== undefined) {
      const { commands_run: commands, exit_codes: codes } = r.verification;
      if (commands.length !== codes.length) {
        findings.error({
          line: null,
          column: null,
          path: "$.verification.exit_codes",
          code: "receipt.verification_mismatch",
          message: `${commands.length} commands_run but ${codes.length} exit_codes`,
          expected: `${commands.length} exit codes`,
          found: String(codes.length),
        });
      }
      verification = commands.map((command, k) => ({ command, exit_code: codes[k] ?? null }));
    }
    return {
      shape: "session-receipt",
      hasReplayHash: r.replay_hash !== undefined,
      session_id: r.session_id,
      trajectory_hash: null,
      replay_hash: r.replay_hash ?? null,
      policy_bundle_id: r.policy_bundle_id ?? null,
      tool_calls: r.tool_calls.map((c, index) =>
        toolCallOf(
          c,
          index,
          null,
          c.side_effects === undefined ? null : c.side_effects.map(sideEffectString),
        ),
      ),
      verification,
      signature: (value as JsonObject).signature,
    };
  }
  return null;
}

/** A receipt's tool call, normalized: `ok` and `side_effects` as its shape states them. */
function toolCallOf(
  c: Pick<ReceiptToolCall, "tool" | "params_hash" | "output_hash"> & { id?: string; step_id?: string },
  index: number,
  ok: boolean | null,
  side_effects: string[] | null,
): ReceiptToolCall {
  return {
    index,
    id: c.id ?? null,
    step_id: c.step_id ?? null,
    tool: c.tool,
    params_hash: c.params_hash,
    output_hash: c.output_hash,
    ok,
    side_effects,
  };
}

/** An ADR-0003 receipt, normalized: a replay hash and little else. */
function readAdr0003(value: JsonValue, findings: Findings): Receipt | null {
  const r = validate(ADR0003, value, findings, { line: null, code: "receipt" });
  if (r !== undefined) {
    return {
      shape: "adr0003",
      hasReplayHash: true,
      session_id: r.session_id ?? null,
      trajectory_hash: null,
      replay_hash: r.replay_hash,
      policy_bundle_id: null,
      tool_calls: null,
      verification: null,
      signature: (value as JsonObject).signature,
    };
  }
  return null;
}

/**
 * The openagents-canonical sha256 of the receipt without `signature` and without
 * `canonical_json_sha256` itself (a digest cannot cover its own value), as `sha256:<hex>`.
 */
export function receiptDigest(receipt: JsonObject): string {
  const body: JsonObject = {};
  for (const [key, v] of Object.entries(receipt))
    if (key !== "signature" && key !== "canonical_json_sha256") setMember(body, key, v);
  return canonicalHash(body, "openagents");
}

/** The `canonical_json_sha256` row, in the form the receipt wrote it (prefixed or bare hex). */
function checkCanonicalDigest(receipt: JsonObject, findings: Findings): void {
  const written = receipt.canonical_json_sha256 as string;
  let digest: string;
  try {
    digest = receiptDigest(receipt);
  } catch (error) {
    if (!(error instanceof ReplayPipelineError)) throw error;
    findings.error({
      line: null,
      column: null,
      path: error.location.path ?? "$",
      code: error.code,
      message: `canonical_json_sha256 cannot be recomputed: ${error.detail}`,
    });
    return;
  }
  const actual = written.startsWith("sha256:") ? digest : digest.slice("sha256:".length);
  findings.compare("canonical_json_sha256", "receipt (canonical JSON without signature)", written, actual);
}
