/**
 * Layer C string scrubber: replaces secrets (always) and, per preset, e-mails, IP addresses and home paths in
 * DECODED string values (and member names) of a replay document.
 *
 * Pipeline for one string:
 * 1. our pattern rules (`rules.ts`) — always;
 * 2. secretlint preset-recommend — skipped when {@link canSkipSecretlint} says the string cannot hold a secret;
 * 3. decode-and-scan: if the string contains `%XX` escapes, the percent-decoded view is scanned too and its
 *    findings are mapped back onto the escaped text; every base64/base64url run of 20+ characters that
 *    decodes (at any of the 4 alignments) to mostly printable text is scanned, and the WHOLE run is
 *    redacted if a secret is inside. One level of decoding only (no base64-in-percent-encoding).
 * 4. secret findings that are placeholders (`isPlaceholderToken`: `ghp_xxxx…`), or masked where a rule's
 *    match stops (`xoxp-<ids>-####…`, `isMasked`), are dropped, whichever rule made them; overlapping
 *    secret findings are merged (never partially kept); privacy findings that touch a secret are dropped
 *    (the secret replacement covers them).
 *
 * `policy.keepOnlyStructural` (paranoid) is NOT applied here: which members are structural is decided by
 * the per-format transform (`layer-c.ts`), which then scrubs the values it keeps with this class.
 */
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { RedactError } from "../errors.js";
import { remembered } from "../memo.js";
import { BASE64_OR_URL, inTable } from "./chars.js";
import { CONTEXT_RULES, CREDENTIAL_PAIR_RULE, scanCredentialPairName } from "./detect/context.js";
import { encodedForms, KnownSecrets, type LearnedSecret, recurrences } from "./detect/recurrence.js";
import {
  GENERATED_NAME_MIN,
  isIdName,
  SHAPE_RULE_ID,
  SHAPE_RULES,
  scanGeneratedRuns,
} from "./detect/shape.js";
import { NeedleLists } from "./needles.js";
import { hasNoise, plainView, type TextView } from "./plain-view.js";
import { type Preset, type PresetPolicy, presetPolicy } from "./presets.js";
import type { PackRule } from "./rule-types.js";
import {
  canSkipSecretlint,
  type Detection,
  isPlaceholderFinding,
  isSecretMemberName,
  LAYERS,
  type Layer,
  OWN_RULE_IDS,
  PATTERN_RULES,
  type PatternRule,
  runPatternRules as runPattern,
  SecretlintScanner,
} from "./rules.js";

/** Options of a {@link Scrubber}. */
export interface ScrubOptions {
  /** Privacy preset; `private_repo` by default. */
  preset?: Preset;
  /** HMAC-SHA256 key: replacements read [REDACTED:<rule>:<8 hex>] */
  key?: Uint8Array;
  /**
   * TEST ONLY: rule ids to switch off (e.g. `["jwt"]`, `"secretlint"` for all of secretlint or
   * `"secretlint-aws"` for one of its rules), to prove that the leak tests notice a weakened rule set.
   */
  disableRules?: readonly string[];
  /**
   * The secret detection layers that run (all by default): measuring one layer alone, or the
   * generic ones without the `vendor` rules, is how recall on unseen shapes is estimated.
   * secretlint's preset counts as `vendor`; the member-name rule (`secret-key-name`) as `context`.
   */
  layers?: readonly Layer[];
  /** A rule pack's secret rules, run beside the built-in ones in the `vendor` layer. */
  packRules?: readonly PackRule[];
}

/** A rule pack's rule as one of ours: a `vendor` secret rule; an id of a built-in rule is refused. */
function patternRuleOf(rule: PackRule): PatternRule {
  if (OWN_RULE_IDS.includes(rule.id) || rule.id.startsWith("secretlint"))
    throw new RedactError("redact.pack_rule", `rule pack: '${rule.id}' is the id of a built-in rule`);
  return {
    id: rule.id,
    kind: "secret",
    layer: "vendor",
    needles: [...rule.needles],
    pattern: new RegExp(rule.pattern, "gd"),
  };
}

/** Counts of replacements made so far by a {@link Scrubber}. */
export interface RedactionSummary {
  by_rule: Record<string, number>;
  by_path: Record<string, number>;
  total: number;
}

