// Array-manipulation programs as a NumPy user writes them (boolean masks and
// masked assignment, fancy indexing, where, sorting and top-k, unique,
// joining and splitting, tile/repeat/roll/flip/rot90, meshgrid, triangles and
// diagonals, one-hot codes, slicing, reshape chains, broadcasting, run
// lengths, sliding windows, uint8/int8 arithmetic, promotion with Python
// scalars, casts, isin, searchsorted, assignment with repeated indices),
// translated line for line to Tessera (x[...] as x.get/x.set, keywords as a
// trailing options object, an await to read). The inputs and NumPy 2's
// results come from test/fixtures/programs_arrays.json, written by
// test/fixtures/gen_programs_arrays.py; programs listing `chunks` there run a
// second time with inputs tiled that small, to check results do not depend on
// the tiling.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

interface Enc { tensor: unknown; shape: number[]; dtype: string }
interface Out { shape: number[]; dtype: string; data: (number | boolean | string)[] }
interface Program {
  name: string;
  inputs: Record<string, Enc>;
  chunks?: number[];
  outputs?: Record<string, Out>;
  error?: { type: string; message: string };
}
type T = mt.Tensor;
type Inputs = Record<string, T>;
/** A program's named results: tensors, or JS numbers where NumPy gives a Python int. */
type Result = Record<string, T | number>;

const PROGRAMS: Program[] = JSON.parse(readFileSync(new URL('./fixtures/programs_arrays.json', import.meta.url), 'utf8'));

afterAll(() => mt.shutdown());

const num = (v: unknown): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : typeof v === 'boolean' ? Number(v) : (v as number));
/** A JSON value: 'nan'/'inf'/'-inf' as floats, 'big:<digits>' (an integer past 2^53) as a bigint. */
const decode = (v: unknown): number | bigint => (typeof v === 'string' && v.startsWith('big:') ? BigInt(v.slice(4)) : num(v));
const decodeNested = (v: unknown): unknown => (Array.isArray(v) ? v.map(decodeNested) : typeof v === 'string' ? decode(v) : v);

function input(e: Enc, chunkSize?: number): T {
  const o = { dtype: e.dtype, ...(chunkSize ? { chunkSize } : {}) };
  if (e.shape.reduce((p, d) => p * d, 1) === 0) return mt.tensor([], o).reshape(e.shape);
  return mt.tensor(decodeNested(e.tensor) as number[], o);
}

/** The one-argument forms of np.where return the tuple of index arrays (typed as one Tensor in src/api/tensor.ts). */
const whereIdx = (c: mt.Operand): T[] => mt.where(c) as unknown as T[];

