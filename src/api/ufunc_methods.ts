// NumPy's ufunc methods on Tessera's binary ufuncs: `mt.add.reduce(x, { axis })`,
// `mt.maximum.accumulate(x)`, `mt.multiply.outer(a, b)`, `mt.add.reduceat(x, idx)`,
// with NumPy's attributes (`nin`, `nout`, `nargs`, `identity`).
//
// reduce goes to the reduction kernels where one exists (sum, prod, max, min,
// all, any; fmax and fmin as nanmax and nanmin); any other op folds its terms
// in order by a scan task (runtime/exec.ts) and keeps the last value, as
// NumPy's reduce loop does. accumulate is that scan. The result dtypes are
// NumPy's: add and multiply widen small integers as sum does, logical ops give
// bool, every other op its own loop's dtype; a comparison has no loop for a
// non-bool accumulate, as in NumPy.

import { type DType, floatResultOf, isFloat, sumResultOf } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import { type BinaryOp, type ScanOp, resolveBinary } from '../graph/ops.js';
import { hasUnknown, normalizeAxes, normalizeAxis, sizeOf } from '../graph/shape.js';
import { dtypeArg } from './convert.js';
import { kwargs } from './bind.js';
import {
  type Operand, Tensor, all, any, astype, broadcast_to, concatenate, cumprod, cumsum, full, isTensor, logical_not, max, min, moveaxis, nanmax,
  nanmin, onValues, prod, reshape, sum, take, tensor, toTensor, whenKnown,
} from './core.js';
import { runtime } from '../runtime/runtime.js';
import { take_along_axis } from './search.js';
import { argsort } from './statistics.js';
import { AT_OPS } from './at.js';

type Args = unknown[];
type Call = (x: Operand, y: Operand, ...rest: unknown[]) => Tensor;

/** NumPy's methods and attributes of a two-input ufunc. */
export interface UFuncMethods {
  /** ufunc.reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial, where=True). */
  reduce(x: Operand, ...args: Args): Tensor;
  /** ufunc.accumulate(array, axis=0, dtype=None, out=None). */
  accumulate(x: Operand, ...args: Args): Tensor;
  /** ufunc.reduceat(array, indices, axis=0, dtype=None, out=None); indices may be computed in the same run. */
  reduceat(x: Operand, indices: Operand, ...args: Args): Tensor;
  /** ufunc.outer(A, B, **kwargs): the op over every pair, shape A.shape + B.shape. */
  outer(a: Operand, b: Operand, ...args: Args): Tensor;
  /** ufunc.at(a, indices, b) is in place in NumPy: raises, naming the functional form `a = a.at(indices).add(b)`. */
  at(...args: unknown[]): never;
  readonly nin: 2;
  readonly nout: 1;
  readonly nargs: 3;
  /** The op's identity (NumPy's `ufunc.identity`), or null. */
  readonly identity: number | boolean | null;
}

interface Spec {
  readonly name: string;
  /** The scan op that folds it, if it has one. */
  readonly op?: ScanOp;
  readonly identity: number | boolean | null;
  /** NumPy lets it reduce several axes at once (its terms may be reordered). */
  readonly reorderable: boolean;
}

const IDENTITY: Readonly<Record<string, number | boolean>> = {
  add: 0, multiply: 1, logical_and: true, logical_or: false, logical_xor: false, bitwise_and: -1, bitwise_or: 0, bitwise_xor: 0,
  gcd: 0, hypot: 0, logaddexp: -Infinity, logaddexp2: -Infinity,
};
const REORDERABLE = new Set([...Object.keys(IDENTITY), 'maximum', 'minimum', 'fmax', 'fmin']);
/** Binary ops whose two inputs NumPy types differently: no loop to reduce or accumulate with. */
const MIXED = new Set<string>(['ldexp']);

