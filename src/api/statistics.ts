// NumPy functions composed of the core ops: comparisons with a tolerance
// (isclose, allclose, array_equal), differences and weighted means (diff,
// average), NaN-skipping variance and product, covariance and correlation
// (cov, corrcoef, through one matmul), angle conversions, logspace and the
// stacking helpers (column_stack, dstack, atleast_1d/2d/3d). Each follows
// NumPy's signature through `kwargs` and fuses like the ops it is made of.
// In: tensors and NumPy's arguments. Out: lazy Tensors.

import { isFloat } from '../graph/dtype.js';
import { normalizeAxis } from '../graph/shape.js';
import {
  type Operand, Tensor, abs, add, all, astype, broadcast_to, concatenate, divide, isnan, kwargs, less_equal, linspace, logical_and,
  logical_not, logical_or, matmul, mean, multiply, power, prod, reshape, sqrt, subtract, sum, toTensor, where, equal, isfinite,
  minimum, maximum, not_equal, tensor, transpose,
} from './tensor.js';
import { diagonal } from './manipulate.js';

type Args = unknown[];

/** Floats as NumPy's tolerance functions see them: integers and bools compare as float64. */
const asFloat = (x: Operand): Tensor => { const t = toTensor(x); return isFloat(t.dtype) ? t : astype(t, 'float64'); };

/** isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False): |a - b| <= atol + rtol * |b|, infinities equal only to themselves. */
export function isclose(a: Operand, b: Operand, ...args: Args): Tensor {
  const o = kwargs<{ rtol?: number; atol?: number; equal_nan?: boolean }>('isclose', args, ['rtol', 'atol', 'equal_nan']);
  const x = asFloat(a), y = asFloat(b);
  const close = logical_and(less_equal(abs(subtract(x, y)), add(multiply(abs(y), o.rtol ?? 1e-5), o.atol ?? 1e-8)), isfinite(y));
  const r = logical_or(close, equal(x, y));
  return o.equal_nan ? logical_or(r, logical_and(isnan(x), isnan(y))) : r;
}

/** allclose(a, b, rtol, atol, equal_nan): a 0-d bool tensor (NumPy returns a Python bool). */
export const allclose = (a: Operand, b: Operand, ...args: Args): Tensor => all(isclose(a, b, ...args));

/** array_equal(a1, a2, equal_nan=False): same shape and equal elements, as a 0-d bool tensor. */
export function array_equal(a: Operand, b: Operand, ...args: Args): Tensor {
  const o = kwargs<{ equal_nan?: boolean }>('array_equal', args, ['equal_nan']);
  const x = toTensor(a), y = toTensor(b);
  if (x.ndim !== y.ndim || x.shape.some((d, i) => d !== y.shape[i])) return tensor(false);
  const eq = equal(x, y);
  return all(o.equal_nan && isFloat(x.dtype) && isFloat(y.dtype) ? logical_or(eq, logical_and(isnan(x), isnan(y))) : eq);
}

/** diff(a, n=1, axis=-1, prepend, append): n-th differences along axis (not_equal for booleans, as NumPy). */
export function diff(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ n?: number; axis?: number; prepend?: Operand; append?: Operand }>('diff', args, ['n', 'axis', 'prepend', 'append']);
  let t = toTensor(a);
  if (t.ndim === 0) throw new RangeError('diff requires input that is at least one dimensional');
  const n = o.n ?? 1;
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`order must be non-negative but got ${String(n)}`);
  const axis = normalizeAxis(o.axis ?? -1, t.ndim);
  const edge = (v: Operand) => {
    const e = toTensor(v);
    return e.ndim === 0 ? broadcast_to(e, t.shape.map((d, i) => (i === axis ? 1 : d))) : e;
  };
  if (o.prepend !== undefined || o.append !== undefined) {
    t = concatenate([...(o.prepend !== undefined ? [edge(o.prepend)] : []), t, ...(o.append !== undefined ? [edge(o.append)] : [])], { axis });
  }
  for (let k = 0; k < n; k++) {
    const len = t.shape[axis]!;
    const hi = t.get(...t.shape.map((_, i) => (i === axis ? `1:${len}` : ':')));
    const lo = t.get(...t.shape.map((_, i) => (i === axis ? `0:${Math.max(0, len - 1)}` : ':')));
    t = t.dtype === 'bool' ? not_equal(hi, lo) : subtract(hi, lo);
  }
  return t;
}

/** average(a, axis=None, weights=None, returned=False, keepdims=False): the weighted mean. */
export function average(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | number[] | null; weights?: Operand; returned?: boolean; keepdims?: boolean }>('average', args, ['axis', 'weights', 'returned'], ['keepdims']);
  if (o.returned) throw new TypeError('average(): returned=True is not supported (compute the sum of weights separately)');
  const t = toTensor(a);
  const keepdims = o.keepdims ?? false;
  if (o.weights === undefined || o.weights === null) return mean(t, { axis: o.axis ?? null, keepdims });
  let w = toTensor(o.weights);
  if (w.ndim !== t.ndim) {
    if (o.axis === undefined || o.axis === null) throw new TypeError('Axis must be specified when shapes of a and weights differ.');
    if (w.ndim !== 1 || typeof o.axis !== 'number') throw new TypeError('1D weights expected when shapes of a and weights differ.');
    const ax = normalizeAxis(o.axis, t.ndim);
    if (w.shape[0] !== t.shape[ax]) throw new RangeError('Length of weights not compatible with specified axis.');
    w = reshape(w, t.shape.map((d, i) => (i === ax ? d : 1)));
  }
  const ao = { axis: o.axis ?? null, keepdims };
  const wf = asFloat(w);
  return divide(sum(multiply(asFloat(t), wf), ao), sum(wf, ao));
}

