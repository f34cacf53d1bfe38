// src/api/search.ts beyond the NumPy fixtures (gen_search.py): NumPy's
// errors with its messages (ValueError as RangeError, TypeError as
// TypeError), errors that only a run can raise (all-NaN slices, bins that
// are not monotonic), lengths known only at run time (bincount of a computed
// tensor, set functions of selections), results that do not depend on the
// chunking, and put_along_axis leaving its input unchanged. Expected values
// are NumPy 2's.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const vals = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);
/** A tensor computed by the run (not JS data), so values are not known when the line runs. */
const lazy = (data: number[], dtype = 'float64'): mt.Tensor => mt.add(mt.tensor(data, { dtype }), 0);

describe('errors at the call, with NumPy messages', () => {
  it('searchsorted', () => {
    expect(() => mt.searchsorted([[1, 2], [3, 4]], 1)).toThrow(RangeError);
    expect(() => mt.searchsorted([[1, 2], [3, 4]], 1)).toThrow(/object too deep/);
    expect(() => mt.searchsorted([1, 2], 1, { side: 'middle' })).toThrow(/search side must be 'left' or 'right' \(got "middle"\)/);
    expect(() => mt.searchsorted([1, 2], 1, { sorter: [0] })).toThrow('sorter.size must equal a.size');
    expect(() => mt.searchsorted([1, 2], 1, { sorter: mt.tensor([0, 1], 'float64') })).toThrow(TypeError);
    expect(() => mt.searchsorted([1, 2], 1, { sids: 'left' })).toThrow(/unexpected keyword argument 'sids'/);
  });
  it('digitize with known bins that are not monotonic', () => {
    expect(() => mt.digitize([1, 2], [1, 3, 2])).toThrow(new RangeError('bins must be monotonically increasing or decreasing'));
  });
  it('isin kinds', () => {
    expect(() => mt.isin([1], [1], { kind: 'foo' })).toThrow(/Invalid kind: "foo"/);
    expect(() => mt.isin([1.5], [1], { kind: 'table' })).toThrow(/only supported for boolean or integer arrays/);
  });
  it('take_along_axis and put_along_axis', () => {
    const a = mt.tensor([[1, 2, 3], [4, 5, 6]]);
    expect(() => mt.take_along_axis(a, mt.tensor([[0.0]], 'float64'), 1)).toThrow(/`indices` must be an integer array/);
    expect(() => mt.take_along_axis(a, [0, 1], 1)).toThrow('`indices` and `arr` must have the same number of dimensions');
    expect(() => mt.take_along_axis(a, [[5]], 1)).toThrow('index 5 is out of bounds for axis 1 with size 3');
    expect(() => mt.take_along_axis(a, [[0]], 2)).toThrow(/axis 2 is out of bounds/);
    expect(() => mt.take_along_axis(a, [[0]], null)).toThrow('when axis=None, `indices` must have a single dimension.');
    expect(() => mt.put_along_axis(a, [[0]], 1)).toThrow("put_along_axis() missing required argument 'axis'");
  });
  it('interp', () => {
    expect(() => mt.interp([1], [], [])).toThrow(new RangeError('array of sample points is empty'));
    expect(() => mt.interp([1], [1, 2], [1])).toThrow(new RangeError('fp and xp are not of the same length.'));
    expect(() => mt.interp([1], [[1, 2]], [1, 2])).toThrow(/object too deep/);
    expect(() => mt.interp([1], [1, 2], [1, 2], { period: 0 })).toThrow('period must be a non-zero value');
    expect(() => mt.interp([1], [1, 2], [1, 2], { left: 'a' })).toThrow(TypeError);
  });
  it('histogram', () => {
    expect(() => mt.histogram([1, 2], 2.5)).toThrow(new TypeError('`bins` must be an integer, a string, or an array'));
    expect(() => mt.histogram([1, 2], 0)).toThrow(new RangeError('`bins` must be positive, when an integer'));
    expect(() => mt.histogram([1, 2], [3, 1])).toThrow(new RangeError('`bins` must increase monotonically, when an array'));
    expect(() => mt.histogram([1, 2], [[1, 2]])).toThrow('`bins` must be 1d, when an array');
    expect(() => mt.histogram([1, 2], { range: [3, 1] })).toThrow('max must be larger than min in range parameter.');
    expect(() => mt.histogram([1, 2], { range: [0, Infinity] })).toThrow('supplied range of [0, Infinity] is not finite');
    expect(() => mt.histogram([1, NaN])).toThrow('autodetected range of [NaN, NaN] is not finite');
    expect(() => mt.histogram([1, 2], { weights: [1, 2, 3] })).toThrow('weights should have the same shape as a.');
    expect(() => mt.histogram([1, 2], 'Auto')).toThrow(new RangeError("'Auto' is not a valid estimator for `bins`"));
    expect(() => mt.histogram_bin_edges([1, 2], { bins: 'sturge' })).toThrow("'sturge' is not a valid estimator for `bins`");
    expect(() => mt.histogram([1, 2], 'auto', { weights: [1, 1] })).toThrow(new TypeError('Automated estimation of the number of bins is not supported for weighted data'));
    expect(() => mt.histogram([1, NaN], 'fd')).toThrow(new RangeError('autodetected range of [NaN, NaN] is not finite'));
    expect(() => mt.histogram([1, 2], 'fd', { range: [2, 1] })).toThrow('max must be larger than min in range parameter.');
  });
  it('bincount', () => {
    expect(() => mt.bincount([-1, 2])).toThrow(new RangeError("'list' argument must have no negative elements"));
    expect(() => mt.bincount([1.5, 2])).toThrow(TypeError);
    expect(() => mt.bincount([[1, 2]])).toThrow(/maximum number of dimension of 1/);
    expect(() => mt.bincount(3)).toThrow('object of too small depth for desired array');
    expect(() => mt.bincount([1], { minlength: -1 })).toThrow("'minlength' must not be negative");
    expect(() => mt.bincount([0, 1], [1])).toThrow("The weights and list don't have the same length.");
  });
});

