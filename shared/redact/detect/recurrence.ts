/**
 * A secret found once is a secret wherever it occurs: in the rest of the same string (`token =
 * 'S' | 'S'`), encoded (base64, base64url, percent-encoded), and in later strings of the same
 * file, where nothing around it says what it is.
 */
import { remembered } from "../../memo.js";
import { alnumAnd, inTable } from "../chars.js";
import { isSampleValue } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";

/** Fewest characters of a value looked for again in the same string. */
const MIN_IN_STRING = 6;
/** Fewest characters of a value looked for in the rest of the file (short words recur by chance). */
const MIN_IN_FILE = 8;

/** Is `value` looked for again, in its string or its file? */
function recurs(value: string): boolean {
  return !value.includes("[REDACTED") && !isSampleValue(value);
}

/**
 * Does the value at `text[start, end)` repeat a word of the name just before it
 * (`POSTGRES_PASSWORD: postgres`, `RABBITMQ_PASS=rabbitmq`)? A service's default password is its
 * own name, and that name elsewhere is the service (its image, host, user), not the password: such
 * a value is redacted where it stands and never looked for again.
 */
function echoesItsName(text: string, start: number, end: number): boolean {
  if (end - start > 16 || !/^[A-Za-z]+$/.test(text.slice(start, end))) return false;
  const before = NAME_BEFORE.exec(text.slice(Math.max(0, start - 80), start));
  if (before === null) return false;
  const value = text.slice(start, end).toLowerCase();
  return (before[1] as string).split(/[^A-Za-z]+|(?<=[a-z])(?=[A-Z])/).some((w) => w.toLowerCase() === value);
}
/**
 * The name before a value: an identifier, then `=` or `:` and blanks or a quote (group 1). Not a
 * URL's user (`//airflow:airflow@`): a user that is its password shows the password.
 */