/** nanvar(a, axis, dtype, out, ddof, keepdims): the variance of the values that are not NaN. */
export function nanvar(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | number[] | null; dtype?: string; ddof?: number; keepdims?: boolean }>('nanvar', args, ['axis', 'dtype', 'out', 'ddof', 'keepdims']);
  const t = asFloat(o.dtype ? astype(a, o.dtype) : a);
  const ok = logical_not(isnan(t));
  const axis = o.axis ?? null;
  const count = sum(astype(ok, t.dtype), { axis, keepdims: true });
  const m = divide(sum(where(ok, t, 0), { axis, keepdims: true }), count);
  const dev = where(ok, subtract(t, m), 0);
  const ss = sum(multiply(dev, dev), { axis, keepdims: o.keepdims ?? false });
  const n = maximum(subtract(sum(astype(ok, t.dtype), { axis, keepdims: o.keepdims ?? false }), o.ddof ?? 0), 0);
  return divide(ss, n);
}
export const nanstd = (a: Operand, ...args: Args): Tensor => sqrt(nanvar(a, ...args));

/** nanprod(a, axis, dtype, out, keepdims): NaNs count as one. */
export function nanprod(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | number[] | null; dtype?: string; keepdims?: boolean }>('nanprod', args, ['axis', 'dtype', 'out', 'keepdims']);
  const t = toTensor(a);
  return prod(isFloat(t.dtype) ? where(isnan(t), 1, t) : t, o);
}

/** cov(m, y=None, rowvar=True, bias=False, ddof=None): rows are variables (columns with rowvar=False). */
export function cov(m: Operand, ...args: Args): Tensor {
  const o = kwargs<{ y?: Operand | null; rowvar?: boolean; bias?: boolean; ddof?: number | null }>('cov', args, ['y', 'rowvar', 'bias', 'ddof']);
  const rows = (v: Operand) => {
    let x = asFloat(v);
    if (x.ndim > 2) throw new RangeError('m has more than 2 dimensions');
    if (x.ndim < 2) x = reshape(x, [1, -1]);
    return o.rowvar === false && x.shape[0] !== 1 ? transpose(x) : x;
  };
  let x = rows(m);
  if (o.y !== undefined && o.y !== null) x = concatenate([x, rows(o.y)], { axis: 0 });
  const ddof = o.ddof ?? (o.bias ? 0 : 1);
  const n = x.shape[1]!;
  const dev = subtract(x, mean(x, { axis: 1, keepdims: true }));
  const c = divide(matmul(dev, transpose(dev)), Math.max(n - ddof, 0));
  return c.shape[0] === 1 ? reshape(c, []) : c;
}

/** corrcoef(x, y=None, rowvar=True): Pearson correlation coefficients, clipped to [-1, 1] as NumPy does. */
export function corrcoef(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ y?: Operand | null; rowvar?: boolean }>('corrcoef', args, ['y', 'rowvar']);
  const c = cov(x, { y: o.y ?? null, rowvar: o.rowvar ?? true });
  if (c.ndim === 0) return divide(c, c);
  const d = sqrt(diagonal(c));
  const r = divide(divide(c, reshape(d, [-1, 1])), reshape(d, [1, -1]));
  return maximum(minimum(r, 1), -1);
}

export const deg2rad = (x: Operand): Tensor => multiply(asFloat(x), Math.PI / 180);
export const rad2deg = (x: Operand): Tensor => multiply(asFloat(x), 180 / Math.PI);
export const radians = deg2rad, degrees = rad2deg;

/** logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None): base ** linspace(start, stop, num). */
export function logspace(start: number, stop: number, ...args: Args): Tensor {
  const o = kwargs<{ num?: number; endpoint?: boolean; base?: number; dtype?: string }>('logspace', args, ['num', 'endpoint', 'base', 'dtype']);
  const y = linspace(start, stop, o.num ?? 50, { endpoint: o.endpoint ?? true });
  const r = power(o.base ?? 10, y);
  return o.dtype ? astype(r, o.dtype) : r;
}

/** atleast_1d/2d/3d: NumPy's shapes ((1,), (1, n), (1, n, 1), (m, n, 1)); one array, or a list for several. */
function atleast(nd: 1 | 2 | 3, xs: Operand[]): Tensor | Tensor[] {
  const one = (v: Operand): Tensor => {
    const t = toTensor(v);
    if (t.ndim >= nd) return t;
    if (t.ndim === 0) return reshape(t, Array(nd).fill(1));
    if (nd === 2) return reshape(t, [1, ...t.shape]);
    return t.ndim === 1 ? reshape(t, [1, t.shape[0]!, 1]) : reshape(t, [...t.shape, 1]);
  };
  return xs.length === 1 ? one(xs[0]!) : xs.map(one);
}
export const atleast_1d = (...xs: Operand[]): Tensor | Tensor[] => atleast(1, xs);
export const atleast_2d = (...xs: Operand[]): Tensor | Tensor[] => atleast(2, xs);
export const atleast_3d = (...xs: Operand[]): Tensor | Tensor[] => atleast(3, xs);

/** column_stack(tup): 1-d arrays become columns, then all join along axis 1. */
export function column_stack(xs: readonly Operand[]): Tensor {
  return concatenate(xs.map((v) => { const t = toTensor(v); return t.ndim < 2 ? reshape(t, [-1, 1]) : t; }), { axis: 1 });
}
/** dstack(tup): arrays at least 3-d, joined along axis 2. */
export function dstack(xs: readonly Operand[]): Tensor {
  return concatenate(xs.map((v) => atleast(3, [v]) as Tensor), { axis: 2 });
}
