// NumPy's index tricks, spelt as Tessera spells x[...]: `mt.mgrid.get('0:3, 0:4')`
// for np.mgrid[0:3, 0:4], `mt.ogrid.get('-1:1:5j')`, `mt.r_.get('0:3', 7, a)` for
// np.r_[0:3, 7, a] and `mt.c_.get(a, b)`. A slice is a string in Python's
// syntax, which keeps what JS numbers lose: '0:1.0' is a float range, and a
// complex step '5j' asks for 5 points from start to stop inclusive, as in
// NumPy. The values are NumPy's (index * step + start, in the dtype of the
// bounds), and r_/c_ take NumPy's directive string first ('0,2,1', '-1').
// Also the index builders s_ and index_exp (the items of an index, to keep
// and pass to get/set later) and the index iterators ndindex and ndenumerate.

import { type DType, promoteTypes } from '../graph/dtype.js';
import { Slice, parseIndex } from './indexing.js';
import { NDArray } from './convert.js';
import {
  type Operand, Tensor, add, arange, astype, broadcast_to, concatenate, isTensor, linspace, multiply, reshape, stack, tensor, toTensor, transpose,
} from './core.js';
import { repr } from '../graph/shape.js';

/** One slice of a grid: Python's bounds and step, with a complex step's point count. */
interface GridSlice { start: number; stop: number; step: number; points?: number; float: boolean }

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;

/** 'start:stop:step' (each part optional but stop; a step may end in j) or a Slice. */
function gridSlice(fn: string, item: unknown): GridSlice {
  if (item instanceof Slice) {
    if (item.stop === null) throw new TypeError(`${fn}: a slice needs its stop`);
    return { start: item.start ?? 0, stop: item.stop, step: item.step ?? 1, float: false };
  }
  if (typeof item !== 'string' || !item.includes(':')) throw new TypeError(`${fn}: each item must be a slice such as '0:3' or '-1:1:5j', got ${JSON.stringify(item)}`);
  const parts = item.split(':');
  if (parts.length > 3) throw new SyntaxError(`${fn}: invalid slice '${item}'`);
  let float = false;
  const num = (s: string | undefined, dflt: number): number => {
    if (s === undefined || s.trim() === '') return dflt;
    if (!NUMBER.test(s)) throw new SyntaxError(`${fn}: invalid slice bound '${s.trim()}' in '${item}'`);
    if (/[.e]/i.test(s)) float = true;
    return Number(s);
  };
  const [a, b, c] = parts;
  const start = num(a, 0), stop = num(b, NaN);
  if (Number.isNaN(stop)) throw new TypeError(`${fn}: a slice needs its stop ('${item}')`);
  if (c !== undefined && /j\s*$/i.test(c)) {
    const points = Math.trunc(Math.abs(num(c.replace(/j\s*$/i, ''), 1)));
    return { start, stop, step: points === 1 ? 1 : (stop - start) / (points - 1), points, float: true };
  }
  const step = num(c, 1);
  if (step === 0) throw new RangeError(`${fn}: slice step cannot be zero`);
  return { start, stop, step, float };
}

/** How many points a slice spans: NumPy's int(ceil((stop - start) / step)), or the complex step's count. */
const count = (s: GridSlice): number => Math.max(0, s.points ?? Math.ceil((s.stop - s.start) / s.step));

/** The values of one slice of a grid: arange(len) * step + start, in `dtype`. */
function values(s: GridSlice, dtype: DType): Tensor {
  const i = arange(0, count(s), 1, dtype);
  return s.step === 1 && s.start === 0 ? i : add(multiply(i, s.step), s.start);
}

/** A slice as r_ (and a lone grid slice) makes it: linspace for a complex step, else arange. */
function range1d(s: GridSlice): Tensor {
  if (s.points !== undefined) return linspace(s.start, s.stop, s.points);
  return arange(s.start, s.stop, s.step, dtypeOf([s]));
}

/** int64 for integer bounds and steps, float64 when one is a float (NumPy's result_type of them). */
const dtypeOf = (slices: readonly GridSlice[]): DType =>
  (slices.some((s) => s.float || !Number.isInteger(s.step) || !Number.isInteger(s.start) || !Number.isInteger(s.stop)) ? 'float64' : 'int64');