const NAME_BEFORE = /(?<![\w/.-])([A-Za-z_][\w.-]*)["']?[ \t]*[:=][ \t]*["']?$/;

/**
 * A value of letters and digits short enough to be part of a word (`postgres16`, `admin2024`):
 * found again only as a word of its own. A longer one, or one holding a symbol, is its own
 * wherever it stands (`Tr0ub4dor&3x` in `Tr0ub4dor&3xyz` still shows it).
 */
const WORD_LIKE = /^[A-Za-z0-9]{1,15}$/;

/** Is a letter, a digit or `_` at `at` of `text` (an identifier's character)? */
function isWordChar(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * Does `text[start, end)` stand inside a longer word (`postgres16` in `postgres16db`)? A short
 * flag glued to it is no word (`-ppostgres16`).
 */
function insideWord(text: string, start: number, end: number): boolean {
  if (isWordChar(text, end)) return true;
  return isWordChar(text, start - 1) && !(text[start - 2] === "-" && !isWordChar(text, start - 3));
}
/** How many of the latest remembered values `since` can list. */
const RECENT = 256;
/** Longest text whose clean result is remembered. */
const CLEAN_TEXT = 256;
/** How many values the file-wide memory holds; past that it starts over. */
const FILE_MEMORY = 8192;

/**
 * The forms a value travels in: itself, base64, base64url, percent-encoded (remembered: a file
 * repeats its secrets, and each is looked for in every string after it).
 */
export const encodedForms: (value: string) => readonly string[] = remembered(formsOf, 256, 4096);

function formsOf(value: string): string[] {
  // ASCII (nearly every secret) is its own UTF-8: `btoa` encodes it without a buffer.
  const base64 = isAscii(value) ? btoa(value) : Buffer.from(value, "utf8").toString("base64");
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === 61) end--;
  const unpadded = base64.slice(0, end);
  const url = unpadded.includes("+") || unpadded.includes("/") ? toBase64Url(unpadded) : unpadded;
  // The same as before written without a Set: value, base64, base64url, percent-encoded, each once.
  const forms: string[] = [];
  for (const form of [value, unpadded, url, percentEncoded(value)]) {
    if (form.length >= MIN_IN_STRING && !forms.includes(form)) forms.push(form);
  }
  return forms;
}

function toBase64Url(base64: string): string {
  return base64.replaceAll("+", "-").replaceAll("/", "_");
}

/**
 * `encodeURIComponent(value)`, without the call for a value it leaves as it is (most secrets). A
 * value holding a lone surrogate (JSON allows `"\ud800"`) has no percent-encoded form: it is
 * left as it is, where `encodeURIComponent` would throw.
 */
function percentEncoded(value: string): string {
  for (let i = 0; i < value.length; i++) {
    if (!inTable(URI_UNRESERVED, value.charCodeAt(i))) {
      return value.isWellFormed() ? encodeURIComponent(value) : value;
    }
  }
  return value;
}
/** What `encodeURIComponent` leaves alone: `A-Za-z0-9-_.!~*'()`. */
const URI_UNRESERVED = alnumAnd("-_.!~*'()");

/**
 * From this length on, a text's pairs of adjacent characters are counted before its findings'
 * forms are looked for: a form holding a pair the text lacks is not in it, and the value found
 * (which stands where it was found) is not in it again unless each of its pairs stands twice.
 * (A long text dense in secrets has dozens of forms to look for, each a search of the text, and a
 * random form's pairs are rarely all there.)
 */
const PAIRS_FROM = 512;
/**
 * How often (up to 255) each pair of adjacent ASCII characters (`c0 << 7 | c1`) stands in
 * `text`, one byte a pair: 16 KiB made per long text and owned by the call that reads it (no
 * scratch shared between calls).
 */
function countPairs(text: string): Uint8Array {
  const pairs = new Uint8Array(128 * 128);
  let c1 = text.charCodeAt(0);
  for (let i = 1; i < text.length; i++) {
    const c0 = c1;
    c1 = text.charCodeAt(i);
    if (c0 < 128 && c1 < 128) {
      const pair = (c0 << 7) | c1;
      if ((pairs[pair] as number) < 255) pairs[pair] = (pairs[pair] as number) + 1;
    }
  }
  return pairs;
}

/**
 * May `form` occur `times` times in the text whose pair counts are `pairs` (does each of its
 * pairs of ASCII characters stand there that often)? Two occurrences at different places hold
 * each of the form's pairs at different places, so twice.
 */
function mayOccur(form: string, pairs: Uint8Array, times: number): boolean {
  for (let i = 1; i < form.length; i++) {
    const c0 = form.charCodeAt(i - 1);
    const c1 = form.charCodeAt(i);
    if (c0 < 128 && c1 < 128 && (pairs[(c0 << 7) | c1] as number) < times) return false;
  }
  return true;
}

/**
 * Findings for every other occurrence, in `text`, of the values the secret `findings` cover, in
 * any of their forms (see `encodedForms`); empty when there is none.
 */
export function recurrences(text: string, findings: readonly Detection[]): Detection[] {
  const out: Detection[] = [];
  const seen = new Set<string>();
  let pairs: Uint8Array | undefined;
  for (const f of findings) {
    if (f.kind !== "secret" || f.end - f.start < MIN_IN_STRING || echoesItsName(text, f.start, f.end))
      continue;
    const value = text.slice(f.start, f.end);
    if (seen.has(value) || !recurs(value)) continue;
    seen.add(value);
    // No room for another occurrence, in any form (base64 is the longest: 4/3 of the bytes).
    if (text.length - value.length < MIN_IN_STRING) continue;
    for (const form of encodedForms(value)) {
      if (text.length >= PAIRS_FROM) {
        pairs ??= countPairs(text);
        // The value itself stands at `f.start`: another occurrence makes two.
        if (!mayOccur(form, pairs, form === value ? 2 : 1)) continue;
      }
      const word = WORD_LIKE.test(form);
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
        if (at === f.start && form === value) continue;
        if (word && insideWord(text, at, at + form.length)) continue;
        out.push({ start: at, end: at + form.length, rule: f.rule, kind: "secret" });
      }
    }
  }
  return out;
}

