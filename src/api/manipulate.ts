// Array manipulation that NumPy builds from views: split/array_split, tile,
// repeat, roll, pad, block, meshgrid, diag/diagonal. Each is a composition of
// graph views (slice, reshape, expand, concat, gather) and, for pad's
// statistics and ramps, the elementwise ops and reductions over them, so it
// fuses into its consumers and never copies unless a consumer needs the data
// stored. Functions follow NumPy's signatures; keyword arguments go in a
// trailing options object. Over a length known only at run time (a
// selection) each is built once the run knows it (`deferred`, `whenKnown`),
// and repeat's counts computed in the same run are computed first
// (`onValues`).

import { checkShape, hasUnknown, isUnknown, normalizeAxis, repr, shapeStr } from '../graph/shape.js';
import { runtime } from '../runtime/runtime.js';
import * as G from '../graph/node.js';
import { type DType, isFloat, isInteger } from '../graph/dtype.js';
import { isOptions, kwargs, need, trailingOpts } from './bind.js';
import {
  type Operand, Tensor, astype, broadcast_to, concatenate, deferred, deferredAll, expand_dims, flip, full, isTensor, linspace, max, mean, min,
  moveaxis, multiply, onValues, ravel, reshape, rint, squeeze, subtract, take, tensor, toTensor, where, whenKnown, whenKnownAll, zeros,
} from './core.js';

function sliceAxis(t: Tensor, axis: number, start: number, stop: number): Tensor {
  const starts = t.shape.map((_, i) => (i === axis ? start : 0));
  const steps = t.shape.map(() => 1);
  const shape = t.shape.map((d, i) => (i === axis ? Math.max(0, stop - start) : d));
  return new Tensor(G.slice(t.node, starts, steps, shape));
}

