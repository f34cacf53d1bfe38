// NumPy 2's Array API names (numpy 2.0 added them beside the classic ones):
// concat, permute_dims, matrix_transpose, vecdot, cumulative_sum/prod (with
// include_initial), unstack, isdtype, and the linalg namespace's
// matrix_norm, vector_norm, outer, cross, trace, diagonal, matmul, vecdot,
// matrix_transpose, tensordot; NumPy 2.2's matvec and vecmat; also fix,
// dsplit, row_stack, and real/imag/conj/real_if_close of real arrays. Each is the classic function with NumPy 2's signature and checks.
// (The one-for-one ufunc names, pow, acos, ..., sit beside their originals in
// ./core.ts.)

import { type DType, INFO, parseDType } from '../graph/dtype.js';
import { isUnknown, normalizeAxes, normalizeAxis } from '../graph/shape.js';
import { cross as crossOf } from './extra.js';
import { diagonal as diagonalOf, split } from './manipulate.js';
import { kwargs } from './bind.js';
import {
  type Operand, Tensor, concatenate, cumprod, cumsum, full, isTensor, matmul, moveaxis, multiply, outer as outerOf, reshape, sum, swapaxes,
  tensordot, toTensor, trace as traceOf, transpose, trunc, vstack, whenKnown, zeros_like,
} from './core.js';
import { linalg } from './linalg.js';

type Args = unknown[];

/** concat(arrays, axis=0): concatenate's Array API name. */
export const concat = (xs: readonly Operand[], ...args: Args): Tensor => concatenate(xs, kwargs<{ axis?: number | null }>('concat', args, ['axis']));

/** permute_dims(a, axes): transpose with the axes required. */
export function permute_dims(a: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axes?: readonly number[] }>('permute_dims', args, ['axes']);
  if (o.axes === undefined) throw new TypeError("permute_dims() missing required argument 'axes' (pos 2)");
  return transpose(a, o.axes);
}

/** matrix_transpose(x): the last two axes swapped. */
export function matrix_transpose(x: Operand): Tensor {
  const t = toTensor(x);
  if (t.ndim < 2) throw new RangeError(`Input array must be at least 2-dimensional, but it is ${t.ndim}`);
  return swapaxes(t, -1, -2);
}

/** vecdot(x1, x2, axis=-1): the dot product of vectors along an axis, broadcasting the rest. */
export function vecdot(x1: Operand, x2: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number }>('vecdot', args, [], ['axis', 'out', 'dtype', 'casting', 'order', 'subok', 'signature', 'axes', 'keepdims']);
  const a = toTensor(x1), b = toTensor(x2);
  if (a.ndim === 0 || b.ndim === 0) throw new RangeError('vecdot: Input operand 0 does not have enough dimensions');
  const axis = o.axis ?? -1;
  const na = a.shape[normalizeAxis(axis, a.ndim)], nb = b.shape[normalizeAxis(axis, b.ndim)];
  // core lengths the run will know are compared once it does
  const later = whenKnown('vecdot', [a, b], (u, v) => vecdot(u, v, o));
  if (later) return later;
  if (na !== nb) throw new RangeError(`vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() (size ${nb} is different from ${na})`);
  // a gufunc: the products' dtype throughout (int32 stays int32, where sum would widen it)
  const p = multiply(moveaxis(a, axis, -1), moveaxis(b, axis, -1));
  return sum(p, { axis: -1, dtype: p.dtype });
}

/**
 * cumulative_sum/cumulative_prod(x, axis=None, dtype=None, out=None,
 * include_initial=False): cumsum/cumprod, with the axis required past one
 * dimension and, with include_initial, the identity first.
 */
function cumulative(fn: 'cumulative_sum' | 'cumulative_prod', x: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; dtype?: DType | string; include_initial?: boolean }>(fn, args, [], ['axis', 'dtype', 'out', 'include_initial']);
  const t = toTensor(x);
  if ((o.axis === undefined || o.axis === null) && t.ndim > 1) throw new RangeError('For arrays which have more than one dimension ``axis`` argument is required.');
  const axis = t.ndim === 0 ? 0 : normalizeAxis(o.axis ?? 0, t.ndim);
  const base = t.ndim === 0 ? reshape(t, [1]) : t;
  const r = (fn === 'cumulative_sum' ? cumsum : cumprod)(base, { axis, ...(o.dtype !== undefined ? { dtype: o.dtype } : {}) });
  if (!o.include_initial) return r;
  // the initial slice spans the other axes: built once the run knows their lengths
  const later = whenKnown(fn, [r], (u) => concatenate([full(u.shape.map((d, i) => (i === axis ? 1 : d)), fn === 'cumulative_sum' ? 0 : 1, { dtype: u.dtype }), u], { axis }));
  if (later) return later;
  const identity = full(r.shape.map((d, i) => (i === axis ? 1 : d)), fn === 'cumulative_sum' ? 0 : 1, { dtype: r.dtype });
  return concatenate([identity, r], { axis });
}
export const cumulative_sum = (x: Operand, ...args: Args): Tensor => cumulative('cumulative_sum', x, args);
export const cumulative_prod = (x: Operand, ...args: Args): Tensor => cumulative('cumulative_prod', x, args);

