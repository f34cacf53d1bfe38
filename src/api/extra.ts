// NumPy's remaining array functions, composed of the core's lazy operations
// (views, where, gather, scans, sorts) the way NumPy's own Python code
// composes ndarray operations: flips and rotations, shape queries,
// broadcasting, index builders (tril_indices, indices, ix_, unravel_index,
// ravel_multi_index), geomspace, select/choose, append/insert/delete,
// resize, trapezoid, polyval, vander, kron, cross, gradient, ediff1d,
// partition, convolve/correlate, and the functions that call JS functions
// on lazy tensors (apply_along_axis, apply_over_axes, piecewise), and
// lib.stride_tricks.sliding_window_view. In: tensors, JS data and NumPy's arguments (keywords in a
// trailing options object, see `kwargs`). Out: lazy Tensors, or JS numbers
// for the shape queries. An operand whose length is known only at run time
// (a selection) is built over once the run knows it (`whenKnown`), and
// insert's and delete's positions computed in the same run are computed
// first (`onValues`); index values checked by NumPy ('raise' modes) are
// checked now when known, else when the run reaches them (G.check).

import { type DType, canCast, defaultDTypeOfWeak, isFloat, isInteger, promoteTypes, promoteWeak, weakKindOf } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import { binaryScalar } from '../ir/scalar.js';
import { broadcastShapes, checkShape, hasUnknown, isUnknown, normalizeAxes, normalizeAxis, repr, shapeStr } from '../graph/shape.js';
import { runtime } from '../runtime/runtime.js';
import { type JsData, dtypeArg, fromJs } from './convert.js';
import { Slice, compress, getitem, nonzero } from './indexing.js';
import { finfo } from './info.js';
import { linalg } from './linalg.js';
import { diag } from './manipulate.js';
import { argsort, diff, logspace, sort } from './statistics.js';
import { kwargs, knownLength, trailingOpts } from './bind.js';
import {
  type Operand, Tensor, add, all, any, astype, broadcast_to, clip, concatenate, cumprod, divide, equal, flip, floor_divide, greater_equal, isTensor,
  arange, less, linspace, log10, matmul, logical_and, logical_not, logical_or, mod, moveaxis, multiply, negative, not_equal, power, ravel, reshape,
  ones, sign, stack, subtract, sum, deferred, onValues, take, tensor, toTensor, transpose, where, whenKnown, whenKnownAll, zeros, zeros_like,
} from './core.js';

type Args = unknown[];

// ---------------------------------------------------------------------------
// Helpers

