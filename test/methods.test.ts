// The ufunc methods of src/api/ufunc_methods.ts beyond the values in
// fixtures/numpy_methods.json (gen_methods.py): NumPy's errors and
// attributes, reduce as the fold its accumulate ends with (where NumPy 2.4's
// own float power and arctan2 reduce are wrong, so not a reference), and
// long scans across chunks and workers against a running fold in JS.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const nums = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);

describe('errors NumPy raises', () => {
  const a = () => mt.arange(6).reshape([2, 3]);
  const cases: [string, () => unknown, ErrorConstructor, RegExp][] = [
    ['several axes of a non-reorderable op', () => mt.subtract.reduce(a(), { axis: [0, 1] }), RangeError, /reduction operation 'subtract' is not reorderable, so at most one axis may be specified/],
    ['axis=None of a non-reorderable op', () => mt.divide.reduce(a(), { axis: null }), RangeError, /reduction operation 'divide' is not reorderable/],
    ['an empty reduction without identity', () => mt.maximum.reduce(mt.zeros([0, 3])), RangeError, /zero-size array to reduction operation maximum which has no identity/],
    ['an empty fold without identity', () => mt.subtract.reduce(mt.zeros([0, 3])), RangeError, /zero-size array to reduction operation subtract which has no identity/],
    ['where= without identity or initial', () => mt.subtract.reduce(a(), { axis: 1, where: [true, false, true] }), RangeError, /'subtract' does not have an identity, so to use a where mask one has to specify 'initial'/],
    ['accumulate of a 0-d array', () => mt.add.accumulate(mt.tensor(3)), TypeError, /cannot accumulate on a scalar/],
    ['accumulate over several axes', () => mt.add.accumulate(a(), { axis: null }), RangeError, /accumulate does not allow multiple axes/],
    ['accumulate past the last axis', () => mt.maximum.accumulate(a(), { axis: 2 }), RangeError, /axis 2 is out of bounds for array of dimension 2/],
    ['a comparison accumulating non-bools', () => mt.less.accumulate(mt.tensor([1, 2])), TypeError, /No loop matching the specified signature and casting was found for ufunc less/],
    ['bool subtract', () => mt.subtract.reduce(mt.tensor([true, false])), TypeError, /numpy boolean subtract, the `-` operator, is not supported/],
    ['bitwise ops on floats', () => mt.bitwise_or.accumulate(mt.tensor([1.5])), TypeError, /ufunc 'bitwise_or' not supported for the input types/],
    ['ldexp (no loop with equal types)', () => mt.ldexp.reduce(mt.tensor([1.5, 2])), TypeError, /ldexp.reduce\/accumulate: ufunc 'ldexp' has no loop/],
    ['reduceat past the end', () => mt.add.reduceat(mt.arange(8), [0, 8]), RangeError, /index 8 out-of-bounds in add.reduceat \[0, 8\)/],
    ['reduceat with a negative index', () => mt.add.reduceat(mt.arange(8), [-1]), RangeError, /index -1 out-of-bounds in add.reduceat/],
    ['reduceat with a scalar index', () => mt.add.reduceat(mt.arange(8), 3), RangeError, /object of too small depth for desired array/],
    ['reduce with an unknown keyword', () => mt.add.reduce(a(), { axes: 1 }), TypeError, /add.reduce\(\) got an unexpected keyword argument 'axes'/],
    ['reduce with out=', () => mt.add.reduce(a(), { out: a() as unknown as null }), TypeError, /out= is not supported/],
  ];
  it.each(cases)('%s', (_, f, E, msg) => {
    expect(f).toThrow(E);
    expect(f).toThrow(msg);
  });
});

describe('attributes', () => {
  it("has NumPy's nin, nout, nargs, identity and name", () => {
    expect([mt.add.nin, mt.add.nout, mt.add.nargs, mt.add.identity, mt.add.name]).toEqual([2, 1, 3, 0, 'add']);
    expect([mt.multiply.identity, mt.logical_and.identity, mt.logical_or.identity, mt.bitwise_and.identity, mt.logaddexp.identity]).toEqual([1, true, false, -1, -Infinity]);
    expect([mt.subtract.identity, mt.maximum.identity, mt.power.identity]).toEqual([null, null, null]);
    // aliases are the same ufunc, under NumPy's name
    expect(mt.remainder).toBe(mt.mod);
    expect(mt.mod.name).toBe('remainder');
    expect(mt.true_divide.reduce).toBe(mt.divide.reduce);
  });
});

