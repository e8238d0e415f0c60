/** The hashes of a ReplayKit artifact as its producer computes them: step hashes, checksum, signature. */
import { createHmac, timingSafeEqual } from "node:crypto";
import {
  canonicalHash,
  canonicalize,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  SHA256_TAG,
  type Sha256Tag,
} from "../../canonical/index.js";
import { CanonicalizationError } from "../../errors.js";
import type { Findings, FormatOptions } from "../types.js";
import { describe, member, stringMember } from "../validate.js";
import { HMAC_TAG, SIGNATURE_ALGORITHM } from "./schema.js";
import { error, notice, type StepView } from "./step-view.js";

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

/** A step's recomputed hash; undefined (with an error) where the producer could not hash it. */
export function stepHash(step: StepView, findings: Findings): string | undefined {
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
export function checkChecksum(doc: JsonObject, findings: Findings): void {
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
export function checkSignature(doc: JsonObject, findings: Findings, options: FormatOptions): void {
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
