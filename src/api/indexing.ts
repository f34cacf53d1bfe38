// NumPy indexing in JS. `x[1:3, ::-1, None, ...]` is written
// `x.get('1:3, ::-1, None, ...')` (NumPy's own syntax in a string) or with
// items: `x.get(mt.slice(1, 3), mt.slice(null, null, -1), mt.newaxis, mt.ellipsis)`;
// numbers are integer indices, JS arrays and int tensors are integer-array
// (advanced) indices, bool tensors are masks. `x.set(index, value)` is the
// functional form of `x[index] = value`: a new tensor, x unchanged.
// Basic indexing is a view (one slice node, then a reshape); integer arrays
// become gathers; a mask becomes a compress node whose length is known only
// once the mask is computed (see graph/node's `compress`).

import * as G from '../graph/node.js';
import { isFloat } from '../graph/dtype.js';
import { broadcastShapes, shapeStr, sizeOf } from '../graph/shape.js';
import {
  type Operand, Tensor, add, any as anyOf, astype, broadcast_to, cumsum, equal, isOptions, logical_and, max as maxOf,
  multiply, ravel, reshape, take, tensor, toTensor, transpose, where, zeros,
} from './tensor.js';

/** A Python slice: `mt.slice(start, stop, step)`; null means "default". */
export class Slice {
  constructor(readonly start: number | null = null, readonly stop: number | null = null, readonly step: number | null = null) {
    for (const [k, v] of [['start', start], ['stop', stop], ['step', step]] as const) {
      if (v !== null && (typeof v !== 'number' || !Number.isInteger(v))) throw new TypeError(`slice ${k} must be an integer or null, got ${String(v)}`);
    }
    if (step === 0) throw new RangeError('slice step cannot be zero');
  }
  /** Python's slice.indices(n): normalised start, step and length. */
  indices(n: number): { start: number; step: number; len: number } {
    const step = this.step ?? 1;
    let start: number, stop: number;
    if (step > 0) {
      start = this.start === null ? 0 : this.start < 0 ? Math.max(0, this.start + n) : Math.min(this.start, n);
      stop = this.stop === null ? n : this.stop < 0 ? Math.max(0, this.stop + n) : Math.min(this.stop, n);
    } else {
      start = this.start === null ? n - 1 : this.start < 0 ? Math.max(-1, this.start + n) : Math.min(this.start, n - 1);
      stop = this.stop === null ? -1 : this.stop < 0 ? Math.max(-1, this.stop + n) : Math.min(this.stop, n - 1);
    }
    const len = Math.max(0, Math.ceil((stop - start) / step));
    return { start: len ? start : 0, step, len };
  }
}

export function slice(start: number | null = null, stop?: number | null, step: number | null = null): Slice {
  // slice(5) is slice(null, 5), as in Python.
  return stop === undefined ? new Slice(null, start, null) : new Slice(start, stop, step);
}
export const newaxis = null;
export const ellipsis = '...' as const;

type Item = number | Slice | null | '...' | Tensor | readonly unknown[] | ArrayBufferView;
export type Index = Item | string | readonly Item[];

/** Parses NumPy's index syntax: '1:3, ::2, None, ..., -1'. */
export function parseIndex(s: string): Item[] {
  const items: Item[] = [];
  const parts = s.split(',').map((p) => p.trim());
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // 'x[1,]'
  for (const p of parts) {
    if (p === '...' || p === 'Ellipsis') items.push('...');
    else if (p === 'None' || p === 'newaxis' || p === 'np.newaxis') items.push(null);
    else if (p.includes(':')) {
      const f = p.split(':');
      if (f.length > 3) throw new SyntaxError(`invalid slice '${p}' in index '${s}'`);
      const num = (t: string | undefined): number | null => {
        if (t === undefined || t.trim() === '') return null;
        const v = Number(t.trim());
        if (!Number.isInteger(v)) throw new SyntaxError(`slice bounds must be integers: '${p}' in index '${s}'`);
        return v;
      };
      items.push(new Slice(num(f[0]), num(f[1]), num(f[2])));
    } else {
      const v = Number(p);
      if (p === '' || !Number.isInteger(v)) throw new SyntaxError(`invalid index item '${p}' in '${s}' (integers, start:stop:step, None and ... are allowed)`);
      items.push(v);
    }
  }
  return items;
}

