// A kd-tree over rows copied out of regions, for the pruned neighbour search
// (./neighbors.ts): the rows reordered so that every node is a contiguous
// range, each node's exact bounding box, and its split. Median splits on the
// widest dimension down to leaves of at most `leaf` rows, so the tree is
// balanced whatever the data (duplicates only make boxes overlap, which a
// lower bound tolerates: a box need only contain its rows).
// In: float64 regions (n_i × d each). Out: the tree (plain typed arrays).

import type { Region } from './region.js';

export interface KdTree {
  readonly d: number;
  /** Nodes built; node 0 is the root. */
  readonly nodes: number;
  /** Rows in tree order, row-major. */
  readonly rows: Float64Array;
  /** Each row's global index (its region's origin plus its offset). */
  readonly index: Float64Array;
  /** Per node: its rows [start, end), its children (-1 at a leaf), the split dimension and value. */
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly dim: Int32Array;
  readonly split: Float64Array;
  /** Per node: the box, lo and hi per dimension (node × d). */
  readonly lo: Float64Array;
  readonly hi: Float64Array;
}

/** The rows of `blocks` (global index = origin + offset) in one contiguous array. */
function gather(blocks: readonly Region[], d: number): { data: Float64Array; index: Float64Array } {
  const n = blocks.reduce((a, r) => a + r.shape[0]!, 0);
  const data = new Float64Array(n * d), index = new Float64Array(n);
  let at = 0;
  for (const r of blocks) {
    const src = r.data as Float64Array, s0 = r.strides[0]!, s1 = r.strides[1]!, rows = r.shape[0]!, base = r.origin[0]!;
    for (let i = 0; i < rows; i++, at++) {
      for (let f = 0; f < d; f++) data[at * d + f] = src[i * s0 + f * s1]!;
      index[at] = base + i;
    }
  }
  return { data, index };
}

/** Swaps rows i and j of `data` (d wide) and their indices. */
function swap(data: Float64Array, index: Float64Array, d: number, i: number, j: number): void {
  for (let f = 0, a = i * d, b = j * d; f < d; f++) { const t = data[a + f]!; data[a + f] = data[b + f]!; data[b + f] = t; }
  const t = index[i]!; index[i] = index[j]!; index[j] = t;
}

/**
 * Reorders rows [lo, hi) so that row mid holds the mid-th smallest value in
 * `dim`, none before it larger, none after it smaller (Hoare's select). The
 * rows themselves move, so that every node's rows end up contiguous.
 */
function select(data: Float64Array, index: Float64Array, d: number, dim: number, lo: number, hi: number, mid: number): void {
  let l = lo, r = hi - 1;
  while (l < r) {
    const pivot = data[((l + r) >> 1) * d + dim]!;
    let i = l, j = r;
    while (i <= j) {
      while (data[i * d + dim]! < pivot) i++;
      while (data[j * d + dim]! > pivot) j--;
      if (i <= j) { swap(data, index, d, i, j); i++; j--; }
    }
    if (mid <= j) r = j;
    else if (mid >= i) l = i;
    else return;
  }
}

/** Builds the tree over every row of `blocks`, leaves of at most `leaf` rows. */
export function kdTree(blocks: readonly Region[], d: number, leaf: number): KdTree {
  const { data: rows, index } = gather(blocks, d);
  const n = index.length;
  const cap = 4 * Math.max(1, Math.ceil(n / leaf)) + 2;
  const start = new Int32Array(cap), end = new Int32Array(cap), left = new Int32Array(cap), right = new Int32Array(cap);
  const dim = new Int32Array(cap), split = new Float64Array(cap), lo = new Float64Array(cap * d), hi = new Float64Array(cap * d);
  let nodes = 0;
  const build = (s: number, e: number): number => {
    const node = nodes++;
    start[node] = s; end[node] = e; left[node] = right[node] = -1;
    const o = node * d;
    lo.fill(Infinity, o, o + d); hi.fill(-Infinity, o, o + d);
    for (let i = s; i < e; i++) {
      for (let f = 0; f < d; f++) { const v = rows[i * d + f]!; if (v < lo[o + f]!) lo[o + f] = v; if (v > hi[o + f]!) hi[o + f] = v; }
    }
    if (e - s <= leaf) return node;
    let widest = 0;
    for (let f = 1; f < d; f++) if (hi[o + f]! - lo[o + f]! > hi[o + widest]! - lo[o + widest]!) widest = f;
    const mid = (s + e) >> 1;
    select(rows, index, d, widest, s, e, mid);
    dim[node] = widest; split[node] = rows[mid * d + widest]!;
    left[node] = build(s, mid);
    right[node] = build(mid, e);
    return node;
  };
  if (n > 0) build(0, n);
  return { d, nodes, rows, index, start, end, left, right, dim, split, lo, hi };
}
