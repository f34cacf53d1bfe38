// NumPy functions composed of the core ops: comparisons with a tolerance
// (isclose, allclose, array_equal), differences and weighted means (diff,
// average), NaN-skipping variance and product, covariance and correlation
// (cov, corrcoef, through one matmul), angle conversions, logspace and the
// stacking helpers (column_stack, dstack, atleast_1d/2d/3d), sorts and
// quantiles (weighted ones composed of argsort, gathers and a cumulative
// sum; the others computed on the host, numerics/quantile.ts). Each follows
// NumPy's signature through `kwargs` and fuses like the ops it is made of.
// In: tensors and NumPy's arguments. Out: lazy Tensors.

import { type DType, floatResultOf, isFloat, promoteTypes } from '../graph/dtype.js';
import { dtypeArg } from './convert.js';
import { QUANTILE_METHODS, type QKind, type QuantileSpec, isQuantileMethod, takesValues } from '../graph/quantile.js';
import { broadcastShapes, normalizeAxes, normalizeAxis, repr } from '../graph/shape.js';
import { kwargs, pyType } from './bind.js';
import {
  type Operand, Tensor, abs, add, all, astype, broadcast_to, concatenate, divide, isnan, less_equal, linspace, logical_and, logical_not, logical_or,
  matmul, mean, multiply, power, prod, reshape, sqrt, subtract, sum, toTensor, where, equal, isfinite, minimum, maximum, not_equal, tensor,
  transpose, moveaxis, expand_dims, full_like, isTensor, deferred, any, cumsum, less, take, zeros, around, onValues, whenKnown,
} from './core.js';
import { runtime } from '../runtime/runtime.js';
import * as G from '../graph/node.js';
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
  // whether the shapes agree is known once the lengths are
  const later = whenKnown('array_equal', [x, y], (u, v) => array_equal(u, v, o));
  if (later) return later;
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
  if (!Number.isInteger(n)) throw new TypeError(`'${pyType(n)}' object cannot be interpreted as an integer`);
  if (n < 0) throw new RangeError(`order must be non-negative but got ${repr(n)}`);
  const axis = normalizeAxis(o.axis ?? -1, t.ndim);
  // the differences are slices of known lengths: built once the run knows them
  const later = whenKnown('diff', [t, o], (u, w) => diff(u, w));
  if (later) return later;
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

/**
 * average(a, axis=None, weights=None, returned=False, keepdims=False): the
 * weighted mean; with returned=True, [mean, sum of weights] (the sum
 * broadcast to the mean's shape), as NumPy's tuple.
 */
export function average(a: Operand, ...args: [...unknown[], { returned: true }]): [Tensor, Tensor];
export function average(a: Operand, ...args: Args): Tensor;
export function average(a: Operand, ...args: Args): Tensor | [Tensor, Tensor] {
  const o = kwargs<{ axis?: number | number[] | null; weights?: Operand; returned?: boolean; keepdims?: boolean }>('average', args, ['axis', 'weights', 'returned'], ['keepdims']);
  const t = toTensor(a);
  // 1-d weights' length is checked against the array's axis, and the count of terms read, once the run knows them
  // (weights of a's shape broadcast with it as they are, checked when the run rebuilds them)
  if (o.returned) {
    const parts = [0, 1].map((i) => whenKnown('average', [t, o], (u, w) => average(u, { ...w, returned: true })[i]!));
    if (parts[0]) return parts as [Tensor, Tensor];
  }
  const w1 = o.weights === undefined || o.weights === null ? undefined : toTensor(o.weights);
  const later = w1 && w1.ndim !== t.ndim ? whenKnown('average', [t, o], (u, w) => average(u, w)) : undefined;
  if (later) return later;
  const keepdims = o.keepdims ?? false;
  if (o.weights === undefined || o.weights === null) {
    const avg = mean(t, { axis: o.axis ?? null, keepdims });
    // the count of each mean's terms, in its dtype
    return o.returned ? [avg, full_like(avg, t.size / Math.max(1, avg.size))] : avg;
  }
  let w = toTensor(o.weights);
  if (w.ndim !== t.ndim) {
    if (o.axis === undefined || o.axis === null) throw new TypeError('Axis must be specified when shapes of a and weights differ.');
    if (w.ndim !== 1 || typeof o.axis !== 'number') throw new TypeError('1D weights expected when shapes of a and weights differ.');
    const ax = normalizeAxis(o.axis, t.ndim);
    if (w.shape[0] !== t.shape[ax]) throw new RangeError('Length of weights not compatible with specified axis.');
    w = reshape(w, t.shape.map((d, i) => (i === ax ? d : 1)));
  }
  const ao = { axis: o.axis ?? null, keepdims };
  // NumPy's result dtype: of a and the weights, and at least float64 for integer or bool data.
  const rd = isFloat(t.dtype) ? promoteTypes(t.dtype, w.dtype) : promoteTypes(promoteTypes(t.dtype, w.dtype), 'float64');
  const wf = astype(w, rd);
  // NumPy raises for weights that sum to zero; the sums are known when the run reaches them.
  const scl = new Tensor(G.check(sum(wf, ao).node, 'nonzero', 'ZeroDivisionError', "Weights sum to zero, can't be normalized"));
  const avg = divide(sum(multiply(astype(t, rd), wf), ao), scl);
  return o.returned ? [avg, scl.shape.length === avg.shape.length && scl.shape.every((d, i) => d === avg.shape[i]) ? scl : broadcast_to(scl, avg.shape)] : avg;
}