/** Characters that never stand inside a remembered value's chunk (see `KnownSecrets.findIn`). */
const CHUNK_BREAKS = "\"'`<>()[]{},;&=:|\\";
/** 1 at the ASCII characters that break chunks: blanks and controls (32 and below), `CHUNK_BREAKS`. */
const IS_CHUNK_BREAK = new Uint8Array(128).map((_, c) =>
  c <= 32 || CHUNK_BREAKS.includes(String.fromCharCode(c)) ? 1 : 0,
);

/** Does char code `c` break a chunk? (A table: most characters are none, and a chain of tests read them all.) */
function isChunkBreak(c: number): boolean {
  return c < 128 && IS_CHUNK_BREAK[c] === 1;
}

/** A secret one part of a file revealed, and the rule that found it (see `KnownSecrets.takeLearned`). */
export interface LearnedSecret {
  value: string;
  rule: string;
}

const NONE_LEARNED: readonly LearnedSecret[] = Object.freeze([]);

/**
 * The secrets found so far in one file, by value and encoded form, with the rule that found
 * each: a later string holding one as a chunk of its own (between blanks, quotes, brackets or
 * `,;&=:|`) has it redacted under that rule. One lookup per chunk, so a string costs the same
 * however many secrets the file holds.
 */
export class KnownSecrets {
  private readonly rules = new Map<string, string>();
  /**
   * A sketch of `rules`' keys (see `sketchOf`): 1 where some key's length and end characters
   * fall. A chunk whose sketch is 0 is no key, told without cutting it out of its text.
   */
  private readonly sketch = new Uint8Array(SKETCH_SIZE);
  /** The slots of `sketch` set since it was last cleared (cleared one by one by `forget`). */
  private readonly slots: number[] = [];
  /**
   * Forms holding a chunk break (`Tr0ub4dor&3`, `p:ss;w0rd`), by their anchor: their longest run
   * without one, the chunk a later string holding the form as a token of its own holds too.
   */
  private readonly anchors = new Map<string, Anchored[]>();
  /** The values holding a chunk break remembered (their forms are in `anchors`). */
  private readonly anchored = new Set<string>();
  /** How many values were remembered so far: a text found clean stays clean until it grows. */
  private added = 0;
  /** Short texts found holding none, with `added` then (names and statuses recur on every line). */
  private readonly clean = new Map<string, number>();
  private shortest = Number.POSITIVE_INFINITY;
  private longest = 0;
  /** The values remembered lately (the last `RECENT` or more), in order, with their rules (see `since`). */
  private readonly recent: LearnedSecret[] = [];
  /** The values remembered since the last `takeLearned` (the latest `FILE_MEMORY` or more), in order. */
  private learned: LearnedSecret[] = [];

  get size(): number {
    return this.rules.size + this.anchors.size;
  }

  /** How many values were remembered so far: an epoch to compare with `since`. */
  get epoch(): number {
    return this.added;
  }

  /** The values remembered after `epoch` (the last `RECENT` at most), with their rules. */
  since(epoch: number): readonly LearnedSecret[] {
    const n = Math.min(this.added - epoch, this.recent.length, RECENT);
    return n <= 0 ? [] : this.recent.slice(this.recent.length - n);
  }

  /** Remembers what `other` remembered (a second pass over a document starts knowing them). */
  learn(other: KnownSecrets): void {
    for (const { value, rule } of other.recent.slice(-RECENT)) {
      this.remember(value, [{ start: 0, end: value.length, rule, kind: "secret" }]);
    }
  }