/** t[..., start:stop, ...] along `ax`, with Python's slice bounds. */
function along(t: Tensor, ax: number, start: number | null, stop: number | null): Tensor {
  const { start: s, len } = new Slice(start, stop).indices(t.shape[ax]!);
  return new Tensor(G.slice(t.node, t.shape.map((_, i) => (i === ax ? s : 0)), t.shape.map(() => 1), t.shape.map((d, i) => (i === ax ? len : d))));
}
const int64 = (v: readonly number[]): Tensor => tensor(BigInt64Array.from(v, (x) => BigInt(x)));
const range = (n: number, from = 0): number[] => Array.from({ length: Math.max(0, n) }, (_, i) => from + i);
const withAxis = (shape: readonly number[], ax: number, len: number): number[] => shape.map((d, i) => (i === ax ? len : d));
const sameShape = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);
const shapeOfData = (a: Operand): number[] => (isTensor(a) ? a.shape : typeof a === 'number' || typeof a === 'boolean' ? [] : fromJs(a as JsData).shape);
const intArg = (fn: string, v: unknown, name: string): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${fn}(): '${name}' must be an integer, got ${repr(v)}`);
  return v;
};

/** NumPy's result_type: arrays (tensors, JS arrays) are strong, JS numbers and booleans weak (NEP 50). */
function resultType(xs: readonly Operand[]): DType {
  const strong = xs.filter((x) => typeof x !== 'number' && typeof x !== 'boolean').map((x) => toTensor(x).dtype);
  const weak = xs.filter((x): x is number | boolean => typeof x === 'number' || typeof x === 'boolean').map(weakKindOf);
  if (!strong.length) return weak.map(defaultDTypeOfWeak).reduce(promoteTypes);
  return weak.reduce(promoteWeak, strong.reduce(promoteTypes));
}

/**
 * The values of a tensor known now (a JS number, JS data or a tensor already
 * computed), seen through casts (of integers and bools), reshapes and
 * broadcasts, which keep the set of values; undefined otherwise.
 */
function known(t: Tensor): number[] | undefined {
  let n = t.node;
  while (!runtime.has(n) && ['cast', 'reshape', 'expand'].includes(n.op) && !isFloat(n.inputs[0]!.dtype)) n = n.inputs[0]!;
  if (n.op === 'const') return [Number((n.attrs as { value: number | string }).value)];
  return runtime.has(n) ? Array.from(runtime.values(n), Number) : undefined;
}

/**
 * `r`, once every element of `ok` holds: at once when `inRange` can say
 * from values known now, else when the run reaches the check (NumPy raises
 * ValueError: a RangeError here; at run time an Error named 'RangeError').
 */
function guarded(r: Tensor, ok: Tensor, message: string, nowOk: boolean | undefined): Tensor {
  if (nowOk === false) throw new RangeError(message);
  if (nowOk === true) return r;
  const c = new Tensor(G.check(broadcast_to(ok, r.shape).node, 'nonzero', 'RangeError', message));
  return where(c, r, r);
}
/** Whether all known values of `t` lie in [lo, hi); undefined when not known now. */
function inRange(t: Tensor, lo: number, hi: number): boolean | undefined {
  const v = known(t);
  return v && v.every((x) => x >= lo && x < hi);
}
const between = (t: Tensor, lo: number, hi: number): Tensor => logical_and(greater_equal(t, lo), less(t, hi));

/** Integer index values (NumPy's "only int indices"); bools count as integers. */
function indexArray(fn: string, x: Operand, message = 'only int indices permitted'): Tensor {
  const t = toTensor(x);
  if (isFloat(t.dtype)) throw new TypeError(message);
  return astype(t, 'int64');
}

/** NumPy's `axis=None` flattening (insert, delete): the array and the axis worked on. */
function flatAxis(arr: Operand, axis: number | null | undefined): [Tensor, number] {
  const t = toTensor(arr);
  if (axis === undefined || axis === null) return [t.ndim === 1 ? t : ravel(t), 0];
  return [t, normalizeAxis(axis, t.ndim)];
}

// ---------------------------------------------------------------------------
// Flips, rotations, axes

/** fliplr(m): m[:, ::-1]; NumPy's ValueError for fewer than 2 dimensions. */
export function fliplr(m: Operand): Tensor {
  const t = toTensor(m);
  if (t.ndim < 2) throw new RangeError('Input must be >= 2-d.');
  return flip(t, 1);
}
/** flipud(m): m[::-1, ...]; NumPy's ValueError for a 0-d array. */
export function flipud(m: Operand): Tensor {
  const t = toTensor(m);
  if (t.ndim < 1) throw new RangeError('Input must be >= 1-d.');
  return flip(t, 0);
}

/** rot90(m, k=1, axes=(0, 1)): NumPy's flips and transposes, k taken modulo 4. */
export function rot90(m: Operand, ...args: Args): Tensor {
  const o = kwargs<{ k?: number; axes?: readonly number[] }>('rot90', args, ['k', 'axes']);
  const t = toTensor(m);
  const axes = [...(o.axes ?? [0, 1])];
  if (axes.length !== 2) throw new RangeError('len(axes) must be 2.');
  const [a0, a1] = axes as [number, number];
  if (a0 === a1 || Math.abs(a0 - a1) === t.ndim) throw new RangeError('Axes must be different.');
  if (a0 >= t.ndim || a0 < -t.ndim || a1 >= t.ndim || a1 < -t.ndim) throw new RangeError(`Axes=(${a0}, ${a1}) out of range for array of ndim=${t.ndim}.`);
  const k = ((intArg('rot90', o.k ?? 1, 'k') % 4) + 4) % 4;
  if (k === 0) return t;
  if (k === 2) return flip(flip(t, a0), a1);
  const perm = range(t.ndim);
  const [i, j] = [normalizeAxis(a0, t.ndim), normalizeAxis(a1, t.ndim)];
  [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  return k === 1 ? transpose(flip(t, a1), perm) : flip(transpose(t, perm), a1);
}

/** rollaxis(a, axis, start=0): NumPy's older moveaxis, with its AxisError text for `start`. */
export function rollaxis(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number; start?: number }>('rollaxis', args, ['axis', 'start']);
  const t = toTensor(a);
  const n = t.ndim;
  const axis = normalizeAxis(intArg('rollaxis', o.axis, 'axis'), n);
  let start = intArg('rollaxis', o.start ?? 0, 'start');
  if (start < 0) start += n;
  if (!(start >= 0 && start < n + 1)) throw new RangeError(`'start' arg requires ${-n} <= start < ${n + 1}, but ${start} was passed in`);
  if (axis < start) start -= 1;
  if (axis === start) return t;
  const perm = range(n).filter((i) => i !== axis);
  perm.splice(start, 0, axis);
  return transpose(t, perm);
}

// ---------------------------------------------------------------------------
// Shape queries and broadcasting

/** copy(a, order='K'): the same values (a tensor is immutable, so no data is copied). */
export function copy(a: Operand, ...args: Args): Tensor {
  kwargs('copy', args, ['order', 'subok']);
  return toTensor(a);
}
/** ndim(a): the number of dimensions of a tensor or JS data, as a JS number. */
export const ndim = (a: Operand): number => shapeOfData(a).length;
/** shape(a): the shape as a JS array (NumPy's tuple); NaN for a length known only at run time. */
export const shape = (a: Operand): number[] => shapeOfData(a);
/** size(a, axis=None): the element count, or the product of the lengths along `axis` (an int or, as NumPy 2.4, a list). */
export function size(a: Operand, ...args: Args): number {
  const o = kwargs<{ axis?: number | readonly number[] | null }>('size', args, ['axis']);
  const s = shapeOfData(a);
  const axes = o.axis === undefined || o.axis === null ? range(s.length) : typeof o.axis === 'number' ? [normalizeAxis(o.axis, s.length)] : normalizeAxes(o.axis, s.length);
  return axes.reduce((p, i) => p * s[i]!, 1);
}

/** broadcast_shapes(*shapes): the broadcast shape as a JS array, with NumPy's mismatch message. */
export function broadcast_shapes(...shapes: (number | readonly number[])[]): number[] {
  const ss = shapes.map((s) => checkShape(s));
  try {
    return broadcastShapes(...ss);
  } catch (e) {
    for (let j = 1; j < ss.length; j++) {
      for (let i = 0; i < j; i++) {
        try { broadcastShapes(ss[i]!, ss[j]!); } catch {
          throw new RangeError(`shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg ${i} with shape ${shapeStr(ss[i]!)} and arg ${j} with shape ${shapeStr(ss[j]!)}.`);
        }
      }
    }
    throw e;
  }
}
/** broadcast_arrays(*args): each array broadcast to the common shape (a JS array of tensors, NumPy's tuple). */
export function broadcast_arrays(...args: (Operand | { subok?: boolean })[]): Tensor[] {
  const [xs, o] = trailingOpts<{ subok?: boolean }>(args);
  kwargs('broadcast_arrays', [o], [], ['subok']);
  const ts = xs.map((x) => toTensor(x as Operand));
  // the common shape of lengths the run will know: broadcast once it does
  const later = whenKnownAll('broadcast_arrays', [ts], ts.length, (us) => broadcast_arrays(...us));
  if (later) return later;
  const s = broadcast_shapes(...ts.map((t) => t.shape));
  return ts.map((t) => (sameShape(t.shape, s) ? t : broadcast_to(t, s)));
}

// ---------------------------------------------------------------------------
// Index builders

/** diagflat(v, k=0): the flattened input on diagonal k of a square matrix. */
export const diagflat = (v: Operand, ...args: Args): Tensor => diag(ravel(v), kwargs<{ k?: number }>('diagflat', args, ['k']));

/** Row and column indices of the n x m positions kept by tril (lower) or triu, row by row. */
function triIndices(fn: string, n: number, k: number, m: number | null | undefined, lower: boolean): Tensor[] {
  const cols = m ?? n;
  [n, k, cols].forEach((v, i) => intArg(fn, knownLength(fn, v, ['n', 'k', 'm'][i]!), ['n', 'k', 'm'][i]!));
  const r: number[] = [], c: number[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < cols; j++) if (lower ? j - i <= k : j - i >= k) { r.push(i); c.push(j); }
  return [int64(r), int64(c)];
}
/** tril_indices(n, k=0, m=None): int64 row and column indices of the lower triangle. */
export function tril_indices(n: number, ...args: Args): Tensor[] {
  const o = kwargs<{ k?: number; m?: number | null }>('tril_indices', args, ['k', 'm']);
  return triIndices('tril_indices', n, o.k ?? 0, o.m, true);
}
/** triu_indices(n, k=0, m=None): int64 row and column indices of the upper triangle. */
export function triu_indices(n: number, ...args: Args): Tensor[] {
  const o = kwargs<{ k?: number; m?: number | null }>('triu_indices', args, ['k', 'm']);
  return triIndices('triu_indices', n, o.k ?? 0, o.m, false);
}
const triFrom = (fn: string, arr: Operand, args: Args, lower: boolean): Tensor[] => {
  const s = shapeOfData(arr);
  if (s.length !== 2) throw new RangeError('input array must be 2-d');
  // the count of positions follows the lengths: listed once the run knows them
  const later = whenKnownAll(fn, [toTensor(arr)], 2, (u) => triFrom(fn, u, args, lower));
  if (later) return later;
  return triIndices(fn, s[0]!, kwargs<{ k?: number }>(fn, args, ['k']).k ?? 0, s[1]!, lower);
};
/** tril_indices_from(arr, k=0): tril_indices for a 2-d array's shape. */
export const tril_indices_from = (arr: Operand, ...args: Args): Tensor[] => triFrom('tril_indices_from', arr, args, true);
/** triu_indices_from(arr, k=0): triu_indices for a 2-d array's shape. */
export const triu_indices_from = (arr: Operand, ...args: Args): Tensor[] => triFrom('triu_indices_from', arr, args, false);
/** diag_indices(n, ndim=2): `ndim` copies of arange(n). */
export function diag_indices(n: number, ...args: Args): Tensor[] {
  const d = intArg('diag_indices', kwargs<{ ndim?: number }>('diag_indices', args, ['ndim']).ndim ?? 2, 'ndim');
  const i = int64(range(intArg('diag_indices', knownLength('diag_indices', n, 'n'), 'n')));
  return range(d).map(() => i);
}
/** diag_indices_from(arr): diag_indices for an array of at least 2 equal dimensions. */
export function diag_indices_from(arr: Operand): Tensor[] {
  const s = shapeOfData(arr);
  if (s.length < 2) throw new RangeError('input array must be at least 2-d');
  const later = whenKnownAll('diag_indices_from', [toTensor(arr)], s.length, (u) => diag_indices_from(u));
  if (later) return later;
  if (s.some((d) => d !== s[0])) throw new RangeError('All dimensions of input must be of equal length');
  return diag_indices(s[0]!, s.length);
}

/** indices(dimensions, dtype=int, sparse=False): the grid of indices, stacked (N, *dims) or sparse (a list of broadcastable arrays). */
export function indices(dimensions: readonly number[], ...args: Args): Tensor | Tensor[] {
  const o = kwargs<{ dtype?: DType | string; sparse?: boolean }>('indices', args, ['dtype', 'sparse']);
  if (Array.isArray(dimensions) && dimensions.some((d) => Number.isNaN(d))) throw new G.UnknownLengthError(`indices() of dimensions ${shapeStr(dimensions)}`);
  const dims = checkShape(dimensions, 'dimensions');
  const d = dtypeArg(o.dtype) ?? 'int64';
  const grid = (i: number) => {
    const s = o.sparse ? dims.map((n, j) => (j === i ? n : 1)) : dims;
    return new Tensor(G.cast(G.iota(s, i), d));
  };
  if (o.sparse) return range(dims.length).map(grid);
  return dims.length ? stack(range(dims.length).map(grid)) : zeros([0], { dtype: d });
}

/** ix_(*args): open-mesh index arrays; booleans become their nonzero positions, empty JS lists int64. */
export function ix_(...args: Operand[]): Tensor[] {
  return args.map((x, k) => {
    let t = toTensor(x);
    if (!isTensor(x) && t.size === 0) t = astype(t, 'int64');
    if (t.ndim !== 1) throw new RangeError('Cross index must be 1 dimensional');
    if (t.dtype === 'bool') t = nonzero(t)[0]!;
    return reshape(t, args.map((_, j) => (j === k ? -1 : 1)));
  });
}

/** Row-major (C) or column-major (F) strides, in elements, of `dims`. */
function stridesOf(dims: readonly number[], order: string): number[] {
  if (order !== 'C' && order !== 'F') throw new RangeError("only 'C' or 'F' order is permitted");
  const idx = order === 'C' ? range(dims.length).reverse() : range(dims.length);
  const st = new Array<number>(dims.length);
  let p = 1;
  for (const i of idx) { st[i] = p; p *= dims[i]!; }
  return st;
}

/** unravel_index(indices, shape, order='C'): int64 coordinates of flat indices; NumPy's ValueError for an index out of bounds. */
export function unravel_index(ind: Operand, ...args: Args): Tensor[] {
  const o = kwargs<{ shape?: number | readonly number[]; order?: string }>('unravel_index', args, ['shape', 'order']);
  const dims = checkShape(o.shape ?? [], 'shape');
  const st = stridesOf(dims, o.order ?? 'C');
  const total = dims.reduce((p, d) => p * d, 1);
  const i = indexArray('unravel_index', ind);
  const bad = known(i)?.find((v) => v < 0 || v >= total);
  if (bad !== undefined) throw new RangeError(`index ${bad} is out of bounds for array with size ${total}`);
  const ok = between(i, 0, total), nowOk = inRange(i, 0, total);
  return dims.map((d, j) => guarded(mod(floor_divide(i, st[j]!), Math.max(d, 1)), ok, `an index is out of bounds for array with size ${total}`, nowOk));
}

const MODES = ['raise', 'wrap', 'clip'] as const;
type Mode = (typeof MODES)[number];
const modeOf = (fn: string, m: unknown): Mode => {
  if (!MODES.includes(m as Mode)) throw new RangeError(`${fn}(): mode must be one of 'raise', 'wrap' or 'clip', got ${JSON.stringify(m)}`);
  return m as Mode;
};
/** Indices into a length-n axis by `mode`: wrapped, clipped, or (raise) checked to lie in [0, n). */
function byMode(i: Tensor, n: number, mode: Mode, message: string): Tensor {
  if (mode === 'wrap') return mod(i, Math.max(n, 1));
  if (mode === 'clip') return clip(i, 0, Math.max(n - 1, 0));
  return guarded(i, between(i, 0, n), message, inRange(i, 0, n));
}

/** ravel_multi_index(multi_index, dims, mode='raise', order='C'): flat int64 indices; a mode per dimension too. */
export function ravel_multi_index(multi: readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ dims?: number | readonly number[]; mode?: Mode | readonly Mode[]; order?: string }>('ravel_multi_index', args, ['dims', 'mode', 'order']);
  const dims = checkShape(o.dims ?? [], 'dims');
  if (multi.length !== dims.length) throw new RangeError(`parameter multi_index must be a sequence of length ${dims.length}`);
  const st = stridesOf(dims, o.order ?? 'C');
  const modes = typeof o.mode === 'object' ? [...o.mode] : dims.map(() => o.mode ?? 'raise');
  if (modes.length !== dims.length) throw new RangeError('mode must be a single mode or one per dimension');
  const later = whenKnown('ravel_multi_index', [multi], (m) => ravel_multi_index(m, o));
  if (later) return later;
  const cs = broadcast_arrays(...multi.map((c) => indexArray('ravel_multi_index', c)));
  return cs.reduce<Tensor>((r, c, j) => add(r, multiply(byMode(c, dims[j]!, modeOf('ravel_multi_index', modes[j]), 'invalid entry in coordinates array'), st[j]!)), zeros(cs[0]?.shape ?? [], { dtype: 'int64' }));
}

// ---------------------------------------------------------------------------
// Sequences and selection

/** geomspace(start, stop, num=50, endpoint=True, dtype=None): NumPy 2's logspace of the logs, exact endpoints, negative ranges by sign. */
export function geomspace(start: Operand, stop: Operand, ...args: Args): Tensor {
  const o = kwargs<{ num?: number; endpoint?: boolean; dtype?: DType | string; axis?: number }>('geomspace', args, ['num', 'endpoint', 'dtype', 'axis']);
  const num = o.num ?? 50, endpoint = o.endpoint ?? true;
  const later = whenKnown('geomspace', [toTensor(start), toTensor(stop)], (a, b) => geomspace(a, b, o));
  if (later) return later;
  // NumPy takes the bounds as arrays (a JS number is no weaker than a tensor here) and computes in
  // result_type(start, stop, float(num), zeros((), dtype)): float64 unless a dtype is asked for
  let s = toTensor(start), e = toTensor(stop);
  const asked = o.dtype === undefined ? undefined : dtypeArg(o.dtype);
  const dt = promoteWeak(promoteTypes(promoteTypes(s.dtype, e.dtype), asked ?? 'float64'), weakKindOf(0.5));
  const now = [s, e].map(known);
  if (now.some((v) => v?.some((x) => x === 0))) throw new RangeError('Geometric sequence cannot include zero');
  const nonzero = now.every((v) => v !== undefined) ? undefined : logical_and(all(not_equal(s, 0)), all(not_equal(e, 0)));
  s = astype(s, dt); e = astype(e, dt);
  // negative bounds: start rotated to positive, the samples rotated back (each endpoint exactly its bound)
  const sg = sign(s);
  s = divide(s, sg); e = divide(e, sg);
  let r = logspace(log10(s), log10(e), num, { endpoint, base: 10, dtype: dt });
  const i = reshape(new Tensor(G.iota([num], 0)), [-1, ...r.shape.slice(1).map(() => 1)]);
  if (num > 0) r = where(equal(i, 0), s, r);
  if (num > 1 && endpoint) r = where(equal(i, num - 1), e, r);
  r = multiply(r, sg);
  if ((o.axis ?? 0) !== 0) r = moveaxis(r, 0, o.axis!);
  if (nonzero) r = guarded(r, nonzero, 'Geometric sequence cannot include zero', undefined);
  return astype(r, asked ?? dt);
}

/** select(condlist, choicelist, default=0): the first choice whose condition holds; NumPy's dtype (choices strong, a JS default weak). */
export function select(condlist: readonly Operand[], choicelist: readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ default?: Operand }>('select', args, ['default']);
  if (condlist.length !== choicelist.length) throw new RangeError('list of cases must be same length as list of conditions');
  if (!condlist.length) throw new RangeError('select with an empty condition list is not possible');
  const conds = condlist.map((c, i) => {
    const t = toTensor(c);
    if (t.dtype !== 'bool') throw new TypeError(`invalid entry ${i} in condlist: should be boolean ndarray`);
    return t;
  });
  const choices = choicelist.map(toTensor);
  const dflt = o.default ?? 0;
  const later = whenKnown('select', [conds, choices, dflt], (c, ch, d) => select(c, ch, { default: d }));
  if (later) return later;
  const d = resultType([...choices, dflt]);
  const shape = broadcast_shapes(...conds.map((c) => c.shape), ...choices.map((c) => c.shape), shapeOfData(dflt));
  let r = broadcast_to(astype(toTensor(dflt), d), shape);
  for (let i = conds.length - 1; i >= 0; i--) r = where(conds[i]!, astype(choices[i]!, d), r);
  return r;
}

/** choose(a, choices, out=None, mode='raise'): choices[a[i]][i], by where(); 'wrap' and 'clip' as NumPy's, 'raise' checked. */
export function choose(a: Operand, choices: Operand | readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ mode?: Mode }>('choose', args, ['out', 'mode']);
  const idx = toTensor(a);
  if (isFloat(idx.dtype)) throw new TypeError(`Cannot cast array data from dtype('${idx.dtype}') to dtype('int64') according to the rule 'safe'`);
  const later = whenKnown('choose', [idx, choices, o], (i, c, p) => choose(i, c, p));
  if (later) return later;
  const list: Operand[] = isTensor(choices) ? range(choices.shape[0] ?? 0).map((j) => getitem(choices, j)) : [...(choices as Operand[])];
  if (!list.length) throw new RangeError('0-length sequence.');
  const d = resultType(list);
  const cs = list.map((c) => astype(toTensor(c), d));
  const shape = broadcast_shapes(idx.shape, ...cs.map((c) => c.shape));
  const i = byMode(astype(idx, 'int64'), cs.length, modeOf('choose', o.mode ?? 'raise'), 'invalid entry in choice array');
  let r = broadcast_to(cs[cs.length - 1]!, shape);
  for (let j = cs.length - 2; j >= 0; j--) r = where(equal(i, j), cs[j]!, r);
  return sameShape(r.shape, shape) ? r : broadcast_to(r, shape);
}

// ---------------------------------------------------------------------------
// Inserting, deleting, resizing

/** append(arr, values, axis=None): concatenate, both flattened when axis is None. */
export function append(arr: Operand, values: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null }>('append', args, ['axis']);
  return o.axis === undefined || o.axis === null ? concatenate([ravel(arr), ravel(values)]) : concatenate([arr, values], { axis: o.axis });
}

/** Index values of insert's or delete's `obj` (a number, a list, a tensor known now or an mt.slice) along a length-n axis. */
function positions(obj: unknown, n: number): { v: number[]; ndim: number; dtype: DType } {
  if (obj instanceof Slice) {
    const { start, step, len } = obj.indices(n);
    return { v: range(len).map((i) => start + i * step), ndim: 1, dtype: 'int64' };
  }
  const t = toTensor(obj as Operand);
  const v = known(t)!;
  // an empty JS list is integer positions (NumPy casts it to intp)
  return { v, ndim: t.ndim, dtype: !isTensor(obj) && !v.length ? 'int64' : t.dtype };
}

/**
 * insert's or delete's positions held in a tensor the run has yet to compute
 * (searchsorted's, flatnonzero's): they set the result's length, so the run
 * computes them first and builds the operation over their values, read as
 * NumPy reads the array (a 0-d one as one position, booleans as a mask);
 * undefined for positions known now.
 */
function lazyPositions(fn: string, obj: unknown, t: Tensor, ax: number, others: Tensor[], build: (t: Tensor, positions: unknown, others: Tensor[]) => Tensor): Tensor | undefined {
  if (!isTensor(obj) || known(obj)) return undefined;
  if (isFloat(obj.dtype)) throw fn === 'insert' ? new TypeError('slice indices must be integers or None or have an __index__ method') : new RangeError('arrays used as indices must be of integer (or boolean) type');
  if (obj.ndim > 1) throw new RangeError(`index array argument obj to ${fn} must be one dimensional or scalar`);
  const read = (v: number[]): unknown => (obj.dtype === 'bool' ? v.map(Boolean) : obj.ndim === 0 ? v[0] : v);
  return onValues(fn, obj, [t, ...others], t.dtype, withAxis(t.shape, ax, NaN), (v, [u, ...rest]) => build(u!, read(v), rest));
}

/** insert(arr, obj, values, axis=None): values placed before the given positions (NumPy's rules for one index and for several, values cast to arr's dtype). */
export function insert(arr: Operand, obj: unknown, values: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null }>('insert', args, ['axis']);
  const [t, ax] = flatAxis(arr, o.axis);
  const lazy = lazyPositions('insert', obj, t, ax, [toTensor(values)], (u, p, [w]) => insert(u, p, w!, { axis: ax }));
  if (lazy) return lazy;
  const later = whenKnown('insert', [t, obj, values], (u, p, w) => insert(u, p, w, { axis: ax }));
  if (later) return later;
  const n = t.shape[ax]!;
  const p = positions(obj, n);
  // a boolean mask stands for its true positions (NumPy 2's flatnonzero)
  if (p.dtype === 'bool') {
    if (p.ndim !== 1) throw new RangeError('boolean array argument obj to insert must be one dimensional');
    Object.assign(p, { v: range(p.v.length).filter((i) => p.v[i]), dtype: 'int64' });
  }
  if (p.ndim > 1) throw new RangeError('index array argument obj to insert must be one dimensional or scalar');
  if (isFloat(p.dtype) && !(obj instanceof Slice)) throw new TypeError('slice indices must be integers or None or have an __index__ method');
  let v = astype(toTensor(values), t.dtype);
  let at: number[];
  if (p.v.length === 1) {
    let i = p.v[0]!;
    if (i < -n || i > n) throw new RangeError(`index ${i} is out of bounds for axis ${ax} with size ${n}`);
    if (i < 0) i += n;
    if (v.ndim < t.ndim) v = reshape(v, [...Array(t.ndim - v.ndim).fill(1), ...v.shape]);
    if (p.ndim === 0) v = moveaxis(v, 0, ax);
    at = range(v.shape[ax]!, i);
  } else {
    const idx = p.v.map((i) => {
      if (i < -n || i > n) throw new RangeError(`index ${i} is out of bounds for axis ${ax} with size ${n}`);
      return i < 0 ? i + n : i;
    });
    // NumPy's stable argsort of the positions, each shifted past the values inserted before it.
    at = new Array<number>(idx.length);
    range(idx.length).sort((x, y) => idx[x]! - idx[y]! || x - y).forEach((j, r) => { at[j] = idx[j]! + r; });
  }
  if (!at.length) return t;
  v = broadcast_to(v, withAxis(t.shape, ax, at.length));
  const from = new Array<number>(n + at.length);
  at.forEach((q, j) => { from[q] = n + j; });
  let k = 0;
  for (let q = 0; q < from.length; q++) if (from[q] === undefined) from[q] = k++;
  return take(concatenate([t, v], { axis: ax }), int64(from), { axis: ax });
}

/** delete(arr, obj, axis=None): the array without the given positions (integers, an mt.slice or a boolean mask; a mask tensor not yet computed selects at run time). */
function del(arr: Operand, obj: unknown, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null }>('delete', args, ['axis']);
  const [t, ax] = flatAxis(arr, o.axis);
  const lazy = isTensor(obj) && obj.dtype === 'bool' ? undefined : lazyPositions('delete', obj, t, ax, [], (u, p) => del(u, p, { axis: ax }));
  if (lazy) return lazy;
  const later = whenKnown('delete', [t, obj], (u, p) => del(u, p, { axis: ax }));
  if (later) return later;
  const n = t.shape[ax]!;
  const mask = isTensor(obj) ? obj : Array.isArray(obj) && obj.length && obj.every((x) => typeof x === 'boolean') ? tensor(obj) : undefined;
  if (mask && mask.dtype === 'bool') {
    if (!sameShape(mask.shape, [n])) throw new RangeError(`boolean array argument obj to delete must be one dimensional and match the axis length of ${n}`);
    if (!known(mask)) return compress(logical_not(mask), t, { axis: ax });
  }
  const p = positions(obj, n);
  if (isFloat(p.dtype)) throw new RangeError('arrays used as indices must be of integer (or boolean) type');
  const keep = new Array<boolean>(n).fill(true);
  if (p.dtype === 'bool' && p.ndim === 1) p.v.forEach((b, i) => { if (b) keep[i] = false; });
  else {
    for (const i of p.v) {
      if (i < -n || i >= n) throw new RangeError(`index ${i} is out of bounds for axis ${ax} with size ${n}`);
      keep[i < 0 ? i + n : i] = false;
    }
  }
  return take(t, int64(range(n).filter((i) => keep[i])), { axis: ax });
}
export { del as delete };

/** resize(a, new_shape): the flattened values repeated to fill the new shape (zeros for an empty input, as NumPy). */
export function resize(a: Operand, newShape: number | readonly number[]): Tensor {
  const s = typeof newShape === 'number' ? [newShape] : [...newShape];
  if (s.some((d) => d < 0)) throw new RangeError('all elements of `new_shape` must be non-negative');
  // the values repeat with the input's length as period: read once the run knows it
  const later = whenKnown('resize', [toTensor(a)], (u) => resize(u, s));
  if (later) return later;
  const flat = ravel(a);
  const total = s.reduce((p, d) => p * d, 1);
  if (flat.size === 0 || total === 0) return zeros_like(flat, { shape: s });
  const i = new Tensor(G.binary('mod', G.iota([total], 0), G.constant(flat.size, 'int64'), 'int64'));
  return reshape(take(flat, i), s);
}

// ---------------------------------------------------------------------------
// np.lib.stride_tricks

/**
 * sliding_window_view(x, window_shape, axis=None, *, subok=False,
 * writeable=False): every window of `window_shape` over `axis` (all axes when
 * None; an axis may repeat, its windows then nest), window axes last, as
 * NumPy's view; here each window axis is one gather of index i + j along its
 * axis, a new tensor that reads x, as every tensor is read-only.
 */
export function sliding_window_view(x: Operand, windowShape: number | readonly number[], ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null; subok?: boolean; writeable?: boolean }>('sliding_window_view', args, ['axis'], ['subok', 'writeable']);
  if (o.writeable) throw new TypeError('sliding_window_view(): writeable=True is not supported: a tensor never changes (build the new values with set)');
  let t = toTensor(x);
  const win = typeof windowShape === 'number' ? [windowShape] : [...windowShape];
  if (!win.every(Number.isInteger)) throw new TypeError(`sliding_window_view(): window_shape must be integers, got ${JSON.stringify(windowShape)}`);
  if (win.some((w) => w < 0)) throw new RangeError('`window_shape` cannot contain negative values');
  let axes: number[];
  if (o.axis === undefined || o.axis === null) {
    if (win.length !== t.ndim) {
      throw new RangeError(`Since axis is \`None\`, must provide window_shape for all dimensions of \`x\`; got ${win.length} window_shape elements and \`x.ndim\` is ${t.ndim}.`);
    }
    axes = win.map((_, i) => i);
  } else {
    axes = (typeof o.axis === 'number' ? [o.axis] : [...o.axis]).map((a) => normalizeAxis(a, t.ndim));
    if (axes.length !== win.length) {
      throw new RangeError(`Must provide matching length window_shape and axis; got ${win.length} window_shape elements and ${axes.length} axes elements.`);
    }
  }
  const later = whenKnown('sliding_window_view', [t], (u) => sliding_window_view(u, win, { axis: axes }));
  if (later) return later;
  const trimmed = [...t.shape];
  axes.forEach((a, i) => {
    if (trimmed[a]! < win[i]!) throw new RangeError('window shape cannot be larger than input array shape');
    trimmed[a] = trimmed[a]! - win[i]! + 1;
  });
  axes.forEach((a, i) => {
    const w = win[i]!, n = t.shape[a]! - w + 1;
    // index [n, w]: start i plus offset j; the gather puts both at axis a, then j goes last
    const idx = add(reshape(arange(0, n, 1, 'int64'), [n, 1]), reshape(arange(0, w, 1, 'int64'), [1, w]));
    t = moveaxis(new Tensor(G.gather(t.node, idx.node, a)), a + 1, -1);
  });
  return t;
}

