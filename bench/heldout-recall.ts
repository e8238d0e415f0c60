/**
 * Secret recall on other scanners' samples (`test/corpus/secrets/noseyparker-examples.jsonl`, the
 * development set, and `kingfisher-examples.jsonl`, the held-out set; test/corpus/SOURCES.md),
 * shared by test/conformance/heldout-recall.test.ts and the `secret-recall` row of `npm run bench`.
 *
 * The machinery is bench/secret-recall.ts's: each true-positive text is planted in the three kept
 * text fields of a replay-v1 file (`error.message`, `command`, `summary`) and, alone, as a member
 * name of `ToolResult.error`, and goes through Layer C's per-event transform; a (rule, secret) pair
 * is caught when no planting of it leaves the secret raw, base64 or base64url in its event's copy.
 * Measured with every layer and with the generic layers alone (`GENERIC_LAYERS`). Negative texts
 * are planted in the same three fields and count as changed when any copy differs.
 */
import type { Layer } from "#shared/redact/index.js";
import {
  distinct,
  GENERIC_LAYERS,
  LFO_PLACES,
  type Planting,
  type Sample,
  type TruePositive,
  transformCopies,
  transformLeaks,
  truePositives,
} from "./secret-recall.js";

/** One line of `noseyparker-examples.jsonl` or `kingfisher-examples.jsonl`. */
export interface ScannerExample extends Sample {
  /** The rule's name in its scanner. */
  name: string;
  /** The rule file it was taken from. */
  file: string;
  /** How `secret` was found: the value the rule's pattern captures, or `longestTokenRun`. */
  secret_source?: "rule-capture" | "longest-run";
  /** The rule finds an identifier (a client id, a bucket, a user name), not a secret: not measured. */
  identifier?: boolean;
}

/** The two sets: the one tuned on, and the one measured but never looked at while tuning. */
export const SCANNER_SETS = {
  development: "noseyparker-examples.jsonl",
  heldOut: "kingfisher-examples.jsonl",
} as const;

/** A token-like run: letters, digits and `_-+/.~`, then any `=` padding. */
const TOKEN_RUN = /[A-Za-z0-9_\-+/.~]+=*/g;

/**
 * The secret of an example whose rule's capture could not be read from it (test/corpus/SOURCES.md):
 * its longest token-like run, trailing dots dropped; the first of equal length.
 */
export function longestTokenRun(text: string): string {
  let best = "";
  for (const m of text.matchAll(TOKEN_RUN)) {
    const run = m[0].replace(/\.+$/, "");
    if (run.length > best.length) best = run;
  }
  return best;
}

/** The scanner's vendor of a rule id (`np.aws.1` → aws, `kingfisher.agora.2` → agora). */
function scannerFamily(rule: string): string {
  return rule.split(".")[1] ?? rule;
}

/** Negative texts that hold a true-positive secret of the same set (a rule's fp is its sibling's tp): left out. */
function contradictoryNegatives(samples: readonly Sample[]): Sample[] {
  const secrets = [...new Set(truePositives(samples).map((s) => s.secret))].filter((s) => s.length >= 8);
  return samples.filter((s) => s.kind === "fp" && secrets.some((secret) => s.text.includes(secret)));
}

/** Which of `negatives` come out changed from any of the kept text fields. */
function alteredNegatives(negatives: readonly Sample[], layers?: readonly Layer[]): Sample[] {
  const ps = LFO_PLACES.flatMap((place) =>
    negatives.map((sample): Planting => ({ sample, planted: sample.text, place })),
  );
  const copies = transformCopies(ps, "private_repo", layers);
  const altered = new Set<Sample>();
  ps.forEach((p, i) => {
    if (!(copies[i] ?? []).includes(p.planted)) altered.add(p.sample);
  });
  return negatives.filter((s) => altered.has(s));
}

/** What one set measures: distinct (rule, secret) pairs caught each way, and negatives changed. */
export interface ScannerRecall {
  /** Distinct (rule, secret) pairs of its true positives (identifiers left out). */
  pairs: number;
  /** Their texts. */
  texts: number;
  /** Vendors (rule files) the pairs come from. */
  families: number;
  textFull: number;
  textGeneric: number;
  namesFull: number;
  namesGeneric: number;
  /** Negative texts measured (those holding a tp secret of the set left out). */
  negatives: number;
  negativesChangedFull: number;
  negativesChangedGeneric: number;
  /** The pairs that leaked each way, and the negatives changed with every layer. */
  leaked: {
    textFull: Set<string>;
    textGeneric: Set<string>;
    namesFull: Set<string>;
    namesGeneric: Set<string>;
  };
  changed: Sample[];
  tps: TruePositive[];
}

