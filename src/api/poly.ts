// NumPy's polynomial functions on coefficient arrays (highest power first)
// beside polyval and polyfit (extra.ts): roots, poly, polyder, polyint,
// polyadd, polysub, polymul, polydiv, and unwrap, each as NumPy's
// numpy/lib/_polynomial_impl.py and _function_base_impl.py compute them.
// Where NumPy's result length depends on the coefficients' values (roots
// drops leading and trailing zeros, polydiv trims the remainder's leading
// near-zeros), the values are read when known, else the run computes them
// first and the result is built then (a length known only at run time).
// In: tensors or JS data, NumPy's keywords in a trailing options object.
// Out: lazy Tensors.

import { type DType, isFloat, promoteTypes } from '../graph/dtype.js';
import { hasUnknown } from '../graph/shape.js';
import { convolve } from './extra.js';
import { linalg } from './linalg.js';
import { diff } from './statistics.js';
import { kwargs } from './bind.js';
import {
  type Operand, Tensor, abs, add, arange, astype, concatenate, cumsum, deferred, divide, equal, greater, less, logical_and, onValues, mod, multiply,
  negative, reshape, stack, subtract, tensor, toTensor, where, whenKnown, zeros,
} from './core.js';

type Args = unknown[];

/** A 1-d coefficient array (NumPy's atleast_1d; more dimensions are NumPy's error). */
function coeffs(fn: string, p: Operand): Tensor {
  let t = toTensor(p);
  if (t.ndim === 0) t = reshape(t, [1]);
  if (t.ndim !== 1) throw new RangeError(fn === 'roots' ? 'Input must be a rank-1 array.' : `${fn}(): the coefficients must be a 1-d array, got ${t.ndim} dimensions`);
  return t;
}

/**
 * `build` over the values of `ts` as JS numbers: core.ts's onValues for
 * each in turn (now when computed, else the run computes them first); the
 * result has `dtype` and a length known then.
 */
function valuesOf(fn: string, ts: readonly Tensor[], dtype: DType, build: (values: number[][]) => Tensor): Tensor {
  if (!ts.length) return build([]);
  return onValues(fn, ts[0]!, ts.slice(1), dtype, [NaN], (v, rest) => valuesOf(fn, rest, dtype, (vs) => build([v, ...vs])));
}

/** The dtype eigvals gives a matrix of `d` (float64 for integers). */
const rootsDType = (d: DType): DType => (isFloat(d) && d !== 'float16' ? d : 'float64');

/**
 * roots(p): the eigenvalues of the companion matrix of p without its leading
 * zeros, then a zero root per trailing zero, as NumPy. Real roots only: a
 * polynomial with complex roots fails the run with LinAlgError (Tessera has
 * no complex dtype).
 */
export function roots(p: Operand): Tensor {
  const t = coeffs('roots', p);
  const dt = rootsDType(t.dtype);
  return valuesOf('roots', [t], dt, ([v]) => {
    const nz = v!.flatMap((x, i) => (x !== 0 ? [i] : []));
    if (!nz.length) return zeros([0], { dtype: dt });
    const trailing = v!.length - nz.at(-1)! - 1;
    // (from the values: `t` itself may be a selection, of a length known only inside the run)
    const q = tensor(v!.slice(nz[0], nz.at(-1)! + 1), { dtype: dt });
    const n = q.shape[0]!;
    const tail = zeros([trailing], { dtype: dt });
    if (n < 2) return tail;
    // companion matrix: ones below the diagonal, -p[1:] / p[0] in the first row
    const first = reshape(negative(divide(q.get('1:'), q.get(0))), [1, n - 1]);
    const roots = linalg.eigvals(concatenate([first, eyeBelow(n - 1, dt)], { axis: 0 }));
    return trailing ? concatenate([roots, tail]) : roots;
  });
}

/** Rows 1 .. n - 1 of diag(ones(n - 1), -1), n x n: a one at (i, i - 1). */
function eyeBelow(n: number, dt: DType): Tensor {
  return astype(equal(reshape(arange(1, n, 1, 'int64'), [-1, 1]), reshape(arange(1, n + 1, 1, 'int64'), [1, -1])), dt);
}

/**
 * poly(seq_of_zeros): the monic polynomial with those roots (of a square
 * matrix: its characteristic polynomial, from eigvals); 1.0 for no roots.
 */
