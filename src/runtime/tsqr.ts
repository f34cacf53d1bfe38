// The routines of a tall-skinny QR over row blocks (learn's PCA 'full',
// mt.linalg.qr and svd of a matrix chunked by rows):
//   tsqr     the R factor (d × d, upper triangular) of one block of rows,
//            centered on a given mean when one is read: one float64 row of
//            d·d per call; only d² numbers per block travel;
//   tsqrtop  the combine: the stacked R factors of every block factored
//            again (numerics/tsqr.ts stackedQR), writing each block's d × d
//            slice of the combine's Q, then the final R: [B·d + d, d];
//   tsqrq    one block's rows of Q: the block factored again (the same
//            bits as in tsqr) and its Q applied to its slice: [rows, d].
// In: the rows (n × d float64), the mean (d), the R rows, a slice.
// Out: the regions above.

import { applyQ, householderR, stackedQR } from '../numerics/tsqr.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, type Routine, flag, onlyParams } from './region.js';

function params(p: RoutineParams): { d: number; centered: boolean } {
  onlyParams(p, ['d', 'centered']);
  const d = p.d;
  if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new TypeError('routine parameter d must be a positive count');
  return { d, centered: flag(p, 'centered') };
}

/** A float64 region's values as a dense column-major block. */
function columns(x: Region, m: number, d: number, mu?: Float64Array): Float64Array {
  const s0 = x.strides[0]!, s1 = x.strides[1]!, data = x.data as Float64Array;
  const cols = new Float64Array(m * d);
  for (let f = 0; f < d; f++) for (let r = 0; r < m; r++) cols[f * m + r] = data[r * s0 + f * s1]! - (mu ? mu[f]! : 0);
  return cols;
}

/** Row-major values into a 2-d float64 region. */
function write2(out: Region, v: Float64Array, rows: number, cols: number, row0 = 0): void {
  const o = out.data as Float64Array, t0 = out.strides[0]!, t1 = out.strides[1]!;
  for (let i = 0; i < rows; i++) for (let c = 0; c < cols; c++) o[(row0 + i) * t0 + c * t1] = v[i * cols + c]!;
}

const rowsOf = (d: number, what: string, r: { dtype: string; shape: readonly number[] } | undefined, rows?: number): void => {
  if (!r || r.dtype !== 'float64' || r.shape.length !== 2 || r.shape[1] !== d || (rows !== undefined && r.shape[0] !== rows)) {
    throw new TypeError(`${what} is a float64 [${rows ?? 'n'}, ${d}] region`);
  }
};

export const TSQR_ROUTINES: Readonly<Record<'tsqr' | 'tsqrtop' | 'tsqrq', Routine>> = {
  tsqr: {
    check(p, inputs, output) {
      const { d, centered } = params(p);
      const [x, mean] = inputs;
      if (inputs.length !== (centered ? 2 : 1)) throw new TypeError('tsqr reads the rows (and the mean)');
      if (!x || x.dtype !== 'float64' || x.shape.length !== 2 || x.shape[1] !== d) throw new TypeError(`tsqr reads rows as a float64 [n, ${d}] region`);
      if (centered && (!mean || mean.dtype !== 'float64' || mean.shape.length !== 1 || mean.shape[0] !== d)) {
        throw new TypeError(`tsqr reads a float64 [${d}] mean`);
      }
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== d * d) {
        throw new TypeError(`tsqr writes one float64 [1, ${d * d}] row`);
      }
    },
    run(p, [x, mean], out: Region) {
      const { d } = params(p);
      const mu = new Float64Array(d);
      if (mean) for (let f = 0; f < d; f++) mu[f] = mean.data[f * mean.strides[0]!] as number;
      const R = householderR(columns(x!, x!.shape[0]!, d, mu), x!.shape[0]!, d);
      const o = out.data as Float64Array, s = out.strides[1]!;
      for (let i = 0; i < d * d; i++) o[i * s] = R[i]!;
    },
  },
  tsqrtop: {
    check(p, inputs, output) {
      onlyParams(p, ['d']);
      const d = p.d as number;
      if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new TypeError('routine parameter d must be a positive count');
      const [parts] = inputs;
      if (inputs.length !== 1 || !parts || parts.dtype !== 'float64' || parts.shape.length !== 2 || parts.shape[1] !== d * d) {
        throw new TypeError(`tsqrtop reads the blocks' R factors as a float64 [blocks, ${d * d}] region`);
      }
      rowsOf(d, 'tsqrtop\'s output', output, parts.shape[0]! * d + d);
    },
    run(p, [parts], out) {
      const d = p.d as number, B = parts!.shape[0]!, data = parts!.data as Float64Array, s0 = parts!.strides[0]!, s1 = parts!.strides[1]!;
      const Rs = Array.from({ length: B }, (_, b) => Float64Array.from({ length: d * d }, (_, i) => data[b * s0 + i * s1]!));
      const { R, S } = stackedQR(Rs, d);
      S.forEach((sb, b) => write2(out, sb, d, d, b * d));
      write2(out, R, d, d, B * d);
    },
  },
  tsqrq: {
    check(p, inputs, output) {
      onlyParams(p, ['d']);
      const d = p.d as number;
      if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new TypeError('routine parameter d must be a positive count');
      if (inputs.length !== 2) throw new TypeError('tsqrq reads the rows and their slice of the combine\'s Q');
      rowsOf(d, 'tsqrq\'s rows', inputs[0]); rowsOf(d, 'tsqrq\'s slice', inputs[1], d);
      rowsOf(d, 'tsqrq\'s output', output, inputs[0]!.shape[0]);
    },
    run(p, [x, sl], out) {
      const d = p.d as number, m = x!.shape[0]!;
      const cols = columns(x!, m, d), tau = new Float64Array(d);
      householderR(cols, m, d, tau);
      const S = new Float64Array(d * d);
      for (let i = 0; i < d; i++) for (let c = 0; c < d; c++) S[i * d + c] = sl!.data[i * sl!.strides[0]! + c * sl!.strides[1]!] as number;
      write2(out, applyQ(cols, tau, m, d, S, d), m, d);
    },
  },
};