function checkInt(v: unknown, fn: string, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${fn}(): ${what} must be an integer, got ${repr(v)}`);
  return v;
}

/** np.array_split: `sections` pieces (the first ones one longer) or split points. */
export function array_split(x: Operand, ...args: unknown[]): Tensor[] {
  const o = kwargs<{ indices_or_sections?: number | readonly number[]; axis?: number }>('array_split', args, ['indices_or_sections', 'axis']);
  const sections = need<number | readonly number[]>('array_split', o, 'indices_or_sections');
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('array_split: cannot split a 0-d array');
  const axis = normalizeAxis(o.axis ?? 0, t.ndim);
  const n = t.shape[axis]!;
  if (typeof sections === 'number' && checkInt(sections, 'array_split', 'the number of sections') <= 0) throw new RangeError('number sections must be larger than 0.');
  // the bounds follow the axis length: the pieces are cut once the run knows it
  if (isUnknown(n)) return deferredAll('array_split', [t], typeof sections === 'number' ? sections : sections.length + 1, ([u]) => array_split(u!, sections, { axis }));
  let bounds: number[];
  if (typeof sections === 'number') {
    const k = sections;
    const each = Math.floor(n / k), extra = n % k;
    bounds = [0];
    for (let i = 0; i < k; i++) bounds.push(bounds[i]! + each + (i < extra ? 1 : 0));
  } else {
    // Split points clip to [0, n] after wrapping negatives, as Python slices do.
    const pts = [...sections].map((p) => {
      const v = checkInt(p, 'array_split', 'split indices');
      return Math.min(n, Math.max(0, v < 0 ? v + n : v));
    });
    bounds = [0, ...pts, n];
  }
  const out: Tensor[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) out.push(sliceAxis(t, axis, bounds[i]!, Math.max(bounds[i]!, bounds[i + 1]!)));
  return out;
}

/** np.split: like array_split, but a section count must divide the axis. */
export function split(x: Operand, ...args: unknown[]): Tensor[] {
  const o = kwargs<{ indices_or_sections?: number | readonly number[]; axis?: number }>('split', args, ['indices_or_sections', 'axis']);
  const sections = need<number | readonly number[]>('split', o, 'indices_or_sections');
  const t = toTensor(x);
  if (typeof sections === 'number' && t.ndim > 0) {
    const axis = normalizeAxis(o.axis ?? 0, t.ndim);
    const n = t.shape[axis]!;
    if (isUnknown(n) && Number.isInteger(sections) && sections > 0) {
      // k equal pieces of a length the run will know (and check divides): each built then (no
      // stand-in length probes this, as it must be divisible by k)
      return Array.from({ length: sections }, (_, i) => new Tensor(G.defer('split', [t.node], ([u]) => split(new Tensor(u!), sections, { axis })[i]!.node, t.dtype, t.shape)));
    }
    if (sections > 0 && n % sections !== 0) throw new RangeError('array split does not result in an equal division');
  }
  return array_split(t, sections, { axis: o.axis });
}

const sectionsOf = (fn: string, s: unknown): number | readonly number[] =>
  (isOptions(s) ? kwargs<{ indices_or_sections: number | number[] }>(fn, [s], ['indices_or_sections']).indices_or_sections : s as number | number[]);
export const hsplit = (x: Operand, s: number | readonly number[] | { indices_or_sections: number | number[] }): Tensor[] => {
  const t = toTensor(x);
  if (t.ndim === 0) throw new RangeError('hsplit only works on arrays of 1 or more dimensions');
  return split(t, sectionsOf('hsplit', s), { axis: t.ndim > 1 ? 1 : 0 });
};
export const vsplit = (x: Operand, s: number | readonly number[] | { indices_or_sections: number | number[] }): Tensor[] => {
  const t = toTensor(x);
  if (t.ndim < 2) throw new RangeError('vsplit only works on arrays of 2 or more dimensions');
  return split(t, sectionsOf('vsplit', s), { axis: 0 });
};

/** np.tile: repeats the whole array `reps` times along each axis. */
export function tile(x: Operand, ...args: unknown[]): Tensor {
  const reps = need<number | readonly number[]>('tile', kwargs('tile', args, ['reps']), 'reps');
  let t = toTensor(x);
  const r = checkShape(reps, 'reps');
  const later = whenKnown('tile', [t], (u) => tile(u, r));
  if (later) return later;
  const n = Math.max(t.ndim, r.length);
  const shape = [...Array(n - t.ndim).fill(1), ...t.shape] as number[];
  const rr = [...Array(n - r.length).fill(1), ...r] as number[];
  // [a, b] -> [1, a, 1, b] -> broadcast [ra, a, rb, b] -> [ra*a, rb*b]
  t = reshape(t, shape.flatMap((d) => [1, d]));
  t = broadcast_to(t, shape.flatMap((d, i) => [rr[i]!, d]));
  return reshape(t, shape.map((d, i) => d * rr[i]!));
}

/** The values of repeat counts as JS numbers (one for a 0-d tensor): JS data, or a tensor already computed; undefined for a tensor the run has yet to compute. */
function countsOf(r: unknown): number | readonly number[] | undefined {
  if (!isTensor(r)) return r as number | readonly number[];
  if (r.dtype !== 'bool' && !isInteger(r.dtype)) throw new TypeError(`Cannot cast array data from dtype('${r.dtype}') to dtype('int64') according to the rule 'safe'`);
  if (!runtime.has(r.node)) return undefined;
  const v = Array.from(runtime.values(r.node), Number);
  return r.ndim === 0 ? v[0]! : v;
}

/**
 * np.repeat: each element repeated `repeats` times (a number, or one count
 * per element). Counts the run has yet to compute (run lengths from a diff
 * of flatnonzero) set the result's length: the run computes them first and
 * builds the repeat over their values (`onValues`).
 */
export function repeat(x: Operand, ...args: unknown[]): Tensor {
  const o = kwargs<{ repeats?: number | readonly number[] | Tensor; axis?: number | null }>('repeat', args, ['repeats', 'axis']);
  if (o.repeats === undefined) throw new TypeError("repeat() missing required argument 'repeats'");
  const repeats = countsOf(o.repeats);
  let t = toTensor(x);
  // A 0-d array repeats as a 1-d one (NumPy accepts axis 0 and -1 for it).
  if (o.axis === undefined || o.axis === null || t.ndim === 0) t = ravel(t);
  const axis = normalizeAxis(o.axis ?? 0, t.ndim);
  const n = t.shape[axis]!;
  if (repeats === undefined) {
    const counts = o.repeats as Tensor;
    if (counts.ndim > 1) throw new RangeError('object too deep for desired array');
    const read = (v: number[]) => (counts.ndim === 0 ? v[0]! : v);
    return onValues('repeat', counts, [t], t.dtype, t.shape.map((d, i) => (i === axis ? NaN : d)), (v, [u]) => repeat(u!, read(v), { axis }));
  }
  if (isUnknown(n)) {
    // the length the run will know: a count per element must match it, one count for all repeats it
    const one = typeof repeats === 'number' || repeats.length === 1;
    const len = one ? NaN : repeats.reduce((p, c) => p + checkInt(c, 'repeat', 'repeats'), 0);
    return new Tensor(G.defer('repeat', [t.node], ([u]) => repeat(new Tensor(u!), repeats, { axis }).node, t.dtype, t.shape.map((d, i) => (i === axis ? len : d))));
  }
  if (hasUnknown(t.shape)) return deferred('repeat', [t], ([u]) => repeat(u!, repeats, { axis }));
  if (typeof repeats === 'number' || (repeats.length === 1 && n !== 1)) {
    const k = checkInt(typeof repeats === 'number' ? repeats : repeats[0], 'repeat', 'repeats');
    if (k < 0) throw new RangeError('repeat(): negative dimensions are not allowed');
    const s1 = [...t.shape.slice(0, axis + 1), 1, ...t.shape.slice(axis + 1)];
    const s2 = [...t.shape.slice(0, axis + 1), k, ...t.shape.slice(axis + 1)];
    const out = t.shape.map((d, i) => (i === axis ? d * k : d));
    return reshape(broadcast_to(reshape(t, s1), s2), out);
  }
  if (repeats.length !== n) throw new RangeError(`operands could not be broadcast together with shape (${n},) (${repeats.length},)`);
  const idx: number[] = [];
  repeats.forEach((c, i) => {
    const k = checkInt(c, 'repeat', 'repeats');
    if (k < 0) throw new RangeError('repeat(): negative dimensions are not allowed');
    for (let j = 0; j < k; j++) idx.push(i);
  });
  return take(t, tensor(BigInt64Array.from(idx, BigInt)), { axis });
}

/** np.roll: elements shifted along axes, wrapping around; no axis rolls the flattened array. */
export function roll(x: Operand, ...args: unknown[]): Tensor {
  const o = kwargs<{ shift?: number | readonly number[]; axis?: number | readonly number[] | null }>('roll', args, ['shift', 'axis']);
  const shift = need<number | readonly number[]>('roll', o, 'shift');
  const t = toTensor(x);
  // the shift wraps at the length: cut once the run knows it
  const later = whenKnown('roll', [t], (u) => roll(u, shift, { axis: o.axis ?? null }));
  if (later) return later;
  if (o.axis === undefined || o.axis === null) {
    // The flattened array, rolled by the shifts added up (NumPy's broadcast of shifts over the one axis).
    const total = typeof shift === 'number' ? shift : [...shift].reduce((a: number, b) => a + checkInt(b, 'roll', 'shift'), 0);
    return reshape(roll(ravel(t), total, { axis: 0 }), t.shape);
  }
  const axes = typeof o.axis === 'number' ? [o.axis] : [...o.axis];
  const shifts = typeof shift === 'number' ? axes.map(() => shift) : [...shift];
  if (shifts.length !== axes.length) {
    if (shifts.length === 1) while (shifts.length < axes.length) shifts.push(shifts[0]!);
    else if (axes.length === 1) while (axes.length < shifts.length) axes.push(axes[0]!);
    else throw new RangeError("roll(): 'shift' and 'axis' should be scalars or 1D sequences of the same length");
  }
  // Shifts on the same axis add up, as NumPy's do.
  const total = new Map<number, number>();
  axes.forEach((a, i) => {
    const ax = normalizeAxis(a, t.ndim);
    total.set(ax, (total.get(ax) ?? 0) + checkInt(shifts[i], 'roll', 'shift'));
  });
  let r = t;
  for (const [ax, s] of total) {
    const n = r.shape[ax]!;
    if (n === 0) continue;
    const k = ((s % n) + n) % n;
    if (k === 0) continue;
    r = concatenate([sliceAxis(r, ax, n - k, n), sliceAxis(r, ax, 0, n - k)], { axis: ax });
  }
  return r;
}

const PAD_MODES = ['constant', 'edge', 'linear_ramp', 'maximum', 'mean', 'median', 'minimum', 'reflect', 'symmetric', 'wrap', 'empty'] as const;
type PadMode = (typeof PAD_MODES)[number];
type StatMode = 'maximum' | 'mean' | 'median' | 'minimum';
type Scalar = number | boolean;

/** The keywords each mode reads (NumPy's allowed_kwargs): any other one is an error. */
const PAD_KWARGS: { readonly [M in PadMode]: readonly string[] } = {
  constant: ['constant_values'], edge: [], linear_ramp: ['end_values'], maximum: ['stat_length'], mean: ['stat_length'],
  median: ['stat_length'], minimum: ['stat_length'], reflect: ['reflect_type'], symmetric: ['reflect_type'], wrap: [], empty: [],
};

/**
 * NumPy's _as_pairs: a scalar, [v], [before, after] or one pair per axis,
 * as `ndim` [before, after] pairs.
 */
function asPairs<T>(v: unknown, ndim: number, what: string, item: (x: unknown) => T): [T, T][] {
  if (!Array.isArray(v)) return Array.from({ length: ndim }, () => [item(v), item(v)]);
  const nested = v.some(Array.isArray);
  if (!nested) {
    if (v.length === 1) return Array.from({ length: ndim }, () => [item(v[0]), item(v[0])]);
    if (v.length === 2) return Array.from({ length: ndim }, () => [item(v[0]), item(v[1])]);
  } else {
    const rows = v as unknown[];
    if (rows.every((r) => Array.isArray(r) && (r.length === 1 || r.length === 2)) && (rows.length === 1 || rows.length === ndim)) {
      return Array.from({ length: ndim }, (_, i) => {
        const r = rows[rows.length === 1 ? 0 : i] as unknown[];
        return [item(r[0]), item(r[r.length - 1])];
      });
    }
  }
  throw new RangeError(`operands could not be broadcast together with remapped shapes: ${what} ${JSON.stringify(v)} does not fit an array of ${ndim} dimension${ndim === 1 ? '' : 's'} (give one value, a (before, after) pair, or one pair per axis)`);
}

const scalarItem = (what: string) => (v: unknown): Scalar => {
  if (typeof v !== 'number' && typeof v !== 'boolean') throw new TypeError(`pad(): ${what} must be numbers or booleans, got ${repr(v)}`);
  return v;
};

/** np.round's half-to-even, as NumPy's _as_pairs(as_index=True) rounds a stat_length. */
function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** stat_length as [before, after] counts per axis; null (NumPy's None, the default) reads the whole axis. */
function statLengths(v: unknown, ndim: number): [number | null, number | null][] {
  if (v === undefined || v === null) return Array.from({ length: ndim }, () => [null, null]);
  return asPairs(v, ndim, 'stat_length', (x) => {
    if (typeof x === 'boolean') return Number(x);
    if (typeof x !== 'number') throw new TypeError(`pad(): stat_length must be integers (or None for the whole axis), got ${x === null ? 'null inside a list' : typeof x}`);
    // NaN and the infinities cast to the most negative intp in NumPy
    const k = Number.isFinite(x) ? roundHalfEven(x) : -1;
    if (k < 0) throw new RangeError("index can't contain negative values");
    return k;
  });
}

/** Where padded position p (of -before .. n + after - 1) reads from along an axis of length n. */
function padSource(mode: 'edge' | 'wrap' | 'reflect' | 'symmetric', p: number, n: number): number {
  const mod = (a: number, m: number) => ((a % m) + m) % m;
  switch (mode) {
    case 'edge': return Math.min(Math.max(p, 0), n - 1);
    case 'wrap': return mod(p, n);
    case 'symmetric': { const q = mod(p, 2 * n); return q < n ? q : 2 * n - 1 - q; }
    case 'reflect': { if (n === 1) return 0; const q = mod(p, 2 * n - 2); return q < n ? q : 2 * n - 2 - q; }
  }
}

/** The padded axis as one take: each position reads its source (padSource). */
function padTake(r: Tensor, axis: number, before: number, after: number, mode: 'edge' | 'wrap' | 'reflect' | 'symmetric'): Tensor {
  const n = r.shape[axis]!;
  const idx = Array.from({ length: before + n + after }, (_, p) => BigInt(padSource(mode, p - before, n)));
  return take(r, tensor(BigInt64Array.from(idx)), { axis });
}

/** A block of `len` along `axis` filled with v, cast to the array's dtype as NumPy casts it (unsafely: 1.5 into an int32 array is 1, -1 into uint8 is 255). */
function constantBlock(r: Tensor, axis: number, len: number, v: Scalar): Tensor {
  const shape = r.shape.map((d, i) => (i === axis ? len : d));
  if (typeof v === 'boolean' || r.dtype.startsWith('float')) return full(shape, v, { dtype: r.dtype });
  return astype(full(shape, v, { dtype: Number.isInteger(v) ? 'int64' : 'float64' }), r.dtype);
}

/** `before` and `after` (either may be absent) around r along `axis`. */
const around = (r: Tensor, axis: number, before: Tensor | null, after: Tensor | null): Tensor =>
  concatenate([...(before ? [before] : []), r, ...(after ? [after] : [])], { axis });

/**
 * reflect_type='odd' as NumPy's _set_reflect_both loop computes it: each pass
 * mirrors the part filled so far (cut to whole periods of the original axis)
 * about its outer edge as 2 * edge - value, in the array's dtype (a bool
 * array through int64), so a pad wider than the axis keeps extrapolating.
 * The filled part about triples each pass: a few passes for any width.
 */
function reflectOdd(r: Tensor, axis: number, before: number, after: number, symmetric: boolean): Tensor {
  const period = r.shape[axis]!;
  const offset = symmetric ? 1 : 0; // symmetric mirrors the edge value too
  let cur = r, left = before, right = after;
  const mirror = (edge: number, idx: number[]): Tensor => {
    const chunk = take(cur, tensor(BigInt64Array.from(idx, BigInt)), { axis });
    return astype(subtract(multiply(sliceAxis(cur, axis, edge, edge + 1), 2), chunk), r.dtype);
  };
  while (left > 0 || right > 0) {
    const filled = cur.shape[axis]!;
    const old = symmetric ? Math.floor(filled / period) * period : Math.floor((filled - 1) / (period - 1)) * (period - 1);
    if (left > 0) {
      const k = Math.min(old, left);
      cur = around(cur, axis, mirror(0, Array.from({ length: k }, (_, j) => k - offset - j)), null);
      left -= k;
    }
    if (right > 0) {
      const m = cur.shape[axis]!, k = Math.min(old, right);
      cur = around(cur, axis, null, mirror(m - 1, Array.from({ length: k }, (_, j) => m + offset - 2 - j)));
      right -= k;
    }
  }
  return cur;
}

/** NumPy's median spec for numerics/quantile.ts (the mean of the middle values; NaN for none). */
const MEDIAN = { method: 'median', qs: [], qShape: [], qKind: 'weak-float' } as const;

/** Each statistic over `axis`, kept as an axis of length 1 (NumPy's stat_func with keepdims). */
const STATS: { readonly [M in StatMode]: (part: Tensor, axis: number) => Tensor } = {
  maximum: (part, axis) => max(part, { axis, keepdims: true }),
  minimum: (part, axis) => min(part, { axis, keepdims: true }),
  mean: (part, axis) => mean(part, { axis, keepdims: true }),
  median: (part, axis) => expand_dims(new Tensor(G.quantile(moveaxis(part, axis, -1).node, MEDIAN)), axis),
};

/**
 * A statistic as NumPy's _get_stats leaves it: rounded half to even for an
 * integer array (a mean or median is float64), then cast to the array's
 * dtype (a bool array's mean is True where nonzero).
 */
function statOf(mode: StatMode, part: Tensor, axis: number, dtype: DType): Tensor {
  const s = STATS[mode](part, axis);
  return astype(isInteger(dtype) && isFloat(s.dtype) ? rint(s) : s, dtype);
}

/** Axes padded one after another, so each pads the result of the ones before it (corners come from the last axis). */
const padAxes = (t: Tensor, pairs: [number, number][], f: (r: Tensor, axis: number, before: number, after: number) => Tensor): Tensor =>
  pairs.reduce((r, [b, a], axis) => (b || a ? f(r, axis, b, a) : r), t);

/**
 * np.pad(array, pad_width, mode='constant', **kwargs) with every mode of
 * NumPy 2 but a function: 'constant' (constant_values), 'edge', 'linear_ramp'
 * (end_values), 'maximum', 'mean', 'median', 'minimum' (stat_length),
 * 'reflect' and 'symmetric' (reflect_type 'even' or 'odd'), 'wrap', and
 * 'empty' (which pads with zeros). Axes are padded in order, so corners come
 * from the last axis, as NumPy's; a pad wider than the axis reflects or wraps
 * again and again. Built from concatenations of constants, statistics, ramps
 * and takes along each axis: nothing is read back.
 */
export function pad(x: Operand, ...args: unknown[]): Tensor {
  // NumPy's pad takes **kwargs and names those the mode does not read: only pad_width and mode bind here
  const [pos, kw] = trailingOpts<Record<string, unknown>>(args);
  const { pad_width: pw, mode: md, ...rest } = kw;
  const named = Object.fromEntries(Object.entries({ pad_width: pw, mode: md }).filter(([, v]) => v !== undefined));
  const o = kwargs<{ pad_width?: unknown; mode?: unknown }>('pad', [...pos, named], ['pad_width', 'mode']);
  const width = need<unknown>('pad', o, 'pad_width');
  const t = toTensor(x);
  // an array whose length the run will know is padded once it does
  if (hasUnknown(t.shape)) return deferred('pad', [t], ([u]) => pad(u!, ...args));
  const pairs = asPairs(width, t.ndim, 'pad_width', (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError('`pad_width` must be of integral type.');
    if (v < 0) throw new RangeError("index can't contain negative values");
    return v;
  });
  const mode = o.mode ?? 'constant';
  if (typeof mode === 'function') throw new TypeError('pad(): a function as mode is not supported (NumPy calls it to write each padded vector in place)');
  if (!(PAD_MODES as readonly unknown[]).includes(mode)) throw new RangeError(`mode '${String(mode)}' is not supported`);
  const m = mode as PadMode;
  const extra = Object.keys(rest).filter((k) => rest[k] !== undefined && !PAD_KWARGS[m].includes(k));
  if (extra.length) throw new RangeError(`unsupported keyword arguments for mode '${m}': {${extra.map((k) => `'${k}'`).join(', ')}}`);

  if (m === 'constant' || m === 'empty') {
    // null is NumPy's None: an error there too
    const v = m === 'empty' ? 0 : rest.constant_values === undefined ? 0 : rest.constant_values;
    const values = asPairs(v, t.ndim, 'constant_values', scalarItem('constant_values'));
    return padAxes(t, pairs, (r, axis, b, a) => {
      const [vb, va] = values[axis]!;
      return around(r, axis, b ? constantBlock(r, axis, b, vb) : null, a ? constantBlock(r, axis, a, va) : null);
    });
  }
  if (t.size === 0) {
    // NumPy reads no other keyword here: the result is empty unless an empty axis is padded
    pairs.forEach(([b, a], axis) => {
      if (t.shape[axis] === 0 && (b || a)) throw new RangeError(`can't extend empty axis ${axis} using modes other than 'constant' or 'empty'`);
    });
    return zeros(pairs.map(([b, a], i) => b + t.shape[i]! + a), { dtype: t.dtype });
  }
  switch (m) {
    case 'edge': case 'wrap':
      return padAxes(t, pairs, (r, axis, b, a) => padTake(r, axis, b, a, m));
    case 'reflect': case 'symmetric': {
      // NumPy reads any reflect_type but 'odd' as 'even'; a length-1 axis repeats its value either way
      const odd = rest.reflect_type === 'odd';
      return padAxes(t, pairs, (r, axis, b, a) => (odd && r.shape[axis]! > 1 ? reflectOdd(r, axis, b, a, m === 'symmetric') : padTake(r, axis, b, a, m)));
    }
    case 'linear_ramp': {
      const v = rest.end_values === undefined ? 0 : rest.end_values;
      const ends = asPairs(v, t.ndim, 'end_values', scalarItem('end_values'));
      // NumPy's _as_pairs hands on one value or one pair as NumPy scalars (float64, or bool when all are)
      // but per-axis pairs as Python numbers (weak): that sets the dtype linspace computes in
      const weak = Array.isArray(v) && v.length > 1 && v.some(Array.isArray);
      const strongType = ends.flat().every((e) => typeof e === 'boolean') ? 'bool' : 'float64';
      const ramp = (r: Tensor, axis: number, edge: number, end: Scalar, len: number): Tensor =>
        linspace(weak ? end : full([], end, { dtype: strongType }), squeeze(sliceAxis(r, axis, edge, edge + 1), axis), len, { endpoint: false, dtype: r.dtype, axis });
      return padAxes(t, pairs, (r, axis, b, a) => {
        const n = r.shape[axis]!, [eb, ea] = ends[axis]!;
        return around(r, axis, b ? ramp(r, axis, 0, eb, b) : null, a ? flip(ramp(r, axis, n - 1, ea, a), axis) : null);
      });
    }
    case 'maximum': case 'mean': case 'median': case 'minimum': {
      // stat_length clipped to the axis; NumPy measures every axis, padded or not, and has no max or min of nothing
      const lengths = statLengths(rest.stat_length, t.ndim).map((pair, i) => pair.map((l) => Math.min(l ?? t.shape[i]!, t.shape[i]!)) as [number, number]);
      if ((m === 'maximum' || m === 'minimum') && lengths.some(([lb, la]) => lb === 0 || la === 0)) throw new RangeError('stat_length of 0 yields no value for padding');
      return padAxes(t, pairs, (r, axis, b, a) => {
        const n = r.shape[axis]!, [lb, la] = lengths[axis]!;
        const sb = statOf(m, sliceAxis(r, axis, 0, lb), axis, r.dtype);
        // both read the whole axis: one statistic for both sides, as NumPy's
        const sa = lb === n && la === n ? sb : statOf(m, sliceAxis(r, axis, n - la, n), axis, r.dtype);
        const side = (s: Tensor, len: number): Tensor => broadcast_to(s, r.shape.map((d, i) => (i === axis ? len : d)));
        return around(r, axis, b ? side(sb, b) : null, a ? side(sa, a) : null);
      });
    }
  }
}

