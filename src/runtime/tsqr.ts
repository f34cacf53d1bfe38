// The routine of a tall-skinny QR over row blocks (learn's PCA 'full'):
//   tsqr  the R factor (d × d, upper triangular) of one block of rows,
//         centered on a given mean when one is read: one float64 row of
//         d·d per call, which the host stacks and factors again
//         (numerics/tsqr.ts stackedR); only d² numbers per block travel.
// In: the rows (n × d float64), optionally the mean (d). Out: [1, d·d].

import { householderR } from '../numerics/tsqr.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, type Routine, flag, onlyParams } from './region.js';

function params(p: RoutineParams): { d: number; centered: boolean } {
  onlyParams(p, ['d', 'centered']);
  const d = p.d;
  if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new TypeError('routine parameter d must be a positive count');
  return { d, centered: flag(p, 'centered') };
}

export const TSQR_ROUTINES: Readonly<Record<'tsqr', Routine>> = {
  tsqr: {
    check(p, inputs, output) {
      const { d, centered } = params(p);
      const [x, mean] = inputs;
      if (inputs.length !== (centered ? 2 : 1)) throw new TypeError('tsqr reads the rows (and the mean)');
      if (!x || x.dtype !== 'float64' || x.shape.length !== 2 || x.shape[1] !== d) throw new TypeError(`tsqr reads rows as a float64 [n, ${d}] region`);
      if (centered && (!mean || mean.dtype !== 'float64' || mean.shape.length !== 1 || mean.shape[0] !== d)) throw new TypeError(`tsqr reads a float64 [${d}] mean`);
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== d * d) {
        throw new TypeError(`tsqr writes one float64 [1, ${d * d}] row`);
      }
    },
    run(p, [x, mean], out: Region) {
      const { d } = params(p);
      const m = x!.shape[0]!, s0 = x!.strides[0]!, s1 = x!.strides[1]!, data = x!.data as Float64Array;
      const mu = new Float64Array(d);
      if (mean) for (let f = 0; f < d; f++) mu[f] = mean.data[f * mean.strides[0]!] as number;
      const cols = new Float64Array(m * d);
      for (let f = 0; f < d; f++) for (let r = 0; r < m; r++) cols[f * m + r] = data[r * s0 + f * s1]! - mu[f]!;
      const R = householderR(cols, m, d);
      const o = out.data as Float64Array, s = out.strides[1]!;
      for (let i = 0; i < d * d; i++) o[i * s] = R[i]!;
    },
  },
};
