// Searching, counting and sets, as NumPy 2: searchsorted, digitize, isin,
// take_along_axis/put_along_axis, interp, histogram (and histogram2d,
// histogramdd over the same edges and searches), bincount, the set
// functions over unique (intersect1d, union1d, setdiff1d, setxor1d), and the
// NaN-skipping argmin/argmax, cumulative sums/products and quantiles; lexsort
// (stable sorts, one per key) and NumPy 2's unique_values/counts/inverse/all
// over statistics.ts's unique. In: tensors and NumPy's arguments. Out: lazy
// Tensors (a list for histogram's pair, objects for unique_*). Design: a
// search over few pairs is a count of the sorted values below each key (one
// broadcast comparison reduced along the sorted axis, NaNs ordered last as
// NumPy's sort puts them), so it fuses into one kernel and gives a binary
// search's answer on sorted input; past SEARCH_PAIRS it is a binary search
// on the host (graph/node.ts `search`), and isin sorts its test elements to
// search them. Counts into bins (bincount, histogramdd) fold each value into
// its bin on the host in input order (graph/node.ts `scatter`), as NumPy's
// loop does. A length known only from values (bincount's max(x) + 1) is read when the run gets there (a `defer` node over the
// computed maximum); NumPy's errors that depend on values known only at run
// time (an all-NaN slice, bins not monotonic) are `check` nodes, raised when
// the run reaches them.

import * as G from '../graph/node.js';
import { type DType, type TypedArray, isFloat, isInteger, promoteTypes, sumResultOf } from '../graph/dtype.js';
import { roundHalf } from '../graph/half.js';
import { broadcastShapes, hasUnknown, isUnknown, normalizeAxis, repr, shapeStr, sizeOf } from '../graph/shape.js';
import { runtime } from '../runtime/runtime.js';
import { kwargs, need } from './bind.js';
import {
  type Operand, Tensor, add, all, any, argmax, argmin, astype, broadcast_to, concatenate, cumprod, cumsum, deferred, divide, equal, flip, greater,
  greater_equal, isfinite, isnan, less, less_equal, logical_and, logical_not, logical_or, max, min, mod, multiply, minimum, not_equal, ravel,
  reshape, subtract, sum, take, tensor, toTensor, where, zeros, isTensor, stack, transpose, whenKnown, whenKnownAll,
} from './core.js';
import { setitem } from './indexing.js';
import { sort, unique } from './statistics.js';
import { percentileCall, quantileCall, quantileOf } from './statistics.js';

type Args = unknown[];

/** The least and greatest of integer values (int64's as numbers: exact below 2**53, all a length needs). */
function extremes(v: TypedArray): [number, number] {
  let lo = Infinity, hi = -Infinity;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    // the words' halves (little-endian): a bigint only for values past int32
    const w = new Int32Array(v.buffer, v.byteOffset, 2 * v.length);
    for (let i = 0; i < v.length; i++) {
      const x = w[2 * i + 1] === w[2 * i]! >> 31 ? w[2 * i]! : Number(v[i]!);
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  } else {
    for (let i = 0; i < v.length; i++) { const x = Number(v[i]!); if (x < lo) lo = x; if (x > hi) hi = x; }
  }
  return [lo, hi];
}

/** A value of `a` computed already (JS data, or a tensor executed), as JS numbers; undefined while it is lazy. */
/**
 * Values known now, where they are few: a large stored array is not read onto
 * the host to check or size a graph (a reduction in the run does it instead).
 */
function knownFew(t: Tensor): number[] | undefined {
  return t.size <= KNOWN_FEW ? known(t) : undefined;
}
const KNOWN_FEW = 1 << 16;

function known(t: Tensor): number[] | undefined {
  return runtime.has(t.node) ? Array.from(runtime.values(t.node), Number) : undefined;
}

/** A check node over `ok` (true where the input is valid): the run fails with RangeError `message` when one is false. */
function checked(ok: Tensor, message: string): Tensor {
  return new Tensor(G.check(astype(ok, 'bool').node, 'nonzero', 'RangeError', message));
}

/** `r` once `ok` (a 0-d or r-broadcastable bool) passed its check (a where on the check, which the run cannot skip). */
const guarded = (r: Tensor, ok: Tensor, message: string): Tensor => where(checked(ok, message), r, 0);

/** NumPy's sort order: a < b, with NaN after every number. */
function before(a: Tensor, b: Tensor): Tensor {
  const lt = less(a, b);
  if (!isFloat(b.dtype)) return lt;
  const nanB = isnan(b);
  return logical_or(lt, isFloat(a.dtype) ? logical_and(nanB, logical_not(isnan(a))) : nanB);
}

/** Pairs of (key, value) past which searchsorted's count becomes a binary search on the host. */
const SEARCH_PAIRS = 2 ** 22;

/** How many of the 1-d `sorted` come before each of `v` (side 'left') or not after it ('right'): searchsorted's index. */
function countBefore(sorted: Tensor, v: Tensor, side: 'left' | 'right'): Tensor {
  // many keys in a long array: a binary search each, on the host (a comparison of every pair would be O(keys x values))
  const pairs = sorted.shape[0]! * sizeOf(v.shape);
  if (!(pairs <= SEARCH_PAIRS)) {
    const d = promoteTypes(sorted.dtype, v.dtype);
    // keys flat (the search runs per chunk of 1-d keys, runtime/resolve.ts), the positions in their shape
    const keys = v.ndim === 1 ? astype(v, d) : ravel(astype(v, d));
    const at = new Tensor(G.search(astype(sorted, d).node, keys.node, side));
    return v.ndim === 1 ? at : reshape(at, v.shape);
  }
  const s = reshape(sorted, [...v.shape.map(() => 1), sorted.shape[0]!]);
  const k = reshape(v, [...v.shape, 1]);
  const hit = side === 'left' ? before(s, k) : logical_not(before(k, s));
  return sum(hit, { axis: -1, dtype: 'int64' });
}

function sideOf(fn: string, side: unknown): 'left' | 'right' {
  if (side === undefined || side === null) return 'left';
  if (side !== 'left' && side !== 'right') throw new RangeError(`${fn}(): search side must be 'left' or 'right' (got ${JSON.stringify(side)})`);
  return side;
}

function oneD(fn: string, name: string, t: Tensor): void {
  if (t.ndim === 0) throw new RangeError(`${fn}(): '${name}' is 0-d: object of too small depth for desired array`);
  if (t.ndim > 1) throw new RangeError(`${fn}(): '${name}' of shape ${shapeStr(t.shape)}: object too deep for desired array`);
}

/** searchsorted(a, v, side='left', sorter=None): NumPy's insertion indices (int64) into 1-d sorted a, NaNs sorting last; a need not be sorted in memory when sorter is given. */
export function searchsorted(a: Operand, v: Operand, ...args: Args): Tensor {
  const o = kwargs<{ side?: string; sorter?: Operand | null }>('searchsorted', args, ['side', 'sorter']);
  let s = toTensor(a);
  oneD('searchsorted', 'a', s);
  const side = sideOf('searchsorted', o.side);
  // a sorter's length is compared with a's once the run knows them
  const later = o.sorter !== undefined && o.sorter !== null ? whenKnown('searchsorted', [s, o.sorter], (u, p) => searchsorted(u, v, { side, sorter: p })) : undefined;
  if (later) return later;
  if (o.sorter !== undefined && o.sorter !== null) {
    const p = toTensor(o.sorter);
    if (!isInteger(p.dtype)) throw new TypeError('sorter must only contain integers');
    if (p.ndim !== 1 || p.shape[0] !== s.shape[0]) throw new RangeError('sorter.size must equal a.size');
    s = take(s, p);
  }
  return countBefore(s, toTensor(v), side);
}

/** NumPy's check_array_monotonic over known bins: 1 increasing, -1 decreasing, 0 neither (after leading equal values; NaN compares false). */
function monotonicity(b: readonly number[]): -1 | 0 | 1 {
  let i = 1;
  while (i < b.length && b[i] === b[i - 1]) i++;
  if (i >= b.length) return 1;
  if (b[i]! < b[i - 1]!) {
    for (i += 1; i < b.length; i++) if (b[i - 1]! < b[i]!) return 0;
    return -1;
  }
  for (i += 1; i < b.length; i++) if (b[i - 1]! > b[i]!) return 0;
  return 1;
}

