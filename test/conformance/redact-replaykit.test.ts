/**
 * `.rpk` Layer C copies follow ReplayKit's own redaction convention (replaypack `bundle.py`): every
 * corpus run and examples/summarize.rpk, under every preset, gives a copy whose values are masked in
 * place, whose step hashes and checksum are recomputed (by us, and independently by the Python
 * oracle), which the published JSON Schema accepts, which `inspect` calls passed with no
 * unknown-field notice, and whose `metadata.redaction.original` links it to the original file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import {
  canonicalize,
  decodeUtf8,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { stepContent } from "#shared/formats/replaykit/index.js";
import type { Preset } from "#shared/redact/index.js";
import { RPK_REDACTION_POLICY_VERSION } from "#shared/redact/layer-c/documents.js";
import { corpusBytes, corpusList, PROJECT_ROOT } from "../support/corpus.js";
import { checkArtifacts } from "../support/replaykit-oracle.js";
import { ALL_PRESETS, redactBytes, unmaskedPaths } from "../unit/redact/layer-c/helpers.js";

const FILES: { name: string; bytes: Buffer }[] = [
  ...corpusList("replaykit", "runs")
    .filter((f) => f.endsWith(".rpk"))
    .map((f) => ({ name: `replaykit/runs/${f}`, bytes: corpusBytes("replaykit", "runs", f) })),
  { name: "examples/summarize.rpk", bytes: readFileSync(join(PROJECT_ROOT, "examples", "summarize.rpk")) },
];

const read = (text: string): JsonObject =>
  readJson(decodeUtf8(Buffer.from(text)), { rejectLoneSurrogates: false }) as JsonObject;
const stepsOf = (doc: JsonObject): JsonObject[] =>
  ((doc.payload as JsonObject).run as JsonObject).steps as JsonObject[];
/** A pretty-printed file on one line (raw line breaks are only whitespace between JSON tokens). */
const oneLine = (text: string): string => text.replace(/\r?\n/g, "");

interface Copy {
  name: string;
  preset: Preset;
  original: JsonObject;
  text: string;
  copy: JsonObject;
}

const copies: Copy[] = [];
beforeAll(async () => {
  for (const { name, bytes } of FILES) {
    for (const preset of ALL_PRESETS) {
      const { text } = await redactBytes(bytes, { preset, file: name });
      copies.push({ name, preset, original: read(bytes.toString("utf8")), text, copy: read(text) });
    }
  }
});

const cases = FILES.flatMap(({ name }) => ALL_PRESETS.map((preset) => ({ name, preset })));
const copyOf = (name: string, preset: Preset): Copy => {
  const found = copies.find((c) => c.name === name && c.preset === preset);
  if (found === undefined) throw new Error(`no copy of ${name} under ${preset}`);
  return found;
};