/** np.block's nesting: lists of lists of blocks, a block being a tensor, a typed array or a scalar. */
export type BlockList = Tensor | number | boolean | ArrayBufferView | readonly BlockList[];

const blockIndex = (index: readonly (number | null)[]): string => `arrays${index.filter((i) => i !== null).map((i) => `[${i}]`).join('')}`;

/**
 * NumPy's _block_check_depths_match: the index of one block at the bottom of
 * the nesting (ending in null when that is an empty list, which is an
 * error) and the largest ndim of the blocks; lists whose blocks sit at
 * different depths are an error naming the first one that differs.
 */
function blockDepths(arrays: unknown, index: (number | null)[]): [(number | null)[], number] {
  if (Array.isArray(arrays)) {
    if (arrays.length === 0) return [[...index, null], 0];
    let [first, ndim] = blockDepths(arrays[0], [...index, 0]);
    for (let i = 1; i < arrays.length; i++) {
      const [at, d] = blockDepths(arrays[i], [...index, i]);
      ndim = Math.max(ndim, d);
      if (at.length !== first.length) {
        throw new RangeError(`List depths are mismatched. First element was at depth ${first.length}, but there is an element at depth ${at.length} (${blockIndex(at)})`);
      }
      if (at[at.length - 1] === null) first = at;
    }
    return [first, ndim];
  }
  if (isTensor(arrays)) return [index, arrays.ndim];
  if (typeof arrays === 'number' || typeof arrays === 'boolean') return [index, 0];
  if (ArrayBuffer.isView(arrays)) return [index, 1];
  throw new TypeError(`block(): ${blockIndex(index)} is ${arrays === null ? 'null' : typeof arrays}, not an array, a scalar or a list of them`);
}

