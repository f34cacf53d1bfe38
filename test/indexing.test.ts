// Indexing beyond the NumPy fixtures: where NumPy raises (the same messages),
// where a mask's count is known only at run time (the execution rejects),
// shapes before execution, and the examples of the bug reports that
// motivated lowering masks to their nonzero() arrays (src/api/indexing.ts).
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const val = async (t: mt.Tensor) => (await t.fetch()).toArray();

describe('a boolean mask with other index items', () => {
  const x = mt.arange(12).reshape([3, 4]);
  const m = mt.tensor([true, false, true]);

  it('keeps integers, as NumPy treats them as arrays broadcast with the mask', async () => {
    expect(await val(x.get(m, 1))).toEqual([1, 9]);
    expect(await val(x.get(m, -1))).toEqual([3, 11]);
    expect(await val(x.get([true, false, true], 1))).toEqual([1, 9]);
    expect(await val(x.get(x.get(':', 0).greater(3), 1))).toEqual([5, 9]);
    expect(await val(x.get(1, mt.tensor([true, false, true, false])))).toEqual([4, 6]);
    expect(await val(x.get(m, '1:3'))).toEqual([[1, 2], [9, 10]]);
    const x3 = mt.arange(24).reshape([2, 3, 4]);
    expect(await val(x3.get(0, m))).toEqual([[0, 1, 2, 3], [8, 9, 10, 11]]);
    expect(await val(x3.get(':', m, 0))).toEqual([[0, 8], [12, 20]]);
    expect(await val(x3.get(mt.tensor([false, true]), 1, '::2'))).toEqual([[16, 18]]);
    // Advanced items apart (a slice between): the result axis goes first.
    expect(await val(x3.get(mt.tensor([false, true]), ':', 1))).toEqual([[13, 17, 21]]);
  });

  it('has a length known only at run time for a tensor mask, known at once for a JS one', async () => {
    const a = x.get(m, 1);
    expect(a.shape[0]).toBeNaN();
    expect(x.get([true, false, true], [0, 3]).shape).toEqual([2]);
    expect(x.get(true).shape).toEqual([1, 3, 4]);
    expect(x.get(false).shape).toEqual([0, 3, 4]);
    await a.execute();
    expect(a.shape).toEqual([2]);
  });

  it('lowers a mask with an integer array to its nonzero indices', async () => {
    expect(await val(x.get(m, [0, 3]))).toEqual([0, 11]);
    expect(await val(x.get(m, mt.tensor([[0], [3]])))).toEqual([[0, 8], [3, 11]]);
    expect(await val(x.get(mt.tensor([1, 2]), mt.tensor([true, false, true, false])))).toEqual([4, 10]);
  });

  it('works on a selection whose own length is known only at run time', async () => {
    const y = x.get(m);
    expect(await val(y.get(y.get(':', 0).greater(3), [1]))).toEqual([9]);
    expect(await val(y.get(y.get(':', 0).greater(3), 1))).toEqual([9]);
    expect(await val(y.set(0, 5))).toEqual([[5, 5, 5, 5], [8, 9, 10, 11]]); // NumPy: y[0] = 5
  });

  it('slices and picks from an axis whose length only the run knows, once the run knows it', async () => {
    const a = mt.arange(10, { dtype: 'float64' });
    const sel = a.get(a.greater(4)); // [5, 6, 7, 8, 9], its length not yet known
    // NumPy: sel[:3], sel[::2], sel[::-1], sel[1:], sel[-1], sel[2], sel[[0, 1]], sel[[-1, 0, -1]]
    const cases: [mt.Index, number[] | number, number[]][] = [
      [':3', [5, 6, 7], [NaN]], ['::2', [5, 7, 9], [NaN]], ['::-1', [9, 8, 7, 6, 5], [NaN]], ['1:', [6, 7, 8, 9], [NaN]],
      [-1, 9, []], [2, 7, []], [[0, 1], [5, 6], [2]], [[-1, 0, -1], [9, 5, 9], [3]],
    ];
    for (const [index, want, shape] of cases) {
      const r = sel.get(index);
      expect(r.shape).toEqual(shape); // before the run: a slice's length follows the selection's
      expect(await val(r)).toEqual(want);
    }
    // a slice's bounds cannot fix its length: sel[:1] of an empty selection is empty (NumPy: shape (0,))
    const none = a.get(a.greater(100)).get(':1');
    expect(none.shape[0]).toBeNaN();
    expect((await none.fetch()).shape).toEqual([0]);
    expect(await val(sel.get(':2').add(sel.get('-2:')))).toEqual([13, 15]); // NumPy: sel[:2] + sel[-2:]
    const r2 = x.get(x.get(':', 0).greater(3)); // rows [4..7], [8..11]
    expect(await val(r2.get('1:, ::2'))).toEqual([[8, 10]]);
    expect(await val(r2.get('-1, 1'))).toEqual(9);
    expect(await val(r2.get(mt.slice(null), mt.newaxis, 0))).toEqual([[4], [8]]);
    expect(await val(sel.set(':2', 0))).toEqual([0, 0, 7, 8, 9]); // NumPy: sel[:2] = 0
    expect(await val(sel.set(sel.greater(6), -1))).toEqual([5, 6, -1, -1, -1]);
    await sel.execute();
    expect(await val(sel.get('::-2'))).toEqual([9, 7, 5]); // NumPy: [9. 7. 5.]
    expect(await val(sel.add(sel.get('::-1')))).toEqual([14, 14, 14, 14, 14]);
  });

  it('fails the run, with NumPy\'s message, for an index the computed length does not fit', async () => {
    const a = mt.arange(10);
    const sel = a.get(a.greater(6)); // [7, 8, 9]
    await expect(sel.get(5).fetch()).rejects.toThrow(/index 5 is out of bounds for axis 0 with size 3/);
    await expect(sel.set(':2', [1, 2, 3]).fetch()).rejects.toThrow(/could not be broadcast/);
    expect(await val(sel)).toEqual([7, 8, 9]); // the failed runs leave the selection usable
  });

  it('reads a 0-d boolean tensor as a mask over a new axis', async () => {
    expect(await val(x.get(mt.tensor(true), 0))).toEqual([[0, 1, 2, 3]]);
    expect((await x.get(mt.tensor(false)).fetch()).shape).toEqual([0, 3, 4]);
    expect(await val(x.set(mt.tensor(false), 5))).toEqual(await val(x));
    expect(await val(x.set(mt.tensor(true), ':', 0, 5))).toEqual([[5, 1, 2, 3], [5, 5, 6, 7], [5, 9, 10, 11]]);
  });

  it('reads and writes x.flat as NumPy does', async () => {
    const a = mt.arange(12).reshape([3, 4]);
    // NumPy: x.flat[5], x.flat[[1, 7]], x.T.flat[1:4], x.flat[-1]
    expect(await val(a.flat.get(5))).toEqual(5);
    expect(await val(a.flat.get([1, 7]))).toEqual([1, 7]);
    expect(await val(a.T.flat.get('1:4'))).toEqual([4, 8, 1]);
    expect(await val(a.flat.get(-1))).toEqual(11);
    // NumPy: y.flat[[0, 5]] = [-1, -2]; y.flat[2:4] = 0; y = x.T.copy(); y.flat[1] = 100
    expect(await val(a.flat.set([0, 5], [-1, -2]))).toEqual([[-1, 1, 2, 3], [4, -2, 6, 7], [8, 9, 10, 11]]);
    expect(await val(a.flat.set('2:4', 0))).toEqual([[0, 1, 0, 0], [4, 5, 6, 7], [8, 9, 10, 11]]);
    expect(await val(a.T.flat.set(1, 100))).toEqual([[0, 100, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]);
    expect(() => a.flat.get(12)).toThrow(/index 12 is out of bounds for axis 0 with size 12/);
  });

  it('reads an empty list as an empty integer index', async () => {
    const e = await mt.arange(5).get([]).fetch();
    expect(e.shape).toEqual([0]);
    expect(e.dtype).toBe('int64');
  });
});

describe('set() through masks and integer arrays', () => {
  it('takes several plain integers as one element (x[1, 2] = v), and one JS array of them as an integer array (x[[1, 2]] = v)', async () => {
    const a = mt.arange(12).reshape([3, 4]);
    // NumPy: a[1, 1] = 99; a[-1, -1] = 5; a[0, 3] = 99; a[[1, 2]] = -1
    expect(await val(a.set(1, 1, 99))).toEqual([[0, 1, 2, 3], [4, 99, 6, 7], [8, 9, 10, 11]]);
    expect(await val(a.set(-1, -1, 5))).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 5]]);
    expect(await val(a.set(0, 3, 99))).toEqual([[0, 1, 2, 99], [4, 5, 6, 7], [8, 9, 10, 11]]);
    expect(await val(a.set([1, 2], -1))).toEqual([[0, 1, 2, 3], [-1, -1, -1, -1], [-1, -1, -1, -1]]);
    expect(await val(mt.arange(24).reshape([2, 3, 4]).set(0, 1, 2, -7).get(0, 1))).toEqual([4, 5, -7, 7]);
  });

  const x = mt.arange(12).reshape([3, 4]);
  const m = mt.tensor([true, false, true]);

  it('writes only where every index item selects', async () => {
    expect(await val(x.set(m, 1, -5))).toEqual([[0, -5, 2, 3], [4, 5, 6, 7], [8, -5, 10, 11]]);
    expect(await val(x.set(m, '1:3', -5))).toEqual([[0, -5, -5, 3], [4, 5, 6, 7], [8, -5, -5, 11]]);
    const c = mt.tensor([true, false, true, false]);
    expect(await val(x.set('0:2', c, -5))).toEqual([[-5, 1, -5, 3], [-5, 5, -5, 7], [8, 9, 10, 11]]);
    expect(await val(x.set(1, c, -5))).toEqual([[0, 1, 2, 3], [-5, 5, -5, 7], [8, 9, 10, 11]]);
    expect(await val(mt.zeros([3, 2]).set(m, mt.tensor([7, 8], { dtype: 'float64' })))).toEqual([[7, 8], [0, 0], [7, 8]]);
    expect(await val(mt.zeros([3, 3]).set([0, 1, 2], [2, 1, 0], 1))).toEqual([[0, 0, 1], [0, 1, 0], [1, 0, 0]]);
    expect(await val(x.set(m, [0, 3], mt.tensor([100, 200])))).toEqual([[100, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 200]]);
  });

  it('returns a new tensor and leaves the input unchanged', async () => {
    const y = x.set(m, 1, -5);
    // (not expect(y).not.toBe(x): vitest then walks both as iterables, down to 0-d tensors, which do not iterate)
    expect(y === x).toBe(false);
    expect(await val(x)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]);
  });

  it('checks the value against a mask count known only at run time', async () => {
    const a = mt.arange(6);
    expect(await val(a.set(a.greater(2), mt.tensor([1, 2, 3])))).toEqual([0, 1, 2, 1, 2, 3]);
    await expect(a.set(a.greater(2), mt.tensor([1, 2])).fetch()).rejects.toThrow(/could not be broadcast together with shapes \(3,\)/);
    await expect(x.get(m, mt.tensor([0, 1, 3])).fetch()).rejects.toThrow(/could not be broadcast together with shapes/);
  });
});

