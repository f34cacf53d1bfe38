// Statistics and data-analysis programs as a NumPy user writes them: z-scores,
// covariance and correlation, weighted averages, percentiles and quantile
// methods, histograms and binning, group-by through unique + bincount,
// moving averages, NaN-aware summaries, ranks, drawdowns, integer and float32
// data. Each program is translated line for line (NumPy's keywords in a
// trailing options object, x[...] as get/set) and checked against
// fixtures/programs_stats.json, written by fixtures/gen_programs_stats.py
// from NumPy 2.4 on the same seeded inputs. Some programs run a second time
// with inputs cut into small chunks: the results must not depend on tiling.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

type Enc = { tensor: unknown; shape: number[]; dtype: string };
type Program = { name: string; inputs: Record<string, Enc>; outputs: Record<string, Enc> };
type T = mt.Tensor;
type Out = Record<string, T | number | boolean>;

const programs: Program[] = JSON.parse(readFileSync(new URL('./fixtures/programs_stats.json', import.meta.url), 'utf8'));

const dec = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(dec);
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  return v;
};
const flat = (v: unknown): unknown[] => (Array.isArray(v) ? v.flatMap(flat) : [v]);

const build = (p: Program, chunkSize?: number): Record<string, T> =>
  Object.fromEntries(Object.entries(p.inputs).map(([k, e]) => [k, mt.tensor(dec(e.tensor) as number[], { dtype: e.dtype, ...(chunkSize ? { chunkSize } : {}) })]));

// Float tolerances, relative to the largest magnitude of the expected output
// (so that values which should be 0, like the mean of z-scores, compare at
// the output's own scale). float64: 1e-12 by default; programs whose results
// pass through long reductions, sqrt/log/exp chains or divisions by
// differences (correlations, sharpe ratios, normalised z-scores) get 1e-10,
// which is still far below any real discrepancy. float32: 1e-5. Plus an
// absolute 1e-13 (float32: 1e-6) for outputs that cancel to rounding noise
// (the column means of z-scores are ~1e-16, summed in another order).
const LOOSE = new Set(['zscore_columns', 'zscore_rows_clipped', 'cov_corr_columns', 'cov_rows_and_pair', 'weighted_cov', 'most_correlated_pair',
  'manual_cov_matches', 'drawdown', 'large_zscore_hist_groupby', 'large_corr', 'nan_summary', 'nan_quantiles_and_argmax', 'weighted_std']);

async function check(p: Program, got: Out): Promise<void> {
  expect(Object.keys(got).sort()).toEqual(Object.keys(p.outputs).sort());
  for (const [k, exp] of Object.entries(p.outputs)) {
    const g = got[k]!;
    const want = flat(dec(exp.tensor)) as (number | boolean)[];
    let shape: number[], dtype: string, vals: (number | boolean)[];
    if (typeof g === 'number' || typeof g === 'boolean') {
      [shape, dtype, vals] = [[], exp.dtype, [g]];
    } else {
      const nd = await g.fetch();
      [shape, dtype] = [[...nd.shape], nd.dtype];
      vals = Array.from(nd.data as ArrayLike<number | bigint | boolean>, (v) => (typeof v === 'bigint' ? Number(v) : v as number | boolean));
      if (dtype === 'bool') vals = vals.map((v) => Boolean(v));
    }
    expect({ out: k, dtype, shape }).toEqual({ out: k, dtype: exp.dtype, shape: exp.shape });
    if (exp.dtype.startsWith('float')) {
      const f32 = exp.dtype === 'float32' || exp.dtype === 'float16';
      const rtol = f32 ? 1e-5 : LOOSE.has(p.name) ? 1e-10 : 1e-12, atol = f32 ? 1e-6 : 1e-13;
      const scale = Math.max(...want.map((v) => (Number.isFinite(v as number) ? Math.abs(v as number) : 0)), Number.MIN_VALUE);
      const bad = want.flatMap((w, i) => {
        const v = vals[i] as number, e = w as number;
        if (Number.isNaN(e) || !Number.isFinite(e)) return Object.is(v, e) || (Number.isNaN(e) && Number.isNaN(v)) ? [] : [[i, v, e]];
        return Math.abs(v - e) <= rtol * Math.max(scale, Math.abs(e)) + atol ? [] : [[i, v, e]];
      });
      expect({ out: k, bad: bad.slice(0, 5) }).toEqual({ out: k, bad: [] });
    } else {
      expect({ out: k, vals }).toEqual({ out: k, vals: want });
    }
  }
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);