describe('errors raised when the run reaches them', () => {
  const runError = async (t: mt.Tensor): Promise<Error> => {
    try { await t.fetch(); } catch (e) { return e as Error; }
    throw new Error('the run did not fail');
  };
  it('nanargmax/nanargmin of an all-NaN slice', async () => {
    const a = mt.tensor([[1, NaN], [NaN, NaN]]);
    const e = await runError(mt.nanargmax(a, 1));
    expect(e.name).toBe('RangeError');
    expect(e.message).toBe('All-NaN slice encountered');
    expect((await runError(mt.nanargmin(mt.tensor([NaN, NaN])))).message).toBe('All-NaN slice encountered');
    // over the whole array one value is not NaN
    expect(await vals(mt.nanargmin(a))).toEqual([0]);
    // along axis 0, column 1 is all NaN
    expect((await runError(mt.nanargmin(a, 0))).message).toBe('All-NaN slice encountered');
    expect(await vals(mt.nanargmin(mt.tensor([[1, NaN], [NaN, 0]]), 0))).toEqual([0, 1]);
  });
  it('digitize with computed bins that are not monotonic', async () => {
    const e = await runError(mt.digitize([1, 2], lazy([1, 3, 2])));
    expect(e.message).toBe('bins must be monotonically increasing or decreasing');
    // computed bins that are monotonic, either way
    expect(await vals(mt.digitize([0, 1, 2.5, 9], lazy([1, 2, 3])))).toEqual([0, 1, 2, 3]);
    expect(await vals(mt.digitize([0, 1, 2.5, 9], lazy([3, 2, 1])))).toEqual([3, 2, 1, 0]);
    expect(await vals(mt.digitize([0, 1, 2.5, 9], lazy([3, 2, 1]), true))).toEqual([3, 3, 1, 0]);
  });
  it('histogram of computed data holding NaN, and computed edges that decrease', async () => {
    expect((await runError(mt.histogram(lazy([1, NaN]))[0])).message).toMatch(/autodetected range .* not finite/);
    expect((await runError(mt.histogram([1, 2], lazy([3, 1]))[0])).message).toBe('`bins` must increase monotonically, when an array');
    expect((await runError(mt.histogram(lazy([1, NaN]), 'auto')[0])).message).toBe('autodetected range of [NaN, NaN] is not finite');
  });
  it('bincount of computed negative values', async () => {
    expect((await runError(mt.bincount(lazy([1, -2], 'int64')))).message).toBe("'list' argument must have no negative elements");
  });
});