/** Attaches reduce, accumulate, reduceat, outer and NumPy's attributes to the ufunc `f` named `name`. */
export function withMethods<F extends Call>(f: F, name: string, op?: ScanOp): F & UFuncMethods {
  const s: Spec = { name, op, identity: IDENTITY[name] ?? null, reorderable: REORDERABLE.has(name) };
  const m = f as unknown as Record<string, unknown>;
  m.reduce = (x: Operand, ...args: Args) => reduce(s, f, x, args);
  m.accumulate = (x: Operand, ...args: Args) => accumulate(s, x, args);
  m.reduceat = (x: Operand, indices: Operand, ...args: Args) => reduceat(s, f, x, indices, args);
  m.outer = (a: Operand, b: Operand, ...args: Args) => {
    const [ta, tb] = [toTensor(a), toTensor(b)];
    return f(reshape(ta, [...ta.shape, ...tb.shape.map(() => 1)]), tb, ...args);
  };
  // NumPy's ufunc.at changes its array in place and returns None: said as an error, with the functional line
  m.at = (..._args: unknown[]): never => {
    throw new TypeError(AT_OPS.has(name)
      ? `np.${name}.at changes its array in place, and a Tessera tensor never changes: write a = a.at(indices).${['add', 'subtract', 'multiply', 'divide', 'power', 'maximum', 'minimum'].includes(name) ? `${name}(b)` : `apply('${name}', b)`}, which gives the new tensor`
      : `np.${name}.at changes its array in place, and a Tessera tensor never changes; Tessera has no functional form of ${name}.at`);
  };
  for (const [k, v] of [['nin', 2], ['nout', 1], ['nargs', 3], ['identity', s.identity], ['name', name]] as const) {
    Object.defineProperty(f, k, { value: v, enumerable: false, configurable: true });
  }
  return f as F & UFuncMethods;
}

/** The dtype a fold of `d` terms runs in and the scan op (NumPy's loop for (d, d), add and multiply widened as sum). */
function loop(s: Spec, d: DType, given: boolean): { dtype: DType; op: ScanOp } {
  if (!s.op || MIXED.has(s.name)) {
    throw new TypeError(`${s.name}.reduce/accumulate: ufunc '${s.name}' has no loop with equal input and output types${s.op ? ` for ${d}` : ' in Tessera'}`);
  }
  if (s.op === 'add' || s.op === 'multiply') return { dtype: given ? d : sumResultOf(d), op: s.op === 'add' ? 'sum' : 'prod' };
  if (s.op === 'logical_and' || s.op === 'logical_or' || s.op === 'logical_xor') return { dtype: 'bool', op: s.op };
  if (s.op === 'logaddexp' || s.op === 'logaddexp2') return { dtype: floatResultOf(d), op: s.op };
  const r = resolveBinary(s.op as BinaryOp, d);
  if (r.compute !== r.result) throw new TypeError(`No loop matching the specified signature and casting was found for ufunc ${s.name} (a ${d} ${s.name} gives ${r.result})`);
  return { dtype: r.result, op: s.op };
}

function accumulate(s: Spec, x: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null; dtype?: DType | string }>(`${s.name}.accumulate`, args, ['axis', 'dtype', 'out']);
  const t = toTensor(x);
  if (t.ndim === 0) throw new TypeError('cannot accumulate on a scalar');
  let axis = o.axis === undefined ? 0 : o.axis;
  if (Array.isArray(axis)) {
    if (axis.length !== 1) throw new RangeError('accumulate does not allow multiple axes');
    axis = axis[0] as number;
  }
  if (axis === null) {
    if (t.ndim !== 1) throw new RangeError('accumulate does not allow multiple axes');
    axis = 0;
  }
  const ax = normalizeAxis(axis as number, t.ndim);
  const want = dtypeArg(o.dtype);
  const { dtype, op } = loop(s, want ?? t.dtype, want !== undefined);
  if (op === 'sum') return cumsum(t, { axis: ax, dtype });
  if (op === 'prod') return cumprod(t, { axis: ax, dtype });
  return new Tensor(G.scan(op, G.cast(want ? G.cast(t.node, want) : t.node, dtype), ax, dtype));
}

interface ReduceOpts { axis?: number | readonly number[] | null; dtype?: DType | string; keepdims?: boolean; initial?: number | boolean | null; where?: Operand }