const run: Record<string, (a: Record<string, T>) => Out | Promise<Out>> = {
  // --- standardisation -------------------------------------------------------
  zscore_columns: ({ X }) => {
    const mu = X!.mean({ axis: 0, keepdims: true });
    const sd = X!.std({ axis: 0, ddof: 1, keepdims: true });
    const Z = X!.subtract(mu).divide(sd);
    return { Z, zmean: Z.mean({ axis: 0 }), zstd: Z.std({ axis: 0, ddof: 1 }) };
  },
  zscore_rows_clipped: ({ X }) => {
    let Z = X!.subtract(mt.mean(X!, { axis: 1, keepdims: true })).divide(mt.std(X!, { axis: 1, keepdims: true }));
    Z = mt.clip(Z, -1.5, 1.5);
    return { Z, n_clipped: mt.sum(mt.abs(Z).equal(1.5), { axis: 1 }) };
  },
  minmax_scale: ({ X }) => {
    const lo = X!.min({ axis: 0 });
    const rng = mt.ptp(X!, { axis: 0 });
    const S = X!.subtract(lo).divide(rng);
    const S2 = mt.multiply(2, S).subtract(1);
    return { S, S2, ptp: rng, check: S.max({ axis: 0 }).subtract(S.min({ axis: 0 })) };
  },

  // --- covariance and correlation ---------------------------------------------
  cov_corr_columns: ({ X }) => {
    const C = mt.cov(X!, { rowvar: false });
    const R = mt.corrcoef(X!, { rowvar: false });
    const sd = mt.sqrt(mt.diag(C));
    const R2 = C.divide(mt.outer(sd, sd));
    return { C, R, R2 };
  },
  cov_rows_and_pair: ({ A, x, y }) => {
    const C = mt.cov(A!);
    const y2 = mt.multiply(0.6, x!).add(mt.multiply(0.4, y!));
    const r = mt.corrcoef(x!, y2).get('0, 1');
    const cxy = mt.cov(x!, y2, { ddof: 0 });
    return { C, r, cxy };
  },
  weighted_cov: ({ X, w, f }) => {
    const Ca = mt.cov(X!, { rowvar: false, aweights: w });
    const Cf = mt.cov(X!, { rowvar: false, fweights: f });
    const Cb = mt.cov(X!.T, { fweights: f, aweights: w });
    return { Ca, Cf, Cb };
  },
  most_correlated_pair: ({ X: X0 }) => {
    const X = X0!.copy().set(':, 3', X0!.get(':, 1').multiply(0.9).add(X0!.get(':, 3').multiply(0.1)));
    const R = mt.corrcoef(X.T);
    const off = mt.abs(R.subtract(mt.eye(R.shape[0]!)));
    const [i, j] = mt.unravel_index(mt.argmax(off), R.shape);
    return { R, i: i!, j: j!, best: off.max() };
  },
  manual_cov_matches: ({ X }) => {
    const Xc = X!.subtract(X!.mean({ axis: 0 }));
    const C = mt.matmul(Xc.T, Xc).divide(X!.shape[0]! - 1);
    return { C, diff: mt.abs(C.subtract(mt.cov(X!, { rowvar: false }))).max().less(1e-12), var: X!.var({ axis: 0, ddof: 1 }) };
  },

  // --- weighted averages -------------------------------------------------------
  weighted_average_returned: ({ V, w, u }) => {
    const [avg, sw] = mt.average(V!, { axis: 1, weights: w, returned: true });
    const col = mt.average(V!, { axis: 0, weights: u });
    const tot = mt.average(V!);
    return { avg, sw, col, tot };
  },
  weighted_grades: ({ scores }) => {
    const w = mt.array([0.2, 0.3, 0.5]);
    const final = mt.average(scores!, { axis: 1, weights: w });
    const rank = mt.argsort(final.negative());
    const passed = final.greater_equal(65);
    return { final, rank, passed, n_passed: mt.count_nonzero(passed) };
  },
  weighted_std: ({ x, w }) => {
    const avg = mt.average(x!, { weights: w });
    const v = mt.average(x!.subtract(avg).power(2), { weights: w });
    return { avg, var: v, std: mt.sqrt(v) };
  },

  // --- percentiles, quantiles, median -------------------------------------------
  percentiles_along_axes: ({ X }) => {
    const p = mt.percentile(X!, [10, 50, 90], { axis: 0 });
    const med = mt.median(X!, { axis: 1 });
    const q = mt.quantile(X!, 0.25, { axis: 1, keepdims: true });
    return { p, med, q, all: mt.percentile(X!, 75) };
  },
  quantile_methods: ({ x }) => {
    const out: Out = {};
    for (const m of ['linear', 'lower', 'higher', 'nearest', 'midpoint', 'hazen', 'weibull',
      'median_unbiased', 'normal_unbiased', 'inverted_cdf', 'averaged_inverted_cdf',
      'closest_observation', 'interpolated_inverted_cdf']) {
      out[m] = mt.quantile(x!, [0.1, 0.5, 0.9], { method: m });
    }
    return out;
  },
  iqr_outliers: ({ x }) => {
    const pq = mt.percentile(x!, [25, 75]);
    const q1 = pq.get(0), q3 = pq.get(1);
    const iqr = q3.subtract(q1);
    const mask = x!.less(q1.subtract(mt.multiply(1.5, iqr))).bitwise_or(x!.greater(q3.add(mt.multiply(1.5, iqr))));
    const outliers = x!.get(mask);
    const cleaned = x!.get(mt.invert(mask));
    return { iqr, outliers, n: mask.sum(), clean_mean: cleaned.mean(), where: mt.flatnonzero(mask) };
  },
  zscore_outlier_mask: ({ x }) => {
    const z = mt.abs(x!.subtract(x!.mean()).divide(x!.std()));
    const kept = x!.get(z.less(2));
    return { kept, n_out: z.greater_equal(2).sum(), idx: mt.nonzero(z.greater_equal(2))[0]!, kept_std: kept.std({ ddof: 1 }) };
  },
  describe_columns: ({ X }) => {
    const summary = mt.vstack([
      mt.full(X!.shape[1]!, X!.shape[0]!, { dtype: 'float64' }),
      X!.mean({ axis: 0 }),
      X!.std({ axis: 0, ddof: 1 }),
      X!.min({ axis: 0 }),
      mt.percentile(X!, 25, { axis: 0 }),
      mt.median(X!, { axis: 0 }),
      mt.percentile(X!, 75, { axis: 0 }),
      X!.max({ axis: 0 }),
    ]);
    return { summary };
  },
  ecdf: ({ x }) => {
    const xs = mt.sort(x!);
    const n = xs.shape[0]!;
    const y = mt.arange(1, n + 1).divide(n);
    const q = mt.array([-1.0, 0.0, 0.5, 2.0]);
    const F = mt.searchsorted(xs, q, { side: 'right' }).divide(n);
    const prank = mt.interp(q, xs, y);
    return { xs, y, F, prank };
  },

  // --- histograms and binning ----------------------------------------------------
  histogram_counts: ({ x }) => {
    const [counts, edges] = mt.histogram(x!, { bins: 10 });
    const centers = edges.get(':-1').add(edges.get('1:')).divide(2);
    const mode = centers.get(mt.argmax(counts));
    return { counts, edges, centers, mode };
  },
  histogram_density: ({ x }) => {
    const [dens, edges] = mt.histogram(x!, { bins: 8, range: [-2, 2], density: true });
    const area = mt.sum(dens.multiply(mt.diff(edges)));
    return { dens, edges, area };
  },
  histogram_weighted_edges: ({ x, w }) => {
    const bins = mt.array([0.0, 1.0, 2.5, 5.0, 7.5, 10.0]);
    const [h] = mt.histogram(x!, bins, { weights: w });
    const [n] = mt.histogram(x!, bins);
    return { h, n, mean_w: h.divide(n) };
  },
  histogram2d_joint: ({ x, y }) => {
    const [H, xe, ye] = mt.histogram2d(x!, y!, { bins: 4 });
    const px = H.sum({ axis: 1 }).divide(H.sum());
    return { H, xe, ye, px };
  },
  bincount_group_means: ({ labels, vals }) => {
    const sums = mt.bincount(labels!, { weights: vals, minlength: 7 });
    const counts = mt.bincount(labels!, { minlength: 7 });
    const means = sums.divide(mt.maximum(counts, 1));
    return { sums, counts, means, top: mt.argmax(counts) };
  },
  digitize_bins: ({ x }) => {
    const bins = mt.array([0.0, 1.0, 2.5, 4.0]);
    const idx = mt.digitize(x!, bins);
    const idx_r = mt.digitize(x!, bins, { right: true });
    const counts = mt.bincount(idx, { minlength: bins.shape[0]! + 1 });
    return { idx, idx_r, counts };
  },
  mode_of_ints: ({ x }) => {
    const counts = mt.bincount(x!);
    const mode = mt.argmax(counts);
    const [vals, cnt] = mt.unique(x!, { return_counts: true }) as T[];
    return { counts, mode, vals: vals!, cnt: cnt!, mode2: vals!.get(mt.argmax(cnt!)) };
  },

  // --- group-by -----------------------------------------------------------------
  groupby_unique_bincount: ({ keys, vals }) => {
    const [uk, inv, cnt] = mt.unique(keys!, { return_inverse: true, return_counts: true }) as T[];
    const sums = mt.bincount(inv!, { weights: vals });
    const means = sums.divide(cnt!);
    const best = uk!.get(mt.argmax(means));
    const centered = vals!.subtract(means.get(inv!));
    return { uk: uk!, inv: inv!, cnt: cnt!, sums, means, best, centered };
  },
  groupby_2d_keys: ({ g, v }) => {
    const [u, inv] = mt.unique(g!, { return_inverse: true }) as T[];
    const sq = mt.bincount(inv!.ravel(), { weights: v!.power(2).ravel() });
    const n = mt.bincount(inv!.ravel());
    const rms = mt.sqrt(sq.divide(n));
    return { u: u!, inv: inv!, rms };
  },
  per_group_max_argmax: ({ group, score }) => {
    const maxes = mt.array(seq(3).map((k) => score!.get(group!.equal(k)).max()));
    const winner = mt.argmax(maxes);
    const order = mt.lexsort([score!.negative(), group!]);
    return { maxes, winner, order };
  },

  // --- moving windows and cumulative ------------------------------------------------
  moving_average_cumsum: ({ x }) => {
    const w = 5;
    const c = mt.cumsum(mt.insert(x!, 0, 0.0));
    const ma = c.get(`${w}:`).subtract(c.get(`:-${w}`)).divide(w);
    const c2 = mt.concatenate([[0.0], mt.cumsum(x!)]);
    return { ma, ma2: c2.get(`${w}:`).subtract(c2.get(`:-${w}`)).divide(w) };
  },
  moving_average_convolve: ({ x }) => {
    const k = mt.ones(4).divide(4);
    const valid = mt.convolve(x!, k, { mode: 'valid' });
    const same = mt.convolve(x!, k, { mode: 'same' });
    const tri = mt.convolve(x!, mt.array([1.0, 2.0, 1.0]).divide(4), { mode: 'full' });
    return { valid, same, tri };
  },
  drawdown: async ({ prices }) => {
    const running_max = mt.maximum.accumulate(prices!);
    const dd = prices!.subtract(running_max).divide(running_max);
    const trough = mt.argmin(dd);
    const peak = mt.argmax(prices!.get(`:${Number(await trough.item()) + 1}`));
    const r = mt.diff(mt.log(prices!));
    const sharpe = r.mean().divide(r.std({ ddof: 1 })).multiply(Math.sqrt(252));
    const growth = mt.cumprod(mt.add(1, mt.diff(prices!).divide(prices!.get(':-1'))));
    return { running_max, dd, max_dd: dd.min(), trough, peak, sharpe, growth };
  },
  cumulative_extrema_2d: ({ X }) => {
    const cmax = mt.maximum.accumulate(X!, { axis: 1 });
    const cmin = mt.minimum.accumulate(X!, { axis: 0 });
    const records = X!.equal(cmax).sum({ axis: 1 });
    return { cmax, cmin, records };
  },

  // --- NaN-aware summaries -------------------------------------------------------
  nan_summary: ({ X }) => ({
    mean: mt.nanmean(X!, { axis: 0 }),
    std: mt.nanstd(X!, { axis: 0, ddof: 1 }),
    median: mt.nanmedian(X!, { axis: 0 }),
    pct: mt.nanpercentile(X!, [25, 75], { axis: 0 }),
    n_missing: mt.isnan(X!).sum({ axis: 0 }),
    min: mt.nanmin(X!, { axis: 1 }),
    max: mt.nanmax(X!, { axis: 1 }),
    plain_mean: X!.mean({ axis: 0 }),
  }),
  nan_impute_column_means: ({ X }) => {
    const col_means = mt.nanmean(X!, { axis: 0 });
    const inds = mt.where(mt.isnan(X!)) as unknown as T[];
    const Y = X!.copy().set(...inds, mt.take(col_means, inds[1]!));
    const Y2 = mt.where(mt.isnan(X!), col_means, X!);
    return { col_means, Y, Y2, same: mt.array_equal(Y, Y2) };
  },
  nan_quantiles_and_argmax: ({ x }) => ({
    q: mt.nanquantile(x!, [0.1, 0.5, 0.9]),
    var: mt.nanvar(x!),
    amax: mt.nanargmax(x!),
    amin: mt.nanargmin(x!),
    csum: mt.nancumsum(x!),
    valid_mean: x!.get(mt.invert(mt.isnan(x!))).mean(),
  }),

  // --- ranks ----------------------------------------------------------------------
  rank_by_argsort: ({ x, M }) => {
    const n = x!.shape[0]!;
    const ranks = mt.argsort(mt.argsort(x!));
    const order = mt.argsort(x!);
    const ranks2 = mt.empty_like(order).set(order, mt.arange(n));
    const row_ranks = M!.argsort({ axis: 1 }).argsort({ axis: 1 });
    const pct = ranks.divide(n - 1);
    return { ranks, ranks2, row_ranks, pct };
  },
  rank_with_ties_average: ({ x }) => {
    const [, inv, cnt] = mt.unique(x!, { return_inverse: true, return_counts: true }) as T[];
    const first = mt.cumsum(cnt!).subtract(cnt!);
    const avg_rank = first.add(cnt!.subtract(1).divide(2));
    return { ranks: avg_rank.get(inv!).add(1) };
  },

  // --- integer and float32 data ------------------------------------------------------
  integer_stats: ({ x, M }) => ({
    mean: x!.mean(),
    sum: x!.sum(),
    var: x!.var(),
    std: mt.std(x!, { ddof: 1 }),
    median: mt.median(x!),
    p_lower: mt.percentile(x!, 30, { method: 'lower' }),
    p_lin: mt.percentile(x!, 30),
    colmean: M!.mean({ axis: 0 }),
    rowsum: M!.sum({ axis: 1 }),
    ptp: mt.ptp(M!, { axis: 1 }),
    cumsum: mt.cumsum(x!),
    mean32: mt.mean(x!, { dtype: 'float32' }),
    avg: mt.average(M!, { axis: 1, weights: mt.array([1, 2, 3, 4]) }),
    amax: M!.argmax({ axis: 0 }),
  }),
  float32_stats: ({ X }) => {
    const mu = X!.mean({ axis: 0 });
    const sd = X!.std({ axis: 0 });
    const Z = X!.subtract(mu).divide(sd);
    return {
      mu, sd, Z,
      var1: X!.var({ axis: 0, ddof: 1 }),
      med: mt.median(X!, { axis: 0 }),
      cs: mt.cumsum(X!, { axis: 0 }),
      mm: X!.subtract(X!.min({ axis: 0 })).divide(mt.ptp(X!, { axis: 0 })),
      cov: mt.cov(X!, { rowvar: false }),
    };
  },

  // --- larger arrays (tiled) ----------------------------------------------------------
  large_zscore_hist_groupby: ({ x, g }) => {
    const z = x!.subtract(x!.mean()).divide(x!.std());
    const [counts, edges] = mt.histogram(z, { bins: 12, range: [-3, 3] });
    const sums = mt.bincount(g!, { weights: x, minlength: 10 });
    const n = mt.bincount(g!, { minlength: 10 });
    return {
      counts, edges, group_means: sums.divide(n),
      p: mt.percentile(x!, [1, 5, 50, 95, 99]), tail: mt.abs(z).greater(3).sum(),
      ma_last: mt.convolve(x!, mt.ones(10).divide(10), { mode: 'valid' }).get('-5:'),
    };
  },
  large_corr: ({ X }) => {
    const R = mt.corrcoef(X!, { rowvar: false });
    const s = X!.std({ axis: 0, ddof: 1 });
    const cmax = mt.maximum.accumulate(X!.get(':, 0'));
    return { R, s, cmax_tail: cmax.get('-10:'), med: mt.median(X!, { axis: 0 }) };
  },

  // --- more: windows, robust statistics, multi-axis, edge cases -------------------------
  sliding_window_stats: ({ x }) => {
    const W = mt.lib.stride_tricks.sliding_window_view(x!, 5);
    return { mean: W.mean({ axis: -1 }), std: W.std({ axis: -1, ddof: 1 }), max: W.max({ axis: 1 }) };
  },
  winsorize: ({ x }) => {
    const pq = mt.percentile(x!, [5, 95]);
    const lo = pq.get(0), hi = pq.get(1);
    const w = mt.clip(x!, lo, hi);
    return { w, mean: w.mean(), changed: mt.count_nonzero(w.not_equal(x!)) };
  },
  reduceat_groupby: ({ keys, vals }) => {
    const order = mt.argsort(keys!, { kind: 'stable' });
    const ks = keys!.get(order), vs = vals!.get(order);
    const starts = mt.flatnonzero(mt.concatenate([[true], ks.get('1:').not_equal(ks.get(':-1'))]));
    const sums = mt.add.reduceat(vs, starts);
    const maxs = mt.maximum.reduceat(vs, starts);
    return { starts, groups: ks.get(starts), sums, maxs };
  },
  topk_argpartition: ({ x }) => {
    const k = 5;
    const idx = mt.argpartition(x!.negative(), k).get(`:${k}`);
    const top = idx.get(mt.argsort(x!.get(idx).negative()));
    return { top, vals: x!.get(top) };
  },
  multiaxis_stats: ({ X }) => ({
    mean02: X!.mean({ axis: [0, 2] }),
    std12: mt.std(X!, { axis: [1, 2], ddof: 1 }),
    p01: mt.percentile(X!, 50, { axis: [0, 1] }),
    med02k: mt.median(X!, { axis: [0, 2], keepdims: true }),
    max01: X!.max({ axis: [0, 1] }),
    var_neg: X!.var({ axis: -1 }),
  }),
  histogram_estimators_and_ints: ({ x, ints }) => {
    const [c_auto, e_auto] = mt.histogram(x!, { bins: 'auto' });
    const [c_fd, e_fd] = mt.histogram(x!, { bins: 'fd' });
    const [c_int, e_int] = mt.histogram(ints!, { bins: 5 });
    return { c_auto, e_auto, c_fd, e_fd, c_int, e_int, sturges: mt.histogram_bin_edges(x!, { bins: 'sturges' }) };
  },
  all_nan_and_constant_columns: ({ X }) => ({
    nanmean: mt.nanmean(X!, { axis: 0 }),
    nanmedian: mt.nanmedian(X!, { axis: 0 }),
    nanmax: mt.nanmax(X!, { axis: 0 }),
    nanstd: mt.nanstd(X!, { axis: 0 }),
    count: mt.sum(mt.invert(mt.isnan(X!)), { axis: 0 }),
    corr_const: mt.corrcoef(mt.array([1.0, 2.0, 4.0, 5.0]), X!.get(':, 2')).get(0),
  }),
  small_int_types: ({ a, img }) => ({
    sum: a!.sum(), mean: a!.mean(), ptp: mt.ptp(a!), cumsum: mt.cumsum(a!),
    img_mean: img!.mean(), img_std: img!.std(), img_rowmax: img!.max({ axis: 1 }),
    hist: mt.histogram(img!, { bins: 4, range: [0, 256] })[0],
    levels: mt.bincount(mt.floor_divide(img!, 16).ravel(), { minlength: 16 }),
  }),
  bool_stats: ({ mask, w }) => ({
    frac: mask!.mean(), col: mt.sum(mask!, { axis: 0 }), cum: mt.cumsum(mask!.get(0)),
    std: mask!.std({ axis: 1 }), wavg: mt.average(mask!, { axis: 1, weights: w }), any_row: mt.any(mask!, { axis: 1 }),
  }),
  weighted_percentiles: ({ x, w }) => {
    const order = mt.argsort(x!);
    const cw = mt.cumsum(w!.get(order));
    const idx = mt.searchsorted(cw, mt.multiply(0.5, cw.get(-1)));
    const wmed = x!.get(order).get(idx);
    const wp = mt.percentile(x!, [25, 50, 75], { weights: w, method: 'inverted_cdf' });
    return { cw, idx, wmed, wp };
  },
  where_reductions: ({ X }) => ({
    pos_mean: mt.mean(X!, { axis: 1, where: X!.greater(0) }),
    masked_sum: mt.sum(X!, { axis: 0, where: mt.abs(X!).less(1) }),
    capped_max: mt.max(X!, { axis: 1, where: X!.less(1), initial: -Infinity }),
    pos_std: mt.std(X!, { where: X!.greater(0) }),
  }),
  float32_nan_percentiles: ({ X, w }) => {
    const Xf = mt.nan_to_num(X!, { nan: 50.0 });
    return {
      p: mt.percentile(Xf, [25, 75], { axis: 0 }),
      nanmean: mt.nanmean(X!, { axis: 0 }),
      nanmed: mt.nanmedian(X!, { axis: 0 }),
      med: mt.median(Xf),
      avg: mt.average(Xf, { axis: 0, weights: w }),
      nanp: mt.nanpercentile(X!, 90, { axis: 0 }),
    };
  },
  cov_variants: ({ x, X, Y }) => ({
    cov1d: mt.cov(x!),
    biased: mt.cov(X!, { rowvar: false, bias: true }),
    ddof2: mt.cov(x!, { ddof: 2 }),
    joint: mt.corrcoef(X!, Y!, { rowvar: false }),
    xy_cov: mt.cov(X!.get(':, 0'), Y!.get(':, 1')),
    cov32: mt.cov(X!, { rowvar: false, dtype: 'float32' }),
  }),
  rounded_report: ({ X, counts }) => ({
    means: mt.round(X!.mean({ axis: 0 }), 2),
    stds: mt.around(X!.std({ axis: 0 }), 3),
    pct: mt.round(mt.multiply(100, counts!).divide(counts!.sum()), 1),
  }),
  robust_mad_zscores: ({ X }) => {
    const med = mt.median(X!, { axis: 0 });
    const mad = mt.median(mt.abs(X!.subtract(med)), { axis: 0 });
    const rz = mt.multiply(0.6745, X!.subtract(med)).divide(mad);
    const p90 = mt.apply_along_axis((c: T) => mt.percentile(c, 90), 0, X!);
    return { mad, rz, flag: mt.abs(rz).greater(2), p90 };
  },
  bootstrap_ci: ({ x, idx }) => {
    const means = x!.get(idx!).mean({ axis: 1 });
    const ci = mt.percentile(means, [2.5, 97.5]);
    const se = means.std({ ddof: 1 });
    return { means, ci, se };
  },
  pivot_two_keys: ({ a, b, v }) => {
    const rows = mt.stack([a!, b!], { axis: 1 });
    const [u, inv, cnt] = mt.unique(rows, { axis: 0, return_inverse: true, return_counts: true }) as T[];
    const sums = mt.bincount(inv!, { weights: v });
    const flat = mt.ravel_multi_index([a!, b!], [3, 4]);
    const table = mt.bincount(flat, { weights: v, minlength: 12 }).reshape([3, 4]);
    const share = table.divide(table.sum({ axis: 1, keepdims: true }));
    return { u: u!, inv: inv!, cnt: cnt!, sums, table, share };
  },
  topk_per_row: ({ X, x }) => {
    const idx = mt.argsort(X!.negative(), { axis: 1 }).get(':, :3');
    const vals = mt.take_along_axis(X!, idx, { axis: 1 });
    const kth = mt.partition(x!, 4).get(4);
    const keep = mt.isin(mt.arange(8), idx.get(0));
    return { idx, vals, kth, keep, sorted_desc: mt.sort(X!, { axis: 0 }).get('::-1') };
  },
  large_float32: ({ x }) => {
    const [c, e] = mt.histogram(x!, { bins: 8 });
    return {
      mean: x!.mean(), std: x!.std(), sum: x!.sum(), p: mt.percentile(x!, [10, 90]),
      c, e, zmax: x!.subtract(x!.mean()).divide(x!.std()).max(), cs_last: mt.cumsum(x!).get(-1),
    };
  },
};

