/**
 * Secret recall on gitleaks' own samples (`test/corpus/secrets/gitleaks-samples.jsonl`: the true- and
 * false-positive samples of its 220 rules). Every true-positive `text` is planted in a REPLAY.jsonl (replay-v1,
 * `type`/`ts`) the way secrets reach a replay: in a ToolCall's `params` (removed, hashed), an `env`-like object
 * (`SessionStart.repo.env`), a ToolResult's `error.message`, a Verification `command` and the SessionEnd
 * `summary`, and as a member name of a kept object (`ToolResult.error`); the bare `secret` too, as an error
 * message and as a member name. The file goes through the real `redactFile` with `private_repo`, and again with
 * `paranoid` (whose header's `redaction.by_path` names the members it dropped).
 *
 * A secret leaks when the copy holds it raw, base64 or base64url, in any string or member name of the event it
 * was planted in or of the header. The test fails on any leak of a planted text, naming the gitleaks rules
 * that leaked; bare secrets of formats known only by a nearby keyword cannot be told from any other random
 * string, so their recall is held above a floor. False positives: each fp `text` planted in the same text
 * fields; the share that comes out changed is held at its measured value (`FP_ALTERED_MAX`; issue 20
 * asks for 10%).
 *
 * Leave-family-out (`bench/secret-recall.ts`, also the `secret-recall` row of `npm run bench`): per gitleaks
 * family, the share of its distinct (rule, secret) pairs the generic detection layers alone (`context`,
 * `shape`, `structure`: no `vendor` rule, no secretlint) catch in `error.message`, `command` and `summary`;
 * every family must reach 90%. The failure lists the families below it.
 *
 * The measured tables are written to `.local/secret-recall.md` (docs/secret-recall.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  distinct,
  familiesBelow,
  GENERIC_LAYERS,
  pairKey as key,
  type LeaveFamilyOut,
  LFO_FLOOR,
  LFO_PLACES,
  leaks,
  leaveFamilyOut,
  leaveFamilyOutLeaks,
  leaveFamilyOutMarkdown,
  type Place,
  type Planting,
  parseSamples,
  replayFile,
  type Sample,
  transformLeaks,
  truePositives,
  vendorOf,
} from "../../bench/secret-recall.js";
import { decodeUtf8, readJson } from "../../shared/canonical/index.js";
import type { Preset } from "../../shared/redact/presets.js";
import { Scrubber } from "../../shared/redact/scrub.js";
import { corpusText, PROJECT_ROOT } from "../support/corpus.js";
import { redactBytes, stringsOf } from "../unit/redact/layer-c/helpers.js";

const SAMPLES: Sample[] = parseSamples(corpusText("secrets", "gitleaks-samples.jsonl"));

/** True positives with a credential to look for (three `pkcs12-file` samples are file names only). */
const TPS = truePositives(SAMPLES);
const FPS = SAMPLES.filter((s) => s.kind === "fp" && s.text !== "");

/** Floor of bare secrets caught (of 631), measured when the rules last changed: raise it, never lower it. */
const BARE_FLOOR = 451;

const TEXT_PLACES: readonly Place[] = ["params", "env", "error.message", "command", "summary"];

/** The copy of a file of `plantings` under `preset`: the strings of each event (header first), in order. */
async function redacted(plantings: readonly Planting[], preset: Preset): Promise<string[][]> {
  const { text } = await redactBytes(replayFile(plantings), { preset });
  const lines = text.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(plantings.length + 1);
  return lines.map((l) => stringsOf(readJson(decodeUtf8(Buffer.from(l)))));
}

/** Which plantings leaked (their sample's secret is in their own event or in the header). */
async function leaked(plantings: readonly Planting[], preset: Preset): Promise<Planting[]> {
  const [header = [], ...events] = await redacted(plantings, preset);
  return plantings.filter((p, i) => {
    const secret = p.sample.secret ?? "";
    return leaks(events[i] ?? [], secret) || leaks(header, secret);
  });
}

const plantings = (place: Place, bare: boolean): Planting[] =>
  TPS.map((sample) => ({ sample, planted: bare ? sample.secret : sample.text, place }));