function reduce(s: Spec, f: Call, x: Operand, args: Args): Tensor {
  const o = kwargs<ReduceOpts>(`${s.name}.reduce`, args, ['axis', 'dtype', 'out', 'keepdims', 'initial', 'where']);
  let t = toTensor(x);
  const axis = o.axis === undefined ? 0 : o.axis;
  const axes = t.ndim === 0 && [axis].flat().every((v) => v === 0 || v === -1) ? [] : normalizeAxes(axis, t.ndim);
  if (axes.length > 1 && !s.reorderable) throw new RangeError(`reduction operation '${s.name}' is not reorderable, so at most one axis may be specified`);
  const want = dtypeArg(o.dtype);
  const keepdims = o.keepdims ?? false;
  const initial = o.initial ?? undefined;
  const mask = o.where === undefined || o.where === true ? undefined : o.where;
  const kw = { axis: axes, keepdims, ...(initial !== undefined ? { initial } : {}), ...(mask !== undefined ? { where: mask } : {}) };
  // the reduction kernels, where NumPy's reduce is one
  switch (s.name) {
    case 'add': return sum(t, { ...kw, ...(want ? { dtype: want } : {}) });
    case 'multiply': return prod(t, { ...kw, ...(want ? { dtype: want } : {}) });
    case 'maximum': return max(want ? astype(t, want) : t, kw);
    case 'minimum': return min(want ? astype(t, want) : t, kw);
    case 'fmax': case 'fmin': {
      const u = want ? astype(t, want) : t;
      return s.name === 'fmax' ? (isFloat(u.dtype) ? nanmax(u, kw) : max(u, kw)) : isFloat(u.dtype) ? nanmin(u, kw) : min(u, kw);
    }
    case 'logical_and': case 'logical_or': {
      const r = (s.name === 'logical_and' ? all : any)(t, { axis: axes, keepdims, ...(mask !== undefined ? { where: mask } : {}) });
      return initial === undefined ? r : astype(f(r, initial), 'bool');
    }
    default: break;
  }
  const { dtype, op } = loop(s, want ?? t.dtype, want !== undefined);
  // a fold reads its last term: found once the run knows the lengths
  const later = whenKnown(`${s.name}.reduce`, [t, o], (u, p) => reduce(s, f, u, [p]));
  if (later) return later;
  t = astype(want ? astype(t, want) : t, dtype);
  // NumPy starts a fold from `initial`, which defaults to the op's identity (hypot.reduce([-2]) is 2, gcd.reduce([-4]) is 4)
  const init = initial ?? s.identity ?? undefined;
  if (mask !== undefined && init === undefined) throw new RangeError(`reduction operation '${s.name}' does not have an identity, so to use a where mask one has to specify 'initial'`);
  const resultShape = t.shape.filter((_, i) => !axes.includes(i));
  const keptShape = t.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const out = (r: Tensor): Tensor => reshape(r, keepdims ? keptShape : resultShape);
  if (axes.length === 0) return init === undefined ? t : astype(f(init, t), dtype);
  // the reduced axes last, as one
  const rest = t.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const n = sizeOf(axes.map((a) => t.shape[a]!));
  const asLines = (u: Tensor): Tensor => reshape(moveaxis(u, axes, axes.map((_, i) => rest.length + i)), [...resultShape, n]);
  let lines = asLines(t);
  if (init === undefined && n === 0) {
    if (sizeOf(resultShape) > 0) throw new RangeError(`zero-size array to reduction operation ${s.name} which has no identity`);
    return filled(keepdims ? keptShape : resultShape, 0, dtype);
  }
  // where=: the chosen terms of each line first, in order (a stable sort on the mask), and the fold read after the last of them
  let count: Tensor | undefined;
  if (mask !== undefined) {
    const m = asLines(broadcast_to(astype(mask, 'bool'), t.shape));
    lines = take_along_axis(lines, argsort(logical_not(m), { axis: -1, kind: 'stable' }), { axis: -1 });
    count = sum(m, { axis: -1, keepdims: true, dtype: 'int64' });
  }
  if (init !== undefined) lines = concatenate([filled([...resultShape, 1], init, dtype), lines], { axis: -1 });
  const folded = new Tensor(G.scan(op, lines.node, resultShape.length, dtype));
  if (count) return out(take_along_axis(folded, count, { axis: -1 }));
  return out(take(folded, lines.shape[resultShape.length]! - 1, { axis: -1 }));
}

