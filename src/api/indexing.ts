// NumPy indexing in JS. `x[1:3, ::-1, None, ...]` is written
// `x.get('1:3, ::-1, None, ...')` (NumPy's own syntax in a string) or with
// items: `x.get(mt.slice(1, 3), mt.slice(null, null, -1), mt.newaxis, mt.ellipsis)`;
// numbers are integer indices, JS arrays and int tensors are integer-array
// (advanced) indices, bool tensors are masks. `x.set(index, value)` is the
// functional form of `x[index] = value`: a new tensor, x unchanged.
// Basic indexing is a view (one slice node, then a reshape). Advanced items
// follow NumPy's equivalence: a boolean mask stands for its nonzero() integer
// arrays (flatnonzero over the axes it covers, whose length is known only once
// the mask is computed: graph/node's `compress`), an integer next to an array
// is a 0-d array, a 0-d boolean masks a new length-1 axis; all of them
// broadcast together and become one gather. One mask among integers is a
// single compress instead (no gather). `set` lays the value out along x's
// axes and picks it with where() (see setIndex).

import * as G from '../graph/node.js';
import { type DType, INFO, isFloat } from '../graph/dtype.js';
import type { Node } from '../graph/node.js';
import { broadcastShapes, chunkGrid, hasUnknown, repr, shapeStr, sizeOf } from '../graph/shape.js';
import { kwargs, isOptions } from './bind.js';
import {
  type Operand, Tensor, add, astype, broadcast_to, cumsum, deferred, equal, floor_divide, mod, stack, logical_and, max as maxOf,
  multiply, ravel, reshape, take, tensor,
  toTensor, transpose, where,
} from './core.js';
import type { JsData } from './convert.js';

/**
 * Indexing an axis whose length only the run will know, other than whole or
 * by a mask: `getitem` then defers the index until the length is known (`later`).
 */
class RunLength extends TypeError {}
const runLength = (axis: number, what: string): RunLength =>
  new RunLength(`cannot index axis ${axis}, whose length is known only at run time (after a boolean mask, unique or nonzero), with ${what}: execute() the array first`);

/** A Python slice: `mt.slice(start, stop, step)`; null means "default". */

export class Slice {
  constructor(readonly start: number | null = null, readonly stop: number | null = null, readonly step: number | null = null) {
    for (const [k, v] of [['start', start], ['stop', stop], ['step', step]] as const) {
      if (v !== null && (typeof v !== 'number' || !Number.isInteger(v))) throw new TypeError(`slice ${k} must be an integer or null, got ${repr(v)}`);
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

type Item = number | boolean | Slice | null | '...' | Tensor | readonly unknown[] | ArrayBufferView;
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
    else if (isOptions(it)) throw new TypeError('index items are integers, mt.slice(...), null (newaxis), "..." or integer/boolean arrays');
    else out.push(it as Item);
  }
  return out;
}

/** Per axis of the indexed array: a slice, an integer (basic indexing), or part of an advanced index. */
type AxisSel = { kind: 'slice'; start: number; step: number; len: number } | { kind: 'int'; i: number } | { kind: 'adv' };

/**
 * One advanced index item: an integer array, an integer next to one (NumPy
 * makes it a 0-d array index), or a boolean mask over `axes`, which stands for
 * its nonzero() arrays. `index` indexes the entry's axes taken together in C
 * order (for a mask: flatnonzero(mask)); its shape joins the broadcast.
 */
interface Adv {
  /** Position of the item in the index: advanced items next to each other keep their place in the result. */
  item: number;
  axes: number[];
  /** Built on first use: a run-time mask's flatnonzero is needed only outside the one-compress path. */
  readonly index: Tensor;
  scalar?: number;
  mask?: Tensor;
  /** A mask given as JS values: its true count is known now. */
  host?: boolean;
}

interface Parsed {
  /** The indexed array, with a length-1 axis inserted for each 0-d boolean index (a mask over that axis). */
  x: Tensor;
  axes: AxisSel[];
  /** Output layout of basic indexing: an axis of x (slice or advanced) or 'new' for newaxis. */
  layout: (number | 'new')[];
  adv: Adv[];
  /** Advanced items next to each other: their result dims replace them in place, else they go first. */
  adjacent: boolean;
  /** The whole index is one boolean array over every axis (NumPy's own assignment path and messages). */
  single: boolean;
}

type Kind =
  | { k: 'ell' } | { k: 'new' } | { k: 'slice'; s: Slice } | { k: 'int'; i: number }
  | { k: 'ints'; t: Tensor; raw: Item } | { k: 'mask'; t: Tensor; host?: number[] };

/** Flattened values of a JS (nested) array or typed array, in C order. */
function hostValues(v: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(v)) v.forEach((e) => hostValues(e, out));
  else if (ArrayBuffer.isView(v)) Array.from(v as unknown as ArrayLike<unknown>, (e) => out.push(e));
  else out.push(v);
  return out;
}

