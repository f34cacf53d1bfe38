// The array functions over lengths known only at run time: selections
// (x.get(mask), rows picked by a mask, nonzero's and unique's results) are
// NaN long in `t.shape` until the run computes them, and every function must
// then give NumPy's values (deferring what needs the length until the run
// knows it: src/api/core.ts `deferred`, runtime/resolve.ts) or refuse with
// an error that says what to do; never compute over a made-up length. The
// cases and NumPy 2's results come from test/fixtures/unknown.json, written
// by test/fixtures/gen_unknown.py from the same small inputs; each case here
// is its Python twin line for line. Cases listing `chunks` there run again
// with the inputs tiled that small. The last tests check the refusals.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as G from '../src/graph/node.js';
import * as mt from '../src/api/tensor.js';

interface Out { shape: number[]; dtype: string; data: (number | boolean | string)[] }
interface Case { name: string; chunks: number[]; outputs: Record<string, Out> }
interface Fixture { inputs: Record<string, { data: unknown; dtype: string }>; cases: Case[] }
type T = mt.Tensor;
type Inputs = Record<'x' | 'M' | 'k' | 'a' | 's', T>;
type Result = Record<string, T>;

const FIXTURE: Fixture = JSON.parse(readFileSync(new URL('./fixtures/unknown.json', import.meta.url), 'utf8'));

afterAll(() => mt.shutdown());

const num = (v: unknown): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : typeof v === 'boolean' ? Number(v) : (v as number));

function inputs(chunkSize?: number): Inputs {
  return Object.fromEntries(Object.entries(FIXTURE.inputs).map(([k, e]) => [k, mt.tensor(e.data as number[], { dtype: e.dtype, ...(chunkSize ? { chunkSize } : {}) })])) as Inputs;
}

/** The selections every case starts from (gen_unknown.py's `sels`). */
const sels = (x: T, M: T, k: T): [T, T, T] => [x.get(x.greater(0)), M.get(M.get(':, 0').greater(0)), k.get(k.greater(0))];
/** The one-argument form of where returns the index arrays. */
const whereIdx = (c: mt.Operand): T[] => mt.where(c) as unknown as T[];
/** A JS list of floats as NumPy reads it: [0.0, 1.0] is integral in JS, float64 in Python. */
const f64 = (v: number[]): T => mt.array(v, { dtype: 'float64' });
const pieces = (out: Result, name: string, parts: T[]): void => parts.forEach((p, i) => { out[`${name}_${i}`] = p; });

