import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import {
  canonicalHash,
  canonicalize,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  memberPath,
  SHA256_TAG,
  type Sha256Tag,
} from "../canonical/index.js";
import { CanonicalizationError } from "../errors.js";
import { layerCOriginOf } from "./layer-c-record.js";
import {
  type DocumentFormat,
  emptySummary,
  type Finding,
  type Findings,
  type FormatOptions,
  type Session,
  type ToolCallRecord,
} from "./types.js";
import { describe, member, numberMember, stringMember, validate, zHash } from "./validate.js";

/**
 * ReplayKit `.rpk` artifacts (golden0320230-lab/Replay-Kit, package `replaypack`): one JSON
 * document `{version, metadata, payload: {run}, checksum, signature?}`. Specs:
 * `specs/replaykit-rpk-v1.md`, `specs/replaykit/*.md`, `specs/HASHING-NOTES.md`; the published
 * schema is `corpus/replaykit/schemas/rpk-1.0.schema.json`. Where the docs and the producer's code
 * disagree, the code is followed, because it wrote the files.
 */

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
const KNOWN_MINOR = 0;
/** The legacy version the producer's migration reads (`migration.py`). */
export const LEGACY_VERSION = "0.9";
const VERSION_RE = /^\d+\.\d+$/;
const HMAC_TAG = /^hmac-sha256:[0-9a-f]{64}$/;
const SIGNATURE_ALGORITHM = "hmac-sha256";