describe('indexing errors, as NumPy raises them', () => {
  const x = mt.arange(12).reshape([3, 4]);
  const m = mt.tensor([true, false, true]);
  it.each([
    ['mask count in assignment', () => mt.arange(6).set([false, false, false, true, true, true], mt.tensor([1, 2])),
      /NumPy boolean array indexing assignment cannot assign 2 input values to the 3 output values where the mask is true/],
    ['2-d value in mask assignment', () => mt.zeros([3, 2]).set(mt.ones([3, 2], { dtype: 'bool' }), mt.ones([1, 6])),
      /NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has 2 dimensions/],
    ['value shape', () => mt.zeros([3, 2]).set([true, false, true], 1, mt.tensor([1, 2, 3])),
      /shape mismatch: value array of shape \(3,\) could not be broadcast to indexing result of shape \(2,\)/],
    ['value shape, rows', () => mt.zeros([3, 2]).set([true, false, true], mt.ones([3, 2])),
      /shape mismatch: value array of shape \(3, 2\) could not be broadcast to indexing result of shape \(2, 2\)/],
    ['index arrays broadcast', () => x.get([0, 1], [0, 1, 2]),
      /shape mismatch: indexing arrays could not be broadcast together with shapes \(2,\) \(3,\)/],
    ['JS mask with an array', () => x.get([true, false, true], [0, 1, 2]),
      /shape mismatch: indexing arrays could not be broadcast together with shapes \(2,\) \(3,\)/],
    ['integer next to a mask, bounds', () => x.get(m, 5), /index 5 is out of bounds for axis 1 with size 4/],
    ['mask shape', () => x.get(':', mt.tensor([true, false])), /boolean index did not match indexed array along axis 1; size of axis is 4 but size of corresponding boolean axis is 2/],
    ['float list', () => x.get([0.5]), /arrays used as indices must be of integer \(or boolean\) type/],
  ])('%s', (_, f, re) => {
    expect(f).toThrow(re);
  });
});