interface Measured {
  text: Set<string>;
  names: Set<string>;
  namesParanoid: Set<string>;
  bare: Set<string>;
  /** Leaked from `error.message`, `command` or `summary` (the leave-family-out places). */
  textLfo: Set<string>;
  /** Bare secrets leaked as a member name. */
  bareNames: Set<string>;
}

let measured: Measured | undefined;

/**
 * Runs the plantings (each kind in a file of its own: a header names what was redacted where, and one kind's
 * entries must not count against another's) and remembers which (rule, secret) pairs leaked where.
 */
async function measure(): Promise<Measured> {
  if (measured !== undefined) return measured;
  const textLeaks = await leaked(
    TEXT_PLACES.flatMap((place) => plantings(place, false)),
    "private_repo",
  );
  const nameLeaks = await leaked(plantings("member-name", false), "private_repo");
  const paranoidLeaks = await leaked(plantings("member-name", false), "paranoid");
  const bareLeaks = await leaked(
    [...plantings("error.message", true), ...plantings("member-name", true)],
    "private_repo",
  );
  measured = {
    text: distinct(textLeaks.map((p) => p.sample)),
    names: distinct(nameLeaks.map((p) => p.sample)),
    namesParanoid: distinct(paranoidLeaks.map((p) => p.sample)),
    bare: distinct(bareLeaks.map((p) => p.sample)),
    textLfo: distinct(textLeaks.filter((p) => LFO_PLACES.includes(p.place)).map((p) => p.sample)),
    bareNames: distinct(bareLeaks.filter((p) => p.place === "member-name").map((p) => p.sample)),
  };
  return measured;
}

/** The leaked pairs as `rule: secret…` lines, after "gitleaks rules that leaked: …". */
function report(leakedKeys: ReadonlySet<string>): string[] {
  const pairs = [...leakedKeys].map((k) => k.split("\u0000"));
  const rules = [...new Set(pairs.map(([rule]) => rule))].sort();
  return [
    `gitleaks rules that leaked: ${rules.join(", ")}`,
    ...pairs.map(([rule, secret = ""]) => `${rule}: ${JSON.stringify(secret.slice(0, 60))}`),
  ];
}

const TOTAL = distinct(TPS);

describe("secret recall on gitleaks' samples (private_repo)", () => {
  it("reads the whole corpus", () => {
    expect(SAMPLES).toHaveLength(6770);
    expect(TPS).toHaveLength(6393);
    expect(TOTAL.size).toBe(631);
  });

  it("no planted text leaks from params, env, error.message, command or summary", async () => {
    const m = await measure();
    expect(report(m.text)).toEqual(report(new Set()));
  });

  it("no planted text leaks as a member name of a kept object", async () => {
    const m = await measure();
    expect(report(m.names)).toEqual(report(new Set()));
  });

  it("paranoid: no member name leaks through the header's redaction.by_path", async () => {
    const m = await measure();
    expect(report(m.namesParanoid)).toEqual(report(new Set()));
  });

  it(`catches at least ${BARE_FLOOR} bare secrets (self-identifying formats)`, async () => {
    const m = await measure();
    expect(TOTAL.size - m.bare.size).toBeGreaterThanOrEqual(BARE_FLOOR);
  });
});

/**
 * fp samples that hold a tp secret of the corpus (the same Cloudflare key is a tp of one rule and an fp of its
 * sibling): the corpus asks for that secret to be removed, so these cannot survive and are left out.
 */
const TP_SECRETS = [...new Set(TPS.map((s) => s.secret))].filter((s) => s.length >= 8);
const CONTRADICTORY = FPS.filter((s) => TP_SECRETS.some((secret) => s.text.includes(secret)));
const CLEAN_FPS = FPS.filter((s) => !CONTRADICTORY.includes(s));

/** fp samples whose text comes out changed from any of the text fields. */
async function alteredFps(samples: readonly Sample[]): Promise<Sample[]> {
  const places: Place[] = ["env", "error.message", "command", "summary"];
  const ps = places.flatMap((place) => samples.map((sample) => ({ sample, planted: sample.text, place })));
  const [, ...events] = await redacted(ps, "private_repo");
  const altered = new Set<Sample>();
  ps.forEach((p, i) => {
    if (!(events[i] ?? []).includes(p.planted)) altered.add(p.sample);
  });
  return [...altered];
}