function grid(fn: string, sparse: boolean, items: unknown[]): Tensor | Tensor[] {
  const split = items.flatMap((it) => (typeof it === 'string' && it.includes(',') ? it.split(',').filter((p) => p.trim() !== '') : [it]));
  const slices = split.map((it) => gridSlice(fn, it));
  // a single slice (NumPy's key that is no tuple) gives the 1-d values
  const tuple = items.length > 1 || (typeof items[0] === 'string' && items[0].includes(','));
  if (!tuple) {
    const s = slices[0]!;
    // NumPy: arange(start, stop, step), or for a complex step arange(0, n) * step + start
    return s.points !== undefined ? values(s, 'float64') : range1d(s);
  }
  const dtype = dtypeOf(slices);
  const axes = slices.map((s) => values(s, dtype));
  const shape = slices.map(count);
  const open = axes.map((a, k) => reshape(a, shape.map((n, j) => (j === k ? n : 1))));
  if (sparse) return open;
  return stack(open.map((a) => broadcast_to(a, shape)));
}

/** np.mgrid: `mt.mgrid.get('0:3, 0:4')` is the dense (2, 3, 4) grid of np.mgrid[0:3, 0:4]. */
export const mgrid = { get: (...items: unknown[]): Tensor => grid('mgrid', false, items) as Tensor };
/** np.ogrid: `mt.ogrid.get('0:3, 0:4')` is np.ogrid[0:3, 0:4], the open grids [(3, 1), (1, 4)]. */
export const ogrid = { get: (...items: unknown[]): Tensor | Tensor[] => grid('ogrid', true, items) };

/** NumPy's AxisConcatenator: r_ (axis 0, ndmin 1, trans1d -1) and c_ (axis -1, ndmin 2, trans1d 0). */
function concatenator(fn: string, axis0: number, ndmin0: number, trans0: number, items: unknown[]): Tensor {
  let [axis, ndmin, trans1d] = [axis0, ndmin0, trans0];
  const objs: Tensor[] = [];
  const kinds: (DType | number | boolean)[] = [];
  items.forEach((item, k) => {
    if (typeof item === 'string' && !item.includes(':')) {
      if (k !== 0) throw new RangeError('special directives must be the first entry.');
      if (item === 'r' || item === 'c') throw new TypeError(`${fn}: the '${item}' directive makes a np.matrix, which Tessera does not have`);
      const vec = item.split(',').map((s) => {
        if (!/^\s*-?\d+\s*$/.test(s)) throw new RangeError(`unknown special directive ${JSON.stringify(item)}`);
        return Number(s);
      });
      [axis, ndmin, trans1d] = [vec[0] ?? axis, vec[1] ?? ndmin, vec[2] ?? trans1d];
      return;
    }
    if (typeof item === 'string' || item instanceof Slice) {
      // a slice: its range, made ndmin-d with the new axes first, then the range moved to trans1d
      let t = range1d(gridSlice(fn, item));
      if (ndmin > 1) {
        t = reshape(t, [...Array<number>(ndmin - 1).fill(1), t.shape[0]!]);
        if (trans1d !== -1) {
          const p = [...t.shape.keys()];
          const k1 = trans1d < 0 ? trans1d + ndmin : trans1d;
          [p[ndmin - 1], p[k1]] = [p[k1]!, p[ndmin - 1]!];
          t = transpose(t, p);
        }
      }
      objs.push(t);
      kinds.push(t.dtype);
      return;
    }
    if (typeof item === 'number' || typeof item === 'boolean') {
      objs.push(reshape(tensor(item), Array<number>(ndmin).fill(1)));
      kinds.push(item);
      return;
    }
    let t = isTensor(item) ? item : toTensor(item as Operand);
    const nd = t.ndim;
    if (nd < ndmin) {
      t = reshape(t, [...Array<number>(ndmin - nd).fill(1), ...t.shape]);
      if (trans1d !== -1) {
        // NumPy: the item's own axes go to trans1d, the new ones around them
        const k2 = ndmin - nd;
        const k1 = trans1d < 0 ? trans1d + k2 + 1 : trans1d;
        const def = [...Array(ndmin).keys()];
        t = transpose(t, [...def.slice(0, k1), ...def.slice(k2), ...def.slice(k1, k2)]);
      }
    }
    objs.push(t);
    kinds.push(t.dtype);
  });
  if (!objs.length) return tensor([]);
  // scalars are weak in NumPy's result_type: they do not widen the arrays' dtype
  const arrays = kinds.filter((k): k is DType => typeof k === 'string');
  let d: DType;
  if (arrays.length) d = arrays.reduce((p, q) => promoteTypes(p, q));
  else d = kinds.some((k) => typeof k === 'number' && !Number.isInteger(k)) ? 'float64' : kinds.every((k) => typeof k === 'boolean') ? 'bool' : 'int64';
  if (arrays.length) {
    for (const k of kinds) {
      if (typeof k === 'number' && !Number.isInteger(k) && (d === 'bool' || d.startsWith('int') || d.startsWith('uint'))) d = 'float64';
      else if (typeof k === 'number' && d === 'bool') d = 'int64';
    }
  }
  return concatenate(objs.map((o) => astype(o, d)), { axis });
}