/** np.lib: the stride tricks NumPy users reach for. */
export const lib = { stride_tricks: { sliding_window_view } } as const;

// ---------------------------------------------------------------------------
// Calculus and polynomials

/** trapezoid(y, x=None, dx=1.0, axis=-1): NumPy's sum of d * (y[1:] + y[:-1]) / 2.0. */
export function trapezoid(y: Operand, ...args: Args): Tensor {
  const o = kwargs<{ x?: Operand | null; dx?: number; axis?: number }>('trapezoid', args, ['x', 'dx', 'axis']);
  const t = toTensor(y);
  const later = whenKnown('trapezoid', [t, o], (u, p) => trapezoid(u, p));
  if (later) return later;
  const ax = normalizeAxis(o.axis ?? -1, t.ndim);
  let d: Operand = o.dx ?? 1.0;
  if (o.x !== undefined && o.x !== null) {
    const x = toTensor(o.x);
    d = x.ndim === 1 ? reshape(diff(x), t.shape.map((_, i) => (i === ax ? -1 : 1))) : diff(x, { axis: o.axis ?? -1 });
  }
  return sum(divide(multiply(d, add(along(t, ax, 1, null), along(t, ax, null, -1))), 2.0), { axis: ax });
}

/** polyval(p, x): Horner's rule as NumPy's loop (y = y * x + p[i], from zeros_like(x)). */
export function polyval(p: Operand, x: Operand): Tensor {
  const c = toTensor(p), xt = toTensor(x);
  if (c.ndim === 0) throw new TypeError('iteration over a 0-d array');
  // one Horner step per coefficient: unrolled once the run knows how many
  if (isUnknown(c.shape[0]!)) return deferred('polyval', [c], ([u]) => polyval(u!, xt));
  let r = zeros_like(xt);
  for (let i = 0; i < c.shape[0]!; i++) r = add(multiply(r, xt), getitem(c, i));
  return r;
}

