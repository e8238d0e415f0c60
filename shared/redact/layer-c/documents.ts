/**
 * Layer C of whole documents: a ReplayKit `.rpk` masked in place and rehashed as ReplayKit's own
 * bundle export does, and a ReplayBundle with raw members removed.
 */
import {
  canonicalize,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Profile,
  SHA256_TAG,
  setMember,
} from "../../canonical/index.js";
import { CanonicalizationError } from "../../errors.js";
import {
  BUNDLE_FIELDS,
  computeChecksum,
  computeStepHash,
  type LayerCOrigin,
  LEGACY_VERSION,
  RPK_FIELDS,
  stepContent,
} from "../../formats/index.js";
import type { Preset } from "../presets.js";
import { Scrubber, type ScrubOptions } from "../scrub.js";
import { Context } from "./context.js";
import { scrubSettings } from "./lines.js";
import type { LayerCOptions } from "./options.js";
import { child, HASH_VALUE, isHashKey, isStructuralKey, isVerbatimKey, RAW_KEYS } from "./policy.js";
import { type LayerCSummary, summaryOf, summaryValue } from "./summary.js";
import { freeValue, isScalarOrScalars, redactEvent, structuralValue, verbatimSafe } from "./transform.js";

/** ReplayKit's mask (`replaypack/capture/redaction.py`, `RedactionPolicy.mask`), written in place of a masked value. */
export const RPK_MASK = "[REDACTED]";

/**
 * `metadata.redaction_policy_version` of a `.rpk` copy. ReplayKit writes its policy's version there
 * (`bundle.py`: "1.0", "1.0-none", "1.0-custom"); ours names these Layer C rules, so a reader can
 * tell which masking a copy had.
 */
export const RPK_REDACTION_POLICY_VERSION = "replay-pipeline-layer-c-1";

/**
 * A ReplayKit artifact, redacted the way ReplayKit's own bundle export redacts one
 * (`bundle.py` `redact_run_for_bundle` with `redaction.py` `redact_payload`, then
 * `build_artifact_envelope`), so the copy is a valid, self-consistent artifact ReplayKit replays,
 * diffs and migrates as what it is:
 * - values are masked in place (`rpkValue`): every member and array item stays, step input/output
 *   (0.9 request/response) are raw content (ADR-0017), so their values become `RPK_MASK`;
 * - each step hash (`computeStepHash`) and the checksum (`computeChecksum`) are recomputed over the
 *   copy, and metadata gets ReplayKit's bundle markers (`bundle`, `source_run_id`,
 *   `redaction_profile` = the preset, `redaction_policy_version`);
 * - `metadata.redaction` holds our summary, with `original`: every original step hash (in step
 *   order, null where a step had none) and the original checksum, which link the copy to its
 *   original and to the original's receipt;
 * - a signature is dropped (recorded as `signature: "removed"`): it covered the unredacted content,
 *   and ReplayKit's bundle never carries the source's signature over either.
 */
