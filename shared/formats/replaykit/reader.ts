import { z } from "zod";
import { isJsonObject, type JsonObject, type JsonValue, memberPath } from "../../canonical/index.js";
import { layerCOriginOf } from "../layer-c-record.js";
import {
  type DocumentFormat,
  emptySummary,
  type Findings,
  type FormatOptions,
  type Session,
} from "../types.js";
import { describe, member, stringMember, validate } from "../validate.js";
import { checkChecksum, checkSignature, stepContent, stepHash } from "./hashes.js";
import {
  ENVELOPE,
  ENVELOPE_KEYS,
  hashField,
  KNOWN_MINOR,
  LEGACY_ENVELOPE,
  LEGACY_RUN_KEYS,
  LEGACY_STEP,
  LEGACY_STEP_KEYS,
  LEGACY_VERSION,
  need,
  PAYLOAD_KEYS,
  RUN_KEYS,
  SIGNATURE_KEYS,
  STEP,
  STEP_KEYS,
  STEPS_PATH,
  shaped,
  str,
  VERSION_RE,
} from "./schema.js";
import { error, notice, type StepView, stepLabel } from "./step-view.js";
import { summarize } from "./summary.js";

/**
 * ReplayKit `.rpk` artifacts (golden0320230-lab/Replay-Kit, package `replaypack`): one JSON
 * document `{version, metadata, payload: {run}, checksum, signature?}`. Specs:
 * `specs/replaykit-rpk-v1.md`, `specs/replaykit/*.md`, `specs/HASHING-NOTES.md`; the published
 * schema is `corpus/replaykit/schemas/rpk-1.0.schema.json`. Where the docs and the producer's code
 * disagree, the code is followed, because it wrote the files.
 */

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
 * The record our `redact` (shared/redact/layer-c/documents.ts) writes in `metadata.redaction` of a
 * Layer C copy: what the copy's step hashes and checksum replaced, so the copy still links to its
 * original and to the original's receipt. Only what this reader relies on is checked; the counts beside it
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