/** unstack(x, axis=0): the arrays along an axis, as a list. */
export function unstack(x: Operand, ...args: Args): Tensor[] {
  const o = kwargs<{ axis?: number }>('unstack', args, [], ['axis']);
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('Input array must be at least 1-d.');
  const axis = normalizeAxis(o.axis ?? 0, t.ndim);
  if (isUnknown(t.shape[axis]!)) throw new TypeError(`unstack(): the number of arrays is the length of axis ${axis}, known only at run time (after a boolean mask): execute() the array first`);
  const moved = moveaxis(t, axis, 0);
  return Array.from({ length: moved.shape[0]! }, (_, i) => moved.get(i));
}

/** fix(x): round toward zero (NumPy's fix, trunc's values and dtype). */
export const fix = (x: Operand): Tensor => trunc(x);

/** dsplit(ary, indices_or_sections): split along the third axis. */
export function dsplit(x: Operand, ...args: Args): Tensor[] {
  const t = toTensor(x);
  if (t.ndim < 3) throw new RangeError('dsplit only works on arrays of 3 or more dimensions');
  const o = kwargs<{ indices_or_sections?: number | readonly number[] }>('dsplit', args, ['indices_or_sections']);
  return split(t, o.indices_or_sections, { axis: 2 });
}

/** real(x), imag(x), conj(x)/conjugate(x), real_if_close(x, tol=100) of real arrays (Tessera has no complex dtypes). */
export const real = (x: Operand): Tensor => toTensor(x);
export const imag = (x: Operand): Tensor => zeros_like(toTensor(x));
export const conj = (x: Operand): Tensor => toTensor(x);
export const conjugate = conj;
export function real_if_close(x: Operand, ...args: Args): Tensor {
  kwargs<{ tol?: number }>('real_if_close', args, ['tol']);
  return toTensor(x);
}

/** row_stack(tup): vstack's old name (deprecated in NumPy 2.0, still there). */
export const row_stack = (tup: readonly Operand[], ...args: Args): Tensor => vstack(tup, ...args);

const GUFUNC_KW = ['out', 'dtype', 'casting', 'order', 'subok', 'signature', 'axes', 'axis'];

/** A gufunc operand's core dimensions, or NumPy's error for too few. */
function coreOperand(fn: string, sig: string, x: Operand, i: number, core: number): Tensor {
  const t = toTensor(x);
  if (t.ndim < core) throw new RangeError(`${fn}: Input operand ${i} does not have enough dimensions (has ${t.ndim}, gufunc core with signature ${sig} requires ${core})`);
  return t;
}

/**
 * matvec(x1, x2): the matrix-vector products of NumPy 2.2's gufunc
 * (m,n),(n)->(m), the stacks broadcast as matmul broadcasts them.
 */
export function matvec(x1: Operand, x2: Operand, ...args: Args): Tensor {
  kwargs('matvec', args, [], GUFUNC_KW.filter((k) => k === 'out'));
  const sig = '(m,n),(n)->(m)';
  const a = coreOperand('matvec', sig, x1, 0, 2), b = coreOperand('matvec', sig, x2, 1, 1);
  const later = whenKnown('matvec', [a, b], (u, v) => matvec(u, v));
  if (later) return later;
  const n = a.shape[a.ndim - 1]!, nb = b.shape[b.ndim - 1]!;
  if (n !== nb) throw new RangeError(`matvec: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature ${sig} (size ${nb} is different from ${n})`);
  const p = matmul(a, reshape(b, [...b.shape, 1]));
  return reshape(p, p.shape.slice(0, -1));
}

/**
 * vecmat(x1, x2): the vector-matrix products of NumPy 2.2's gufunc
 * (n),(n,m)->(m), conj(x1) @ x2 (x1 is real here), stacks broadcast.
 */
export function vecmat(x1: Operand, x2: Operand, ...args: Args): Tensor {
  kwargs('vecmat', args, [], GUFUNC_KW.filter((k) => k === 'out'));
  const sig = '(n),(n,m)->(m)';
  const a = coreOperand('vecmat', sig, x1, 0, 1), b = coreOperand('vecmat', sig, x2, 1, 2);
  const later = whenKnown('vecmat', [a, b], (u, v) => vecmat(u, v));
  if (later) return later;
  const n = a.shape[a.ndim - 1]!, nb = b.shape[b.ndim - 2]!;
  if (n !== nb) throw new RangeError(`vecmat: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature ${sig} (size ${nb} is different from ${n})`);
  const p = matmul(reshape(a, [...a.shape.slice(0, -1), 1, n]), b);
  return reshape(p, [...p.shape.slice(0, -2), p.shape[p.ndim - 1]!]);
}

