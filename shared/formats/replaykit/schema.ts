/** The ReplayKit `.rpk` layout: versions, the members the producer writes, and the zod schemas of envelope, run and step. */
import { z } from "zod";
import { isJsonObject, type JsonObject, type JsonValue } from "../../canonical/index.js";
import { zHash } from "../validate.js";

// The published schema's enum (rpk-1.0.schema.json). It includes `agent.command`, which the
// format doc and older producer code lack; artifacts naming it are valid by the schema.
/** The step types of the published schema (rpk-1.0.schema.json). */
export const STEP_TYPES = [
  "agent.command",
  "prompt.render",
  "model.request",
  "model.response",
  "tool.request",
  "tool.response",
  "error.event",
  "output.final",
] as const;

/** The newest minor of major 1 this reader knows; a higher minor is read (additive) with a notice. */
export const KNOWN_MINOR = 0;
/** The legacy version the producer's migration reads (`migration.py`). */
export const LEGACY_VERSION = "0.9";
/** The producer's version pattern, `<major>.<minor>`. */
export const VERSION_RE = /^\d+\.\d+$/;
/** A signature value: `hmac-sha256:` and 64 lowercase hex digits. */
export const HMAC_TAG = /^hmac-sha256:[0-9a-f]{64}$/;
/** The one signature algorithm the producer writes. */
export const SIGNATURE_ALGORITHM = "hmac-sha256";

// Members the producer writes (Run/Step `to_dict`, `build_artifact_envelope`, `sign_artifact_envelope`);
// anything else is kept and reported as a notice. `metadata`, `environment_fingerprint`,
// `runtime_versions` and step payloads are free-form maps by design, so their keys are not checked.
/** Members of the envelope. */
export const ENVELOPE_KEYS = new Set(["version", "metadata", "payload", "checksum", "signature"]);
/** Members of `payload`. */
export const PAYLOAD_KEYS = new Set(["run"]);
/** Members of a 1.y `payload.run` (the published schema's and the producer's). */
export const RUN_KEYS: ReadonlySet<string> = new Set([
  "id",
  "timestamp",
  "environment_fingerprint",
  "runtime_versions",
  "steps",
  "source",
  "provider",
  "agent",
  "capture_mode",
  "listener_session_id",
  "listener_process",
  "listener_bind",
]);
/** Members of a 1.y step. */
export const STEP_KEYS: ReadonlySet<string> = new Set([
  "id",
  "type",
  "input",
  "output",
  "metadata",
  "hash",
  "timestamp",
]);
/** Members of `signature`. */
export const SIGNATURE_KEYS = new Set(["algorithm", "key_id", "value"]);
// What the producer's 0.9 migration reads; everything else is dropped by it.
/** Members of a 0.9 run that the migration reads. */
export const LEGACY_RUN_KEYS = new Set(["id", "timestamp", "steps", "env_fingerprint", "runtime"]);
/** Members of a 0.9 step that the migration reads. */
export const LEGACY_STEP_KEYS = new Set([
  "id",
  "type",
  "input",
  "output",
  "request",
  "response",
  "metadata",
  "step_hash",
  "hash",
]);

/** Where the steps are, for finding paths. */
export const STEPS_PATH = "$.payload.run.steps";

// ---------------------------------------------------------------------------------------------
// Schemas. Every message says what was expected; a missing member says so, since zod's default
// ("expected nonoptional") tells a reader nothing.

/** The message of a failed check: what was expected, and that a missing member is missing. */
export const need = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `expected ${what} (required field is missing)` : `expected ${what}`;
/** A string member. */
export const str = () => z.string({ error: need("a string") });
const anyValue = () => z.custom<JsonValue>((v) => v !== undefined, { error: need("a JSON value") });
// `readJson` numbers are `JsonNumber` objects, which zod's object check would accept as objects.
const object = () => z.custom<JsonObject>((v) => isJsonObject(v as JsonValue), { error: need("an object") });
// The result is used only to accept or reject (values are read from the document afterwards), so
// the object schema is typed as taking and giving the JsonObject the check above let through.
/** A JSON object with these members (others allowed). */
export const shaped = (shape: z.core.$ZodLooseShape): z.ZodType<JsonObject, unknown> =>
  object().pipe(z.looseObject(shape) as unknown as z.ZodType<JsonObject, JsonObject>);
/** A `sha256:<hex>` member. */
export const hashField = () => z.string({ error: need("a sha256:<64 lowercase hex> string") }).pipe(zHash());
const stepType = () =>
  z.enum(STEP_TYPES, {
    error: (issue) =>
      issue.input === undefined
        ? "expected a step type (required field is missing)"
        : `expected one of ${STEP_TYPES.join(", ")}`,
  });

const SIGNATURE = shaped({
  algorithm: str(),
  key_id: str(),
  value: str().regex(HMAC_TAG, "expected hmac-sha256: followed by 64 lowercase hex digits"),
});

/** rpk-1.0.schema.json, envelope and run; steps are validated one by one to know which to rehash. */
export const ENVELOPE = shaped({
  metadata: shaped({ run_id: str(), created_at: str() }),
  payload: shaped({
    run: shaped({
      id: str(),
      timestamp: str(),
      environment_fingerprint: object(),
      runtime_versions: object(),
      steps: z.array(z.unknown(), { error: need("an array of steps") }),
      source: str().optional(),
      provider: str().optional(),
      agent: str().optional(),
      capture_mode: str().optional(),
      listener_session_id: str().optional(),
      listener_process: object().optional(),
      listener_bind: object().optional(),
    }),
  }),
  checksum: hashField(),
  signature: SIGNATURE.optional(),
});

// `input` and `output` may be any JSON value, null included, but must be present.
/** A 1.y step. */
export const STEP = shaped({
  id: str(),
  type: stepType(),
  input: anyValue(),
  output: anyValue(),
  metadata: object(),
  hash: hashField(),
});

/**
 * What the producer's `_validate_legacy_v0_9_envelope` and `_run_from_legacy_v0_9` require. The
 * producer converts ids and timestamps with `str()`, so any present value is accepted there.
 */
export const LEGACY_ENVELOPE = shaped({
  metadata: object(),
  payload: shaped({
    run: shaped({
      id: anyValue(),
      timestamp: anyValue(),
      steps: z.array(z.unknown(), { error: need("an array of steps") }),
      env_fingerprint: object().optional(),
      runtime: object().optional(),
    }),
  }),
  checksum: hashField(),
  signature: SIGNATURE.optional(),
});

/** A 0.9 step, as far as the migration requires. */
export const LEGACY_STEP = shaped({ id: anyValue(), type: stepType(), metadata: object().optional() });