function classify(it: Item): Kind {
  if (it === '...') return { k: 'ell' };
  if (it === null) return { k: 'new' };
  if (it instanceof Slice) return { k: 'slice', s: it };
  if (typeof it === 'boolean') return { k: 'mask', t: tensor(it), host: it ? [0] : [] };
  if (typeof it === 'number') {
    if (!Number.isInteger(it)) throw new TypeError(`only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices (got ${repr(it)})`);
    return { k: 'int', i: it };
  }
  let t = toTensor(it as Operand);
  // NumPy reads an empty list as an empty integer index (np.array([]) itself is float and rejected).
  if (Array.isArray(it) && t.size === 0) t = astype(t, 'int64');
  if (t.dtype === 'bool') {
    if (it instanceof Tensor) return { k: 'mask', t };
    const host: number[] = [];
    hostValues(it).forEach((b, i) => { if (b) host.push(i); });
    return { k: 'mask', t, host };
  }
  if (isFloat(t.dtype)) throw new TypeError('arrays used as indices must be of integer (or boolean) type');
  return { k: 'ints', t, raw: it };
}

function parse(x0: Tensor, items: Item[]): Parsed {
  if (items.filter((i) => i === '...').length > 1) throw new RangeError("an index can only have a single ellipsis ('...')");
  const kinds = items.map(classify);
  const consumes = (c: Kind): number => (c.k === 'ell' || c.k === 'new' ? 0 : c.k === 'mask' ? c.t.ndim : 1);
  const used = kinds.reduce((a, c) => a + consumes(c), 0);
  if (used > x0.ndim) throw new RangeError(`too many indices for array: array is ${x0.ndim}-dimensional, but ${used} were indexed`);
  // A 0-d boolean adds an axis of length 1 and masks it (NumPy: x[True] is x[None] selected by [True]).
  const shape: number[] = [];
  let a0 = 0;
  kinds.forEach((c) => {
    if (c.k === 'ell') for (let j = 0; j < x0.ndim - used; j++) shape.push(x0.shape[a0++]!);
    else if (c.k === 'mask' && c.t.ndim === 0) shape.push(1);
    else for (let j = 0; j < consumes(c); j++) shape.push(x0.shape[a0++]!);
  });
  while (a0 < x0.ndim) shape.push(x0.shape[a0++]!);
  const x = shape.length === x0.ndim ? x0 : reshape(x0, shape);
  const hasAdv = kinds.some((c) => c.k === 'ints' || c.k === 'mask');
  const p: Parsed = { x, axes: [], layout: [], adv: [], adjacent: true, single: false };
  const full = (n: number): AxisSel => ({ kind: 'slice', start: 0, step: 1, len: n });
  let ax = 0;
  const hostCount: (number | undefined)[] = [];
  kinds.forEach((c, item) => {
    if (c.k === 'ell') {
      for (let j = 0; j < x0.ndim - used; j++) { p.axes.push(full(x.shape[ax]!)); p.layout.push(ax++); }
    } else if (c.k === 'new') {
      p.layout.push('new');
    } else if (c.k === 'slice') {
      // (a whole axis whose length is known only at run time stays whole; any other slice of it needs the length)
      const whole = c.s.start === null && c.s.stop === null && (c.s.step ?? 1) === 1;
      if (Number.isNaN(x.shape[ax]!) && !whole) throw runLength(ax - (x.ndim - x0.ndim), `the slice ${c.s.start ?? ''}:${c.s.stop ?? ''}${c.s.step === null ? '' : `:${c.s.step}`}`);
      p.axes.push({ kind: 'slice', ...c.s.indices(x.shape[ax]!) });
      p.layout.push(ax++);
    } else if (c.k === 'int') {
      const n = x.shape[ax]!;
      if (Number.isNaN(n)) throw runLength(ax - (x.ndim - x0.ndim), `the integer ${c.i}`);
      if (c.i < -n || c.i >= n) throw new RangeError(`index ${c.i} is out of bounds for axis ${ax - (x.ndim - x0.ndim)} with size ${n}`);
      const i = c.i < 0 ? c.i + n : c.i;
      if (!hasAdv) { p.axes.push({ kind: 'int', i }); ax++; return; }
      p.adv.push({ item, axes: [ax], index: tensor(i, { dtype: 'int64' }), scalar: i });
      p.axes.push({ kind: 'adv' });
      p.layout.push(ax++);
    } else if (c.k === 'ints') {
      if (Number.isNaN(x.shape[ax]!)) throw runLength(ax - (x.ndim - x0.ndim), 'an integer array');
      p.adv.push({ item, axes: [ax], index: checkIndexArray(c.raw, c.t, x.shape[ax]!, ax) });
      p.axes.push({ kind: 'adv' });
      p.layout.push(ax++);
    } else {
      const m = c.t.ndim === 0 ? reshape(c.t, [1]) : c.t;
      const want = x.shape.slice(ax, ax + m.ndim);
      const j = m.shape.findIndex((d, i) => d !== want[i] && !Number.isNaN(d) && !Number.isNaN(want[i]!));
      if (j >= 0) throw new RangeError(`boolean index did not match indexed array along axis ${ax + j}; size of axis is ${want[j]} but size of corresponding boolean axis is ${m.shape[j]} (mask shape ${shapeStr(m.shape)}, array shape ${shapeStr(x.shape)})`);
      const axes = m.shape.map(() => ax++);
      const host = c.host;
      let index: Tensor | undefined;
      hostCount[p.adv.length] = host?.length;
      p.adv.push({ item, axes, mask: m, host: host !== undefined, get index() { return (index ??= host ? tensor(host, { dtype: 'int64' }) : maskPositions(m)); } });
      for (const a of axes) { p.axes.push({ kind: 'adv' }); p.layout.push(a); }
    }
  });
  while (ax < x.ndim) { p.axes.push(full(x.shape[ax]!)); p.layout.push(ax++); }
  p.adjacent = p.adv.every((e, i) => i === 0 || e.item === p.adv[i - 1]!.item + 1);
  p.single = kinds.length === 1 && kinds[0]!.k === 'mask' && kinds[0]!.t.ndim === x0.ndim && x0.ndim > 0;
  const shapes = p.adv.map((e, i) => (!e.mask ? e.index.shape : [hostCount[i] ?? NaN]));
  try {
    broadcastShapes(...shapes);
  } catch {
    throw new RangeError(`shape mismatch: indexing arrays could not be broadcast together with shapes ${shapes.map(shapeStr).join(' ')}`);
  }
  return p;
}