export function poly(seqOfZeros: Operand): Tensor | number {
  let z = toTensor(seqOfZeros);
  if (z.ndim === 0) z = reshape(z, [1]);
  const sh = z.shape;
  if (sh.length === 2 && sh[0] === sh[1] && sh[0] !== 0) z = linalg.eigvals(z);
  else if (sh.length === 1) z = astype(z, z.dtype === 'float32' || z.dtype === 'float16' ? 'float32' : 'float64');
  else throw new RangeError('input must be 1d or non-empty square 2d array.');
  const n = z.shape[0]!;
  if (hasUnknown(z.shape)) return deferred('poly', [z], ([u]) => poly(u!) as Tensor);
  if (n === 0) return 1.0;
  let a = tensor([1], { dtype: z.dtype });
  for (let k = 0; k < n; k++) a = convolve(a, stack([tensor(1, { dtype: z.dtype }), negative(z.get(k))]));
  return a;
}

/** polyder(p, m=1): the m-th derivative's coefficients. */
export function polyder(p: Operand, ...args: Args): Tensor {
  const o = kwargs<{ m?: number }>('polyder', args, ['m']);
  const m = Math.trunc(o.m ?? 1);
  if (m < 0) throw new RangeError('Order of derivative must be positive (see polyint)');
  let t = coeffs('polyder', p);
  for (let k = 0; k < m; k++) {
    const n = t.shape[0]! - 1;
    if (hasUnknown(t.shape)) return deferred('polyder', [t], ([u]) => polyder(u!, m - k));
    t = multiply(t.get(':-1'), arange(n, 0, -1, 'int64'));
  }
  return t;
}

/** polyint(p, m=1, k=None): the m-th antiderivative, integration constants k (0 by default). */
export function polyint(p: Operand, ...args: Args): Tensor {
  const o = kwargs<{ m?: number; k?: Operand | null }>('polyint', args, ['m', 'k']);
  const m = Math.trunc(o.m ?? 1);
  if (m < 0) throw new RangeError('Order of integral must be positive (see polyder)');
  let k = o.k === undefined || o.k === null ? zeros([m]) : toTensor(o.k);
  if (k.ndim === 0) k = reshape(k, [1]);
  if (k.shape[0] === 1 && m > 1) k = multiply(k.get(0), zeros([m]).add(1));
  if (k.shape[0]! < m) throw new RangeError('k must be a scalar or a rank-1 array of length 1 or >m.');
  let t = coeffs('polyint', p);
  for (let j = 0; j < m; j++) {
    if (hasUnknown(t.shape)) return deferred('polyint', [t], ([u]) => polyint(u!, m - j, { k: k.get(`${j}:`) }));
    t = concatenate([divide(t, arange(t.shape[0]!, 0, -1, 'int64')), reshape(k.get(j), [1])]);
  }
  return t;
}

/** The shorter of a and b padded with leading zeros (of its own dtype) to the other's length. */
function aligned(fn: string, a: Operand, b: Operand): [Tensor, Tensor] {
  const x = coeffs(fn, a), y = coeffs(fn, b);
  if (hasUnknown(x.shape) || hasUnknown(y.shape)) throw new TypeError(`${fn}(): a coefficient array's length is known only at run time (after a boolean mask): execute() it first`);
  const d = y.shape[0]! - x.shape[0]!;
  if (d > 0) return [concatenate([zeros([d], { dtype: x.dtype }), x]), y];
  if (d < 0) return [x, concatenate([zeros([-d], { dtype: y.dtype }), y])];
  return [x, y];
}

/** polyadd(a1, a2): the sum, the shorter array padded with leading zeros (once the run knows lengths it has yet to compute). */
export const polyadd = (a1: Operand, a2: Operand): Tensor =>
  whenKnown('polyadd', [coeffs('polyadd', a1), coeffs('polyadd', a2)], (x, y) => polyadd(x, y)) ?? add(...aligned('polyadd', a1, a2));
/** polysub(a1, a2): the difference, the shorter array padded with leading zeros. */
export const polysub = (a1: Operand, a2: Operand): Tensor =>
  whenKnown('polysub', [coeffs('polysub', a1), coeffs('polysub', a2)], (x, y) => polysub(x, y)) ?? subtract(...aligned('polysub', a1, a2));

