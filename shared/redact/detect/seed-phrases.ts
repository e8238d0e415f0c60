/**
 * Wallet recovery phrases (BIP-39 mnemonics): 12 to 24 words of BIP-39's English list, which
 * derive every key of a wallet. The list and the checksum are `@scure/bip39`'s.
 */
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import type { Detection, PatternRule } from "../rule-types.js";

const WORDS: ReadonlySet<string> = new Set(wordlist);

/** BIP-39 phrases have 12, 15, 18, 21 or 24 words: 128 to 256 bits of entropy and a checksum. */
const LENGTHS = [24, 21, 18, 15, 12] as const;

/** Is `phrase` (words joined by one space) of a BIP-39 length, every word on the English list? */
export function isPhraseOfListWords(phrase: string): boolean {
  const words = phrase.split(" ");
  return (
    words.length % 3 === 0 && words.length >= 12 && words.length <= 24 && words.every((w) => WORDS.has(w))
  );
}

/**
 * A run of twelve lower-case words of three to eight letters: what every phrase holds. Tried at
 * word starts only, so a text of prose costs one attempt per word rather than per letter.
 */
export const TWELVE_WORDS = /(?<![A-Za-z])(?:[a-z]{3,8} ){11}[a-z]{3,8}/;

/**
 * Appends a finding for each phrase standing alone in `text`: 12 to 24 list words in a row, one
 * space apart, whose checksum holds (a run of list words in prose passes it one time in 16 at
 * most, and prose seldom has twelve list words in a row). The longest phrase at each start wins.
 */
export function scanSeedPhrases(text: string, out: Detection[], rule: PatternRule): void {
  let run: { start: number; end: number }[] = [];
  const flush = () => {
    for (let i = 0; i + 12 <= run.length; ) {
      const length = LENGTHS.find((n) => i + n <= run.length && isPhrase(text, run, i, n));
      if (length === undefined) {
        i++;
        continue;
      }
      out.push({
        start: run[i]?.start ?? 0,
        end: run[i + length - 1]?.end ?? 0,
        rule: rule.id,
        kind: rule.kind,
      });
      i += length;
    }
    run = [];
  };
  for (const m of text.matchAll(LOWER_WORD)) {
    const start = m.index;
    const end = start + m[0].length;
    // Words of one phrase stand one space apart.
    const last = run.at(-1);
    if (last !== undefined && !(start === last.end + 1 && text[last.end] === " ")) flush();
    if (WORDS.has(m[0])) run.push({ start, end });
    else flush();
  }
  flush();
}

/** A word of three to eight lower-case letters, standing alone (no letter either side). */
const LOWER_WORD = /(?<![A-Za-z])[a-z]{3,8}(?![A-Za-z])/g;

function isPhrase(
  text: string,
  run: readonly { start: number; end: number }[],
  from: number,
  n: number,
): boolean {
  const first = run[from];
  const last = run[from + n - 1];
  return (
    first !== undefined && last !== undefined && validateMnemonic(text.slice(first.start, last.end), wordlist)
  );
}