/** flatnonzero(mask); over a mask whose own length is known only at run time, positions by a scan (iota needs a length). */
function maskPositions(m: Tensor): Tensor {
  if (!m.shape.some(Number.isNaN)) return flatnonzero(m);
  const flat = ravel(m);
  const pos = cumsum(astype(equal(flat, flat), 'int64')).subtract(1);
  return new Tensor(G.compress(pos.node, flat.node, 0));
}

/** Host arrays are bounds-checked (and wrapped) now; tensor indices wrap negatives when gathered. */
function checkIndexArray(raw: Item, t: Tensor, n: number, axis: number): Tensor {
  if (raw instanceof Tensor) return t;
  for (const v of hostValues(raw)) {
    const i = Number(v);
    if (i < -n || i >= n) throw new RangeError(`index ${i} is out of bounds for axis ${axis} with size ${n}`);
  }
  return t;
}

/** Basic indexing: one strided slice of every axis, then drop integer axes and insert new ones. */
function basic(x: Tensor, axes: readonly AxisSel[], layout: readonly (number | 'new')[]): Tensor {
  const starts = axes.map((a) => (a.kind === 'slice' ? a.start : a.kind === 'int' ? a.i : 0));
  const steps = axes.map((a) => (a.kind === 'slice' ? a.step : 1));
  const shape = axes.map((a, i) => (a.kind === 'slice' ? a.len : a.kind === 'int' ? 1 : x.shape[i]!));
  const s = new Tensor(G.slice(x.node, starts, steps, shape));
  return reshape(s, layout.map((l) => (l === 'new' ? 1 : shape[l]!)));
}