function redactReplaykit(
  doc: JsonObject,
  ctx: Context,
  original: LayerCOrigin,
): { value: JsonObject; events: number } {
  ctx.profile = "replaykit";
  const legacy = doc.version === LEGACY_VERSION;
  const run = isJsonObject(doc.payload) && isJsonObject(doc.payload.run) ? doc.payload.run : undefined;
  const rawSteps = run !== undefined && Array.isArray(run.steps) ? run.steps : [];
  const base = "$.payload.run.steps[*]";
  const originalHashes: (string | null)[] = [];
  const steps = rawSteps.map((raw, index): JsonValue => {
    if (!isJsonObject(raw)) {
      originalHashes.push(null);
      return rpkValue(raw, base, "steps", ctx, true);
    }
    const recorded = legacy ? (raw.step_hash ?? raw.hash) : raw.hash;
    originalHashes.push(typeof recorded === "string" && SHA256_TAG.test(recorded) ? recorded : null);
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(raw)) {
      if ((legacy ? RPK_FIELDS.legacyStepContent : RPK_FIELDS.stepContent).has(k))
        setMember(out, k, rpkValue(v, child(base, k), k, ctx, true));
      else rpkMember(out, k, v, base, RPK_FIELDS.step, ctx);
    }
    // A 0.9 step keeps its own hash members (`step_hash`, which the migration reads first, and/or
    // `hash`); each gets the new hash, so none still holds the original's.
    const hash = stepHashAt(out, legacy, index);
    const hashKeys = legacy ? ["step_hash", "hash"].filter((k) => Object.hasOwn(raw, k)) : [];
    for (const k of hashKeys.length === 0 ? ["hash"] : hashKeys) setMember(out, k, hash);
    return out;
  });
  let payload: JsonValue | undefined = doc.payload;
  let runId: JsonValue | undefined;
  if (run !== undefined && isJsonObject(doc.payload)) {
    const redactedRun: JsonObject = {};
    for (const [k, v] of Object.entries(run)) {
      if (k === "steps") setMember(redactedRun, k, steps);
      else rpkMember(redactedRun, k, v, "$.payload.run", RPK_FIELDS.run, ctx);
    }
    runId = redactedRun.id;
    payload = { run: redactedRun };
    for (const k of Object.keys(doc.payload))
      if (k !== "run") ctx.drop(child("$.payload", ctx.scrubKey(k, "$.payload")), "layer_c.fail_closed");
  } else if (payload !== undefined) {
    payload = structuralValue(payload, "$.payload", "payload", ctx, "layer_c.fail_closed", true) ?? {};
  }
  const rawMetadata = isJsonObject(doc.metadata) ? doc.metadata : {};
  const metadata = rpkValue(rawMetadata, "$.metadata", "metadata", ctx, ctx.paranoid) as JsonObject;
  for (const k of Object.keys(doc)) {
    if (k === "version" || k === "metadata" || k === "payload" || k === "checksum") continue;
    ctx.drop(
      child("$", ctx.scrubKey(k, "$")),
      k === "signature" ? "layer_c.signature_removed" : "layer_c.fail_closed",
    );
  }
  const summary = ctx.summary("replaykit-rpk", rawSteps.length, original);
  const checksum = doc.checksum;
  summary.original = {
    ...summary.original,
    checksum: typeof checksum === "string" && SHA256_TAG.test(checksum) ? checksum : null,
    step_hashes: originalHashes,
  };
  if (Object.hasOwn(doc, "signature")) summary.signature = "removed";
  // ReplayKit's bundle markers (`write_bundle_artifact`): a redacted export of run `source_run_id`.
  setMember(metadata, "bundle", true);
  if (typeof runId === "string") setMember(metadata, "source_run_id", runId);
  setMember(metadata, "redaction_profile", ctx.preset);
  setMember(metadata, "redaction_policy_version", RPK_REDACTION_POLICY_VERSION);
  setMember(metadata, "redaction", summaryValue(summary));
  const out: JsonObject = {};
  setMember(out, "version", doc.version ?? null);
  setMember(out, "metadata", metadata);
  if (payload !== undefined) setMember(out, "payload", payload);
  setMember(out, "checksum", computeChecksum(out.version ?? null, metadata, payload ?? null));
  return { value: out, events: rawSteps.length };
}

/**
 * The hash of step `index` of a `.rpk` copy. A value ReplayKit cannot hash (an out-of-range
 * timestamp) is reported at its path in the file, not in the hashed `{type, input, output, metadata}`.
 */
function stepHashAt(step: JsonObject, legacy: boolean, index: number): string {
  try {
    return computeStepHash(stepContent(step, legacy));
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    const path = `$.payload.run.steps[${index}]${(error.location.path ?? "$").slice(1)}`;
    throw new CanonicalizationError(error.code, error.detail, { ...error.location, path }, { cause: error });
  }
}

/**
 * One member of a `.rpk` step or run (other than the ones handled apart): a member the format
 * knows is masked in place (`rpkValue`; verbatim when it is an id, type, timestamp or hash, as
 * `redactEvent` keeps those); an unknown one fails closed (`redactEvent`), and an unknown raw-named
 * one is dropped whole, since ReplayKit would not carry it over (`Step.from_dict`, `Run.from_dict`).
 */
function rpkMember(
  out: JsonObject,
  key: string,
  value: JsonValue,
  path: string,
  known: ReadonlySet<string>,
  ctx: Context,
): void {
  const isKnown = known.has(key);
  if (isKnown && !(isVerbatimKey(key) && isScalarOrScalars(value) && verbatimSafe(key, value))) {
    setMember(out, key, rpkValue(value, child(path, key), key, ctx, ctx.paranoid));
  } else if (!isKnown && RAW_KEYS.has(key)) {
    ctx.drop(child(path, ctx.scrubKey(key, path)), "layer_c.fail_closed");
  } else {
    const one = redactEvent({ [key]: value }, path, ctx, { known, required: known });
    for (const [k, v] of Object.entries(one)) setMember(out, k, v);
  }
}

/**
 * A free-form `.rpk` value masked in place, as ReplayKit's `redaction.py` `_redact` does: every
 * member and array item stays where it was (member names scrubbed for secrets). Under `masking`
 * (raw content: step input/output, any raw-named member, and in `paranoid` everything free-form)
 * a string or number becomes `RPK_MASK`, except under a name Layer C keeps everywhere (structural:
 * types, ids, timings, statuses, hashes; and the preset's allow-list, such as `tool`); null and
 * booleans stay, because a mask would read as a truthy value (`error: false`). Kept strings are
 * scrubbed, hashes kept verbatim.
 */
