/**
 * Secret recall on gitleaks' samples (`test/corpus/secrets/gitleaks-samples.jsonl`), shared by
 * test/conformance/secret-recall.test.ts and the `secret-recall` row of `npm run bench`: the samples,
 * the REPLAY.jsonl (replay-v1) they are planted in, the leak check, and the leave-family-out measure.
 *
 * Leave-family-out: for each gitleaks rule family (`vendorOf`), the distinct (rule, secret) pairs of its
 * true-positive texts planted in the kept text fields (`error.message`, `command`, `summary`) and redacted
 * with the generic detection layers alone (`GENERIC_LAYERS`: no `vendor` rule, no secretlint). That is
 * stricter than leaving out one family's own rule: every vendor rule is off, so no sibling family's rule
 * stands in for it. The result estimates recall on credential shapes no rule was written for.
 *
 * `redactFile` takes no scrubber options (`LayerCOptions` has none; `LineRedactor` and the worker task
 * build their own `Scrubber({ preset, key })`), so the layers are measured through `transformLeaks`: the
 * same per-event Layer C transform `LineRedactor` runs (`redactReplayEvent` with replay-v1's fields) over
 * each line read back losslessly, with a `Context` whose scrubber is `new Scrubber({ preset, layers })`.
 * The test checks that with every layer it leaks exactly what `redactFile` leaks.
 */
import {
  canonicalHash,
  decodeUtf8,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { REPLAY_EVENT_FIELDS } from "#shared/formats/index.js";
import type { Layer, Preset } from "#shared/redact/index.js";
import { Context, redactReplayEvent, Scrubber } from "#shared/redact/index.js";

/** One line of gitleaks-samples.jsonl. */
export interface Sample {
  rule: string;
  kind: "tp" | "fp";
  text: string;
  secret: string | null;
}

/** A true positive with a credential to look for. */
export type TruePositive = Sample & { secret: string };

/** The samples of gitleaks-samples.jsonl's text. */
export function parseSamples(text: string): Sample[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Sample);
}

/** True positives with a credential to look for (three `pkcs12-file` samples are file names only). */
export function truePositives(samples: readonly Sample[]): TruePositive[] {
  return samples.filter((s): s is TruePositive => s.kind === "tp" && !!s.secret && !!s.text);
}

/** gitleaks rule ids grouped by vendor (`gitlab-pat` → gitlab); `new-relic-*` is one vendor. */
export function vendorOf(rule: string): string {
  return rule.startsWith("new-relic") ? "new-relic" : (rule.split("-")[0] ?? rule);
}

/** A (rule, secret) pair's key. */
export const pairKey = (s: Sample): string => `${s.rule}\u0000${s.secret}`;

/** Distinct (rule, secret) pairs among `samples`. */
export function distinct(samples: readonly Sample[]): Set<string> {
  return new Set(samples.map(pairKey));
}

export type Place = "params" | "env" | "error.message" | "command" | "summary" | "member-name";

/** What one input line carries: the sample, its planted string (its text or bare secret), where. */
export interface Planting {
  sample: Sample;
  planted: string;
  place: Place;
}

const hash = (v: JsonValue): string => canonicalHash(v, "openagents");
const num = (n: number): JsonNumber => new JsonNumber(String(n));