// Members the producer writes (Run/Step `to_dict`, `build_artifact_envelope`, `sign_artifact_envelope`);
// anything else is kept and reported as a notice. `metadata`, `environment_fingerprint`,
// `runtime_versions` and step payloads are free-form maps by design, so their keys are not checked.
const ENVELOPE_KEYS = new Set(["version", "metadata", "payload", "checksum", "signature"]);
const PAYLOAD_KEYS = new Set(["run"]);
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
const SIGNATURE_KEYS = new Set(["algorithm", "key_id", "value"]);
// What the producer's 0.9 migration reads; everything else is dropped by it.
const LEGACY_RUN_KEYS = new Set(["id", "timestamp", "steps", "env_fingerprint", "runtime"]);
const LEGACY_STEP_KEYS = new Set([
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

const STEPS_PATH = "$.payload.run.steps";

// ---------------------------------------------------------------------------------------------
// Schemas. Every message says what was expected; a missing member says so, since zod's default
// ("expected nonoptional") tells a reader nothing.

const need = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `expected ${what} (required field is missing)` : `expected ${what}`;
const str = () => z.string({ error: need("a string") });
const anyValue = () => z.custom<JsonValue>((v) => v !== undefined, { error: need("a JSON value") });
// `readJson` numbers are `JsonNumber` objects, which zod's object check would accept as objects.
const object = () => z.custom<JsonObject>((v) => isJsonObject(v as JsonValue), { error: need("an object") });
// The result is used only to accept or reject (values are read from the document afterwards), so
// the object schema is typed as taking and giving the JsonObject the check above let through.
const shaped = (shape: z.core.$ZodLooseShape): z.ZodType<JsonObject, unknown> =>
  object().pipe(z.looseObject(shape) as unknown as z.ZodType<JsonObject, JsonObject>);
const hashField = () => z.string({ error: need("a sha256:<64 lowercase hex> string") }).pipe(zHash());
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
const ENVELOPE = shaped({
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
const STEP = shaped({
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
const LEGACY_ENVELOPE = shaped({
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

const LEGACY_STEP = shaped({ id: anyValue(), type: stepType(), metadata: object().optional() });

// ---------------------------------------------------------------------------------------------

/** One step as hashed and summarized, whichever version it came from. */
interface StepView {
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

/**
 * A cheap content test for format detection: an object with a string `version`, a `payload`
 * (or version 0.9, whose envelope the migration checks itself) and a `checksum` or `metadata`.
 * `version` + `checksum` + `metadata` without `payload` also counts, so that a truncated artifact
 * is read here and rejected with "payload is missing" rather than as an unknown format; no other
 * format we read has a `checksum` member beside `version` and `metadata`.
 */
export function isReplaykitArtifact(value: JsonValue): boolean {
  if (!isJsonObject(value) || typeof value.version !== "string") return false;
  const has = (key: string): boolean => Object.hasOwn(value, key);
  if (has("checksum") && has("metadata")) return true;
  return (has("payload") || value.version === LEGACY_VERSION) && (has("checksum") || has("metadata"));
}

/**
 * The ReplayKit `.rpk` reader. Bundle exports (`replaykit bundle`, `.bundle` files) are the same
 * envelope written by the same `write_artifact` (with `metadata.bundle: true`), so they are read
 * here too. Check rows: one `step_hash` per step, one `checksum` for the envelope, and a
 * `signature` when the artifact is signed.
 */
export const replaykitFormat: DocumentFormat = {
  id: "replaykit-rpk",
  kind: "document",
  read(value: JsonValue, findings: Findings, options: FormatOptions): Session {
    if (!isJsonObject(value)) {
      findings.error({
        line: null,
        column: null,
        path: "$",
        code: "rpk.not_object",
        message: `a ReplayKit artifact must be a JSON object, found ${describe(value)}`,
        expected: "an object",
        found: describe(value),
      });
      return emptySession();
    }
    const version = checkVersion(value, findings);
    if (version === "unsupported") return emptySession();
    const session =
      version === "legacy" ? readLegacy(value, findings, options) : readCurrent(value, findings, options);
    const original = layerCOriginOf(member(member(value, "metadata"), "redaction"));
    if (original !== null) session.original = original;
    return session;
  },
};

function emptySession(): Session {
  return { summary: emptySummary("replaykit-rpk"), tool_calls: [], runtime_events: [] };
}

function error(findings: Findings, finding: Omit<Finding, "line" | "column">): void {
  findings.error({ line: null, column: null, ...finding });
}

function notice(findings: Findings, path: string, code: string, message: string): void {
  findings.notice({ line: null, column: null, path, code, message });
}

/**
 * The producer's version contract (`schema.validate_artifact`, `migration.py`): `^\d+\.\d+$`;
 * major 1 is read; exactly "0.9" goes through migration; any other major fails fast with one
 * error, because its layout may mean something else. A malformed version is an error, but the
 * rest is still validated as 1.x so every problem is reported at once.
 */
function checkVersion(doc: JsonObject, findings: Findings): "current" | "legacy" | "unsupported" {
  const version = member(doc, "version");
  const expected = 'a "<major>.<minor>" version string such as "1.0"';
  if (typeof version !== "string" || !VERSION_RE.test(version)) {
    const missing = version === undefined;
    error(findings, {
      path: "$.version",
      code: missing ? "rpk.missing_field" : "rpk.invalid_version",
      message: missing
        ? `$.version: required field is missing; expected ${expected}`
        : `$.version: expected ${expected}, found ${describe(version)}`,
      expected,
      found: describe(version),
    });
    return "current";
  }
  if (version === LEGACY_VERSION) return "legacy";
  const [major = "", minor = ""] = version.split(".");
  if (Number(major) !== 1) {
    error(findings, {
      path: "$.version",
      code: "rpk.unsupported_major",
      message: `unsupported major version: artifact version ${version}; this reader supports 1.x (and migrates 0.9)`,
      expected: "1.x or 0.9",
      found: describe(version),
    });
    return "unsupported";
  }
  if (Number(minor) > KNOWN_MINOR) {
    notice(
      findings,
      "$.version",
      "rpk.unknown_minor",
      `version ${version} is newer than 1.${KNOWN_MINOR}, the latest minor this reader knows; read as 1.x (minors are additive), fields it does not know are reported as notices`,
    );
  }
  return "current";
}

// ---------------------------------------------------------------------------------------------
// 1.x

function readCurrent(doc: JsonObject, findings: Findings, options: FormatOptions): Session {
  validate(ENVELOPE, doc, findings, { line: null, code: "rpk" });
  reportUnknown(doc, ENVELOPE_KEYS, "$", findings, "is not covered by the checksum or the signature");
  const payload = member(doc, "payload");
  if (isJsonObject(payload)) reportUnknown(payload, PAYLOAD_KEYS, "$.payload", findings);
  const run = member(payload, "run");
  if (isJsonObject(run)) reportUnknown(run, RUN_KEYS, "$.payload.run", findings);
  const signature = member(doc, "signature");
  if (isJsonObject(signature)) reportUnknown(signature, SIGNATURE_KEYS, "$.signature", findings);

  const steps: StepView[] = [];
  const rawSteps = member(run, "steps");
  const unknown = new StepFieldNotices(STEP_KEYS, "is covered by the checksum but not by the step hash");
  if (Array.isArray(rawSteps)) {
    rawSteps.forEach((raw, index) => {
      const path = `${STEPS_PATH}[${index}]`;
      const ok = validate(STEP, raw, findings, { line: null, code: "rpk", base: path }) !== undefined;
      if (!isJsonObject(raw)) return;
      unknown.add(raw, path);
      // Only a step that passed validation is rehashed: a row for a malformed step would only
      // repeat the error above as a confusing mismatch.
      if (!ok) return;
      steps.push({
        index,
        path,
        label: stepLabel(raw.id, index),
        ...stepContent(raw, false),
        type: raw.type as string,
        recorded: raw.hash as string,
        timestamp: stringMember(raw, "timestamp"),
      });
    });
  }
  unknown.report(findings);

  for (const step of steps) {
    const actual = stepHash(step, findings);
    if (actual !== undefined)
      findings.compare("step_hash", `step ${step.label}`, step.recorded ?? "", actual);
  }
  checkChecksum(doc, findings);
  checkSignature(doc, findings, options);
  noticeBundle(doc, findings);
  checkLayerC(doc, Array.isArray(rawSteps) ? rawSteps.length : 0, findings);

  const rawCount = Array.isArray(rawSteps) ? rawSteps : [];
  return summarize(doc, run, member(run, "runtime_versions"), summaryViews(rawCount, steps));
}

/**
 * Steps for the summary: the validated views, plus a best-effort view of steps that failed
 * validation so counts still reflect the file.
 */
function summaryViews(rawSteps: JsonValue[], valid: StepView[]): StepView[] {
  if (valid.length === rawSteps.length) return valid;
  const byIndex = new Map(valid.map((s) => [s.index, s]));
  return rawSteps.map((raw, index) => {
    const known = byIndex.get(index);
    if (known !== undefined) return known;
    const metadata = member(raw, "metadata");
    return {
      index,
      path: `${STEPS_PATH}[${index}]`,
      label: stepLabel(member(raw, "id"), index),
      type: stringMember(raw, "type") ?? "unknown",
      input: member(raw, "input") ?? null,
      output: member(raw, "output") ?? null,
      metadata: isJsonObject(metadata) ? metadata : {},
      recorded: undefined,
      timestamp: stringMember(raw, "timestamp"),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// 0.9 (legacy), read the way the producer's `migrate_artifact_envelope` reads it.

/**
 * Hash policy for 0.9, taken from the producer's `migration.py`:
 * - the envelope checksum is verified over the 0.9 envelope as written (`{version: "0.9",
 *   metadata, payload}`) and a mismatch fails the migration, so it is a normal `checksum` row;
 * - each step hash is recomputed from the migrated step (`request`/`response` as
 *   `input`/`output`), and the 0.9 `step_hash` is only compared to count it "preserved" or
 *   "recomputed": a mismatch is not an error there, because legacy writers may have hashed
 *   differently. So a matching legacy hash is a `passed` row, and a differing or absent one is
 *   `unverifiable` (never `failed`): we cannot tell tampering from an older hash rule, and the
 *   checksum row already covers the step content.
 */
function readLegacy(doc: JsonObject, findings: Findings, options: FormatOptions): Session {
  validate(LEGACY_ENVELOPE, doc, findings, { line: null, code: "rpk" });
  reportUnknown(doc, ENVELOPE_KEYS, "$", findings, "is not covered by the checksum or the signature");
  const payload = member(doc, "payload");
  if (isJsonObject(payload)) reportUnknown(payload, PAYLOAD_KEYS, "$.payload", findings);
  const run = member(payload, "run");
  if (isJsonObject(run))
    reportUnknown(run, LEGACY_RUN_KEYS, "$.payload.run", findings, "is dropped by the 0.9 migration");

  const steps: StepView[] = [];
  const rawSteps = member(run, "steps");
  const unknown = new StepFieldNotices(LEGACY_STEP_KEYS, "is dropped by the 0.9 migration");
  if (Array.isArray(rawSteps)) {
    rawSteps.forEach((raw, index) => {
      const path = `${STEPS_PATH}[${index}]`;
      const ok = validate(LEGACY_STEP, raw, findings, { line: null, code: "rpk", base: path }) !== undefined;
      if (!isJsonObject(raw)) return;
      unknown.add(raw, path);
      if (!ok) return;
      const legacyHash = member(raw, "step_hash") ?? member(raw, "hash");
      steps.push({
        index,
        path,
        label: stepLabel(raw.id, index),
        ...stepContent(raw, true),
        type: raw.type as string,
        recorded: typeof legacyHash === "string" && legacyHash.trim() !== "" ? legacyHash.trim() : undefined,
        // The migration builds steps without a timestamp.
        timestamp: null,
      });
    });
  }

  unknown.report(findings);

  let preserved = 0;
  for (const step of steps) {
    const actual = stepHash(step, findings);
    if (actual === undefined) continue;
    const subject = `step ${step.label}`;
    if (step.recorded === actual) {
      preserved++;
      findings.compare("step_hash", subject, step.recorded, actual);
    } else {
      findings.check({
        check: "step_hash",
        subject,
        expected: step.recorded ?? null,
        actual,
        status: "unverifiable",
      });
    }
  }
  notice(
    findings,
    "$.version",
    "rpk.migrated",
    `legacy 0.9 artifact migrated to 1.0 for reading (request/response → input/output, step_hash → hash, env_fingerprint → environment_fingerprint, runtime → runtime_versions); step hashes: ${preserved} preserved, ${steps.length - preserved} recomputed (unverifiable: the 0.9 hash rule is not specified)`,
  );
  checkChecksum(doc, findings);
  checkSignature(doc, findings, options);
  checkLayerC(doc, Array.isArray(rawSteps) ? rawSteps.length : 0, findings);

  return summarize(doc, run, member(run, "runtime"), steps);
}

// ---------------------------------------------------------------------------------------------
// Hashes

function stepLabel(id: JsonValue | undefined, index: number): string {
  if (typeof id === "string") return id;
  if (id instanceof JsonNumber) return id.text;
  return `#${index}`;
}

/** What a step hash covers (the producer's `compute_step_hash` arguments). */
export interface StepContent {
  type: JsonValue;
  input: JsonValue;
  output: JsonValue;
  metadata: JsonObject;
}

/**
 * A step's hashed content as the producer reads the step (`Step.from_dict`): a missing `input` or
 * `output` is null and a missing metadata `{}`; for 0.9 (`migration.py`, `step.get("input",
 * step.get("request"))`) `request`/`response` stand in for an absent `input`/`output`, but not for
 * one present as null.
 */
export function stepContent(step: JsonObject, legacy: boolean): StepContent {
  const metadata = member(step, "metadata");
  const raw = (name: string, legacyName: string): JsonValue =>
    (Object.hasOwn(step, name) || !legacy ? member(step, name) : member(step, legacyName)) ?? null;
  return {
    type: member(step, "type") ?? null,
    input: raw("input", "request"),
    output: raw("output", "response"),
    metadata: isJsonObject(metadata) ? metadata : {},
  };
}

/**
 * Producer `compute_step_hash`: `{type, input, output, metadata}`, volatile keys stripped at
 * every depth. Step `id` and `timestamp` are not hashed. Throws `CanonicalizationError` where the
 * producer cannot hash (an out-of-range timestamp).
 */
export function computeStepHash(step: StepContent): Sha256Tag {
  const value: JsonObject = {
    type: step.type,
    input: step.input,
    output: step.output,
    metadata: step.metadata,
  };
  return canonicalHash(value, "replaykit", { stripVolatile: true });
}

/**
 * Producer `compute_artifact_checksum`: `{version, metadata, payload}`, no stripping (`checksum`
 * and `signature` are not covered). Throws `CanonicalizationError` as `computeStepHash` does.
 */
export function computeChecksum(version: JsonValue, metadata: JsonValue, payload: JsonValue): Sha256Tag {
  return canonicalHash({ version, metadata, payload }, "replaykit");
}

function stepHash(step: StepView, findings: Findings): string | undefined {
  return hashOrReport(() => computeStepHash(step), step.path, findings);
}

/** Runs a canonicalization; a value the producer could not hash (NaN, out-of-range date) is an error. */
function hashOrReport(compute: () => string, base: string, findings: Findings): string | undefined {
  try {
    return compute();
  } catch (e) {
    if (!(e instanceof CanonicalizationError)) throw e;
    // Paths are relative to the object hashed, whose members sit directly under `base`.
    const path = `${base}${(e.location.path ?? "$").slice(1)}`;
    error(findings, {
      path,
      code: "rpk.unhashable",
      message: `${path}: ReplayKit cannot hash this value: ${e.detail}`,
      expected: "a value ReplayKit can canonicalize",
      found: e.code,
    });
    return undefined;
  }
}

/** Producer `compute_artifact_checksum` over `{version, metadata, payload}`, no stripping. */
function checkChecksum(doc: JsonObject, findings: Findings): void {
  const recorded = member(doc, "checksum");
  const version = member(doc, "version");
  const metadata = member(doc, "metadata");
  const payload = member(doc, "payload");
  // A malformed checksum is already an error; without the three members there is nothing to hash.
  if (typeof recorded !== "string" || !SHA256_TAG.test(recorded)) return;
  if (version === undefined || metadata === undefined || payload === undefined) return;
  const actual = hashOrReport(() => computeChecksum(version, metadata, payload), "$", findings);
  if (actual !== undefined) findings.compare("checksum", "envelope", recorded, actual);
}

// Python `str.strip()` whitespace, which the producer applies to the signing key.
// (Built from a string: the class holds control characters a regex literal would be linted for.)
const PY_SPACE =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_WHITESPACE = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/**
 * The key as the producer uses it (`_normalize_signing_key`: the text stripped, UTF-8 encoded),
 * so a key read from a file with a trailing newline verifies the same. Bytes that are not UTF-8
 * are used as given. Undefined when there is no usable key.
 */
function signingKey(raw: Uint8Array | undefined): Uint8Array | undefined {
  if (raw === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    return raw.length > 0 ? raw : undefined;
  }
  const stripped = text.replace(PY_WHITESPACE, "");
  return stripped === "" ? undefined : Buffer.from(stripped, "utf8");
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Producer `verify_artifact_signature`: HMAC-SHA256 over canonical `{version, metadata, payload,
 * checksum}` (the recorded checksum), written `hmac-sha256:<hex>`. Without a key the row is
 * `unverifiable`. Given a key, a signature is required (the cosign/slsa-verifier convention): a
 * missing one, or one in an algorithm other than hmac-sha256 (the producer's
 * `unsupported_algorithm`), is a failed row, so stripping or relabelling it cannot pass.
 */
function checkSignature(doc: JsonObject, findings: Findings, options: FormatOptions): void {
  const signature = member(doc, "signature");
  const keyGiven = options.hmacKey !== undefined;
  if (signature === undefined) {
    if (keyGiven)
      findings.check({
        check: "signature",
        subject: "envelope (a key was given, so a signature is required)",
        expected: `an ${SIGNATURE_ALGORITHM} signature`,
        actual: "no signature",
        status: "failed",
      });
    return;
  }
  const value = stringMember(signature, "value");
  // A malformed signature object is already reported by the schema.
  if (!isJsonObject(signature) || value === null || !HMAC_TAG.test(value)) return;
  const algorithm = stringMember(signature, "algorithm");
  if (algorithm !== SIGNATURE_ALGORITHM) {
    findings.check({
      check: "signature",
      subject: keyGiven
        ? "envelope (unsupported algorithm)"
        : "envelope (unsupported algorithm; no key given)",
      expected: `an ${SIGNATURE_ALGORITHM} signature`,
      actual: `algorithm ${algorithm === null ? describe(member(signature, "algorithm")) : JSON.stringify(algorithm)}`,
      status: keyGiven ? "failed" : "unverifiable",
    });
    return;
  }
  const checksum = member(doc, "checksum");
  const version = member(doc, "version");
  const metadata = member(doc, "metadata");
  const payload = member(doc, "payload");
  if (checksum === undefined || version === undefined || metadata === undefined || payload === undefined)
    return;
  const key = signingKey(options.hmacKey);
  if (key === undefined) {
    if (options.hmacKey !== undefined) {
      notice(
        findings,
        "$.signature",
        "rpk.empty_hmac_key",
        "the HMAC key given is empty after trimming whitespace; signature not checked",
      );
    }
    findings.check({
      check: "signature",
      subject: "envelope",
      expected: value,
      actual: null,
      status: "unverifiable",
    });
    return;
  }
  const text = hashOrReport(
    () => canonicalize({ version, metadata, payload, checksum }, "replaykit"),
    "$",
    findings,
  );
  if (text === undefined) return;
  const actual = `${SIGNATURE_ALGORITHM}:${createHmac("sha256", key).update(text, "utf8").digest("hex")}`;
  findings.check({
    check: "signature",
    subject: "envelope",
    expected: value,
    actual,
    status: sameText(value, actual) ? "passed" : "failed",
  });
}

// ---------------------------------------------------------------------------------------------
// Notices

function reportUnknown(
  obj: JsonObject,
  known: ReadonlySet<string>,
  base: string,
  findings: Findings,
  why?: string,
): void {
  for (const key of Object.keys(obj)) {
    if (known.has(key)) continue;
    const path = `${base}${memberPath(key)}`;
    notice(
      findings,
      path,
      "rpk.unknown_field",
      `unknown field ${JSON.stringify(key)} kept as is${why === undefined ? "" : `; it ${why}`}`,
    );
  }
}

/**
 * Unknown step fields, one notice per field name rather than per step, so a long run whose every
 * step carries the same extra field says so once (with the count and the first place).
 */
class StepFieldNotices {
  private readonly seen = new Map<string, { path: string; count: number }>();

  constructor(
    private readonly known: ReadonlySet<string>,
    private readonly why: string,
  ) {}

  add(step: JsonObject, base: string): void {
    for (const key of Object.keys(step)) {
      if (this.known.has(key)) continue;
      const entry = this.seen.get(key);
      if (entry === undefined) this.seen.set(key, { path: `${base}${memberPath(key)}`, count: 1 });
      else entry.count++;
    }
  }

  report(findings: Findings): void {
    for (const [key, { path, count }] of this.seen) {
      const where = count === 1 ? "" : ` (in ${count} steps, first here)`;
      notice(
        findings,
        path,
        "rpk.unknown_field",
        `unknown field ${JSON.stringify(key)} kept as is${where}; it ${this.why}`,
      );
    }
  }
}

/** A bundle export's step hashes were recomputed after redaction: they vouch for the redacted content. */
function noticeBundle(doc: JsonObject, findings: Findings): void {
  const metadata = member(doc, "metadata");
  if (member(metadata, "bundle") !== true) return;
  const source = stringMember(metadata, "source_run_id");
  const profile = stringMember(metadata, "redaction_profile");
  const policy = stringMember(metadata, "redaction_policy_version");
  const how = [
    ...(profile === null ? [] : [`redaction profile ${profile}`]),
    ...(policy === null ? [] : [`policy ${policy}`]),
  ];
  notice(
    findings,
    "$.metadata.bundle",
    "rpk.bundle",
    `bundle export${source === null ? "" : ` of run ${source}`}${how.length === 0 ? "" : ` (${how.join(", ")})`}: step hashes were recomputed after redaction, so they cover the redacted content`,
  );
}

/**
 * The record our `redact` (shared/redact/layer-c.ts) writes in `metadata.redaction` of a Layer C
 * copy: what the copy's step hashes and checksum replaced, so the copy still links to its original
 * and to the original's receipt. Only what this reader relies on is checked; the counts beside it
 * are free-form.
 */
const LAYER_C_RECORD = shaped({
  layer: z.literal("C", { error: need('"C"') }),
  format: z.literal("replaykit-rpk", { error: need('"replaykit-rpk"') }),
  preset: str(),
  original: shaped({
    checksum: hashField().nullable(),
    step_hashes: z.array(hashField().nullable(), { error: need("an array of step hashes (or null)") }),
  }),
  signature: z.literal("removed", { error: need('"removed"') }).optional(),
});

/**
 * A Layer C copy made by our `redact` (its `metadata.redaction.layer` is "C"): the record must be
 * well-formed and list one original hash per step, or it no longer says which step it stood for.
 * The copy's own hashes were recomputed over the masked content (checked as any artifact's); the
 * original's cannot be checked from the copy and are reported in a notice.
 */
function checkLayerC(doc: JsonObject, stepCount: number, findings: Findings): void {
  const base = "$.metadata.redaction";
  const record = member(member(doc, "metadata"), "redaction");
  if (!isJsonObject(record) || record.layer !== "C") return;
  if (validate(LAYER_C_RECORD, record, findings, { line: null, code: "rpk", base }) === undefined) return;
  const original = member(record, "original");
  const hashes = member(original, "step_hashes") as JsonValue[];
  if (hashes.length !== stepCount) {
    error(findings, {
      path: `${base}.original.step_hashes`,
      code: "rpk.layer_c_step_count",
      message: `${base}.original.step_hashes: lists ${hashes.length} original step hashes for ${stepCount} steps; expected one per step, in order`,
      expected: `${stepCount} entries`,
      found: `${hashes.length} entries`,
    });
    return;
  }
  notice(
    findings,
    base,
    "rpk.layer_c",
    `Layer C copy (preset ${stringMember(record, "preset")}) of the artifact with checksum ${stringMember(original, "checksum") ?? "(none)"}: its values are masked and its step hashes and checksum cover the copy; the original's are in ${base}.original`,
  );
}

// ---------------------------------------------------------------------------------------------
// Session

const FAILURE_STATUS = new Set(["error", "failed", "failure"]);

/**
 * True when a tool result reports failure: `error` set, `ok`/`success` false, `status` error or
 * failed, a non-zero `exit_code`, or an HTTP `status_code` of 400 or more. Looked for in `output`
 * and in `output.result`, the two shapes the producer's capture writes.
 */
function reportsFailure(output: JsonValue): boolean {
  for (const v of [output, member(output, "result")]) {
    if (!isJsonObject(v)) continue;
    const err = v.error;
    if (err !== undefined && err !== null && err !== false && err !== "") return true;
    if (v.ok === false || v.success === false) return true;
    const status = stringMember(v, "status");
    if (status !== null && FAILURE_STATUS.has(status.toLowerCase())) return true;
    const exit = numberMember(v, "exit_code");
    if (exit !== null && exit !== 0) return true;
    const http = numberMember(v, "status_code");
    if (http !== null && http >= 400) return true;
  }
  return false;
}

function firstString(candidates: [JsonValue, string][]): string | null {
  for (const [value, key] of candidates) {
    const s = stringMember(value, key);
    if (s !== null && s !== "") return s;
  }
  return null;
}

/** Volatile metadata timings; `latency_ms` first so a step carrying both is not counted twice. */
function stepLatency(step: StepView): number | null {
  return numberMember(step.metadata, "latency_ms") ?? numberMember(step.metadata, "duration_ms");
}

/**
 * Normalizes a run. Status rule (ReplayKit records no run outcome): `failed` when any step is an
 * `error.event`, else `success` when an `output.final` step exists, else `unknown` (a capture
 * that stopped without a final output says nothing about success). A tool call is a
 * `tool.request` step; its result is the next `tool.response` with the same `call_id` or, when
 * either has none, the oldest unanswered request (the producer writes them in order).
 */
function summarize(
  doc: JsonObject,
  run: JsonValue | undefined,
  runtime: JsonValue | undefined,
  steps: StepView[],
): Session {
  const summary = emptySummary("replaykit-rpk");
  const metadata = member(doc, "metadata");
  summary.session_id = stringMember(run, "id") ?? stringMember(metadata, "run_id");
  // `replaypack` is the producer's package name; some runs record its version under that key.
  const release = stringMember(runtime, "replaykit") ?? stringMember(runtime, "replaypack");
  summary.producer = release === null ? "replaykit" : `replaykit ${release}`;
  summary.started_at = stringMember(run, "timestamp") ?? stringMember(metadata, "created_at");
  let ended: string | null = null;
  for (const step of steps) if (step.timestamp !== null) ended = step.timestamp;
  summary.ended_at = ended;

  const byType: Record<string, number> = {};
  for (const step of steps) byType[step.type] = (byType[step.type] ?? 0) + 1;
  summary.counts.events = steps.length;
  summary.counts.steps_by_type = byType;
  summary.status = byType["error.event"] ? "failed" : byType["output.final"] ? "success" : "unknown";

  let latencySum = 0;
  let latencySeen = false;
  for (const step of steps) {
    const ms = stepLatency(step);
    if (ms !== null) {
      latencySum += ms;
      latencySeen = true;
    }
  }
  summary.total_latency_ms = latencySeen ? latencySum : null;

  const calls: ToolCallRecord[] = [];
  const open: { record: ToolCallRecord; callId: string | null }[] = [];
  for (const step of steps) {
    if (step.type === "tool.request") {
      const callId = stringMember(step.input, "call_id");
      const record: ToolCallRecord = {
        id: callId,
        step_id: step.label.startsWith("#") ? null : step.label,
        tool: firstString([
          [step.input, "tool"],
          [step.input, "name"],
          [step.input, "tool_name"],
          [step.metadata, "tool"],
          [step.metadata, "name"],
          [step.metadata, "tool_name"],
        ]),
        params_hash: null,
        output_hash: null,
        latency_ms: stepLatency(step),
        ok: null,
        side_effects: [],
        line: null,
      };
      calls.push(record);
      open.push({ record, callId });
    } else if (step.type === "tool.response") {
      const failed = reportsFailure(step.output);
      if (failed) summary.counts.failed_tool_calls++;
      const callId = stringMember(step.input, "call_id");
      // The same call id first; otherwise the oldest request that has none to contradict it.
      let at = callId === null ? (open.length > 0 ? 0 : -1) : open.findIndex((o) => o.callId === callId);
      if (at === -1 && callId !== null) at = open.findIndex((o) => o.callId === null);
      const match = at === -1 ? undefined : open.splice(at, 1)[0];
      if (match !== undefined) {
        match.record.ok = !failed;
        match.record.latency_ms = stepLatency(step) ?? match.record.latency_ms;
      }
    }
  }
  summary.counts.tool_calls = calls.length;
  return { summary, tool_calls: calls, runtime_events: [] };
}
