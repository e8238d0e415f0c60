/**
 * secretlint's `preset-recommend` rules, driven synchronously over one string at a time.
 */
import {
  creator as recommendPreset,
  rules as recommendRules,
} from "@secretlint/secretlint-rule-preset-recommend";
import { type FoundNeedles, NeedleLists } from "./needles.js";
import type { Detection } from "./rule-types.js";

// ---------------------------------------------------------------------------------------------------------
// secretlint

/** The secretlint preset this engine runs (`package.json` pins its version exactly): part of the rules' provenance. */
export const SECRETLINT_PRESET_ID = recommendPreset.meta.id;

type RuleCreator = (typeof recommendRules)[number];
type RuleContext = Parameters<RuleCreator["create"]>[0];
type RuleHandler = ReturnType<RuleCreator["create"]>;
type FileSource = Parameters<NonNullable<RuleHandler["file"]>>[0];

/**
 * Rules of the preset we never run: `filter-comments` would let a `secretlint-disable` comment INSIDE the
 * scrubbed data switch detection off — data must not be able to disable its own redaction. `slack` matches
 * any `xoxb-word-word` (documentation's `xoxb-my-bot-token`); our `slack-token` and `slack-webhook` follow
 * the shapes of gitleaks' Slack rules instead.
 */
const SECRETLINT_DISABLED = new Set([
  "@secretlint/secretlint-rule-filter-comments",
  "@secretlint/secretlint-rule-slack",
]);

/** `@secretlint/secretlint-rule-aws` → `secretlint-aws`. */
export function secretlintRuleName(ruleId: string): string {
  return `secretlint-${ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}`;
}

const SECRETLINT_NEEDLES = ["://", "PRIVATE KEY", "_authToken", "ccount", "CCOUNT"];
const LONG_TOKEN = /[A-Za-z0-9_+/=.-]{16}/;

/**
 * May secretlint be skipped for `text`? (Speed shortcut; our own rules ALWAYS run.) True when the text is
 * shorter than 8 characters, or consists of letters and blanks only (every preset-recommend pattern needs a
 * digit or one of `_ - . : / = @ +`, except Databricks' `dapi` + 32 hex, so `dapi` is never skipped), or has
 * no run of 16+ token characters `[A-Za-z0-9_+/=.-]` and none of `://` (basic-auth and database URLs),
 * `PRIVATE KEY`, `_authToken` (npmrc), `account` (AWS account ids): every other preset rule we run matches a
 * token of 16+ such characters. Tests check both that no secret sample is skipped and that secretlint finds
 * nothing in generated strings the shortcut skips.
 */
export function canSkipSecretlint(text: string): boolean {
  if (text.length < 8) return true;
  if (/^[A-Za-z \t]*$/.test(text)) return !text.includes("dapi");
  return !LONG_TOKEN.test(text) && !SECRETLINT_NEEDLES.some((n) => text.includes(n));
}

/**
 * Per-rule pre-checks for secretlint 12.0.0's preset-recommend (speed only): a rule's `file` handler runs
 * only when the text holds one of its needles. Each list is a NECESSARY condition, read off the rule's
 * source: every pattern the rule runs on a text source (our source has no file path and ext "") contains
 * one of these literals, with the same case sensitivity. Rules without an entry (or a future preset
 * version's new rules) always run. All lists are looked for in one pass per text (`NeedleLists`).
 */
const SECRETLINT_NEEDLES_BY_RULE: Readonly<Record<string, readonly string[]>> = {
  // AccessKeyID: (A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)…; SecretAccessKey:
  // (?:SECRET|secret|Secret)…; AccountID: (ACCOUNT|account|Account)… (all case-sensitive).
  "@secretlint/secretlint-rule-aws": [
    ...["A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA"],
    ...["SECRET", "Secret", "secret", "ACCOUNT", "Account", "account"],
  ],
  // `-----BEGIN… PRIVATE KEY… -----END…` (case-sensitive).
  "@secretlint/secretlint-rule-privatekey": ["PRIVATE KEY"],
  // npm_…; package.json / .npmrc checks (x-oauth-basic, _authToken=) need a file path we never pass, listed anyway.
  "@secretlint/secretlint-rule-npm": ["npm_", "_authToken", "x-oauth-basic"],
  // (https?|ftp|ftps)://user:password@…
  "@secretlint/secretlint-rule-basicauth": ["://"],
  "@secretlint/secretlint-rule-sendgrid": ["SG."],
  // (shppa|shpca|shpat|shpss)_…
  "@secretlint/secretlint-rule-shopify": ["shp"],
  // (ghp|gho|ghu|ghs|ghr)_…, github_pat_…
  "@secretlint/secretlint-rule-github": ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  "@secretlint/secretlint-rule-gitlab": ["glpat-"],
  "@secretlint/secretlint-rule-grafana": ["glc_", "glsa_"],
  // sk-(proj|svcacct|admin)-…T3BlbkFJ…, sk-…T3BlbkFJ…
  "@secretlint/secretlint-rule-openai": ["sk-"],
  "@secretlint/secretlint-rule-anthropic": ["sk-ant-api0"],
  "@secretlint/secretlint-rule-groq": ["gsk_"],
  "@secretlint/secretlint-rule-huggingface": ["hf_"],
  "@secretlint/secretlint-rule-linear": ["lin_api_"],
  "@secretlint/secretlint-rule-notion": ["ntn_"],
  "@secretlint/secretlint-rule-1password": ["ops_"],
  // mongodb(+srv)://, (jdbc:)mysql(x)://, postgres(ql):// (case-insensitive, "://" has no letters).
  "@secretlint/secretlint-rule-database-connection-string": ["://"],
  "@secretlint/secretlint-rule-hashicorp-vault": ["hvs.", "hvb.", "hvr."],
  // (vcp|vci|vca|vcr|vck)_…
  "@secretlint/secretlint-rule-vercel": ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
  "@secretlint/secretlint-rule-databricks": ["dapi"],
  "@secretlint/secretlint-rule-docker": ["dckr_pat_"],
  "@secretlint/secretlint-rule-figma": ["figd_"],
};

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Runs secretlint's `preset-recommend` rules synchronously over one decoded string.
 *
 * We do not call `@secretlint/core`'s `lintSource` per string: it is asynchronous (our `scrub()` is not), and
 * every call records ~30 `performance.mark` entries in Node's global timeline through `@secretlint/profiler`
 * (measured: 0.3 MB/s, 1 GB RSS after 20,000 short strings, plus a quadratic observer). Instead each rule
 * of the preset is instantiated ONCE with a rule context whose `report` appends to the current findings,
 * and its `file(source)` handler is called on a light source object — the same rule code `lintSource` runs
 * (a test checks both give the same ranges). Rules are created with their default options, except the AWS
 * rule gets `enableIDScanRule: true`.
 */