/** poly1d's coefficients: leading zeros trimmed ([0] when all are zero), needing the values. */
function trimmedFront(fn: string, p: Operand): Tensor {
  const t = coeffs(fn, p);
  return valuesOf(fn, [t], t.dtype, ([v]) => {
    const first = v!.findIndex((x) => x !== 0);
    return first < 0 ? zeros([1], { dtype: t.dtype }) : first === 0 ? t : t.get(`${first}:`);
  });
}

/** polymul(a1, a2): the product, convolve of the two with their leading zeros trimmed (as poly1d trims them). */
export function polymul(a1: Operand, a2: Operand): Tensor {
  const x = trimmedFront('polymul', a1), y = trimmedFront('polymul', a2);
  return hasUnknown(x.shape) || hasUnknown(y.shape) ? deferred('polymul', [x, y], ([u, v]) => convolve(u!, v!)) : convolve(x, y);
}

/**
 * polydiv(u, v): [quotient, remainder] by NumPy's long division, in its
 * order of operations and dtype (float64, or float32 when both are), the
 * remainder's leading zeros (within 1e-14 of 0) dropped as NumPy drops them.
 */
export function polydiv(u: Operand, v: Operand): [Tensor, Tensor] {
  const tu = coeffs('polydiv', u), tv = coeffs('polydiv', v);
  const both32 = (d: DType) => d === 'float32' || d === 'float16';
  const dt: DType = both32(tu.dtype) && both32(tv.dtype) ? 'float32' : promoteTypes(isFloat(tu.dtype) ? tu.dtype : 'float64', isFloat(tv.dtype) ? tv.dtype : 'float64') === 'float32' ? 'float32' : 'float64';
  const r32 = dt === 'float32' ? Math.fround : (x: number) => x;
  const divide1 = ([uv, vv]: number[][]): [number[], number[]] => {
    const U = uv!.map(r32), V = vv!.map(r32);
    const m = U.length - 1, n = V.length - 1;
    const scale = r32(1 / V[0]!);
    const q = new Array<number>(Math.max(m - n + 1, 1)).fill(0);
    const r = U.slice();
    for (let k = 0; k < m - n + 1; k++) {
      const d = r32(scale * r[k]!);
      q[k] = d;
      for (let j = 0; j <= n; j++) r[k + j] = r32(r[k + j]! - r32(d * V[j]!));
    }
    // NumPy: while allclose(r[0], 0, rtol=1e-14) and len(r) > 1: r = r[1:]
    while (r.length > 1 && Math.abs(r[0]!) <= 1e-8) r.shift();
    return [q, r];
  };
  const part = (i: 0 | 1) => valuesOf('polydiv', [tu, tv], dt, (vals) => tensor(divide1(vals)[i], { dtype: dt }));
  return [part(0), part(1)];
}

/**
 * unwrap(p, discont=None, axis=-1, *, period=2*pi): p with jumps of more
 * than max(discont, period / 2) along `axis` replaced by their complement
 * modulo period, as NumPy computes it (its boundary rule included).
 */
export function unwrap(p: Operand, ...args: Args): Tensor {
  const o = kwargs<{ discont?: number | null; axis?: number; period?: number }>('unwrap', args, ['discont', 'axis'], ['period']);
  const t = toTensor(p);
  const axis = o.axis ?? -1;
  const period = o.period ?? 2 * Math.PI;
  const discont = o.discont ?? period / 2;
  const dd = diff(t, { axis });
  const intLike = !isFloat(dd.dtype) && Number.isInteger(period);
  const high = intLike ? Math.floor(period / 2) : period / 2;
  const ambiguous = intLike ? period % 2 === 0 : true;
  const low = -high;
  let ddmod = add(mod(subtract(dd, low), period), low);
  if (ambiguous) ddmod = where(logical_and(equal(ddmod, low), greater(dd, 0)), high, ddmod);
  const correct = where(less(abs(dd), discont), 0, subtract(ddmod, dd));
  const ax = axis < 0 ? axis + t.ndim : axis;
  const index = (s: string) => t.shape.map((_, i) => (i === ax ? s : ':'));
  const head = t.get(...index(':1'));
  const rest = add(t.get(...index('1:')), cumsum(correct, { axis: ax }));
  // the first entry as it is, the rest corrected (an integer p with a float period: float64, NumPy's result_type)
  return concatenate([head, rest], { axis: ax });
}