const MONOTONIC = 'bins must be monotonically increasing or decreasing';

/** digitize(x, bins, right=False): NumPy's bin indices (int64) for increasing or decreasing 1-d bins; bins that are neither raise RangeError (at run time for bins not yet computed). */
export function digitize(x: Operand, bins: Operand, ...args: Args): Tensor {
  const o = kwargs<{ right?: boolean }>('digitize', args, ['right']);
  const b = toTensor(bins);
  oneD('digitize', 'bins', b);
  // the direction of bins of a length the run will know is read once it does
  if (hasUnknown(b.shape)) return deferred('digitize', [b], ([u]) => digitize(x, u!, o));
  const v = toTensor(x);
  // NumPy: searchsorted with the opposite side, over the reversed bins when they decrease
  const side = o.right ? 'left' : 'right';
  const n = b.shape[0]!;
  const inc = () => countBefore(b, v, side);
  const dec = () => subtract(n, countBefore(flip(b), v, side));
  const values = known(b);
  if (values) {
    const m = monotonicity(values);
    if (m === 0) throw new RangeError(MONOTONIC);
    return m === 1 ? inc() : dec();
  }
  if (n < 2) return inc();
  // The same test over lazy bins: the first unequal pair sets the direction, no pair may go the other way.
  const lo = b.get(`0:${n - 1}`), hi = b.get(`1:${n}`);
  const down = greater(lo, hi), up = less(lo, hi), ne = logical_not(equal(lo, hi));
  const firstDown = any(logical_and(logical_and(ne, equal(cumsum(ne), 1)), down));
  const isDec = logical_and(firstDown, logical_not(any(up)));
  const isInc = logical_and(logical_not(firstDown), logical_not(any(down)));
  return guarded(where(isDec, dec(), inc()), logical_or(isDec, isInc), MONOTONIC);
}

/** isin(element, test_elements, assume_unique=False, invert=False, *, kind=None): bool of element's shape; NaN is in nothing, as NumPy's. */
export function isin(element: Operand, testElements: Operand, ...args: Args): Tensor {
  const o = kwargs<{ assume_unique?: boolean; invert?: boolean; kind?: string | null }>('isin', args, ['assume_unique', 'invert'], ['kind']);
  const e = toTensor(element), t = flat(testElements);
  const kind = o.kind ?? null;
  if (kind !== null && kind !== 'sort' && kind !== 'table') throw new RangeError(`Invalid kind: ${JSON.stringify(kind)}. Please use None, 'sort' or 'table'.`);
  if (kind === 'table' && (isFloat(e.dtype) || isFloat(t.dtype))) throw new RangeError("The 'table' method is only supported for boolean or integer arrays. Please select 'sort' or None for kind.");
  return deferred('isin', [e, t], ([x, y]) => {
    const m = y!.shape[0]!;
    let r: Tensor;
    if (m === 0) r = zeros(x!.shape, { dtype: 'bool' });
    else if (x!.size * m <= SEARCH_PAIRS) r = any(equal(reshape(x!, [...x!.shape, 1]), y!), { axis: -1 });
    else {
      // many pairs: each element's place among the sorted test elements, then one comparison there
      const p = promoteTypes(x!.dtype, y!.dtype);
      const d = p === 'float16' ? 'float32' : p; // (the host sorts half floats as float32s)
      const st = new Tensor(G.sort(astype(y!, d).node, 0, false));
      const keys = astype(x!, d);
      const at = reshape(new Tensor(G.search(st.node, (keys.ndim === 1 ? keys : ravel(keys)).node, 'left')), x!.shape);
      r = equal(take(st, minimum(at, m - 1)), astype(x!, d));
    }
    return o.invert ? logical_not(r) : r;
  });
}

/** The flat positions of NumPy's along-axis fancy index (aranges on the other axes, `idx` on `ax`), broadcast; negative indices wrap. */
function alongAxis(fn: string, a: Tensor, indices: Operand, ax: number): Tensor {
  let idx = toTensor(indices);
  if (!isInteger(idx.dtype)) throw new RangeError(`${fn}(): \`indices\` must be an integer array (got ${idx.dtype})`);
  if (idx.ndim !== a.ndim) throw new RangeError('`indices` and `arr` must have the same number of dimensions');
  const n = a.shape[ax]!;
  const few = knownFew(idx);
  for (const v of few ?? []) if (v < -n || v >= n) throw new RangeError(`index ${v} is out of bounds for axis ${ax} with size ${n}`);
  // many stored indices: checked in the run (a fused reduction), not read onto the host now
  if (!few && runtime.has(idx.node)) {
    idx = where(checked(logical_and(greater_equal(idx, -n), less(idx, n)), `an index is out of bounds for axis ${ax} with size ${n}`), idx, idx);
  }
  const shape = a.shape.map((d, i) => (i === ax ? idx.shape[i]! : broadcastShapes([d], [idx.shape[i]!])[0]!));
  idx = astype(idx, 'int64');
  idx = where(less(idx, 0), add(idx, n), idx);
  let flat: Tensor | undefined;
  let stride = 1;
  for (let i = a.ndim - 1; i >= 0; i--) {
    const coord = i === ax ? idx : new Tensor(G.iota(a.shape.map((d, k) => (k === i ? d : 1)), i));
    const term = multiply(coord, stride);
    flat = flat ? add(term, flat) : term;
    stride *= a.shape[i]!;
  }
  return broadcast_to(flat ?? tensor(0), shape);
}

/** take_along_axis(arr, indices, axis=-1): NumPy's; axis=None reads the flattened array with 1-d indices. */
export function take_along_axis(arr: Operand, indices: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null }>('take_along_axis', args, ['axis']);
  let a = toTensor(arr);
  // the flat positions are built from the lengths, once the run knows them
  const later = whenKnown('take_along_axis', [a, indices], (u, i) => take_along_axis(u, i, o));
  if (later) return later;
  if (o.axis === null) {
    a = ravel(a);
    if (toTensor(indices).ndim !== 1) throw new RangeError('when axis=None, `indices` must have a single dimension.');
  }
  const ax = normalizeAxis(o.axis ?? -1, a.ndim);
  return take(ravel(a), alongAxis('take_along_axis', a, indices, ax));
}

/**
 * put_along_axis(arr, indices, values, axis): NumPy's assignment, but
 * functional: a new tensor (Tessera's values are immutable; arr is
 * unchanged). values broadcast to the indices' shape and are cast to arr's
 * dtype; where an index repeats, the last value wins, as in NumPy.
 */
export function put_along_axis(arr: Operand, indices: Operand, values: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null }>('put_along_axis', args, ['axis']);
  const a = toTensor(arr);
  const axis = need<number | null>('put_along_axis', o, 'axis');
  const later = whenKnown('put_along_axis', [a, indices, values], (u, i, v) => put_along_axis(u, i, v, { axis }));
  if (later) return later;
  const flatA = ravel(a);
  if (axis === null && toTensor(indices).ndim !== 1) throw new RangeError('when axis=None, `indices` must have a single dimension.');
  const base = axis === null ? flatA : a;
  const pos = alongAxis('put_along_axis', base, indices, normalizeAxis(axis ?? 0, base.ndim));
  const v = broadcast_to(astype(values, a.dtype), pos.shape);
  return reshape(setitem(flatA, ravel(pos), ravel(v)), a.shape);
}

/** A 1-d float64 of `x` (interp's sample points and values). */
function samples(fn: string, name: string, x: Operand): Tensor {
  const t = toTensor(x);
  if (t.ndim !== 1) throw new RangeError(`${fn}(): '${name}' must be 1-d (got shape ${shapeStr(t.shape)}): ${t.ndim ? 'object too deep for desired array' : 'object of too small depth for desired array'}`);
  return astype(t, 'float64');
}