/** The events of a REPLAY.jsonl (replay-v1) holding `plantings` one per event, after a header; one session per sample. */
function replayEvents(plantings: readonly Planting[]): JsonObject[] {
  const events: JsonObject[] = [
    {
      type: "ReplayHeader",
      replay_version: num(1),
      producer: "secret-recall",
      created_at: "2026-01-01T00:00:00Z",
    },
  ];
  plantings.forEach((p, i) => {
    const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString();
    const session_id = `sess_${i}`;
    const step_id = `step_${i}`;
    const error = (value: JsonObject): JsonObject => ({
      type: "ToolResult",
      ts,
      session_id,
      step_id,
      ok: false,
      output_hash: hash(null),
      latency_ms: num(5),
      side_effects: [],
      error: value,
    });
    const s = p.planted;
    switch (p.place) {
      case "params": {
        const params = { command: s };
        events.push({
          type: "ToolCall",
          ts,
          session_id,
          step_id,
          tool: "bash",
          params,
          params_hash: hash(params),
        });
        break;
      }
      case "env":
        events.push({
          type: "SessionStart",
          ts,
          session_id,
          policy_bundle_id: "pb_1",
          repo: { env: { SAMPLE_VALUE: s } },
        });
        break;
      case "error.message":
        events.push(error({ message: s, code: "E_TOOL" }));
        break;
      case "member-name":
        events.push(error({ [s]: "see message", code: "E_TOOL" }));
        break;
      case "command":
        events.push({ type: "Verification", ts, session_id, command: s, exit_code: num(1) });
        break;
      case "summary":
        events.push({
          type: "SessionEnd",
          ts,
          session_id,
          status: "failure",
          confidence: num(0.5),
          summary: s,
        });
        break;
    }
  });
  return events;
}

/** `replayEvents` as the text of a REPLAY.jsonl. */
export function replayFile(plantings: readonly Planting[]): string {
  return `${replayEvents(plantings)
    .map((e) => JSON.stringify(e))
    .join("\n")}\n`;
}

/** Every string value and member name of `v`, in document order. */
export function stringsOf(v: JsonValue, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (isJsonObject(v))
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out);
    }
  return out;
}

/** A replacement tag (`[REDACTED:generic-secret]`): it holds words such as `secret`, not the secret. */
const TAG = /\[REDACTED:[A-Za-z0-9-]+(?::[0-9a-f]{8})?\]/g;

/** Does any of `strings`, its replacement tags left out, hold `secret` raw, base64 or base64url? */
export function leaks(strings: readonly string[], secret: string): boolean {
  const forms = [secret, Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("base64url")];
  return strings.some((s) => {
    const text = s.includes("[REDACTED:") ? s.replaceAll(TAG, "\u0000") : s;
    return forms.some((f) => text.includes(f));
  });
}

/** The detection layers that are not written for one producer: the leave-family-out scrubber's. */
export const GENERIC_LAYERS: readonly Layer[] = ["context", "shape", "structure"];

/** The kept text fields the leave-family-out measure plants each text in. */
export const LFO_PLACES: readonly Place[] = ["error.message", "command", "summary"];

/**
 * The copies of `plantings` through Layer C's per-event transform (`redactReplayEvent`, replay-v1)
 * with `new Scrubber({ preset, layers })` (every layer when `layers` is undefined): each event is
 * written as a line, read back losslessly and redacted; one list of strings (values and member
 * names) per planting, in order.
 */
export function transformCopies(
  plantings: readonly Planting[],
  preset: Preset,
  layers?: readonly Layer[],
): string[][] {
  const scrubber = new Scrubber(layers === undefined ? { preset } : { preset, layers });
  const ctx = new Context(preset, scrubber);
  const fields = REPLAY_EVENT_FIELDS["replay-v1"];
  const events = replayEvents(plantings);
  const copies = events.map((e) => {
    const line = readJson(decodeUtf8(Buffer.from(JSON.stringify(e)))) as JsonObject;
    return stringsOf(redactReplayEvent(line, ctx, fields));
  });
  return plantings.map((_, i) => copies[i + 1] ?? []);
}

/** Which `plantings` leaked: their copy (`transformCopies`) holds their sample's secret. */
export function transformLeaks(
  plantings: readonly Planting[],
  preset: Preset,
  layers?: readonly Layer[],
): Planting[] {
  const copies = transformCopies(plantings, preset, layers);
  return plantings.filter((p, i) => leaks(copies[i] ?? [], p.sample.secret ?? ""));
}