const DB_LIKE = new Set(["url-password", "db-connection-string"]);
const SECRETLINT_URL_RULES = new Set(["secretlint-basicauth", "secretlint-database-connection-string"]);
/** A name and an assignment before a value (`aws_secret_access_key = "`, `SecretAccessKey: `). */
const LABEL = /^[\w.-]+["']?[ \t]*(?:=|:|=>)[ \t]*["']?$/;

/** Is char code `c` one of `[A-Za-z0-9+/_-]` (base64 and base64url alphabets)? */
function isBase64Char(c: number): boolean {
  return inTable(BASE64_OR_URL, c);
}

/**
 * Calls `visit(start, end)` for every maximal run of 20+ `[A-Za-z0-9+/_-]` plus up to two following "=" — the
 * matches of /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}/g, found by a linear scan without a regexp.
 */
function base64Runs(text: string, visit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isBase64Char(text.charCodeAt(i))) i++;
    if (i - start < 20) continue;
    let end = i;
    if (end < n && text.charCodeAt(end) === 61) end++;
    if (end < n && text.charCodeAt(end) === 61) end++;
    visit(start, end);
    i = end;
  }
}
const PERCENT = /%[0-9A-Fa-f]{2}/;
/** A Windows environment variable's reference (`%ACME_FEED_PAT%`). */
const WINDOWS_VARIABLE = /^%[A-Za-z_][\w.]*%$/;