/** x[index] */
export function getitem(x: Tensor, ...index: unknown[]): Tensor {
  const items = normalizeItems(index);
  try {
    return select(parse(x, items));
  } catch (e) {
    if (e instanceof RunLength) return later(x, items);
    throw e;
  }
}

/** Probe lengths for the unknown axes of `later`'s stand-ins: two large ones, then short ones a slice's bounds show in. */
const PROBES = [2 ** 30 + 3, 2 ** 30 + 10];

/**
 * x[index] where the index needs a length the run will know (x[mask][:10],
 * x[mask][-1], x[mask][[0, 2]]): a node the run builds once x is computed
 * (graph/node's `defer`), as Mars tiles such indexing iteratively. Its
 * shape comes from indexing stand-ins whose unknown lengths are probes: a
 * result dim that changes with the probe follows an unknown length (NaN).
 * Short probes (0, and one past the largest integer item, when indexing
 * with them succeeds) catch a slice's bounds: x[mask][:10] has 10 elements
 * for every long probe but fewer for a short array. An index that is out
 * of bounds for the computed length fails the run, with NumPy's message.
 */
function later(x: Tensor, items: Item[]): Tensor {
  const tensors = items.filter((it): it is Tensor => it instanceof Tensor);
  const operands = [x, ...tensors];
  const over = (ts: readonly Tensor[]): Tensor => {
    let k = 1;
    return select(parse(ts[0]!, items.map((it) => (it instanceof Tensor ? ts[k++]! : it))));
  };
  const ints = items.flatMap((it) => (typeof it === 'number' ? [it] : Array.isArray(it) || ArrayBuffer.isView(it) ? hostValues(it).filter((v): v is number => typeof v === 'number') : []));
  const short = [0, 1 + Math.max(0, ...ints.map((i) => (i < 0 ? -i - 1 : i)))];
  const standIn = (t: Tensor, i: number, probe: number) => {
    const shape = t.shape.map((d) => (Number.isNaN(d) ? probe : d));
    return new Tensor(G.source(`standin${i}`, t.dtype, shape, chunkGrid(shape, INFO[t.dtype].bytes)));
  };
  const shapes: number[][] = [];
  let dtype: DType | undefined;
  for (const probe of [...PROBES, ...short]) {
    let r: Tensor;
    try {
      r = over(operands.map((t, i) => standIn(t, i, probe)));
    } catch (e) {
      if (probe === PROBES[0]) throw e; // wrong for any length: NumPy's error now
      continue; // (a short probe the integers do not fit)
    }
    dtype ??= r.dtype;
    shapes.push([...r.shape]);
  }
  const shape = shapes[0]!.map((d, i) => (shapes.every((s) => s[i] === d) ? d : NaN));
  return new Tensor(G.defer('getitem', operands.map((t) => t.node), (ins) => over(ins.map((n) => new Tensor(n))).node, dtype!, shape));
}

