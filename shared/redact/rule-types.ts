/**
 * The types every detection rule shares: a detection (a range to replace; `Finding` is the name
 * of a problem with an input, in formats/), a rule, and the layer it belongs to.
 */

/**
 * Would `value` be redacted as the value of `name` (`name = "value"`, or `name = value` when not
 * `quoted`)? How a detector that ties a value to a name other than by assigning it (a prompt's
 * answer, a label's next line, a value after an arrow) has it judged.
 */
export type ValueJudge = (name: string, value: string, quoted?: boolean) => boolean;

/** A range of a string to replace. */
export interface Detection {
  start: number;
  end: number;
  /** Rule id, written into the replacement: `[REDACTED:<rule>]`. */
  rule: string;
  /** `secret` detections always win and are merged with each other; `privacy` ones yield to secrets. */
  kind: "secret" | "privacy";
  /** Fixed replacement text instead of `[REDACTED:…]` (home-path: `~`). */
  replacement?: string;
}

/**
 * The detection layers, each usable and measurable alone: `vendor` rules know one producer's token
 * shape or keyword (written for a family of gitleaks' catalogue, or secretlint's preset);
 * `context` finds a value by the credential word of the name it is assigned or passed to;
 * `shape` finds tokens by their form (a vendor-style prefix, a long random run); `structure`
 * finds the formats credentials are written in (key blocks, JWTs, password hashes, URLs with a
 * password, connection strings, Kubernetes Secrets).
 */
export type Layer = "vendor" | "context" | "shape" | "structure";

/** Every layer, in the order the scrubber runs them. */
export const LAYERS: readonly Layer[] = ["vendor", "context", "shape", "structure"];

/**
 * A secret rule a rule pack lays over the built-in ones (a producer's new token shape): data only,
 * so a pack is configuration that crosses to worker threads and goes into the rules digest as it is.
 */
export interface PackRule {
  /** Rule id, written into the replacement (`[REDACTED:<id>]`); not a built-in rule's id. */
  id: string;
  /** A regular expression's source (JavaScript syntax, case-sensitive); every match is replaced. */
  pattern: string;
  /** Strings of which every match holds one: the rule runs only on a text holding one. */
  needles: readonly string[];
}

/** Which preset switch enables a privacy rule. */
type PolicySwitch = "redactEmails" | "redactIps" | "homePaths";

/** One of our own detection rules. */
export interface PatternRule {
  id: string;
  kind: "secret" | "privacy";
  /** Which detection layer a secret rule belongs to (see {@link Layer}); privacy rules have none. */
  layer?: Layer;
  /** Privacy rules run only when this policy switch is on. */
  policy?: PolicySwitch;
  /**
   * Cheap pre-check: the rule runs only if the text contains one of these (case-sensitive) strings. The
   * needles of all rules are looked for in one pass per text (`runPatternRules`).
   */
  needles?: readonly string[];
  /**
   * Cheap pre-check (speed only): the rule runs only if `gate.test(text)`. Must be a NECESSARY condition: every
   * match of `pattern` that `accept` would keep implies a match of `gate` (non-global, same case flags).
   */
  gate?: RegExp;
  /**
   * Cheap pre-check (speed only), shared by the credential families: every match holds a run of 16 or more
   * token characters `[A-Za-z0-9_+/=.~-]` and one of the rule's `needles` (required with it). All such rules
   * are skipped at once for a text without such a run (one test per text; most texts hold none).
   */
  tokenRun?: boolean;
  /**
   * Speed only: where a match of `pattern` can start. Every match holds `at` starting at most `before`
   * characters after its own start, so only those starts are tried (a regexp without a literal at its
   * start is otherwise tried at every position of the text). `before` may be measured at each `at`
   * found (`before(text, at)`), when what can stand before `at` is a run of a known alphabet.
   */
  anchor?: { at: string; before: number | ((text: string, at: number) => number) };
  /**
   * Global regexp with the `d` flag; `group` names the capture to replace (default: whole match), or several
   * captures of which the first one that matched is replaced.
   */
  pattern?: RegExp;
  group?: number | readonly number[];
  /** Extra check on a match. */
  accept?: (match: RegExpExecArray, text: string) => boolean;
  /** Custom matcher instead of `pattern` (linear-time scanners). */
  scan?: (text: string, out: Detection[], rule: PatternRule) => void;
  replacement?: string;
  /** Rule id to write for this match when it depends on the match (url-password vs db-connection-string). */
  ruleFor?: (match: RegExpExecArray) => string;
}
