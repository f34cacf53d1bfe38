// A merge's stable sort by a small group number (./merge.ts), by counting,
// not comparing: the chunked comparison sort costs a radix sort per chunk
// and a merge per output chunk, where group numbers in [0, G) need only
// counts. It follows the shuffle of a groupby (./aggregate.ts): each chunk's
// rows counted per partition of the groups (runtime/group.ts `gcount`, the
// only numbers the host reads: P + 1 per chunk) and stably reordered by
// partition (`gbucket`), the group numbers and each value column alike; then
// each output chunk orders, by a count per group (runtime/join.ts `jorder`),
// the rows of the partitions its positions span, read from every chunk's
// box of them in chunk order, which keeps each group's rows in their order.
// In: int32 group numbers and value columns of their length and chunking.
// Out: the value columns reordered; nothing is gathered in one place.

import * as mt from '../api/tensor.js';
import { Tensor, onValues } from '../api/core.js';
import * as G from '../graph/node.js';

/** Partitions the rows move into: one per chunk, up to this many (a groupby's shuffle takes as many). */
const MAX_PARTITIONS = 64;

/** Each partition's rows in each chunk: where the box starts and how many rows it holds. */
interface Boxes { readonly from: number[][]; readonly count: number[][]; readonly start: number[] }

/** The boxes of counts `cv` ([k, P + 1], row-major) over chunks of `c` rows. */
function boxesOf(cv: readonly number[], k: number, P: number, c: number): Boxes {
  const from: number[][] = [], count: number[][] = [], start: number[] = [0];
  for (let p = 0; p < P; p++) {
    from.push([]); count.push([]);
    let total = 0;
    for (let j = 0; j < k; j++) {
      let at = j * c;
      for (let q = 0; q < p; q++) at += cv[j * (P + 1) + q]!;
      from[p]!.push(at);
      count[p]!.push(cv[j * (P + 1) + p]!);
      total += cv[j * (P + 1) + p]!;
    }
    start.push(start[p]! + total);
  }
  return { from, count, start };
}

/** Columns ordered by group numbers: see `grouping`. */
export interface Grouping {
  /** Column `x` (of the group numbers' length and chunking): its rows in some group, stably by group. */
  order(x: mt.Tensor): mt.Tensor;
  /** Its tensors (the group numbers, their counts per chunk and partition, bucketed), to pass through a stage. */
  readonly parts: readonly mt.Tensor[];
  /** The same grouping over `parts` as a later stage has them (computed). */
  over(parts: readonly mt.Tensor[]): Grouping;
}

/**
 * The stable order of the rows by group numbers `gid` (int32 in [0, size),
 * negative: the row is dropped), to apply to any column of gid's length:
 * compress(gid >= 0, x) after argsort(gid, kind='stable'), for an arange the
 * permutation itself. The counts and the bucketed group numbers are made
 * once for every column ordered.
 */
export function grouping(gid: mt.Tensor, size: number): Grouping {
  const n = gid.shape[0]!, c = Math.max(1, gid.node.chunk[0]!), k = Math.ceil(n / c);
  if (n === 0) {
    const order = (x: mt.Tensor): mt.Tensor => mt.compress(mt.greater_equal(gid, 0), x);
    return { order, parts: [gid], over: ([g]) => grouping(g!, size) };
  }
  const P = Math.min(MAX_PARTITIONS, k), Gp = Math.ceil(Math.max(1, size) / P);
  const rowsOf = (j: number): number => Math.min(n, (j + 1) * c) - j * c;
  const box = (j: number): [number, number] => [j * c, j * c + rowsOf(j)];
  const chunkCalls = (routine: string, inputs: number): G.RoutineCall[] => Array.from({ length: k }, (_, j) => ({
    routine, params: { P, Gp }, chunk: j,
    reads: Array.from({ length: inputs }, (_, i) => ({ input: i, box: [box(j)] })),
  }));
  const bucketOf = (gid: mt.Tensor) => (x: mt.Tensor): mt.Tensor =>
    new Tensor(G.routine('merge.bucket', [gid.node, x.node], chunkCalls('gbucket', 2), x.dtype, [n], [c]));
  const calls = chunkCalls('gcount', 1);
  const counts = new Tensor(G.routine('merge.count', [gid.node], calls, 'int64', [k, P + 1], [1, P + 1]));
  return ordering(gid, counts, bucketOf(gid)(gid), { n, c, k, P, Gp }, bucketOf);
}

/** The shape of a grouping's shuffle: rows, rows per chunk, chunks, partitions, groups per partition. */
interface Layout { readonly n: number; readonly c: number; readonly k: number; readonly P: number; readonly Gp: number }

/** The Grouping of group numbers `gid`, with their `counts` per chunk and partition and `gb` bucketed. */
function ordering(
  gid: mt.Tensor, counts: mt.Tensor, gb: mt.Tensor, { c, k, P, Gp }: Layout,
  bucketOf: (gid: mt.Tensor) => (x: mt.Tensor) => mt.Tensor,
): Grouping {
  const layout = { n: gid.shape[0]!, c, k, P, Gp };
  const bucket = bucketOf(gid);
  const order = (x: mt.Tensor): mt.Tensor => onValues('merge', counts, [gb, bucket(x)], x.dtype, [NaN], (cv, ts) => {
    const [g, v] = ts;
    const b = boxesOf(cv, k, P, c);
    // the rows in some group: partition P holds the others
    const m = b.start[P]!;
    if (m === 0) return mt.zeros([0], { dtype: x.dtype });
    const calls: G.RoutineCall[] = [];
    for (let o = 0; o * c < m; o++) {
      const lo = o * c, hi = Math.min(m, lo + c);
      // the partitions whose rows span [lo, hi) of the order
      let p0 = 0;
      while (b.start[p0 + 1]! <= lo) p0++;
      let p1 = p0;
      while (p1 + 1 < P && b.start[p1 + 1]! < hi) p1++;
      const reads: G.RoutineCall['reads'][number][] = [];
      for (let p = p0; p <= p1; p++) {
        for (let j = 0; j < k; j++) {
          if (!b.count[p]![j]) continue;
          const box: [number, number][] = [[b.from[p]![j]!, b.from[p]![j]! + b.count[p]![j]!]];
          reads.push({ input: 0, box }, { input: 1, box });
        }
      }
      const params = { G: (p1 - p0 + 1) * Gp, lo: p0 * Gp, skip: lo - b.start[p0]! };
      calls.push({ routine: 'jorder', params, reads, chunk: o });
    }
    return new Tensor(G.routine('merge.order', [g!.node, v!.node], calls, x.dtype, [m], [c]));
  });
  return { order, parts: [gid, counts, gb], over: ([g, cv, b]) => ordering(g!, cv!, b!, layout, bucketOf) };
}