/** Percent-decoded view of `text` with, per decoded char, the index of its source in `text` (+ end sentinel). */
function percentDecoded(text: string): TextView {
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  const parts: string[] = [];
  let n = 0;
  // Text between escapes is copied as slices, not a character at a time.
  let copied = 0;
  for (let i = 0; i < text.length; n++) {
    starts[n] = i;
    if (text.charCodeAt(i) === 37 && PERCENT.test(text.slice(i, i + 3))) {
      parts.push(text.slice(copied, i), String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 3), 16)));
      i += 3;
      copied = i;
    } else i++;
    ends[n] = i;
  }
  parts.push(text.slice(copied));
  return { text: parts.join(""), starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

/**
 * Decoded text of a base64 run if (at some alignment) it is at least 90% printable ASCII, else
 * undefined. `scratch` is a buffer of at least `run.length` bytes to decode into (base64 never
 * decodes to more bytes than it has characters): most runs are no text, and fail without a buffer
 * of their own.
 */
function printableBase64(run: string, scratch: Buffer): string | undefined {
  for (let k = 0; k < 4; k++) {
    const length = scratch.write(run.slice(k), "base64");
    if (length < 12) continue;
    // Printable means at least ceil(0.9 * length) of them: past the rest in other bytes, stop
    // (random bytes, most runs, are no text within their first few).
    const allowed = length - Math.ceil(length * 0.9);
    let other = 0;
    for (let i = 0; i < length && other <= allowed; i++) {
      const b = scratch[i] as number;
      if (!((b >= 0x20 && b < 0x7f) || b === 9 || b === 10 || b === 13)) other++;
    }
    if (other <= allowed) return scratch.toString("latin1", 0, length);
  }
  return undefined;
}

/**
 * Scrubs strings of one document (or of many: the summary accumulates). Not thread-safe; cheap to create, but
 * reuse one per document: it instantiates the secretlint rules once.
 */
export class Scrubber {
  /** The active preset policy. */
  readonly policy: PresetPolicy;
  private readonly hmacKey: KeyObject | undefined;
  private readonly rules: readonly PatternRule[];
  private readonly secretRules: readonly PatternRule[];
  private readonly secretlint: SecretlintScanner;
  private readonly disabled: ReadonlySet<string>;
  /** Does the shape layer run (member names get its lower bound)? */
  private readonly shapes: boolean;
  /** Does the context layer run (member names that are `user:password` pairs)? */
  private readonly pairs: boolean;
  private readonly rulesBesideShapes: readonly PatternRule[];
  /** Per list of rules `detect` runs: the needles of those rules and secretlint's (see `needlesOf`). */
  private readonly needles = new WeakMap<readonly PatternRule[], NeedleLists>();
  /** Secrets found so far in this document, looked for in every later string. */
  private readonly known = new KnownSecrets();
  /** Where `scanBase64` decodes runs (grown to the longest run seen). */
  private scratch = Buffer.allocUnsafe(1024);
  /** Per pair of adjacent ASCII bytes (`b0 << 7 | b1`): the mark of the last `markPairs` that saw it. */
  private readonly pairMarks = new Uint32Array(128 * 128);
  private pairMark = 0;
  private byRule: Record<string, number> = {};
  private byPath: Record<string, number> = {};
  private total = 0;

  constructor(options: ScrubOptions = {}) {
    this.policy = presetPolicy(options.preset ?? "private_repo");
    this.hmacKey = options.key === undefined ? undefined : createSecretKey(options.key);
    const layers = new Set(options.layers ?? LAYERS);
    const disabled = new Set(options.disableRules ?? []);
    if (!layers.has("vendor")) disabled.add("secretlint");
    if (!layers.has("context")) disabled.add("secret-key-name");
    this.disabled = disabled;
    this.rules = [...PATTERN_RULES, ...(options.packRules ?? []).map(patternRuleOf)].filter(
      (r) =>
        !this.disabled.has(r.id) &&
        (r.layer === undefined || layers.has(r.layer)) &&
        (r.policy === undefined || this.policy[r.policy]),
    );
    this.secretRules = this.rules.filter((r) => r.kind === "secret");
    this.secretlint = new SecretlintScanner(this.disabled);
    this.shapes = this.rules.some((r) => r.id === SHAPE_RULE_ID);
    this.pairs = layers.has("context") && !disabled.has(CREDENTIAL_PAIR_RULE);
    this.rulesBesideShapes = this.rules.filter((r) => r.id !== SHAPE_RULE_ID);
  }

  /** Scrubs one string value found at JSON path `path`; `key` is the member name it sits under (secret-like names such as token/key/secret/password/auth/credential make the whole value redacted, rule "secret-key-name"). */
  scrub(value: string, path: string, key?: string): string {
    if (value.length === 0 || isTag(value)) return value;
    if (key !== undefined && !this.disabled.has("secret-key-name") && isSecretMemberName(key)) {
      return this.whole(value, "secret-key-name", path);
    }
    // An id member holds a generated value by design (`run.id`, `request_id`): no shape finding there.
    const idMember = key !== undefined && isIdName(key);
    return this.apply(value, path, idMember ? this.cachedIdFindings(value) : this.cachedFindings(value));
  }

  /**
   * Scrubs an array of strings found at `path` (each element's path), read as one command line:
   * an argument vector (`["mysql", "-pS3cret"]`, `["--password", "x"]`, a `cmd` or `spawnargs`
   * of a failed process) holds a password its elements hold only together. Each element keeps
   * what it would be scrubbed of alone, and loses what the joined line shows beside.
   */
  scrubArgs(parts: readonly string[], path: string, key?: string): string[] {
    if (key !== undefined && !this.disabled.has("secret-key-name") && isSecretMemberName(key)) {
      return parts.map((p) => this.scrub(p, path, key));
    }
    const spans: { start: number; end: number }[] = [];
    let line = "";
    for (const part of parts) {
      // An element with a blank or a quote is quoted, as a shell would need it.
      const quote = /[\s"']/.test(part) ? (part.includes("'") ? '"' : "'") : "";
      if (line !== "") line += " ";
      line += quote;
      spans.push({ start: line.length, end: line.length + part.length });
      line += part + quote;
    }
    const joined = this.cachedFindings(line);
    const idMember = key !== undefined && isIdName(key);
    return parts.map((part, i) => {
      if (part.length === 0 || isTag(part)) return part;
      const own = idMember ? this.cachedIdFindings(part) : this.cachedFindings(part);
      const span = spans[i] as { start: number; end: number };
      const beside: Detection[] = [];
      for (const f of joined) {
        const start = Math.max(f.start, span.start);
        const end = Math.min(f.end, span.end);
        if (start < end) beside.push({ ...f, start: start - span.start, end: end - span.start });
      }
      return this.apply(part, path, beside.length === 0 ? own : resolve([...own, ...beside]));
    });
  }

  /**
   * Scrubs a member NAME (object keys can hold secrets too): the same rules as values, no
   * name-based rule, and generated runs from a lower length on (a written name is an identifier).
   */
  scrubKey(name: string, path: string): string {
    if (name.length === 0 || isTag(name)) return name;
    const findings = this.cachedFindings(name);
    const more: Detection[] = [];
    if (this.shapes && name.length >= GENERATED_NAME_MIN) {
      scanGeneratedRuns(name, more, SHAPE_RULE_ID, GENERATED_NAME_MIN, true);
    }
    if (this.pairs) scanCredentialPairName(name, more);
    return this.apply(name, path, more.length === 0 ? findings : resolve([...findings, ...more]));
  }

  /** A mark of what this scrubber has learned so far (see `redactLearned`). */
  epoch(): number {
    return this.known.epoch;
  }

  /**
   * `text` (written output: JSON, its strings escaped) with every occurrence of a secret learned
   * after `epoch` replaced, counted at `path`: an event whose later member revealed a secret that
   * an earlier member holds too (`{"command": "… S", "error": {"message": "token=S"}}`).
   */
  redactLearned(text: string, path: string, epoch: number): string {
    let out = text;
    for (const { value, rule } of this.known.since(epoch)) {
      for (const form of encodedForms(value)) {
        const written = JSON.stringify(form).slice(1, -1);
        if (!out.includes(written)) continue;
        const parts = out.split(written);
        for (let i = 1; i < parts.length; i++) this.count(rule, path);
        out = parts.join(this.tag(rule, value));
      }
    }
    return out;
  }

  /**
   * May the UTF-8 bytes `written` hold a secret learned after `epoch` (in a form `redactLearned`
   * replaces)? False only when none can: a form of printable ASCII (JSON writes it as it is) is
   * looked for in the bytes (UTF-8 decodes ASCII bytes to themselves, and no other bytes to
   * ASCII), first by its pairs of characters; any other form is taken to stand. Spares decoding
   * an event's copy and searching it once per form when nothing learned stands in it.
   */
  mayHoldLearned(written: Buffer, epoch: number): boolean {
    const learned = this.known.since(epoch);
    if (learned.length === 0) return false;
    const mark = this.markPairs(written);
    for (const { value } of learned) {
      for (const form of encodedForms(value)) {
        if (!isPlainAscii(form)) return true;
        if (this.holdsPairs(form, mark) && written.includes(form, 0, "latin1")) return true;
      }
    }
    return false;
  }

  /** Marks (with a new mark, returned) each pair of adjacent ASCII bytes of `bytes` in `pairMarks`. */
  private markPairs(bytes: Uint8Array): number {
    if (this.pairMark === 0xffffffff) {
      this.pairMarks.fill(0);
      this.pairMark = 0;
    }
    const mark = ++this.pairMark;
    const marks = this.pairMarks;
    let b1 = bytes[0] ?? 128;
    for (let i = 1; i < bytes.length; i++) {
      const b0 = b1;
      b1 = bytes[i] as number;
      if ((b0 | b1) < 128) marks[(b0 << 7) | b1] = mark;
    }
    return mark;
  }

  /** Is each pair of adjacent characters of ASCII `form` marked with `mark`? */
  private holdsPairs(form: string, mark: number): boolean {
    for (let i = 1; i < form.length; i++) {
      if (this.pairMarks[(form.charCodeAt(i - 1) << 7) | form.charCodeAt(i)] !== mark) return false;
    }
    return true;
  }

  /** The secrets learned since the last call, in order (see `KnownSecrets.takeLearned`). */
  takeLearned(): readonly LearnedSecret[] {
    return this.known.takeLearned();
  }

  /**
   * Forgets the secrets learned so far (see `KnownSecrets.forget`), and those not yet taken
   * (`takeLearned`): a line redacted on its own starts knowing nothing.
   */
  forgetKnown(): void {
    this.known.forget();
    this.known.takeLearned();
  }

  /** Starts knowing `secrets`, revealed by earlier lines of the same file. */
  learnAll(secrets: readonly LearnedSecret[]): void {
    this.known.rememberAll(secrets);
  }

  /**
   * Written JSON (UTF-8 bytes or a string) with every secret known so far that its strings hold as
   * a chunk replaced, each counted at `pathAt(json, offset)`; undefined when it holds none. For a
   * line redacted on its own (on any thread), with what the lines before it revealed.
   */
  redactKnown(
    written: Uint8Array | string,
    pathAt: (json: string, at: number) => string,
  ): string | undefined {
    if (this.known.size === 0) return undefined;
    // Bytes are decoded only when they may hold one (most lines of a file hold none).
    if (typeof written !== "string" && !this.known.mayHoldWritten(written)) return undefined;
    const json =
      typeof written === "string"
        ? written
        : Buffer.from(written.buffer, written.byteOffset, written.byteLength).toString("utf8");
    const found = this.known.findInWritten(json);
    return found.length === 0 ? undefined : this.replaced(json, found, (f) => pathAt(json, f.start));
  }

  /** Starts knowing the secrets `other` found (a second pass over a document). */
  learnFrom(other: Scrubber): void {
    this.known.learn(other.known);
  }

  /** Replacements made so far, per rule and per JSON path (a copy). */
  summary(): RedactionSummary {
    return { by_rule: { ...this.byRule }, by_path: { ...this.byPath }, total: this.total };
  }

  /** The replacements made since the last call (or since creation), counting afresh after it. */
  takeSummary(): RedactionSummary {
    const summary: RedactionSummary = { by_rule: this.byRule, by_path: this.byPath, total: this.total };
    this.byRule = {};
    this.byPath = {};
    this.total = 0;
    return summary;
  }

  /** Findings on `text` after merging (exposed for tests and for callers that only need to know). */
  findings(text: string, rules: readonly PatternRule[] = this.rules): Detection[] {
    const raw: Detection[] = [];
    this.detect(text, rules, raw);
    if (PERCENT.test(text)) {
      const decoded = this.inView(text, percentDecoded(text), rules);
      // `%FEED_PAT%` is a Windows variable, not `%FE` escaped: its decoded view is nothing's.
      for (const f of decoded) if (!WINDOWS_VARIABLE.test(text.slice(f.start, f.end))) raw.push(f);
      if (decoded.length > 0) preferOwnUrls(raw, 0);
    }
    // Colour codes, invisible characters, look-alike separators, HTML's references: the view a
    // reader sees is read too.
    if (hasNoise(text)) raw.push(...this.inView(text, plainView(text), rules));
    this.scanBase64(text, raw);
    const merged = resolve(text.includes("[REDACTED:") ? withoutTags(text, raw) : raw);
    const again = recurrences(text, merged);
    if (again.length === 0) return merged;
    return resolve(
      text.includes("[REDACTED:") ? withoutTags(text, [...merged, ...again]) : [...merged, ...again],
    );
  }

  /**
   * The findings on a view of `text` (its percent-decoded or its plain form), mapped back onto
   * `text`'s characters. A replacement computed on the view that does not fit the text is left
   * out (the generic tag stands).
   */
  private inView(text: string, view: TextView, rules: readonly PatternRule[]): Detection[] {
    const inner: Detection[] = [];
    this.detect(view.text, rules, inner);
    return inner.flatMap((f) => {
      if (f.end <= f.start) return [];
      const mapped: Detection = {
        ...f,
        start: view.starts[f.start] ?? 0,
        end: view.ends[f.end - 1] ?? text.length,
      };
      if (
        mapped.replacement !== undefined &&
        text.slice(mapped.start, mapped.end) !== view.text.slice(f.start, f.end)
      )
        delete mapped.replacement;
      return [mapped];
    });
  }

  private detect(text: string, rules: readonly PatternRule[], out: Detection[]): void {
    const before = out.length;
    const lists = this.needlesOf(rules);
    const mark = lists.find(text);
    runPattern(text, rules, out, { lists, mark });
    if (!canSkipSecretlint(text)) this.secretlint.scan(text, out, { lists, mark, first: rules.length });
    // `ghp_xxxx…`, `AIzaaaaa…`: documentation's placeholders, whichever rule matched them; judged
    // with a mask right after (`xoxp-…-…-####`), where a rule's alphabet stops short of it.
    for (let i = out.length - 1; i >= before; i--) {
      const f = out[i];
      if (f?.kind === "secret" && isPlaceholderFinding(text, f)) out.splice(i, 1);
    }
    preferOwnUrls(out, before);
    // secretlint reports a labelled secret with its label (`aws_secret_access_key = …`): where one
    // of ours found the value alone inside it, the label is kept. Its AWS rule measures the range
    // from the label's start with the key's length, cutting the key: a finding never ends inside
    // a token.
    for (let i = out.length - 1; i >= before; i--) {
      const f = out[i];
      if (f === undefined || !f.rule.startsWith("secretlint-")) continue;
      while (
        f.end < text.length &&
        f.end > 0 &&
        isBase64Char(text.charCodeAt(f.end - 1)) &&
        // A token's next character, its `=` padding included.
        (isBase64Char(text.charCodeAt(f.end)) || text.charCodeAt(f.end) === 61)
      )
        f.end++;
      const labelled = out.some(
        (o, k) =>
          k >= before &&
          o.kind === "secret" &&
          !o.rule.startsWith("secretlint-") &&
          o.start > f.start &&
          o.end <= f.end &&
          LABEL.test(text.slice(f.start, o.start)) &&
          /^["']?$/.test(text.slice(o.end, f.end)),
      );
      if (labelled) out.splice(i, 1);
    }
  }

  /** The needles of `rules` and then of secretlint's rules, looked for in one pass per text (made once per list). */
  private needlesOf(rules: readonly PatternRule[]): NeedleLists {
    let lists = this.needles.get(rules);
    if (lists === undefined) {
      lists = new NeedleLists([...rules.map((r) => r.needles), ...this.secretlint.needleLists]);
      this.needles.set(rules, lists);
    }
    return lists;
  }

  private scanBase64(text: string, out: Detection[]): void {
    if (text.length < 20) return;
    const secrets = out.filter((f) => f.kind === "secret");
    base64Runs(text, (start, end) => {
      if (secrets.some((f) => f.start <= start && f.end >= end)) return;
      if (this.scratch.length < end - start)
        this.scratch = Buffer.allocUnsafe(Math.max(end - start, 2 * this.scratch.length));
      const decoded = printableBase64(text.slice(start, end), this.scratch);
      if (decoded === undefined) return;
      const inner: Detection[] = [];
      this.detect(decoded, this.secretRules, inner);
      const hit = inner.find((f) => f.kind === "secret");
      if (hit !== undefined) out.push({ start, end, rule: hit.rule, kind: "secret" });
    });
  }

  private apply(text: string, path: string, found: readonly Detection[]): string {
    let findings = found;
    if (this.known.size > 0 && text.length >= 8) {
      const known = this.known.findIn(text);
      if (known.length > 0) {
        const all = [...findings, ...known];
        findings = resolve(text.includes("[REDACTED:") ? withoutTags(text, all) : all);
      }
    }
    if (findings.length === 0) return text;
    this.known.remember(text, findings);
    return this.replaced(text, findings, () => path);
  }

  /** `text` with each finding replaced (its `replacement` or a tag), counted at `pathOf(finding)`. */
  private replaced(text: string, findings: readonly Detection[], pathOf: (f: Detection) => string): string {
    const parts: string[] = [];
    let at = 0;
    for (const f of findings) {
      parts.push(text.slice(at, f.start), f.replacement ?? this.tag(f.rule, text.slice(f.start, f.end)));
      at = f.end;
      this.count(f.rule, pathOf(f));
    }
    parts.push(text.slice(at));
    return parts.join("");
  }

  /**
   * `findings(text)`, remembered for short strings: tool names, statuses and commands repeat on
   * every line of a replay. Findings depend on the text alone and are never changed after.
   */
  private readonly cachedFindings = remembered((text) => this.findings(text), CACHED_TEXT, CACHE_ENTRIES);

  /** `findings(text)` without the shape layer, for the values of id members (remembered alike). */
  private readonly cachedIdFindings = remembered(
    (text) => this.findings(text, this.rulesBesideShapes),
    CACHED_TEXT,
    CACHE_ENTRIES,
  );

  private whole(value: string, rule: string, path: string): string {
    this.known.remember(value, [{ start: 0, end: value.length, rule, kind: "secret" }]);
    this.count(rule, path);
    return this.tag(rule, value);
  }

  private tag(rule: string, secret: string): string {
    if (this.hmacKey === undefined) return `[REDACTED:${rule}]`;
    const mac = createHmac("sha256", this.hmacKey).update(secret, "utf8").digest("hex").slice(0, 8);
    return `[REDACTED:${rule}:${mac}]`;
  }

  private count(rule: string, path: string): void {
    this.byRule[rule] = (this.byRule[rule] ?? 0) + 1;
    this.byPath[path] = (this.byPath[path] ?? 0) + 1;
    this.total++;
  }
}

/**
 * Drops secretlint's whole-URL findings of `out` (from index `from`) that hold one of ours: ours
 * keeps scheme, user and host. Also across views: a password holding `%23` reads as `#` in the
 * percent-decoded text, where ours stops and secretlint's whole URL does not.
 */
function preferOwnUrls(out: Detection[], from: number): void {
  const own = out.slice(from).filter((f) => DB_LIKE.has(f.rule));
  if (own.length === 0) return;
  for (let i = out.length - 1; i >= from; i--) {
    const f = out[i];
    if (f && SECRETLINT_URL_RULES.has(f.rule) && own.some((o) => o.start >= f.start && o.end <= f.end)) {
      out.splice(i, 1);
    }
  }
}

/** Is `s` printable ASCII without `"` and `\\` (what JSON writes as it is)? */
function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126 || c === 34 || c === 92) return false;
  }
  return true;
}

