// The routines of k-means (learn/cluster.ts): one Lloyd iteration is one
// pass over each block of rows, each call writing one chunk, so that a
// worker, a thread or a peer runs them and only k × (d + 1) numbers per
// block travel to the combine:
//   kassign  each row's nearest center (squared euclidean distance, the
//            first center on a tie, as scikit-learn's argmin): int32 labels;
//   kstep    one Lloyd step over a block: each row's nearest center, and
//            the block's per-center sums of rows, counts (weights) and the
//            sum of the rows' squared distances to their centers (the
//            inertia), with two position-keyed sums of the labels by which
//            the host sees that no label changed (scikit-learn's strict
//            convergence) without storing them: one float64 row
//            [k·d sums | k counts | inertia | h1 | h2].
// Centers are ranked by ‖c‖² − 2x·c, as scikit-learn's Lloyd step ranks
// them (so near-ties fall the same way); the inertia sums the exact
// Σ(x − c)² of each row's own center, as its _inertia does.
//   kdist    the squared distances Σ(x − c)² of each row to a few centers
//            (k-means++'s candidates): an [n, k] float64 block.
// In: the rows (n × d float64, a box of whole rows), the centers (k × d).
// Out: labels, or one partial row per call (the combine sums them).

import type { RoutineParams } from '../graph/node.js';
import { type Region, type Routine, onlyParams } from './region.js';

function dims(params: RoutineParams): { k: number; d: number; weighted: boolean } {
  onlyParams(params, ['k', 'd', 'weighted']);
  const { k, d, weighted } = params;
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1) throw new TypeError('routine parameter k must be a positive count');
  if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new TypeError('routine parameter d must be a positive count');
  return { k, d, weighted: weighted === true };
}

/** The rows and centers regions are float64 boxes of d columns. */
function checkRows(x: { dtype: string; shape: readonly number[] }, c: { dtype: string; shape: readonly number[] }, k: number, d: number): void {
  if (x.dtype !== 'float64' || x.shape.length !== 2 || x.shape[1] !== d) throw new TypeError(`k-means reads rows as a float64 [n, ${d}] region`);
  if (c.dtype !== 'float64' || c.shape.length !== 2 || c.shape[0] !== k || c.shape[1] !== d) {
    throw new TypeError(`k-means reads centers as a float64 [${k}, ${d}] region`);
  }
}

/** The centers as one dense k·d array. */
function centersOf(c: Region, k: number, d: number): Float64Array {
  const out = new Float64Array(k * d);
  for (let j = 0; j < k; j++) for (let f = 0; f < d; f++) out[j * d + f] = c.data[j * c.strides[0]! + f * c.strides[1]!] as number;
  return out;
}

/** The centers' squared norms, for the nearest-center search. */
function norms(C: Float64Array, k: number, d: number): Float64Array {
  const out = new Float64Array(k);
  for (let j = 0; j < k; j++) { let s = 0; for (let f = 0; f < d; f++) s += C[j * d + f]! * C[j * d + f]!; out[j] = s; }
  return out;
}

/**
 * Row r's nearest center (into `best.j`), by ‖c‖² − 2x·c as scikit-learn's
 * Lloyd step ranks them (‖x‖² is the same for every center), and its exact
 * squared distance Σ(x − c)² (into `best.dist`). `row` receives the row.
 */
function nearest(x: Region, r: number, C: Float64Array, cc: Float64Array, k: number, d: number, row: Float64Array, best: { j: number; dist: number }): void {
  const s0 = x.strides[0]!, s1 = x.strides[1]!, data = x.data as Float64Array;
  for (let f = 0; f < d; f++) row[f] = data[r * s0 + f * s1]!;
  let bj = 0, bd = Infinity;
  for (let j = 0; j < k; j++) {
    let dot = 0;
    const o = j * d;
    for (let f = 0; f < d; f++) dot += row[f]! * C[o + f]!;
    const v = cc[j]! - 2 * dot;
    if (v < bd) { bd = v; bj = j; }
  }
  let dist = 0;
  for (let f = 0; f < d; f++) { const t = row[f]! - C[bj * d + f]!; dist += t * t; }
  best.j = bj; best.dist = dist;
}

