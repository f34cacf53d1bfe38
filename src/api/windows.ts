// NumPy's window functions for spectral analysis: bartlett, blackman,
// hamming, hanning and kaiser, in NumPy's formulas and operation order
// (numpy/lib/_function_base_impl.py), so the values agree with NumPy's to
// the last few ulp of cos and i0. In: the window length M (a JS number; a
// fractional M is used as NumPy uses it) and kaiser's beta. Out: a lazy
// float64 tensor of M values (empty for M < 1).

import { i0 } from './ufuncs.js';
import { type Tensor, add, arange, cos, divide, less_equal, multiply, ones, power, sqrt, subtract, where, zeros } from './core.js';
import { repr } from '../graph/shape.js';

/** NumPy's np.array([0.0, M]): M as a float, or the TypeError NumPy's comparison raises. */
function length(fn: string, M: unknown): number {
  if (typeof M === 'boolean') return Number(M);
  if (typeof M !== 'number') throw new TypeError(`${fn}(): M must be a number, got ${repr(M)}`);
  return M;
}

/** The symmetric window's positions, arange(1 - M, M, 2), and M - 1; undefined where M < 1 or M == 1 decide the window. */
function positions(M: number): [Tensor, number] {
  return [arange(1 - M, M, 2, { dtype: 'float64' }), M - 1];
}

/** A cosine-sum window: a0 + a1 cos(pi n / (M - 1)) (+ a2 cos(2 pi n / (M - 1))). */
function cosineWindow(fn: string, M: unknown, a0: number, a1: number, a2?: number): Tensor {
  const m = length(fn, M);
  if (m < 1) return zeros([0]);
  if (m === 1) return ones([1]);
  const [n, d] = positions(m);
  let w = add(a0, multiply(a1, cos(divide(multiply(Math.PI, n), d))));
  if (a2 !== undefined) w = add(w, multiply(a2, cos(divide(multiply(2 * Math.PI, n), d))));
  return w;
}

/** hanning(M): the Hann window, 0.5 + 0.5 cos(pi n / (M - 1)). */
export const hanning = (M: number): Tensor => cosineWindow('hanning', M, 0.5, 0.5);

/** hamming(M): 0.54 + 0.46 cos(pi n / (M - 1)). */
export const hamming = (M: number): Tensor => cosineWindow('hamming', M, 0.54, 0.46);

/** blackman(M): 0.42 + 0.5 cos(pi n / (M - 1)) + 0.08 cos(2 pi n / (M - 1)). */
export const blackman = (M: number): Tensor => cosineWindow('blackman', M, 0.42, 0.5, 0.08);

/** bartlett(M): the triangular window, 1 + n / (M - 1) up to the middle and 1 - n / (M - 1) after. */
export function bartlett(M: number): Tensor {
  const m = length('bartlett', M);
  if (m < 1) return zeros([0]);
  if (m === 1) return ones([1]);
  const [n, d] = positions(m);
  return where(less_equal(n, 0), add(1, divide(n, d)), subtract(1, divide(n, d)));
}

/** kaiser(M, beta): i0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta), n = 0 .. M - 1, alpha = (M - 1) / 2. */
export function kaiser(M: number, beta: number): Tensor {
  const m = length('kaiser', M);
  const b = length('kaiser', beta);
  if (m === 1) return ones([1]);
  const n = arange(0, m, { dtype: 'float64' });
  const alpha = (m - 1) / 2;
  return divide(i0(multiply(b, sqrt(subtract(1, power(divide(subtract(n, alpha), alpha), 2))))), i0(b));
}