// ---------------------------------------------------------------------------
// The programs, in the order of gen_programs_arrays.py; each mirrors its Python twin line for line.
const CODE: Record<string, (x: Inputs) => Result | Promise<Result>> = {
  'mask filter then reductions': ({ x }) => {
    const pos = x.get(x.greater(0));
    return { mean: pos.mean(), sum: pos.sum(), count: x.greater(0).sum(), max_neg: x.get(x.less(0)).max(),
      frac: mt.mean(x.greater(1.0)), std: x.get(mt.abs(x).less(2)).std() };
  },

  'mask set to zero and nan': ({ x }) => {
    let y = x;
    y = y.set(y.less(0), 0);
    const z = x.set(mt.abs(x).greater(4), NaN);
    return { y, row_max: y.max({ axis: 1 }), z, nanmean: mt.nanmean(z, { axis: 0 }) };
  },

  'mask set from selection': ({ x }) => {
    const m = x.greater(1);
    let y = x.set(m, x.get(m).power(2));
    y = y.set(mt.invert(m), -1);
    return { y, total: y.sum() };
  },

  'mask on rows and columns': ({ x }) => {
    const keep = x.get(':, 0').greater(0);
    const rows = x.get(keep);
    const cols = x.get(':', x.sum({ axis: 0 }).greater(0));
    return { rows, col_mean: rows.mean({ axis: 0 }), cols, picked: x.get(keep, 2) };
  },

  'fancy rows and columns': ({ x }) => ({
    sub: x.get([0, 2]).get(':', [1, 3]),
    sub2: x.get([4, 0, 2]).get(':', [5, 0]),
    ix: x.get(...mt.ix_([0, 2, 3], [1, 3])),
    pointwise: x.get([0, 1, 2], [2, 3, 4]),
    dup_cols: x.get(':', [1, 1, 0]),
    last_row: x.get(-1, [0, -1]),
    neg_rows: x.get([-1, -2]),
  }),

  'fancy with integer arrays from argmax': ({ x }) => {
    const j = x.argmax({ axis: 1 });
    const best = x.get(mt.arange(x.shape[0]!), j);
    const order = mt.argsort(best);
    return { j, best, sorted_rows: x.get(order), best2: x.get(mt.arange(7).get(':, None'), mt.array([[0, 4]])) };
  },

  'where with three arguments': ({ x, k }) => {
    const leaky = mt.where(x.greater(0), x, mt.multiply(0.1, x));
    const sign = mt.where(x.greater(0), 1, -1);
    const mixed = mt.where(k.mod(2).equal(0), k, 0.5);
    const capped = mt.where(k.greater(2), 2, k);
    return { leaky, sign, mixed, capped, score: leaky.sum() };
  },

  'where with one argument and nonzero': ({ x }) => {
    const [r, c] = whereIdx(x.greater(1));
    const nz = mt.nonzero(x);
    return { r: r!, c: c!, vals: x.get(...whereIdx(x.greater(1))), nz0: nz[0]!, nz1: nz[1]!,
      argwhere: mt.argwhere(x.less(0)), flat: mt.flatnonzero(x.equal(0)), count: mt.count_nonzero(x, { axis: 0 }) };
  },

  'sort and argsort along axes': ({ x }) => {
    const idx = mt.argsort(x, { axis: 1 });
    return { s0: mt.sort(x, { axis: 0 }), s1: mt.sort(x, { axis: -1 }), idx,
      again: mt.take_along_axis(x, idx, { axis: 1 }), desc: mt.sort(x, { axis: 1 }).get(':, ::-1'),
      flat: mt.sort(x, { axis: null }), rank: mt.argsort(mt.argsort(x.get(0))) };
  },

  'top k by argsort': ({ scores }) => {
    const idx = mt.argsort(mt.negative(scores), { axis: 1 }).get(':, :3');
    const vals = mt.take_along_axis(scores, idx, { axis: 1 });
    return { idx, vals, mean_top: vals.mean({ axis: 1 }) };
  },

  'top k by argpartition': ({ x }) => {
    const idx = mt.argpartition(x, -5).get('-5:');
    const top = mt.sort(x.get(idx)).get('::-1');
    const low = mt.partition(x, 3).get(':3');
    return { top, which: mt.sort(idx), low: mt.sort(low) };
  },

  'sort with nan and ties': ({ x }) => ({
    sorted: mt.sort(x), order: mt.argsort(x, { kind: 'stable' }), argmax_nan: mt.nanargmax(x),
    clean: mt.sort(x.get(mt.invert(mt.isnan(x)))),
  }),

  'unique ints with index inverse counts': ({ a }) => {
    const [vals, idx, inv, cnt] = mt.unique(a, { return_index: true, return_inverse: true, return_counts: true }) as T[];
    return { vals: vals!, idx: idx!, inv: inv!, cnt: cnt!, rebuilt: vals!.get(inv),
      mode: vals!.get(cnt!.argmax()), first: a.get(idx) };
  },

  'unique floats with nan': async ({ x }) => {
    const [vals, cnt] = mt.unique(x, { return_counts: true }) as T[];
    return { vals: vals!, cnt: cnt!, n: (await vals!.execute()).size, no_eq: mt.unique(x, { equal_nan: false }) as T };
  },

  'unique of a 2-d array and its rows': ({ a }) => {
    const [vals, inv] = mt.unique(a, { return_inverse: true }) as T[];
    const [rows, rinv, rcnt] = mt.unique(a, { axis: 0, return_inverse: true, return_counts: true }) as T[];
    return { vals: vals!, inv: inv!, rows: rows!, rinv: rinv!, rcnt: rcnt! };
  },

  'concatenate stack split pipeline': ({ a, b, v }) => {
    const c = mt.concatenate([a, b], { axis: 0 });
    const d = mt.concatenate([a, b], { axis: 1 });
    const s = mt.stack([a, b], { axis: 1 });
    const parts = mt.split(v, [2, 5]);
    const aparts = mt.array_split(v, 4);
    const out: Result = { c, d, s, vs: mt.vstack([a, b.get(0)]), hs: mt.hstack([v.get(':3'), v.get('-2:')]),
      cs: mt.column_stack([v.get(':4'), v.get('4:8')]), flat: mt.concatenate([a, b], { axis: null }) };
    parts.forEach((p, i) => { out[`split${i}`] = p; });
    aparts.forEach((p, i) => { out[`asplit${i}`] = p; });
    (c.shape[1]! % 2 === 0 ? mt.split(c, 2, { axis: 1 }) : mt.split(c, 3, { axis: 1 })).forEach((p, i) => { out[`csplit${i}`] = p; });
    out.sums = mt.array(aparts.map((p) => p.sum()));
    return out;
  },

  'tile and repeat': ({ a, v }) => ({
    tile: mt.tile(a, [2, 3]), tile1: mt.tile(v, 3), tile3: mt.tile(v, [2, 1, 2]),
    rep: mt.repeat(v, 3), rep_each: mt.repeat(v, [2, 0, 1]), rep_rows: mt.repeat(a, [1, 3], { axis: 0 }),
    rep_cols: mt.repeat(a, 2, { axis: 1 }), rep_flat: mt.repeat(a, 2),
  }),

  'roll flip rot90': ({ x }) => ({
    r: mt.roll(x, 2), r1: mt.roll(x, -1, { axis: 1 }), r01: mt.roll(x, [1, 2], { axis: [0, 1] }),
    f: mt.flip(x), f0: mt.flip(x, { axis: 0 }), rot: mt.rot90(x), rot2: mt.rot90(x, { k: 2 }),
    rotm: mt.rot90(x, -1), lr: mt.fliplr(x), ud: mt.flipud(x), back: mt.rot90(mt.rot90(x), 3),
  }),

  'meshgrid evaluation xy and ij': () => {
    const xs = mt.linspace(-1, 1, 5);
    const ys = mt.linspace(0, 2, 4);
    const [X, Y] = mt.meshgrid(xs, ys);
    const Z = mt.exp(mt.negative(X!.power(2).add(Y!.power(2))));
    const [Xi, Yi] = mt.meshgrid(xs, ys, { indexing: 'ij' });
    const [Xs, Ys] = mt.meshgrid(xs, ys, { sparse: true });
    return { X: X!, Y: Y!, Z, Zi: Xi!.multiply(Yi!), peak: mt.unravel_index(Z.argmax(), Z.shape)[1]!,
      sparse: Xs!.add(Ys!), zsum: Z.sum({ axis: 0 }) };
  },

  'triangular masks': ({ m, r }) => {
    const iu = mt.triu_indices(4, { k: 1 });
    const mask = mt.tri(4, { dtype: 'bool' });
    return { low: mt.tril(m), up1: mt.triu(m, { k: 1 }), lowm1: mt.tril(m, -1), tri: mt.tri(4, 5, { k: -1, dtype: 'int' }),
      upper_vals: m.get(...iu), strict_sum: mt.tril(m, -1).sum(), masked: mt.where(mask, m, 0),
      r_up: mt.triu(r, 2), tri_f: mt.tri(3), sym: mt.triu(m).add(mt.triu(m, 1).T) };
  },

  'diag extraction and construction': ({ m, v }) => ({
    d: mt.diag(m), d1: mt.diag(m, { k: 1 }), dm1: m.diagonal({ offset: -1 }), D: mt.diag(v),
    Dm1: mt.diag(v, { k: -1 }), tr: mt.trace(m), set_diag: m.multiply(mt.subtract(1, mt.eye(4))).add(mt.diag(mt.arange(4.0))),
    dflat: mt.diagflat([[1, 2], [3, 4]]),
  }),

  'one-hot encoding via eye': ({ labels }) => {
    const oh = mt.eye(4).get(labels);
    const ohi = mt.eye(4, { dtype: 'int' }).get(labels);
    return { oh, ohi, back: oh.argmax({ axis: 1 }), counts: ohi.sum({ axis: 0 }), smooth: oh.multiply(0.9).add(0.1 / 4) };
  },

  'slicing negative steps ellipsis newaxis': ({ x }) => ({
    rev: x.get('::-1'), a: x.get('::-2, 1::2'), b: x.get('..., 1'), c: x.get(':, None, 0, :'), d: x.get('None, ..., ::-1'),
    e: x.get('1:-1, -3::-1'), f: x.get('-1:0:-2, :, 2'), g: x.get('0, ..., None'), h: x.get('..., ::2, 0'),
  }),

  'reshape transpose swapaxes moveaxis chains': ({ x }) => {
    const a = x.reshape(2, 3, 4).transpose(1, 0, 2).reshape(3, -1);
    const b = mt.swapaxes(x.reshape(2, 3, 4), 0, 2);
    const c = mt.moveaxis(x.reshape(2, 3, 4), 0, -1);
    return { a, b, c, f: x.reshape(4, 6, { order: 'F' }), tr: x.reshape(4, 6).T.ravel(),
      perm: x.reshape(2, 3, 4).transpose(2, 0, 1).sum({ axis: -1 }), sq: mt.expand_dims(a, 0).squeeze(),
      fr: x.reshape(4, 6).ravel({ order: 'F' }) };
  },

  'broadcasting column against row': ({ a, b, p, q }) => {
    const diff = a.get(':, None').subtract(b.get('None, :'));
    const d = mt.sqrt(p.get(':, None, :').subtract(q.get('None, :, :')).power(2).sum({ axis: -1 }));
    return { diff, absmin: mt.abs(diff).min({ axis: 1 }), d, nearest: d.argmin({ axis: 1 }),
      outer: a.reshape(-1, 1).multiply(b.reshape(1, -1)), z: p.subtract(p.mean({ axis: 0 })).divide(p.std({ axis: 0 })) };
  },

  clip: ({ x, k, lo }) => ({
    c: mt.clip(x, -1, 1), pos: x.clip({ min: 0 }), k8: mt.clip(k, 0, 255).astype('uint8'),
    arr: mt.clip(x, lo, lo.add(1)), kk: mt.clip(k, null, 50),
  }),

  'run lengths of a boolean signal': ({ x }) => {
    const on = x.greater(0);
    const d = mt.diff(mt.concatenate([[0], on.astype('int8'), [0]]));
    const starts = mt.flatnonzero(d.equal(1));
    const ends = mt.flatnonzero(d.equal(-1));
    const lengths = ends.subtract(starts);
    return { d, starts, ends, lengths, longest: lengths.max(), changes: mt.flatnonzero(mt.diff(on)), flips: mt.diff(on) };
  },

  'run-length encoding and group ids': ({ a }) => {
    const change = mt.flatnonzero(a.get('1:').not_equal(a.get(':-1'))).add(1);
    const starts = mt.concatenate([[0], change]);
    const lens = mt.diff(mt.concatenate([starts, [a.size]]));
    const gid = mt.cumsum(mt.concatenate([[0], mt.diff(a).not_equal(0).astype('int')]));
    return { starts, values: a.get(starts), lens, gid, decoded: mt.repeat(a.get(starts), lens), csum: mt.cumsum(a).get(starts) };
  },

  'sliding windows by stacking slices': ({ x }) => {
    const w = 4;
    const n = x.size - w + 1;
    const win = mt.stack(Array.from({ length: w }, (_, i) => x.get(mt.slice(i, i + n))), { axis: 1 });
    const c = mt.cumsum(mt.concatenate([[0.0], x]));
    return { win, mavg: win.mean({ axis: 1 }), mmax: win.max({ axis: 1 }),
      csum_avg: c.get(`${w}:`).subtract(c.get(`:-${w}`)).divide(w), argmax: win.argmax({ axis: 1 }) };
  },

  'uint8 image arithmetic': ({ img }) => ({
    wrap: img.add(100), inv: mt.subtract(255, img), safe: mt.clip(img.astype('int16').add(100), 0, 255).astype('uint8'),
    half: img.floor_divide(2).add(img.floor_divide(2)), quant: img.right_shift(4).left_shift(4), hi: img.bitwise_and(0xF0),
    xor: img.bitwise_xor(0xFF), not: mt.invert(img), mean: img.mean(), sum: img.sum(), diff: img.get('1:').subtract(img.get(':-1')),
    sdiff: img.get('1:').astype('int16').subtract(img.get(':-1')), scaled: img.multiply(0.5).astype('uint8'),
  }),

  'int8 overflow': ({ a }) => ({
    dbl: a.multiply(2), add: a.add(a), neg: mt.negative(a), abs: mt.abs(a), wide: a.astype('int16').multiply(2),
    sum: a.sum(), cs: mt.cumsum(a), inc: a.add(1), sub: a.subtract(100), mul: a.multiply(mt.tensor(3, { dtype: 'int8' })),
    floordiv: a.floor_divide(3), mod: a.mod(7),
  }),

  'bitwise ops and shifts': ({ a, b }) => ({
    and: a.bitwise_and(0xFF), or: a.bitwise_or(b), xor: a.bitwise_xor(a.right_shift(3)), not: mt.invert(a),
    shl: a.left_shift(2), shr: a.right_shift(1), b_shl: b.left_shift(1), b_shr: b.right_shift(2),
    low_bit: a.bitwise_and(mt.negative(a)), odd: a.bitwise_and(1).astype('bool'), pop: mt.bitwise_count(b),
    lshift_arr: mt.left_shift(1, mt.arange(5)),
  }),

  'promotion with python scalars': ({ i8, u8, f32, i32, b }) => ({
    i8_1: i8.add(1), i8_f: i8.add(1.5), u8_f: u8.multiply(2.5), f32_1: f32.add(1.0), f32_i: f32.multiply(3),
    u8_i8: u8.add(i8), i32_f32: i32.add(f32), b_1: b.add(1), b_b: b.add(b), i8_u8_cmp: i8.less(u8),
    i8_eq300: i8.equal(300), u8_lt_m1: u8.greater(-1), i32_div: i32.divide(2), i32_fdiv: i32.floor_divide(2),
    u8_pow: u8.power(2), i8_i32: i8.multiply(i32), f32_f64: f32.add(mt.tensor(1.0, { dtype: 'float64' })), i8_true: i8.multiply(true),
  }),

  'int8 plus out-of-range python int': ({ a }) => ({ r: a.add(300) }),

  'uint8 minus negative python int': ({ a }) => ({ r: a.add(-1) }),

  'astype conversions': ({ x, k }) => ({
    to_i: x.astype('int'), to_i8: x.get(':5').astype('int8'), to_i32: x.astype('int32'),
    neg_u8: x.get(':2').astype('uint8'), k_u8: k.astype('uint8'), k_i8: k.astype('int8'),
    k_u16: k.astype('uint16'), to_b: x.astype('bool'), b_f: x.greater(0).astype('float32'),
    to_f32: x.divide(3).astype('float32'), trunc_eq: mt.trunc(x).astype('int64'), round_i: mt.round(x).astype('int'),
  }),

  'isin filtering': ({ a, b, m }) => {
    const inb = mt.isin(a, b);
    return { inb, kept: a.get(inb), dropped: a.get(mt.isin(a, b, { invert: true })), m2: mt.isin(m, [1, 4]),
      count: inb.sum(), fl: mt.isin(a.astype('float').divide(2), [1.5, 3.5]) };
  },

  'searchsorted binning': ({ x, edges }) => {
    const left = mt.searchsorted(edges, x);
    const right = mt.searchsorted(edges, x, { side: 'right' });
    const b = mt.clip(left.subtract(1), 0, edges.size - 2);
    const s = mt.sort(x.get(':6'));
    const pos = mt.searchsorted(s, [0.0, 1.0]);
    return { left, right, bin: b, counts: mt.bincount(b, { minlength: edges.size - 1 }), pos,
      ins: mt.insert(s, pos, [0.0, 1.0]), exact: mt.searchsorted(edges, edges), dig: mt.digitize(x, edges) };
  },

  'assignment with repeated indices': ({ x, m }) => {
    const y = x.set([0, 2, 2, 5], [10, 20, 30, 40]);
    const idx = mt.array([1, 1, 3, 3, 3]);
    const z = x.set(idx, x.get(idx).add(1));
    const w = x.set([-1, 0], -7);
    let mm = m.set([0, 0, 2], [1, 1, 4], [5, 6, 7]);
    mm = mm.set(':', [0, 3], 0);
    mm = mm.set(1, mt.arange(5));
    const q = mt.put_along_axis(m, mt.argmax(m, { axis: 1 }).get(':, None'), -1, { axis: 1 });
    return { y, z, w, mm, q };
  },

  'take and compress': ({ x }) => ({
    t: mt.take(x, [0, 5, 7]), t1: mt.take(x, [1, -1], { axis: 1 }), tw: mt.take(x, [3, 7], { axis: 0, mode: 'wrap' }),
    tc: mt.take(x, [-5, 10], { axis: 1, mode: 'clip' }), comp: mt.compress([true, false, true, true], x, { axis: 0 }),
    ext: mt.extract(x.mod(3).equal(0), x),
  }),

  'large masked statistics': ({ x, k }) => {
    const m = x.greater(-1).bitwise_and(k.mod(3).not_equal(0));
    const sel = x.get(m);
    const order = mt.argsort(sel, { kind: 'stable' });
    const [u, cnt] = mt.unique(k.get(m), { return_counts: true }) as T[];
    return { n: m.sum(), mean: sel.mean(), cs_last: mt.cumsum(sel).get(-1), med: mt.median(sel),
      top: sel.get(order.get('-5:')), u: u!, cnt: cnt!, where_sum: mt.where(m, x, 0).sum(), firsts: mt.flatnonzero(m).get(':10') };
  },

  'large 2-d reshapes and reductions': ({ x }) => {
    const b = x.reshape(8, 5, 12, 5).transpose(0, 2, 1, 3).reshape(8, 12, 25);
    const pooled = b.max({ axis: -1 });
    return { pooled, rowsort: mt.sort(x, { axis: 1 }).get(':, -1'), argmx: x.argmax({ axis: 0 }),
      tril_sum: mt.tril(x).sum({ axis: 1 }), flipped: mt.flip(x, { axis: 1 }).get('::7, ::9'),
      clipped_mean: mt.clip(x, -1, 1).mean({ axis: 0 }) };
  },

  'gaps between events: diff of a selection': ({ t, x }) => {
    const ev = t.get(x.greater(0));
    const gaps = mt.diff(ev);
    return { gaps, mean_gap: gaps.mean(), d2: mt.diff(ev, { n: 2 }), dp: mt.diff(ev, { prepend: 0.0 }),
      ed: mt.ediff1d(ev), idx_gaps: mt.diff(mt.flatnonzero(x.greater(0))) };
  },

  'flip and roll of a selection': ({ x }) => {
    const sel = x.get(x.greater(0));
    const out: Result = { rev: sel.get('::-1'), flip: mt.flip(sel), flipud: mt.flipud(sel), roll: mt.roll(sel, 1), roll_neg: mt.roll(sel, -2),
      idx_flip: mt.flip(mt.flatnonzero(x.greater(0))), last3: sel.get('-3:') };
    return out;
  },

  'repeat tile split resize of a selection': ({ x }) => {
    const sel = x.get(x.greater(0));
    const out: Result = { rep: mt.repeat(sel, 2), tile: mt.tile(sel, 2), tile3: mt.tile(sel.get(':3'), [2, 1]), resize: mt.resize(sel, 7) };
    mt.array_split(sel, 3).forEach((p, i) => { out[`part${i}`] = p; });
    mt.split(sel.get(':6'), 2).forEach((p, i) => { out[`half${i}`] = p; });
    return out;
  },

  'diag meshgrid and where of a selection': ({ x }) => {
    const sel = x.get(x.greater(0));
    const g = mt.array([0.0, 1.0, 2.0], { dtype: 'float64' }); // JS reads 0.0 as the integer 0
    const [S, G] = mt.meshgrid(sel, g);
    return { diag: mt.diag(sel), S: S!, G: G!, big: whereIdx(sel.greater(1))[0]!, nz: mt.nonzero(sel.greater(2))[0]! };
  },

  'joins of a selection': ({ x }) => {
    const sel = x.get(x.greater(0));
    return { app: mt.append(sel, [1.5, 2.5]), cat: mt.concatenate([sel, x.get(x.less(-2))]), st: mt.stack([sel, sel.multiply(2)]),
      vs: mt.vstack([sel, sel]), cs: mt.column_stack([sel, sel.power(2)]), pad: mt.pad(sel, 1),
      outer: sel.get(':, None').multiply(mt.array([[1.0, -1.0]])), ss: mt.searchsorted(mt.sort(sel), 1.0), cum: mt.cumsum(sel),
      take: mt.take(sel, [0, -1]) };
  },

  '2-d assignment and diffs': ({ x }) => {
    let y = x;
    y = y.set(y.sum({ axis: 1 }).greater(0), 0);
    y = y.set('::2, 1', -1);
    y = y.set('..., -1', mt.arange(5));
    let z = x;
    z = z.set('1:4, ::-2', [[1, 2], [3, 4], [5, 6]]);
    z = z.set(':, 0', z.get(':, 0').get('::-1'));
    return { y, z, dx: mt.diff(x, { axis: 0 }), dxx: mt.diff(x, { axis: 1, append: 0 }),
      boolist: x.get([true, false, true, false, true]), empty: x.get(mt.array([], { dtype: 'int' })),
      col_of_rows: x.get([0, 3]).get(':, 1'), rows_mask_col: x.get(x.get(':, 1').greater(0), '1:3') };
  },

  'int64 extremes': ({ a }) => ({
    inc: a.add(1), dbl: a.multiply(2), fdiv: a.floor_divide(7), mod: a.mod(1000), shr: a.right_shift(3), neg: mt.negative(a),
    abs: mt.abs(a), f: a.astype('float64'), i32: a.astype('int32'), sorted: mt.sort(a), order: mt.argsort(a),
    cs: mt.cumsum(a.get(':4')), mx: a.max(), eq: a.equal(2n ** 53n + 1n), u: mt.unique(a) as T, sub: a.get(2).subtract(a.get(3)),
    xor: a.bitwise_xor(a.right_shift(1)),
  }),

  'unsigned wrap-around and shifts': ({ u32, i32, u16, u8, i8 }) => ({
    dec: u32.subtract(1), mixed: u32.add(i32), dbl: u32.multiply(2), top: u32.right_shift(31), to_i32: u32.astype('int32'),
    u16w: u16.multiply(300), u8_shl8: u8.left_shift(8), i8_shr: i8.right_shift(2), i8_shr9: i8.right_shift(9),
    fdiv_neg: i8.floor_divide(-3), mod_neg: i8.mod(-3), fmod: mt.fmod(i8, -3), sum8: mt.sum(i8, { dtype: 'int8' }),
    cs16: mt.cumsum(u16.astype('int16')), u8_sum: u8.sum(), u8_neg: mt.negative(u8), u16_mean: u16.mean(),
  }),

  'promotion across arrays and numpy scalars': ({ i8, u8, f32, i64, b }) => ({
    i8_np64: i8.add(mt.tensor(1, { dtype: 'int64' })), u8_npf32: u8.add(mt.tensor(0.5, { dtype: 'float32' })),
    cat_iu: mt.concatenate([i8, u8]), cat_fi: mt.concatenate([f32, i64]), stack_if: mt.stack([i64, f32]),
    where_neg: mt.where(u8.greater(1), u8, -1), max_iu: mt.maximum(u8, i8), lt_f: i8.less(1.5), eq_neg: u8.equal(-1),
    clip_wide: mt.clip(u8, -5, 300), bb: b.multiply(b), nb: mt.invert(b), bsum: b.sum(), bmean: b.mean(),
    radd: mt.add.reduce(b), f32_mean: f32.mean(), f32_i64: f32.multiply(i64), u8_i64: u8.multiply(i64),
  }),

  'sort keys lexsort and stable descending': ({ a, b, m }) => {
    const order = mt.lexsort([b, a]);
    return { order, a_sorted: a.get(order), desc: mt.argsort(mt.negative(a), { kind: 'stable' }),
      rev: mt.argsort(a, { kind: 'stable' }).get('::-1'), col_sorted: mt.take_along_axis(m, mt.argsort(m, { axis: 0 }), { axis: 0 }),
      amax_k: mt.argmax(m, { axis: 1, keepdims: true }), by_col: m.get(mt.argsort(m.get(':, 2'))),
      sorter: mt.searchsorted(b, [0.0, 1.0], { sorter: mt.argsort(b) }), ties: mt.sort(a).get('::-1') };
  },

  '3-d joins splits and rotations': ({ x, y }) => {
    const out: Result = { cat: mt.concatenate([x, y], { axis: -1 }), rot: mt.rot90(x, { axes: [1, 2] }), flip2: mt.flip(x, { axis: [0, 2] }),
      rep: mt.repeat(x, mt.array([1, 2, 0, 1]), { axis: -1 }), tile: mt.tile(y, [2, 1, 1, 2]), diag2: mt.diag([1, 2, 3], { k: 2 }),
      eye: mt.eye(3, 4, { k: 1 }), eyeb: mt.eye(3, { dtype: 'bool' }), tr1: mt.trace(x.get(0), { offset: 1 }),
      oh2: mt.eye(5).get(x.get(':, :, 0').mod(5)), dst: mt.dstack([x.get('..., 0'), y.get('..., 0')]) };
    const groups: [string, T[]][] = [['h', mt.hsplit(x, 3)], ['v', mt.vsplit(x, 2)], ['d', mt.dsplit(x, [1, 3])], ['a', mt.array_split(x, 3, { axis: 2 })]];
    for (const [name, parts] of groups) parts.forEach((p, i) => { out[`${name}${i}`] = p; });
    return out;
  },

  'searchsorted digitize bincount variants': ({ x, k, w }) => {
    const edges = mt.array([-2.0, 0.0, 1.0, 3.0]);
    const dup = mt.array([1, 2, 2, 2, 5]);
    return { dr: mt.digitize(x, edges, { right: true }), ddec: mt.digitize(x, edges.get('::-1')), bw: mt.bincount(k, { weights: w }),
      bc: mt.bincount(k), sl: mt.searchsorted(dup, [2, 3, 0, 6]), sr: mt.searchsorted(dup, [2, 3, 0, 6], { side: 'right' }),
      sf: mt.searchsorted(dup, [1.5, 2.0, 4.99]), isin2: mt.isin(k, mt.array([[1, 2], [5, 9]])),
      mask_counts: mt.bincount(k.get(x.get(':15').greater(0)), { minlength: 6 }) };
  },

  'casts of out-of-range floats': ({ f32, f }) => ({
    f32_i8: f32.astype('int8'), f_u16: f.astype('uint16'), f_u32: f.get([0, 3, 4]).astype('uint32'), f_i32: f.astype('int32'),
    f_i16: f.astype('int16'), f32_u8: f32.astype('uint8'), f_b: f.astype('bool'),
  }),

  sliding_window_view: ({ x, m }) => {
    const v = mt.lib.stride_tricks.sliding_window_view(x, 4);
    const v2 = mt.lib.stride_tricks.sliding_window_view(m, [2, 3]);
    return { v, mavg: v.mean({ axis: -1 }), v2, pool: v2.max({ axis: [-2, -1] }),
      ax: mt.lib.stride_tricks.sliding_window_view(m, 2, { axis: 0 }) };
  },

  // np.mgrid[...] is written as x[...] is: mt.mgrid.get('...'); a tensor unpacks along its first axis as an ndarray does.
  'mgrid and ogrid': () => {
    const [yy, xx] = mt.mgrid.get('0:3, 0:4');
    const g: T = mt.mgrid.get('-1:1:5j');
    const [oy, ox] = mt.ogrid.get('0:3, 0:4') as T[];
    return { yy: yy!, xx: xx!, g, r2: oy!.power(2).add(ox!.power(2)), ix: mt.indices([2, 3]) as T };
  },
};