function select(p: Parsed): Tensor {
  if (!p.adv.length) return basic(p.x, p.axes, p.layout);
  const [m, ...others] = p.adv.filter((e) => e.mask && !e.host);
  if (m && !others.length && p.adv.every((e) => e === m || e.scalar !== undefined)) {
    // One mask among integers: basic indexing takes the integers, one compress the mask
    // (no gather); its result axis goes first when the advanced items were apart.
    const scalarAt = new Map(p.adv.filter((e) => e !== m).map((e) => [e.axes[0]!, e.scalar!]));
    const axes = p.axes.map((a, i): AxisSel => (scalarAt.has(i) ? { kind: 'int', i: scalarAt.get(i)! } : a));
    const layout = p.layout.filter((l) => l === 'new' || !scalarAt.has(l));
    const at = layout.indexOf(m.axes[0]!);
    const r = compressAxes(basic(p.x, axes, layout), m.mask!, at);
    return p.adjacent || at === 0 ? r : transpose(r, [at, ...r.shape.map((_, i) => i).filter((i) => i !== at)]);
  }
  return advanced(basic(p.x, p.axes, p.layout), p);
}

/**
 * The advanced items as one integer index into their axes taken together (C
 * order): the broadcast of the items' indices, shaped as NumPy's result dims.
 */
function flatIndex(p: Parsed, strict = false): Tensor {
  let flat: Tensor | undefined;
  let stride = 1;
  for (let k = p.adv.length - 1; k >= 0; k--) {
    const e = p.adv[k]!;
    const n = sizeOf(e.axes.map((a) => p.x.shape[a]!));
    let i = astype(e.index, 'int64');
    if (!e.mask && e.scalar === undefined) {
      i = where(i.less(0), i.add(n), i);
      // strict (assignment): an entry past its axis makes the whole flat index negative, which
      // the inverse index refuses at run time (a gather clamps instead: see the README).
      if (strict && !e.host) i = where(logical_and(i.greater_equal(0), i.less(n)), i, -(2 ** 52));
    }
    const term = stride === 1 ? i : multiply(i, stride);
    flat = flat ? add(term, flat) : term;
    stride *= n;
  }
  return flat!;
}

/** Integer-array indexing of r (basic indexing done, advanced axes kept whole): one gather. */
function advanced(r: Tensor, p: Parsed): Tensor {
  const axes = p.adv.flatMap((e) => e.axes).map((a) => p.layout.indexOf(a));
  // Move the indexed axes together (to the front when NumPy would put the result there).
  const rest = r.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const at = p.adjacent ? rest.filter((i) => i < axes[0]!).length : 0;
  const moved = transpose(r, [...rest.slice(0, at), ...axes, ...rest.slice(at)]);
  const merged = reshape(moved, [...moved.shape.slice(0, at), sizeOf(axes.map((a) => r.shape[a]!)), ...moved.shape.slice(at + axes.length)]);
  return take(merged, flatIndex(p), { axis: at });
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
  // several items are one tuple of them (set(1, 2, v) is x[1, 2] = v, not x[[1, 2]] = v)
  if (args.length > 2) return setIndex(x, args.slice(0, -1) as Item[], value, true);
  return setIndex(x, args[0] as Index, value);
}

/**
 * x[index] = v without scatter: v is broadcast to x[index]'s shape (NumPy's
 * check), laid out with one axis per basic axis of x and one for the advanced
 * items together, and each of those is taken back onto x's axes by the
 * position it came from (`q`) where it lands (`hit`); then where(hit, v, x).
 */