/**
 * interp(x, xp, fp, left=None, right=None, period=None): NumPy's arr_interp
 * in float64: slope*(x - xp[j]) + fp[j], then the form from xp[j+1] when
 * that is NaN, then fp[j] for equal neighbours; x == xp[j] gives fp[j] and
 * x == xp[-1] gives fp[-1]; NaN x gives NaN.
 */
export function interp(x: Operand, xp: Operand, fp: Operand, ...args: Args): Tensor {
  const o = kwargs<{ left?: number | null; right?: number | null; period?: number | null }>('interp', args, ['left', 'right', 'period']);
  for (const k of ['left', 'right', 'period'] as const) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'number') throw new TypeError(`interp(): '${k}' must be a number or None, got ${repr(o[k])}`);
  }
  let X = astype(x, 'float64');
  let P = samples('interp', 'xp', xp), F = samples('interp', 'fp', fp);
  // the sample points' count sets the search: read once the run knows it
  if (hasUnknown(P.shape) || hasUnknown(F.shape)) return deferred('interp', [P, F], ([p, f]) => interp(X, p!, f!, o));
  let left = o.left ?? null, right = o.right ?? null;
  if (o.period !== undefined && o.period !== null) {
    if (o.period === 0) throw new RangeError('period must be a non-zero value');
    const period = Math.abs(o.period);
    left = right = null;
    if (P.shape[0] !== F.shape[0]) throw new RangeError('fp and xp are not of the same length');
    // NumPy: both into [0, period), xp sorted with fp, one period-shifted point added at each end
    X = mod(X, period);
    P = mod(P, period);
    const order = argsortOf(P);
    P = take(P, order);
    F = take(F, order);
    const m = P.shape[0]!;
    if (m > 0) {
      P = concatenate([subtract(P.get(`${m - 1}:${m}`), period), P, add(P.get('0:1'), period)]);
      F = concatenate([F.get(`${m - 1}:${m}`), F, F.get('0:1')]);
    }
  }
  const n = P.shape[0]!;
  if (n === 0) throw new RangeError('array of sample points is empty');
  if (F.shape[0] !== n) throw new RangeError('fp and xp are not of the same length.');
  const at = (t: Tensor, i: number) => reshape(t.get(`${i}:${i + 1}`), []);
  const lval: Operand = left ?? at(F, 0), rval: Operand = right ?? at(F, n - 1);
  if (n === 1) {
    const p0 = at(P, 0);
    return where(less(X, p0), lval, where(greater(X, p0), rval, at(F, 0)));
  }
  // j: the last sample point <= x (NumPy's binary_search_with_guess), -1 before the first
  // (the count of sample points <= x: searchsorted 'right', but no point is <= a NaN x)
  const j = where(isnan(X), -1, subtract(countBefore(P, X, 'right'), 1));
  const jc = where(less(j, 0), 0, where(greater(j, n - 2), n - 2, j));
  const x0 = take(P, jc), x1 = take(P, add(jc, 1)), y0 = take(F, jc), y1 = take(F, add(jc, 1));
  const slope = divide(subtract(y1, y0), subtract(x1, x0));
  const r1 = add(multiply(slope, subtract(X, x0)), y0);
  const r2 = add(multiply(slope, subtract(X, x1)), y1);
  let r = where(isnan(r1), where(logical_and(isnan(r2), equal(y0, y1)), y0, r2), r1);
  r = where(equal(X, x0), y0, r);
  r = where(equal(j, n - 1), at(F, n - 1), r);
  r = where(greater(X, at(P, n - 1)), rval, r);
  r = where(less(j, 0), lval, r);
  return where(isnan(X), X, r);
}

/** The stable order of a 1-d tensor (statistics.argsort without its argument binding). */
const argsortOf = (t: Tensor): Tensor => new Tensor(G.sort(t.node, 0, true));

type HistOpts = { bins?: number | string | Operand; range?: readonly [number, number] | null; density?: boolean | null; weights?: Operand | null };
interface Edges { edges: Tensor; uniform?: { first: Tensor; last: Tensor; n: number; div: 'float16' | 'float32' | 'float64'; fromRange: boolean } }

/** NumPy's _get_bin_edges for a count of equal bins or explicit edges (estimator names go through `estimated` first). */
function binEdges(a: Tensor, o: HistOpts): Edges {
  const bins = o.bins ?? 10;
  if (typeof bins === 'number' || typeof bins === 'boolean') {
    if (typeof bins !== 'number' || !Number.isInteger(bins)) throw new TypeError('`bins` must be an integer, a string, or an array');
    if (bins < 1) throw new RangeError('`bins` must be positive, when an integer');
    return equalEdges(a, bins, o.range ?? null);
  }
  const e = toTensor(bins as Operand);
  if (e.ndim !== 1) throw new RangeError('`bins` must be 1d, when an array');
  const MONO = '`bins` must increase monotonically, when an array';
  const values = known(e);
  const m = e.shape[0]!;
  if (values) {
    for (let i = 1; i < values.length; i++) if (values[i - 1]! > values[i]!) throw new RangeError(MONO);
    return { edges: e };
  }
  return { edges: m < 2 ? e : guarded(e, logical_not(any(greater(e.get(`0:${m - 1}`), e.get(`1:${m}`)))), MONO) };
}

/** A given range as NumPy's _get_outer_edges checks it, an empty one widened by 0.5 each side. */
function givenRange(range: readonly [number, number]): [number, number] {
  if (!Array.isArray(range) || range.length !== 2 || range.some((v) => typeof v !== 'number')) throw new TypeError('range must be a pair of numbers (min, max)');
  const [lo, hi] = range;
  if (lo > hi) throw new RangeError('max must be larger than min in range parameter.');
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new RangeError(`supplied range of [${lo}, ${hi}] is not finite`);
  return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
}

/**
 * The outer edges and NumPy's linspace between them, in NumPy's dtypes
 * (float32 or float16 data with no range keeps its dtype; `rangeF64`: histogramdd's
 * linspace of the range's Python floats, float64 whatever the data).
 */
function equalEdges(a: Tensor, n: number, range: readonly [number, number] | null, rangeF64 = false): Edges {
  // B: the edges' dtype, result_type(first, last, a) made inexact
  const B = (a.dtype === 'float32' || a.dtype === 'float16') && !(rangeF64 && range !== null) ? a.dtype : 'float64';
  let first: Tensor, last: Tensor;
  let dt: 'float16' | 'float32' | 'float64' = 'float64';
  if (range !== null) {
    const [lo, hi] = givenRange(range);
    first = tensor(lo, { dtype: 'float64' });
    last = tensor(hi, { dtype: 'float64' });
  } else if (a.size === 0) {
    first = tensor(0, { dtype: 'float64' });
    last = tensor(1, { dtype: 'float64' });
  } else {
    dt = B;
    const values = knownFew(a);
    if (values) {
      let lo = Infinity, hi = -Infinity, nan = false;
      for (const v of values) { if (Number.isNaN(v)) nan = true; if (v < lo) lo = v; if (v > hi) hi = v; }
      if (nan) lo = hi = NaN;
      if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new RangeError(`autodetected range of [${lo}, ${hi}] is not finite`);
      first = tensor(lo, { dtype: dt });
      last = tensor(hi, { dtype: dt });
    } else {
      first = astype(min(a), dt);
      last = astype(max(a), dt);
      if (isFloat(a.dtype)) first = guarded(first, logical_and(isfinite(first), isfinite(last)), 'autodetected range of the data is not finite (it holds NaN or inf)');
    }
    const same = equal(first, last);
    [first, last] = [where(same, subtract(first, 0.5), first), where(same, add(last, 0.5), last)];
  }
  // np.linspace(first, last, n + 1) in dt: iota * step + first (iota / n * delta where the step is 0), the last edge exactly `last`
  const delta = subtract(first.dtype === dt ? last : astype(last, dt), astype(first, dt));
  const step = divide(delta, n);
  const iota = astype(new Tensor(G.iota([n + 1], 0)), dt);
  let y = add(where(equal(step, 0), multiply(divide(iota, n), delta), multiply(iota, step)), astype(first, dt));
  y = astype(where(equal(new Tensor(G.iota([n + 1], 0)), n), astype(last, dt), y), B);
  const edges = guarded(y, all(less(y.get(`0:${n}`), y.get(`1:${n + 1}`))), `Too many bins for data range. Cannot create ${n} finite-sized bins.`);
  return { edges, uniform: { first, last, n, div: dt, fromRange: range !== null } };
}