/** vander(x, N=None, increasing=False): powers of x by a running product along each row (NumPy's multiply.accumulate). */
export function vander(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ N?: number | null; increasing?: boolean }>('vander', args, ['N', 'increasing']);
  const t = toTensor(x);
  if (t.ndim !== 1) throw new RangeError('x must be a one-dimensional array or sequence.');
  const later = whenKnown('vander', [t], (u) => vander(u, o));
  if (later) return later;
  const m = t.shape[0]!, n = intArg('vander', o.N ?? m, 'N');
  if (n < 0) throw new RangeError('negative dimensions are not allowed');
  const d = promoteTypes(t.dtype, 'int64');
  if (n === 0) return zeros([m, 0], { dtype: d });
  const powers = n > 1 ? [cumprod(broadcast_to(reshape(astype(t, d), [m, 1]), [m, n - 1]), { axis: 1 })] : [];
  const v = concatenate([ones([m, 1], { dtype: d }), ...powers], { axis: 1 });
  return o.increasing ? v : flip(v, 1);
}

/**
 * polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False): NumPy's
 * least-squares fit: the Vandermonde matrix (weighted by w), its columns
 * scaled to unit norm, linalg.lstsq, the coefficients unscaled, highest
 * power first (a column per column of a 2-d y). full=true gives [p,
 * residuals, rank, singular values, rcond]; cov=true (or 'unscaled') [p,
 * the covariance of p]. NumPy's RankWarning for a rank below deg + 1 is not
 * given (the rank is known only when the run computes it: full=true returns it).
 */