/**
 * np.block(arrays): blocks in the innermost lists joined along the last
 * axis, those results along the second-last, and so on outwards. A JS array
 * is always a level of nesting (as a Python list is to NumPy); each block
 * gains leading axes of length 1 up to the larger of the deepest nesting and
 * the largest block ndim, and the blocks' dtypes promote as concatenate's do
 * (a JS number is an int64 or float64 block, as np.array(scalar) is).
 */
export function block(arrays: BlockList): Tensor {
  const [bottom, arrNdim] = blockDepths(arrays, []);
  if (bottom.length && bottom[bottom.length - 1] === null) throw new RangeError(`List at ${blockIndex(bottom)} cannot be empty`);
  const depth = bottom.length, ndim = Math.max(arrNdim, depth);
  const build = (a: unknown, level: number): Tensor => {
    if (level < depth) return concatenate((a as unknown[]).map((x) => build(x, level + 1)), { axis: level - depth });
    const t = toTensor(a as Operand);
    return t.ndim < ndim ? reshape(t, [...Array<number>(ndim - t.ndim).fill(1), ...t.shape]) : t;
  };
  return build(arrays, 0);
}

/** np.meshgrid(x1, x2, ..., { indexing: 'xy' | 'ij', sparse }). */
export function meshgrid(...args: (Operand | { indexing?: 'xy' | 'ij'; sparse?: boolean })[]): Tensor[] {
  const [xs, o] = trailingOpts<{ indexing?: 'xy' | 'ij'; sparse?: boolean; copy?: boolean }>(args);
  kwargs('meshgrid', [o], [], ['indexing', 'sparse', 'copy']);
  const indexing = o.indexing ?? 'xy';
  if (indexing !== 'xy' && indexing !== 'ij') throw new RangeError("Valid values for `indexing` are 'xy' and 'ij'.");
  const later = whenKnownAll('meshgrid', [xs as Operand[], o], xs.length, (ys, p) => meshgrid(...ys, p));
  if (later) return later;
  const vs = xs.map((x) => ravel(toTensor(x as Operand)));
  const n = vs.length;
  const lens = vs.map((v) => v.size);
  const shape = [...lens];
  if (indexing === 'xy' && n > 1) [shape[0], shape[1]] = [shape[1]!, shape[0]!];
  return vs.map((v, i) => {
    let pos = i;
    if (indexing === 'xy' && n > 1 && i < 2) pos = 1 - i;
    const s = shape.map((_, j) => (j === pos ? lens[i]! : 1));
    const r = reshape(v, s);
    return o.sparse ? r : broadcast_to(r, shape);
  });
}