  /** Remembers the secret findings of `text` that are long enough to recur by intent; `learned`: listed for `takeLearned` too. */
  remember(text: string, findings: readonly Detection[], learned = true): void {
    for (const f of findings) {
      if (f.kind !== "secret" || f.end - f.start < MIN_IN_FILE || echoesItsName(text, f.start, f.end))
        continue;
      const slice = text.slice(f.start, f.end);
      const broken = hasChunkBreak(slice);
      if ((broken ? this.anchored.has(slice) : this.rules.has(slice)) || !recurs(slice)) continue;
      // A copy: a slice of a long string keeps the whole string alive while it is remembered.
      const value = detached(slice);
      if (this.rules.size + this.anchors.size >= FILE_MEMORY) this.forget();
      for (const form of encodedForms(value)) {
        if (hasChunkBreak(form)) this.anchor(form, f.rule);
        else {
          this.rules.set(form, f.rule);
          this.mark(form, 0, form.length);
        }
      }
      if (broken) this.anchored.add(value);
      this.added++;
      // Up to twice `RECENT` kept, the oldest half dropped at once: a shift per value moved them all.
      if (this.recent.length >= 2 * RECENT) this.recent.splice(0, RECENT);
      this.recent.push({ value, rule: f.rule });
      if (!learned) continue;
      if (this.learned.length >= 2 * FILE_MEMORY) this.learned.splice(0, FILE_MEMORY);
      this.learned.push({ value, rule: f.rule });
    }
  }

  /**
   * Forgets every value (not what `takeLearned` will list): a line redacted on its own knows only
   * what it revealed itself, and what earlier lines revealed is redacted where the lines are
   * written in file order (`findInWritten`).
   */
  forget(): void {
    if (this.rules.size === 0 && this.anchors.size === 0) return;
    this.rules.clear();
    this.anchors.clear();
    this.anchored.clear();
    for (const slot of this.slots) this.sketch[slot] = 0;
    this.slots.length = 0;
    this.shortest = Number.POSITIVE_INFINITY;
    this.longest = 0;
  }

  /**
   * The values remembered since the last call, in order (the latest `FILE_MEMORY` at least): what
   * a line, redacted on its own on any thread, tells the lines after it.
   */
  takeLearned(): readonly LearnedSecret[] {
    if (this.learned.length === 0) return NONE_LEARNED;
    const out = this.learned;
    this.learned = [];
    return out;
  }

  /** Remembers `secrets` (revealed by earlier lines of the same file, in file order). */
  rememberAll(secrets: readonly LearnedSecret[]): void {
    for (const { value, rule } of secrets) {
      // Told, not learned here: not listed again by `takeLearned`.
      this.remember(value, [{ start: 0, end: value.length, rule, kind: "secret" }], false);
    }
  }

  /**
   * May the UTF-8 bytes of written JSON hold a remembered value or anchor as a chunk of a string
   * (`findInWritten` finding one)? Answered on the bytes, with no string made: false when no chunk
   * of printable ASCII falls in the sketch and none holds other bytes.
   */
  mayHoldWritten(bytes: Uint8Array): boolean {
    const n = bytes.length;
    if (this.size === 0 || n < this.shortest) return false;
    let inString = false;
    let start = -1;
    let wide = false;
    for (let i = 0; i < n; ) {
      const c = bytes[i] as number;
      if (!inString) {
        if (c === 34) {
          inString = true;
          start = i + 1;
          wide = false;
        }
        i++;
        continue;
      }
      if (c === 34 || c === 92 || (c < 128 && IS_CHUNK_BREAK[c] === 1)) {
        const length = i - start;
        if (
          length >= this.shortest &&
          (wide || (length <= this.longest && this.sketch[sketchOfBytes(bytes, start, i)] === 1))
        )
          return true;
        if (c === 34) inString = false;
        i += c !== 92 ? 1 : bytes[i + 1] === 117 ? 6 : 2;
        start = i;
        wide = false;
        continue;
      }
      if (c >= 128) wide = true;
      i++;
    }
    return false;
  }

