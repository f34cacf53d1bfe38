// The neighbours within a radius, for NearestNeighbors' radius_neighbors and
// radius_neighbors_graph (./neighbors.ts), and the CSR form of its graphs.
// In: the queries and the indexed rows (float64 tensors, already scaled to
// unit rows for cosine), their row blocks, the metric's image. Out: each
// query's neighbours on the host (ascending index), then tensors.
//
// Two passes of the `radius` routine (runtime/radius.ts) over the same
// blocks of queries, as the search has no fixed width: the first writes
// each query's count, the second each block's neighbours into a row as wide
// as the largest block's total (the host knows it from the counts). The
// bound the routine applies is a little above the radius's image; the host
// maps the images to distances as kneighbors does and keeps those within
// the radius, so the test is scikit-learn's `distance <= radius`.

import * as mt from '../api/tensor.js';
import * as G from '../graph/node.js';
import { numbers, valueError } from './base.js';

/**
 * A graph as scikit-learn's scipy.sparse.csr_matrix holds it: row i's
 * entries are data[indptr[i]:indptr[i+1]] at columns
 * indices[indptr[i]:indptr[i+1]]; shape is [n_queries, n_samples_fit].
 * Tessera has no sparse type, so the graphs are this plain object of
 * tensors (data float64, indices and indptr int64).
 */
export interface CsrGraph {
  data: mt.Tensor;
  indices: mt.Tensor;
  indptr: mt.Tensor;
  shape: [number, number];
}

/** The image (the routine's monotone map of the distance) of a radius, for a metric and its p. */
export function radiusImage(metric: string, p: number, r: number): number {
  if (metric === 'euclidean' || metric === 'l2' || (metric === 'minkowski' && p === 2)) return r * r;
  if (metric === 'cosine') return 2 * r;
  if (metric === 'minkowski' && p !== 1) return r ** p;
  return r; // sqeuclidean, manhattan, chebyshev, minkowski with p = 1
}

/** Each query's neighbours within the bound: per query their count, and flat lists of images and indices (query after query, ascending index). */
export async function radiusSearch(q: mt.Tensor, x: mt.Tensor, qb: readonly [number, number][], xb: readonly [number, number][],
  o: { kind: string; p: number; bound: number; self: boolean }): Promise<{ counts: number[]; images: number[]; indices: number[] }> {
  const d = q.shape[1]!, nq = q.shape[0]!;
  if (!qb.length) return { counts: [], images: [], indices: [] };
  const reads = (a: number, b: number): G.RoutineCall['reads'] => [
    { input: 0, box: [[a, b], [0, d]] }, ...xb.map(([u, v]) => ({ input: 1, box: [[u, v], [0, d]] as [number, number][] })),
  ];
  const base = { d, m: xb.length, self: o.self, metric: o.kind, p: o.p, bound: o.bound };
  const rows = qb[0]![1] - qb[0]![0];
  const countCalls = qb.map(([a, b], j): G.RoutineCall => ({ routine: 'radius', chunk: j, params: { ...base, count: true, width: 0 }, reads: reads(a, b) }));
  const counts = await numbers(new mt.Tensor(G.routine('neighbors.radius_count', [q.node, x.node], countCalls, 'float64', [nq], [rows])));
  const totals = qb.map(([a, b]) => counts.slice(a, b).reduce((s, c) => s + c, 0));
  const width = Math.max(1, ...totals);
  const listCalls = qb.map(([a, b], j): G.RoutineCall => ({ routine: 'radius', chunk: j, params: { ...base, count: false, width }, reads: reads(a, b) }));
  const listNode = G.routine('neighbors.radius_list', [q.node, x.node], listCalls, 'float64', [qb.length, 2 * width], [1, 2 * width]);
  const lists = await numbers(new mt.Tensor(listNode));
  const images: number[] = [], indices: number[] = [];
  totals.forEach((t, j) => {
    const row = j * 2 * width;
    for (let i = 0; i < t; i++) { images.push(lists[row + i]!); indices.push(lists[row + width + i]!); }
  });
  return { counts, images, indices };
}

/** The check of a graph's mode, with scikit-learn's message. */
export function graphMode(mode: string): 'connectivity' | 'distance' {
  if (mode !== 'connectivity' && mode !== 'distance') {
    throw valueError(`Unsupported mode, must be one of "connectivity", or "distance" but got "${mode}" instead`);
  }
  return mode;
}

/** int64 indices as a tensor. */
export const int64 = (v: ArrayLike<number>): mt.Tensor => mt.astype(mt.tensor(Float64Array.from(v)), 'int64');