/** np.diagonal(x, offset, axis1, axis2): the diagonal moves to the last axis. */
type DiagOpts = { offset?: number; axis1?: number; axis2?: number };
export function diagonal(x: Operand, ...args: (number | DiagOpts | undefined)[]): Tensor {
  const [pos, kw] = trailingOpts<DiagOpts>(args);
  const o: DiagOpts = { ...kw };
  (['offset', 'axis1', 'axis2'] as const).forEach((k, i) => { if (pos[i] !== undefined) o[k] = pos[i] as number; });
  const t = toTensor(x);
  if (t.ndim < 2) throw new RangeError('diag requires an array of at least two dimensions');
  const a1 = normalizeAxis(o.axis1 ?? 0, t.ndim), a2 = normalizeAxis(o.axis2 ?? 1, t.ndim);
  if (a1 === a2) throw new RangeError('axis1 and axis2 cannot be the same');
  const k = checkInt(o.offset ?? 0, 'diagonal', 'offset');
  const later = whenKnown('diagonal', [t], (u) => diagonal(u, { offset: k, axis1: a1, axis2: a2 }));
  if (later) return later;
  const rest = t.shape.map((_, i) => i).filter((i) => i !== a1 && i !== a2);
  const moved = new Tensor(G.permute(t.node, [...rest, a1, a2]));
  const [n, m] = [t.shape[a1]!, t.shape[a2]!];
  const len = Math.max(0, Math.min(n - Math.max(0, -k), m - Math.max(0, k)));
  const flat = reshape(moved, [...rest.map((i) => t.shape[i]!), n * m]);
  const idx = Array.from({ length: len }, (_, i) => BigInt((i + Math.max(0, -k)) * m + i + Math.max(0, k)));
  return take(flat, tensor(BigInt64Array.from(idx)), { axis: rest.length });
}

/** np.diag: a 1-d input becomes a matrix with it on diagonal k; a 2-d input gives its diagonal k. */
export function diag(x: Operand, ...args: unknown[]): Tensor {
  const t = toTensor(x);
  const kk = checkInt(kwargs<{ k?: number }>('diag', args, ['k']).k ?? 0, 'diag', 'k');
  if (t.ndim === 2) return diagonal(t, { offset: kk });
  if (t.ndim !== 1) throw new RangeError(`Input must be 1- or 2-d, got shape ${shapeStr(t.shape)}`);
  const later = whenKnown('diag', [t], (u) => diag(u, kk));
  if (later) return later;
  const n = t.size + Math.abs(kk);
  const pad = kk === 0 ? t : concatenate([t, zeros([Math.abs(kk)], { dtype: t.dtype })]);
  // out[i, j] = v[i] on j - i == k (k >= 0), v[j] on i - j == -k (k < 0)
  const diff = new Tensor(G.binary('subtract', G.iota([n, n], 1), G.iota([n, n], 0), 'int64'));
  const mask = diff.equal(kk);
  const vals = kk >= 0 ? reshape(pad, [n, 1]) : reshape(pad, [1, n]);
  return where(mask, vals, zeros([], { dtype: t.dtype }));
}
