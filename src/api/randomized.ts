// randomized_svd (scikit-learn's sklearn.utils.extmath.randomized_svd, which
// Mars also gives as mt.linalg.randomized_svd): the leading singular
// triplets of a matrix chunked by rows, by Halko, Martinsson and Tropp's
// range finder. A random test matrix Ω (n × l, l = k + oversamples) gives
// Y = MΩ; power iterations Y ← M(MᵀY), each re-orthonormalized by a QR;
// then B = QᵀM (l × n, small), its SVD on the host, U = Q·U_B. Each QR of a
// tall-skinny Y chunked by rows is TSQR over its chunks (./linalg_tiled.ts),
// so M is read by chunked matrix products and never gathered. A matrix
// wider than tall is done as its transpose. Signs as svd_flip's
// (u-based): each U column's largest |entry| positive.
// In: M (m × n), n_components and scikit-learn's options. Out: lazy [U, s, Vt].

import { kwargs } from './bind.js';
import { type Operand, Tensor, abs, argmax, astype, greater, matmul, multiply, reshape, toTensor, transpose, where } from './core.js';
import { linalg } from './linalg.js';
import { tallSkinny, tsqr } from './linalg_tiled.js';
import { random } from './random.js';
import { take_along_axis } from './search.js';

type Args = unknown[];

/** Q of a QR of a tall-skinny Y: TSQR over its row chunks, or the host's QR where Y is one chunk or not chunked by rows. */
function orthonormal(y: Tensor): Tensor {
  return tallSkinny(y) ? tsqr(y)[0] : (linalg.qr(y) as Tensor[])[0]!;
}

/**
 * randomized_svd(M, n_components, { n_oversamples = 10, n_iter = 'auto', power_iteration_normalizer = 'auto',
 * transpose = 'auto', flip_sign = true, random_state = 0 }): [U (m × k), s (k), Vt (k × n)]. The normalizer is
 * always a QR (scikit-learn's 'QR'; its 'LU' and 'none' trade accuracy for speed); n_iter 'auto' is 7 when
 * n_components < 0.1 · min(m, n), else 4, as scikit-learn's.
 */
export function randomized_svd(M: Operand, n_components: number, ...args: Args): Tensor[] {
  const o = kwargs<{
    n_oversamples?: number; n_iter?: number | 'auto'; power_iteration_normalizer?: string; transpose?: boolean | 'auto';
    flip_sign?: boolean; random_state?: number | null; svd_lapack_driver?: string;
  }>('linalg.randomized_svd', args, [],
    ['n_oversamples', 'n_iter', 'power_iteration_normalizer', 'transpose', 'flip_sign', 'random_state', 'svd_lapack_driver']);
  const t = toTensor(M);
  if (t.ndim !== 2) throw new RangeError(`randomized_svd: M must be a 2-d matrix, got ${t.ndim} dimensions`);
  const [m, n] = t.shape as [number, number];
  const k = n_components;
  if (!Number.isInteger(k) || k < 1 || k > Math.min(m, n)) {
    throw new RangeError(`randomized_svd: n_components=${k} must be an integer in [1, min(M.shape)=${Math.min(m, n)}]`);
  }
  const p = o.n_oversamples ?? 10;
  if (!Number.isInteger(p) || p < 0) throw new RangeError(`randomized_svd: n_oversamples=${p} must be a non-negative integer`);
  const iters = o.n_iter === undefined || o.n_iter === 'auto' ? (k < 0.1 * Math.min(m, n) ? 7 : 4) : o.n_iter;
  if (!Number.isInteger(iters) || iters < 0) throw new RangeError(`randomized_svd: n_iter=${String(o.n_iter)} must be a non-negative integer or 'auto'`);
  const flip = o.flip_sign ?? true;
  const wide = o.transpose === 'auto' || o.transpose === undefined ? m < n : o.transpose;
  if (wide) {
    // the transpose's triplets, turned back: M = (V S Uᵀ)ᵀ; svd_flip then on the original U
    const [u, s, vt] = randomized_svd(transpose(t), k, { ...o, transpose: false, flip_sign: false }) as [Tensor, Tensor, Tensor];
    return flipped(transpose(vt), s, transpose(u), flip);
  }
  const x = t.dtype === 'float64' || t.dtype === 'float32' ? t : astype(t, 'float64');
  const l = Math.min(n, k + p);
  const omega = random.default_rng(o.random_state ?? 0).normal(0, 1, [n, l]);
  let Q = orthonormal(matmul(x, astype(omega, x.dtype)));
  for (let i = 0; i < iters; i++) Q = orthonormal(matmul(x, orthonormal(matmul(transpose(x), Q))));
  const B = matmul(transpose(Q), x); // l × n
  const [ub, s, vt] = linalg.svd(B, { full_matrices: false }) as [Tensor, Tensor, Tensor];
  const U = matmul(Q, ub);
  return flipped(U.get(':', `:${k}`), s.get(`:${k}`), vt.get(`:${k}`), flip);
}

/** svd_flip (u-based): each column of U, and its row of Vt, signed so that the column's largest |entry| is positive. */
function flipped(U: Tensor, s: Tensor, Vt: Tensor, flip: boolean): Tensor[] {
  if (!flip) return [U, s, Vt];
  const at = reshape(argmax(abs(U), { axis: 0 }), [1, -1]);
  const signs = where(greater(0, take_along_axis(U, at, { axis: 0 })), -1, 1); // 1 × k
  return [multiply(U, signs), s, multiply(Vt, transpose(signs))];
}