describe('values known only at run time', () => {
  it('bincount of a computed tensor: its length is read from the run', async () => {
    const x = lazy([1, 4, 1, 0], 'int64');
    const r = mt.bincount(x);
    expect(Number.isNaN(r.shape[0])).toBe(true);
    const got = await r.fetch();
    expect(got.shape).toEqual([5]);
    expect(got.dtype).toBe('int64');
    expect(Array.from(got.data as BigInt64Array, Number)).toEqual([1, 2, 0, 0, 1]);
    const w = await mt.bincount(x, [0.5, 1, 2, 4], { minlength: 7 }).fetch();
    expect(w.shape).toEqual([7]);
    expect(Array.from(w.data as Float64Array)).toEqual([4, 2.5, 0, 0, 1, 0, 0]);
  });
  it('histogram with an estimator over computed data and over a selection: the count of bins is read from the run', async () => {
    const data = Array.from({ length: 23 }, (_, i) => ((i * 7) % 11) - 3 + (i % 3 === 0 ? 0.5 : 0));
    const [h, e] = mt.histogram(lazy(data), 'fd');
    expect(Number.isNaN(h.shape[0])).toBe(true);
    // np.histogram(data, 'fd')
    expect(await vals(h)).toEqual([9, 6, 8]);
    expect(await vals(e)).toEqual([-3, 0.5, 4, 7.5]);
    const x = mt.tensor(data);
    const sel = x.get(mt.greater_equal(x, 0));
    const [hs, es] = mt.histogram(sel, { bins: 'sturges' });
    const got = await hs.fetch();
    expect(got.shape).toEqual([5]);
    expect(got.dtype).toBe('int64');
    expect(Array.from(got.data as BigInt64Array, Number)).toEqual([3, 3, 3, 3, 4]);
    expect(await vals(es)).toEqual([0, 1.5, 3, 4.5, 6, 7.5]);
    expect(await vals(mt.histogram_bin_edges(sel, 'stone'))).toEqual([0, 7.5]);
  });
  it('set functions of selections (lengths known after a boolean mask)', async () => {
    const a = mt.tensor([5, 1, 7, 3, 3, 9]);
    const sel = a.get(mt.greater(a, 2)); // [5, 7, 3, 3, 9]
    expect(await vals(mt.intersect1d(sel, [3, 9, 10]))).toEqual([3, 9]);
    // NumPy: (array([3, 9]), array([2, 4]), array([2, 1])): the first 3 of the selection is at 2, the first 9 of the list at 1
    const [common, at1, at2] = mt.intersect1d(sel, [10, 9, 3, 9], { return_indices: true }) as mt.Tensor[];
    expect([await vals(common!), await vals(at1!), await vals(at2!)]).toEqual([[3, 9], [2, 4], [2, 1]]);
    expect(await vals(mt.union1d(sel, [0]))).toEqual([0, 3, 5, 7, 9]);
    expect(await vals(mt.setdiff1d(sel, [7]))).toEqual([3, 5, 9]);
    expect(await vals(mt.setxor1d(sel, [9, 2]))).toEqual([2, 3, 5, 7]);
    expect(await vals(mt.isin(sel, [3, 7]))).toEqual([0, 1, 1, 1, 0]);
    expect(await vals(mt.unique(sel))).toEqual([3, 5, 7, 9]);
  });
});