export function polyfit(x: Operand, y: Operand, deg: number, ...args: Args): Tensor | Tensor[] {
  const o = kwargs<{ rcond?: number | null; full?: boolean; w?: Operand | null; cov?: boolean | 'unscaled' }>('polyfit', args, ['rcond', 'full', 'w', 'cov']);
  if (typeof deg !== 'number' || !Number.isFinite(deg)) throw new TypeError(`polyfit(): deg must be a number, got ${repr(deg)}`);
  const order = Math.trunc(deg) + 1; // Python's int(deg)
  const asFloat = (v: Operand) => { const t = toTensor(v); return isFloat(t.dtype) ? t : astype(t, promoteTypes(t.dtype, 'float64')); };
  const xt = asFloat(x), yt = asFloat(y);
  if (order < 1) throw new RangeError('expected deg >= 0');
  // polyfit's outputs come as a list: each one built once the run knows the lengths
  if ([xt, yt, o.w].some((v) => isTensor(v) && hasUnknown(v.shape))) {
    const count = o.full ? 5 : o.cov ? 2 : 1;
    const parts = whenKnownAll('polyfit', [xt, yt, o], count, (u, v, p) => {
      const r = polyfit(u, v, deg, p);
      return Array.isArray(r) ? r : [r];
    })!;
    return count === 1 ? parts[0]! : parts;
  }
  if (xt.ndim !== 1) throw new TypeError('expected 1D vector for x');
  if (xt.size === 0) throw new TypeError('expected non-empty vector for x');
  if (yt.ndim < 1 || yt.ndim > 2) throw new TypeError('expected 1D or 2D array for y');
  if (xt.shape[0] !== yt.shape[0]) throw new TypeError('expected x and y to have same length');
  const rcond = o.rcond ?? xt.shape[0]! * Number(finfo(xt.dtype).eps);
  let lhs = vander(xt, order); // float64 for float32 data too, as NumPy's vander promotes with int
  let rhs = yt;
  if (o.w !== undefined && o.w !== null) {
    const w = asFloat(o.w);
    if (w.ndim !== 1) throw new TypeError('expected a 1-d array for weights');
    if (w.shape[0] !== yt.shape[0]) throw new TypeError('expected w and y to have the same length');
    const col = reshape(w, [-1, 1]);
    lhs = multiply(lhs, col);
    rhs = multiply(rhs, rhs.ndim === 2 ? col : w);
  }
  const scale = power(sum(multiply(lhs, lhs), { axis: 0 }), 0.5);
  lhs = divide(lhs, scale);
  const [c0, resids, rank, sv] = linalg.lstsq(lhs, rhs, rcond) as [Tensor, Tensor, Tensor, Tensor];
  const c = transpose(divide(transpose(c0), scale));
  if (o.full) return [c, resids, rank, sv, tensor(rcond, { dtype: 'float64' })];
  if (!o.cov) return c;
  const base = divide(linalg.inv(matmul(transpose(lhs), lhs)), multiply(reshape(scale, [-1, 1]), reshape(scale, [1, -1])));
  let fac: Operand = 1;
  if (o.cov !== 'unscaled') {
    if (xt.shape[0]! <= order) throw new RangeError('the number of data points must exceed order to scale the covariance matrix');
    fac = divide(resids, xt.shape[0]! - order);
  }
  return [c, yt.ndim === 1 ? multiply(base, fac) : multiply(reshape(base, [order, order, 1]), fac)];
}