/** Share of clean fp texts the scrubber may change (see the test). */
const FP_ALTERED_MAX = 0.145;

describe("false positives on gitleaks' samples (private_repo)", () => {
  /**
   * Issue 20 asks for at most 10%; the generic layers brought it to 15.0% (52 of 347), from 8.6% (30)
   * before them, and reading masks, documentation keys, command substitutions, access ids, typed
   * tokens under a token's name and ten in order beside a vendor's keyword to 13.3% (46), then 14.1%
   * (49): where a strong name must hold a credential, ten in order no longer make its value a
   * placeholder (`secret_key => "sk_abcdefghijklmnopqrstuvwxyz123"`, as other scanners' true
   * positives write theirs), then 14.4% (50): a random body with fewer switches between letters
   * and digits than most is generated too (one base36 body of 24 in thirteen was kept), which
   * takes an upper-cased Google key gitleaks declines for its case (`AIZASYCO2CXRMC9…`). Most texts
   * still changed are tokens of the right shape that gitleaks declines for a vendor-specific reason (a
   * length one short, a prefix in the wrong case, inside a longer blob): the next vendor's key looks
   * exactly like them. Others are hand-typed (`dapi1234567890…`), as are some of gitleaks' true
   * positives (`12345678-ABCD-ABCD-ABCD-1234567890AB`), so no rule tells them apart.
   * docs/secret-recall.md lists them and what was tried. Held here so it cannot grow unseen.
   */
  it(`at most ${Math.round(100 * FP_ALTERED_MAX)}% of fp texts are altered`, async () => {
    expect(CONTRADICTORY.length).toBe(25);
    const altered = await alteredFps(CLEAN_FPS);
    // The report first: it is what a failing run needs most.
    await writeReport(altered, await alteredFps(CONTRADICTORY));
    expect(altered.length / CLEAN_FPS.length, altered.map((s) => s.rule).join(", ")).toBeLessThanOrEqual(
      FP_ALTERED_MAX,
    );
  });
});

let lfo: LeaveFamilyOut | undefined;

/** The leave-family-out measure (`bench/secret-recall.ts`), once; its table goes to `.local/secret-recall.md`. */
function measureLfo(): LeaveFamilyOut {
  if (lfo === undefined) {
    lfo = leaveFamilyOut(TPS, leaveFamilyOutLeaks(TPS));
    sections.leaveFamilyOut = leaveFamilyOutMarkdown(lfo);
    writeSections();
  }
  return lfo;
}

/**
 * Leave-family-out (issue 20): how much of each gitleaks family the generic layers catch without any rule
 * written for a producer. `redactFile` takes no scrubber options, so the layers go through the same per-event
 * Layer C transform with a `Scrubber({ layers })` (`transformLeaks`); with every layer it must leak exactly
 * what `redactFile` leaks, or the measure would not be Layer C's.
 */
describe("leave-family-out: the generic layers alone, per gitleaks family (private_repo)", () => {
  it("with every layer, the per-event transform leaks what redactFile leaks", async () => {
    const m = await measure();
    const { leaked: l } = measureLfo();
    expect(report(l.fullText)).toEqual(report(m.textLfo));
    expect(report(l.namesText)).toEqual(report(m.names));
    expect(report(l.namesBare)).toEqual(report(m.bareNames));
  });

  it(`the generic layers alone catch at least ${100 * LFO_FLOOR}% of every family's pairs in text`, () => {
    const r = measureLfo();
    const below = familiesBelow(r).map(
      (f) => `${f.family}: ${f.genericText}/${f.pairs} (${f.rules.join(", ")})`,
    );
    const t = r.total;
    expect(
      below,
      `${below.length} of ${r.families.length} families below ${100 * LFO_FLOOR}% with layers ${GENERIC_LAYERS.join(", ")} (all: ${t.genericText}/${t.pairs}); see .local/secret-recall.md`,
    ).toEqual([]);
  });
});