  /**
   * Findings for the remembered secrets that written JSON `json` holds as chunks of its strings
   * (member names and values; never numbers or literals), where a chunk is read as `findIn` reads
   * it in the decoded string: an escape (`\n`, `\"`, `\u0001`) decodes to a character that
   * breaks chunks, and stands for one here.
   */
  findInWritten(json: string): Detection[] {
    const out: Detection[] = [];
    const n = json.length;
    if (this.rules.size === 0 || n < this.shortest) return out;
    let i = 0;
    let inString = false;
    let start = -1;
    while (i < n) {
      const c = json.charCodeAt(i);
      if (!inString) {
        if (c === 34) {
          inString = true;
          start = i + 1;
        }
        i++;
        continue;
      }
      // The end of a chunk: a closing quote, an escape or a breaking character.
      if (c === 34 || c === 92 || isChunkBreak(c)) {
        this.chunkAt(json, start, i, out, true);
        if (c === 34) inString = false;
        // An escape is `\` and one character, or `\u` and four hex digits.
        i += c !== 92 ? 1 : json.charCodeAt(i + 1) === 117 ? 6 : 2;
        start = i;
        continue;
      }
      i++;
    }
    return out;
  }

  /**
   * Pushes a finding for `text[start, end)` when it is a remembered value or form, or the anchor
   * of a form holding a chunk break that stands around it as a token of its own (as JSON writes it
   * when `written`).
   */
  private chunkAt(text: string, start: number, end: number, out: Detection[], written: boolean): void {
    const length = end - start;
    if (length < this.shortest || length > this.longest || this.sketch[sketchOf(text, start, end)] === 0)
      return;
    const chunk = text.slice(start, end);
    const rule = this.rules.get(chunk);
    if (rule !== undefined) {
      pushMerged(out, start, end, rule);
      return;
    }
    for (const a of this.anchors.get(chunk) ?? []) {
      const form = written ? a.written : a.form;
      const from = start - (written ? a.writtenAt : a.formAt);
      const to = from + form.length;
      if (
        from >= 0 &&
        text.startsWith(form, from) &&
        breaksBefore(text, from, written) &&
        breaksAfter(text, to)
      ) {
        pushMerged(out, from, to, a.rule);
        return;
      }
    }
  }

  /** Remembers `form`, which holds a chunk break, by its anchor (none when its runs are short). */
  private anchor(form: string, rule: string): void {
    let best = 0;
    let bestLength = 0;
    for (let i = 0; i < form.length; ) {
      while (i < form.length && isChunkBreak(form.charCodeAt(i))) i++;
      const start = i;
      while (i < form.length && !isChunkBreak(form.charCodeAt(i))) i++;
      if (i - start > bestLength) {
        best = start;
        bestLength = i - start;
      }
    }
    if (bestLength < MIN_ANCHOR) return;
    const anchor = form.slice(best, best + bestLength);
    const written = JSON.stringify(form).slice(1, -1);
    const writtenAt = JSON.stringify(form.slice(0, best)).length - 2;
    const list = this.anchors.get(anchor);
    const entry = { form, formAt: best, written, writtenAt, rule };
    if (list === undefined) this.anchors.set(anchor, [entry]);
    else list.push(entry);
    this.mark(anchor, 0, anchor.length);
  }

  /** Marks a key of `rules` or `anchors` in the sketch and the length bounds. */
  private mark(key: string, start: number, end: number): void {
    const slot = sketchOf(key, start, end);
    if (this.sketch[slot] === 0) {
      this.sketch[slot] = 1;
      this.slots.push(slot);
    }
    this.shortest = Math.min(this.shortest, end - start);
    this.longest = Math.max(this.longest, end - start);
  }