function setIndex(x: Tensor, index: Index, value: Operand, tuple = false): Tensor {
  const items = normalizeItems(typeof index === 'string' || !Array.isArray(index) ? [index] : (index as unknown[]));
  // A JS array as a whole index is a tuple of items, unless it is all numbers or all booleans
  // (then one integer or boolean array index, as x[[0, 2]] = v).
  const whole = !tuple && Array.isArray(index) && (index.every((v) => typeof v === 'number') || (index.length > 0 && index.every((v) => typeof v === 'boolean')));
  const its = whole ? [index as readonly unknown[]] : items;
  let p: Parsed;
  try {
    p = parse(x, its);
  } catch (e) {
    if (!(e instanceof RunLength)) throw e;
    return setLater(x, its, value);
  }
  const X = p.x;
  if (hasUnknown(X.shape)) return setLater(x, its, value);
  const target = select(p).shape;
  // JS values convert straight to x's dtype, as NumPy converts them (an integer it cannot hold is an error).
  let v = value instanceof Tensor ? astype(value, x.dtype) : tensor(value as JsData, { dtype: x.dtype });
  if (p.single) {
    const count = target[0]!;
    if (v.ndim > 1) throw new TypeError(`NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has ${v.ndim} dimensions`);
    if (v.size !== 1 && !Number.isNaN(count) && v.size !== count) throw new RangeError(`NumPy boolean array indexing assignment cannot assign ${v.size} input values to the ${count} output values where the mask is true`);
  }
  // NumPy drops leading length-1 dims of the value; the rest broadcasts to the target.
  while (v.ndim > target.length && v.shape[0] === 1) v = reshape(v, v.shape.slice(1));
  const off = target.length - v.ndim;
  if (off < 0 || v.shape.some((d, i) => d !== 1 && d !== target[i + off] && !Number.isNaN(target[i + off]!))) {
    throw new RangeError(`shape mismatch: value array of shape ${shapeStr(v.shape)} could not be broadcast to indexing result of shape ${shapeStr(target)}`);
  }
  if (off) v = reshape(v, [...target.slice(0, off).map(() => 1), ...v.shape]);

  // Where the target's dims come from: the advanced result B at `at`, basic axes and newaxis around it.
  const advAxes = p.adv.flatMap((e) => e.axes);
  const basicOut = p.layout.filter((l) => l === 'new' || !advAxes.includes(l));
  const adv = p.adv.length > 0;
  const at = !adv ? 0 : p.adjacent ? p.layout.slice(0, p.layout.indexOf(advAxes[0]!)).filter((l) => l === 'new' || !advAxes.includes(l)).length : 0;
  const nB = target.length - basicOut.length;
  const bPos = Array.from({ length: nB }, (_, i) => at + i);
  const oPos = target.map((_, i) => i).filter((i) => i < at || i >= at + nB);
  v = transpose(v, [...bPos, ...oPos]);
  // The advanced part becomes one axis of length 1 (one value for all) or of the advanced result's size.
  const B = target.slice(at, at + nB);
  const vB = v.shape.slice(0, nB);
  let slot = 1;
  if (adv && vB.some((d) => d !== 1)) {
    if (B.some((d, i) => d !== vB[i] || Number.isNaN(d))) {
      // Broadcast v over B; where B's length is known only at run time, this also checks it then.
      const f = flatIndex(p);
      const all = reshape(equal(f, f), [...B.map((d) => (Number.isNaN(d) ? -1 : d)), ...oPos.map(() => 1)]);
      v = where(all, v, v);
    }
    slot = sizeOf(B);
  }
  // Basic part: drop newaxis dims, one axis per non-advanced axis of X (length 1 for an integer).
  const restAxes = X.shape.map((_, i) => i).filter((i) => !advAxes.includes(i));
  const vOther = v.shape.slice(nB);
  const restLen = restAxes.map((a) => { const j = basicOut.indexOf(a); return j < 0 ? 1 : vOther[j]!; });
  v = reshape(v, [...(adv ? [Number.isNaN(slot) ? -1 : slot] : []), ...restLen]);

  let hit: Tensor | undefined;
  const rankX = (t: Tensor, axes: readonly number[]) => reshape(t, X.shape.map((d, i) => (axes.includes(i) ? d : 1)));
  const iota = (n: number) => new Tensor(G.iota([n], 0));
  restAxes.forEach((ax, j) => {
    const a = p.axes[ax]!;
    const n = X.shape[ax]!;
    const sp = (adv ? 1 : 0) + j;
    let h: Tensor;
    if (a.kind === 'slice') {
      if (a.start === 0 && a.step === 1 && a.len === n) return;
      const d = iota(n).subtract(a.start);
      const qq = d.floor_divide(a.step);
      h = logical_and(equal(d.mod(a.step), 0), logical_and(qq.greater_equal(0), qq.less(a.len)));
      if (v.shape[sp] !== 1) v = take(v, where(h, qq, 0), { axis: sp });
    } else {
      h = equal(iota(n), (a as { i: number }).i);
    }
    hit = hit ? logical_and(hit, rankX(h, [ax])) : rankX(h, [ax]);
  });
  if (adv) {
    const [h, q] = advancedTargets(p);
    v = slot === 1 ? reshape(v, [...advAxes.map(() => 1), ...v.shape.slice(1)]) : take(v, q, { axis: 0 });
    hit = hit ? logical_and(hit, rankX(h, advAxes)) : rankX(h, advAxes);
    const from = [...advAxes, ...restAxes];
    v = transpose(v, X.shape.map((_, i) => from.indexOf(i)));
  }
  const out = hit ? where(hit, v, X) : broadcast_to(v, X.shape);
  return out.ndim === x.ndim ? out : reshape(out, x.shape);
}