describe("the recall check can fail", () => {
  it("the layers reach the transform: with none, every planted text leaks", () => {
    const gcp = TPS.filter((s) => s.rule === "gcp-api-key");
    expect(gcp.length).toBeGreaterThan(0);
    const ps = gcp.map((sample): Planting => ({ sample, planted: sample.text, place: "error.message" }));
    expect(transformLeaks(ps, "private_repo", [])).toHaveLength(ps.length);
    expect(transformLeaks(ps, "private_repo")).toHaveLength(0);
  });

  it("a family switched off leaks its secrets", () => {
    // The vendor layer alone: a generic layer that knows the shape would stand in for the switched-off rule.
    const scrubber = new Scrubber({ layers: ["vendor"], disableRules: ["gcp-api-key"] });
    const gcp = TPS.filter((s) => s.rule === "gcp-api-key" && s.text === s.secret);
    expect(gcp.length).toBeGreaterThan(0);
    for (const s of gcp) expect(leaks([scrubber.scrub(s.text, "$.x")], s.secret)).toBe(true);
    for (const s of gcp) expect(leaks([new Scrubber().scrub(s.text, "$.x")], s.secret)).toBe(false);
  });
});

/** Writes the per-vendor table of docs/secret-recall.md to `.local/secret-recall.md`. */
async function writeReport(
  altered: readonly Sample[],
  alteredContradictory: readonly Sample[],
): Promise<void> {
  const m = await measure();
  const vendors = new Map<
    string,
    { rules: Set<string>; pairs: Set<string>; caughtBy: Set<string>; fp: number; fpAltered: number }
  >();
  const row = (rule: string) => {
    const v = vendorOf(rule);
    let r = vendors.get(v);
    if (r === undefined) {
      r = { rules: new Set(), pairs: new Set(), caughtBy: new Set(), fp: 0, fpAltered: 0 };
      vendors.set(v, r);
    }
    r.rules.add(rule);
    return r;
  };
  // Which of our rules find each text (the scrubber alone: labels for the table, not the measure).
  const scrubber = new Scrubber();
  for (const s of TPS) {
    const r = row(s.rule);
    r.pairs.add(key(s));
    for (const f of scrubber.findings(s.text)) r.caughtBy.add(f.rule);
  }
  for (const s of CLEAN_FPS) row(s.rule).fp++;
  for (const s of altered) row(s.rule).fpAltered++;
  const caught = (pairs: Set<string>, leakedPairs: Set<string>) =>
    `${[...pairs].filter((k) => !leakedPairs.has(k)).length}/${pairs.size}`;
  const lines = [
    `Distinct secrets: ${TOTAL.size}. Caught in text fields: ${TOTAL.size - m.text.size}; as member names: ${TOTAL.size - m.names.size}; as member names under paranoid (header by_path): ${TOTAL.size - m.namesParanoid.size}; bare: ${TOTAL.size - m.bare.size}.`,
    `fp altered: ${altered.length}/${CLEAN_FPS.length} (${((100 * altered.length) / CLEAN_FPS.length).toFixed(1)}%); the ${CONTRADICTORY.length} fp samples holding a tp secret: ${alteredContradictory.length} altered; all ${FPS.length}: ${altered.length + alteredContradictory.length}.`,
    "",
    "| vendor | gitleaks rules | text fields | member names | bare | fp altered | found by |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ...[...vendors]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([v, r]) =>
          `| ${v} | ${[...r.rules].sort().join(", ")} | ${caught(r.pairs, m.text)} | ${caught(r.pairs, m.names)} | ${caught(r.pairs, m.bare)} | ${r.fp === 0 ? "–" : `${r.fpAltered}/${r.fp}`} | ${[...r.caughtBy].sort().join(", ")} |`,
      ),
  ];
  sections.recall = lines.join("\n");
  writeSections();
}

/** The parts of `.local/secret-recall.md` measured so far: each test that measures one writes the file again. */
const sections: { leaveFamilyOut?: string; recall?: string } = {};

function writeSections(): void {
  const parts = [
    sections.leaveFamilyOut === undefined ? [] : ["## Leave-family-out", "", sections.leaveFamilyOut, ""],
    sections.recall === undefined ? [] : ["## Every layer, per vendor", "", sections.recall, ""],
  ].flat();
  const dir = join(PROJECT_ROOT, ".local");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "secret-recall.md"), `# Secret recall on gitleaks' samples\n\n${parts.join("\n")}`);
}