// ---------------------------------------------------------------------------
// The cases, in the order of gen_unknown.py
const CODE: Record<string, (i: Inputs) => Result> = {
  'diff': ({ x, M, k }) => {
    const [sel, rows, ks] = sels(x, M, k);
    return { d: mt.diff(sel), d2: mt.diff(sel, { n: 2 }), dp: mt.diff(sel, { prepend: 0.0 }), da: mt.diff(sel, { append: [9.0, 9.0] }),
      rows0: mt.diff(rows, { axis: 0 }), rows1: mt.diff(rows, { axis: 1 }), ints: mt.diff(ks), idx: mt.diff(mt.flatnonzero(x.greater(0))),
      mean: mt.diff(sel).mean(), sel_prepend: mt.diff([1.0, 2.0], { prepend: sel }) };
  },

  'ediff1d': ({ x, M }) => {
    const sel = x.get(x.greater(0));
    return { e: mt.ediff1d(sel), ends: mt.ediff1d(sel, { to_end: 9.0, to_begin: [0.0] }), rows: mt.ediff1d(M.get(M.get(':, 0').greater(0))) };
  },

  'flip': ({ x, M, k }) => {
    const [sel, rows] = sels(x, M, k);
    return { f: mt.flip(sel), ud: mt.flipud(sel), rows: mt.flip(rows), rows0: mt.flip(rows, 0), rows1: mt.flip(rows, 1),
      rows_ud: mt.flipud(rows), rows_lr: mt.fliplr(rows), idx: mt.flip(mt.flatnonzero(x.greater(0))) };
  },

  'rot90': ({ M }) => {
    const rows = M.get(M.get(':, 0').greater(0));
    return { r1: mt.rot90(rows), r2: mt.rot90(rows, 2), r3: mt.rot90(rows, 3), r1b: mt.rot90(rows, 1, { axes: [1, 0] }) };
  },

  'roll': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { r1: mt.roll(sel, 1), rm2: mt.roll(sel, -2), r5: mt.roll(sel, 5), rows0: mt.roll(rows, 1, 0),
      rows1: mt.roll(rows, 1, 1), flat: mt.roll(rows, 2), both: mt.roll(rows, [1, -1], [0, 1]) };
  },

  'split': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    const out: Result = {};
    pieces(out, 'as3', mt.array_split(sel, 3));
    pieces(out, 's2', mt.split(sel, 2));
    pieces(out, 'at', mt.array_split(sel, [1, 3]));
    pieces(out, 'rows3', mt.split(rows, 3));
    pieces(out, 'h3', mt.hsplit(rows, 3));
    pieces(out, 'v1', mt.vsplit(rows, [1]));
    pieces(out, 'cols2', mt.array_split(rows, 2, { axis: 1 }));
    pieces(out, 'neg', mt.split(sel, [-1]));
    return out;
  },

  'resize': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { r6: mt.resize(sel, 6), r23: mt.resize(sel, [2, 3]), rows: mt.resize(rows, 4), r2: mt.resize(sel, 2) };
  },

  'repeat and tile': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { rep: mt.repeat(sel, 2), rep_rows: mt.repeat(rows, 2, { axis: 0 }), rep_cols: mt.repeat(rows, [1, 2, 0], { axis: 1 }),
      tile: mt.tile(sel, 2), tile21: mt.tile(sel, [2, 1]), tile_rows: mt.tile(rows, [1, 2]) };
  },

  'repeat with counts from the run': ({ a }) => {
    const starts = mt.concatenate([[0], mt.flatnonzero(a.get('1:').not_equal(a.get(':-1'))).add(1)]);
    const lens = mt.diff(mt.concatenate([starts, [a.size]]));
    return { starts, lens, decoded: mt.repeat(a.get(starts), lens), twice: mt.repeat(starts, lens),
      counts_known_len: mt.repeat(mt.array([7, 8, 9]), mt.array([1, 0, 2]).add(0)) };
  },

  'meshgrid': ({ x }) => {
    const sel = x.get(x.greater(0));
    const [X, Y] = mt.meshgrid(sel, f64([0.0, 1.0]));
    const [I, J] = mt.meshgrid(sel, f64([0.0, 1.0, 2.0]), { indexing: 'ij' });
    const [S, U] = mt.meshgrid(f64([5.0, 6.0]), sel, { sparse: true });
    return { X: X!, Y: Y!, I: I!, J: J!, S: S!, T: U! };
  },

  'diag and trace': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { d: mt.diag(sel), d1: mt.diag(sel, 1), dm1: mt.diag(sel, -1), rows: mt.diag(rows), rows1: mt.diag(rows, 1),
      diagonal: mt.diagonal(rows), trace: mt.trace(rows), flat: mt.diagflat(sel), cols: mt.diag(M.get(':', M.get(0).greater(1))) };
  },

  'where and nonzero': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    const [r, c] = mt.nonzero(rows.greater(1));
    return { w: whereIdx(sel.greater(1))[0]!, nz: mt.nonzero(sel.greater(1))[0]!, r: r!, c: c!, flat: mt.flatnonzero(sel.greater(1)),
      argwhere: mt.argwhere(rows.greater(1)), w3: mt.where(sel.greater(1), sel, 0.0), comp: mt.compress(sel.greater(1), sel),
      ext: mt.extract(rows.greater(1), rows), cnt: mt.count_nonzero(rows.greater(1)), picked: sel.get(whereIdx(sel.greater(1))[0]!) };
  },

  'insert positions from the run': ({ x, s }) => {
    const sel = mt.sort(x.get(x.greater(0)));
    return { ins: mt.insert(s, mt.searchsorted(s, [2.0]), [2.0]), sel: mt.insert(sel, mt.searchsorted(sel, [1.0, 2.5]), [1.0, 2.5]),
      one: mt.insert(s, mt.searchsorted(s, 2.0), 2.0) };
  },

  'insert append delete': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { i1: mt.insert(sel, 1, 9.0), i2: mt.insert(sel, [0, 2], [7.0, 8.0]), im1: mt.insert(sel, -1, 9.0),
      irow: mt.insert(rows, 1, 0.0, { axis: 0 }), app: mt.append(sel, [1.0, 2.0]), app_rows: mt.append(rows, [[7.0, 8.0, 9.0]], { axis: 0 }),
      del0: mt.delete(sel, 0), dels: mt.delete(sel, [0, -1]), del_row: mt.delete(rows, 1, { axis: 0 }), del_mask: mt.delete(sel, sel.greater(1)) };
  },

  'pad': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { c: mt.pad(sel, 1), e: mt.pad(sel, [1, 2], 'edge'), r: mt.pad(rows, 1, 'reflect'), w: mt.pad(sel, 2, 'wrap'), m: mt.pad(sel, 1, 'mean') };
  },

  'calculus': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { trap: mt.trapezoid(sel), trapx: mt.trapezoid(sel, { x: mt.cumsum(sel) }), trap_rows: mt.trapezoid(rows, { axis: 0 }),
      grad: mt.gradient(sel) as T, grad2: mt.gradient(sel, { edge_order: 2 }) as T, grad_rows0: mt.gradient(rows, { axis: 0 }) as T,
      gx: mt.gradient(sel, mt.cumsum(sel)) as T, cs: mt.cumsum(sel), cp: mt.cumprod(sel), cs_rows: mt.cumsum(rows, { axis: 0 }),
      ncs: mt.nancumsum(sel), csum_all: mt.cumulative_sum(sel, { include_initial: true }) };
  },

  'convolve and polynomials': ({ x }) => {
    const sel = x.get(x.greater(0));
    return { conv: mt.convolve(sel, [1.0, 1.0]), corr: mt.correlate(sel, [1.0, 2.0]), same: mt.convolve([1.0, 2.0, 3.0], sel, 'same'),
      valid: mt.convolve(sel, [1.0, -1.0], 'valid'), pv: mt.polyval(sel, 2.0), pvx: mt.polyval([1.0, 2.0], sel),
      vander: mt.vander(sel), vander3: mt.vander(sel, 3, true) };
  },

  'sort and search': ({ x, M, k }) => {
    const [sel, rows, ks] = sels(x, M, k);
    const ss = mt.sort(sel);
    return { sort: ss, argsort: mt.argsort(sel), sort_rows0: mt.sort(rows, { axis: 0 }), argsort_rows: mt.argsort(rows, { axis: 1 }),
      ss: mt.searchsorted(ss, 1.0), ssv: mt.searchsorted([0.0, 1.0, 2.0], sel), dig: mt.digitize(sel, [0.0, 1.0, 2.0]),
      interp: mt.interp(sel, [0.0, 1.0, 2.0, 3.0], [0.0, 10.0, 20.0, 30.0]), interp_xp: mt.interp([0.5, 1.5, 2.5], ss, ss.multiply(2)),
      part: mt.partition(sel, 1).get(1), lex: mt.lexsort([sel, ks.get(':4')]), isin: mt.isin(ks, [1, 2]) };
  },

  'take': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { t: mt.take(sel, [0, -1]), wrap: mt.take(sel, [0, 5], { mode: 'wrap' }), clip: mt.take(sel, [0, 10], { mode: 'clip' }),
      along: mt.take_along_axis(rows, mt.argsort(rows, { axis: 0 }), { axis: 0 }), rows: mt.take(rows, [0, 2], { axis: 1 }),
      by: mt.take(x, mt.flatnonzero(x.greater(0))), put: mt.put_along_axis(rows, mt.zeros([1, 3], { dtype: 'int64' }), 9.0, { axis: 0 }) };
  },

  'joins': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { cat: mt.concatenate([sel, [7.0]]), cat2: mt.concatenate([sel, sel]), stack: mt.stack([sel, sel.multiply(2)]),
      stack1: mt.stack([sel, sel], { axis: 1 }), vs: mt.vstack([sel, sel]), hs: mt.hstack([sel, [1.0]]),
      cs: mt.column_stack([sel, sel.power(2)]), ds: mt.dstack([sel, sel]), vs_rows: mt.vstack([rows, [0.0, 0.0, 0.0]]),
      block: mt.block([sel, mt.array([0.0])]), cat_none: mt.concatenate([rows, sel], { axis: null }) };
  },

  'axes and shapes': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { T: rows.T, swap: mt.swapaxes(rows, 0, 1), move: mt.moveaxis(rows.get(':, :, None'), 0, -1), ed: mt.expand_dims(sel, 0),
      sq: mt.squeeze(sel.get(':, None')), bt: mt.broadcast_to(sel, [2, sel.size]), r1: rows.reshape(-1), r2: rows.reshape(-1, 1),
      r3: sel.reshape(2, -1), ravel: mt.ravel(rows), a1: mt.atleast_1d(sel) as T, a2: mt.atleast_2d(sel) as T, a3: mt.atleast_3d(sel) as T,
      zl: mt.zeros_like(sel), ol: mt.ones_like(rows), fl: mt.full_like(sel, 7.0), bc0: mt.broadcast_arrays(sel, 1.5)[1]!,
      unstack1: mt.unstack(rows, { axis: 1 })[1]!, perm: mt.permute_dims(rows, [1, 0]), mT: mt.matrix_transpose(rows), rollaxis: mt.rollaxis(rows, 1) };
  },

  'triangles and products': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { tril: mt.tril(rows), triu: mt.triu(rows, 1), outer: mt.outer(sel, sel), outer2: mt.outer(sel, [1.0, 2.0]),
      dot: mt.dot(sel, sel), mm: mt.matmul(rows, rows), mtm: mt.matmul(rows.T, rows), mv: mt.matmul(rows, mt.array([1.0, 0.0, -1.0])),
      ein: mt.einsum('i,i->', sel, sel), ein2: mt.einsum('ij->j', rows), td: mt.tensordot(sel, sel, 1),
      inner: mt.inner(sel, sel), vdot: mt.vdot(sel, sel), kron: mt.kron(sel, [1.0, 2.0]), cross: mt.cross(rows, rows.get('::-1')),
      vecdot: mt.vecdot(rows, rows), norm: mt.linalg.norm(sel), norm_rows: mt.linalg.norm(rows, { axis: 1 }), fro: mt.linalg.norm(rows) };
  },

  'statistics': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { mean: sel.mean(), var: sel.var({ ddof: 1 }), std: rows.std({ axis: 0 }), cov: mt.cov(sel), cov_rows: mt.cov(rows),
      cc: mt.corrcoef(rows), avg: mt.average(sel), avgw: mt.average(sel, { weights: sel }), avg_rows: mt.average(rows, 1, [1.0, 2.0, 3.0]),
      med: mt.median(sel), q: mt.quantile(sel, [0.25, 0.5]), pct: mt.percentile(rows, 50, { axis: 0 }),
      nanmean: mt.nanmean(sel), nanmed: mt.nanmedian(sel), nanargmax: mt.nanargmax(sel), ptp: mt.ptp(sel),
      nanvar: mt.nanvar(sel), amax: mt.argmax(sel), q_run: mt.quantile(sel, mt.array([0.25, 0.75]).add(0)),
      pct_sel_q: mt.percentile(x, sel.multiply(20)) };
  },

  'histograms and counts': ({ x, M, k }) => {
    const [sel, , ks] = sels(x, M, k);
    const [h3, e3] = mt.histogram(sel, { bins: 3 });
    const [he] = mt.histogram(sel, { bins: [0.0, 1.0, 2.0, 3.0] });
    const [ha, ea] = mt.histogram(sel, { bins: 'auto' });
    const [h2] = mt.histogram2d(sel, sel, { bins: 2 });
    return { h3, e3, he, ha, ea, bc: mt.bincount(ks), h2, edges: mt.histogram_bin_edges(sel, { bins: 2 }) };
  },

  'unique and sets': ({ x, M, k }) => {
    const [, rows, ks] = sels(x, M, k);
    const [u, c] = mt.unique(ks, { return_counts: true }) as T[];
    return { u: u!, c: c!, i1d: mt.intersect1d(ks, [1, 2, 3]) as T, u1d: mt.union1d(ks, [0, 3]), sd: mt.setdiff1d(ks, [4, 9]),
      sx: mt.setxor1d(ks, [1, 7]), urows: mt.unique(rows, { axis: 0 }) as T };
  },

  'elementwise and comparisons': ({ x, M, k }) => {
    const [sel, , ks] = sels(x, M, k);
    return { clip: mt.clip(sel, 1.0, 2.0), round: mt.round(sel.multiply(1.26), 1), w3: mt.where(sel.greater(1), sel, mt.negative(sel)),
      sel: mt.select([sel.greater(2), sel.less(1)], [sel, mt.negative(sel)], 0.0), choose: mt.choose(sel.greater(1).astype('int64'), [sel, mt.negative(sel)]),
      eq: mt.array_equal(sel, [1.5, 0.5, 3.0, 2.0]), eq_self: mt.array_equal(sel, sel), neq: mt.array_equal(sel, [1.5, 0.5]),
      allclose: mt.allclose(sel, [1.5, 0.5, 3.0, 2.0]), isclose: mt.isclose(sel, 0.5), add: sel.add(mt.arange(4)),
      nan_to_num: mt.nan_to_num(sel), sinc: mt.sinc(sel), bits: mt.packbits(ks.greater(2)), count: mt.bitwise_count(ks) };
  },

  'windows and applied functions': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { win: mt.lib.stride_tricks.sliding_window_view(sel, 2), win_rows: mt.lib.stride_tricks.sliding_window_view(rows, 2, { axis: 0 }),
      along1: mt.apply_along_axis((v) => mt.sum(v), 1, rows), along0: mt.apply_along_axis((v) => v.multiply(2), 0, rows),
      over: mt.apply_over_axes((t, axis) => mt.sum(t, { axis }), rows, [0]), pw: mt.piecewise(sel, [sel.greater(1)], [(v) => v.multiply(2), 0.0]) };
  },

  'index builders': ({ x, M, k }) => {
    const [sel, , ks] = sels(x, M, k);
    const [i, j] = mt.ix_(ks.get(':3'), [0, 1]);
    const un = mt.unravel_index(ks, [3, 4]);
    return { unravel0: un[0]!, unravel1: un[1]!, ravel: mt.ravel_multi_index([ks, ks], [10, 10]), ix_i: i!, ix_j: j!,
      lin: mt.linspace(sel, sel.multiply(2), 3), geom: mt.geomspace(sel, sel.multiply(4), 3), trim: mt.trim_zeros(mt.concatenate([[0], ks, [0, 0]])) };
  },

  'linear algebra of selected rows': ({ M }) => {
    const rows = M.get(M.get(':, 0').greater(0));
    const [, logdet] = mt.linalg.slogdet(rows) as T[];
    return { det: mt.linalg.det(rows), inv: mt.linalg.inv(rows), solve: mt.linalg.solve(rows, f64([1.0, 2.0, 3.0])),
      eigvalsh: mt.linalg.eigvalsh(mt.matmul(rows.T, rows)), svdvals: mt.linalg.svdvals(rows), pinv: mt.linalg.pinv(rows),
      power: mt.linalg.matrix_power(rows, 2), multi_dot: mt.linalg.multi_dot([rows, rows, rows]), cond: mt.linalg.cond(rows),
      logdet: logdet!, norm_inf: mt.linalg.norm(rows, Infinity), norm_2: mt.linalg.norm(rows, 2), matrix_norm: mt.linalg.matrix_norm(rows),
      vector_norm: mt.linalg.vector_norm(rows, { axis: 0 }) };
  },

  'nan functions': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { nansum: mt.nansum(sel), nanmin: mt.nanmin(sel), nanstd: mt.nanstd(sel), nanprod: mt.nanprod(sel),
      nanquantile: mt.nanquantile(sel, 0.3), nanpercentile: mt.nanpercentile(rows, 30, { axis: 0 }), nancumprod: mt.nancumprod(sel),
      nanargmin: mt.nanargmin(sel), nanvar0: mt.nanvar(rows, { axis: 0 }) };
  },

  'ufunc methods': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { reduce: mt.add.reduce(sel), accumulate: mt.add.accumulate(sel), outer: mt.multiply.outer(sel, sel),
      reduceat: mt.add.reduceat(sel, [0, 2]), max0: mt.maximum.reduce(rows, { axis: 0 }), sub: mt.subtract.reduce(sel),
      hypot: mt.hypot.reduce(sel), groups: mt.add.reduceat(x, mt.flatnonzero(x.greater(0))) };
  },

  'columns picked by a mask': ({ M }) => {
    const cols = M.get(':', M.get(0).greater(1));
    return { mean1: mt.mean(cols, { axis: 1 }), sort1: mt.sort(cols, { axis: 1 }), flip1: mt.flip(cols, 1), diff: mt.diff(cols),
      mm: mt.matmul(cols, cols.T), tile: mt.tile(cols, [1, 2]), pad: mt.pad(cols, [[0, 0], [1, 1]]), roll1: mt.roll(cols, 1, 1),
      q1: mt.quantile(cols, 0.5, { axis: 1 }), grad1: mt.gradient(cols, { axis: 1 }) as T, rot90: mt.rot90(cols), cov: mt.cov(cols.T),
      unique1: mt.unique(cols, { axis: 1 }) as T, trace: mt.trace(cols), split1: mt.split(cols, 2, { axis: 1 })[1]!,
      insert1: mt.insert(cols, 0, 7.0, { axis: 1 }), rows_of: cols.get(cols.get(':, 0').greater(0)), bt: mt.broadcast_to(cols, [2, 5, cols.shape[1]!]) };
  },

  'three dimensions': () => {
    const cube = mt.reshape(mt.arange(24, { dtype: 'float64' }), [2, 3, 4]);
    const c = cube.get(':', ':', cube.get(0, 0).greater(1));
    return { sum2: mt.sum(c, { axis: 2 }), flip: mt.flip(c), move: mt.moveaxis(c, 2, 0), mm: mt.matmul(c, mt.swapaxes(c, 1, 2)),
      diag: mt.diagonal(c, 0, 1, 2), tile: mt.tile(c, 2), dsplit1: mt.dsplit(c, [1])[1]!, ein: mt.einsum('ijk->ik', c) };
  },

  'polynomials': ({ x }) => {
    const sel = x.get(x.greater(0));
    const [q, r] = mt.polydiv(sel, f64([1.0, 1.0]));
    return { der: mt.polyder(sel), int: mt.polyint(sel), add: mt.polyadd(sel, f64([1.0, 2.0])), sub: mt.polysub(f64([1.0, 2.0]), sel),
      mul: mt.polymul(sel, f64([1.0, 1.0])), q: q!, r: r!, roots: mt.roots(f64([1.0, -3.0, 2.0, 5.0]).get(mt.array([true, true, true, false]))),
      poly: mt.poly(sel.get(':2')) as T, fit: mt.polyfit(sel, sel.multiply(2).add(1), 1) as T, unwrap: mt.unwrap(sel.multiply(3)) };
  },

  'empty selections': ({ x, M }) => {
    const none = x.get(x.greater(100)), noRows = M.get(M.get(':, 0').greater(100));
    const [h, e] = mt.histogram(none, { bins: 2 });
    return { flip: mt.flip(none), diff: mt.diff(none), roll: mt.roll(none, 1), h, e, mean0: mt.mean(noRows, { axis: 0 }),
      median: mt.median(none), split0: mt.array_split(none, 2)[0]!, tile: mt.tile(none, 2), cs: mt.cumsum(none) };
  },

  'assignment and indexing': ({ x, M }) => {
    const sel = x.get(x.greater(0)), rows = M.get(M.get(':, 0').greater(0));
    return { set_mask: x.set(x.greater(0), sel.multiply(2)), set_idx: x.set(mt.flatnonzero(x.greater(0)), 0.0), set_col: rows.set(':, 0', 0.0),
      slice: rows.get('1:, ::-1'), last: sel.get(-1), flat_set: rows.flat.set(0, 9.0), r_: mt.r_.get(sel, f64([0.0, 9.0])), c_: mt.c_.get(sel, sel) };
  },
};