describe('reduce is the fold accumulate ends with', () => {
  // NumPy 2.4.6 gives power.reduce([2., 3., 4.]) = 16 (2 ** 4) where its accumulate ends at 4096: not a reference here.
  it('power and arctan2 fold from the left', async () => {
    expect(await nums(mt.power.reduce(mt.tensor([2, 3, 4], { dtype: 'float64' })))).toEqual([4096]);
    expect(await nums(mt.power.reduce(mt.tensor([2, 3, 2], { dtype: 'float32' })))).toEqual([64]);
    const x = mt.tensor([[-1.32, 4.47, 1.33, -3.62], [0.5, -1.5, 2.5, 0.25]]);
    const fold = (row: number[]) => row.slice(1).reduce((acc, v) => Math.atan2(acc, v), row[0]!);
    const want = [fold([-1.32, 4.47, 1.33, -3.62]), fold([0.5, -1.5, 2.5, 0.25])];
    const got = await nums(mt.arctan2.reduce(x, { axis: 1 }));
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 14));
    const last = await nums(mt.take(mt.arctan2.accumulate(x, { axis: 1 }), 3, { axis: 1 }));
    expect(got).toEqual(last);
  });
  it('starts from the identity where the op has one', async () => {
    expect(await nums(mt.hypot.reduce(mt.tensor([-2.0])))).toEqual([2]);
    expect(await nums(mt.gcd.reduce(mt.tensor([-4])))).toEqual([4]);
    expect(await nums(mt.gcd.accumulate(mt.tensor([-4, -6])))).toEqual([-4, 2]);
  });
});

describe('long scans across chunks and workers', () => {
  const n = 200_000;
  const x = () => mt.random.default_rng(7).standard_normal([n], { chunkSize: 4096 });
  it('maximum.accumulate equals a running max, for any chunking', async () => {
    const xs = await nums(x());
    let m = -Infinity;
    const want = xs.map((v) => (m = Math.max(m, v)));
    expect(await nums(mt.maximum.accumulate(x()))).toEqual(want);
    expect(await nums(mt.maximum.accumulate(mt.tensor(xs, { chunkSize: 1000 })))).toEqual(want);
  });
  it('subtract.accumulate along axis 0 of a chunked matrix equals a running difference', async () => {
    const a = mt.random.default_rng(3).integers(-50, 50, [600, 40], { chunkSize: 1500 });
    const v = await nums(a);
    const want = v.slice();
    for (let i = 1; i < 600; i++) for (let j = 0; j < 40; j++) want[i * 40 + j] = want[(i - 1) * 40 + j]! - v[i * 40 + j]!;
    expect(await nums(mt.subtract.accumulate(a))).toEqual(want);
    // and reduce is its last row
    expect(await nums(mt.subtract.reduce(a))).toEqual(want.slice(599 * 40));
  });
  it('minimum.reduceat over many pieces matches a JS fold', async () => {
    const xs = await nums(x());
    const idx = [0, 17, 17, 5000, 4000, 123456, 199_999];
    const want = idx.map((lo, i) => {
      const hi = i + 1 < idx.length ? idx[i + 1]! : n;
      return hi > lo ? Math.min(...xs.slice(lo, hi)) : xs[lo]!;
    });
    expect(await nums(mt.minimum.reduceat(x(), idx))).toEqual(want);
  });
});

describe('reduceat over indices computed in the same run', () => {
  it('takes group starts from flatnonzero, over values behind a mask', async () => {
    const keys = mt.tensor([3, 3, 1, 1, 1, 4, 4, 2]);
    const vals = mt.tensor([1.5, 2, 3, 4, 5, 6, 7, 8], { dtype: 'float64' });
    const starts = mt.flatnonzero(mt.concatenate([[true], keys.get('1:').not_equal(keys.get(':-1'))]));
    expect(starts.shape).toEqual([NaN]);
    const sums = mt.add.reduceat(vals, starts);
    expect(await nums(sums)).toEqual([3.5, 12, 13, 8]);
    // the values' own length known only at run time too: [2, 3, 4, 5, 6, 7, 8] at [0, 2, 3]
    const kept = vals.get(vals.greater(1.5));
    expect(await nums(mt.multiply.reduceat(kept, mt.tensor([0, 2, 3]).add(0)))).toEqual([6, 4, 6 * 7 * 8 * 5]);
  });
  it('checks the computed indices when the run reaches them', async () => {
    const x = mt.arange(6);
    await expect(mt.add.reduceat(x, mt.tensor([0, 3]).multiply(4)).fetch()).rejects.toThrow('index 12 out-of-bounds in add.reduceat [0, 6)');
    // an index array of floats is refused at once (a JS list is cast, as NumPy casts one)
    expect(() => mt.add.reduceat(x, mt.tensor([0.5, 2]))).toThrow("Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'");
    expect(await nums(mt.add.reduceat(x, [0.5, 2.5]))).toEqual([1, 14]);
  });
});