/** The data raveled (bool as uint8, as NumPy converts it) and the weights checked against it. */
function histData(fn: string, a: Operand, weights: Operand | null | undefined): [Tensor, Tensor | undefined] {
  let t = toTensor(a);
  if (t.dtype === 'bool') t = astype(t, 'uint8');
  let w: Tensor | undefined;
  if (weights !== undefined && weights !== null) {
    w = toTensor(weights);
    if (shapeStr(w.shape) !== shapeStr(t.shape)) throw new RangeError('weights should have the same shape as a.');
    w = ravel(w);
  }
  return [ravel(t), w];
}

/**
 * histogram(a, bins=10, range=None, density=None, weights=None): [hist,
 * bin_edges] as NumPy computes them: equal bins through its index formula
 * and its corrections at the edges, in its dtypes; explicit edges through
 * counts below each edge (the last edge inclusive); an estimator name
 * ('auto', 'fd', ...) through the count of equal bins it picks (`estimated`:
 * data not computed yet gives outputs of a length known at run time).
 * int64 counts, or the weights' dtype; float64 with density.
 */
export function histogram(a: Operand, ...args: Args): [Tensor, Tensor] {
  const o = kwargs<HistOpts>('histogram', args, ['bins', 'range', 'density', 'weights']);
  // edges or weights whose length the run will know are checked against the data once it does
  const later = unknownBinsOrWeights(a, o) ? whenKnownAll('histogram', [a, o], 2, (u, p) => histogram(u, p)) : undefined;
  if (later) return later as [Tensor, Tensor];
  const [t, w] = histData('histogram', a, o.weights);
  if (typeof o.bins === 'string') {
    const [hist, edges] = estimated('histogram', t, w, o, (x, n) => counted(x, undefined, { ...o, bins: n }));
    return [hist!, edges!];
  }
  return counted(t, w, o);
}

/**
 * Whether histogram waits for the run to know lengths: of edges or weights
 * (checked against the data), or of the data itself for equal bins (the
 * range of an empty selection is NumPy's (0, 1), not its min and max).
 */
const unknownBinsOrWeights = (a: Operand, o: HistOpts): boolean =>
  [o.bins, o.weights].some((v) => isTensor(v) && hasUnknown(v.shape)) || (typeof o.bins !== 'string' && isTensor(a) && hasUnknown(a.shape));

/** histogram's counts over bins given as a number or edges. */
function counted(t: Tensor, w: Tensor | undefined, o: HistOpts): [Tensor, Tensor] {
  const { edges, uniform } = binEdges(t, o);
  const ntype = w ? w.dtype : 'int64';
  let hist: Tensor;
  if (uniform) {
    const { first, last, n, div } = uniform;
    const B = edges.dtype;
    // only values in [first, last] count (compared as NumPy compares a with its edge scalars)
    const cmpFirst = uniform.fromRange ? Number((known(first) ?? [0])[0]) : first;
    const cmpLast = uniform.fromRange ? Number((known(last) ?? [0])[0]) : last;
    const keep = logical_and(greater_equal(t, cmpFirst), less_equal(t, cmpLast));
    const tb = astype(t, B);
    const denom = subtract(astype(last, div), astype(first, div));
    const f = multiply(divide(astype(subtract(tb, astype(first, B)), div), denom), n);
    let idx = astype(where(keep, f, 0), 'int64');
    idx = where(equal(idx, n), n - 1, idx);
    idx = where(less(idx, 0), 0, where(greater(idx, n - 1), n - 1, idx));
    idx = subtract(idx, astype(less(tb, take(edges, idx)), 'int64'));
    idx = add(idx, astype(logical_and(greater_equal(tb, take(edges, add(idx, 1))), not_equal(idx, n - 1)), 'int64'));
    if (!(t.size * n <= SEARCH_PAIRS)) {
      // many values into many bins: each added into its bin on the host (a value outside goes to one more bin, dropped)
      const pos = flat(where(keep, idx, n));
      const vals = flat(w ? astype(w, 'float64') : astype(keep, 'int64'));
      const d = w ? 'float64' : 'int64';
      hist = astype(new Tensor(G.scatter('add', zeros([n + 1], { dtype: d }).node, pos.node, vals.node, d)).get(`0:${n}`), ntype);
    } else {
      const inBin = logical_and(reshape(keep, [-1, 1]), equal(reshape(idx, [-1, 1]), new Tensor(G.iota([1, n], 1))));
      hist = w
        ? astype(sum(where(inBin, reshape(astype(w, 'float64'), [-1, 1]), 0), { axis: 0 }), ntype)
        : sum(inBin, { axis: 0, dtype: 'int64' });
    }
  } else {
    // NumPy's cumulative form: values before each edge (the last one inclusive), then differences
    const m = edges.shape[0]!;
    let cum: Tensor;
    if (!w && !(t.size * m <= SEARCH_PAIRS)) {
      // many values, many edges: the values sorted, then each edge's place among them (as NumPy does)
      const d = promoteTypes(t.dtype, edges.dtype);
      const st = new Tensor(G.sort(astype(flat(t), d === 'float16' ? 'float32' : d).node, 0, false));
      const at = (side: 'left' | 'right') => countBefore(st, astype(edges, st.dtype), side);
      cum = m < 2 ? at('right') : concatenate([at('left').get(`0:${m - 1}`), at('right').get(`${m - 1}:${m}`)]);
    } else {
      const e = reshape(edges, [1, m]);
      const col = reshape(t, [-1, 1]);
      const last = equal(new Tensor(G.iota([1, m], 1)), m - 1);
      const below = where(last, logical_not(before(e, col)), before(col, e));
      cum = w
        ? astype(sum(where(below, reshape(astype(w, sumResultOf(w.dtype)), [-1, 1]), 0), { axis: 0 }), ntype)
        : sum(below, { axis: 0, dtype: 'int64' });
    }
    hist = m < 2 ? zeros([0], { dtype: ntype }) : subtract(cum.get(`1:${m}`), cum.get(`0:${m - 1}`));
  }
  if (o.density) {
    const m = edges.shape[0]!;
    const db = m < 2 ? zeros([0]) : subtract(astype(edges.get(`1:${m}`), 'float64'), astype(edges.get(`0:${m - 1}`), 'float64'));
    hist = divide(divide(hist, db), sum(hist));
  }
  return [hist, edges];
}

/** histogram_bin_edges(a, bins=10, range=None, weights=None): histogram's edges (a number of bins, explicit edges or an estimator name, as histogram). */
export function histogram_bin_edges(a: Operand, ...args: Args): Tensor {
  const o = kwargs<HistOpts>('histogram_bin_edges', args, ['bins', 'range', 'weights']);
  const later = unknownBinsOrWeights(a, o) ? whenKnown('histogram_bin_edges', [a, o], (u, p) => histogram_bin_edges(u, p)) : undefined;
  if (later) return later;
  const [t, w] = histData('histogram_bin_edges', a, o.weights);
  if (typeof o.bins === 'string') return estimated('histogram_bin_edges', t, w, o, (x, n) => [binEdges(x, { ...o, bins: n }).edges])[0]!;
  return binEdges(t, o).edges;
}

// Bin estimators. NumPy picks the count of equal bins from the data's values
// (ptp, std, percentiles, a cross-validation over counts), so the count
// is computed on the host from the values, following NumPy's float steps
// (its pairwise sums; float32/float16 data rounded where NumPy keeps their
// dtype), which reproduces its count exactly; the histogram is then the
// one for that count. Values not computed yet are read when the run gets
// there (a `defer` node over a selection of all of them, as bincount's
// length), so the outputs have a length known at run time.

const ESTIMATORS = ['auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges', 'sqrt'];

type Round = (x: number) => number;
const exact: Round = (x) => x;

