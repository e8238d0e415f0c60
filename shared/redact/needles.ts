/**
 * Literal pre-checks of detection rules ("needles"), looked for together: one pass over a text
 * says which lists of needles it holds, where a search of the whole text per rule and needle
 * cost a full scan for every absent needle (on long text, most of them).
 */

/** What `NeedleLists` reads a text with, shared by every instance made of the same lists. */
interface Index {
  /** Distinct needles. */
  needles: readonly string[];
  /** Per list (same order as given): the ids of its needles, or undefined for no list. */
  ofList: readonly (readonly number[] | undefined)[];
  /** Per slot of a pair of characters (`pairSlot`): the ids of the needles starting with a pair of it. */
  byPair: readonly (readonly number[] | undefined)[];
  /**
   * Per slot (a byte read per character of a text): 0 when no needle starts with a pair of it, 1
   * when needles of three characters or more do (see `thirds`), 2 when a needle of two does.
   */
  starts: Uint8Array;
  /**
   * Per slot of a pair and the character after it (`tripleSlot`): 1 when some needle starts with
   * such three. Most pairs that start a needle (`pa`, `se`, `he`) start words too; the third
   * character spares the needles' comparisons at most of them.
   */
  thirds: Uint8Array;
  /** Needles not in `byPair` (shorter than two characters): searched alone. */
  other: readonly number[];
}

/** Slots of pairs of ASCII characters (`c0 << 7 | c1`, one each); those of other pairs follow, hashed. */
const ASCII_PAIRS = 128 * 128;
const OTHER_PAIRS = 4096;

/**
 * The slot of the pair of UTF-16 units `c0`, `c1`: a pair of ASCII characters its own, any other
 * pair one of `OTHER_PAIRS` shared (a needle there is checked with `startsWith` like any other).
 */
function pairSlot(c0: number, c1: number): number {
  return (c0 | c1) < 128 ? (c0 << 7) | c1 : ASCII_PAIRS + (((c0 << 5) ^ c1) & (OTHER_PAIRS - 1));
}

/** Slots of `Index.thirds`. */
const TRIPLES = 1 << 16;

/** The slot of pair slot `pair` followed by the UTF-16 unit `c2` (NaN past the text's end: any slot will do). */
function tripleSlot(pair: number, c2: number): number {
  return ((pair << 4) ^ c2) & (TRIPLES - 1);
}

/** Indexes made so far, by their lists (a scrubber is made per batch of lines; its rule lists recur). */
const INDEXES = new Map<string, Index>();

function indexOf(lists: readonly (readonly string[] | undefined)[]): Index {
  const key = JSON.stringify(lists);
  let index = INDEXES.get(key);
  if (index !== undefined) return index;
  const ids = new Map<string, number>();
  const ofList = lists.map((list) =>
    list?.map((n) => {
      let id = ids.get(n);
      if (id === undefined) {
        id = ids.size;
        ids.set(n, id);
      }
      return id;
    }),
  );
  const byPair: (number[] | undefined)[] = new Array(ASCII_PAIRS + OTHER_PAIRS).fill(undefined);
  const other: number[] = [];
  const starts = new Uint8Array(ASCII_PAIRS + OTHER_PAIRS);
  const thirds = new Uint8Array(TRIPLES);
  for (const [n, id] of ids) {
    if (n.length < 2) {
      other.push(id);
      continue;
    }
    const pair = pairSlot(n.charCodeAt(0), n.charCodeAt(1));
    byPair[pair] = [...(byPair[pair] ?? []), id];
    if (n.length === 2) starts[pair] = 2;
    else {
      if (starts[pair] === 0) starts[pair] = 1;
      thirds[tripleSlot(pair, n.charCodeAt(2))] = 1;
    }
  }
  index = { needles: [...ids.keys()], ofList, byPair, other, starts, thirds };
  INDEXES.set(key, index);
  return index;
}

/**
 * Lists of needles (case-sensitive literals), indexed by their first two characters. Not
 * reentrant: what `find` found is read with `holds` before the next `find` on the same instance.
 */
export class NeedleLists {
  private readonly index: Index;
  /** Per needle: the mark of the last `find` that saw it (no array per text, none to clear). */
  private readonly seen: Uint32Array;
  private mark = 0;

  constructor(lists: readonly (readonly string[] | undefined)[]) {
    this.index = indexOf(lists);
    this.seen = new Uint32Array(this.index.needles.length);
  }

  /** Looks for every needle in `text` in one pass; returns the mark to read the result with (`holds`). */
  find(text: string): number {
    const { needles, byPair, other, starts, thirds } = this.index;
    const seen = this.seen;
    if (this.mark === 0xffffffff) {
      seen.fill(0);
      this.mark = 0;
    }
    const mark = ++this.mark;
    for (const id of other) if (text.includes(needles[id] as string)) seen[id] = mark;
    const last = text.length - 1;
    let c1 = text.charCodeAt(0);
    for (let i = 0; i < last; i++) {
      const c0 = c1;
      c1 = text.charCodeAt(i + 1);
      const pair = pairSlot(c0, c1);
      const start = starts[pair];
      if (start === 0 || (start === 1 && thirds[tripleSlot(pair, text.charCodeAt(i + 2))] === 0)) continue;
      for (const id of byPair[pair] as readonly number[]) {
        if (seen[id] !== mark && text.startsWith(needles[id] as string, i)) seen[id] = mark;
      }
    }
    return mark;
  }

  /**
   * Does the text of the latest `find` (which returned `mark`) hold a needle of list `list`? True
   * for a list given as undefined (nothing to check); false for an empty one.
   */
  holds(mark: number, list: number): boolean {
    const ids = this.index.ofList[list];
    if (ids === undefined) return true;
    for (const id of ids) if (this.seen[id] === mark) return true;
    return false;
  }

  /** Was list `list` given (does it hold needles to check)? */
  has(list: number): boolean {
    return this.index.ofList[list] !== undefined;
  }
}

/** Needles looked for in one text: the lists, and the mark their `find` returned for it. */
export interface FoundNeedles {
  lists: NeedleLists;
  mark: number;
}