const KINDS: Record<string, (d: DType) => boolean> = {
  bool: (d) => d === 'bool',
  'signed integer': (d) => INFO[d].kind === 'i',
  'unsigned integer': (d) => INFO[d].kind === 'u',
  integral: (d) => INFO[d].kind === 'i' || INFO[d].kind === 'u',
  'real floating': (d) => INFO[d].kind === 'f',
  'complex floating': () => false,
  numeric: (d) => d !== 'bool',
};

/** isdtype(dtype, kind): whether a dtype is of a kind (a kind name, a dtype, or a list of them). */
export function isdtype(dtype: DType | string | Tensor, kind: string | readonly string[]): boolean {
  const d = isTensor(dtype) ? dtype.dtype : parseDType(dtype);
  const one = (k: string): boolean => {
    if (k in KINDS) return KINDS[k]!(d);
    try { return parseDType(k) === d; } catch { throw new TypeError(`kind argument is a string, but ${JSON.stringify(k)} is not a known kind name.`); }
  };
  return typeof kind === 'string' ? one(kind) : kind.some(one);
}

/** The Array API functions of numpy.linalg (added to mt.linalg). */
export const linalgArrayApi = {
  /** matrix_norm(x, keepdims=False, ord='fro'): norms over the last two axes. */
  matrix_norm(x: Operand, ...args: Args): Tensor {
    const o = kwargs<{ keepdims?: boolean; ord?: number | string }>('linalg.matrix_norm', args, [], ['keepdims', 'ord']);
    const t = toTensor(x);
    if (t.ndim < 2) throw new RangeError(`Input array must be at least 2-dimensional, but it is ${t.ndim}`);
    return linalg.norm(t, o.ord ?? 'fro', [-2, -1], o.keepdims ?? false);
  },
  /** vector_norm(x, axis=None, keepdims=False, ord=2): the norm of the flattened values, or over the axes given. */
  vector_norm(x: Operand, ...args: Args): Tensor {
    const o = kwargs<{ axis?: number | readonly number[] | null; keepdims?: boolean; ord?: number }>('linalg.vector_norm', args, [], ['axis', 'keepdims', 'ord']);
    const t = toTensor(x);
    const ord = o.ord ?? 2;
    const axes = normalizeAxes(o.axis ?? null, t.ndim);
    // the axes moved last and merged into one, whose vector norm NumPy's norm takes
    const rest = t.shape.map((_, i) => i).filter((i) => !axes.includes(i));
    const merged = reshape(transpose(t, [...rest, ...axes]), [...rest.map((i) => t.shape[i]!), -1]);
    const r = linalg.norm(merged, ord, -1);
    return o.keepdims ? reshape(r, t.shape.map((d, i) => (axes.includes(i) ? 1 : d))) : r;
  },
  /** outer(x1, x2): of two 1-d arrays. */
  outer(x1: Operand, x2: Operand): Tensor {
    const a = toTensor(x1), b = toTensor(x2);
    if (a.ndim !== 1 || b.ndim !== 1) throw new RangeError(`Input arrays must be one-dimensional, but they are ${a.ndim}d and ${b.ndim}d.`);
    return outerOf(a, b);
  },
  /** cross(x1, x2, axis=-1): of 3-element vectors. */
  cross(x1: Operand, x2: Operand, ...args: Args): Tensor {
    const o = kwargs<{ axis?: number }>('linalg.cross', args, [], ['axis']);
    const a = toTensor(x1), b = toTensor(x2), axis = o.axis ?? -1;
    const [na, nb] = [a.shape[normalizeAxis(axis, a.ndim)], b.shape[normalizeAxis(axis, b.ndim)]];
    if (na !== 3 || nb !== 3) throw new RangeError(`Both input arrays must be (arrays of) 3-dimensional vectors, but they are ${na} and ${nb} dimensional instead.`);
    return crossOf(a, b, { axis });
  },
  /** trace(x, offset=0, dtype=None): over the last two axes. */
  trace(x: Operand, ...args: Args): Tensor {
    const o = kwargs<{ offset?: number; dtype?: DType | string }>('linalg.trace', args, [], ['offset', 'dtype']);
    return traceOf(x, { offset: o.offset ?? 0, axis1: -2, axis2: -1, ...(o.dtype !== undefined ? { dtype: o.dtype } : {}) });
  },
  /** diagonal(x, offset=0): over the last two axes. */
  diagonal(x: Operand, ...args: Args): Tensor {
    const o = kwargs<{ offset?: number }>('linalg.diagonal', args, [], ['offset']);
    return diagonalOf(x, { offset: o.offset ?? 0, axis1: -2, axis2: -1 });
  },
  matmul: (x1: Operand, x2: Operand): Tensor => matmul(x1, x2),
  vecdot,
  matrix_transpose,
  tensordot: (x1: Operand, x2: Operand, ...args: Args): Tensor => tensordot(x1, x2, ...args),
};
