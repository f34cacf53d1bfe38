// np.pad's statistic, ramp and odd-reflection modes and np.block
// (src/api/manipulate.ts) beyond the NumPy fixtures (gen_pad.py): NumPy's
// errors with its messages (ValueError as RangeError, TypeError as
// TypeError), keywords NumPy reads or ignores per mode, empty arrays, the
// calling forms, and that padding builds a graph without running anything.
// Expected values are NumPy 2's.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const vals = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);
/** A tensor computed by the run (not JS data). */
const lazy = (data: number[], dtype = 'float64'): mt.Tensor => mt.add(mt.tensor(data, { dtype }), 0);

describe('np.pad, the new modes', () => {
  it("gives NumPy's docstring examples", async () => {
    const a = [1, 2, 3, 4, 5];
    expect(await vals(mt.pad(a, [2, 3], 'linear_ramp', { end_values: [5, -4] }))).toEqual([5, 3, 1, 2, 3, 4, 5, 2, -1, -4]);
    expect(await vals(mt.pad(a, [2], 'maximum'))).toEqual([5, 5, 1, 2, 3, 4, 5, 5, 5]);
    expect(await vals(mt.pad(a, [2], 'mean'))).toEqual([3, 3, 1, 2, 3, 4, 5, 3, 3]);
    expect(await vals(mt.pad(a, [2], 'median'))).toEqual([3, 3, 1, 2, 3, 4, 5, 3, 3]);
    expect(await vals(mt.pad(a, [2, 3], 'reflect', { reflect_type: 'odd' }))).toEqual([-1, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await vals(mt.pad(a, [2, 3], 'symmetric', { reflect_type: 'odd' }))).toEqual([0, 1, 1, 2, 3, 4, 5, 5, 6, 7]);
    // np.pad([[1, 2], [3, 4]], ((3, 2), (2, 3)), 'minimum'): corners from the last axis
    const m = await mt.pad([[1, 2], [3, 4]], [[3, 2], [2, 3]], 'minimum').fetch();
    expect(m.shape).toEqual([7, 7]);
    expect(m.toArray()).toEqual([
      [1, 1, 1, 2, 1, 1, 1], [1, 1, 1, 2, 1, 1, 1], [1, 1, 1, 2, 1, 1, 1], [1, 1, 1, 2, 1, 1, 1],
      [3, 3, 3, 4, 3, 3, 3], [1, 1, 1, 2, 1, 1, 1], [1, 1, 1, 2, 1, 1, 1],
    ]);
  });

  it('rounds an integer mean half to even and keeps the dtype', async () => {
    const r = mt.pad(mt.tensor([1, 2]), 1, 'mean');
    expect(r.dtype).toBe('int64');
    expect(await vals(r)).toEqual([2, 1, 2, 2]); // np.pad(np.array([1, 2]), 1, 'mean'): 1.5 -> 2
    // np.pad(np.array([1, 2, 3], np.uint8), 2, 'mean', stat_length=2): 1.5 -> 2 and 2.5 -> 2
    const u = mt.pad(mt.tensor([1, 2, 3], 'uint8'), 2, 'mean', { stat_length: 2 });
    expect(u.dtype).toBe('uint8');
    expect(await vals(u)).toEqual([2, 2, 1, 2, 3, 2, 2]);
  });

  it('takes its arguments positionally or by keyword, stat_length per axis', async () => {
    const x = [[1, 5], [2, 8]];
    const want = [1, 1, 5, 5, 1, 1, 5, 5, 2, 2, 8, 8, 2, 2, 8, 8]; // np.pad(x, 1, 'maximum', stat_length=((1, 1), (1, 2)))
    expect(await vals(mt.pad(x, 1, 'maximum', { stat_length: [[1, 1], [1, 2]] }))).toEqual(want);
    expect(await vals(mt.pad(x, { pad_width: 1, mode: 'maximum', stat_length: [[1, 1], [1, 2]] }))).toEqual(want);
    expect(await vals(mt.pad(x, 1, { mode: 'maximum', stat_length: [[1, 1], [1, 2]] }))).toEqual(want);
    expect(() => mt.pad(x, 1, 'edge', { mode: 'wrap' })).toThrow(/pad\(\) got multiple values for argument 'mode'/);
    expect(() => mt.pad(x, 1, 'edge', 3)).toThrow(/pad\(\) takes at most 2 arguments after the array/);
  });

  it('reads reflect_type other than odd as even, as NumPy does', async () => {
    expect(await vals(mt.pad([1, 2, 3], 2, 'reflect', { reflect_type: 'bad' }))).toEqual([3, 2, 1, 2, 3, 2, 1]);
  });

  it('computes linear_ramp ends given once for every axis', async () => {
    // np.pad(np.array([1., 2.5, 4.]), 3, 'linear_ramp', end_values=((0.5, 8),))
    expect(await vals(mt.pad([1.0, 2.5, 4.0], 3, 'linear_ramp', { end_values: [[0.5, 8]] }))).toEqual([0.5, 0.6666666666666666, 0.8333333333333333, 1, 2.5, 4, 5.333333333333334, 6.666666666666667, 8]);
  });

  it('builds a graph without running anything', async () => {
    const x = lazy([3, 1, 4, 1, 5]);
    const before = mt.lastReport();
    const ps = [
      mt.pad(x, [2, 9], 'median', { stat_length: 3 }),
      mt.pad(x, 4, 'linear_ramp', { end_values: [1, 2] }),
      mt.pad(x, 11, 'symmetric', { reflect_type: 'odd' }),
    ];
    expect(mt.lastReport()).toBe(before);
    // np.pad([3., 1, 4, 1, 5], (2, 9), 'median', stat_length=3)
    expect(await vals(ps[0]!)).toEqual([3, 3, 3, 1, 4, 1, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    expect((await ps[2]!.fetch()).shape).toEqual([27]);
  });

  it('gives the same values however the array is chunked', async () => {
    const data = Array.from({ length: 24 }, (_, i) => ((i * 7) % 11) - 5);
    const whole = mt.reshape(mt.tensor(data), [4, 6]);
    const tiny = mt.reshape(mt.tensor(data, { chunkSize: 2 }), [4, 6]);
    for (const [mode, kw] of [['median', { stat_length: [[1, 3], [2, 4]] }], ['linear_ramp', { end_values: [[-3, 7], [2, 0]] }], ['reflect', { reflect_type: 'odd' }]] as const) {
      const want = await vals(mt.pad(whole, [[5, 2], [3, 13]], mode, kw));
      expect(Array.from((await mt.pad(tiny, [[5, 2], [3, 13]], mode, kw).fetch({ workers: 0 })).data as ArrayLike<number | bigint>, Number)).toEqual(want);
    }
  });
});

describe("np.pad's errors, in NumPy's words", () => {
  const x = mt.tensor([[1, 2, 3], [4, 5, 6]]);
  it('names modes and keywords it does not take', () => {
    expect(() => mt.pad(x, 1, 'foo')).toThrow(new RangeError("mode 'foo' is not supported"));
    expect(() => mt.pad(x, 1, (() => undefined) as never)).toThrow(TypeError);
    expect(() => mt.pad(x, 1, 'maximum', { end_values: 1 })).toThrow(new RangeError("unsupported keyword arguments for mode 'maximum': {'end_values'}"));
    expect(() => mt.pad(x, 1, 'linear_ramp', { stat_length: 1 })).toThrow(/unsupported keyword arguments for mode 'linear_ramp': \{'stat_length'\}/);
    expect(() => mt.pad(x, 1, 'mean', { constant_values: 1 })).toThrow(/for mode 'mean': \{'constant_values'\}/);
    expect(() => mt.pad(x, 1, 'edge', { reflect_type: 'odd' })).toThrow(/for mode 'edge': \{'reflect_type'\}/);
    expect(() => mt.pad(x, 1, 'edge', { constant_values: 3 })).toThrow(/unsupported keyword arguments for mode 'edge': \{'constant_values'\}/);
    expect(() => mt.pad(x, 1, 'edge', { foo: 1, bar: 2 } as never)).toThrow(/for mode 'edge': \{'foo', 'bar'\}/);
    expect(() => mt.pad(x)).toThrow(/pad\(\) missing required argument 'pad_width'/);
  });

  it('has no maximum or minimum of nothing, on any axis', () => {
    expect(() => mt.pad(x, 1, 'maximum', { stat_length: 0 })).toThrow(new RangeError('stat_length of 0 yields no value for padding'));
    expect(() => mt.pad(x, [[1, 1], [0, 0]], 'minimum', { stat_length: [[1, 1], [0, 2]] })).toThrow(/stat_length of 0 yields no value/);
    expect(() => mt.pad(x, 0, 'maximum', { stat_length: 0 })).toThrow(/stat_length of 0 yields no value/);
  });

  it('pads a mean or median of nothing with NaN', async () => {
    expect(await vals(mt.pad([1.0, 2.5, 3.0], 1, 'mean', { stat_length: 0 }))).toEqual([NaN, 1, 2.5, 3, NaN]);
    expect(await vals(mt.pad([1.0, 2.5, 3.0], 1, 'median', { stat_length: [0, 1] }))).toEqual([NaN, 1, 2.5, 3, 3]);
  });

  it('checks stat_length and end_values', () => {
    expect(() => mt.pad(x, 1, 'mean', { stat_length: -1 })).toThrow(new RangeError("index can't contain negative values"));
    expect(() => mt.pad(x, 1, 'mean', { stat_length: [[1, 2], [3, -4]] })).toThrow(/index can't contain negative values/);
    expect(() => mt.pad(x, 1, 'mean', { stat_length: NaN })).toThrow(/index can't contain negative values/);
    expect(() => mt.pad(x, 1, 'mean', { stat_length: [null, 2] })).toThrow(TypeError);
    expect(() => mt.pad(x, 1, 'mean', { stat_length: 'a' })).toThrow(TypeError);
    expect(() => mt.pad(x, 1, 'mean', { stat_length: [[1, 2], [3, 4], [5, 6]] })).toThrow(/operands could not be broadcast together/);
    expect(() => mt.pad(mt.tensor([1, 2, 3]), 1, 'linear_ramp', { end_values: [[1, 2], [3, 4]] })).toThrow(/operands could not be broadcast together/);
    expect(() => mt.pad(x, 1, 'linear_ramp', { end_values: null })).toThrow(TypeError);
    expect(() => mt.pad(x, 0, 'linear_ramp', { end_values: 'a' })).toThrow(TypeError);
    expect(() => mt.pad(x, 1, { constant_values: null })).toThrow(TypeError);
  });

  it('rounds stat_length half to even; True is 1', async () => {
    const a = [1, 4, 9, 16, 25];
    expect(await vals(mt.pad(a, 1, 'mean', { stat_length: 2.5 }))).toEqual([2, 1, 4, 9, 16, 25, 20]); // np.pad(a, 1, 'mean', stat_length=2.5): 2.5 -> 2
    expect(await vals(mt.pad(a, 1, 'maximum', { stat_length: true }))).toEqual([1, 1, 4, 9, 16, 25, 25]);
  });

  it('extends no empty axis but in constant and empty modes, reading nothing else of an empty array', async () => {
    const e = mt.zeros([0, 2]);
    for (const mode of ['maximum', 'mean', 'median', 'minimum', 'linear_ramp', 'reflect', 'symmetric', 'edge', 'wrap']) {
      expect(() => mt.pad(e, [[1, 0], [0, 0]], mode)).toThrow(new RangeError("can't extend empty axis 0 using modes other than 'constant' or 'empty'"));
    }
    // np.pad(np.zeros((0, 2)), ((0, 0), (1, 1)), 'maximum', stat_length=-1) and end_values='x': (0, 4), no error
    expect((await mt.pad(e, [[0, 0], [1, 1]], 'maximum', { stat_length: -1 }).fetch()).shape).toEqual([0, 4]);
    expect((await mt.pad(e, [[0, 0], [1, 1]], 'linear_ramp', { end_values: 'x' }).fetch()).shape).toEqual([0, 4]);
    expect(await vals(mt.pad(e, [[1, 0], [0, 1]], 'constant', { constant_values: 7 }))).toEqual([7, 7, 7]);
  });
});

describe('np.block', () => {
  it('joins the innermost lists along the last axis, outer ones before it', async () => {
    const a = mt.multiply(mt.eye(2), 2), b = mt.zeros([2, 3]), c = mt.ones([3, 2]), d = mt.multiply(mt.eye(3), 3);
    const r = await mt.block([[a, b], [c, d]]).fetch();
    expect(r.shape).toEqual([5, 5]);
    expect(r.toArray()).toEqual([[2, 0, 0, 0, 0], [0, 2, 0, 0, 0], [1, 1, 3, 0, 0], [1, 1, 0, 3, 0], [1, 1, 0, 0, 3]]);
  });

  it('prepends axes to blocks, scalars and typed arrays included', async () => {
    expect((await mt.block([[1, 2], [3, 4]]).fetch()).toArray()).toEqual([[1, 2], [3, 4]]);
    const v = mt.block([mt.tensor([1, 2, 3]), mt.tensor([4, 5, 6]), 10]);
    expect(await vals(v)).toEqual([1, 2, 3, 4, 5, 6, 10]);
    const f = mt.block([new Float32Array([1, 2]), 3]);
    expect(f.dtype).toBe('float64'); // np.block([np.array([1, 2], np.float32), 3]): the scalar is an int64 array
    const w = await mt.block([[mt.ones([2, 2])], [mt.tensor([5, 6])]]).fetch();
    expect(w.toArray()).toEqual([[1, 1], [1, 1], [5, 6]]);
    expect((await mt.block([[[7]]]).fetch()).shape).toEqual([1, 1, 1]);
    const t = mt.tensor([1, 2]);
    expect(mt.block(t)).toBe(t);
    expect((await mt.block(5).fetch()).shape).toEqual([]);
  });

  it("names mismatched depths and empty lists as NumPy's ValueError does", () => {
    expect(() => mt.block([[1, 2], 3])).toThrow(new RangeError('List depths are mismatched. First element was at depth 2, but there is an element at depth 1 (arrays[1])'));
    expect(() => mt.block([1, [2, 3]])).toThrow('List depths are mismatched. First element was at depth 1, but there is an element at depth 2 (arrays[1][0])');
    expect(() => mt.block([[[1]], [2]])).toThrow('List depths are mismatched. First element was at depth 3, but there is an element at depth 2 (arrays[1][0])');
    expect(() => mt.block([[[]], [1]])).toThrow('List depths are mismatched. First element was at depth 3, but there is an element at depth 2 (arrays[1][0])');
    expect(() => mt.block([])).toThrow(new RangeError('List at arrays cannot be empty'));
    expect(() => mt.block([[1], []])).toThrow('List at arrays[1] cannot be empty');
    expect(() => mt.block([[], [1]])).toThrow('List at arrays[0] cannot be empty');
    expect(() => mt.block([[mt.ones([2, 2]), mt.ones([3, 1])]])).toThrow(
      'all the input array dimensions except for the concatenation axis must match exactly, but along dimension 0, the array at index 0 has size 2 and the array at index 1 has size 3');
    expect(() => mt.block([null as never])).toThrow(TypeError);
  });
});

describe('pad of a selection', () => {
  it('pads once the run knows the length', async () => {
    const a = mt.arange(10);
    const s = a.get(a.greater(6)); // [7, 8, 9]
    const p = mt.pad(s, [1, 2], 'edge');
    expect(p.shape[0]).toBeNaN();
    expect((await p.fetch()).toArray()).toEqual([7, 7, 8, 9, 9, 9]); // NumPy: np.pad([7, 8, 9], [1, 2], 'edge')
    expect((await mt.pad(s, 1, 'reflect', { reflect_type: 'odd' }).fetch()).toArray()).toEqual([6, 7, 8, 9, 10]);
  });
});