function normalizeItems(index: readonly unknown[]): Item[] {
  const out: Item[] = [];
  for (const it of index) {
    if (typeof it === 'string') out.push(...parseIndex(it));
    else if (it === undefined) throw new TypeError('index item is undefined');
    else if (typeof it === 'boolean') out.push(tensor(it));
    else if (isOptions(it)) throw new TypeError('index items are integers, mt.slice(...), null (newaxis), "..." or integer/boolean arrays');
    else out.push(it as Item);
  }
  return out;
}

type Adv = { axis: number; t: Tensor };

interface Parsed {
  /** Per input axis: slice (start, step, len) or an integer index. */
  axes: ({ kind: 'slice'; start: number; step: number; len: number } | { kind: 'int'; i: number } | { kind: 'adv'; t: Tensor })[];
  /** Output layout after basic indexing: input axis, or 'new' for newaxis. */
  layout: (number | 'new')[];
  mask?: { t: Tensor; first: number };
}

function isArrayIndex(it: Item): it is Tensor | readonly unknown[] | ArrayBufferView {
  return it instanceof Tensor || Array.isArray(it) || ArrayBuffer.isView(it);
}

function parse(x: Tensor, items: Item[]): Parsed {
  const ells = items.filter((i) => i === '...').length;
  if (ells > 1) throw new RangeError("an index can only have a single ellipsis ('...')");
  const arrays = items.map((it) => (isArrayIndex(it) ? toTensor(it as Operand) : undefined));
  const consumes = items.map((it, k) => (it === null || it === '...' ? 0 : arrays[k] && arrays[k]!.dtype === 'bool' ? Math.max(1, arrays[k]!.ndim) : 1));
  const used = consumes.reduce((a, b) => a + b, 0);
  if (used > x.ndim) throw new RangeError(`too many indices for array: array is ${x.ndim}-dimensional, but ${used} were indexed`);
  const hasAdv = arrays.some((a) => a !== undefined);
  const p: Parsed = { axes: [], layout: [] };
  let ax = 0;
  const full = (n: number) => ({ kind: 'slice' as const, start: 0, step: 1, len: n });
  items.forEach((it, k) => {
    if (it === '...') {
      for (let j = 0; j < x.ndim - used; j++) { p.axes.push(full(x.shape[ax]!)); p.layout.push(ax++); }
    } else if (it === null) {
      p.layout.push('new');
    } else if (it instanceof Slice) {
      p.axes.push({ kind: 'slice', ...it.indices(x.shape[ax]!) });
      p.layout.push(ax++);
    } else if (typeof it === 'number') {
      if (!Number.isInteger(it)) throw new TypeError(`only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices (got ${it})`);
      const n = x.shape[ax]!;
      if (it < -n || it >= n) throw new RangeError(`index ${it} is out of bounds for axis ${ax} with size ${n}`);
      // Next to an array index, NumPy treats an integer as a 0-d array index.
      if (hasAdv) { p.axes.push({ kind: 'adv', t: tensor(it < 0 ? it + n : it) }); p.layout.push(ax++); }
      else { p.axes.push({ kind: 'int', i: it < 0 ? it + n : it }); ax++; }
    } else {
      const t = arrays[k]!;
      if (t.dtype === 'bool') {
        if (p.mask || arrays.filter((a) => a).length > 1) throw new RangeError('a boolean mask index cannot be combined with other array indices (Tessera supports one mask per index)');
        const m = Math.max(1, t.ndim);
        const want = x.shape.slice(ax, ax + m);
        if (t.ndim === 0) throw new RangeError('0-d boolean indices are not supported; use where()');
        if (t.shape.some((d, j) => d !== want[j] && !Number.isNaN(d) && !Number.isNaN(want[j]!))) throw new RangeError(`boolean index did not match indexed array along axis ${ax}; size of axis is ${want[0]} but size of corresponding boolean axis is ${t.shape[0]} (mask shape ${shapeStr(t.shape)}, array shape ${shapeStr(x.shape)})`);
        p.mask = { t, first: ax };
        for (let j = 0; j < m; j++) { p.axes.push(full(x.shape[ax]!)); p.layout.push(ax++); }
      } else {
        if (isFloat(t.dtype)) throw new TypeError('arrays used as indices must be of integer (or boolean) type');
        p.axes.push({ kind: 'adv', t: checkIndexArray(it, t, x.shape[ax]!, ax) });
        p.layout.push(ax++);
      }
    }
  });
  while (ax < x.ndim) { p.axes.push(full(x.shape[ax]!)); p.layout.push(ax++); }
  return p;
}