function rpkValue(value: JsonValue, path: string, key: string, ctx: Context, masking: boolean): JsonValue {
  if (Array.isArray(value)) return value.map((v) => rpkValue(v, `${path}[*]`, key, ctx, masking));
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const name = ctx.scrubKey(k, path);
      setMember(out, name, rpkValue(v, child(path, name), k, ctx, masking || RAW_KEYS.has(k)));
    }
    return out;
  }
  if (value === null || typeof value === "boolean") return value;
  if (masking && !isStructuralKey(key) && !ctx.allow.has(key)) {
    ctx.rules.add("layer_c.raw_masked");
    ctx.paths.add(path);
    return RPK_MASK;
  }
  if (typeof value !== "string" || (isHashKey(key) && HASH_VALUE.test(value))) return value;
  return ctx.scrub(value, path, key);
}

/** Free-form metadata: kept scrubbed (structural only in `paranoid`), raw members removed. */
function metadataOf(metadata: JsonObject, path: string, ctx: Context): JsonObject {
  if (ctx.paranoid) {
    const kept = structuralValue(metadata, path, "metadata", ctx, "layer_c.paranoid", true);
    return isJsonObject(kept ?? null) ? (kept as JsonObject) : {};
  }
  return freeValue(metadata, path, "metadata", ctx) as JsonObject;
}

/**
 * A ReplayBundle: `data.input` and `data.result` (and any other raw member) removed with their
 * openagents hashes (`data.input_hash` equals the reader's `params_hash`, `data.result_hash` its
 * `output_hash`); entries keep `t`, `type`, `tool`; unknown entry types fail closed; the summary
 * goes to `metadata.redaction`.
 */
function redactBundle(
  doc: JsonObject,
  ctx: Context,
  original: LayerCOrigin,
): { value: JsonObject; events: number } {
  const timeline = Array.isArray(doc.timeline) ? doc.timeline : [];
  const { timeline: _t, metadata: rawMeta, ...top } = doc;
  const out = redactEvent(top as JsonObject, "$", ctx, BUNDLE_FIELDS.top);
  const entries = timeline.map((entry) => {
    if (!isJsonObject(entry)) return entry;
    const type = typeof entry.type === "string" ? entry.type : "";
    const known = BUNDLE_FIELDS.entryTypes.has(type);
    const { data, ...rest } = entry;
    const redacted = redactEvent(rest as JsonObject, "$.timeline[*]", ctx, BUNDLE_FIELDS.entry);
    if (data !== undefined) {
      const at = "$.timeline[*].data";
      let d: JsonValue | undefined;
      if (!isJsonObject(data)) {
        d = known && !ctx.paranoid && !Array.isArray(data) ? freeValue(data, at, "data", ctx) : null;
      } else if (known && !ctx.paranoid) {
        d = freeValue(data, at, "data", ctx);
      } else {
        d = redactEvent(data, at, ctx, { allow: known ? new Set() : ctx.allow });
      }
      setMember(redacted, "data", d ?? {});
    }
    return redacted;
  });
  const metadata = isJsonObject(rawMeta) ? metadataOf(rawMeta, "$.metadata", ctx) : {};
  setMember(out, "timeline", entries);
  const summary = ctx.summary("replay-bundle", timeline.length, original);
  setMember(metadata, "redaction", summaryValue(summary));
  setMember(out, "metadata", metadata);
  return { value: out, events: timeline.length };
}

/** The Layer C copy of a whole document (`.rpk` or ReplayBundle) as one canonical line. */
export async function* document(
  value: JsonValue,
  format: "replaykit-rpk" | "replay-bundle",
  preset: Preset,
  options: LayerCOptions,
  done: (summary: LayerCSummary) => void,
): AsyncGenerator<Uint8Array> {
  const scrubOptions: ScrubOptions = { preset, ...scrubSettings(options) };
  const doc = value as JsonObject;
  const original = await options.original;
  const pass = (scrubber: Scrubber) => {
    const ctx = new Context(preset, scrubber);
    return format === "replaykit-rpk"
      ? redactReplaykit(doc, ctx, original)
      : redactBundle(doc, ctx, original);
  };
  const first = new Scrubber(scrubOptions);
  let { value: out } = pass(first);
  if (first.epoch() > 0) {
    // A secret found late in the document may stand earlier in it, already passed: a second
    // pass that knows it from the start (a document is one value, read whole anyway).
    const second = new Scrubber(scrubOptions);
    second.learnFrom(first);
    out = pass(second).value;
  }
  const profile: Profile = format === "replaykit-rpk" ? "replaykit" : "openagents";
  const metadata = out.metadata as JsonObject;
  const text = `${canonicalize(out, profile)}\n`;
  // Known before the first byte: a caller may decide on it before it publishes the copy.
  done(summaryOf(metadata.redaction));
  yield Buffer.from(text);
}