// ---------------------------------------------------------------------------
// Comparison

// Documented difference (README "dtypes"): Tessera has no uint64, so sums of unsigned ints give int64.
const expectedDType = (d: string): string => (d === 'uint64' ? 'int64' : d);

/**
 * Outputs that add up many terms in an order NumPy does not share (pairwise
 * sums, tiled partial sums, a sequential cumsum against a pairwise sum): their
 * rounding grows with the sum of the |terms|, so they get an absolute slack of
 * 1e-14 times the sum of the program's |float inputs| on top of the relative one.
 */
const ACCUMULATING = new Set([
  'mask filter then reductions/mean', 'mask filter then reductions/sum', 'mask filter then reductions/std',
  'mask set from selection/total', 'where with three arguments/score', 'sliding windows by stacking slices/csum_avg',
  'large masked statistics/mean', 'large masked statistics/cs_last', 'large masked statistics/where_sum',
  'large 2-d reshapes and reductions/tril_sum', 'large 2-d reshapes and reductions/clipped_mean',
  'broadcasting column against row/z', 'mask set to zero and nan/nanmean', 'top k by argsort/mean_top',
  'gaps between events: diff of a selection/mean_gap', 'joins of a selection/cum',
]);

function inputScale(p: Program): number {
  let s = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'number' && Number.isFinite(v)) s += Math.abs(v);
  };
  for (const e of Object.values(p.inputs)) if (e.dtype.startsWith('float')) walk(e.tensor);
  return s;
}

