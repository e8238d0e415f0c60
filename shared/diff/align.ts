/**
 * Minimal-edit alignment of two sequences of keys (Myers' O((N+M)·D) greedy algorithm), in memory
 * bounded by the number of edits it may trace: past `maxEdits` it gives way to a windowed greedy
 * alignment in linear memory, which is not minimal but never pairs keys that differ.
 */

/** One aligned entry: indexes of `a` and `b` (both for a match, -1 on the side that lacks it). */
export type Pair = readonly [number, number];

/** How `align` may spend memory and time. */
export interface AlignOptions {
  /**
   * Most edits (insertions + deletions) traced exactly, after the common prefix and suffix are
   * set aside; the trace takes about `maxEdits²` 32-bit integers (default 2,000: 16 MB).
   */
  maxEdits?: number;
  /** How far the windowed fallback looks ahead for a key, in entries (default 1,000). */
  window?: number;
}

/** The alignment, and whether it is minimal (`exact`) or the windowed fallback's. */
interface Alignment {
  pairs: Pair[];
  exact: boolean;
}

/**
 * Aligns `a` with `b`: equal keys are paired in order so that the unpaired (removed from `a`,
 * added in `b`) are as few as possible; a reordered key appears once removed and once added.
 */
export function align(a: readonly string[], b: readonly string[], options: AlignOptions = {}): Alignment {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const pairs: Pair[] = [];
  for (let i = 0; i < head; i++) pairs.push([i, i]);
  const a1 = a.length - tail;
  const b1 = b.length - tail;
  const middle = myers(a, b, head, a1, head, b1, options.maxEdits ?? 2000);
  const exact = middle !== null;
  for (const p of middle ?? windowed(a, b, head, a1, head, b1, options.window ?? 1000)) pairs.push(p);
  for (let k = tail; k > 0; k--) pairs.push([a.length - k, b.length - k]);
  return { pairs, exact };
}

/**
 * Myers' greedy forward search over `a[a0..a1)` and `b[b0..b1)`, keeping each round's frontier to
 * walk back from the end; null when more than `maxEdits` edits are needed.
 */
function myers(
  a: readonly string[],
  b: readonly string[],
  a0: number,
  a1: number,
  b0: number,
  b1: number,
  maxEdits: number,
): Pair[] | null {
  const n = a1 - a0;
  const m = b1 - b0;
  if (n === 0 || m === 0) return edgesOnly(a0, a1, b0, b1);
  const max = Math.min(n + m, maxEdits);
  // v[k + offset]: furthest x on diagonal k; trace[d] is the frontier after d edits (2d+1 cells).
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[k - 1 + offset] as number) < (v[k + 1 + offset] as number));
      let x = down ? (v[k + 1 + offset] as number) : (v[k - 1 + offset] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[a0 + x] === b[b0 + y]) {
        x++;
        y++;
      }
      v[k + offset] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, a0, b0, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return null;
}

/** Walks the frontiers back from (n, m) to (0, 0), giving the pairs in order. */
function backtrack(trace: Int32Array[], a0: number, b0: number, n: number, m: number): Pair[] {
  const out: Pair[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    // The frontier after d-1 edits holds diagonals -(d-1)..(d-1) at indexes 0..2d-2.
    const prev = trace[d - 1] as Int32Array;
    const at = (k: number): number => prev[k + d - 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    // The snake after the edit, walked back, then the edit itself.
    const startX = down ? prevX : prevX + 1;
    const startY = down ? prevY + 1 : prevY;
    while (x > startX && y > startY) {
      x--;
      y--;
      out.push([a0 + x, b0 + y]);
    }
    out.push(down ? [-1, b0 + prevY] : [a0 + prevX, -1]);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    out.push([a0 + x, b0 + y]);
  }
  return out.reverse();
}

function edgesOnly(a0: number, a1: number, b0: number, b1: number): Pair[] {
  const out: Pair[] = [];
  for (let i = a0; i < a1; i++) out.push([i, -1]);
  for (let j = b0; j < b1; j++) out.push([-1, j]);
  return out;
}

/**
 * The linear-memory fallback: walks both sides; on a mismatch, looks up to `window` entries ahead
 * on each side for the other's key and takes the nearer resync (removing or adding what lies
 * before it), or, with neither in reach, gives the two entries as removed and added.
 */
function windowed(
  a: readonly string[],
  b: readonly string[],
  a0: number,
  a1: number,
  b0: number,
  b1: number,
  window: number,
): Pair[] {
  const out: Pair[] = [];
  let i = a0;
  let j = b0;
  while (i < a1 && j < b1) {
    if (a[i] === b[j]) {
      out.push([i++, j++]);
      continue;
    }
    const inB = find(b, a[i] as string, j + 1, Math.min(b1, j + 1 + window));
    const inA = find(a, b[j] as string, i + 1, Math.min(a1, i + 1 + window));
    if (inB >= 0 && (inA < 0 || inB - j <= inA - i)) {
      while (j < inB) out.push([-1, j++]);
    } else if (inA >= 0) {
      while (i < inA) out.push([i++, -1]);
    } else {
      out.push([i++, -1]);
      out.push([-1, j++]);
    }
  }
  while (i < a1) out.push([i++, -1]);
  while (j < b1) out.push([-1, j++]);
  return out;
}

function find(list: readonly string[], key: string, from: number, to: number): number {
  for (let k = from; k < to; k++) if (list[k] === key) return k;
  return -1;
}
