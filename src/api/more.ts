// NumPy functions outside the core list of the tensor namespace, each built
// from the core operations: elementwise bit and float helpers (angle,
// bitwise_count, spacing), bit packing (packbits, unpackbits), trimming
// (trim_zeros), and the array constructors and comparisons around asarray
// (asanyarray, ascontiguousarray, asfortranarray, asarray_chkfinite,
// fromfunction, fromiter, array_equiv, mask_indices, require, isfortran). In: operands and NumPy's arguments (keywords in a trailing
// options object, see `kwargs`). Out: lazy Tensors; trim_zeros's lengths
// depend on the values, so they are boolean-mask selections the run sizes
// (graph/node.ts `compress`). An operand whose own lengths are known only at
// run time (a selection) is built over once the run knows them (`deferred`,
// where a result's length is a function of the operand's).

import { type DType, INFO, floatResultOf, isFloat } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import { broadcastShapes, hasUnknown, isUnknown, normalizeAxis, repr } from '../graph/shape.js';
import type { JsData } from './convert.js';
import { indices } from './extra.js';
import { compress, nonzero } from './indexing.js';
import { kwargs, trailingOpts } from './bind.js';
import {
  type Operand, Tensor, abs, add, all, any, arctan2, astype, bitwise_and, broadcast_to, concatenate, copysign, cumsum, deferred, equal, flip,
  greater, isTensor, isfinite, logical_and, multiply, nextafter, not_equal, ones, ravel, reshape, right_shift, subtract, sum, tensor, toTensor,
  whenKnown, where, zeros,
} from './core.js';

type Args = unknown[];

/** t[..., start:stop, ...] along `ax` (0 <= start <= stop <= length). */
function sliceAlong(t: Tensor, ax: number, start: number, stop: number): Tensor {
  return new Tensor(G.slice(t.node, t.shape.map((_, i) => (i === ax ? start : 0)), t.shape.map(() => 1), t.shape.map((d, i) => (i === ax ? stop - start : d))));
}

/** The 1-d `values` shaped to broadcast along axis `ax` of an `ndim`-d array. */
function alongAxis(values: readonly number[], dtype: DType, ax: number, ndim: number): Tensor {
  return reshape(tensor(values, { dtype }), [values.length, ...Array<number>(ndim - ax - 1).fill(1)]);
}

/** An axis given as a Python int, as NumPy's C functions take it (a float is refused, not truncated). */
function axisArg(axis: unknown, ndim: number): number {
  if (typeof axis !== 'number' || !Number.isInteger(axis)) throw new TypeError(`'${typeof axis === 'number' ? 'float' : typeof axis}' object cannot be interpreted as an integer`);
  return normalizeAxis(axis, ndim);
}

// ---------------------------------------------------------------------------
// Elementwise

/**
 * angle(z, deg=False): arctan2(0, z), NumPy's formula for real input: 0 for
 * z >= +0, pi for z < 0 and for -0.0, NaN for NaN; the float of z's dtype
 * (float16 for int8, float64 for bool and JS numbers), times 180/pi in that
 * float with deg.
 */
export function angle(z: Operand, ...args: Args): Tensor {
  const o = kwargs<{ deg?: boolean }>('angle', args, ['deg']);
  const a = arctan2(0, toTensor(z));
  return o.deg ? multiply(a, 180 / Math.PI) : a;
}

/** The SWAR masks of popcount (bytes 0x55, 0x33, 0x0f repeated) at a dtype's width: bigint for int64, which a JS number cannot hold. */
function popMasks(bytes: number): (number | bigint)[] {
  return [0x55, 0x33, 0x0f].map((b) => {
    const m = BigInt(`0x${b.toString(16).padStart(2, '0').repeat(bytes)}`);
    return bytes === 8 ? m : Number(m);
  });
}

/**
 * bitwise_count(x): the number of 1 bits in |x| (NumPy 2's ufunc), uint8,
 * for bool and integer dtypes. A branch-free popcount in x's own dtype:
 * every shifted term is masked, so the arithmetic shifts of a signed dtype
 * and the wrap of |min| (-128 for int8, one bit set) give the unsigned count.
 */
