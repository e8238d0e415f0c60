/**
 * Is a run of token characters generated (a key, a token, a password hash) or written (an
 * identifier, a word, a path, a version)? Measured on the run's letters and digits: a generated
 * body switches from lower to upper case, or between letters and digits, at 0.40-0.47 of its
 * adjacent pairs (base62 0.45, base36 0.40, hex 0.47), a written one once per word (camelCase,
 * `Key128Bit`, `v8`, `x86_64`: under 0.2), and carries more bits per character.
 */

/** Character classes of a body: lower, upper, digit. */
const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const OTHER = 3;

/** Per ASCII char code: its class (a load per character, where comparisons read up to six). */
const CLASS = new Uint8Array(128).map((_, c) =>
  c >= 97 && c <= 122 ? LOWER : c >= 65 && c <= 90 ? UPPER : c >= 48 && c <= 57 ? DIGIT : OTHER,
);

function classOf(c: number): number {
  return c < 128 ? (CLASS[c] as number) : OTHER;
}

/** What {@link bodyCounts} counts over the letters and digits of a range. */
interface BodyCounts {
  /** Letters and digits. */
  length: number;
  lower: number;
  upper: number;
  digits: number;
  /**
   * Adjacent letter/digit pairs (separators skipped) that switch class: lower to upper, a letter
   * to a digit, a digit to a letter. Upper to lower is a capitalized word going on (`Name`).
   */
  switches: number;
  /** All letters are hex digits (`a-f` or `A-F`). */
  hexOnly: boolean;
}

/** Counts the letters and digits of `text[from, to)` in one pass (the entropy is `bodyEntropy`'s). */
function bodyCounts(text: string, from: number, to: number): BodyCounts {
  let length = 0;
  let lower = 0;
  let upper = 0;
  let digits = 0;
  let switches = 0;
  let hexOnly = true;
  let last = OTHER;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    const k = classOf(c);
    if (k === OTHER) continue;
    length++;
    if (k === LOWER) {
      lower++;
      if (c > 102) hexOnly = false;
    } else if (k === UPPER) {
      upper++;
      if (c > 70) hexOnly = false;
    } else digits++;
    if (last !== OTHER && last !== k && !(last === UPPER && k === LOWER)) switches++;
    last = k;
  }
  // Mixed-case hex (`aB3f`) is not a hex digest.
  if (lower > 0 && upper > 0) hexOnly = false;
  return { length, lower, upper, digits, switches, hexOnly };
}