describe('assignment through integer arrays at scale', () => {
  it('writes each position from the last index entry that names it (the inverse index), over many chunks', async () => {
    const n = 300_000, k = 50_000;
    const idx = Array.from({ length: k }, (_, i) => (i * 7919) % n - (i % 3 === 0 ? n : 0)); // negatives and repeats
    idx.push(idx[5]!, idx[6]!);
    const vals = Array.from({ length: idx.length }, (_, i) => i + 1);
    const want = new Float64Array(n).fill(-1);
    idx.forEach((j, i) => { want[j < 0 ? j + n : j] = vals[i]!; });
    const x = mt.full([n], -1, { dtype: 'float64', chunkSize: 40_000 });
    const fromJs = await x.set(idx, mt.tensor(vals, { dtype: 'float64' })).fetch();
    expect(fromJs.data).toEqual(want);
    // The same index as a tensor (values known only at run time) and through a 2-d reshape.
    const t = mt.tensor(idx).add(n).mod(n);
    expect((await x.set(t, mt.tensor(vals, { dtype: 'float64' })).fetch()).data).toEqual(want);
    const x2 = x.reshape([3, n / 3]);
    const rows = t.floor_divide(n / 3), cols = t.mod(n / 3);
    expect((await x2.set(rows, cols, mt.tensor(vals, { dtype: 'float64' })).fetch()).data).toEqual(want);
  });

  it('refuses a run-time index past its axis (NumPy raises IndexError), and an empty index changes nothing', async () => {
    const x = mt.arange(5);
    await expect(x.set(mt.tensor([1, 9]), 7).fetch()).rejects.toThrow(/index out of bounds in an assignment/);
    await expect(x.set(mt.tensor([1, -7]), 7).fetch()).rejects.toThrow(/index out of bounds in an assignment/);
    // (0, 5) on a 3 x 4 array would be position (1, 1) if the axes were not checked one by one.
    await expect(mt.zeros([3, 4]).set(mt.tensor([0]), mt.tensor([5]), 1).fetch()).rejects.toThrow(/index out of bounds in an assignment/);
    expect((await x.set(mt.tensor([1, -1]), 7).fetch()).toArray()).toEqual([0, 7, 2, 3, 7]);
    expect((await x.set(mt.arange(5).get(mt.arange(5).greater(9)), 7).fetch()).toArray()).toEqual([0, 1, 2, 3, 4]);
  });
});