/** nanvar(a, axis, dtype, out, ddof, keepdims): the variance of the values that are not NaN. */
export const nanvar = (a: Operand, ...args: Args): Tensor => nanVariance('nanvar', a, args);
/** nanstd(a, axis, dtype, out, ddof, keepdims): its square root. */
export const nanstd = (a: Operand, ...args: Args): Tensor => sqrt(nanVariance('nanstd', a, args));

function nanVariance(fn: string, a: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number | number[] | null; dtype?: string; ddof?: number; keepdims?: boolean }>(fn, args, ['axis', 'dtype', 'out', 'ddof', 'keepdims']);
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

/** nanprod(a, axis, dtype, out, keepdims): NaNs count as one. */
export function nanprod(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | number[] | null; dtype?: string; keepdims?: boolean }>('nanprod', args, ['axis', 'dtype', 'out', 'keepdims']);
  const t = toTensor(a);
  return prod(isFloat(t.dtype) ? where(isnan(t), 1, t) : t, o);
}

/**
 * cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
 * aweights=None): rows are variables (columns with rowvar=False). With
 * weights, NumPy's weighted means and normalisation: w = fweights *
 * aweights, and the sum of w less ddof (times sum(w * aweights) / sum(w)
 * with aweights) as the divisor, 0 (inf or NaN entries) when not positive.
 */
export function cov(m: Operand, ...args: Args): Tensor {
  const o = kwargs<{ y?: Operand | null; rowvar?: boolean; bias?: boolean; ddof?: number | null; fweights?: Operand | null; aweights?: Operand | null; dtype?: string | null }>(
    'cov', args, ['y', 'rowvar', 'bias', 'ddof', 'fweights', 'aweights'], ['dtype']);
  // the count of observations divides: built once the run knows it
  const later = whenKnown('cov', [m, o], (u, w) => cov(u, w));
  if (later) return later;
  if (o.ddof !== undefined && o.ddof !== null && !Number.isInteger(o.ddof)) throw new TypeError('ddof must be integer');
  // NumPy computes covariances in float64 whatever the input, or in dtype= (weights still make them float64);
  // rowvar=False transposes a 2-d m, and a y of more than one row.
  const dt = covDType(o.dtype);
  const rows = (v: Operand, name: 'm' | 'y') => {
    let x = astype(v, dt);
    if (x.ndim > 2) throw new RangeError(`${name} has more than 2 dimensions`);
    const oneD = x.ndim < 2;
    if (oneD) x = reshape(x, [1, -1]);
    return o.rowvar === false && (name === 'm' ? !oneD : x.shape[0] !== 1) ? transpose(x) : x;
  };
  let x = rows(m, 'm');
  if (o.y !== undefined && o.y !== null) x = concatenate([x, rows(o.y, 'y')], { axis: 0 });
  const ddof = o.ddof ?? (o.bias ? 0 : 1);
  const n = x.shape[1]!;
  const f = o.fweights === undefined || o.fweights === null ? undefined : observationWeights('fweights', o.fweights, n);
  const aw = o.aweights === undefined || o.aweights === null ? undefined : observationWeights('aweights', o.aweights, n);
  const w = f && aw ? multiply(f, aw) : f ?? aw;
  let c: Tensor;
  if (!w) {
    const dev = subtract(x, mean(x, { axis: 1, keepdims: true }));
    // as NumPy: times the reciprocal (a weak float, so float32 stays float32)
    c = multiply(matmul(dev, transpose(dev)), 1 / Math.max(n - ddof, 0));
  } else {
    const byRow = { axis: 1, weights: w, returned: true as const };
    const [avg, wsums] = average(x, byRow);
    const wsum = wsums.get(0);
    let fact = ddof === 0 ? wsum : !aw ? subtract(wsum, ddof) : subtract(wsum, divide(multiply(ddof, sum(multiply(w, aw))), wsum));
    fact = where(less_equal(fact, 0), 0, fact);
    const dev = subtract(x, reshape(avg, [-1, 1]));
    c = multiply(matmul(dev, transpose(multiply(dev, w))), divide(1, fact));
  }
  return c.shape[0] === 1 ? reshape(c, []) : c;
}