export function bitwise_count(x: Operand, ...rest: unknown[]): Tensor {
  kwargs('bitwise_count', rest, ['out']);
  const t = toTensor(x);
  if (isFloat(t.dtype)) throw new TypeError("ufunc 'bitwise_count' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
  if (t.dtype === 'bool') return astype(t, 'uint8');
  const bytes = INFO[t.dtype].bytes;
  const [m1, m2, m4] = popMasks(bytes) as [number, number, number];
  let v = INFO[t.dtype].kind === 'i' ? abs(t) : t;
  v = subtract(v, bitwise_and(right_shift(v, 1), m1));
  v = add(bitwise_and(v, m2), bitwise_and(right_shift(v, 2), m2));
  // each byte now holds its own count (at most 8), so the shifts below add non-negative bytes
  v = bitwise_and(add(v, right_shift(v, 4)), m4);
  for (let s = 8; s < bytes * 8; s *= 2) v = add(v, right_shift(v, s));
  return astype(bitwise_and(v, 0x7f), 'uint8');
}

/** The smallest positive subnormal of each float dtype: spacing(±0). */
const TINY: Partial<Record<DType, number>> = { float64: 5e-324, float32: 2 ** -149 };

/**
 * spacing(x): the distance from x to the next float of its dtype away from
 * zero, negative for negative x, as npy_spacing; spacing(±0) is the smallest
 * subnormal (positive for -0.0 too), NaN for NaN and infinities, inf past the
 * largest float. Integers take the float of NumPy's loop (float16 for 8-bit,
 * float32 for 16-bit, float64 for wider). float16 follows npy_half_spacing,
 * which always steps towards +inf: a positive result for negative x, which
 * for a negative power of two is the gap below |x|.
 */
export function spacing(x: Operand, ...rest: unknown[]): Tensor {
  kwargs('spacing', rest, ['out']);
  const t0 = toTensor(x);
  const t = astype(t0, floatResultOf(t0.dtype));
  const tiny = TINY[t.dtype];
  const r = tiny === undefined
    ? subtract(nextafter(t, Infinity), t)
    : where(equal(t, 0), tiny, subtract(nextafter(t, copysign(Infinity, t)), t));
  return where(isfinite(t), r, NaN);
}

// ---------------------------------------------------------------------------
// Bit packing

/** packbits takes a bitorder that starts with 'big' or 'little' (NumPy's C check). */
function packOrder(v: unknown): 'big' | 'little' {
  if (typeof v !== 'string') throw new TypeError(`packbits() argument 'bitorder' must be str, not ${v === null ? 'None' : typeof v}`);
  if (v.startsWith('big')) return 'big';
  if (v.startsWith('little')) return 'little';
  throw new RangeError("'order' must be either 'little' or 'big'");
}

/** unpackbits only looks at the first letter. */
function unpackOrder(v: unknown): 'big' | 'little' {
  if (typeof v !== 'string') throw new TypeError(`unpackbits() argument 'bitorder' must be str, not ${v === null ? 'None' : typeof v}`);
  if (v[0] === 'b') return 'big';
  if (v[0] === 'l') return 'little';
  throw new RangeError("'order' must begin with 'l' or 'b'");
}

/** The array and axis NumPy's bit packers work on: flattened for axis=None, a 0-d array as 1-d. */
function bitsAxis(t: Tensor, axis: unknown): [Tensor, number] {
  if (axis === undefined || axis === null) return [t.ndim === 1 ? t : ravel(t), 0];
  const u = t.ndim === 0 ? reshape(t, [1]) : t;
  return [u, axisArg(axis, u.ndim)];
}

/**
 * packbits(a, axis=None, bitorder='big'): each run of 8 elements along axis
 * (nonzero is 1) packed into one uint8, the last byte padded with zero bits;
 * axis=None packs the flattened array. Integer and bool arrays only.
 */
export function packbits(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; bitorder?: string }>('packbits', args, ['axis', 'bitorder']);
  const t = toTensor(a);
  if (isFloat(t.dtype)) throw new TypeError('Expected an input array of integer or boolean data type');
  const order = packOrder(o.bitorder === undefined ? 'big' : o.bitorder);
  const [u, ax] = bitsAxis(t, o.axis);
  const packed = (n: number): number => Math.ceil(n / 8);
  return deferred('packbits', [u], ([v]) => {
    let bits = astype(not_equal(v, 0), 'uint8');
    const n = bits.shape[ax]!, bytes = packed(n);
    if (n % 8) bits = concatenate([bits, zeros(bits.shape.map((d, i) => (i === ax ? bytes * 8 - n : d)), { dtype: 'uint8' })], { axis: ax });
    const grouped = reshape(bits, [...bits.shape.slice(0, ax), bytes, 8, ...bits.shape.slice(ax + 1)]);
    const weights = [128, 64, 32, 16, 8, 4, 2, 1];
    const w = alongAxis(order === 'big' ? weights : weights.reverse(), 'uint8', ax + 1, grouped.ndim);
    // distinct powers of two: their sum is their bitwise or, and fits a byte
    return sum(multiply(grouped, w), { axis: ax + 1, dtype: 'uint8' });
  });
}

