// The routine of the radius neighbours (learn/neighbors.ts's
// radius_neighbors and radius_neighbors_graph), in two passes over each
// block of queries, since a query's neighbours are not a fixed number:
//   radius  with `count`, each query's number of indexed rows within the
//           bound (one float64 per query); without, the block's neighbours
//           themselves, query after query and each query's in ascending
//           index order: one float64 row [images of the distances | their
//           indices], `width` wide each (the block's total, from the first
//           pass), the rest NaN.
// The bound is on the monotone image of the distance the k-nearest search
// uses (squared euclidean, manhattan, chebyshev, minkowski's p-th power),
// a little above the radius's image: the host takes the root and keeps the
// rows within the radius itself, so the test is scikit-learn's `<=` on the
// distance. With `self`, a query's own row is skipped (scikit-learn's
// radius_neighbors without X).
// In: queries (rows × d), then m blocks of indexed rows (each n_i × d).
// Out: [rows] counts, or [1, 2·width].
// Design: the kd-tree of ./kdtree.ts; a query walks it depth first and
// skips a node whose exact lower bound (./neighbors.ts) exceeds the bound.

import type { RoutineParams } from '../graph/node.js';
import { type KdTree, kdTree } from './kdtree.js';
import { type Metric, METRICS, boxBound, distance } from './neighbors.js';
import { type Region, type Routine, onlyParams } from './region.js';

const LEAF = 64;

interface RadiusParams { d: number; m: number; self: boolean; metric: Metric; p: number; bound: number; count: boolean; width: number }

function radiusParams(params: RoutineParams): RadiusParams {
  onlyParams(params, ['d', 'm', 'self', 'metric', 'p', 'bound', 'count', 'width']);
  const { d, m, self, metric, p, bound, count, width } = params;
  for (const [name, v] of [['d', d], ['m', m]] as const) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`routine parameter ${name} must be a positive count`);
  }
  if (typeof width !== 'number' || !Number.isSafeInteger(width) || width < 0) throw new TypeError('routine parameter width must be a count');
  if (typeof self !== 'boolean' || typeof count !== 'boolean') throw new TypeError('routine parameters self and count must be booleans');
  if (typeof metric !== 'string' || !METRICS.includes(metric as Metric)) throw new TypeError(`routine parameter metric must be one of ${METRICS.join(', ')}`);
  if (typeof p !== 'number' || !(p >= 1)) throw new TypeError('routine parameter p must be a number >= 1');
  if (typeof bound !== 'number' || !(bound >= 0)) throw new TypeError('routine parameter bound must be a number >= 0');
  return { d: d as number, m: m as number, self, metric: metric as Metric, p, bound, count, width: width as number };
}

/** The rows of a region, row-major and contiguous. */
function rowsOf(r: Region, d: number): Float64Array {
  const n = r.shape[0]!, out = new Float64Array(n * d), s0 = r.strides[0]!, s1 = r.strides[1]!, src = r.data as Float64Array;
  for (let i = 0; i < n; i++) for (let f = 0; f < d; f++) out[i * d + f] = src[i * s0 + f * s1]!;
  return out;
}

/** Query `a`'s rows within the bound: their images and global indices, into `dist` and `idx` (cleared first), ascending by index. */
function within(q: Float64Array, a: number, skip: number, t: KdTree, o: RadiusParams, stack: Int32Array, dist: number[], idx: number[]): void {
  const { d, metric, p, bound } = o;
  dist.length = 0; idx.length = 0;
  const found: [number, number][] = [];
  let top = 0;
  if (t.nodes) stack[top++] = 0;
  while (top > 0) {
    const node = stack[--top]!;
    if (boxBound(q, a, t, node, d, metric, p) > bound) continue;
    const l = t.left[node]!;
    if (l >= 0) { stack[top++] = t.right[node]!; stack[top++] = l; continue; }
    for (let b = t.start[node]!; b < t.end[node]!; b++) {
      const g = t.index[b]!;
      if (g === skip) continue;
      const v = distance(q, a, t.rows, b, d, metric, p, bound);
      if (v <= bound) found.push([g, v]);
    }
  }
  found.sort((u, v) => u[0] - v[0]);
  for (const [g, v] of found) { idx.push(g); dist.push(v); }
}

function run(o: RadiusParams, q: Region, blocks: readonly Region[], out: Region): void {
  const qr = rowsOf(q, o.d), t = kdTree(blocks, o.d, LEAF), first = q.origin[0]!, n = q.shape[0]!;
  const stack = new Int32Array(2 * Math.ceil(Math.log2(t.nodes + 1)) + 8);
  const od = out.data as Float64Array, dist: number[] = [], idx: number[] = [];
  if (o.count) {
    const s0 = out.strides[0]!;
    for (let a = 0; a < n; a++) {
      within(qr, a, o.self ? first + a : -1, t, o, stack, dist, idx);
      od[a * s0] = idx.length;
    }
    return;
  }
  const s1 = out.strides[1]!;
  for (let j = 0; j < 2 * o.width; j++) od[j * s1] = NaN;
  let at = 0;
  for (let a = 0; a < n; a++) {
    within(qr, a, o.self ? first + a : -1, t, o, stack, dist, idx);
    if (at + idx.length > o.width) throw new RangeError(`radius: the block holds more than its ${o.width} neighbours`);
    for (let j = 0; j < idx.length; j++, at++) { od[at * s1] = dist[j]!; od[(o.width + at) * s1] = idx[j]!; }
  }
}

export const RADIUS_ROUTINES: Readonly<Record<'radius', Routine>> = {
  radius: {
    check(params, inputs, output) {
      const { d, m, count, width } = radiusParams(params);
      if (inputs.length !== 1 + m) throw new TypeError(`radius reads the queries and ${m} blocks of indexed rows`);
      for (const r of inputs) {
        if (r.dtype !== 'float64' || r.shape.length !== 2 || r.shape[1] !== d) throw new TypeError(`radius reads float64 [n, ${d}] regions`);
      }
      const ok = output.dtype === 'float64' && (count
        ? output.shape.length === 1 && output.shape[0] === inputs[0]!.shape[0]
        : output.shape.length === 2 && output.shape[0] === 1 && output.shape[1] === 2 * width);
      if (!ok) throw new TypeError(count ? 'radius writes a float64 [queries] block of counts' : `radius writes a float64 [1, ${2 * width}] block`);
    },
    run(params, [q, ...blocks], out) { run(radiusParams(params), q!, blocks, out); },
  },
};