export class SecretlintScanner {
  private readonly handlers: { id: string; handler: RuleHandler }[] = [];
  /** The handlers' needle lists, in the same order (see `SECRETLINT_NEEDLES_BY_RULE`). */
  readonly needleLists: readonly (readonly string[] | undefined)[];
  /** `needleLists`, looked for by `scan` when its caller did not. */
  private readonly needles: NeedleLists;
  private sink: Detection[] = [];

  /** @param disabled secretlint rule names (`secretlint-aws`) or full ids to leave out; `secretlint` = all. */
  constructor(disabled: ReadonlySet<string> = new Set()) {
    for (const creator of disabled.has("secretlint") ? [] : recommendRules) {
      const id = creator.meta.id;
      if (SECRETLINT_DISABLED.has(id) || disabled.has(id) || disabled.has(secretlintRuleName(id))) continue;
      const rule = secretlintRuleName(id);
      const context = {
        sharedOptions: {},
        // Message texts are never used (they would embed the credential): return the id only.
        createTranslator: () => (messageId: string, data?: unknown) => ({
          message: messageId,
          messageId,
          data,
        }),
        report: (descriptor: { range: readonly [number, number] }) => {
          const [start, end] = descriptor.range;
          if (end > start) this.sink.push({ start, end, rule, kind: "secret" });
        },
        ignore: () => {},
      } as unknown as RuleContext;
      const options = id === "@secretlint/secretlint-rule-aws" ? { enableIDScanRule: true } : {};
      this.handlers.push({ id, handler: creator.create(context, options as never) });
    }
    this.needleLists = this.handlers.map((h) => SECRETLINT_NEEDLES_BY_RULE[h.id]);
    this.needles = new NeedleLists(this.needleLists);
  }

  /**
   * Appends secretlint's findings on `text` to `out`. `found`: the needles of `text`, when the
   * caller looked for `needleLists` with its own (they start at list `first` of `found.lists`).
   */
  scan(text: string, out: Detection[], found?: FoundNeedles & { first: number }): void {
    if (this.handlers.length === 0) return;
    const active: RuleHandler[] = [];
    const lists = found?.lists ?? this.needles;
    const mark = found?.mark ?? this.needles.find(text);
    const first = found?.first ?? 0;
    this.handlers.forEach(({ handler }, k) => {
      if (lists.holds(mark, first + k)) active.push(handler);
    });
    if (active.length === 0) return;
    let starts: number[] | undefined;
    const lines = (): number[] => {
      starts ??= lineStarts(text);
      return starts;
    };
    const indexToPosition = (index: number) => {
      const ls = lines();
      let lo = 0;
      let hi = ls.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((ls[mid] ?? 0) <= index) lo = mid;
        else hi = mid - 1;
      }
      return { line: lo + 1, column: index - (ls[lo] ?? 0) };
    };
    const positionToIndex = (p: { line: number; column: number }) => (lines()[p.line - 1] ?? 0) + p.column;
    const source = {
      hasBOM: false,
      content: text,
      filePath: undefined,
      physicalFilePath: undefined,
      contentType: "text",
      ext: "",
      getFilePath: () => undefined,
      getPhysicalFilePath: () => undefined,
      indexToPosition,
      positionToIndex,
      rangeToLocation: (r: readonly [number, number]) => ({
        start: indexToPosition(r[0]),
        end: indexToPosition(r[1]),
      }),
      locationToRange: (loc: {
        start: { line: number; column: number };
        end: { line: number; column: number };
      }) => [positionToIndex(loc.start), positionToIndex(loc.end)],
    } as unknown as FileSource;
    this.sink = out;
    try {
      for (const handler of active) {
        try {
          const result = handler.file?.(source) as unknown;
          if (result instanceof Promise) result.catch(() => {});
        } catch {
          // A rule that throws on odd input must not break scrubbing; our own rules still run.
        }
      }
    } finally {
      this.sink = [];
    }
  }
}