/**
 * unpackbits(a, axis=None, count=None, bitorder='big'): each uint8 along
 * axis spread into its 8 bits (uint8 0 or 1); count keeps that many bits
 * (zeros past the end), a negative count drops -count from the end.
 */
export function unpackbits(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; count?: number | null; bitorder?: string }>('unpackbits', args, ['axis', 'count', 'bitorder']);
  const t = toTensor(a);
  if (t.dtype !== 'uint8') throw new TypeError('Expected an input array of unsigned byte data type');
  const order = unpackOrder(o.bitorder === undefined ? 'big' : o.bitorder);
  const count = o.count ?? null;
  if (count !== null && (typeof count !== 'number' || !Number.isInteger(count))) throw new TypeError('an integer is required');
  const [u, ax] = bitsAxis(t, o.axis);
  const kept = (bytes: number): number => {
    const n = bytes * 8, want = count === null ? n : count >= 0 ? count : n + count;
    if (want < 0) throw new RangeError('-count larger than number of elements');
    return want;
  };
  return deferred('unpackbits', [u], ([v]) => {
    const n = v.shape[ax]! * 8, want = kept(v.shape[ax]!);
    const spread = reshape(v, [...v.shape.slice(0, ax + 1), 1, ...v.shape.slice(ax + 1)]);
    const shifts = [7, 6, 5, 4, 3, 2, 1, 0];
    const s = alongAxis(order === 'big' ? shifts : shifts.reverse(), 'uint8', ax + 1, spread.ndim);
    const bits = reshape(bitwise_and(right_shift(spread, s), 1), v.shape.map((d, i) => (i === ax ? n : d)));
    if (want <= n) return sliceAlong(bits, ax, 0, want);
    return concatenate([bits, zeros(bits.shape.map((d, i) => (i === ax ? want - n : d)), { dtype: 'uint8' })], { axis: ax });
  });
}

// ---------------------------------------------------------------------------
// Trimming

/** NumPy's normalize_axis_tuple: an int or a list of them, each in range, none repeated. */
function axisTuple(axis: unknown, ndim: number): number[] {
  if (typeof axis === 'number' && !Number.isInteger(axis)) throw new TypeError("'float' object is not iterable");
  const list = (Array.isArray(axis) ? axis : [axis]).map((a) => axisArg(a, ndim));
  if (new Set(list).size !== list.length) throw new RangeError('repeated axis in `axis` argument');
  return list;
}

/**
 * trim_zeros(filt, trim='fb', axis=None): NumPy 2.2's bounding box of the
 * nonzero values (NaN counts as nonzero, -0.0 as zero), cut on the sides
 * trim names along each axis of `axis` (all axes for None; the other axes
 * stay whole). An all-zero array gives length 0 along those axes whatever
 * trim says. A 0-d array, or axis=[], comes back unchanged. The kept
 * lengths are known once the run has computed the values.
 */