export const CLUSTER_ROUTINES: Readonly<Record<'kassign' | 'kstep' | 'kdist', Routine>> = {
  kdist: {
    check(params, inputs, output) {
      const { k, d } = dims(params);
      if (inputs.length !== 2) throw new TypeError('kdist reads the rows and the centers');
      checkRows(inputs[0]!, inputs[1]!, k, d);
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== inputs[0]!.shape[0] || output.shape[1] !== k) {
        throw new TypeError(`kdist writes a float64 [n, ${k}] block`);
      }
    },
    run(params, [x, c], out) {
      const { k, d } = dims(params);
      const C = centersOf(c!, k, d), row = new Float64Array(d);
      const n = x!.shape[0]!, s0 = x!.strides[0]!, s1 = x!.strides[1]!, data = x!.data as Float64Array;
      const o = out.data as Float64Array, t0 = out.strides[0]!, t1 = out.strides[1]!;
      for (let r = 0; r < n; r++) {
        for (let f = 0; f < d; f++) row[f] = data[r * s0 + f * s1]!;
        for (let j = 0; j < k; j++) {
          let s = 0;
          for (let f = 0; f < d; f++) { const t = row[f]! - C[j * d + f]!; s += t * t; }
          o[r * t0 + j * t1] = s;
        }
      }
    },
  },
  kassign: {
    check(params, inputs, output) {
      const { k, d } = dims(params);
      if (inputs.length !== 2) throw new TypeError('kassign reads the rows and the centers');
      checkRows(inputs[0]!, inputs[1]!, k, d);
      if (output.dtype !== 'int32' || output.shape.length !== 1 || output.shape[0] !== inputs[0]!.shape[0]) {
        throw new TypeError('kassign writes one int32 label per row');
      }
    },
    run(params, [x, c], out) {
      const { k, d } = dims(params);
      const C = centersOf(c!, k, d), cc = norms(C, k, d), row = new Float64Array(d), best = { j: 0, dist: 0 };
      const n = x!.shape[0]!, o = out.data as Int32Array, s = out.strides[0]!;
      for (let r = 0; r < n; r++) { nearest(x!, r, C, cc, k, d, row, best); o[r * s] = best.j; }
    },
  },
  kstep: {
    check(params, inputs, output) {
      const { k, d, weighted } = dims(params);
      if (inputs.length !== (weighted ? 3 : 2)) throw new TypeError('kstep reads the rows, the centers (and the weights)');
      const [x, c, w] = inputs;
      checkRows(x!, c!, k, d);
      if (w && (w.dtype !== 'float64' || w.shape.length !== 1 || w.shape[0] !== x!.shape[0])) throw new TypeError('kstep reads one float64 weight per row');
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== k * d + k + 3) {
        throw new TypeError(`kstep writes one float64 [1, ${k * d + k + 3}] row`);
      }
    },
    run(params, [x, c, w], out) {
      const { k, d } = dims(params);
      const C = centersOf(c!, k, d), cc = norms(C, k, d), row = new Float64Array(d), best = { j: 0, dist: 0 };
      const acc = new Float64Array(k * d + k + 3);
      const n = x!.shape[0]!, first = x!.origin[0]!;
      const wd = w?.data as Float64Array | undefined, ws = w?.strides[0] ?? 0;
      let inertia = 0, h1 = 0, h2 = 0;
      for (let r = 0; r < n; r++) {
        nearest(x!, r, C, cc, k, d, row, best);
        const j = best.j, wt = wd ? wd[r * ws]! : 1;
        for (let f = 0; f < d; f++) acc[j * d + f]! += wt * row[f]!;
        acc[k * d + j]! += wt;
        inertia += wt * best.dist;
        // two position-keyed sums of the labels, exact in float64 (below 2^53 for 2^31 rows): equal
        // sums from two iterations mean the same labels but with odds of about 2^-40
        const p = first + r;
        h1 += (j + 1) * (Math.imul(p, 0x9e3779b1) >>> 12);
        h2 += (j + 1) * (Math.imul(p ^ 0x5bd1e995, 0x85ebca6b) >>> 12);
      }
      acc[k * d + k] = inertia; acc[k * d + k + 1] = h1; acc[k * d + k + 2] = h2;
      const o = out.data as Float64Array, s = out.strides[1]!;
      for (let i = 0; i < acc.length; i++) o[i * s] = acc[i]!;
    },
  },
};