// ---------------------------------------------------------------------------

async function check(c: Case, res: Result): Promise<void> {
  expect(Object.keys(res).sort()).toEqual(Object.keys(c.outputs).sort());
  const problems: string[] = [];
  for (const [key, e] of Object.entries(c.outputs)) {
    let nd: mt.NDArray;
    try {
      nd = await res[key]!.fetch();
    } catch (err) {
      problems.push(`${key}: ${(err as Error).name}: ${(err as Error).message}`);
      continue;
    }
    if (JSON.stringify(nd.shape) !== JSON.stringify(e.shape)) { problems.push(`${key}: shape ${JSON.stringify(nd.shape)}, want ${JSON.stringify(e.shape)}`); continue; }
    if (nd.dtype !== e.dtype) problems.push(`${key}: dtype ${nd.dtype}, want ${e.dtype}`);
    const got = Array.from(nd.data as ArrayLike<number | bigint>, Number);
    const bad: string[] = [];
    e.data.forEach((wv, i) => {
      const g = got[i]!, w = num(wv);
      const ok = Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= 1e-12 * Math.abs(w) + 1e-12;
      if (!ok && bad.length < 4) bad.push(`[${i}] got ${g} want ${w}`);
    });
    if (bad.length) problems.push(`${key}: ${bad.join(', ')}`);
  }
  expect(problems).toEqual([]);
}