/** Host arrays are bounds-checked (and wrapped) now; tensor indices wrap negatives when gathered. */
function checkIndexArray(raw: Item, t: Tensor, n: number, axis: number): Tensor {
  if (raw instanceof Tensor) return t;
  const flat = (function walk(v: unknown, out: number[]): number[] {
    if (Array.isArray(v)) v.forEach((e) => walk(e, out));
    else if (ArrayBuffer.isView(v)) Array.from(v as unknown as ArrayLike<number | bigint>, (e) => out.push(Number(e)));
    else out.push(Number(v));
    return out;
  })(raw, []);
  for (const i of flat) if (i < -n || i >= n) throw new RangeError(`index ${i} is out of bounds for axis ${axis} with size ${n}`);
  return t;
}

/** Basic indexing: one strided slice of every axis, then drop integer axes and insert new ones. */
function basic(x: Tensor, p: Parsed): Tensor {
  const starts = p.axes.map((a) => (a.kind === 'slice' ? a.start : a.kind === 'int' ? a.i : 0));
  const steps = p.axes.map((a) => (a.kind === 'slice' ? a.step : 1));
  const shape = p.axes.map((a, i) => (a.kind === 'slice' ? a.len : a.kind === 'int' ? 1 : x.shape[i]!));
  const s = new Tensor(G.slice(x.node, starts, steps, shape));
  const out = p.layout.map((l) => (l === 'new' ? 1 : shape[l]!));
  return reshape(s, out);
}

/** x[index] */
export function getitem(x: Tensor, ...index: unknown[]): Tensor {
  const items = normalizeItems(index);
  const p = parse(x, items);
  let r = basic(x, p);
  // Output axis of each input axis after basic indexing.
  const pos = new Map<number, number>();
  p.layout.forEach((l, i) => { if (l !== 'new') pos.set(l, i); });
  if (p.mask) return compressAxes(r, p.mask.t, pos.get(p.mask.first)!);
  const adv: Adv[] = [];
  p.axes.forEach((a, i) => { if (a.kind === 'adv') adv.push({ axis: pos.get(i)!, t: a.t }); });
  if (!adv.length) return r;
  return advanced(r, adv);
}

/** Integer-array indices on axes of r: broadcast together; NumPy's placement of the result dims. */
function advanced(r: Tensor, adv: Adv[]): Tensor {
  const bshape = adv.map((a) => a.t.shape).reduce((a, b) => broadcastShapes(a, b));
  const axes = adv.map((a) => a.axis);
  const adjacent = axes.every((a, i) => i === 0 || a === axes[i - 1]! + 1);
  // Move the indexed axes together (to the front when NumPy would put the result there).
  const rest = r.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const at = adjacent ? rest.filter((i) => i < axes[0]!).length : 0;
  const order = [...rest.slice(0, at), ...axes, ...rest.slice(at)];
  const moved = transpose(r, order);
  const dims = axes.map((a) => r.shape[a]!);
  const merged = reshape(moved, [...moved.shape.slice(0, at), sizeOf(dims), ...moved.shape.slice(at + axes.length)]);
  // Flat index into the merged axis: sum of wrapped index * stride.
  let flat: Tensor | undefined;
  let stride = 1;
  for (let k = adv.length - 1; k >= 0; k--) {
    const n = dims[k]!;
    let i = astype(adv[k]!.t, 'int64');
    i = where(i.less(0), i.add(n), i);
    const term = stride === 1 ? i : multiply(i, stride);
    flat = flat ? add(flat, term) : term;
    stride *= n;
  }
  return take(merged, broadcast_to(flat!, bshape), { axis: at });
}