/** kron(a, b): the Kronecker product as NumPy 2's broadcast product of interleaved axes. */
export function kron(a: Operand, b: Operand): Tensor {
  let at = toTensor(a);
  const bt = toTensor(b);
  const later = whenKnown('kron', [at, bt], (u, v) => kron(u, v));
  if (later) return later;
  if (at.ndim < bt.ndim) at = reshape(at, [...Array(bt.ndim - at.ndim).fill(1), ...at.shape]);
  if (at.ndim === 0 || bt.ndim === 0) return multiply(at, bt);
  const nd = Math.max(at.ndim, bt.ndim);
  const pad = (s: number[]) => [...Array(nd - s.length).fill(1), ...s] as number[];
  const as = pad(at.shape), bs = pad(bt.shape);
  const r = multiply(reshape(at, as.flatMap((v) => [v, 1])), reshape(bt, bs.flatMap((v) => [1, v])));
  return reshape(r, as.map((v, i) => v * bs[i]!));
}

/** cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None): NumPy's products for 3-vectors, and for 2-vectors (deprecated in NumPy 2, still computed: z only, or a 3-vector). */
export function cross(a: Operand, b: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axisa?: number; axisb?: number; axisc?: number; axis?: number | null }>('cross', args, ['axisa', 'axisb', 'axisc', 'axis']);
  const [axa, axb, axc] = o.axis === undefined || o.axis === null ? [o.axisa ?? -1, o.axisb ?? -1, o.axisc ?? -1] : [o.axis, o.axis, o.axis];
  let x = toTensor(a), y = toTensor(b);
  if (x.ndim < 1 || y.ndim < 1) throw new RangeError('At least one array has zero dimension');
  const later = whenKnown('cross', [x, y], (u, v) => cross(u, v, o));
  if (later) return later;
  x = moveaxis(x, normalizeAxis(axa, x.ndim), -1);
  y = moveaxis(y, normalizeAxis(axb, y.ndim), -1);
  const na = x.shape[x.ndim - 1]!, nb = y.shape[y.ndim - 1]!;
  if (![2, 3].includes(na) || ![2, 3].includes(nb)) throw new RangeError('incompatible dimensions for cross product\n(dimension must be 2 or 3)');
  const d = promoteTypes(x.dtype, y.dtype);
  const comp = (t: Tensor, n: number) => range(n).map((i) => astype(getitem(t, '...', i), d));
  const [a0, a1, a2] = comp(x, na), [b0, b1, b2] = comp(y, nb);
  const z = subtract(multiply(a0!, b1!), multiply(a1!, b0!));
  if (na === 2 && nb === 2) return z;
  const c0 = a2 && b2 ? subtract(multiply(a1!, b2), multiply(a2, b1!)) : a2 ? negative(multiply(a2, b1!)) : multiply(a1!, b2!);
  const c1 = a2 && b2 ? subtract(multiply(a2, b0!), multiply(a0!, b2)) : a2 ? multiply(a2, b0!) : negative(multiply(a0!, b2!));
  const cp = stack(broadcast_arrays(c0, c1, z), { axis: -1 });
  return moveaxis(cp, -1, normalizeAxis(axc, cp.ndim));
}

/**
 * gradient(f, *varargs, axis=None, edge_order=1): NumPy's second-order
 * central differences inside and first- or second-order one-sided ones at
 * the edges, for scalar spacings and coordinate arrays (one tensor per axis
 * when there are several). Coordinates known now that are evenly spaced use
 * the scalar formula, as NumPy's; a coordinate tensor not yet computed uses
 * the general one (the same values up to rounding).
 */
export function gradient(f: Operand, ...args: Args): Tensor | Tensor[] {
  const [varargs, kw] = trailingOpts<{ axis?: number | readonly number[] | null; edge_order?: number }>(args);
  const o = kwargs<{ axis?: number | readonly number[] | null; edge_order?: number }>('gradient', [kw], [], ['axis', 'edge_order']);
  let t = toTensor(f);
  // edges and interior are slices of known lengths: built once the run knows them (one output per axis)
  if ([t, ...varargs].some((v) => isTensor(v) && hasUnknown(v.shape))) {
    const count = o.axis === undefined || o.axis === null ? t.ndim : typeof o.axis === 'number' ? 1 : o.axis.length;
    const parts = whenKnownAll('gradient', [t, varargs], count, (u, vs) => {
      const r = gradient(u, ...vs, o);
      return Array.isArray(r) ? r : [r];
    })!;
    return count === 1 ? parts[0]! : parts;
  }
  const n = t.ndim;
  const axes = o.axis === undefined || o.axis === null ? range(n) : typeof o.axis === 'number' ? [normalizeAxis(o.axis, n)] : (() => {
    const l = o.axis.map((a) => normalizeAxis(a, n));
    if (new Set(l).size !== l.length) throw new RangeError('repeated axis');
    return l;
  })();
  const edge = intArg('gradient', o.edge_order ?? 1, 'edge_order');
  let dx: Operand[];
  if (varargs.length === 0) dx = axes.map(() => 1.0);
  else if (varargs.length === 1 && shapeOfData(varargs[0] as Operand).length === 0) dx = axes.map(() => varargs[0] as Operand);
  else if (varargs.length === axes.length) {
    dx = varargs.map((v, i) => {
      if (typeof v === 'number') return v;
      const given = toTensor(v as Operand);
      if (given.ndim === 0) return given;
      const c = isFloat(given.dtype) ? given : astype(given, 'float64');
      if (c.ndim !== 1) throw new RangeError('distances must be either scalars or 1d');
      if (c.shape[0] !== t.shape[axes[i]!]) throw new RangeError('when 1d, distances must match the length of the corresponding dimension');
      const dd = diff(c);
      const vals = known(given);
      const steps = vals?.slice(1).map((x, j) => Number(binaryScalar('subtract', x, vals[j]!, c.dtype)));
      return steps && steps.every((s) => s === steps[0]) ? getitem(dd, 0) : dd;
    });
  } else throw new TypeError('invalid number of arguments');
  if (edge > 2) throw new RangeError("'edge_order' greater than 2 not supported");
  const otype: DType = isFloat(t.dtype) ? t.dtype : 'float64';
  if (isInteger(t.dtype)) t = astype(t, 'float64');
  const out = axes.map((ax, k) => {
    if (t.shape[ax]! < edge + 1) throw new RangeError('Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are required.');
    const h = dx[k]!;
    const at = (start: number | null, stop: number | null) => along(t, ax, start, stop);
    const uniform = typeof h === 'number' || toTensor(h).ndim === 0;
    const hd = uniform ? undefined : toTensor(h);
    const col = (v: Tensor) => reshape(v, t.shape.map((_, i) => (i === ax ? -1 : 1)));
    const el = (i: number) => getitem(hd!, i);
    // a JS spacing stays a JS number (NumPy's Python float: weak in promotion)
    const over = (v: number): Operand => (typeof h === 'number' ? v / h : divide(v, h));
    const combo = (ca: Operand, cb: Operand, cc: Operand, s: [number | null, number | null][]) =>
      add(add(multiply(ca, at(...s[0]!)), multiply(cb, at(...s[1]!))), multiply(cc, at(...s[2]!)));
    let interior: Tensor;
    if (uniform) interior = divide(subtract(at(2, null), at(null, -2)), typeof h === 'number' ? 2 * h : multiply(2.0, h));
    else {
      const d1 = along(hd!, 0, 0, -1), d2 = along(hd!, 0, 1, null);
      const ca = divide(negative(d2), multiply(d1, add(d1, d2))), cb = divide(subtract(d2, d1), multiply(d1, d2)), cc = divide(d1, multiply(d2, add(d1, d2)));
      interior = combo(col(ca), col(cb), col(cc), [[null, -2], [1, -1], [2, null]]);
    }
    let first: Tensor, last: Tensor;
    if (edge === 1) {
      first = divide(subtract(at(1, 2), at(0, 1)), uniform ? h : el(0));
      last = divide(subtract(at(-1, null), at(-2, -1)), uniform ? h : el(-1));
    } else {
      const [p1, p2] = uniform ? [h, h] : [el(0), el(1)];
      first = uniform
        ? combo(over(-1.5), over(2.0), over(-0.5), [[0, 1], [1, 2], [2, 3]])
        : combo(divide(negative(add(multiply(2.0, p1), p2)), multiply(p1, add(p1, p2))), divide(add(p1, p2), multiply(p1, p2)), divide(negative(p1), multiply(p2, add(p1, p2))), [[0, 1], [1, 2], [2, 3]]);
      const [q1, q2] = uniform ? [h, h] : [el(-2), el(-1)];
      last = uniform
        ? combo(over(0.5), over(-2.0), over(1.5), [[-3, -2], [-2, -1], [-1, null]])
        : combo(divide(q2, multiply(q1, add(q1, q2))), divide(negative(add(q2, q1)), multiply(q1, q2)), divide(add(multiply(2.0, q2), q1), multiply(q2, add(q1, q2))), [[-3, -2], [-2, -1], [-1, null]]);
    }
    return concatenate([first, interior, last].map((p) => astype(p, otype)), { axis: ax });
  });
  return out.length === 1 ? out[0]! : out;
}