/** Longest string whose findings are remembered, and how many are (then the memory starts over). */
const CACHED_TEXT = 256;
const CACHE_ENTRIES = 4096;

const TAG = /\[REDACTED:[A-Za-z0-9-]+(?::[0-9a-f]{8})?\]/g;
const WHOLE_TAG = new RegExp(`^${TAG.source}$`);

/**
 * Is `text` one of our tags and nothing else (already scrubbed)? Only then is it skipped: a string that merely
 * starts with a tag (`[REDACTED:jwt] then ghp_…`) is scanned like any other.
 */
function isTag(text: string): boolean {
  return text.startsWith("[REDACTED:") && WHOLE_TAG.test(text);
}

/** Drops findings that touch one of our own `[REDACTED:…]` tags (keeps scrubbing idempotent). */
function withoutTags(text: string, findings: readonly Detection[]): Detection[] {
  const tags: [number, number][] = [];
  for (const m of text.matchAll(TAG)) tags.push([m.index, m.index + m[0].length]);
  return findings.filter((f) => !tags.some(([s, e]) => f.start < e && s < f.end));
}

/**
 * How well a rule names what it found (lower is better, ties to the earlier rule): our named
 * formats and vendors, then secretlint's, then an assignment to a credential's name
 * (`generic-secret`, then the vendor-keyword form), then the context layer's other forms, then
 * the shape layer (which knows only that a run is random).
 */
