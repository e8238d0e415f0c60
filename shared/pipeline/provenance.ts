/**
 * Which rules made a verdict: the tool's version and a digest of the rules (redaction rules and
 * the preset in use, format readers, verdict rules), recorded in every index record, verdict
 * document and attestation, so `reprocess --stale` can tell what older rules made.
 *
 * The digest is sha256 over a fixed-order JSON description of the rules: every redaction rule's id,
 * kind, layer, switches and regular expressions (source and flags, as the build keeps them), the
 * preset's contents, secretlint's preset id, and a version per module whose logic is code rather
 * than data (`RULE_MODULES`). A test (`test/unit/shared/pipeline/provenance.test.ts`) holds each
 * module's source hash beside its version, so a change to a module without a bumped version fails.
 */
import { createHash } from "node:crypto";
import {
  PATTERN_RULES,
  type PackRule,
  type PatternRule,
  type Preset,
  presetPolicy,
  SECRETLINT_PRESET_ID,
} from "../redact/index.js";

/** What a record, verdict document and attestation say about the rules that made them. */
export interface Provenance {
  /** The tool's version (package.json). */
  tool_version: string;
  /** `sha256:<hex>` of the rules' canonical description (`rulesDigest`). */
  rules_digest: string;
}

/**
 * A version per module whose rules are code: bump one when its module's behaviour changes (the
 * provenance test names the module whose source changed without its version).
 */
export const RULE_MODULES: Readonly<Record<string, number>> = {
  // Redaction: the rule table's functions (accept, scan), the detectors and the Layer C transform.
  "redact/rules": 30,
  "redact/detect": 93,
  "redact/layer-c": 19,
  "redact/scrub": 16,
  // Format readers (validation and hashes).
  "formats/replay-jsonl": 5,
  "formats/replay-bundle": 3,
  "formats/braintrust": 2,
  "formats/replaykit": 2,
  // Verdict rules: how findings and receipt checks become a verdict.
  "formats/verdict": 4,
  "receipt/verify": 3,
};

/** A JSON value of this module's own making (members in a fixed order: `JSON.stringify` is canonical). */
type Described = null | boolean | number | string | Described[] | { [member: string]: Described };

const regex = (re: RegExp | undefined): Described =>
  re === undefined ? null : { source: re.source, flags: re.flags };

/** One rule as data: what the digest is over (functions are covered by `RULE_MODULES`). */
function describeRule(rule: PatternRule): Described {
  return {
    id: rule.id,
    kind: rule.kind,
    layer: rule.layer ?? null,
    policy: rule.policy ?? null,
    needles: rule.needles === undefined ? null : [...rule.needles],
    gate: regex(rule.gate),
    token_run: rule.tokenRun === true,
    pattern: regex(rule.pattern),
    group: rule.group === undefined ? null : [rule.group].flat(),
    accept: rule.accept !== undefined,
    scan: rule.scan !== undefined,
    replacement: rule.replacement ?? null,
    rule_for: rule.ruleFor !== undefined,
  };
}

/**
 * The canonical description of the rules a job runs with `preset` and a rule pack's `packRules`
 * (listed after the built-in rules, only when there are any: without a pack the description is
 * the built-in rules' alone).
 */
export function rulesDescription(preset: Preset, packRules: readonly PackRule[] = []): Described {
  return {
    schema: "replay-pipeline.rules.v1",
    preset: { ...presetPolicy(preset) },
    pattern_rules: PATTERN_RULES.map(describeRule),
    secretlint: SECRETLINT_PRESET_ID,
    modules: { ...RULE_MODULES },
    ...(packRules.length === 0
      ? {}
      : {
          pack_rules: packRules.map((r) => ({ id: r.id, pattern: r.pattern, needles: [...r.needles] })),
        }),
  };
}

const digests = new Map<string, string>();

/**
 * `sha256:<hex>` of `rulesDescription(preset, packRules)` as JSON, computed once per process and
 * description.
 */
export function rulesDigest(preset: Preset = "private_repo", packRules: readonly PackRule[] = []): string {
  const id = `${preset}\n${JSON.stringify(packRules)}`;
  let digest = digests.get(id);
  if (digest === undefined) {
    const text = JSON.stringify(rulesDescription(preset, packRules));
    digest = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    digests.set(id, digest);
  }
  return digest;
}

/** The provenance of what a job with `options` makes: its digest given, else that of its rules. */
export function provenanceOf(options: {
  toolVersion: string;
  preset?: Preset;
  packRules?: readonly PackRule[];
  rulesDigest?: string;
}): Provenance {
  return {
    tool_version: options.toolVersion,
    rules_digest: options.rulesDigest ?? rulesDigest(options.preset, options.packRules),
  };
}