/** ediff1d(ary, to_end=None, to_begin=None): differences of the flattened array in its dtype, with NumPy's same_kind check on the ends. */
export function ediff1d(ary: Operand, ...args: Args): Tensor {
  const o = kwargs<{ to_end?: Operand | null; to_begin?: Operand | null }>('ediff1d', args, ['to_end', 'to_begin']);
  const later = whenKnown('ediff1d', [toTensor(ary), o], (u, p) => ediff1d(u, p));
  if (later) return later;
  const t = ravel(ary);
  const n = t.shape[0]!;
  const diffs = subtract(along(t, 0, 1, null), along(t, 0, null, Math.max(n - 1, 0)));
  const end = (v: Operand | null | undefined, name: string): Tensor[] => {
    if (v === undefined || v === null) return [];
    const e = toTensor(v);
    if (!canCast(e.dtype, t.dtype, 'same_kind')) throw new TypeError(`dtype of \`${name}\` must be compatible with input \`ary\` under the \`same_kind\` rule.`);
    return [astype(ravel(e), t.dtype)];
  };
  const begin = end(o.to_begin, 'to_begin'), tail = end(o.to_end, 'to_end');
  return begin.length || tail.length ? concatenate([...begin, astype(diffs, t.dtype), ...tail]) : diffs;
}

// ---------------------------------------------------------------------------
// Partitions

/** The array and axis of a partition, with NumPy's checks of kth. */
function partitioned(fn: string, a: Operand, kth: number | readonly number[], args: Args): [Tensor, number] {
  const o = kwargs<{ axis?: number | null; kind?: string; order?: unknown }>(fn, args, ['axis', 'kind', 'order']);
  let t = toTensor(a);
  if (o.axis === null) t = ravel(t);
  const ax = normalizeAxis(o.axis ?? -1, t.ndim);
  const n = t.shape[ax]!;
  // kth is checked against a length the run will know when it reaches it
  if (isUnknown(n)) {
    const a0 = t;
    t = new Tensor(G.defer(fn, [a0.node], ([u]) => { partitioned(fn, new Tensor(u!), kth, [{ axis: ax }]); return u!; }, a0.dtype, a0.shape));
  }
  for (const k of typeof kth === 'number' ? [kth] : kth) {
    if (typeof k !== 'number' || !Number.isInteger(k)) throw new TypeError('Partition index must be integer');
    if (k < -n || k >= n) throw new RangeError(`kth(=${k}) out of bounds (${n})`);
  }
  return [t, ax];
}
/** partition(a, kth, axis=-1): a valid partition for every kth (NumPy allows any order within the parts): the stable sort. */
export function partition(a: Operand, kth: number | readonly number[], ...args: Args): Tensor {
  const [t, ax] = partitioned('partition', a, kth, args);
  return sort(t, ax);
}
/** argpartition(a, kth, axis=-1): the positions of a valid partition: the stable argsort. */
export function argpartition(a: Operand, kth: number | readonly number[], ...args: Args): Tensor {
  const [t, ax] = partitioned('argpartition', a, kth, args);
  return argsort(t, ax);
}

// ---------------------------------------------------------------------------
// Convolution and correlation

const CORR_MODES = ['valid', 'same', 'full'] as const;
type CorrMode = (typeof CORR_MODES)[number];

/** NumPy's PyArray_CorrelatemodeConverter: a mode name or 0, 1, 2, with its messages. */
function corrMode(m: unknown): CorrMode {
  if (typeof m === 'string') {
    if ((CORR_MODES as readonly string[]).includes(m)) return m as CorrMode;
    if (/^[vsfVSF]/.test(m)) throw new RangeError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode");
    throw new RangeError(`mode must be one of 'valid', 'same', or 'full' (got '${m}')`);
  }
  if (typeof m === 'number' && Number.isInteger(m)) {
    if (m < 0 || m > 2) throw new RangeError('integer convolve/correlate mode must be 0, 1, or 2');
    return CORR_MODES[m]!;
  }
  throw new TypeError('convolve/correlate mode not understood');
}

/** Up to this many taps a correlation is a sum of shifted slices; beyond, windows gathered and reduced. */
const SHIFTED_TAPS = 32;

/**
 * NumPy's _pyarray_correlate for len(a) >= len(v) >= 1, in dtype `d`:
 * out[i] = sum_j ap[i + j] * v[j] over `a` padded with zeros (n_left = m - 1
 * for 'full', m // 2 for 'same', 0 for 'valid'; n_right the rest). A short
 * kernel (the common case: a long signal, a few taps) is a sum of m shifted
 * slices of the padded signal: views, so the whole sum fuses into one
 * elementwise kernel that streams each chunk once with no index arithmetic
 * or gather, in NumPy's order of terms. A long kernel would make that chain
 * (and the graph) grow with m, so it gathers the (n_out, m) windows by
 * index arithmetic (take of i + j) and reduces the product over m: one
 * fused reduction whose graph does not depend on m. Bools are NumPy's
 * OR of ANDs; integers wrap in `d` as NumPy's dot does.
 */
function correlateCore(a: Tensor, v: Tensor, mode: CorrMode, d: DType): Tensor {
  const n = a.shape[0]!, m = v.shape[0]!;
  const left = mode === 'full' ? m - 1 : mode === 'same' ? Math.floor(m / 2) : 0;
  const right = mode === 'full' ? m - 1 : mode === 'same' ? m - left - 1 : 0;
  const ad = astype(a, d), vd = astype(v, d);
  const ap = left || right ? concatenate([zeros([left], { dtype: d }), ad, zeros([right], { dtype: d })]) : ad;
  const nOut = n - m + 1 + left + right;
  const bool = d === 'bool';
  if (m <= SHIFTED_TAPS) {
    let r: Tensor | undefined;
    for (let j = 0; j < m; j++) {
      const term = (bool ? logical_and : multiply)(along(ap, 0, j, j + nOut), getitem(vd, j));
      r = r ? (bool ? logical_or : add)(r, term) : term;
    }
    return r!;
  }
  const at = new Tensor(G.binary('add', G.iota([nOut, m], 0), G.iota([nOut, m], 1), 'int64'));
  const windows = take(ap, at);
  const row = reshape(vd, [1, m]);
  return bool ? any(logical_and(windows, row), { axis: 1 }) : sum(multiply(windows, row), { axis: 1, dtype: d });
}