export function trim_zeros(filt: Operand, ...args: Args): Tensor {
  const o = kwargs<{ trim?: string; axis?: number | readonly number[] | null }>('trim_zeros', args, ['trim', 'axis']);
  const t = toTensor(filt);
  if (typeof o.trim !== 'string' && o.trim !== undefined) throw new TypeError(`trim_zeros(): trim must be a str, not ${o.trim === null ? 'None' : typeof o.trim}`);
  const trim = (o.trim ?? 'fb').toLowerCase();
  if (!['fb', 'bf', 'f', 'b'].includes(trim)) throw new RangeError(`unexpected character(s) in \`trim\`: '${trim}'`);
  const axes = o.axis === undefined || o.axis === null ? t.shape.map((_, i) => i) : axisTuple(o.axis, t.ndim);
  if (!axes.length) return t;
  return deferred('trim_zeros', [t], ([v]) => {
    const nz = not_equal(v!, 0);
    let r = v!;
    for (const ax of axes) {
      const others = v!.shape.map((_, i) => i).filter((i) => i !== ax);
      const hit = others.length ? any(nz, { axis: others }) : nz;
      // a position is kept when a nonzero slice lies at or before it (front) and at or after it (back)
      const front = greater(cumsum(hit), 0);
      const back = flip(greater(cumsum(flip(hit)), 0));
      const keep = trim === 'f' ? front : trim === 'b' ? back : logical_and(front, back);
      r = compress(keep, r, { axis: ax });
    }
    return r;
  });
}

// ---------------------------------------------------------------------------
// Constructors and comparisons around asarray

type AsOpts = { dtype?: DType | string | null; order?: string | null; like?: unknown };

/** asanyarray(a, dtype=None, order=None): asarray (Tessera has no ndarray subclasses to pass through). */
export function asanyarray(a: JsData | Tensor, ...args: Args): Tensor {
  const o = kwargs<AsOpts>('asanyarray', args, ['dtype', 'order'], ['like']);
  return tensor(a, { dtype: o.dtype ?? undefined, order: o.order });
}

/** ascontiguousarray(a, dtype=None) and asfortranarray: asarray with at least one dimension (a 0-d array becomes shape (1,)), as NumPy's. */
function atLeast1d(fn: string, a: JsData | Tensor, args: Args): Tensor {
  const o = kwargs<AsOpts>(fn, args, ['dtype'], ['like']);
  const t = tensor(a, { dtype: o.dtype ?? undefined });
  return t.ndim === 0 ? reshape(t, [1]) : t;
}
export const ascontiguousarray = (a: JsData | Tensor, ...args: Args): Tensor => atLeast1d('ascontiguousarray', a, args);
export const asfortranarray = (a: JsData | Tensor, ...args: Args): Tensor => atLeast1d('asfortranarray', a, args);

/**
 * asarray_chkfinite(a, dtype=None, order=None): asarray that refuses NaN
 * and inf (NumPy's ValueError, a RangeError here). A float array's values
 * are checked when the run computes them.
 */
export function asarray_chkfinite(a: JsData | Tensor, ...args: Args): Tensor {
  const o = kwargs<AsOpts>('asarray_chkfinite', args, ['dtype', 'order']);
  const t = tensor(a, { dtype: o.dtype ?? undefined, order: o.order });
  if (!isFloat(t.dtype)) return t;
  const ok = new Tensor(G.check(all(isfinite(t)).node, 'nonzero', 'RangeError', 'array must not contain infs or NaNs'));
  return where(ok, t, t);
}

/**
 * array_equiv(a1, a2): whether the arrays are equal where broadcast to one
 * shape, as a 0-d bool tensor; false when their shapes do not broadcast.
 */
export function array_equiv(a1: Operand, a2: Operand): Tensor {
  const x = toTensor(a1), y = toTensor(a2);
  const later = whenKnown('array_equiv', [x, y], (u, v) => array_equiv(u, v));
  if (later) return later;
  try { broadcastShapes(x.shape, y.shape); } catch { return tensor(false); }
  return all(equal(x, y));
}

/**
 * fromfunction(function, shape, { dtype = float64, ...kwargs }): calls
 * function with one index grid per axis (arrays of `shape` holding each
 * element's index along that axis, in dtype), and any other keywords as a
 * trailing options object; returns what it returns.
 */
export function fromfunction<R>(fn: (...grids: Tensor[]) => R, shape: number | readonly number[], ...args: Args): R {
  if (typeof fn !== 'function') throw new TypeError(`fromfunction(): function must be callable, got ${repr(fn)}`);
  const [pos, kw] = trailingOpts<Record<string, unknown>>(args);
  if (pos.length) throw new TypeError(`fromfunction() takes 2 positional arguments but ${2 + pos.length} were given`);
  const { dtype, like: _like, ...rest } = kw;
  const dims = typeof shape === 'number' ? [shape] : shape;
  const grids = (indices(dims, { dtype: dtype ?? 'float64', sparse: true }) as Tensor[]).map((g) => broadcast_to(g, dims));
  return Object.keys(rest).length ? fn(...grids, rest as unknown as Tensor) : fn(...grids);
}

