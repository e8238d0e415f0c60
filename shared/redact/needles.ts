/**
 * Literal pre-checks of detection rules ("needles"), looked for together: one pass over a text
 * says which lists of needles it holds, where a search of the whole text per rule and needle
 * cost a full scan for every absent needle (on long text, most of them).
 */

/** Lists of needles (case-sensitive literals), indexed by their first two characters. */
export class NeedleLists {
  /** Distinct needles. */
  private readonly needles: readonly string[];
  /** Per list (same order as given): the ids of its needles, or undefined for no list. */
  private readonly ofList: readonly (readonly number[] | undefined)[];
  /** Per pair of ASCII characters (`c0 << 7 | c1`): the ids of the needles starting with it. */
  private readonly byPair: readonly (readonly number[] | undefined)[];
  /** Needles not in `byPair` (shorter than two characters, or not ASCII there): searched alone. */
  private readonly other: readonly number[];

  constructor(lists: readonly (readonly string[] | undefined)[]) {
    const ids = new Map<string, number>();
    this.ofList = lists.map((list) =>
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
    this.needles = [...ids.keys()];
    this.byPair = byPair;
    this.other = other;
  }

  /** Which needles `text` holds (1 at a needle's id), found in one pass; read it with `holds`. */
  find(text: string): Uint8Array {
    const { needles, byPair, other } = this;
    const found = new Uint8Array(needles.length);
    for (const id of other) if (text.includes(needles[id] as string)) found[id] = 1;
    const last = text.length - 1;
    let c1 = text.charCodeAt(0);
    for (let i = 0; i < last; i++) {
      const c0 = c1;
      c1 = text.charCodeAt(i + 1);
      if (c0 >= 128 || c1 >= 128) continue;
      const candidates = byPair[(c0 << 7) | c1];
      if (candidates === undefined) continue;
      for (const id of candidates) {
        if (found[id] === 0 && text.startsWith(needles[id] as string, i)) found[id] = 1;
      }
    }
    return found;
  }

  /**
   * Does the text `found` was made of (`find`) hold a needle of list `list`? True for a list
   * given as undefined (nothing to check); false for an empty one (as `some` of none says).
   */
  holds(found: Uint8Array, list: number): boolean {
    const ids = this.ofList[list];
    if (ids === undefined) return true;
    for (const id of ids) if (found[id] === 1) return true;
    return false;
  }

  /** Does list `list` hold needles (was it given)? */
  has(list: number): boolean {
    return this.ofList[list] !== undefined;
  }
}