async function check(p: Program, res: Result): Promise<void> {
  const want = p.outputs!;
  expect(Object.keys(res).sort()).toEqual(Object.keys(want).sort());
  const problems: string[] = [];
  for (const [key, e] of Object.entries(want)) {
    const r = res[key]!;
    let shape: number[], dtype: string | undefined, got: (number | bigint)[];
    if (typeof r === 'number') {
      // a JS number where NumPy gives a Python int: its value only
      [shape, dtype, got] = [[], undefined, [r]];
    } else {
      const nd = await r.fetch();
      [shape, dtype, got] = [nd.shape, nd.dtype, Array.from(nd.data as ArrayLike<number | bigint>)];
    }
    if (JSON.stringify(shape) !== JSON.stringify(e.shape)) { problems.push(`${key}: shape ${JSON.stringify(shape)}, want ${JSON.stringify(e.shape)}`); continue; }
    if (dtype !== undefined && dtype !== expectedDType(e.dtype)) problems.push(`${key}: dtype ${dtype}, want ${e.dtype}`);
    const isF = (dtype ?? e.dtype).startsWith('float');
    const f32 = dtype === 'float32' || dtype === 'float16';
    const acc = ACCUMULATING.has(`${p.name}/${key}`);
    const rtol = f32 ? 1e-5 : 1e-12;
    const atol = acc ? 1e-14 * inputScale(p) : f32 ? 1e-30 : 1e-300;
    const bad: string[] = [];
    e.data.forEach((wv, i) => {
      const g = got[i]!;
      let ok: boolean;
      if (!isF) {
        // exact, and exact for int64 (BigInt data) too
        const w = decode(wv);
        ok = typeof g === 'bigint' || typeof w === 'bigint' ? BigInt(g) === BigInt(w) : g === w;
      } else {
        const gn = Number(g), w = num(wv);
        if (Number.isNaN(w) || Number.isNaN(gn)) ok = Number.isNaN(w) && Number.isNaN(gn);
        else if (!Number.isFinite(w) || !Number.isFinite(gn)) ok = gn === w;
        else ok = Math.abs(gn - w) <= rtol * Math.abs(w) + atol;
      }
      if (!ok && bad.length < 4) bad.push(`[${i}] got ${g} want ${decode(wv)}`);
    });
    if (bad.length) problems.push(`${key}: ${bad.join(', ')}`);
  }
  expect(problems).toEqual([]);
}

async function runProgram(p: Program, chunkSize?: number): Promise<void> {
  const code = CODE[p.name];
  if (!code) throw new Error(`no translation of program '${p.name}'`);
  const inputs: Inputs = Object.fromEntries(Object.entries(p.inputs).map(([k, e]) => [k, input(e, chunkSize)]));
  if (p.error) {
    // NumPy raises (OverflowError, ...): Tessera must refuse too, at the line or when the run reaches it, with NumPy's message
    const attempt = async () => {
      const res = await code(inputs);
      for (const r of Object.values(res)) if (typeof r !== 'number') await r.fetch();
    };
    await expect(attempt()).rejects.toThrow(p.error.message);
    return;
  }
  await check(p, await code(inputs));
}

describe('array programs against NumPy', () => {
  it('has a translation of every program', () => {
    expect(PROGRAMS.map((p) => p.name).filter((n) => !(n in CODE))).toEqual([]);
    expect(Object.keys(CODE).filter((n) => !PROGRAMS.some((p) => p.name === n))).toEqual([]);
  });
  for (const p of PROGRAMS) {
    it(p.name, () => runProgram(p));
    for (const c of p.chunks ?? []) it(`${p.name} (chunkSize ${c})`, () => runProgram(p, c));
  }
});