/**
 * histogram's (or histogram_bin_edges') outputs for bins named by an
 * estimator: `make` builds them for a count of bins, once the count is
 * known (now for data already computed or empty, else in the run).
 */
function estimated(fn: string, t: Tensor, w: Tensor | undefined, o: HistOpts, make: (x: Tensor, n: number) => Tensor[]): Tensor[] {
  const name = o.bins as string;
  if (!ESTIMATORS.includes(name)) throw new RangeError(`'${name}' is not a valid estimator for \`bins\``);
  if (w) throw new TypeError('Automated estimation of the number of bins is not supported for weighted data');
  const range = o.range === undefined || o.range === null ? null : givenRange(o.range);
  const count = (x: Tensor, values: readonly number[]) => binCount(name, values, x.dtype, range);
  if (hasUnknown(t.shape)) {
    // a length known after a boolean mask: the same, once it is known
    const outs = make(t, 1).length;
    return Array.from({ length: outs }, (_, i) => deferred(fn, [t], ([x]) => estimated(fn, x!, undefined, o, make)[i]!));
  }
  if (t.size === 0) return make(t, 1);
  const values = known(t);
  if (values) return make(t, count(t, values));
  const all = G.compress(t.node, G.expand(G.constant(true, 'bool'), [t.size]), 0);
  // both outputs share the count per computed selection (the outputs are built afresh: nodes built
  // for an earlier run may hold checks that run computed, which a new build must not hand back)
  let last: { from: G.Node; n: number } | undefined;
  const build = (ins: readonly G.Node[]): Tensor[] => {
    if (last?.from !== ins[0]) last = { from: ins[0]!, n: count(t, Array.from(runtime.values(ins[0]!), Number)) };
    return make(new Tensor(ins[1]!), last.n);
  };
  return make(t, 1).map((p, i) => new Tensor(G.defer(fn, [all, t.node], (ins) => build(ins)[i]!.node, p.dtype, [NaN])));
}

/**
 * NumPy's _get_bin_edges for an estimator over the raveled values of dtype
 * `d`: the values in the range, the estimator's width, and
 * ceil((last - first) / width) bins (1 for a width of 0 or no values in
 * range; a width of at least 1 for integer data).
 */
function binCount(name: string, values: readonly number[], d: DType, range: [number, number] | null): number {
  const inD = d === 'float32' || d === 'float16';
  const r: Round = d === 'float32' ? Math.fround : d === 'float16' ? roundHalf : exact;
  let first: number, last: number, x: number[];
  if (range) {
    [first, last] = range;
    // NumPy compares the data with the range's Python floats in the data's dtype
    const lo = r(first), hi = r(last);
    x = values.filter((v) => v >= lo && v <= hi);
  } else {
    if (values.length === 0) return 1;
    first = Infinity; last = -Infinity;
    for (const v of values) { if (Number.isNaN(v)) { first = last = NaN; break; } if (v < first) first = v; if (v > last) last = v; }
    if (!Number.isFinite(first) || !Number.isFinite(last)) throw new RangeError(`autodetected range of [${first}, ${last}] is not finite`);
    if (first === last) [first, last] = [r(first - 0.5), r(last + 0.5)];
    x = [...values];
  }
  if (x.length === 0) return 1;
  x.sort((p, q) => p - q);
  let { w, kept } = binWidth(name, x, d, first, last, range === null);
  if (w === 0) return 1;
  if (isInteger(d) && w < 1) { w = 1; kept = false; }
  // the outer edges' difference: in the data's float dtype for its own extremes, else float64
  const deltaInD = inD && range === null;
  const delta = deltaInD ? r(last - first) : last - first;
  const n = Math.ceil(deltaInD && kept ? r(delta / w) : delta / w);
  if (Number.isNaN(n)) throw new RangeError('cannot convert float NaN to integer');
  if (!Number.isFinite(n)) throw new RangeError('cannot convert float infinity to integer');
  return n;
}

/** An estimator's width, and whether NumPy's value keeps the data's float dtype (`kept`) rather than float64. */
interface Width { w: number; kept: boolean }

/**
 * NumPy's _hist_bin_<name>(x, (first, last)) over sorted finite values `x`
 * (not empty) of dtype `d`, step by step in NumPy's dtypes: float32 and
 * float16 data keep theirs in its std, mean and ptp (float16 summed in
 * float32, as NumPy's loops), integers and the rest are float64.
 */
function binWidth(name: string, x: readonly number[], d: DType, first: number, last: number, ownRange: boolean): Width {
  const n = x.length;
  const inD = d === 'float32' || d === 'float16';
  const r: Round = d === 'float32' ? Math.fround : d === 'float16' ? roundHalf : exact;
  const acc: Round = inD ? Math.fround : exact;
  // an unsigned difference for integers (NumPy's _unsigned_subtract): exact as JS numbers
  const ptp = r(x[n - 1]! - x[0]!);
  const total = (v: readonly number[]) => r(pairwiseSum(v, 0, v.length, acc));
  const mean = (v: readonly number[]) => r(total(v) / v.length);
  const std = () => {
    const m = mean(x);
    return r(Math.sqrt(r(total(x.map((v) => { const e = r(v - m); return r(e * e); })) / n)));
  };
  const f64 = (w: number): Width => ({ w, kept: false });
  const ofD = (w: number): Width => ({ w, kept: inD });
  const sqrt = () => f64(ptp / Math.sqrt(n));
  const sturges = () => f64(ptp / (Math.log2(n) + 1));
  const fd = () => {
    // np.percentile(x, [75, 25]), linear: a float64 list of q gives float64 quantiles
    const q = (p: number) => {
      const v = (n - 1) * p;
      const i = v >= n - 1 ? n - 1 : Math.floor(v);
      const j = v >= n - 1 ? n - 1 : i + 1;
      const g = v - (v >= n - 1 ? -1 : i);
      const diff = r(x[j]! - x[i]!);
      return g >= 0.5 ? x[j]! - diff * (1 - g) : x[i]! + diff * g;
    };
    return f64(2 * (q(0.75) - q(0.25)) * n ** (-1 / 3));
  };
  switch (name) {
    case 'sqrt': return sqrt();
    case 'sturges': return sturges();
    case 'rice': return ofD(inD ? r(ptp / r(2 * n ** (1 / 3))) : ptp / (2 * n ** (1 / 3)));
    case 'scott': return ofD(r(r((24 * Math.sqrt(Math.PI) / n) ** (1 / 3)) * std()));
    case 'fd': return fd();
    case 'doane': {
      if (n <= 2) return f64(0);
      const sg1 = Math.sqrt(6 * (n - 2) / ((n + 1) * (n + 3)));
      const sigma = std();
      if (!(sigma > 0)) return f64(0);
      const m = mean(x);
      const g1 = mean(x.map((v) => r(r(r(v - m) / sigma) ** 3)));
      return f64(ptp / (1 + Math.log2(n) + Math.log2(1 + Math.abs(g1) / sg1)));
    }
    case 'stone': {
      if (n <= 1 || ptp === 0) return f64(0);
      const upper = Math.max(100, Math.floor(Math.sqrt(n)));
      let best = 1, bestScore = Infinity;
      for (let k = 1; k <= upper; k++) {
        // NumPy's cross-validation estimate of the integrated squared error for k bins
        const hh = r(ptp / k);
        let dot = 0;
        for (const c of equalCounts(x, k, d, first, last, ownRange)) dot += (c / n) * (c / n);
        const score = (2 - (n + 1) * dot) / hh;
        if (score < bestScore) { bestScore = score; best = k; }
      }
      if (best === upper) console.warn('RuntimeWarning: The number of bins estimated may be suboptimal.');
      return ofD(r(ptp / best));
    }
    default: {
      // 'auto': the smaller of Sturges' width and FD's, FD's at least half the sqrt width
      const f = fd(), s = sturges(), h = sqrt().w / 2;
      const fdw = h > f.w ? f64(h) : f;
      return s.w < fdw.w ? s : fdw;
    }
  }
}