describe('results independent of the chunking', () => {
  const data = Array.from({ length: 23 }, (_, i) => ((i * 7) % 11) - 3 + (i % 3 === 0 ? 0.5 : 0));
  const edges = [-3, -1, 0, 2.5, 4, 8];
  const cases: [string, (x: mt.Tensor) => mt.Tensor][] = [
    ['searchsorted', (x) => mt.searchsorted(mt.sort(x), [-2, 0, 0.5, 7], { side: 'right' })],
    ['digitize', (x) => mt.digitize(x, edges)],
    ['isin', (x) => mt.isin(x, [0, 4, 7.5])],
    ['take_along_axis', (x) => mt.take_along_axis(mt.reshape(x.get('0:20'), [4, 5]), mt.argsort(mt.reshape(x.get('0:20'), [4, 5]), 1), 1)],
    ['put_along_axis', (x) => mt.put_along_axis(mt.reshape(x.get('0:20'), [4, 5]), [[0], [4], [2], [1]], -9, 1)],
    ['interp', (x) => mt.interp(x, edges, [1, 2, 0, -1, 5, 6])],
    ['histogram', (x) => mt.histogram(x, 6)[0]],
    ['histogram edges', (x) => mt.histogram(x, 6)[1]],
    ['histogram auto', (x) => mt.histogram(x, 'auto')[0]],
    ['histogram fd edges', (x) => mt.histogram(x, 'fd')[1]],
    ['histogram explicit', (x) => mt.histogram(x, edges, { weights: x })[0]],
    ['bincount', (x) => mt.bincount(mt.astype(mt.add(x, 3), 'int64'))],
    ['nancumsum', (x) => mt.nancumsum(mt.where(mt.greater(x, 5), NaN, x))],
    ['nanmedian', (x) => mt.nanmedian(mt.where(mt.greater(x, 5), NaN, x))],
    ['nanargmax', (x) => mt.nanargmax(mt.where(mt.greater(x, 5), NaN, x))],
  ];
  it.each(cases)('%s', async (_, f) => {
    const whole = await f(mt.tensor(data)).fetch();
    const tiled = await f(mt.tensor(data, { chunkSize: 3 })).fetch();
    expect(tiled.shape).toEqual(whole.shape);
    expect(tiled.dtype).toBe(whole.dtype);
    expect(Array.from(tiled.data as ArrayLike<number | bigint>, Number)).toEqual(Array.from(whole.data as ArrayLike<number | bigint>, Number));
  });
  it('the expected values themselves (NumPy 2)', async () => {
    const x = mt.tensor(data, { chunkSize: 3 });
    // np.digitize(data, edges); np.histogram(data, 6)[0]
    expect(await vals(mt.digitize(x, edges))).toEqual([1, 5, 3, 5, 4, 2, 5, 3, 1, 5, 3, 1, 5, 3, 5, 4, 2, 5, 4, 1, 5, 3, 1]);
    expect(await vals(mt.histogram(x, 6)[0])).toEqual([5, 4, 3, 3, 4, 4]);
  });
});

describe('put_along_axis is functional', () => {
  it('returns a new tensor; the input keeps its values; the last of repeated indices wins', async () => {
    const a = mt.tensor([[10, 20, 30], [40, 50, 60]]);
    const b = mt.put_along_axis(a, [[0, 0], [2, 1]], [[1, 2], [3, 4]], 1);
    expect(await vals(b)).toEqual([2, 20, 30, 40, 4, 3]);
    expect(await vals(a)).toEqual([10, 20, 30, 40, 50, 60]);
  });
});