/** One family's row: counts of distinct (rule, secret) pairs caught. */
export interface FamilyRecall {
  family: string;
  /** The gitleaks rules of the family. */
  rules: string[];
  /** Distinct (rule, secret) pairs of its tp samples. */
  pairs: number;
  /** Its tp texts. */
  texts: number;
  /** Pairs caught in every text field by the generic layers alone. */
  genericText: number;
  /** Pairs caught in every text field by every layer. */
  fullText: number;
  /** Pairs caught with every layer when the sample's text is a member name of `ToolResult.error`. */
  namesText: number;
  /** Pairs caught with every layer when the bare secret is a member name of `ToolResult.error`. */
  namesBare: number;
}

/** The leave-family-out measure: per family, the totals, and the pairs that leaked each way. */
export interface LeaveFamilyOut {
  families: FamilyRecall[];
  total: Omit<FamilyRecall, "family" | "rules">;
  leaked: { genericText: Set<string>; fullText: Set<string>; namesText: Set<string>; namesBare: Set<string> };
}

/** The pairs of `tps` that leaked, each way (the generic layers alone in text, every layer in text and names). */
export function leaveFamilyOutLeaks(tps: readonly TruePositive[]): LeaveFamilyOut["leaked"] {
  const text = LFO_PLACES.flatMap((place) =>
    tps.map((sample): Planting => ({ sample, planted: sample.text, place })),
  );
  const names = (bare: boolean): Planting[] =>
    tps.map((sample) => ({ sample, planted: bare ? sample.secret : sample.text, place: "member-name" }));
  const pairs = (ps: readonly Planting[]) => distinct(ps.map((p) => p.sample));
  return {
    genericText: pairs(transformLeaks(text, "private_repo", GENERIC_LAYERS)),
    fullText: pairs(transformLeaks(text, "private_repo")),
    namesText: pairs(transformLeaks(names(false), "private_repo")),
    namesBare: pairs(transformLeaks(names(true), "private_repo")),
  };
}

/** Per-family and total recall of `tps` from the pairs that leaked (`leaveFamilyOutLeaks`). */
export function leaveFamilyOut(
  tps: readonly TruePositive[],
  leaked: LeaveFamilyOut["leaked"] = leaveFamilyOutLeaks(tps),
): LeaveFamilyOut {
  const byFamily = new Map<string, { rules: Set<string>; pairs: Set<string>; texts: number }>();
  for (const s of tps) {
    const family = vendorOf(s.rule);
    let f = byFamily.get(family);
    if (f === undefined) {
      f = { rules: new Set(), pairs: new Set(), texts: 0 };
      byFamily.set(family, f);
    }
    f.rules.add(s.rule);
    f.pairs.add(pairKey(s));
    f.texts++;
  }
  const caught = (pairs: ReadonlySet<string>, out: ReadonlySet<string>): number =>
    [...pairs].filter((k) => !out.has(k)).length;
  const row = (pairs: ReadonlySet<string>, texts: number): Omit<FamilyRecall, "family" | "rules"> => ({
    pairs: pairs.size,
    texts,
    genericText: caught(pairs, leaked.genericText),
    fullText: caught(pairs, leaked.fullText),
    namesText: caught(pairs, leaked.namesText),
    namesBare: caught(pairs, leaked.namesBare),
  });
  const families = [...byFamily]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([family, f]) => ({ family, rules: [...f.rules].sort(), ...row(f.pairs, f.texts) }));
  return { families, total: row(distinct(tps), tps.length), leaked };
}

/** The share of recall each family must reach with the generic layers alone (issue 20). */
export const LFO_FLOOR = 0.9;

/**
 * Families whose samples carry no generic signal, with why: each is held at the recall measured
 * (`genericText`), so it cannot slip further unseen, instead of at the floor.
 */