/** np.add.reduce's order over v[lo, lo + n): 8 running sums up to 128 values, halves (cut at a multiple of 8) above; every sum rounded by `acc`. */
function pairwiseSum(v: readonly number[], lo: number, n: number, acc: Round): number {
  if (n < 8) {
    let s = 0;
    for (let i = 0; i < n; i++) s = acc(s + v[lo + i]!);
    return s;
  }
  if (n <= 128) {
    const p = v.slice(lo, lo + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) p[j] = acc(p[j]! + v[lo + i + j]!);
    let s = acc(acc(acc(p[0]! + p[1]!) + acc(p[2]! + p[3]!)) + acc(acc(p[4]! + p[5]!) + acc(p[6]! + p[7]!)));
    for (; i < n; i++) s = acc(s + v[lo + i]!);
    return s;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return acc(pairwiseSum(v, lo, half, acc) + pairwiseSum(v, lo + half, n - half, acc));
}

/**
 * np.histogram(x, k, range=(first, last))[0] over sorted values inside the
 * range: NumPy's linspace edges (in the data's float dtype over its own
 * extremes, else float64, then cast to the edges' dtype) and the count
 * between each pair, the last edge inclusive.
 */
function equalCounts(x: readonly number[], k: number, d: DType, first: number, last: number, ownRange: boolean): number[] {
  const b: Round = d === 'float32' ? Math.fround : d === 'float16' ? roundHalf : exact;
  const s: Round = ownRange ? b : exact;
  const delta = s(last - first), step = s(delta / k);
  const edges = Array.from({ length: k + 1 }, (_, i) => (i === k ? b(last) : b(s((step === 0 ? s(s(i / k) * delta) : s(i * step)) + first))));
  for (let i = 0; i < k; i++) if (!(edges[i]! < edges[i + 1]!)) throw new RangeError(`Too many bins for data range. Cannot create ${k} finite-sized bins.`);
  const below = (e: number) => {
    let lo = 0, hi = x.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (x[mid]! < e) lo = mid + 1; else hi = mid; }
    return lo;
  };
  const starts = edges.slice(0, k).map(below);
  return starts.map((c, i) => (i === k - 1 ? x.length : starts[i + 1]!) - c);
}

/**
 * bincount(x, weights=None, minlength=0): NumPy's counts (int64, float64
 * with weights) of length max(max(x) + 1, minlength). A length known only
 * from values that are not computed yet is known when the run gets there.
 * Negative values are a RangeError; float x is a TypeError (NumPy 2.4
 * deprecates it and casts; the error is what NumPy announces).
 */
export function bincount(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ weights?: Operand | null; minlength?: number | null }>('bincount', args, ['weights', 'minlength']);
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('object of too small depth for desired array');
  if (t.ndim > 1) throw new RangeError('setting an array element with a sequence. The requested array would exceed the maximum number of dimension of 1.');
  if (isFloat(t.dtype)) throw new TypeError(`Cannot cast array data from dtype('${t.dtype}') to dtype('int64') according to the rule 'safe'`);
  const minlength = o.minlength ?? 0;
  if (typeof minlength !== 'number' || !Number.isInteger(minlength)) throw new TypeError(`bincount(): 'minlength' must be an integer, got ${repr(minlength)}`);
  if (minlength < 0) throw new RangeError("'minlength' must not be negative");
  let w: Tensor | undefined;
  if (o.weights !== undefined && o.weights !== null) {
    w = ravel(toTensor(o.weights));
    if (!hasUnknown(t.shape) && w.shape[0] !== t.shape[0]) throw new RangeError("The weights and list don't have the same length.");
  }
  // out[x[i]] += w[i] (or 1) in order, on the host (graph/node.ts scatter): O(len + n), as NumPy's loop
  const counts = (xs: Tensor, ws: Tensor | undefined, len: number): Tensor => {
    const d = ws ? 'float64' : 'int64';
    const vals = ws ? astype(ws, 'float64').node : G.expand(G.constant(1, 'int64'), [xs.shape[0]!]);
    return new Tensor(G.scatter('add', zeros([len], { dtype: d }).node, astype(xs, 'int64').node, vals, d));
  };
  // NumPy: an empty x gives int64 zeros even with weights
  if (t.shape[0] === 0) return zeros([minlength], { dtype: 'int64' });
  const lengthOf = (lo: number, hi: number): number => {
    if (lo < 0) throw new RangeError("'list' argument must have no negative elements");
    return Math.max(hi + 1, minlength);
  };
  // stored values of one chunk give their length now (and a negative one its error at this line)
  if (runtime.has(t.node) && t.shape[0]! <= t.node.chunk[0]!) return counts(t, w, lengthOf(...extremes(runtime.values(t.node))));
  // the length is read from the computed extremes (a selection of them, which the run computes first,
  // as reductions over the chunks: stored values of several chunks are not gathered on the host either)
  const ends = concatenate([reshape(min(t), [1]), reshape(max(t), [1])]);
  const sel = G.compress(astype(ends, 'int64').node, G.expand(G.constant(true, 'bool'), [2]), 0);
  const inputs = [sel, t.node, ...(w ? [w.node] : [])];
  return new Tensor(G.defer('bincount', inputs, (ins) => {
    const [lo, hi] = Array.from(runtime.values(ins[0]!), Number) as [number, number];
    const xs = new Tensor(ins[1]!), ws = ins[2] ? new Tensor(ins[2]) : undefined;
    if (ws && ws.shape[0] !== xs.shape[0]) throw new RangeError("The weights and list don't have the same length.");
    return counts(xs, ws, lengthOf(lo, hi)).node;
  }, w ? 'float64' : 'int64', [NaN]));
}

/** The 1-d sorted concatenation of the set functions (NumPy's aux), over inputs of any length. */
const sortedJoin = (x: Tensor, y: Tensor): Tensor => sort(concatenate([flat(x), flat(y)]), null);
/** ravel, leaving a 1-d tensor as it is (its length may be known only at run time, which reshape cannot take). */
const flat = (x: Operand): Tensor => { const t = toTensor(x); return t.ndim === 1 ? t : ravel(t); };
const uniq = (x: Operand, assumeUnique: boolean | undefined): Tensor => (assumeUnique ? flat(x) : unique(x));

/**
 * intersect1d(ar1, ar2, assume_unique=False, return_indices=False): NumPy's
 * sorted common values (NaN is never common); with return_indices, also the
 * index in each flattened input of each common value's first occurrence
 * (of its occurrence as given, with assume_unique), as NumPy's.
 */
export function intersect1d(ar1: Operand, ar2: Operand, ...args: Args): Tensor | [Tensor, Tensor, Tensor] {
  const o = kwargs<{ assume_unique?: boolean; return_indices?: boolean }>('intersect1d', args, ['assume_unique', 'return_indices']);
  if (!o.return_indices) {
    const aux = sortedJoin(uniq(ar1, o.assume_unique), uniq(ar2, o.assume_unique));
    return deferred('intersect1d', [aux], ([s]) => {
      const n = s!.shape[0]!;
      if (n < 2) return s!.get('0:0');
      const lo = s!.get(`0:${n - 1}`);
      return lo.get(equal(s!.get(`1:${n}`), lo));
    });
  }
  // NumPy's: unique values with their first indices, a stable argsort of both, equal neighbours
  const [a, i1] = o.assume_unique ? [flat(ar1)] : (unique(ar1, { return_index: true }) as Tensor[]);
  const [b, i2] = o.assume_unique ? [flat(ar2)] : (unique(ar2, { return_index: true }) as Tensor[]);
  const joined = concatenate([a!, b!]);
  const order = argsortOf(joined); // stable, as NumPy's mergesort
  const aux = take(joined, order);
  const part = (which: 0 | 1 | 2): Tensor => deferred('intersect1d', [aux, order, a!, ...(i1 ? [i1, i2!] : [])], ([s, ord, a1, j1, j2]) => {
    const n = s!.shape[0]!;
    if (n < 2) return (which === 0 ? s! : ord!).get('0:0');
    const same = equal(s!.get(`1:${n}`), s!.get(`0:${n - 1}`));
    if (which === 0) return s!.get(`0:${n - 1}`).get(same);
    const at = which === 1 ? ord!.get(`0:${n - 1}`).get(same) : subtract(ord!.get(`1:${n}`).get(same), a1!.shape[0]!);
    const first = which === 1 ? j1 : j2;
    return first ? take(first, at) : at;
  });
  return [part(0), part(1), part(2)];
}