/** Measures one set (its lines, parsed). */
export function scannerRecall(samples: readonly ScannerExample[]): ScannerRecall {
  const tps = truePositives(samples.filter((s) => s.identifier !== true));
  const text = LFO_PLACES.flatMap((place) =>
    tps.map((sample): Planting => ({ sample, planted: sample.text, place })),
  );
  const names = tps.map((sample): Planting => ({ sample, planted: sample.text, place: "member-name" }));
  const pairs = (ps: readonly Planting[]) => distinct(ps.map((p) => p.sample));
  const leaked = {
    textFull: pairs(transformLeaks(text, "private_repo")),
    textGeneric: pairs(transformLeaks(text, "private_repo", GENERIC_LAYERS)),
    namesFull: pairs(transformLeaks(names, "private_repo")),
    namesGeneric: pairs(transformLeaks(names, "private_repo", GENERIC_LAYERS)),
  };
  const contradictory = new Set(contradictoryNegatives(samples));
  const negatives = samples.filter((s) => s.kind === "fp" && s.text !== "" && !contradictory.has(s));
  const changed = alteredNegatives(negatives);
  const all = distinct(tps);
  return {
    pairs: all.size,
    texts: tps.length,
    families: new Set(tps.map((s) => scannerFamily(s.rule))).size,
    textFull: all.size - leaked.textFull.size,
    textGeneric: all.size - leaked.textGeneric.size,
    namesFull: all.size - leaked.namesFull.size,
    namesGeneric: all.size - leaked.namesGeneric.size,
    negatives: negatives.length,
    negativesChangedFull: changed.length,
    negativesChangedGeneric: alteredNegatives(negatives, GENERIC_LAYERS).length,
    leaked,
    changed,
    tps,
  };
}

const pct = (n: number, of: number): string => (of === 0 ? "–" : `${((100 * n) / of).toFixed(0)}%`);
const ratio = (n: number, of: number): string => `${n}/${of} (${pct(n, of)})`;

/** The pairs of `keys` as `rule: "secret"` lines, the secret cut at 60 characters. */
export function pairLines(keys: ReadonlySet<string>): string[] {
  return [...keys].sort().map((k) => {
    const [rule = "", secret = ""] = k.split("\u0000");
    return `${rule}: ${JSON.stringify(secret.slice(0, 60))}`;
  });
}

/** The two sets' rows as a Markdown table, then what each still leaks in text with every layer. */
export function scannerRecallMarkdown(rows: ReadonlyArray<readonly [string, ScannerRecall]>): string {
  const header =
    "| set | pairs (texts, vendors) | text, every layer | text, generic alone | names, every layer | names, generic alone | negatives changed (every layer; generic) |";
  const lines = rows.map(
    ([name, r]) =>
      `| ${name} | ${r.pairs} (${r.texts}, ${r.families}) | ${ratio(r.textFull, r.pairs)} | ${ratio(r.textGeneric, r.pairs)} | ${ratio(r.namesFull, r.pairs)} | ${ratio(r.namesGeneric, r.pairs)} | ${ratio(r.negativesChangedFull, r.negatives)}; ${r.negativesChangedGeneric} |`,
  );
  const missed = rows.flatMap(([name, r]) =>
    r.leaked.textFull.size === 0
      ? []
      : [
          "",
          `Leaked from kept text with every layer, ${name}:`,
          "",
          ...pairLines(r.leaked.textFull).map((l) => `- ${l}`),
        ],
  );
  return [
    "Distinct (rule, secret) pairs of each set's examples, planted in `error.message`, `command` and `summary` (text) and as a member name of `ToolResult.error` (names), `private_repo`, Layer C's per-event transform with every layer and with the generic layers alone; a pair is caught when no planting leaves its secret raw, base64 or base64url.",
    "",
    header,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...lines,
    ...missed,
  ].join("\n");
}