describe('functions of selections against NumPy', () => {
  it('has a translation of every case', () => {
    expect(FIXTURE.cases.map((c) => c.name).filter((n) => !(n in CODE))).toEqual([]);
    expect(Object.keys(CODE).filter((n) => !FIXTURE.cases.some((c) => c.name === n))).toEqual([]);
  });
  for (const c of FIXTURE.cases) {
    it(c.name, async () => check(c, CODE[c.name]!(inputs())));
    for (const size of c.chunks) it(`${c.name} (chunkSize ${size})`, async () => check(c, CODE[c.name]!(inputs(size))));
  }
});

describe('what needs a length the run has yet to compute', () => {
  const x = () => mt.array([1.5, -2.0, 0.5, 3.0, -1.0, 2.0]);
  const sel = () => { const t = x(); return t.get(t.greater(0)); }; // [1.5, 0.5, 3.0, 2.0]

  it('refuses at the call, saying what to do, where the answer needs the length in JS', () => {
    const rows = mt.array([[1, 2], [-1, 3], [4, 5]]);
    const r = rows.get(rows.get(':, 0').greater(0));
    expect(() => mt.zeros(sel().shape)).toThrow(/full\(\) of shape \(NaN,\) needs a length known only at run time .*: execute\(\) the array first, or build from the array itself/);
    expect(() => mt.arange(sel().size)).toThrow(/arange: cannot compute length .*execute\(\) that array first/);
    expect(() => mt.unstack(r)).toThrow(/unstack\(\): the number of arrays is the length of axis 0, known only at run time .*execute\(\) the array first/);
    expect(() => mt.lexsort(r)).toThrow(/lexsort\(\): the number of keys .*execute\(\) the array first/);
  });

  it('fails the run with NumPy\'s error where the computed length does not fit', async () => {
    // np.split(np.array([1.5, 0.5, 3., 2.]), 3): ValueError: array split does not result in an equal division
    await expect(mt.split(sel(), 3)[0]!.fetch()).rejects.toThrow(/array split does not result in an equal division/);
    // np.repeat(sel, [1, 2]): ValueError: operands could not be broadcast together with shape (4,) (2,)
    await expect(mt.repeat(sel(), [1, 2]).fetch()).rejects.toThrow(/operands could not be broadcast together with shape \(4,\) \(2,\)/);
    // np.insert(sel, [9], 0.0): IndexError: index 9 is out of bounds for axis 0 with size 4
    await expect(mt.insert(sel(), mt.array([9]).add(0), 0.0).fetch()).rejects.toThrow(/index 9 is out of bounds for axis 0 with size 4/);
    // np.einsum('i,i->', sel, np.ones(5)): ValueError (operands could not be broadcast)
    await expect(mt.einsum('i,i->', sel(), mt.ones([5])).fetch()).rejects.toThrow(/could not be broadcast/);
    // a selection of one element squeezed: NumPy's result has one dimension fewer, which a lazy shape cannot follow
    const one = x().get(x().greater(2.5));
    await expect(mt.squeeze(one).fetch()).rejects.toThrow(/squeeze\(\): over the lengths the run computed, the result has 0 dimensions, not the 1 .*execute\(\) the array first/);
  });

  it('gives NumPy\'s values where the lengths agree, and those of empty selections', async () => {
    const vals = async (t: mt.Tensor) => Array.from((await t.fetch()).data as ArrayLike<number>, Number);
    expect(await vals(mt.einsum('i,i->', sel(), mt.ones([4])))).toEqual([7]); // np.einsum('i,i->', sel, np.ones(4)) == 7.0
    expect(await vals(mt.average(mt.array([4.0, 10.0, 1.0, 1.0]), { weights: sel() }))).toEqual([(6 + 5 + 3 + 2) / 7]); // np.average([4., 10., 1., 1.], weights=sel)
    const none = x().get(x().greater(100));
    expect((await mt.flip(none).fetch()).shape).toEqual([0]); // np.flip(x[x > 100]).shape == (0,)
    const [h, e] = mt.histogram(none, { bins: 2 });
    expect(await vals(h!)).toEqual([0, 0]); // np.histogram(x[x > 100], bins=2) == ([0, 0], [0., 0.5, 1.])
    expect(await vals(e!)).toEqual([0, 0.5, 1]);
  });

  it('never builds over a made-up length: the graph builders refuse NaN where they need a length', () => {
    const s = sel().node;
    expect(() => G.iota([NaN], 0)).toThrow(G.UnknownLengthError);
    expect(() => G.slice(s, [NaN], [-1], [NaN])).toThrow(/a slice \(start NaN, step -1, length NaN\) of axis 0 of an array of shape \(NaN,\) needs a length known only at run time/);
    expect(() => G.slice(s, [0], [1], [3])).toThrow(G.UnknownLengthError);
    expect(() => G.expand(G.constant(0, 'float64'), [NaN])).toThrow(G.UnknownLengthError);
    expect(() => G.reshape(mt.ones([4]).node, [NaN, 3])).toThrow(/cannot reshape array of size 4 into shape \(NaN, 3\)/);
    expect(G.reshape(mt.ones([6]).node, [NaN, 3]).shape).toEqual([2, 3]);
    expect(() => G.binary('add', G.iota([2], 0), G.expand(G.constant(1, 'int64'), [NaN]), 'int64')).toThrow(G.UnknownLengthError);
  });
});