describe('histogramdd (a list of edges: not a fixture) and histogram2d errors', () => {
  const s = mt.tensor([[0.1, 2.0, -1.0], [0.5, 1.0, 0.0], [0.9, 3.0, 1.0], [0.3, 2.5, 0.5], [0.7, 0.0, -0.5], [1.0, 3.0, 1.0]]);
  it('counts, edges, weights and density as NumPy 2', async () => {
    let [h, e] = mt.histogramdd(s, { bins: [2, 3, 2] });
    expect([h.shape, await vals(h)]).toEqual([[2, 3, 2], [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2]]);
    expect(await Promise.all(e.map(vals))).toEqual([[0.1, 0.55, 1.0], [0, 1, 2, 3], [-1, 0, 1]]);
    [h, e] = mt.histogramdd(s, { bins: [mt.tensor([0, 0.5, 1]), 2, [-1, 0, 2]], range: [null, [0, 4], null], density: true, weights: mt.arange(1, 7, { dtype: 'float64' }) });
    const want = [0, 0, 0.047619047619047616, 0.09523809523809523, 0.23809523809523808, 0.047619047619047616, 0, 0.21428571428571427];
    (await vals(h)).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 15));
    expect(await vals(e[1]!)).toEqual([0, 2, 4]);
    // a list holds one coordinate array per dimension; a 1-d sample is one dimension
    [h, e] = mt.histogramdd([[1, 2, 2, 3], [0, 0, 1, 1]], { bins: 2 });
    expect([await vals(h), await vals(e[0]!), await vals(e[1]!)]).toEqual([[1, 0, 1, 2], [1, 2, 3], [0, 0.5, 1]]);
    [h, e] = mt.histogramdd(mt.tensor([1, 2, 2, 4], { dtype: 'float64' }), { bins: 3 });
    expect([await vals(h), e.length, await vals(e[0]!)]).toEqual([[1, 2, 1], 1, [1, 2, 3, 4]]);
  });
  it('errors with NumPy messages', () => {
    const cases: [() => unknown, string, ErrorConstructor][] = [
      [() => mt.histogramdd(s, { bins: [2, 2] }), 'The dimension of bins must be equal to the dimension of the sample x.', RangeError],
      [() => mt.histogramdd(s, { range: [[0, 1]] }), 'range argument must have one entry per dimension', RangeError],
      [() => mt.histogramdd(s, { bins: 0 }), '`bins[0]` must be positive, when an integer', RangeError],
      [() => mt.histogramdd(s, { bins: 2.5 }), '`bins[0]` must be an integer, when a scalar', TypeError],
      [() => mt.histogramdd(s, { bins: [[0, 2, 1], 2, 2] }), '`bins[0]` must be monotonically increasing, when an array', RangeError],
      [() => mt.histogramdd(s, { bins: [[[0]], 2, 2] }), '`bins[0]` must be a scalar or 1d array', RangeError],
      [() => mt.histogramdd(s, { weights: [1, 2] }), "The weights and list don't have the same length.", RangeError],
      [() => mt.histogramdd(s, { range: [[1, 0], null, null] }), 'max must be larger than min in range parameter.', RangeError],
      [() => mt.histogram2d([1, 2], [1]), 'x and y must have the same length.', RangeError],
    ];
    for (const [f, msg, type] of cases) {
      expect(f, msg).toThrow(type);
      expect(f, msg).toThrow(msg);
    }
  });
});

describe('quantile weights= (method inverted_cdf)', () => {
  const a = mt.arange(12, { dtype: 'float64' }).reshape(3, 4);
  const w = mt.arange(1, 13, { dtype: 'float64' }).reshape(3, 4);
  const IC = 'inverted_cdf';
  it('errors at the call, with NumPy messages', () => {
    const cases: [() => unknown, string, ErrorConstructor][] = [
      [() => mt.quantile(a, 0.5, { weights: [1, 2, 3, 4], method: IC }), 'Axis must be specified when shapes of a and weights differ.', TypeError],
      [() => mt.quantile(a, 0.5, { axis: 1, weights: [1, 2, 3], method: IC }), 'Shape of weights must be consistent with shape of a along specified axis.', RangeError],
      [() => mt.quantile(a, 0.5, { axis: 1, weights: w }), "Only method 'inverted_cdf' supports weights. Got: linear.", RangeError],
      [() => mt.nanpercentile(a, 50, { weights: w, method: 'bogus' }), "Only method 'inverted_cdf' supports weights. Got: bogus.", RangeError],
      [() => mt.percentile(a, 50, { axis: 1, weights: mt.tensor([-1.5, 2, 3, 4]), method: IC }), 'Weights must be non-negative.', RangeError],
      [() => mt.quantile(a, 0.5, { axis: 1, weights: [1, -2, 3, 4], method: IC }), 'Weights must be non-negative.', RangeError],
      [() => mt.quantile(a, 1.5, { weights: w, method: 'linear' }), 'Quantiles must be in the range [0, 1]', RangeError],
      [() => mt.quantile(mt.zeros([0]), 0.5, { weights: mt.zeros([0]), method: IC }), 'index -1 is out of bounds for axis 0 with size 0', RangeError],
    ];
    for (const [f, msg, type] of cases) {
      expect(f, msg).toThrow(type);
      expect(f, msg).toThrow(msg);
    }
  });
  it('weights known only at run time: checked when the run reaches them', async () => {
    const reject = async (t: mt.Tensor, msg: string) => {
      const err = await t.fetch().then(() => undefined, (e: unknown) => e as Error);
      expect(err?.message).toBe(msg);
    };
    await reject(mt.quantile(a, 0.5, { axis: 1, weights: lazy([1, -2, 3, 4]), method: IC }), 'Weights must be non-negative.');
    await reject(mt.quantile(a, 0.5, { axis: 1, weights: mt.multiply(w, lazy([1, 0, 1]).reshape(3, 1)), method: IC }), 'Weights included NaN, inf or were all zero.');
    await reject(mt.quantile(a, 0.5, { axis: 1, weights: mt.multiply(w, lazy([1, 1, NaN]).reshape(3, 1)), method: IC }), 'Weights included NaN, inf or were all zero.');
    // NumPy 2: np.quantile(a, [0.2, 0.5], axis=1, weights=w, method='inverted_cdf'); a line of NaNs only is NaN in nanquantile, not an error
    expect(await vals(mt.quantile(a, [0.2, 0.5], { axis: 1, weights: lazy(Array.from({ length: 12 }, (_, i) => i + 1)).reshape(3, 4), method: IC }))).toEqual([1, 5, 8, 2, 6, 10]);
    const nanRow = mt.tensor([[NaN, NaN], [1, 2]]);
    expect(await vals(mt.nanquantile(nanRow, 0.5, { axis: 1, weights: lazy([1, 1, 0, 1]).reshape(2, 2), method: IC }))).toEqual([NaN, 2]);
    await reject(mt.nanquantile(nanRow, 0.5, { axis: 1, weights: lazy([1, 1, 0, 0]).reshape(2, 2), method: IC }), 'Weights included NaN, inf or were all zero.');
  });
});

