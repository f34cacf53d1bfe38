// NumPy's ufunc.at as Tessera's functional update, `x.at(index).add(v)`,
// and bincount, which folds values into positions the same way (on the
// host, in index order: runtime/resolve.ts `scattered`). The cases and NumPy
// 2's results come from test/fixtures/at.json, written by
// test/fixtures/gen_at.py; each case here is its Python twin line for line.
// Float results must match bit for bit: a position's values are folded in
// their order, as NumPy's unbuffered loop folds them.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

interface Out { shape: number[]; dtype: string; data: (number | boolean | string)[] }
interface Fixture { inputs: Record<string, { dtype: string; shape: number[]; data: number[] }>; cases: { name: string; outputs: Record<string, Out> }[] }
type T = mt.Tensor;
type Inputs = { f: T; M: T; idx: T; w: T; srt: T; keys: T; ints: T };

const FIXTURE: Fixture = JSON.parse(readFileSync(new URL('./fixtures/at.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const num = (v: unknown): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : typeof v === 'boolean' ? Number(v) : (v as number));
const f64 = (v: number[]): T => mt.array(v, { dtype: 'float64' });
const BIG = mt.arange(200000).multiply(7919).mod(50000);
/** gen_at.py's permutation of srt, from its fixture. */
const PERM = (FIXTURE as unknown as { perm: number[] }).perm;

function inputs(chunkSize?: number): Inputs {
  return Object.fromEntries(Object.entries(FIXTURE.inputs).map(([k, e]) => [k, mt.tensor(e.data.map(num), { dtype: e.dtype, ...(chunkSize ? { chunkSize } : {}) }).reshape(e.shape)])) as unknown as Inputs;
}

const CODE: Record<string, (i: Inputs) => Record<string, T>> = {
  'add repeated positions': ({ f }) => ({
    r: f.at([0, 0, 2, -1, -1, -1]).add(f64([1, 2, 3, 4, 5, 6])),
    scalar: f.at([3, 3, 3]).add(0.5),
    one: f.at(5).add(10.0),
  }),
  'integer wrap and casts back': () => {
    const i8 = mt.zeros(3, { dtype: 'int8' });
    const u8 = mt.array([1, 2, 3], { dtype: 'uint8' });
    const ints = mt.array([3, 5, 7]);
    return {
      i8: i8.at([0, 0, 0]).add(100), u8: u8.at([0, 0]).subtract(3),
      mul: ints.at([0, 0, 1]).multiply(1.5), div: ints.at([0, 2]).divide(2),
      i8mul: mt.array([5], { dtype: 'int8' }).at([0]).multiply(mt.array(100.7)),
      f32: mt.zeros(3, { dtype: 'float32' }).at([0, 0, 2]).add(f64([1e-8, 1.0, 2.0])),
      bor: mt.array([1, 2, 4], { dtype: 'int32' }).at([0, 0, 2]).apply('bitwise_or', mt.array([2, 8, 1], { dtype: 'int32' })),
      bools: mt.array([false, true, false]).at([0, 2, 2]).apply('logical_or', true),
    };
  },
  'maximum minimum with NaN': () => {
    const a = f64([1, 2, 3]);
    return {
      max: a.at([0, 0, 1, 2]).maximum(f64([NaN, 5, 1, 7])),
      min: a.at([1, 1]).minimum(f64([0.5, -1])),
      fmax: a.at([0, 0]).apply('fmax', f64([NaN, 0])),
      pow: mt.array([5.5], { dtype: 'float32' }).at([0, 0]).power(2),
    };
  },
  '2-d indices, slices and masks': ({ f, M }) => ({
    cols: M.at(mt.slice(), [0, 0]).add(1.0),
    pairs: M.at([0, 0, 2], [1, 1, 3]).add(f64([1, 2, 3])),
    rows: M.at([0, 0]).add(f64([1, 2, 3, 4])),
    row_slice: M.at(1, mt.slice(1, null)).multiply(2.0),
    mask: f.at(f.greater(0)).add(1.0),
    neg: M.at([-1, -1], [-1, 0]).subtract(f64([10, 20])),
  }),
  'many values into few positions, in order': ({ idx, w }) => ({
    sums: mt.zeros(200).at(idx).add(w),
    prods: mt.ones(200).at(idx).multiply(w.divide(1000).add(1.0)),
    ints: mt.zeros(200, { dtype: 'int64' }).at(idx).add(3),
  }),
  'bincount': ({ idx, w }) => ({
    counts: mt.bincount(idx), weighted: mt.bincount(idx, { weights: w }), long: mt.bincount(idx, { minlength: 300 }),
    big: mt.bincount(BIG), big_w: mt.bincount(BIG, { weights: mt.arange(200000).multiply(0.25) }),
  }),
  'searchsorted by binary search': ({ w, srt, keys, ints }) => ({
    left: mt.searchsorted(srt, keys), right: mt.searchsorted(srt, keys, { side: 'right' }),
    ints: mt.searchsorted(ints, keys), ints_r: mt.searchsorted(ints, keys, { side: 'right' }),
    f32: mt.searchsorted(srt.astype('float32'), keys.astype('float32')),
    digitize: mt.digitize(keys, srt.get(':2990')), digitize_r: mt.digitize(keys, srt.get(':2990').get('::-1'), { right: true }),
    hist2d: mt.histogram2d(w.get(':2500'), w.get('2500:'), { bins: [40, 30] })[0],
    isin: mt.isin(keys, srt), isin_ints: mt.isin(keys, ints, { invert: true }), isin_2d: mt.isin(ints.reshape([60, 50]), keys.astype('int64')),
    isin_f32: mt.isin(srt.astype('float32'), keys),
    hist: mt.histogram(w, { bins: 1000 })[0], hist_w: mt.histogram(w, { bins: 1000, range: [-2, 2], weights: w.multiply(w) })[0],
    hist_edges: mt.histogram(w, { bins: mt.sort(mt.concatenate([f64([-5, 5]), w.get(':998')])) })[0],
    interp: mt.interp(keys, srt.get(':2990'), w.get(':2990')), interp_lr: mt.interp(keys, srt.get('2:2990'), w.get(':2988'), { left: -1.0, right: 2.0 }),
  }),
  'long lines sort by radix': ({ srt, ints, w }) => {
    const perm = mt.array(PERM);
    const x = srt.take(perm);
    const z = mt.where(mt.arange(x.size).mod(3).equal(0), -0.0, x);
    return {
      sort: mt.sort(x), argsort: mt.argsort(x, { kind: 'stable' }), zeros: mt.argsort(z, { kind: 'stable' }),
      zeros_sorted: mt.signbit(mt.sort(z, { kind: 'stable' })),
      f32: mt.argsort(x.astype('float32'), { kind: 'stable' }), ints: mt.argsort(ints.take(perm), { kind: 'stable' }),
      i8: mt.argsort(ints.take(perm).mod(100).astype('int8'), { kind: 'stable' }), u16: mt.sort(ints.take(perm).add(1000).astype('uint16')),
      cols: mt.argsort(x.reshape([1500, 2]), { axis: 0, kind: 'stable' }), cols_sorted: mt.sort(x.reshape([1500, 2]), { axis: 0 }),
      median: mt.median(w), pct: mt.percentile(w, [5, 50, 95]), q_lower: mt.quantile(ints, [0.1, 0.9], { method: 'lower' }),
      nanmedian: mt.nanmedian(x), median_nan: mt.median(x), median_rows: mt.median(w.reshape([2, 2500]), { axis: 1 }),
      q_f32: mt.quantile(w.astype('float32'), 0.3),
    };
  },
};

async function check(got: Record<string, T>, want: Record<string, Out>): Promise<void> {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  const arrays = await Promise.all(Object.values(got).map((t) => t.fetch()));
  Object.keys(got).forEach((k, i) => {
    const a = arrays[i]!, e = want[k]!;
    expect({ k, shape: a.shape, dtype: a.dtype }).toEqual({ k, shape: e.shape, dtype: e.dtype });
    // bit for bit (NaN as NaN)
    expect(Array.from(a.data as ArrayLike<number | bigint>, Number)).toEqual(e.data.map(num));
  });
}

describe('x.at(index).op(v): NumPy ufunc.at results', () => {
  for (const c of FIXTURE.cases) {
    it(c.name, async () => { await check(CODE[c.name]!(inputs()), c.outputs); });
    it(`${c.name} (chunks of 7)`, async () => { await check(CODE[c.name]!(inputs(7)), c.outputs); });
  }
});

describe('x.at: the rest of the contract', () => {
  it('leaves x unchanged, and set/get are x.set and x.get', async () => {
    const x = f64([1, 2, 3]);
    const y = x.at([0, 0]).add(1);
    expect((await x.fetch()).toArray()).toEqual([1, 2, 3]);
    expect((await y.fetch()).toArray()).toEqual([3, 2, 3]);
    expect((await x.at([2, 0]).set(f64([7, 8])).fetch()).toArray()).toEqual([8, 2, 7]);
    expect((await x.at('1:').get().fetch()).toArray()).toEqual([2, 3]);
  });

  it('takes a mask and values computed in the same run (lengths known only at run time)', async () => {
    const x = f64([-1, 2, -3, 4, 5]);
    const pos = x.greater(0);
    const vals = x.get(pos).multiply(10); // length unknown until the run
    expect(Number.isNaN(vals.shape[0])).toBe(true);
    expect((await x.at(pos).add(vals).fetch()).toArray()).toEqual([-1, 22, -3, 44, 55]);
    // a selection as the array updated, by positions it has
    const sel = x.get(pos);
    expect((await sel.at([0, 0, -1]).add(1).fetch()).toArray()).toEqual([4, 4, 6]);
  });

  it('rejects what NumPy rejects, naming the problem', () => {
    const x = f64([1, 2, 3]);
    expect(() => x.at([0, 1]).add(f64([1, 2, 3]))).toThrow(/array is not broadcastable to correct shape: a value of shape \(3,\) for the \(2,\) positions/);
    expect(() => x.at([0, 1]).add(mt.ones([1, 2]))).toThrow(/not broadcastable/);
    expect(() => x.at([5]).add(1)).toThrow(/index 5 is out of bounds for axis 0 with size 3/);
    expect(() => mt.array([1, 2], { dtype: 'int8' }).at([0]).add(300)).toThrow(/300/);
    expect(() => x.at([0]).apply('less' as 'add', 1)).toThrow(/no update by 'less'/);
  });

  it('np.add.at and kin raise, naming the functional line (NumPy changes the array in place and returns None)', () => {
    const x = f64([1, 2, 3]);
    expect(() => mt.add.at(x, [0, 0], 1)).toThrow(/np.add.at changes its array in place.*a = a.at\(indices\).add\(b\)/);
    expect(() => mt.bitwise_or.at(x, [0], 1)).toThrow(/a = a.at\(indices\).apply\('bitwise_or', b\)/);
    expect(() => mt.remainder.at(x, [0], 1)).toThrow(/apply\('remainder', b\)/);
    expect(() => mt.less.at(x, [0], 1)).toThrow(/no functional form of less.at/);
  });

  it('bincount is linear in its input: a million values into 100,000 bins', async () => {
    const n = 1_000_000, k = 100_000;
    const x = mt.arange(n).multiply(7919).mod(k);
    const c = await mt.bincount(x).fetch();
    expect(c.shape).toEqual([k]);
    // 7919 is prime to 100,000: each residue is hit n / k times
    expect(new Set(Array.from(c.data as BigInt64Array, Number))).toEqual(new Set([n / k]));
  });
});
