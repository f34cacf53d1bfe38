// Array manipulation that NumPy builds from views: split/array_split, tile,
// repeat, roll, pad, meshgrid, diag/diagonal. Each is a composition of graph views
// (slice, reshape, expand, concat, gather), so it fuses into its consumers
// and never copies unless a consumer needs the data stored. Functions follow
// NumPy's signatures; keyword arguments go in a trailing options object.

import { checkShape, normalizeAxis, shapeStr } from '../graph/shape.js';
import * as G from '../graph/node.js';
import { isInteger } from '../graph/dtype.js';
import { type Operand, Tensor, astype, broadcast_to, concatenate, full, isOptions, isTensor, kwargs, need, ravel, reshape, take, tensor, toTensor, trailingOpts, valuesNow, where, zeros } from './tensor.js';

function sliceAxis(t: Tensor, axis: number, start: number, stop: number): Tensor {
  const starts = t.shape.map((_, i) => (i === axis ? start : 0));
  const steps = t.shape.map(() => 1);
  const shape = t.shape.map((d, i) => (i === axis ? Math.max(0, stop - start) : d));
  return new Tensor(G.slice(t.node, starts, steps, shape));
}

function checkInt(v: unknown, fn: string, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${fn}(): ${what} must be an integer, got ${String(v)}`);
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
  let bounds: number[];
  if (typeof sections === 'number') {
    const k = checkInt(sections, 'array_split', 'the number of sections');
    if (k <= 0) throw new RangeError('number sections must be larger than 0.');
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
    const n = t.shape[normalizeAxis(o.axis ?? 0, t.ndim)]!;
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
  const n = Math.max(t.ndim, r.length);
  const shape = [...Array(n - t.ndim).fill(1), ...t.shape] as number[];
  const rr = [...Array(n - r.length).fill(1), ...r] as number[];
  // [a, b] -> [1, a, 1, b] -> broadcast [ra, a, rb, b] -> [ra*a, rb*b]
  t = reshape(t, shape.flatMap((d) => [1, d]));
  t = broadcast_to(t, shape.flatMap((d, i) => [rr[i]!, d]));
  return reshape(t, shape.map((d, i) => d * rr[i]!));
}

/**
 * Repeat counts as JS values. Counts in a tensor set the output's length, so
 * they must be known when the line runs: data given as a tensor of JS values,
 * or a tensor already computed.
 */
function countsOf(r: unknown): number | readonly number[] {
  if (!isTensor(r)) return r as number | readonly number[];
  if (r.dtype !== 'bool' && !isInteger(r.dtype)) throw new TypeError(`Cannot cast array data from dtype('${r.dtype}') to dtype('int64') according to the rule 'safe'`);
  const v = valuesNow('repeat', r, 'counts', 'they set the length of the result');
  return r.ndim === 0 ? v[0]! : v;
}

/** np.repeat: each element repeated `repeats` times (a number, or one count per element). */
export function repeat(x: Operand, ...args: unknown[]): Tensor {
  const o = kwargs<{ repeats?: number | readonly number[]; axis?: number | null }>('repeat', args, ['repeats', 'axis']);
  if (o.repeats === undefined) throw new TypeError("repeat() missing required argument 'repeats'");
  const repeats = countsOf(o.repeats);
  let t = toTensor(x);
  // A 0-d array repeats as a 1-d one (NumPy accepts axis 0 and -1 for it).
  if (o.axis === undefined || o.axis === null || t.ndim === 0) t = ravel(t);
  const axis = normalizeAxis(o.axis ?? 0, t.ndim);
  const n = t.shape[axis]!;
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

const PAD_MODES = ['constant', 'edge', 'reflect', 'symmetric', 'wrap', 'empty'] as const;
type PadMode = (typeof PAD_MODES)[number];

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

/** Where padded position p (of -before .. n + after - 1) reads from along an axis of length n. */
function padSource(mode: Exclude<PadMode, 'constant' | 'empty'>, p: number, n: number): number {
  const mod = (a: number, m: number) => ((a % m) + m) % m;
  switch (mode) {
    case 'edge': return Math.min(Math.max(p, 0), n - 1);
    case 'wrap': return mod(p, n);
    case 'symmetric': { const q = mod(p, 2 * n); return q < n ? q : 2 * n - 1 - q; }
    case 'reflect': { if (n === 1) return 0; const q = mod(p, 2 * n - 2); return q < n ? q : 2 * n - 2 - q; }
  }
}

/**
 * np.pad(array, pad_width, mode='constant', constant_values=0): modes
 * 'constant', 'edge', 'reflect', 'symmetric', 'wrap' (and 'empty', which pads
 * with zeros). Axes are padded in order, so corners come from the last axis,
 * as NumPy's; a pad wider than the axis reflects or wraps again and again.
 * Built from concatenations of constants and takes along each axis.
 */
export function pad(x: Operand, ...args: unknown[]): Tensor {
  const o = kwargs<{ pad_width?: unknown; mode?: string; constant_values?: unknown; reflect_type?: string }>('pad', args, ['pad_width', 'mode'], ['constant_values', 'reflect_type']);
  const width = need<unknown>('pad', o, 'pad_width');
  const t = toTensor(x);
  const mode = (o.mode ?? 'constant') as PadMode;
  if (!PAD_MODES.includes(mode)) throw new RangeError(`mode '${String(o.mode)}' is not supported (Tessera's pad has ${PAD_MODES.map((m) => `'${m}'`).join(', ')})`);
  if (o.constant_values !== undefined && mode !== 'constant') throw new TypeError(`unsupported keyword arguments for mode '${mode}': {'constant_values'}`);
  if (o.reflect_type !== undefined) {
    if (mode !== 'reflect' && mode !== 'symmetric') throw new TypeError(`unsupported keyword arguments for mode '${mode}': {'reflect_type'}`);
    if (o.reflect_type !== 'even') throw new RangeError(`reflect_type '${String(o.reflect_type)}' is not supported (only 'even', NumPy's default)`);
  }
  const pairs = asPairs(width, t.ndim, 'pad_width', (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError('`pad_width` must be of integral type.');
    if (v < 0) throw new RangeError("index can't contain negative values");
    return v;
  });
  const values = mode === 'constant'
    ? asPairs(o.constant_values ?? 0, t.ndim, 'constant_values', (v) => {
      if (typeof v !== 'number' && typeof v !== 'boolean') throw new TypeError(`pad(): constant_values must be numbers or booleans, got ${v === null ? 'null' : typeof v}`);
      return v;
    })
    : undefined;
  let r = t;
  pairs.forEach(([before, after], axis) => {
    if (before === 0 && after === 0) return;
    const n = r.shape[axis]!;
    if (mode === 'constant' || mode === 'empty') {
      const [vb, va] = values?.[axis] ?? [0, 0];
      // the value cast to the array's dtype as NumPy casts it (unsafely: 1.5 into an int32 array is 1, -1 into uint8 is 255)
      const block = (len: number, v: number | boolean) => {
        const shape = r.shape.map((d, i) => (i === axis ? len : d));
        if (typeof v === 'boolean' || r.dtype.startsWith('float')) return full(shape, v, { dtype: r.dtype });
        return astype(full(shape, v, { dtype: Number.isInteger(v) ? 'int64' : 'float64' }), r.dtype);
      };
      r = concatenate([...(before ? [block(before, vb)] : []), r, ...(after ? [block(after, va)] : [])], { axis });
      return;
    }
    if (n === 0) throw new RangeError(`can't extend empty axis ${axis} using modes other than 'constant' or 'empty'`);
    const idx = Array.from({ length: before + n + after }, (_, p) => BigInt(padSource(mode, p - before, n)));
    r = take(r, tensor(BigInt64Array.from(idx)), { axis });
  });
  return r;
}

/** np.meshgrid(x1, x2, ..., { indexing: 'xy' | 'ij', sparse }). */
export function meshgrid(...args: (Operand | { indexing?: 'xy' | 'ij'; sparse?: boolean })[]): Tensor[] {
  const [xs, o] = trailingOpts<{ indexing?: 'xy' | 'ij'; sparse?: boolean; copy?: boolean }>(args);
  kwargs('meshgrid', [o], [], ['indexing', 'sparse', 'copy']);
  const indexing = o.indexing ?? 'xy';
  if (indexing !== 'xy' && indexing !== 'ij') throw new RangeError("Valid values for `indexing` are 'xy' and 'ij'.");
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
  const n = t.size + Math.abs(kk);
  const pad = kk === 0 ? t : concatenate([t, zeros([Math.abs(kk)], { dtype: t.dtype })]);
  // out[i, j] = v[i] on j - i == k (k >= 0), v[j] on i - j == -k (k < 0)
  const diff = new Tensor(G.binary('subtract', G.iota([n, n], 1), G.iota([n, n], 0), 'int64'));
  const mask = diff.equal(kk);
  const vals = kk >= 0 ? reshape(pad, [n, 1]) : reshape(pad, [1, n]);
  return where(mask, vals, zeros([], { dtype: t.dtype }));
}