const LABEL_RANK = new Map<string, number>([
  ["generic-secret", 0.5],
  ["keyword-secret", 0.6],
  ...CONTEXT_RULES.filter((r) => r.id !== "generic-secret").map((r): [string, number] => [r.id, 2]),
  [CREDENTIAL_PAIR_RULE, 2],
  ...SHAPE_RULES.map((r): [string, number] => [r.id, 3]),
]);

function labelRank(rule: string): number {
  if (rule.startsWith("secretlint-")) return 0.4;
  return LABEL_RANK.get(rule) ?? 0;
}

/**
 * Merges findings: overlapping secret findings become one (label: the earliest-starting, longest; own rules
 * before secretlint's); privacy findings overlapping a secret are dropped, overlapping privacy findings keep
 * the first. Returns findings sorted by start, non-overlapping.
 */
function resolve(findings: readonly Detection[]): Detection[] {
  const byStart = (a: Detection, b: Detection) =>
    a.start - b.start || b.end - a.end || labelRank(a.rule) - labelRank(b.rule);
  const secrets = findings.filter((f) => f.kind === "secret").sort(byStart);
  const merged: Detection[] = [];
  for (const f of secrets) {
    const last = merged[merged.length - 1];
    if (last !== undefined && f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
      if (labelRank(f.rule) < labelRank(last.rule)) last.rule = f.rule;
    } else {
      merged.push({ start: f.start, end: f.end, rule: f.rule, kind: "secret" });
    }
  }
  const privacy = findings.filter((f) => f.kind === "privacy").sort(byStart);
  const kept: Detection[] = [];
  for (const p of privacy) {
    if (merged.some((s) => p.start < s.end && s.start < p.end)) continue;
    const last = kept[kept.length - 1];
    if (last !== undefined && p.start < last.end) continue;
    kept.push(p);
  }
  return [...merged, ...kept].sort((a, b) => a.start - b.start);
}