/** Shannon entropy of the `length` letters and digits of `text[from, to)`, in bits per character. */
function bodyEntropy(text: string, from: number, to: number, length: number): number {
  // Per call, owned by it, one slot per char code from `0` to `z` (a plain array: a typed one
  // of this size is allocated outside the heap, which costs more than the counting).
  const seen: number[] = new Array(123 - 48).fill(0);
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (classOf(c) !== OTHER) seen[c - 48] = (seen[c - 48] as number) + 1;
  }
  let entropy = 0;
  // In character order, as always: the sum's rounding must not depend on the text's order.
  for (let c = 0; c < 123 - 48; c++) {
    const n = seen[c] as number;
    if (n === 0) continue;
    const p = n / length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/**
 * Does `text[from, to)` read as generated? `minLength` is the fewest letters and digits a
 * generated run may have (hex needs twice as many: a digest or an id of 16 hex is common text).
 * Digits alone, or letters of one case alone, never are (numbers, words, constants). The counts
 * decide first; the entropy (a second pass) is measured only for a body they let through.
 */
export function looksGenerated(text: string, from: number, to: number, minLength: number): boolean {
  const s = bodyCounts(text, from, to);
  // At least one switch of class per ten letters and digits: every body accepted below has 0.22 or more.
  if (s.length < minLength || s.switches * 10 < s.length) return false;
  const letters = s.lower + s.upper;
  if (letters === 0) return false;
  if (s.digits === 0 && (s.lower === 0 || s.upper === 0)) return false;
  const rate = s.switches / (s.length - 1);
  if (s.hexOnly && s.digits > 0) {
    // Hex: random digits and letters alternate; `deadbeefcafe0001` does not, a digest does.
    // In text 32 (a 16-hex span id or short digest is common there); in a name, 16.
    return (
      s.length >= (minLength < 16 ? 16 : 32) && rate >= 0.2 && bodyEntropy(text, from, to, s.length) >= 3
    );
  }
  if (s.digits === 0) {
    // Mixed-case letters only (`suSJRQaQmROBlY`): more switches than camelCase words.
    return s.length >= minLength + 4 && rate >= 0.24 && bodyEntropy(text, from, to, s.length) >= 3.5;
  }
  if (rate >= 0.22) return (s.digits >= 2 || rate >= 0.3) && bodyEntropy(text, from, to, s.length) >= 3;
  // Fewer switches by chance (one random base36 body of 20 in ten has under 0.22): generated
  // still where its letters are not words (`kq3zx8mwp2ab4fhj`; `getPeerX509Certificate` is).
  return (
    rate >= 0.12 &&
    s.digits >= 2 &&
    letters >= 4 &&
    wordLetterShare(text, from, to) < 0.5 &&
    bodyEntropy(text, from, to, s.length) >= 3
  );
}

/** Is `c` a vowel (`y` included), in either case? */
function isVowel(c: number): boolean {
  const l = c | 32;
  return l === 97 || l === 101 || l === 105 || l === 111 || l === 117 || l === 121;
}

/**
 * The share of the letters of `text[from, to)` that stand in words: segments (split at a
 * non-letter and where camelCase starts a word) of 3 or more letters holding a vowel and no 5
 * consonants in a row (`Peer`, `Instruct`, `SETTINGS`; `VEv` is `V` and `Ev`).
 */
function wordLetterShare(text: string, from: number, to: number): number {
  let letters = 0;
  let inWords = 0;
  let segment = 0;
  let vowels = 0;
  let consonantRun = 0;
  let longCluster = false;
  const close = () => {
    if (segment >= 3 && vowels > 0 && !longCluster) inWords += segment;
    segment = 0;
    vowels = 0;
    consonantRun = 0;
    longCluster = false;
  };
  for (let i = from; i < to; i++) {
    const k = classOf(text.charCodeAt(i));
    if (k !== LOWER && k !== UPPER) {
      close();
      continue;
    }
    // camelCase and `HTTPServer`: a word starts at an upper-case letter after a lower-case one,
    // and at one that begins a lower-case run after upper-case ones.
    if (
      k === UPPER &&
      segment > 0 &&
      (classOf(text.charCodeAt(i - 1)) === LOWER || (i + 1 < to && classOf(text.charCodeAt(i + 1)) === LOWER))
    )
      close();
    letters++;
    segment++;
    if (isVowel(text.charCodeAt(i))) {
      vowels++;
      consonantRun = 0;
    } else if (++consonantRun >= 5) longCluster = true;
  }
  close();
  return letters === 0 ? 1 : inWords / letters;
}

/**
 * The alphabet or the digits in order (`abcdefghij`, `0123456789`): a character set or an
 * example, never a generated value, whatever its statistics.
 */
export const ORDERED_RUN = /abcdefghij|ABCDEFGHIJ|0123456789/;

/** Fewest characters of a typed run ({@link isTypedRun}). */
const TYPED_RUN_MIN = 8;

/**
 * Is `s` one run typed by counting or by holding a key: every character the one before it plus
 * one in its class (digits wrapping from 9 to 0: `1234567890`, `34567890`; letters in either case:
 * `abcdefgh`, `KLMNOPQR`) or the same (`00000000`), over 8 characters or more? A generated body
 * of 8 base62 characters is one about twice in 10^11 (each next character has 2 chances in 62).
 */
export function isTypedRun(s: string): boolean {
  if (s.length < TYPED_RUN_MIN) return false;
  const step = runStep(s.charCodeAt(0), s.charCodeAt(1));
  if (step === undefined) return false;
  for (let i = 2; i < s.length; i++) {
    if (runStep(s.charCodeAt(i - 1), s.charCodeAt(i)) !== step) return false;
  }
  return true;
}

/**
 * Does `text[from, to)` hold 8 or more characters counting on by one in their class
 * (`fghijklm`, `3456789`+`0`)? Typed by hand (`sk-ant-…-1234fghijklmnopAA`): in a generated
 * body such a run is one in about 10^12 places.
 */
export function holdsCountedRun(text: string, from: number, to: number): boolean {
  let run = 1;
  for (let i = from + 1; i < to; i++) {
    if (runStep(text.charCodeAt(i - 1), text.charCodeAt(i)) === 1) {
      if (++run >= TYPED_RUN_MIN) return true;
    } else run = 1;
  }
  return false;
}

/** `0` when `b` repeats `a`, `1` when it counts on from it (`9` to `0` wraps), else undefined. */
function runStep(a: number, b: number): 0 | 1 | undefined {
  const digit = (c: number) => c >= 48 && c <= 57;
  const lower = (c: number) => c >= 97 && c <= 122;
  const upper = (c: number) => c >= 65 && c <= 90;
  if (!(digit(a) || lower(a) || upper(a))) return undefined;
  if (a === b) return 0;
  if (digit(a) && digit(b)) return b === a + 1 || (a === 57 && b === 48) ? 1 : undefined;
  if ((lower(a) && lower(b)) || (upper(a) && upper(b))) return b === a + 1 ? 1 : undefined;
  return undefined;
}

/** A UUID (8-4-4-4-12 hex): generated, and an id wherever it stands alone. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Characters that masking tools and documentation print where a secret was (`####`, `****`, `••••`). */
const MASK_CHARS = new Set(["#", "*", "•", "●", "?"]);
/** Shortest mask: eight in a row, where a password holds one or two such symbols. */
const MASK_MIN = 8;

/** A mask of {@link MASK_MIN} or more (its characters are {@link MASK_CHARS}). */
const MASK_RUN = /([#*•●?])\1{7}/;

/** Is `c` a mask character? */
export function isMaskChar(c: string | undefined): boolean {
  return c !== undefined && MASK_CHARS.has(c);
}

/**
 * Is the value `s` masked: a run of one mask character of 8 or more stands where the secret
 * was, and nothing beside the masks looks generated (`xoxp-5723…-5738…-####################`:
 * the ids of a Slack token, its secret masked)? A real token next to a mask
 * (`sk_live_<random>********`) keeps its generated part and stays a credential. Letters and
 * digits are no mask here, however often repeated: test keys are written so
 * (`AGE-SECRET-KEY-1QQQQ…`, `xoxa-2-511111111-…`), and a placeholder of them is judged by
 * `isPlaceholderToken`'s fillers.
 */
export function isMasked(s: string): boolean {
  // Most findings hold no mask: one native scan says so.
  if (!MASK_RUN.test(s)) return false;
  let masked = false;
  let part = 0;
  for (let i = 0; i <= s.length; ) {
    if (i < s.length && !isMaskChar(s[i])) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < s.length && s[end] === s[i]) end++;
    if (i === s.length || end - i >= MASK_MIN) {
      if (i - part >= 16 && looksGenerated(s, part, i, 16)) return false;
      if (i < s.length) masked = true;
      part = end;
    }
    i = end;
  }
  return masked;
}