  /** Findings for the remembered secrets `text` holds as chunks. */
  findIn(text: string): Detection[] {
    const out: Detection[] = [];
    const n = text.length;
    if (n < this.shortest || this.clean.get(text) === this.added) return out;
    let i = 0;
    while (i < n) {
      while (i < n && isChunkBreak(text.charCodeAt(i))) i++;
      const start = i;
      while (i < n && !isChunkBreak(text.charCodeAt(i))) i++;
      this.chunkAt(text, start, i, out, false);
    }
    if (out.length === 0 && n <= CLEAN_TEXT) {
      if (this.clean.size >= FILE_MEMORY) this.clean.clear();
      this.clean.set(text, this.added);
    }
    return out;
  }
}

/** A remembered form holding a chunk break, found by its anchor (see `KnownSecrets.anchors`). */
interface Anchored {
  form: string;
  /** Where the anchor starts in `form`. */
  formAt: number;
  /** `form` as a JSON string writes it (without its quotes), and where the anchor starts there. */
  written: string;
  writtenAt: number;
  rule: string;
}

/** Fewest characters of an anchor (a shorter run without a break is found everywhere). */
const MIN_ANCHOR = 4;

/** Pushes a finding, merged with those it overlaps (a form found by its anchor spans chunks found before). */
function pushMerged(out: Detection[], start: number, end: number, rule: string): void {
  let from = start;
  let to = end;
  for (let last = out.at(-1); last !== undefined && last.end > from; last = out.at(-1)) {
    from = Math.min(from, last.start);
    to = Math.max(to, last.end);
    out.pop();
  }
  out.push({ start: from, end: to, rule, kind: "secret" });
}

/**
 * Does a token end right before `at` in `text`: its start, a chunk break, or (in written JSON) an
 * escape (`\n`, `\u0001`), which decodes to one?
 */
function breaksBefore(text: string, at: number, written: boolean): boolean {
  if (at === 0 || isChunkBreak(text.charCodeAt(at - 1))) return true;
  return written && (escapeAt(text, at - 2) || (text.charCodeAt(at - 5) === 117 && escapeAt(text, at - 6)));
}

/** Does an escape start at `at` in written JSON (a backslash not itself escaped: an odd run of them)? */
function escapeAt(text: string, at: number): boolean {
  let n = 0;
  for (let i = at; i >= 0 && text.charCodeAt(i) === 92; i--) n++;
  return n % 2 === 1;
}

/** Does a token end at `at` in `text` (its end, or a chunk break; in JSON an escape's backslash is one)? */
function breaksAfter(text: string, at: number): boolean {
  return at === text.length || isChunkBreak(text.charCodeAt(at));
}

/** Slots of `KnownSecrets`' sketch (64 KiB). */
const SKETCH_SIZE = 1 << 16;

/** `sketchOf` of ASCII bytes `bytes[start, end)` (the same slot as of the string they spell). */
function sketchOfBytes(bytes: Uint8Array, start: number, end: number): number {
  const h =
    Math.imul(end - start, 0x9e3779b1) ^
    Math.imul(bytes[start] as number, 0x85ebca6b) ^
    Math.imul(bytes[start + 1] as number, 0xc2b2ae35) ^
    Math.imul(bytes[end - 1] as number, 0x27d4eb2f);
  return (h ^ (h >>> 16)) & (SKETCH_SIZE - 1);
}

/** The sketch slot of `text[start, end)` (2+ characters): its length and first, second and last characters. */
function sketchOf(text: string, start: number, end: number): number {
  const h =
    Math.imul(end - start, 0x9e3779b1) ^
    Math.imul(text.charCodeAt(start), 0x85ebca6b) ^
    Math.imul(text.charCodeAt(start + 1), 0xc2b2ae35) ^
    Math.imul(text.charCodeAt(end - 1), 0x27d4eb2f);
  return (h ^ (h >>> 16)) & (SKETCH_SIZE - 1);
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

/**
 * `s` as a string of its own, holding no reference to a longer string it was cut from: the
 * concatenation is flattened into a new string of `s`'s length + 1 before the slice.
 */
function detached(s: string): string {
  return ` ${s}`.slice(1);
}

function hasChunkBreak(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isChunkBreak(s.charCodeAt(i))) return true;
  return false;
}