/** np.r_: `mt.r_.get('0:3', 7, a)` joins slices' ranges, scalars and arrays along the first axis (or as a directive says). */
export const r_ = { get: (...items: unknown[]): Tensor => concatenator('r_', 0, 1, -1, items) };
/** np.c_: `mt.c_.get(a, b)` joins along the last axis, 1-d items as columns. */
export const c_ = { get: (...items: unknown[]): Tensor => concatenator('c_', -1, 2, 0, items) };

/** The items of an index, strings parsed as x.get parses them. */
function indexItems(items: unknown[]): unknown[] {
  return items.flatMap((it) => (typeof it === 'string' ? parseIndex(it) : [it]));
}
/**
 * np.s_: `mt.s_.get('1:3, ::2')` is np.s_[1:3, ::2], the index's items
 * ([slice(1, 3), slice(null, null, 2)]), one item alone as itself; `x.get(...items)` uses them.
 */
export const s_ = {
  get: (...items: unknown[]): unknown => {
    const out = indexItems(items);
    return out.length === 1 ? out[0] : out;
  },
};
/** np.index_exp: as s_, but always the list of items (NumPy's tuple). */
export const index_exp = { get: (...items: unknown[]): unknown[] => indexItems(items) };

/** A shape given as NumPy's ndindex takes it: integers, or one array of them. */
function shapeArgs(fn: string, args: unknown[]): number[] {
  const dims = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  for (const d of dims) {
    if (typeof d !== 'number' || !Number.isInteger(d)) throw new TypeError(`${fn}(): the shape must be integers, got ${repr(d)}`);
    if (d < 0) throw new RangeError(`${fn}(): negative dimensions are not allowed`);
  }
  return dims as number[];
}

/** The indices of `shape` in C order (the last axis fastest); one empty index for shape (). */
function* indicesOf(shape: readonly number[]): Generator<number[]> {
  if (shape.some((d) => d === 0)) return;
  const idx = shape.map(() => 0);
  for (;;) {
    yield idx.slice();
    let k = shape.length - 1;
    while (k >= 0 && ++idx[k]! === shape[k]) idx[k--] = 0;
    if (k < 0) return;
  }
}

/** np.ndindex(*shape): `for (const [i, j] of mt.ndindex(3, 4))` visits every index of the shape in C order. */
export function ndindex(...shape: (number | readonly number[])[]): IterableIterator<number[]> {
  return indicesOf(shapeArgs('ndindex', shape));
}

/**
 * np.ndenumerate(arr): each index with its value, in C order. A fetched
 * NDArray iterates at once; a tensor is computed first, so it takes
 * `for await (const [[i, j], v] of mt.ndenumerate(x))` (an NDArray takes that too).
 */
export function ndenumerate(arr: NDArray | Tensor): Iterable<[number[], number | boolean | bigint]> & AsyncIterable<[number[], number | boolean | bigint]> {
  const pairs = function* (nd: NDArray): Generator<[number[], number | boolean | bigint]> {
    let i = 0;
    for (const idx of indicesOf(nd.shape)) yield [idx, nd.item(i++)];
  };
  if (!(arr instanceof NDArray) && !isTensor(arr)) throw new TypeError('ndenumerate(): expected a tensor or an NDArray (await x.fetch())');
  return {
    [Symbol.iterator]() {
      if (!(arr instanceof NDArray)) throw new TypeError('ndenumerate() of a tensor needs its values: use `for await`, or iterate over `await x.fetch()`');
      return pairs(arr);
    },
    async *[Symbol.asyncIterator]() {
      yield* pairs(arr instanceof NDArray ? arr : await arr.fetch());
    },
  };
}