/**
 * x[index] = value on an array whose shape the run will know (y = x[mask];
 * y[:3] = 0): a node built once x is computed, of x's shape and dtype; a
 * value that does not broadcast fails the run with NumPy's message.
 */
function setLater(x: Tensor, items: readonly Item[], value: Operand): Tensor {
  const tensors = [...items, value].filter((it): it is Tensor => it instanceof Tensor);
  const build = (ins: readonly Node[]): Node => {
    const ts = ins.map((n) => new Tensor(n));
    let k = 1;
    const swap = <T>(it: T): T | Tensor => (it instanceof Tensor ? ts[k++]! : it);
    const its = items.map(swap) as Item[];
    return setIndex(ts[0]!, its, swap(value) as Operand, true).node;
  };
  return new Tensor(G.defer('set', [x.node, ...tensors.map((t) => t.node)], build, x.dtype, [...x.shape]));
}

/**
 * Over the advanced axes of p.x (dims in order): whether an advanced result
 * element lands there, and which one (in C order of the result dims).
 */
function advancedTargets(p: Parsed): [Tensor, Tensor] {
  const X = p.x;
  const advAxes = p.adv.flatMap((e) => e.axes);
  const dims = advAxes.map((a) => X.shape[a]!);
  const onAxes = (t: Tensor, axes: readonly number[]) => reshape(t, advAxes.map((a, i) => (axes.includes(a) ? dims[i]! : 1)));
  const masks = p.adv.filter((e) => e.mask);
  if (masks.length === 1 && p.adv.every((e) => e.mask || e.scalar !== undefined)) {
    // A mask and integers: the k-th true element of the mask takes result element k (k = cumsum - 1).
    const m = masks[0]!;
    let hit = onAxes(m.mask!, m.axes);
    for (const e of p.adv) {
      if (e.scalar !== undefined) hit = logical_and(hit, onAxes(equal(new Tensor(G.iota([X.shape[e.axes[0]!]!], 0)), e.scalar), e.axes));
    }
    const k = cumsum(ravel(m.mask!)).subtract(1);
    return [hit, onAxes(reshape(where(k.less(0), 0, k), m.mask!.shape), m.axes)];
  }
  // Integer arrays: each position takes the last index entry that names it, as NumPy's
  // assignment in order leaves it (the inverse index, computed once the index is known).
  const q = new Tensor(G.invert(ravel(astype(flatIndex(p, true), 'int64')).node, sizeOf(dims)));
  return [reshape(q.greater_equal(0), dims), reshape(where(q.less(0), 0, q), dims)];
}