describe('linear algebra and draws over a selection', () => {
  const x = () => mt.tensor([[2, 0, 0], [9, 9, 9], [0, 3, 0], [0, 0, 4], [1, 1, 1]], { dtype: 'float64' });
  const rows = () => x().get(mt.tensor([true, false, true, true, true]));
  it('matrix_rank and lstsq are built once the run knows the length', async () => {
    // np.linalg.matrix_rank(r) and np.linalg.lstsq(r, [1, 2, 3, 4.]) for r = x[[0, 2, 3, 4]]
    expect((await mt.linalg.matrix_rank(rows()).fetch()).item()).toBe(3);
    const [sol, res, rank] = mt.linalg.lstsq(rows(), mt.tensor([1, 2, 3, 4], { dtype: 'float64' }));
    const want = [0.8658536585365856, 0.8292682926829268, 0.8414634146341465];
    Array.from((await sol!.fetch()).data as Float64Array).forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-14));
    expect(Math.abs(Number((await res!.fetch()).data[0]) - 3.048780487804878)).toBeLessThan(1e-13);
    expect(Number((await rank!.fetch()).item())).toBe(3);
  });
  it('choice with replacement draws from a population of unknown length', async () => {
    const pop = mt.arange(10).get(mt.arange(10).greater(4));
    const got = Array.from((await mt.random.default_rng(1).choice(pop, 400).fetch()).data as BigInt64Array, Number);
    // every value of the selection (5..9), and nothing else, with the draws a known population gets
    expect(new Set(got)).toEqual(new Set([5, 6, 7, 8, 9]));
    const known = Array.from((await mt.random.default_rng(1).choice(mt.arange(5, 10), 400).fetch()).data as BigInt64Array, Number);
    expect(got).toEqual(known);
    expect(() => mt.random.default_rng(1).choice(pop, 2, { replace: false })).toThrow(/execute\(\) it first/);
  });
});

