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
  /** Per pair of ASCII characters (`c0 << 7 | c1`): the ids of the needles starting with it. */
  byPair: readonly (readonly number[] | undefined)[];
  /** Per pair of ASCII characters: 1 when some needle starts with it (a byte read per character of a text). */
  starts: Uint8Array;
  /** Needles not in `byPair` (shorter than two characters, or not ASCII there): searched alone. */
  other: readonly number[];
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
  const byPair: (number[] | undefined)[] = new Array(128 * 128).fill(undefined);
  const other: number[] = [];
  for (const [n, id] of ids) {
    const c0 = n.charCodeAt(0);
    const c1 = n.charCodeAt(1);
    if (n.length < 2 || c0 >= 128 || c1 >= 128) {
      other.push(id);
      continue;
    }
    const pair = (c0 << 7) | c1;
    byPair[pair] = [...(byPair[pair] ?? []), id];
  }
  const starts = new Uint8Array(128 * 128);
  for (let pair = 0; pair < byPair.length; pair++) if (byPair[pair] !== undefined) starts[pair] = 1;
  index = { needles: [...ids.keys()], ofList, byPair, other, starts };
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
    const { needles, byPair, other, starts } = this.index;
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
      if ((c0 | c1) >= 128 || starts[(c0 << 7) | c1] === 0) continue;
      for (const id of byPair[(c0 << 7) | c1] as readonly number[]) {
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