function reduceat(s: Spec, f: Call, x: Operand, indices: Operand, args: Args): Tensor {
  const o = kwargs<{ axis?: number; dtype?: DType | string }>(`${s.name}.reduceat`, args, ['axis', 'dtype', 'out']);
  const t = toTensor(x);
  if (t.ndim === 0) throw new TypeError('reduceat: cannot reduce a scalar (0-d array)');
  const ax = normalizeAxis(o.axis ?? 0, t.ndim);
  if (!isTensor(indices) && !Array.isArray(indices) && !ArrayBuffer.isView(indices)) throw new RangeError('object of too small depth for desired array');
  const it = isTensor(indices) ? indices : tensor(indices as never);
  if (it.ndim !== 1) throw new RangeError(it.ndim === 0 ? 'object of too small depth for desired array' : 'object too deep for desired array');
  // NumPy casts JS-like data to integers whatever it holds ([0.5] is [0]), an array only safely
  if (isFloat(it.dtype) && isTensor(indices)) throw new TypeError(`Cannot cast array data from dtype('${it.dtype}') to dtype('int64') according to the rule 'safe'`);
  const want = dtypeArg(o.dtype);
  const { dtype } = loop(s, want ?? t.dtype, want !== undefined);
  const src = astype(t, dtype);
  const pieces = (xs: Tensor, idx: readonly number[]) => reduceatPieces(s, f, xs, ax, idx, dtype);
  if (runtime.has(it.node)) {
    const idx = Array.from(runtime.values(it.node) as ArrayLike<number | bigint>, (v) => Math.trunc(Number(v)));
    // indices known now into an axis the run will know: checked and cut once it does
    if (hasUnknown(src.shape)) return new Tensor(G.defer(`${s.name}.reduceat`, [src.node], ([u]) => pieces(new Tensor(u!), idx).node, dtype, src.shape.map((d, i) => (i === ax ? idx.length : d))));
    return pieces(src, idx);
  }
  // Indices computed in the same run (a group's starts from flatnonzero): the run computes them
  // first, then builds the pieces over their values.
  const shape = src.shape.map((d, i) => (i === ax ? it.shape[0]! : d));
  return onValues(`${s.name}.reduceat`, it, [src], dtype, shape, (idx, [u]) => pieces(u!, idx));
}

/** NumPy's reduceat of `src` (already in the loop's dtype) along `ax` at the known indices `idx`. */
function reduceatPieces(s: Spec, f: Call, src: Tensor, ax: number, idx: readonly number[], dtype: DType): Tensor {
  const n = src.shape[ax]!;
  for (const i of idx) if (!(i >= 0 && i < n)) throw new RangeError(`index ${i} out-of-bounds in ${s.name}.reduceat [0, ${n})`);
  if (idx.length === 0) return filled([...src.shape.slice(0, ax), 0, ...src.shape.slice(ax + 1)], 0, dtype);
  // NumPy: piece i is the reduce over [idx[i], idx[i + 1]) where that is not empty, else the single row idx[i]
  const pieces = idx.map((lo, i) => {
    const hi = i + 1 < idx.length ? idx[i + 1]! : n;
    const len = hi > lo ? hi - lo : 1;
    const part = new Tensor(G.slice(src.node, src.shape.map((_, d) => (d === ax ? lo : 0)), src.shape.map(() => 1), src.shape.map((n, d) => (d === ax ? len : n))));
    return hi > lo + 1 ? reduce(s, f, part, [{ axis: ax, keepdims: true, dtype }]) : part;
  });
  return pieces.length === 1 ? pieces[0]! : concatenate(pieces, { axis: ax });
}

/** `shape` filled with `v` in `dtype`, an integer cast as NumPy casts it (bitwise_and's identity -1 is all ones in uint8). */
function filled(shape: readonly number[], v: number | boolean, dtype: DType): Tensor {
  if (typeof v === 'number' && Number.isInteger(v) && !isFloat(dtype)) return astype(full([...shape], v, { dtype: 'int64' }), dtype);
  return full([...shape], v, { dtype });
}