const NO_GENERIC_SIGNAL: Readonly<Record<string, { genericText: number; why: string }>> = {
  anthropic: {
    genericText: 2,
    why: "two of its four samples are typed placeholders (`sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-…AA`): an alphabet in order, not a generated body, and no name beside them",
  },
  aws: {
    genericText: 8,
    why: "its Bedrock sample is AWS's documentation key (`ABSKQmVkcm9ja0FQSUtleS1EXAMPLEEXAMPLE…`), bare: only its vendor prefix says what it is",
  },
};

/** Families whose generic-alone recall in text is below `floor` (or, for `NO_GENERIC_SIGNAL`, below what was measured). */
export function familiesBelow(r: LeaveFamilyOut, floor = LFO_FLOOR): FamilyRecall[] {
  return r.families.filter((f) => {
    const known = NO_GENERIC_SIGNAL[f.family];
    return known === undefined ? f.genericText < floor * f.pairs : f.genericText < known.genericText;
  });
}

const pct = (n: number, of: number): string => `${of === 0 ? "–" : `${((100 * n) / of).toFixed(0)}%`}`;
const ratio = (n: number, of: number): string => `${n}/${of} (${pct(n, of)})`;

/** The leave-family-out table as Markdown: the overall line, then one row per family. */
export function leaveFamilyOutMarkdown(r: LeaveFamilyOut, floor = LFO_FLOOR): string {
  const t = r.total;
  const below = familiesBelow(r, floor);
  const underFloor = r.families.filter((f) => f.genericText < floor * f.pairs);
  const held = underFloor.filter((f) => !below.includes(f));
  const meanFamily =
    r.families.reduce((sum, f) => sum + f.genericText / Math.max(1, f.pairs), 0) /
    Math.max(1, r.families.length);
  const header = [
    "family",
    "samples (pairs, texts)",
    "generic layers alone, text",
    "every layer, text",
    "names (text), every layer",
    "names (bare), every layer",
  ];
  const rows = r.families.map((f) => [
    below.includes(f) ? `**${f.family}**` : held.includes(f) ? `${f.family} (held)` : f.family,
    `${f.pairs}, ${f.texts}`,
    ratio(f.genericText, f.pairs),
    ratio(f.fullText, f.pairs),
    ratio(f.namesText, f.pairs),
    ratio(f.namesBare, f.pairs),
  ]);
  rows.push([
    "**all**",
    `${t.pairs}, ${t.texts}`,
    ratio(t.genericText, t.pairs),
    ratio(t.fullText, t.pairs),
    ratio(t.namesText, t.pairs),
    ratio(t.namesBare, t.pairs),
  ]);
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [
    `Leave-family-out: distinct (rule, secret) pairs of gitleaks' tp samples, each text planted in \`error.message\`, \`command\` and \`summary\` (a pair is caught when no planting of it leaks), \`private_repo\`, Layer C's per-event transform with \`Scrubber({ layers: [${GENERIC_LAYERS.map((l) => `"${l}"`).join(", ")}] })\` (generic layers alone) and with every layer; member names with every layer.`,
    "",
    `Generic layers alone: ${ratio(t.genericText, t.pairs)} of pairs; mean per family ${pct(meanFamily, 1)}; families at or above ${pct(floor, 1)}: ${r.families.length - underFloor.length}/${r.families.length}${held.length === 0 ? "" : ` (below it with no generic signal in their samples, held at their measured recall: ${held.map((f) => `${f.family}, ${NO_GENERIC_SIGNAL[f.family]?.why ?? ""}`).join("; ")})`}${below.length === 0 ? "" : ` (below, in bold: ${below.map((f) => f.family).join(", ")})`}. Every layer: ${ratio(t.fullText, t.pairs)} in text, ${ratio(t.namesText, t.pairs)} as member names, ${ratio(t.namesBare, t.pairs)} bare secrets as member names.`,
    "",
    line(header),
    rule,
    ...rows.map(line),
  ].join("\n");
}