/** union1d(ar1, ar2): unique of both, flattened (NaNs collapse to one, as NumPy 2's unique). */
export function union1d(ar1: Operand, ar2: Operand): Tensor {
  return unique(concatenate([flat(ar1), flat(ar2)]));
}

/** setdiff1d(ar1, ar2, assume_unique=False): NumPy's values of ar1 not in ar2 (sorted unique unless assume_unique), in ar1's dtype. */
export function setdiff1d(ar1: Operand, ar2: Operand, ...args: Args): Tensor {
  const o = kwargs<{ assume_unique?: boolean }>('setdiff1d', args, ['assume_unique']);
  const a = uniq(ar1, o.assume_unique), b = uniq(ar2, o.assume_unique);
  return deferred('setdiff1d', [a, b], ([x, y]) => x!.get(isin(x!, y!, { invert: true })));
}

/** setxor1d(ar1, ar2, assume_unique=False): NumPy's sorted values in exactly one (a NaN in each is kept twice, as NumPy's). */
export function setxor1d(ar1: Operand, ar2: Operand, ...args: Args): Tensor {
  const o = kwargs<{ assume_unique?: boolean }>('setxor1d', args, ['assume_unique']);
  const aux = sortedJoin(uniq(ar1, o.assume_unique), uniq(ar2, o.assume_unique));
  return deferred('setxor1d', [aux], ([s]) => {
    const n = s!.shape[0]!;
    if (n === 0) return s!;
    const edge = tensor([true]);
    const flag = concatenate([edge, n > 1 ? not_equal(s!.get(`1:${n}`), s!.get(`0:${n - 1}`)) : zeros([0], { dtype: 'bool' }), edge]);
    return s!.get(logical_and(flag.get(`1:${n + 1}`), flag.get(`0:${n}`)));
  });
}

/**
 * NumPy 2's array-API unique functions: unique with equal_nan=False (each
 * NaN its own value), the inverse of the input's shape. NumPy returns named
 * tuples; these return plain objects with the same field names.
 * unique_values is sorted (NumPy 2.3+ may give its values in any order).
 */
export const unique_values = (x: Operand): Tensor => unique(x, { equal_nan: false }) as Tensor;
export function unique_counts(x: Operand): { values: Tensor; counts: Tensor } {
  const [values, counts] = unique(x, { return_counts: true, equal_nan: false }) as Tensor[];
  return { values: values!, counts: counts! };
}
export function unique_inverse(x: Operand): { values: Tensor; inverse_indices: Tensor } {
  const [values, inverse] = unique(x, { return_inverse: true, equal_nan: false }) as Tensor[];
  return { values: values!, inverse_indices: inverse! };
}
export function unique_all(x: Operand): { values: Tensor; indices: Tensor; inverse_indices: Tensor; counts: Tensor } {
  const [values, indices, inverse, counts] = unique(x, { return_index: true, return_inverse: true, return_counts: true, equal_nan: false }) as Tensor[];
  return { values: values!, indices: indices!, inverse_indices: inverse!, counts: counts! };
}

/**
 * lexsort(keys, axis=-1): the int64 order that sorts by the last key, ties
 * by the one before, and so on (NumPy's); keys a list of same-shape arrays or
 * one array whose first axis runs over them. Stable sorts from the first key
 * to the last (the last one decides), so equal keys keep their order; NaNs last.
 */
export function lexsort(keys: Operand | readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ axis?: number }>('lexsort', args, ['axis']);
  let ks: Tensor[];
  if (isTensor(keys) && isUnknown(keys.shape[0] ?? 0)) throw new TypeError('lexsort(): the number of keys is the length of the first axis, known only at run time here: execute() the array first');
  // keys of lengths the run will know are compared and sorted once it does
  const later = whenKnown('lexsort', [keys], (k) => lexsort(k, o));
  if (later) return later;
  if (isTensor(keys)) {
    if (keys.ndim === 0) throw new TypeError('need sequence of keys with len > 0 in lexsort');
    ks = Array.from({ length: keys.shape[0]! }, (_, i) => keys.get(i));
  } else {
    if (!Array.isArray(keys)) throw new TypeError('need sequence of keys with len > 0 in lexsort');
    ks = (keys as readonly Operand[]).map((k) => toTensor(k));
  }
  if (ks.length === 0) throw new TypeError('need sequence of keys with len > 0 in lexsort');
  const shape = ks[0]!.shape;
  if (ks.some((k) => k.ndim !== shape.length || k.shape.some((d, i) => d !== shape[i]))) throw new RangeError('all keys need to be the same shape');
  if (shape.length === 0) return astype(tensor(0), 'int64');
  const ax = normalizeAxis(o.axis ?? -1, shape.length);
  const order = (t: Tensor) => new Tensor(G.sort(t.node, ax, true));
  let perm = order(ks[0]!);
  for (const k of ks.slice(1)) perm = take_along_axis(perm, order(take_along_axis(k, perm, ax)), ax);
  return perm;
}

const ALL_NAN = 'All-NaN slice encountered';
function nanArg(fn: 'nanargmin' | 'nanargmax', a: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; keepdims?: boolean }>(fn, args, ['axis', 'out'], ['keepdims']);
  const t = toTensor(a);
  const f = fn === 'nanargmin' ? argmin : argmax;
  if (!isFloat(t.dtype)) return f(t, o);
  const nan = isnan(t);
  const r = f(where(nan, fn === 'nanargmin' ? Infinity : -Infinity, t), o);
  if (t.size === 0) return r;
  return guarded(r, logical_not(all(nan, { axis: o.axis ?? null, keepdims: o.keepdims ?? false })), ALL_NAN);
}
/** nanargmin(a, axis=None, out=None, *, keepdims=False): argmin with NaNs ignored; an all-NaN slice raises RangeError "All-NaN slice encountered" when the run reaches it. */
export const nanargmin = (a: Operand, ...args: Args): Tensor => nanArg('nanargmin', a, args);
/** nanargmax(a, axis=None, out=None, *, keepdims=False): argmax with NaNs ignored, as nanargmin. */
export const nanargmax = (a: Operand, ...args: Args): Tensor => nanArg('nanargmax', a, args);

function nanScan(fn: 'nancumsum' | 'nancumprod', a: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; dtype?: string }>(fn, args, ['axis', 'dtype', 'out']);
  const t = toTensor(a);
  const clean = isFloat(t.dtype) ? where(isnan(t), fn === 'nancumsum' ? 0 : 1, t) : t;
  return (fn === 'nancumsum' ? cumsum : cumprod)(clean, o);
}
/** nancumsum(a, axis=None, dtype=None, out=None): cumsum with NaNs as zero (NumPy's). */
export const nancumsum = (a: Operand, ...args: Args): Tensor => nanScan('nancumsum', a, args);
/** nancumprod(a, axis=None, dtype=None, out=None): cumprod with NaNs as one (NumPy's). */
export const nancumprod = (a: Operand, ...args: Args): Tensor => nanScan('nancumprod', a, args);

/** nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False): the median of each slice's non-NaN values; NaN for a slice of NaNs only or an empty one. */
export function nanmedian(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null; keepdims?: boolean }>('nanmedian', args, ['axis', 'out', 'overwrite_input', 'keepdims']);
  return quantileOf(a, { method: 'median', qs: [], qShape: [], qKind: 'weak-float', omitNaN: true }, o.axis, o.keepdims);
}
/** nanquantile(a, q, axis, out, overwrite_input, method='linear', keepdims): quantile over each slice's non-NaN values (every method); NaN for a slice of NaNs only or an empty one (NumPy's nanmean there gives the shape without q's axes for an empty array). */
export const nanquantile = (a: Operand, q: number | readonly unknown[] | Tensor, ...args: Args): Tensor => quantileCall('nanquantile', a, q, args, true);
/** nanpercentile(a, q, ...): nanquantile at q / 100. */
export const nanpercentile = (a: Operand, q: number | readonly unknown[] | Tensor, ...args: Args): Tensor => percentileCall('nanpercentile', a, q, args, true);