/** The 1-d operands of convolve/correlate: 0-d ones become length 1 (convolve's ndmin=1) or raise as NumPy's correlate. */
function corrOperand(fn: 'convolve' | 'correlate', x: Operand): Tensor {
  let t = toTensor(x);
  if (t.ndim === 0) {
    if (fn === 'correlate') throw new RangeError('object of too small depth for desired array');
    t = reshape(t, [1]);
  }
  if (t.ndim > 1) {
    throw new RangeError(fn === 'convolve' ? 'object too deep for desired array' : 'setting an array element with a sequence. The requested array would exceed the maximum number of dimension of 1.');
  }
  return t;
}

/**
 * convolve(a, v, mode='full'): NumPy's discrete linear convolution of two
 * 1-d sequences (correlate of the longer with the shorter reversed), in the
 * promoted dtype of both (bool stays bool).
 */
export function convolve(a: Operand, v: Operand, ...args: Args): Tensor {
  const mode = corrMode(kwargs<{ mode?: unknown }>('convolve', args, ['mode']).mode ?? 'full');
  let x = corrOperand('convolve', a), y = corrOperand('convolve', v);
  const later = whenKnown('convolve', [x, y], (p, q) => convolve(p, q, mode));
  if (later) return later;
  if (x.shape[0] === 0) throw new RangeError('a cannot be empty');
  if (y.shape[0] === 0) throw new RangeError('v cannot be empty');
  if (y.shape[0]! > x.shape[0]!) [x, y] = [y, x];
  return correlateCore(x, flip(y, 0), mode, promoteTypes(x.dtype, y.dtype));
}

/**
 * correlate(a, v, mode='valid'): NumPy's cross-correlation c[k] = sum_n
 * a[n + k] * v[n] of two 1-d sequences; when v is the longer, NumPy
 * correlates v with a and reverses the result (which sets where 'same'
 * mode's window lies), and so does this.
 */
export function correlate(a: Operand, v: Operand, ...args: Args): Tensor {
  const mode = corrMode(kwargs<{ mode?: unknown }>('correlate', args, ['mode']).mode ?? 'valid');
  const x = corrOperand('correlate', a), y = corrOperand('correlate', v);
  const later = whenKnown('correlate', [x, y], (p, q) => correlate(p, q, mode));
  if (later) return later;
  if (x.shape[0] === 0) throw new RangeError('first array argument cannot be empty');
  if (y.shape[0] === 0) throw new RangeError('second array argument cannot be empty');
  const d = promoteTypes(x.dtype, y.dtype);
  return x.shape[0]! < y.shape[0]! ? flip(correlateCore(y, x, mode, d), 0) : correlateCore(x, y, mode, d);
}

// ---------------------------------------------------------------------------
// Functions applied to slices and pieces

type SliceFn = (t: Tensor, ...args: unknown[]) => Operand;

/**
 * apply_along_axis(func1d, axis, arr, *args): func1d called on each 1-d
 * slice along `axis` (a lazy Tensor, with the extra `args`), its results
 * (tensors, JS numbers or JS data) stacked as NumPy's: a 0-d result drops
 * the axis, an n-d one takes its place; every result takes the first one's
 * dtype, as NumPy's buffer does. Each slice is its own subgraph, so the
 * graph grows with the number of slices: fine for the modest sizes this is
 * used at, not for millions of slices (use a vectorised expression there).
 */
export function apply_along_axis(func1d: SliceFn, axis: number, arr: Operand, ...args: unknown[]): Tensor {
  if (typeof func1d !== 'function') throw new TypeError('apply_along_axis(): func1d must be a function');
  const t = toTensor(arr);
  const ax = normalizeAxis(intArg('apply_along_axis', axis, 'axis'), t.ndim);
  // func1d is called once per slice: as many times as the run will know
  const later = whenKnown('apply_along_axis', [t], (u) => apply_along_axis(func1d, ax, u, ...args));
  if (later) return later;
  const lines = moveaxis(t, ax, -1);
  const outer = lines.shape.slice(0, -1);
  const count = outer.reduce((p, d) => p * d, 1);
  if (count === 0) throw new RangeError('Cannot apply_along_axis when any iteration dimensions are 0');
  const flat = reshape(lines, [count, t.shape[ax]!]);
  const results: Tensor[] = [];
  for (let i = 0; i < count; i++) {
    const r = toTensor(func1d(getitem(flat, i), ...args));
    const first = results[0];
    if (first && !sameShape(r.shape, first.shape)) throw new RangeError(`could not broadcast input array from shape ${shapeStr(r.shape)} into shape ${shapeStr(first.shape)}`);
    results.push(first ? astype(r, first.dtype) : r);
  }
  const rs = results[0]!.shape;
  const stacked = reshape(stack(results), [...outer, ...rs]);
  // the result's axes go where `axis` was
  const perm = [...range(ax), ...range(rs.length, outer.length), ...range(outer.length - ax, ax)];
  return rs.length === 0 ? stacked : transpose(stacked, perm);
}

/**
 * apply_over_axes(func, a, axes): func(a, axis) applied for each axis in
 * turn, NumPy's way: a result with one dimension fewer gets it back
 * (expand_dims at that axis); any other count of dimensions raises.
 */
export function apply_over_axes(func: (t: Tensor, axis: number) => Operand, a: Operand, axes: number | readonly number[]): Tensor {
  if (typeof func !== 'function') throw new TypeError('apply_over_axes(): func must be a function');
  let val = toTensor(a);
  const n = val.ndim;
  for (const axis0 of typeof axes === 'number' ? [axes] : axes) {
    const axis = axis0 < 0 ? n + axis0 : axis0;
    let r = toTensor(func(val, axis));
    if (r.ndim !== val.ndim) {
      if (r.ndim + 1 !== val.ndim || axis < 0 || axis > r.ndim) throw new RangeError('function is not returning an array of the correct shape');
      r = reshape(r, [...r.shape.slice(0, axis), 1, ...r.shape.slice(axis)]);
    }
    val = r;
  }
  return val;
}

/**
 * piecewise(x, condlist, funclist, *args): NumPy's piecewise function: for
 * each condition in order, x's elements where it holds become the
 * constant, or the function's value (cast to x's dtype; later conditions
 * win); one more function than conditions is the "otherwise" piece; the
 * rest are zero. One difference, for laziness: a function is called once
 * on the whole x (a Tensor) and its result read where the condition holds,
 * not on x[cond] (whose length would be known only at run time), so it
 * must be elementwise or return a value broadcastable to x, as the usual
 * `(v) => mt.multiply(v, 2)` or `() => 5` are.
 */
export function piecewise(x: Operand, condlist: unknown, funclist: readonly (SliceFn | number | boolean)[], ...args: unknown[]): Tensor {
  const t = toTensor(x);
  const later = whenKnown('piecewise', [t, condlist], (u, c) => piecewise(u, c, funclist, ...args));
  if (later) return later;
  // NumPy's reading: one condition unless condlist is a list (or array) of lists or arrays; an array of conditions is split along its first axis
  let list: unknown[];
  if (isTensor(condlist)) list = condlist.ndim === 0 || (condlist.ndim === 1 && t.ndim !== 0) ? [condlist] : range(condlist.shape[0]!).map((i) => getitem(condlist, i));
  else if (!Array.isArray(condlist) || (condlist.length > 0 && !Array.isArray(condlist[0]) && !isTensor(condlist[0]) && t.ndim !== 0)) list = [condlist];
  else list = condlist;
  let conds = list.map((c) => {
    const b = astype(toTensor(c as Operand), 'bool');
    // a condition over x's leading axes selects whole sub-arrays (NumPy's boolean index)
    const lead = b.ndim < t.ndim && b.shape.every((d, i) => d === t.shape[i]);
    return broadcast_to(lead ? reshape(b, [...b.shape, ...Array(t.ndim - b.ndim).fill(1)]) : b, t.shape);
  });
  const n = conds.length;
  if (n === funclist.length - 1) conds = [...conds, logical_not(conds.reduce((p, c) => logical_or(p, c), zeros(t.shape, { dtype: 'bool' })))];
  else if (n !== funclist.length) throw new RangeError(`with ${n} condition(s), either ${n} or ${n + 1} functions are expected`);
  let y = zeros_like(t);
  conds.forEach((c, i) => {
    const f = funclist[i]!;
    const v = typeof f === 'function' ? f(t, ...args) : f;
    y = where(c, astype(toTensor(v), t.dtype), y);
  });
  return y;
}