describe('a selection that feeds a reduction', () => {
  // integer-valued floats: every order of summing gives the same bits, so the fused path must equal the stored one
  const data = (n: number, chunk: number) => mt.arange(0, n, 1, { chunkSize: chunk }).multiply(7).remainder(101).subtract(50);
  const ref = (n: number, keep: (v: number) => boolean) => {
    const v = Array.from({ length: n }, (_, i) => ((i * 7) % 101) - 50).filter(keep);
    return { sum: v.reduce((a, b) => a + b, 0), count: v.length, prod: v.slice(0, 30).reduce((a, b) => a * (b === 0 ? 1 : Math.sign(b)), 1), all: v.every((x) => x !== 0), any: v.some((x) => x > 45) };
  };

  it('is reduced in one fused pass, never stored (no compaction runs), with the stored selection\'s values', async () => {
    const x = data(100_000, 7_000);
    const m = x.greater(3);
    const want = ref(100_000, (v) => v > 3);
    const s = x.get(m).sum();
    expect((await s.fetch()).item()).toBe(want.sum);
    const trace = mt.lastReport()!.trace;
    expect(trace.traceEvents.filter((e) => e.cat === 'host')).toEqual([]);
    expect((await x.get(m).mean().fetch()).item()).toBe(want.sum / want.count);
    expect((await mt.count_nonzero(x.get(m)).fetch()).item()).toBe(want.count);
    expect((await x.get(m).any().fetch()).item()).toBe(true);
    expect((await x.get(m).greater(45).any().fetch()).item()).toBe(want.any);
    expect((await x.get(m).all().fetch()).item()).toBe(want.all);
    // an expression over the selection (with a scalar and a broadcast operand) fuses the same way
    const e = x.get(m).multiply(2).add(mt.array([1])).sum();
    expect((await e.fetch()).item()).toBe(2 * want.sum + want.count);
    expect(mt.lastReport()!.trace.traceEvents.filter((ev) => ev.cat === 'host')).toEqual([]);
    // an empty selection: the reductions' identities, as NumPy's
    const none = x.get(x.greater(1000));
    expect((await none.sum().fetch()).item()).toBe(0);
    expect(Number.isNaN((await none.mean().fetch()).item() as number)).toBe(true);
    expect((await none.all().fetch()).item()).toBe(true);
    // max has no identity: the selection is stored, and an empty one is NumPy's error
    await expect(none.max().fetch()).rejects.toThrow(/zero-size array to reduction operation maximum which has no identity/);
  });

  it('rows picked by a mask, reduced along the picked axis or whole; along another axis the selection is stored', async () => {
    const M = data(60_000, 5_000).reshape([6_000, 10]);
    const keep = M.get(':, 0').greater(0);
    const want = (col: number) => Array.from({ length: 6_000 }, (_, r) => r).filter((r) => ((r * 70 % 101) - 50) > 0).reduce((a, r) => a + (((r * 10 + col) * 7) % 101) - 50, 0);
    const cols = (await M.get(keep).sum({ axis: 0 }).fetch()).toArray() as number[];
    expect(cols).toEqual(Array.from({ length: 10 }, (_, c) => want(c)));
    expect(mt.lastReport()!.trace.traceEvents.filter((e) => e.cat === 'host')).toEqual([]);
    expect((await M.get(keep).sum().fetch()).item()).toBe(cols.reduce((a, b) => a + b, 0));
    const rows = await M.get(keep).sum({ axis: 1 }).fetch();
    expect(rows.shape).toEqual([cols.length === 10 ? Array.from({ length: 6_000 }, (_, r) => r).filter((r) => ((r * 70 % 101) - 50) > 0).length : 0]);
    // two selections by different masks are not one: stored, then combined
    const a = data(1000, 300), b = data(1000, 300).multiply(-1);
    const s = a.get(a.greater(0)).add(b.get(b.less(0))).sum();
    expect((await s.fetch()).item()).toBe(0);
  });
});