/** x[mask] where mask covers axes [axis, axis + mask.ndim): those axes become one of unknown length. */
function compressAxes(r: Tensor, mask: Tensor, axis: number): Tensor {
  const m = mask.ndim;
  const lead = r.shape.slice(0, axis), trail = r.shape.slice(axis + m);
  const merged = reshape(r, [...lead, sizeOf(mask.shape), ...trail]);
  return new Tensor(G.compress(merged.node, ravel(mask).node, axis));
}

/**
 * The functional `x[index] = value`: `setitem(x, index, value)`, or with the
 * index items spread out as in `getitem`: `setitem(x, ':', [2, 0], value)`.
 */
export function setitem(x: Tensor, ...args: unknown[]): Tensor {
  if (args.length < 2) throw new TypeError('setitem(x, index, value): an index and a value are required');
  const value = args[args.length - 1] as Operand;
  if (args.length > 2) return setIndex(x, args.slice(0, -1) as Item[], value);
  return setIndex(x, args[0] as Index, value);
}

function setIndex(x: Tensor, index: Index, value: Operand): Tensor {
  const items = normalizeItems(typeof index === 'string' || !Array.isArray(index) ? [index] : (index as unknown[]));
  // A JS array as a whole index is a tuple of items, unless it is all numbers (then an integer-array index, as x[[0, 2]] = v).
  const list = Array.isArray(index) && index.every((v) => typeof v === 'number') ? [index as readonly number[]] as Item[] : items;
  const p = parse(x, list);
  const v = toTensor(value);
  if (p.mask) return setMask(x, p.mask.t, p.mask.first, v);
  const advAxes = p.axes.map((a, i) => (a.kind === 'adv' ? i : -1)).filter((i) => i >= 0);
  if (advAxes.length > 1) throw new RangeError('set(): assignment through more than one integer-array index is not supported yet; index one axis at a time');
  // Shape of x[index]; the value broadcasts to it, then comes back to one axis per input axis.
  const target = getitem(x, ...list).shape;
  let val = broadcast_to(astype(v, x.dtype), target);
  // Drop the newaxis dims, restore integer-indexed axes as length-1.
  const per: number[] = p.axes.map((a) => (a.kind === 'slice' ? a.len : a.kind === 'int' ? 1 : -1));
  if (advAxes.length) {
    const k = advAxes[0]!;
    const ia = p.axes[k] as { kind: 'adv'; t: Tensor };
    if (ia.t.ndim > 1) throw new RangeError('set(): an integer-array index must be 1-d');
    per[k] = ia.t.size;
  }
  val = reshape(val, per);
  // Per axis: which position of the value lands on each position of x (and whether any does).
  let mask: Tensor | undefined;
  p.axes.forEach((a, ax) => {
    const n = x.shape[ax]!;
    let q: Tensor, hit: Tensor;
    if (a.kind === 'slice') {
      if (a.start === 0 && a.step === 1 && a.len === n) return;
      const j = new Tensor(G.iota([n], 0)).subtract(a.start);
      const qq = j.floor_divide(a.step);
      hit = logical_and(equal(j.mod(a.step), 0), logical_and(qq.greater_equal(0), qq.less(a.len)));
      q = where(hit, qq, 0);
    } else if (a.kind === 'int') {
      hit = equal(new Tensor(G.iota([n], 0)), a.i);
      q = zeros([n], { dtype: 'int64' });
    } else {
      // Last matching position wins, as NumPy's sequential assignment leaves it.
      let idx = astype(ravel(a.t), 'int64');
      idx = where(idx.less(0), idx.add(n), idx);
      const eq = equal(reshape(new Tensor(G.iota([n], 0)), [n, 1]), reshape(idx, [1, idx.size]));
      hit = anyOf(eq, { axis: 1 });
      q = maxOf(where(eq, reshape(new Tensor(G.iota([idx.size], 0)), [1, idx.size]), -1), { axis: 1 });
      q = where(hit, q, 0);
    }
    val = take(val, q, { axis: ax });
    const hs = x.shape.map((_, i) => (i === ax ? n : 1));
    const h = reshape(hit, hs);
    mask = mask ? logical_and(mask, h) : h;
  });
  if (!mask) return broadcast_to(val, x.shape);
  return where(mask, val, x);
}