/**
 * fromiter(iter, dtype, count=-1): a 1-d array of an iterable's values
 * (the first `count` of them, or all for -1).
 */
export function fromiter(iter: Iterable<unknown>, ...args: Args): Tensor {
  const o = kwargs<{ dtype?: DType | string | null; count?: number; like?: unknown }>('fromiter', args, ['dtype', 'count'], ['like']);
  if (o.dtype === undefined || o.dtype === null) throw new TypeError("fromiter() missing required argument 'dtype' (pos 2)");
  const count = o.count ?? -1;
  if (!Number.isInteger(count)) throw new TypeError(`fromiter(): count must be an integer, got ${repr(count)}`);
  if (iter === null || iter === undefined || typeof (iter as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
    throw new TypeError(`'${iter === null ? 'NoneType' : typeof iter}' object is not iterable`);
  }
  const values: unknown[] = [];
  if (count !== 0) {
    for (const v of iter) {
      values.push(v);
      if (values.length === count) break;
    }
  }
  if (count >= 0 && values.length < count) throw new RangeError(`iterator too short: Expected ${count} but iterator had only ${values.length} items.`);
  return tensor(values as JsData, { dtype: o.dtype });
}

/**
 * mask_indices(n, mask_func, k=0): the (rows, cols) where mask_func(ones((n, n)), k)
 * is nonzero (mask_indices(n, mt.triu) gives the upper triangle's indices).
 */
export function mask_indices(n: number, maskFunc: (m: Tensor, k: number) => Operand, ...args: Args): Tensor[] {
  const o = kwargs<{ k?: number }>('mask_indices', args, ['k']);
  if (typeof maskFunc !== 'function') throw new TypeError(`mask_indices(): mask_func must be callable, got ${repr(maskFunc)}`);
  const m = ones([n, n], { dtype: 'int64' });
  const a = maskFunc(m, o.k ?? 0);
  return nonzero(not_equal(isTensor(a) ? a : toTensor(a), 0));
}

const REQUIREMENTS: Record<string, string> = {
  C: 'C', C_CONTIGUOUS: 'C', CONTIGUOUS: 'C', F: 'F', F_CONTIGUOUS: 'F', FORTRAN: 'F', A: 'A', ALIGNED: 'A',
  W: 'W', WRITEABLE: 'W', O: 'O', OWNDATA: 'O', E: 'E', ENSUREARRAY: 'E',
};

/**
 * require(a, dtype=None, requirements=None): asarray in `dtype`. Of NumPy's
 * requirements, C, A, O and E hold for every tensor; F (Fortran order) and
 * W (writeable) cannot, and raise.
 */
export function require(a: JsData | Tensor, ...args: Args): Tensor {
  const o = kwargs<{ dtype?: DType | string | null; requirements?: string | readonly string[] | null }>('require', args, ['dtype', 'requirements'], ['like']);
  const reqs = o.requirements ?? [];
  for (const r of typeof reqs === 'string' ? [reqs] : reqs) {
    const flag = typeof r === 'string' ? REQUIREMENTS[r.toUpperCase()] : undefined;
    if (!flag) throw new RangeError(`require(): unknown requirement ${JSON.stringify(r)} (one of ${Object.keys(REQUIREMENTS).join(', ')})`);
    if (flag === 'F') throw new RangeError("require(): Tessera's tensors are C-ordered and cannot be made Fortran-contiguous ('F')");
    if (flag === 'W') throw new TypeError("require(): Tessera's tensors are immutable, so never writeable ('W'); x.set(index, value) returns a new tensor");
  }
  return tensor(a, { dtype: o.dtype ?? undefined });
}

/** isfortran(a): whether a is Fortran-ordered and not C-ordered: never, for a C-ordered tensor. */
export function isfortran(a: Operand): boolean {
  toTensor(a);
  return false;
}