/** cov's and corrcoef's dtype=: float64 by default; an integer one fails where NumPy's subtract of the means does. */
function covDType(d: string | null | undefined): DType {
  const dt = dtypeArg(d) ?? 'float64';
  if (!isFloat(dt)) throw new TypeError(`Cannot cast ufunc 'subtract' output from dtype('float64') to dtype('${dt}') with casting rule 'same_kind'`);
  return dt;
}

/**
 * cov's fweights or aweights as float64, with NumPy's checks in its order:
 * integer values (fweights), 1-d, one per observation, none negative. The
 * value checks of weights not computed yet fail the run when it reaches
 * them.
 */
function observationWeights(name: 'fweights' | 'aweights', v: Operand, n: number): Tensor {
  const t = toTensor(v);
  const values = runtime.has(t.node) ? Array.from(runtime.values(t.node), Number) : undefined;
  const INTEGER = 'fweights must be integer', NEGATIVE = `${name} cannot be negative`;
  // NumPy's fweights == around(fweights): NaN fails, infinities pass
  if (name === 'fweights' && values?.some((x) => Number.isNaN(x) || (Number.isFinite(x) && !Number.isInteger(x)))) throw new TypeError(INTEGER);
  if (t.ndim > 1) throw runtimeError(`cannot handle multidimensional ${name}`);
  if (t.ndim === 0) throw new RangeError('tuple index out of range');
  if (!Number.isNaN(t.shape[0]) && !Number.isNaN(n) && t.shape[0] !== n) throw runtimeError(`incompatible numbers of samples and ${name}`);
  if (values?.some((x) => x < 0)) throw new RangeError(NEGATIVE);
  let w = astype(t, 'float64');
  if (values) return w;
  const guard = (ok: Tensor, error: string, message: string) => where(new Tensor(G.check(ok.node, 'nonzero', error, message)), w, 0);
  if (name === 'fweights') w = guard(all(equal(w, around(w))), 'TypeError', INTEGER);
  return guard(logical_not(any(less(w, 0))), 'RangeError', NEGATIVE);
}

/** NumPy's RuntimeError, which JavaScript lacks: an Error of that name. */
const runtimeError = (message: string): Error => Object.assign(new Error(message), { name: 'RuntimeError' });

/** corrcoef(x, y=None, rowvar=True): Pearson correlation coefficients, clipped to [-1, 1] as NumPy does. */
export function corrcoef(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ y?: Operand | null; rowvar?: boolean; dtype?: string | null }>('corrcoef', args, ['y', 'rowvar'], ['dtype']);
  const later = whenKnown('corrcoef', [x, o], (u, w) => corrcoef(u, w));
  if (later) return later;
  const c = cov(x, { y: o.y ?? null, rowvar: o.rowvar ?? true, dtype: o.dtype ?? null });
  if (c.ndim === 0) return divide(c, c);
  const d = sqrt(diagonal(c));
  const r = divide(divide(c, reshape(d, [-1, 1])), reshape(d, [1, -1]));
  return maximum(minimum(r, 1), -1);
}

/** Integers convert as NumPy's float ufuncs do (int16 to float32, wider to float64). */
const floatOf = (x: Operand): Tensor => { const t = toTensor(x); return isFloat(t.dtype) ? t : astype(t, floatResultOf(t.dtype)); };
export const deg2rad = (x: Operand): Tensor => multiply(floatOf(x), Math.PI / 180);
export const rad2deg = (x: Operand): Tensor => multiply(floatOf(x), 180 / Math.PI);
export const radians = deg2rad, degrees = rad2deg;

/**
 * logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
 * base ** linspace(start, stop, num); an array base broadcasts with the bounds
 * and gets the samples' axis, as NumPy's.
 */
