// The routine of brute-force nearest neighbours (learn/neighbors.ts):
//   knn   for each row of a block of queries, its k nearest rows among every
//         block of the indexed data (each read as its own region, so no
//         block is gathered): exact distances in float64 (squared euclidean,
//         manhattan, chebyshev or minkowski's p-th power: each a monotone
//         image of the metric, the host takes the root), kept in a sorted
//         list of k per query (ties to the lower index, as a stable sort of
//         the distances gives them); with `self`, a query's own row (the same
//         global index) is skipped, as scikit-learn skips it when the query
//         is the indexed data. One float64 row per query: k distances
//         ascending, then their k indices.
// In: queries (rows × d), then m blocks of indexed rows (each n_i × d).
// Out: [rows, 2k].

import type { RoutineParams } from '../graph/node.js';
import { type Region, type Routine, onlyParams } from './region.js';

type Metric = 'sqeuclidean' | 'manhattan' | 'chebyshev' | 'minkowski';
const METRICS: readonly Metric[] = ['sqeuclidean', 'manhattan', 'chebyshev', 'minkowski'];

function knnParams(params: RoutineParams): { k: number; d: number; m: number; self: boolean; metric: Metric; p: number } {
  onlyParams(params, ['k', 'd', 'm', 'self', 'metric', 'p']);
  const { k, d, m, self, metric, p } = params;
  for (const [name, v] of [['k', k], ['d', d], ['m', m]] as const) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`routine parameter ${name} must be a positive count`);
  }
  if (typeof self !== 'boolean') throw new TypeError('routine parameter self must be a boolean');
  if (typeof metric !== 'string' || !METRICS.includes(metric as Metric)) throw new TypeError(`routine parameter metric must be one of ${METRICS.join(', ')}`);
  if (typeof p !== 'number' || !(p >= 1)) throw new TypeError('routine parameter p must be a number >= 1');
  return { k: k as number, d: d as number, m: m as number, self, metric: metric as Metric, p };
}

/** The distance's monotone image between row `a` of `q` (copied in `row`) and row `b` of block `x`. */
function distance(row: Float64Array, x: Region, b: number, d: number, metric: Metric, p: number, bound: number): number {
  const data = x.data as Float64Array, s0 = x.strides[0]!, s1 = x.strides[1]!;
  const o = b * s0;
  let s = 0;
  if (metric === 'sqeuclidean') {
    for (let f = 0; f < d; f++) { const t = row[f]! - data[o + f * s1]!; s += t * t; if (s > bound) return s; }
  } else if (metric === 'manhattan') {
    for (let f = 0; f < d; f++) { s += Math.abs(row[f]! - data[o + f * s1]!); if (s > bound) return s; }
  } else if (metric === 'chebyshev') {
    for (let f = 0; f < d; f++) { const t = Math.abs(row[f]! - data[o + f * s1]!); if (t > s) s = t; }
  } else {
    for (let f = 0; f < d; f++) { s += Math.abs(row[f]! - data[o + f * s1]!) ** p; if (s > bound) return s; }
  }
  return s;
}

export const NEIGHBOR_ROUTINES: Readonly<Record<'knn', Routine>> = {
  knn: {
    check(params, inputs, output) {
      const { k, d, m } = knnParams(params);
      if (inputs.length !== 1 + m) throw new TypeError(`knn reads the queries and ${m} blocks of indexed rows`);
      for (const r of inputs) {
        if (r.dtype !== 'float64' || r.shape.length !== 2 || r.shape[1] !== d) throw new TypeError(`knn reads float64 [n, ${d}] regions`);
      }
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== inputs[0]!.shape[0] || output.shape[1] !== 2 * k) {
        throw new TypeError(`knn writes a float64 [queries, ${2 * k}] block`);
      }
    },
    run(params, [q, ...blocks], out) {
      const { k, d, self, metric, p } = knnParams(params);
      const rows = q!.shape[0]!, qd = q!.data as Float64Array, q0 = q!.strides[0]!, q1 = q!.strides[1]!, first = q!.origin[0]!;
      const row = new Float64Array(d), dist = new Float64Array(k), idx = new Float64Array(k);
      const o = out.data as Float64Array, o0 = out.strides[0]!, o1 = out.strides[1]!;
      for (let a = 0; a < rows; a++) {
        for (let f = 0; f < d; f++) row[f] = qd[a * q0 + f * q1]!;
        dist.fill(Infinity); idx.fill(-1);
        const me = first + a;
        for (const x of blocks) {
          const n = x!.shape[0]!, base = x!.origin[0]!;
          for (let b = 0; b < n; b++) {
            const g = base + b;
            if (self && g === me) continue;
            const s = distance(row, x!, b, d, metric, p, dist[k - 1]!);
            // blocks come in index order, so an equal distance keeps the earlier (lower) index first
            if (!(s < dist[k - 1]!)) continue;
            let i = k - 1;
            while (i > 0 && dist[i - 1]! > s) { dist[i] = dist[i - 1]!; idx[i] = idx[i - 1]!; i--; }
            dist[i] = s; idx[i] = g;
          }
        }
        for (let j = 0; j < k; j++) { o[a * o0 + j * o1] = dist[j]!; o[a * o0 + (k + j) * o1] = idx[j]!; }
      }
    },
  },
};