describe.each(cases)("$name, $preset", ({ name, preset }) => {
  it("inspects as passed: every step hash and the checksum recompute, no unknown-field notice", async () => {
    const { text, copy } = copyOf(name, preset);
    const { report } = await inspect(Readable.from([Buffer.from(text)]), { file: "copy" });
    expect(report.format).toBe("replaykit-rpk");
    expect(report.verdict, JSON.stringify(report.errors)).toBe("passed");
    expect(report.notices.filter((n) => n.code === "rpk.unknown_field")).toEqual([]);
    expect(report.notices.map((n) => n.code)).toContain("rpk.layer_c");
    const rows = report.checks.map((c) => `${c.check} ${c.status}`);
    expect(rows).toEqual([...stepsOf(copy).map(() => "step_hash passed"), "checksum passed"]);
  });

  it("masks raw content in place: same members and array lengths, every raw value masked", () => {
    const { original, copy } = copyOf(name, preset);
    const before = stepsOf(original);
    const after = stepsOf(copy);
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    before.forEach((b, i) => {
      const a = after[i] as JsonObject;
      expect(Object.keys(a).sort(), `step ${i}`).toEqual(Object.keys(b).sort());
      for (const k of ["input", "output"])
        expect(unmaskedPaths(b[k] as JsonValue, a[k], preset, k), `step ${i} ${k}`).toEqual([]);
    });
  });

  it("recomputes step hashes: different from the original's exactly where content changed", () => {
    const { original, copy } = copyOf(name, preset);
    const before = stepsOf(original);
    const after = stepsOf(copy);
    let changed = 0;
    before.forEach((b, i) => {
      const a = after[i] as JsonObject;
      const hashed = (s: JsonObject) =>
        canonicalize({ ...stepContent(s, false) }, "replaykit", { stripVolatile: true });
      const same = hashed(a) === hashed(b);
      expect(a.hash === b.hash, `step ${i}`).toBe(same);
      if (!same) changed++;
    });
    // Every corpus run has raw text in its steps, so something was masked.
    expect(changed).toBeGreaterThan(0);
  });

  it("links to the original: its step hashes and checksum in metadata.redaction.original", () => {
    const { original, copy } = copyOf(name, preset);
    const metadata = copy.metadata as JsonObject;
    const record = JSON.parse(JSON.stringify(metadata.redaction));
    expect(record.original).toMatchObject({
      checksum: original.checksum,
      step_hashes: stepsOf(original).map((s) => s.hash),
    });
    expect(record).toMatchObject({ layer: "C", format: "replaykit-rpk", preset });
    // ReplayKit's bundle markers (`write_bundle_artifact`).
    expect(metadata).toMatchObject({
      bundle: true,
      source_run_id: ((original.payload as JsonObject).run as JsonObject).id,
      redaction_profile: preset,
      redaction_policy_version: RPK_REDACTION_POLICY_VERSION,
    });
    expect(copy.checksum).not.toBe(original.checksum);
  });
});

describe("the published JSON Schema and the Python oracle", () => {
  it("accept every copy and recompute its step hashes and checksum", () => {
    const answers = checkArtifacts(copies.map((c) => c.text.trimEnd()));
    copies.forEach(({ name, preset, copy }, i) => {
      const answer = answers[i];
      const label = `${name} ${preset}`;
      expect(answer?.schema_errors, label).toEqual([]);
      expect(answer?.step_hashes, label).toEqual(stepsOf(copy).map((s) => s.hash));
      expect(answer?.checksum, label).toBe(copy.checksum);
    });
  });

  it("reproduce the originals' recorded hashes, and catch a broken or stale copy", () => {
    const originals = FILES.map(({ bytes }) => read(bytes.toString("utf8")));
    const answers = checkArtifacts(FILES.map(({ bytes }) => oneLine(bytes.toString("utf8"))));
    originals.forEach((doc, i) => {
      expect(answers[i]?.schema_errors).toEqual([]);
      expect(answers[i]?.step_hashes).toEqual(stepsOf(doc).map((s) => s.hash));
      expect(answers[i]?.checksum).toBe(doc.checksum);
    });
    // A copy whose first step lost its hash and whose type is not ReplayKit's, with a changed input.
    const broken = JSON.parse(copyOf("replaykit/runs/minimal_v1.rpk", "private_repo").text);
    const stale = structuredClone(broken);
    delete broken.payload.run.steps[0].hash;
    broken.payload.run.steps[1].type = "model.thought";
    stale.payload.run.steps[0].input = { changed: true };
    const [b, s] = checkArtifacts([JSON.stringify(broken), JSON.stringify(stale)]);
    expect(b?.schema_errors).toEqual([
      "payload/run/steps/0: 'hash' is a required property",
      expect.stringMatching(/^payload\/run\/steps\/1\/type: 'model\.thought' is not one of/),
    ]);
    expect(s?.step_hashes[0]).not.toBe(stale.payload.run.steps[0].hash);
    expect(s?.checksum).not.toBe(stale.checksum);
  });
});