type Range = readonly [number, number] | null;

/** histogramdd's sample as (N, D): a 2-d tensor as it is; JS lists and other tensors through NumPy's atleast_2d(sample).T (a list holds one coordinate array per dimension). */
function sampleOf(sample: unknown): Tensor {
  if (isTensor(sample) && sample.ndim === 2) return sample;
  let t = Array.isArray(sample) && sample.some(isTensor) ? stack(sample.map((s) => toTensor(s as Operand))) : toTensor(sample as Operand);
  if (t.ndim < 2) t = reshape(t, t.ndim === 0 ? [1, 1] : [1, t.shape[0]!]);
  if (t.ndim !== 2) throw new RangeError(`too many values to unpack (expected 2, got ${t.ndim})`);
  return transpose(t);
}

/**
 * histogramdd(sample, bins=10, range=None, density=None, weights=None):
 * [hist, edges] as NumPy: per dimension equal bins over the data's or the
 * given range (histogram's edges, in its dtypes) or explicit edges; each
 * sample's bin is searchsorted 'right' on the edges (histogram's count of
 * the edges before it), a value on the last edge in the last bin; float64
 * counts (or sums of weights), divided by the bin volumes and the total
 * with density. The counts compare each sample's flat bin index with every
 * bin: O(samples x bins), one fused reduction, fine for the bin counts
 * these plots use.
 */
export function histogramdd(sample: unknown, ...args: Args): [Tensor, Tensor[]] {
  const o = kwargs<{ bins?: unknown; range?: readonly Range[] | null; density?: boolean | null; weights?: Operand | null }>('histogramdd', args, ['bins', 'range', 'density', 'weights']);
  let s = sampleOf(sample);
  if (s.dtype === 'bool') s = astype(s, 'uint8');
  const [N, D] = s.shape as [number, number];
  if (isUnknown(D)) throw new TypeError('histogramdd(): the number of dimensions of the sample is known only at run time here: execute() it first');
  // the count of samples is checked against the weights' and edges built from the data once the run knows them
  const later = whenKnownAll('histogramdd', [s, o], 1 + D, (u, p) => { const [h, es] = histogramdd(u, p); return [h, ...es]; });
  if (later) return [later[0]!, later.slice(1)];
  const bins = o.bins ?? 10;
  let binList: unknown[];
  if (Array.isArray(bins) || isTensor(bins)) {
    // NumPy's len(bins) entries: a 1-d tensor holds counts (known now), a 2-d one edges
    binList = !isTensor(bins) ? bins : bins.ndim === 0 ? Array(D).fill(bins)
      : bins.ndim === 1 ? (known(bins) ?? (() => { throw new TypeError('histogramdd(): bins held in a tensor must be computed first (await it.execute())'); })())
        : Array.from({ length: bins.shape[0]! }, (_, i) => bins.get(i));
    if (binList.length !== D) throw new RangeError('The dimension of bins must be equal to the dimension of the sample x.');
  } else binList = Array(D).fill(bins);
  const ranges = o.range ?? Array<Range>(D).fill(null);
  if (ranges.length !== D) throw new RangeError('range argument must have one entry per dimension');
  let w: Tensor | undefined;
  if (o.weights !== undefined && o.weights !== null) {
    w = toTensor(o.weights);
    if (w.ndim !== 1 || w.shape[0] !== N) throw new RangeError("The weights and list don't have the same length.");
  }
  const cols = Array.from({ length: D }, (_, i) => reshape(s.get(':', `${i}:${i + 1}`), [N]));
  const edges = cols.map((c, i) => {
    const b = binList[i];
    const e = isTensor(b) || Array.isArray(b) ? toTensor(b as Operand) : undefined;
    if (e === undefined || e.ndim === 0) {
      const v = e ? Number((known(e) ?? [NaN])[0]) : b;
      if (typeof v !== 'number') throw new TypeError(`\`bins[${i}]\` must be an integer, when a scalar`);
      if (v < 1) throw new RangeError(`\`bins[${i}]\` must be positive, when an integer`);
      if (!Number.isInteger(v)) throw new TypeError(`\`bins[${i}]\` must be an integer, when a scalar`);
      return equalEdges(c, v, ranges[i] ?? null, true).edges;
    }
    if (e.ndim !== 1) throw new RangeError(`\`bins[${i}]\` must be a scalar or 1d array`);
    const m = e.shape[0]!;
    const MONO = `\`bins[${i}]\` must be monotonically increasing, when an array`;
    const values = known(e);
    if (values) {
      for (let k = 1; k < values.length; k++) if (values[k - 1]! > values[k]!) throw new RangeError(MONO);
      return e;
    }
    return m < 2 ? e : guarded(e, logical_not(any(greater(e.get(`0:${m - 1}`), e.get(`1:${m}`)))), MONO);
  });
  // each sample's bin along each dimension (0 .. bins-1 inside, else out), flattened C-order over the inner bins
  const nb = edges.map((e) => e.shape[0]! - 1);
  let flatIdx: Tensor | undefined, inside: Tensor | undefined;
  cols.forEach((c, i) => {
    const e = edges[i]!, m = nb[i]! + 1;
    const onLast = equal(c, reshape(e.get(`${m - 1}:${m}`), []));
    const k = subtract(subtract(countBefore(e, c, 'right'), astype(onLast, 'int64')), 1);
    const ok = logical_and(greater_equal(k, 0), less(k, nb[i]!));
    inside = inside ? logical_and(inside, ok) : ok;
    flatIdx = flatIdx ? add(multiply(flatIdx, nb[i]!), k) : k;
  });
  const total = nb.reduce((p, d) => p * d, 1);
  // each sample's weight (or 1) added into its bin in sample order, as NumPy's bincount over the flat bins does;
  // a sample outside every bin goes to one more bin, dropped after
  const pos = where(inside!, flatIdx!, total);
  const vals = w ? astype(w, 'float64') : astype(inside!, 'float64');
  const counts = new Tensor(G.scatter('add', zeros([total + 1]).node, flat(pos).node, flat(vals).node, 'float64'));
  let hist = reshape(counts.get(`0:${total}`), nb);
  if (o.density) {
    const tot = sum(hist);
    edges.forEach((e, i) => {
      const m = nb[i]! + 1;
      const de = subtract(e.get(`1:${m}`), e.get(`0:${m - 1}`));
      hist = divide(hist, reshape(de, nb.map((d, j) => (j === i ? d : 1))));
    });
    hist = divide(hist, tot);
  }
  return [hist, edges];
}

/**
 * histogram2d(x, y, bins=10, range=None, density=None, weights=None):
 * [H, xedges, yedges], histogramdd of the pairs (x, y); bins as NumPy reads
 * them: a count or [nx, ny], the edges shared by both, or [xedges, yedges].
 */
export function histogram2d(x: Operand, y: Operand, ...args: Args): [Tensor, Tensor, Tensor] {
  const o = kwargs<{ bins?: unknown; range?: readonly Range[] | null; density?: boolean | null; weights?: Operand | null }>('histogram2d', args, ['bins', 'range', 'density', 'weights']);
  const xt = toTensor(x), yt = toTensor(y);
  if (xt.ndim === 0 || yt.ndim === 0) throw new TypeError('len() of unsized object');
  const later = whenKnownAll('histogram2d', [xt, yt, o], 3, (u, v, p) => histogram2d(u, v, p));
  if (later) return later as [Tensor, Tensor, Tensor];
  if (xt.shape[0] !== yt.shape[0]) throw new RangeError('x and y must have the same length.');
  let bins = o.bins ?? 10;
  const n = Array.isArray(bins) ? bins.length : isTensor(bins) && bins.ndim > 0 ? bins.shape[0]! : 1;
  if (n !== 1 && n !== 2) bins = [bins, bins];
  const [hist, edges] = histogramdd([xt, yt], { ...o, bins });
  return [hist, edges[0]!, edges[1]!];
}