// Programs run again over small chunks (chunkSize per axis).
const CHUNKED: Record<string, number> = {
  zscore_columns: 7, minmax_scale: 4, cov_corr_columns: 7, weighted_average_returned: 2, percentiles_along_axes: 5,
  iqr_outliers: 7, histogram_counts: 7, bincount_group_means: 7, groupby_unique_bincount: 7, moving_average_cumsum: 7,
  moving_average_convolve: 5, drawdown: 7, cumulative_extrema_2d: 3, nan_summary: 3, rank_by_argsort: 4,
  integer_stats: 7, float32_stats: 5, large_zscore_hist_groupby: 256, large_corr: 64,
  reduceat_groupby: 7, multiaxis_stats: 2, where_reductions: 4, bootstrap_ci: 7, weighted_percentiles: 7, small_int_types: 5,
  pivot_two_keys: 7, topk_per_row: 3, large_float32: 500,
};

describe('statistics programs against NumPy', () => {
  it('has a translation for every program of the fixture', () => {
    expect(Object.keys(run).sort()).toEqual(programs.map((p) => p.name).sort());
  });
  for (const p of programs) {
    it(p.name, async () => {
      await check(p, await run[p.name]!(build(p)));
    });
  }
  for (const p of programs.filter((q) => CHUNKED[q.name])) {
    it(`${p.name} (chunkSize ${CHUNKED[p.name]})`, async () => {
      await check(p, await run[p.name]!(build(p, CHUNKED[p.name])));
    });
  }
});