describe('unique with its options, lexsort, sort kinds (beyond gen_search.py)', () => {
  const a = mt.tensor([[1, 2, 1], [3, 1, 2]]);
  it('unique returns NumPy\'s tuple in its order, the inverse of the input\'s shape for axis=None', async () => {
    const r = mt.unique(a, { return_counts: true, return_index: true, return_inverse: true }) as mt.Tensor[];
    expect(r.length).toBe(4);
    // np.unique(a, True, True, True) -> [1 2 3], [0 1 3], [[0 1 0] [2 0 1]], [3 2 1]
    expect(await vals(r[0]!)).toEqual([1, 2, 3]);
    expect(await vals(r[1]!)).toEqual([0, 1, 3]);
    expect(r[2]!.shape).toEqual([2, 3]);
    expect(await vals(r[2]!)).toEqual([0, 1, 0, 2, 0, 1]);
    expect(await vals(r[3]!)).toEqual([3, 2, 1]);
    // values are reconstructed by take(values, inverse)
    expect(await vals(mt.take(r[0]!, r[2]!))).toEqual([1, 2, 1, 3, 1, 2]);
    // one flag gives a pair, no flag the values alone
    expect((mt.unique(a, { return_counts: true }) as mt.Tensor[]).length).toBe(2);
    expect(mt.unique(a)).toBeInstanceOf(mt.Tensor);
  });
  it('unique of a selection (length known at run time) with every piece', async () => {
    const x = lazy([3, 1, 3, 2, 5, 3], 'int64');
    const [v, i, inv, c] = mt.unique(x.get(mt.greater(x, 1)), true, true, true) as mt.Tensor[];
    // np.unique([3, 3, 2, 5, 3], True, True, True)
    expect(await vals(v!)).toEqual([2, 3, 5]);
    expect(await vals(i!)).toEqual([2, 0, 3]);
    expect(await vals(inv!)).toEqual([1, 1, 0, 2, 1]);
    expect(await vals(c!)).toEqual([1, 3, 1]);
  });
  it('unique along an axis, lazily computed input', async () => {
    const [v, inv, c] = mt.unique(lazy([1, 2, 1, 2, 0, 5], 'int32').reshape(3, 2), { axis: 0, return_inverse: true, return_counts: true }) as mt.Tensor[];
    const r = await v!.fetch();
    expect([r.shape, r.dtype]).toEqual([[2, 2], 'int32']);
    expect(await vals(v!)).toEqual([0, 5, 1, 2]);
    expect(await vals(inv!)).toEqual([1, 1, 0]);
    expect(await vals(c!)).toEqual([1, 2]);
  });
  it('NumPy 2\'s unique_* return their named fields, NaNs never equal', async () => {
    const x = mt.tensor([[2, NaN], [NaN, 2]]);
    const all = mt.unique_all(x);
    expect(Object.keys(all)).toEqual(['values', 'indices', 'inverse_indices', 'counts']);
    // np.unique_all(x): values [2 nan nan], indices [0 1 2], inverse [[0 1] [2 0]], counts [2 1 1]
    expect(await vals(all.values)).toEqual([2, NaN, NaN]);
    expect(await vals(all.indices)).toEqual([0, 1, 2]);
    expect(all.inverse_indices.shape).toEqual([2, 2]);
    expect(await vals(all.inverse_indices)).toEqual([0, 1, 2, 0]);
    expect(await vals(all.counts)).toEqual([2, 1, 1]);
    const c = mt.unique_counts([3, 1, 3]);
    expect([await vals(c.values), await vals(c.counts)]).toEqual([[1, 3], [1, 2]]);
    const inv = mt.unique_inverse([3, 1, 3]);
    expect([await vals(inv.values), await vals(inv.inverse_indices)]).toEqual([[1, 3], [1, 0, 1]]);
    // NumPy 2.3+ may give unique_values in any order; Tessera's are sorted
    expect(await vals(mt.unique_values([3, NaN, 1, NaN, 3]))).toEqual([1, 3, NaN, NaN]);
  });
  it('unique and lexsort errors, as NumPy', () => {
    expect(() => mt.unique(a, { axis: 2 })).toThrow(new RangeError('axis 2 is out of bounds for array of dimension 2'));
    expect(() => mt.unique(mt.tensor(1), { axis: 0 })).toThrow(RangeError);
    expect(() => mt.unique(a, { bogus: 1 })).toThrow(/unexpected keyword argument 'bogus'/);
    expect(() => mt.lexsort([])).toThrow(new TypeError('need sequence of keys with len > 0 in lexsort'));
    expect(() => mt.lexsort([[1, 2], [1, 2, 3]])).toThrow(new RangeError('all keys need to be the same shape'));
    expect(() => mt.lexsort([[[1, 2]]], 2)).toThrow(new RangeError('axis 2 is out of bounds for array of dimension 2'));
  });
  it('lexsort: the last key decides, ties keep their order', async () => {
    // np.lexsort(([5, 4, 3, 2], [1, 0, 1, 0])) -> [3 1 2 0]; np.lexsort(np.array([[1, 2], [0, 0]])) -> [0 1]
    expect(await vals(mt.lexsort([[5, 4, 3, 2], [1, 0, 1, 0]]))).toEqual([3, 1, 2, 0]);
    expect(await vals(mt.lexsort(mt.tensor([[1, 2], [0, 0]])))).toEqual([0, 1]);
    expect(await vals(mt.lexsort([lazy([1, 1, 1]), lazy([2, 2, 2])]))).toEqual([0, 1, 2]);
    const z = mt.lexsort([mt.tensor(3)]);
    expect([z.shape, z.dtype, await vals(z)]).toEqual([[], 'int64', [0]]);
  });
  it('sort kinds and stable=, with NumPy\'s errors', async () => {
    const x = mt.tensor([2, 1, 2, 1]);
    // every kind gives the stable order (a valid answer for each)
    for (const kind of ['quicksort', 'mergesort', 'heapsort', 'stable', 'Q']) expect(await vals(mt.argsort(x, { kind }))).toEqual([1, 3, 0, 2]);
    expect(await vals(mt.argsort(x, { stable: true }))).toEqual([1, 3, 0, 2]);
    expect(() => mt.sort(x, { kind: 'bogus' })).toThrow(new RangeError("sort kind must be one of 'quick', 'heap', or 'stable' (got 'bogus')"));
    expect(() => mt.sort(x, { kind: '' })).toThrow(RangeError);
    expect(() => mt.argsort(x, { kind: 3 })).toThrow(new TypeError('sort kind must be str, not int'));
    expect(() => mt.argsort(x, { kind: 'stable', stable: true })).toThrow(new RangeError("`kind` and keyword parameters can't be provided at the same time. Use only one of them."));
    expect(() => mt.sort(x, { order: 'f0' })).toThrow(new RangeError('Cannot specify order when the array has no fields.'));
    expect(() => mt.argsort(x, { axis: 1 })).toThrow(new RangeError('axis 1 is out of bounds for array of dimension 1'));
  });
});