/** np.nonzero: one int64 index array per axis, of length known after execution. */
export function nonzero(x: Operand): Tensor[] {
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.');
  // the positions of an array whose lengths the run will know: counted once it does
  if (hasUnknown(t.shape)) return t.shape.map((_, ax) => deferred('nonzero', [t], ([u]) => nonzero(u!)[ax]!));
  // the flat positions (a chunked selection writes them from the mask alone), then each axis's coordinate of them
  const flat = flatnonzero(t);
  if (t.ndim === 1) return [flat];
  return t.shape.map((d, ax) => mod(floor_divide(flat, sizeOf(t.shape.slice(ax + 1))), d));
}
export const flatnonzero = (x: Operand): Tensor => {
  const t = ravel(toTensor(x));
  if (hasUnknown(t.shape)) return deferred('flatnonzero', [t], ([u]) => flatnonzero(u!));
  return new Tensor(G.compress(new Tensor(G.iota(t.shape, 0, t.node.chunk)).node, astype(t, 'bool').node, 0));
};
/** np.argwhere: [count, ndim] indices of the nonzero elements. */
export function argwhere(x: Operand): Tensor {
  const t = toTensor(x);
  // a 0-d array: one row of no coordinates if it is nonzero, none otherwise (NumPy's (1, 0) or (0, 0))
  if (t.ndim === 0) return new Tensor(G.compress(new Tensor(G.iota([1, 0], 0)).node, ravel(astype(t, 'bool')).node, 0));
  if (hasUnknown(t.shape)) return deferred('argwhere', [t], ([u]) => argwhere(u!));
  const coords = nonzero(t);
  return coords.length === 1 ? reshape(coords[0]!, [coords[0]!.shape[0]!, 1]) : stack(coords, { axis: 1 });
}
/** np.compress(condition, a, axis): the slices of a along axis where condition holds. */
export function compress(condition: Operand, a: Operand, ...args: unknown[]): Tensor {
  const o = kwargs<{ axis?: number | null }>('compress', args, ['axis', 'out']);
  let t = toTensor(a);
  if (o.axis === undefined || o.axis === null) t = ravel(t);
  const ax = o.axis === undefined || o.axis === null ? 0 : o.axis < 0 ? o.axis + t.ndim : o.axis;
  if (ax < 0 || ax >= t.ndim) throw new RangeError(`axis ${o.axis} is out of bounds for array of dimension ${t.ndim}`);
  let c = ravel(astype(toTensor(condition), 'bool'));
  // a condition shorter than the axis is padded with false: lengths compared once the run knows them
  if (hasUnknown(t.shape) || hasUnknown(c.shape)) return deferred('compress', [c, t], ([d, u]) => compress(d!, u!, { axis: ax }));
  const n = t.shape[ax]!;
  // NumPy allows a shorter condition (missing entries are false); a longer one must be false beyond n.
  if (c.size < n) c = new Tensor(G.concat([c.node, G.expand(G.constant(false, 'bool'), [n - c.size])], 0, 'bool'));
  else if (c.size > n) throw new RangeError(`condition of length ${c.size} is longer than axis ${ax} of length ${n}`);
  return new Tensor(G.compress(t.node, c.node, ax));
}
/** np.extract(condition, arr): the elements of ravel(arr) where ravel(condition) holds. */
export const extract = (condition: Operand, arr: Operand): Tensor => compress(ravel(toTensor(condition)), ravel(toTensor(arr)));
