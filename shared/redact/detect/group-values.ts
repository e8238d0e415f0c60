/** Reading a rule's captured value, quoted or bare, out of its matches. */

/** Where a captured value stands, its quotes left out, and whether it had them. */
export interface GroupValue {
  start: number;
  end: number;
  quoted: boolean;
}

/**
 * Each match of `re` (global or sticky, with `d`) in `text`: its group 1, without the quote it
 * opens with (one of `quotes`) and the one that closes it.
 */
export function* groupValues(re: RegExp, text: string, quotes: RegExp): Generator<GroupValue> {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const range = m.indices?.[1];
    if (range === undefined) continue;
    const [s, e] = range;
    const quoted = quotes.test(text[s] ?? "");
    yield quoted ? { start: s + 1, end: e - 1, quoted } : { start: s, end: e, quoted };
  }
}