/** x[mask] = v: a scalar everywhere the mask holds, or one value (row) per true element in order. */
function setMask(x: Tensor, mask: Tensor, first: number, v: Tensor): Tensor {
  const m = mask.ndim;
  const shaped = reshape(mask, [...x.shape.slice(0, first).map(() => 1), ...mask.shape, ...x.shape.slice(first + m).map(() => 1)]);
  const val = astype(v, x.dtype);
  if (val.size === 1) return where(shaped, reshape(val, []), x);
  // The k-th true element takes val[k]: k = cumsum(mask) - 1 in C order.
  if (first !== 0) throw new RangeError('set(): a mask assignment with an array value must index the leading axes');
  const k = cumsum(ravel(mask)).subtract(1);
  const kk = where(k.less(0), 0, k);
  const rows = reshape(take(val.ndim === 0 ? reshape(val, [1]) : val, kk, { axis: 0 }), [...mask.shape, ...val.shape.slice(1)]);
  return where(shaped, broadcast_to(rows, x.shape), x);
}

/** np.nonzero: one int64 index array per axis, of length known after execution. */
export function nonzero(x: Operand): Tensor[] {
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.');
  const mask = ravel(astype(t, 'bool'));
  return t.shape.map((_, ax) => new Tensor(G.compress(ravel(new Tensor(G.iota(t.shape, ax))).node, mask.node, 0)));
}
export const flatnonzero = (x: Operand): Tensor => {
  const t = ravel(toTensor(x));
  return new Tensor(G.compress(new Tensor(G.iota(t.shape, 0)).node, astype(t, 'bool').node, 0));
};
/** np.argwhere: [count, ndim] indices of the nonzero elements. */
export function argwhere(x: Operand): Tensor {
  const t = toTensor(x);
  if (t.ndim === 0) return reshape(new Tensor(G.compress(new Tensor(G.iota([1, 0], 0)).node, ravel(astype(t, 'bool')).node, 0)), [-1, 0]);
  const mask = ravel(astype(t, 'bool'));
  const coords = new Tensor(G.concat(t.shape.map((_, ax) => G.reshape(G.iota(t.shape, ax), [t.size, 1])), 1, 'int64'));
  return new Tensor(G.compress(coords.node, mask.node, 0));
}
/** np.compress(condition, a, axis): the slices of a along axis where condition holds. */
export function compress(condition: Operand, a: Operand, o: { axis?: number | null } = {}): Tensor {
  let t = toTensor(a);
  if (o.axis === undefined || o.axis === null) t = ravel(t);
  const ax = o.axis === undefined || o.axis === null ? 0 : o.axis < 0 ? o.axis + t.ndim : o.axis;
  if (ax < 0 || ax >= t.ndim) throw new RangeError(`axis ${o.axis} is out of bounds for array of dimension ${t.ndim}`);
  let c = ravel(astype(toTensor(condition), 'bool'));
  const n = t.shape[ax]!;
  // NumPy allows a shorter condition (missing entries are false); a longer one must be false beyond n.
  if (c.size < n) c = new Tensor(G.concat([c.node, G.expand(G.constant(false, 'bool'), [n - c.size])], 0, 'bool'));
  else if (c.size > n) throw new RangeError(`condition of length ${c.size} is longer than axis ${ax} of length ${n}`);
  return new Tensor(G.compress(t.node, c.node, ax));
}
/** np.extract(condition, arr): the elements of ravel(arr) where ravel(condition) holds. */
export const extract = (condition: Operand, arr: Operand): Tensor => compress(ravel(toTensor(condition)), ravel(toTensor(arr)));