export function logspace(start: Operand, stop: Operand, ...args: Args): Tensor {
  const o = kwargs<{ num?: number; endpoint?: boolean; base?: Operand; dtype?: string; axis?: number }>('logspace', args, ['num', 'endpoint', 'base', 'dtype', 'axis']);
  const axis = o.axis ?? 0;
  let base: Operand = o.base ?? 10, s = start, e = stop;
  if (typeof base !== 'number' && typeof base !== 'boolean' && toTensor(base).ndim > 0) {
    // np.array(a, ndmin=ndmax) for the three, then the base gets the new axis
    const ts = [start, stop, base].map(toTensor);
    const nd = broadcastShapes(...ts.map((t) => t.shape)).length;
    const [s2, e2, b2] = ts.map((t) => reshape(t, [...Array(nd - t.ndim).fill(1), ...t.shape]));
    s = s2!; e = e2!; base = expand_dims(b2!, axis);
  }
  const y = linspace(s, e, o.num ?? 50, { endpoint: o.endpoint ?? true, axis });
  const r = power(base, y);
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

/** The axis a sort-based function works along, with the array flattened for axis=None. */
function alongAxis(a: Operand, axis: number | null | undefined, fallback: number | null): [Tensor, number] {
  let t = toTensor(a);
  const ax = axis === undefined ? fallback : axis;
  // (a 1-d tensor stays as it is: its length may be known only at run time)
  if (ax === null && t.ndim !== 1) t = reshape(t, [-1]);
  if (t.ndim === 0) throw new RangeError('axis 0 is out of bounds for array of dimension 0');
  return [t, normalizeAxis(ax ?? 0, t.ndim)];
}

/** Python's type name of a JS value, for NumPy's TypeError texts. */

type SortOpts = { axis?: number | null; kind?: string | null; order?: unknown; stable?: boolean | null };

/**
 * NumPy's checks of sort's kind=, stable= and order=. Every kind (its first
 * letter: q, h, m or s, as NumPy reads it) gives the stable sort: equal
 * values keep their order, which is a valid answer for 'quicksort' and
 * 'heapsort' too (they promise no order among ties), and exactly NumPy's for
 * 'mergesort' and 'stable'. So results equal NumPy's whatever the kind.
 */
function checkSortKind(o: SortOpts): void {
  if (o.order !== undefined && o.order !== null) throw new RangeError('Cannot specify order when the array has no fields.');
  if (o.kind === undefined || o.kind === null) return;
  if (o.stable !== undefined && o.stable !== null) throw new RangeError("`kind` and keyword parameters can't be provided at the same time. Use only one of them.");
  if (typeof o.kind !== 'string') throw new TypeError(`sort kind must be str, not ${pyType(o.kind)}`);
  if (!'qhms'.includes(o.kind.charAt(0).toLowerCase()) || o.kind === '') throw new RangeError(`sort kind must be one of 'quick', 'heap', or 'stable' (got '${o.kind}')`);
}

/** sort(a, axis=-1, kind=None, order=None, *, stable=None): a sorted copy; NaNs last, ties in order (a stable sort for every kind, see checkSortKind). */
export function sort(a: Operand, ...args: Args): Tensor {
  const o = kwargs<SortOpts>('sort', args, ['axis', 'kind', 'order'], ['stable']);
  checkSortKind(o);
  const [t, ax] = alongAxis(a, o.axis, -1);
  return new Tensor(G.sort(t.node, ax, false));
}

/** argsort(a, axis=-1, kind=None, order=None, *, stable=None): the int64 positions that sort a along axis (stable for every kind). */
export function argsort(a: Operand, ...args: Args): Tensor {
  const o = kwargs<SortOpts>('argsort', args, ['axis', 'kind', 'order'], ['stable']);
  checkSortKind(o);
  const [t, ax] = alongAxis(a, o.axis, -1);
  return new Tensor(G.sort(t.node, ax, true));
}

/** The stable order of a 1-d tensor. */
const order1d = (t: Tensor): Tensor => new Tensor(G.sort(t.node, 0, true));

/** The stable lexicographic order of the rows of a 2-d tensor (column 0 first): stable sorts from the last column to the first. */
function rowOrder(rows: Tensor): Tensor {
  const [n, m] = [rows.shape[0]!, rows.shape[1]!];
  let perm = astype(new Tensor(G.iota([n], 0)), 'int64');
  for (let j = m - 1; j >= 0; j--) {
    const col = reshape(rows.get(':', `${j}:${j + 1}`), [n]);
    perm = take(perm, order1d(take(col, perm)));
  }
  return perm;
}

interface UniqueParts { values: Tensor; index: Tensor; inverse: Tensor; starts: Tensor; ends: Tensor }

/**
 * The parts (buildParts) for the pieces of one unique() call: each piece is built apart
 * (values, counts, ...) over the same computed input, and shares one sort.
 * A later call sorts again: a memo kept past the call would hold a sorted
 * copy of the input for as long as the input lives.
 */
function partsOnce(equalNan: boolean): (rows: Tensor) => UniqueParts {
  let memo: { node: G.Node; parts: UniqueParts } | undefined;
  return (rows) => {
    if (memo?.node !== rows.node) memo = { node: rows.node, parts: buildParts(rows, equalNan) };
    return memo.parts;
  };
}

/**
 * NumPy's _unique1d over the rows of `rows` (n x m, or a 1-d tensor of n
 * values): the stable order, a mask of each run's first element in sorted
 * order, and from them the values and first positions (the mask), the
 * inverse (the run number of each sorted element, put back in input
 * order) and each run's start and end (counts are their difference).
 * equalNan: NaNs of a 1-d tensor form one run, as NumPy's equal_nan=True;
 * rows never do (NumPy compares them as records, where NaN != NaN).
 */
function buildParts(rows: Tensor, equalNan: boolean): UniqueParts {
  const n = rows.shape[0]!;
  // the order is made only for the pieces that need it (index, inverse): values and counts sort the values themselves
  let order: Tensor | undefined;
  const perm = (): Tensor => (order ??= rows.ndim === 1 ? order1d(rows) : rowOrder(rows));
  const s = rows.ndim === 1 ? sort(rows, 0, { kind: 'stable' }) : take(rows, perm(), { axis: 0 });
  let first: Tensor, last: Tensor;
  if (n === 0) {
    first = last = zeros([0], { dtype: 'bool' });
  } else {
    const hi = s.get(`1:${n}`), lo = s.get(`0:${n - 1}`);
    let fresh = not_equal(hi, lo);
    if (rows.ndim === 2) fresh = any(fresh, { axis: 1 });
    else if (equalNan && isFloat(s.dtype)) fresh = logical_and(fresh, logical_not(logical_and(isnan(hi), isnan(lo))));
    first = concatenate([tensor([true]), fresh]);
    last = concatenate([fresh, tensor([true])]);
  }
  // positions in sorted order, chunked as the sorted values are
  const at = new Tensor(G.iota([n], 0, [s.node.chunk[0]!]));
  return {
    values: s.get(first),
    get index() { return perm().get(first); },
    get inverse() { return take(subtract(cumsum(astype(first, 'int64')), 1), order1d(perm())); },
    starts: at.get(first),
    ends: add(at.get(last), 1),
  };
}

type UniqueOpts = { return_index?: boolean; return_inverse?: boolean; return_counts?: boolean; axis?: number | null; equal_nan?: boolean; sorted?: boolean };

/**
 * unique(ar, return_index=False, return_inverse=False, return_counts=False,
 * axis=None, *, equal_nan=True, sorted=True), as NumPy 2.4: the sorted
 * distinct values, or [values, index?, inverse?, counts?] (NumPy's tuple, in
 * its order) when a return_* is set. index: each value's first position
 * (int64); inverse: the value number of each element, of the input's shape
 * for axis=None (NumPy 2's rule) and 1-d along `axis`; counts: int64.
 * axis: the distinct slices along it, in lexicographic order (their
 * elements in C order), NaNs never equal there as in NumPy. equal_nan=False
 * keeps every NaN. sorted=False is accepted and the result sorted, which
 * NumPy allows. Lengths are known only at run time (boolean masks); every
 * piece is built over the executed input through `deferred`.
 */
export function unique(a: Operand): Tensor;
export function unique(a: Operand, ...args: Args): Tensor | Tensor[];
export function unique(a: Operand, ...args: Args): Tensor | Tensor[] {
  const o = kwargs<UniqueOpts>('unique', args, ['return_index', 'return_inverse', 'return_counts', 'axis'], ['equal_nan', 'sorted']);
  const t = toTensor(a);
  const equalNan = o.equal_nan ?? true;
  const axis = o.axis ?? null;
  let piece: (f: (p: UniqueParts) => Tensor) => Tensor;
  let inverseShape: (inv: Tensor) => Tensor;
  if (axis === null) {
    const flat = t.ndim === 1 ? t : reshape(t, [-1]);
    const parts = partsOnce(equalNan);
    piece = (f) => deferred('unique', [flat], ([x]) => f(parts(x!)));
    inverseShape = (inv) => (t.ndim === 1 || hasUnknownShape(t) ? inv : reshape(inv, t.shape));
  } else {
    const ax = normalizeAxis(axis, t.ndim);
    const rowsOf = (x: Tensor) => { const m = moveaxis(x, ax, 0); return reshape(m, [m.shape[0]!, m.shape.slice(1).reduce((p, d) => p * d, 1)]); };
    const rest = moveaxis(t, ax, 0).shape.slice(1);
    piece = (f) => deferred('unique', [t], ([x]) => f(buildParts(rowsOf(x!), false)));
    const values = piece((p) => p.values);
    // the distinct rows, back to slices along `axis` (their count known at run time)
    const slices = deferred('unique', [values], ([v]) => moveaxis(reshape(v!, [v!.shape[0]!, ...rest]), 0, ax));
    return pieces(o, slices, piece, (inv) => inv);
  }
  return pieces(o, piece((p) => p.values), piece, inverseShape);
}

const hasUnknownShape = (t: Tensor): boolean => t.shape.some((d) => Number.isNaN(d));

/** unique's result: the values alone, or NumPy's tuple of the pieces asked for. */
function pieces(o: UniqueOpts, values: Tensor, piece: (f: (p: UniqueParts) => Tensor) => Tensor, inverseShape: (inv: Tensor) => Tensor): Tensor | Tensor[] {
  if (!o.return_index && !o.return_inverse && !o.return_counts) return values;
  const r = [values];
  if (o.return_index) r.push(piece((p) => p.index));
  if (o.return_inverse) r.push(inverseShape(piece((p) => p.inverse)));
  if (o.return_counts) r.push(deferred('unique', [piece((p) => p.starts), piece((p) => p.ends)], ([s, e]) => subtract(e!, s!)));
  return r;
}

/**
 * The lines along the reduced axes (one, several, or all for None) as one
 * last axis; its length may be known only at run time (after a boolean mask).
 */
function linesOf(a: Tensor, axis: number | readonly number[] | null | undefined): Tensor {
  if (axis === undefined || axis === null) return reshape(a, [-1]);
  if (typeof axis === 'number') {
    if (a.ndim === 0) throw new RangeError(`axis ${axis} is out of bounds for array of dimension 0`);
    return moveaxis(a, axis, -1);
  }
  const axes = normalizeAxes(axis, a.ndim);
  const rest = a.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const t = transpose(a, [...rest, ...axes]);
  return axes.length === 1 ? t : reshape(t, [...t.shape.slice(0, rest.length), -1]);
}

/** Reshapes a result reduced over `axis` back to keepdims form. */
function keep(r: Tensor, shape: readonly number[], axis: number | readonly number[] | null | undefined, lead: number): Tensor {
  const ax = axis === undefined || axis === null ? shape.map((_, i) => i) : normalizeAxes(axis, shape.length);
  return reshape(r, [...r.shape.slice(0, lead), ...shape.map((d, i) => (ax.includes(i) ? 1 : d))]);
}

/**
 * Quantiles as JS numbers, the shape they came in and how. A JS number is
 * NumPy's weak Python float and JS data a float64 array, even when integral:
 * q is a probability, and `0.0` and `1.0` are integral in JS. A tensor
 * already computed keeps its dtype (an integer one takes values, as NumPy's
 * 'linear' does at integer q).
 */
function quantilesOf(q: unknown): [number[], number[], QKind] {
  if (typeof q === 'number') return [[q], [], 'weak-float'];
  const t = isTensor(q) ? q : tensor(q as number[], { dtype: 'float64' });
  const v = Array.from(runtime.values(t.node), Number);
  return [v, [...t.shape], t.dtype];
}

/**
 * q held in a tensor the run has yet to compute: its values set which
 * values are read (and its length the result's), so the run computes it
 * first and builds `call` over them (`onValues`); the result's dtype and
 * shape come from a build over a q of zeros. Undefined for q known now.
 */
function lazyQ(a: Operand, q: unknown, call: (a: Tensor, q: Tensor) => Tensor): Tensor | undefined {
  if (!isTensor(q) || runtime.has(q.node)) return undefined;
  const t = toTensor(a);
  // (q as JS data, so that it is known: a q computed by the graph would be waited for again)
  const held = (v: number[]): Tensor => {
    const inner = q.shape.slice(1).reduce((p, d) => p * d, 1);
    const rows = q.ndim === 0 ? v[0]! : q.ndim === 1 ? v : Array.from({ length: v.length / inner }, (_, i) => v.slice(i * inner, (i + 1) * inner));
    return tensor(rows, { dtype: q.dtype });
  };
  if (q.ndim > 2) throw new RangeError('q must be a scalar or 1d');
  const like = call(t, held(new Array<number>(q.shape.reduce((p, d) => p * (Number.isNaN(d) ? 1 : d), 1)).fill(0)));
  const shape = [...q.shape, ...like.shape.slice(q.ndim)];
  return onValues('quantile', q, [t], like.dtype, shape, (v, [u]) => call(u!, held(v)));
}

/** The quantile or median node over `a`'s lines, keepdims applied. */
export function quantileOf(a: Operand, spec: QuantileSpec, axis: number | readonly number[] | null | undefined, keepdims: boolean | undefined): Tensor {
  const src = toTensor(a);
  if (spec.method !== 'median' && src.dtype === 'bool' && !takesValues(spec)) {
    throw new TypeError('numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.');
  }
  const lines = linesOf(src, axis);
  const n = lines.shape[lines.ndim - 1]!;
  // NumPy reads index -1 of an empty line (the median gives NaN instead); a length known only at run time is checked then
  if (spec.method !== 'median' && !spec.omitNaN && n === 0 && lines.shape.slice(0, -1).every((d) => d > 0)) throw new RangeError('index -1 is out of bounds for axis 0 with size 0');
  const r = new Tensor(G.quantile(lines.node, spec));
  return keepdims ? keep(r, src.shape, axis, spec.qShape.length) : r;
}

/**
 * quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
 * keepdims=False) with every method of NumPy 2 and its arithmetic
 * (numerics/quantile.ts); a line holding a NaN gives NaN.
 */
export function quantile(a: Operand, q: number | readonly unknown[] | Tensor, ...args: Args): Tensor {
  return quantileCall('quantile', a, q, args, false);
}

/** quantile(a, q, ...) under the name `fn`; `omitNaN` for nanquantile (each line's NaNs dropped). */
export function quantileCall(fn: string, a: Operand, q: number | readonly unknown[] | Tensor, args: Args, omitNaN: boolean): Tensor {
  const later = lazyQ(a, q, (u, v) => quantileCall(fn, u, v, args, omitNaN));
  if (later) return later;
  const o = kwargs<{ axis?: number | readonly number[] | null; keepdims?: boolean; method?: string; weights?: unknown }>(fn, args, ['axis', 'out', 'overwrite_input', 'method', 'keepdims', 'weights']);
  const [qs, qShape, qKind] = quantilesOf(q);
  if (!qs.every((v) => v >= 0 && v <= 1)) throw new RangeError('Quantiles must be in the range [0, 1]');
  return quantileWith(fn, a, qs, qShape, qKind, o, omitNaN);
}

function quantileWith(fn: string, a: Operand, qs: number[], qShape: number[], qKind: QKind, o: { axis?: number | readonly number[] | null; keepdims?: boolean; method?: string; weights?: unknown }, omitNaN = false): Tensor {
  const method = o.method ?? 'linear';
  const weighted = o.weights !== undefined && o.weights !== null;
  if (weighted && method !== 'inverted_cdf') throw new RangeError(`Only method 'inverted_cdf' supports weights. Got: ${String(method)}.`);
  if (!isQuantileMethod(method)) throw new TypeError(`${JSON.stringify(method)} is not a valid method. Use one of: ${QUANTILE_METHODS.join(', ')}`);
  if (qShape.length > 2) throw new RangeError('q must be a scalar or 1d');
  const spec: QuantileSpec = { method, qs, qShape, qKind, ...(omitNaN ? { omitNaN } : {}) };
  if (o.weights === undefined || o.weights === null) return quantileOf(a, spec, o.axis, o.keepdims);
  // the weighted form gathers along lines of known length
  const later = whenKnown(fn, [toTensor(a), o], (u, w) => quantileWith(fn, u, qs, qShape, qKind, w, omitNaN));
  if (later) return later;
  const src = toTensor(a);
  const w = weightsOf(src, o.weights, o.axis);
  // an empty array reads no weights: NumPy's IndexError, or nanquantile's NaNs
  if (src.size === 0) return quantileOf(src, spec, o.axis, o.keepdims);
  return weightedQuantile(src, w, spec, o.axis, o.keepdims);
}

/**
 * NumPy's checks of quantile's weights= (after the method's, which the
 * caller made): the weights broadcast to a's shape, from a's shape or from
 * the lengths of a along `axis` in the order given; negative weights raise
 * now when known, else when the run reaches them. nanquantile takes 1-d
 * weights along one axis of an n-d array as quantile does (NumPy 2.4's
 * nanquantile fails there with an IndexError).
 */
function weightsOf(a: Tensor, weights: unknown, axis: number | readonly number[] | null | undefined): Tensor {
  let w = toTensor(weights as Operand);
  const given = w;
  const axes = axis === undefined || axis === null ? null : typeof axis === 'number' ? [normalizeAxis(axis, a.ndim)] : (normalizeAxes(axis, a.ndim), axis.map((ax) => normalizeAxis(ax, a.ndim)));
  if (w.ndim !== a.ndim || w.shape.some((d, i) => d !== a.shape[i])) {
    if (axes === null) throw new TypeError('Axis must be specified when shapes of a and weights differ.');
    if (w.ndim !== axes.length || axes.some((ax, k) => w.shape[k] !== a.shape[ax])) throw new RangeError('Shape of weights must be consistent with shape of a along specified axis.');
    // weights' k-th axis runs along a's axes[k]: put them in a's order, then broadcast
    const order = axes.map((_, k) => k).sort((i, j) => axes[i]! - axes[j]!);
    w = broadcast_to(reshape(transpose(w, order), a.shape.map((d, i) => (axes.includes(i) ? d : 1))), a.shape);
  }
  const NEG = 'Weights must be non-negative.';
  if (runtime.has(given.node)) {
    if (Array.from(runtime.values(given.node), Number).some((v) => v < 0)) throw new RangeError(NEG);
    return w;
  }
  return where(new Tensor(G.check(logical_not(any(less(w, 0))).node, 'nonzero', 'RangeError', NEG)), w, w);
}

/**
 * NumPy's weighted inverted_cdf, the one weighted method, composed of the
 * core's sort, gathers and scans rather than the host's quantile lines
 * (numerics/quantile.ts reads one line of values; this needs a second line in
 * the values' order): each line's values and weights in sorted order (one
 * argsort, two gathers), the cumulative weights in float64 over their total
 * (in q's float dtype when q is an array of one, as NumPy casts), zeros
 * made -1 so that leading zero weights are never picked, and for each q the
 * first position whose cdf reaches it (a count of the cdf below q, as
 * searchsorted 'left'), at most the last. A line holding a NaN gives NaN
 * (nanquantile: NaNs weigh nothing and a line of NaNs only gives NaN).
 * Weights that sum to 0, inf or NaN raise when the run reaches them.
 */
function weightedQuantile(src: Tensor, w: Tensor, spec: QuantileSpec, axis: number | readonly number[] | null | undefined, keepdims: boolean | undefined): Tensor {
  const lines = linesOf(src, axis), wl = linesOf(w, axis);
  const lead = lines.shape.slice(0, -1);
  const n = lines.shape[lines.ndim - 1]!;
  const rows = lead.reduce((p, d) => p * d, 1);
  // the flat position of each line's start, for gathers along the last axis
  const start = reshape(multiply(new Tensor(G.iota([rows], 0)), n), [...lead, 1]);
  const pos = add(new Tensor(G.sort(lines.node, lines.ndim - 1, true)), start);
  const sv = take(reshape(lines, [-1]), pos);
  let sw = astype(take(reshape(wl, [-1]), pos), 'float64');
  const nanV = isFloat(src.dtype) ? isnan(sv) : undefined;
  const last = (t: Tensor) => t.get('...', `${n - 1}:${n}`);
  if (spec.omitNaN && nanV) sw = where(nanV, 0, sw);
  const cum = cumsum(sw, { axis: -1 });
  const total = last(cum);
  let bad = isnan(divide(total, total));
  if (spec.omitNaN && nanV) bad = logical_and(bad, logical_not(nanV.get('...', '0:1')));
  let cdf = divide(cum, total);
  if (spec.qKind === 'float32') cdf = astype(cdf, 'float32');
  cdf = where(equal(cdf, 0), -1, cdf);
  const nq = spec.qs.length;
  const q = reshape(tensor(spec.qs, { dtype: spec.qKind === 'float32' ? 'float32' : 'float64' }), [nq, ...lead.map(() => 1), 1]);
  const below = sum(less(reshape(cdf, [1, ...lead, n]), q), { axis: -1, dtype: 'int64' });
  let r = take(reshape(sv, [-1]), add(minimum(below, n - 1), reshape(start, [1, ...lead])));
  // quantile: NumPy returns the line's last value (a NaN) where it holds one; nanquantile's lines of NaNs only read a NaN already
  if (nanV && !spec.omitNaN) r = where(reshape(last(nanV), [1, ...lead]), NaN, r);
  r = where(new Tensor(G.check(logical_not(any(bad)).node, 'nonzero', 'RangeError', 'Weights included NaN, inf or were all zero.')), r, r);
  r = reshape(r, [...spec.qShape, ...lead]);
  return keepdims ? keep(r, src.shape, axis, spec.qShape.length) : r;
}

/** percentile(a, q, ...): quantile at q / 100 (NumPy divides first, so q is never an integer there). */
export function percentile(a: Operand, q: number | readonly unknown[] | Tensor, ...args: Args): Tensor {
  return percentileCall('percentile', a, q, args, false);
}

/** percentile(a, q, ...) under the name `fn`; `omitNaN` for nanpercentile. */
export function percentileCall(fn: string, a: Operand, q: number | readonly unknown[] | Tensor, args: Args, omitNaN: boolean): Tensor {
  const later = lazyQ(a, q, (u, v) => percentileCall(fn, u, v, args, omitNaN));
  if (later) return later;
  const o = kwargs<{ axis?: number | readonly number[] | null; keepdims?: boolean; method?: string; weights?: unknown }>(fn, args, ['axis', 'out', 'overwrite_input', 'method', 'keepdims', 'weights']);
  const [ps, shape, kind] = quantilesOf(q);
  const f32 = kind === 'float32';
  const qs = ps.map((v) => (f32 ? Math.fround(v / 100) : v / 100));
  if (!qs.every((v) => v >= 0 && v <= 1)) throw new RangeError('Percentiles must be in the range [0, 100]');
  const qKind: QKind = kind === 'weak-int' || kind === 'weak-float' ? 'weak-float' : f32 ? 'float32' : 'float64';
  return quantileWith(fn, a, qs, shape, qKind, o, omitNaN);
}

/** median(a, axis=None, out=None, overwrite_input=False, keepdims=False): the mean of the middle one or two values; NaN where a line holds one, and for an empty line. */
export function median(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null; keepdims?: boolean }>('median', args, ['axis', 'out', 'overwrite_input', 'keepdims']);
  return quantileOf(a, { method: 'median', qs: [], qShape: [], qKind: 'weak-float' }, o.axis, o.keepdims);
}
