// src/api/extra.ts beyond test/fixtures/numpy_extra.json: the functions that
// return JS values (ndim, shape, size, broadcast_shapes), mt.slice positions,
// NumPy's errors at the call site and when the run reaches an index known
// only then, the partition property (any valid partition is NumPy-correct),
// and results that do not depend on the chunk grid. Expected values are
// NumPy 2.4's.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const values = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);
/** A tensor whose values are known only once the run computes them. */
const computed = (data: number[]): mt.Tensor => mt.add(mt.tensor(data), 0);

describe('shape queries', () => {
  it('ndim, shape and size of tensors and JS data, as NumPy', () => {
    const x = mt.zeros([2, 3, 4]);
    expect([mt.ndim(x), mt.shape(x), mt.size(x)]).toEqual([3, [2, 3, 4], 24]);
    expect([mt.ndim([[1, 2, 3]]), mt.shape([[1, 2, 3]]), mt.size([[1, 2, 3]])]).toEqual([2, [1, 3], 3]);
    expect([mt.ndim(5), mt.shape(5), mt.size(5)]).toEqual([0, [], 1]);
    expect([mt.size(x, 1), mt.size(x, -1), mt.size(x, [0, 2]), mt.size(x, { axis: 0 })]).toEqual([3, 4, 8, 2]);
    expect(() => mt.size(x, 3)).toThrow(/axis 3 is out of bounds for array of dimension 3/);
  });
  it('broadcast_shapes as NumPy, with its mismatch message', () => {
    expect(mt.broadcast_shapes([3, 1], [4], 1, [])).toEqual([3, 4]);
    expect(mt.broadcast_shapes([0, 1], [1, 5])).toEqual([0, 5]);
    expect(() => mt.broadcast_shapes([2], [2, 1], [3])).toThrow('shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (2,) and arg 2 with shape (3,).');
  });
});

describe('positions given as mt.slice', () => {
  const a = mt.arange(12).reshape(3, 4).multiply(10);
  it('insert and delete along an axis and flattened', async () => {
    expect(await values(mt.insert(a, mt.slice(1, 4, 2), 99, { axis: 1 }))).toEqual([0, 99, 10, 20, 99, 30, 40, 99, 50, 60, 99, 70, 80, 99, 90, 100, 99, 110]);
    expect(await values(mt.delete(a, mt.slice(null, null, 2), { axis: 1 }))).toEqual([10, 30, 50, 70, 90, 110]);
    expect(await values(mt.delete(mt.arange(6), mt.slice(4, 0, -2)))).toEqual([0, 1, 3, 5]);
  });
  it('delete with a boolean mask, known now or only at run time', async () => {
    const x = mt.arange(5).multiply(2);
    expect(await values(mt.delete(x, [true, false, true, false, false]))).toEqual([2, 6, 8]);
    expect(await values(mt.delete(x, mt.greater(mt.arange(5), 2)))).toEqual([0, 2, 4]);
  });
});

describe("NumPy 2's Array API names", () => {
  it('isdtype, ndarray.mT and the checks NumPy makes', async () => {
    expect([mt.isdtype('float32', 'real floating'), mt.isdtype('int8', 'unsigned integer'), mt.isdtype('uint16', ['bool', 'integral']), mt.isdtype(mt.zeros([1]), 'numeric'), mt.isdtype('bool', 'numeric')])
      .toEqual([true, false, true, true, false]);
    expect(mt.isdtype('int64', 'int64')).toBe(true);
    expect(() => mt.isdtype('int8', 'whole')).toThrow(/not a known kind name/);
    const b = mt.arange(24).reshape([2, 3, 4]);
    expect(b.mT.shape).toEqual([2, 4, 3]);
    expect(Array.from((await b.mT.fetch()).data as BigInt64Array, Number).slice(0, 4)).toEqual([0, 4, 8, 1]);
    expect(() => mt.arange(3).mT).toThrow('matrix transpose with ndim < 2 is undefined');
    expect(() => mt.cumulative_sum(mt.zeros([2, 2]))).toThrow('For arrays which have more than one dimension ``axis`` argument is required.');
    expect(() => mt.permute_dims(b)).toThrow(/missing required argument 'axes'/);
    expect(() => mt.matrix_transpose(mt.arange(3))).toThrow(/at least 2-dimensional/);
    expect(() => mt.linalg.outer(b, mt.arange(3))).toThrow('Input arrays must be one-dimensional, but they are 3d and 1d.');
    expect(() => mt.linalg.cross(mt.zeros([2]), mt.zeros([2]))).toThrow(/must be \(arrays of\) 3-dimensional vectors/);
    expect(() => mt.dsplit(mt.zeros([2, 2]), 2)).toThrow('dsplit only works on arrays of 3 or more dimensions');
  });
});

describe('sequences of array bounds', () => {
  it('geomspace refuses a zero bound known now at once, and one computed in the run when the run reaches it', async () => {
    expect(() => mt.geomspace([1, 0], 8, 3)).toThrow('Geometric sequence cannot include zero');
    await expect(mt.geomspace(computed([1, 0]), 8, 3).fetch()).rejects.toThrow('Geometric sequence cannot include zero');
    expect(await values(mt.geomspace(computed([1, -2]), [8, -32], 3))).toEqual([1, -2, 2.82842712474619, -7.999999999999999, 8, -32]) // NumPy 2.4's values;
  });
  it('linspace of arrays: samples along the axis asked for, each endpoint exactly its bound', async () => {
    const [y, step] = mt.linspace([0, 10], computed([1, 20]), 3, { axis: 1, retstep: true });
    expect(y.shape).toEqual([2, 3]);
    expect(await values(y)).toEqual([0, 0.5, 1, 10, 15, 20]);
    expect(await values(step as mt.Tensor)).toEqual([0.5, 5]);
    expect(() => mt.linspace(0, 1, 3, { axis: 1 })).toThrow(/axis 1 is out of bounds for array of dimension 1/);
  });
});

describe('errors as NumPy raises them', () => {
  it('polyfit', () => {
    expect(() => mt.polyfit([1, 2, 3], [1, 2, 3], -1)).toThrow(new RangeError('expected deg >= 0'));
    expect(() => mt.polyfit([[1, 2]], [1, 2], 1)).toThrow(new TypeError('expected 1D vector for x'));
    expect(() => mt.polyfit([], [], 1)).toThrow(new TypeError('expected non-empty vector for x'));
    expect(() => mt.polyfit([1, 2, 3], [1, 2], 1)).toThrow(new TypeError('expected x and y to have same length'));
    expect(() => mt.polyfit([1, 2, 3], [1, 2, 3], 1, { w: [1, 2] })).toThrow(new TypeError('expected w and y to have the same length'));
    expect(() => mt.polyfit([1, 2, 3], [1, 2, 3], 2, { cov: true })).toThrow('the number of data points must exceed order to scale the covariance matrix');
    expect(() => mt.polyfit([1, 2, 3], [1, 2, 3], 'a' as never)).toThrow(TypeError);
  });
  const a = mt.zeros([2, 3]);
  const cases: [string, () => unknown, RegExp | string, ErrorConstructor][] = [
    ['fliplr', () => mt.fliplr(mt.zeros([3])), 'Input must be >= 2-d.', RangeError],
    ['flipud', () => mt.flipud(mt.zeros([])), 'Input must be >= 1-d.', RangeError],
    ['rot90 same axes', () => mt.rot90(a, 1, [0, -2]), 'Axes must be different.', RangeError],
    ['rot90 axes out of range', () => mt.rot90(a, 1, [0, 3]), 'Axes=(0, 3) out of range for array of ndim=2.', RangeError],
    ['rot90 three axes', () => mt.rot90(a, 1, [0, 1, 2]), 'len(axes) must be 2.', RangeError],
    ['rollaxis start', () => mt.rollaxis(a, 0, 5), "'start' arg requires -2 <= start < 3, but 5 was passed in", RangeError],
    ['broadcast_arrays', () => mt.broadcast_arrays(mt.zeros([2]), mt.zeros([3])), /Mismatch is between arg 0 with shape \(2,\) and arg 1 with shape \(3,\)/, RangeError],
    ['tril_indices_from', () => mt.tril_indices_from(mt.zeros([3])), 'input array must be 2-d', RangeError],
    ['diag_indices_from', () => mt.diag_indices_from(a), 'All dimensions of input must be of equal length', RangeError],
    ['ix_', () => mt.ix_([[1]]), 'Cross index must be 1 dimensional', RangeError],
    ['unravel_index bounds', () => mt.unravel_index([9], [3, 3]), 'index 9 is out of bounds for array with size 9', RangeError],
    ['unravel_index negative', () => mt.unravel_index(-1, [3, 3]), 'index -1 is out of bounds for array with size 9', RangeError],
    ['unravel_index float', () => mt.unravel_index(mt.tensor([1.5]), [3, 3]), 'only int indices permitted', TypeError],
    ['ravel_multi_index bounds', () => mt.ravel_multi_index([[3], [1]], [3, 3]), 'invalid entry in coordinates array', RangeError],
    ['ravel_multi_index length', () => mt.ravel_multi_index([[1]], [3, 3]), 'parameter multi_index must be a sequence of length 2', RangeError],
    ['ravel_multi_index float', () => mt.ravel_multi_index([mt.tensor([1.5]), [1]], [3, 3]), 'only int indices permitted', TypeError],
    ['geomspace zero', () => mt.geomspace(0, 3), 'Geometric sequence cannot include zero', RangeError],
    ['select lengths', () => mt.select([mt.tensor([true])], []), 'list of cases must be same length as list of conditions', RangeError],
    ['select empty', () => mt.select([], []), 'select with an empty condition list is not possible', RangeError],
    ['select not bool', () => mt.select([mt.tensor([1, 0])], [mt.tensor([1, 2])]), 'invalid entry 0 in condlist: should be boolean ndarray', TypeError],
    ['choose bounds', () => mt.choose([3], [[1], [2]]), 'invalid entry in choice array', RangeError],
    ['choose float', () => mt.choose(mt.tensor([1.5]), [[1], [2]]), "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'", TypeError],
    ['insert bounds', () => mt.insert(mt.arange(5), 9, 9), 'index 9 is out of bounds for axis 0 with size 5', RangeError],
    ['insert 2-d obj', () => mt.insert(mt.arange(5), [[1]], 9), 'index array argument obj to insert must be one dimensional or scalar', RangeError],
    ['delete bounds', () => mt.delete(mt.arange(5), [9]), 'index 9 is out of bounds for axis 0 with size 5', RangeError],
    ['delete float', () => mt.delete(mt.arange(5), mt.tensor([1.5])), 'arrays used as indices must be of integer (or boolean) type', RangeError],
    ['delete mask length', () => mt.delete(mt.arange(5), mt.tensor([true])), 'boolean array argument obj to delete must be one dimensional and match the axis length of 5', RangeError],
    ['resize', () => mt.resize(mt.arange(3), [2, -1]), 'all elements of `new_shape` must be non-negative', RangeError],
    ['vander', () => mt.vander(a), 'x must be a one-dimensional array or sequence.', RangeError],
    ['cross length', () => mt.cross(mt.zeros([3]), mt.zeros([4])), 'incompatible dimensions for cross product\n(dimension must be 2 or 3)', RangeError],
    ['cross 0-d', () => mt.cross(mt.zeros([]), mt.zeros([3])), 'At least one array has zero dimension', RangeError],
    ['cross bool', () => mt.cross(mt.tensor([true, false, true]), mt.tensor([true, true, true])), /numpy boolean subtract/, TypeError],
    ['gradient edge_order', () => mt.gradient(mt.arange(3), { edge_order: 3 }), "'edge_order' greater than 2 not supported", RangeError],
    ['gradient too short', () => mt.gradient(mt.arange(2), { edge_order: 2 }), 'Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are required.', RangeError],
    ['gradient arguments', () => mt.gradient(mt.arange(3), 1, 2), 'invalid number of arguments', TypeError],
    ['gradient coordinates', () => mt.gradient(mt.arange(3), [1, 2]), 'when 1d, distances must match the length of the corresponding dimension', RangeError],
    ['ediff1d ends', () => mt.ediff1d(mt.arange(3), { to_begin: 1.5 }), 'dtype of `to_begin` must be compatible with input `ary` under the `same_kind` rule.', TypeError],
    ['partition kth', () => mt.partition(mt.arange(5), 5), 'kth(=5) out of bounds (5)', RangeError],
    ['partition kth type', () => mt.partition(mt.arange(5), 1.5), 'Partition index must be integer', TypeError],
    ['partition 0-d', () => mt.argpartition(mt.tensor(3), 0), 'axis -1 is out of bounds for array of dimension 0', RangeError],
  ];
  it.each(cases)('%s', (_, f, msg, type) => {
    expect(f).toThrow(type);
    expect(f).toThrow(msg);
  });
});

describe("'raise' modes checked when the run reaches indices known only then", () => {
  const reject = async (t: mt.Tensor, msg: string) => {
    const err = await t.fetch().then(() => undefined, (e: unknown) => e as Error);
    expect(err?.message).toBe(msg);
  };
  it('ravel_multi_index, choose and unravel_index raise for an index out of bounds', async () => {
    await reject(mt.ravel_multi_index([computed([1, 3]), computed([0, 0])], [3, 4]), 'invalid entry in coordinates array');
    await reject(mt.choose(computed([0, 2]), [[1, 2], [3, 4]]), 'invalid entry in choice array');
    await reject(mt.unravel_index(computed([5, 12]), [3, 4])[0]!, 'an index is out of bounds for array with size 12');
  });
  it('and pass indices in bounds', async () => {
    expect(await values(mt.ravel_multi_index([computed([1, 2]), computed([3, 0])], [3, 4]))).toEqual([7, 8]);
    expect(await values(mt.choose(computed([1, 0, 1]), [[1, 2, 3], [4, 5, 6]]))).toEqual([4, 2, 6]);
    const [r, c] = mt.unravel_index(computed([5, 11]), [3, 4]);
    expect([await values(r!), await values(c!)]).toEqual([[1, 2], [1, 3]]);
  });
});

describe('partition and argpartition', () => {
  /** NumPy's contract: a[kth] is the sorted value; nothing before it larger, nothing after it smaller. */
  const isPartition = (p: number[], sorted: number[], kth: number) =>
    p[kth] === sorted[kth] && p.slice(0, kth).every((v) => v <= p[kth]!) && p.slice(kth + 1).every((v) => v >= p[kth]!);
  it('satisfies the partition property for every kth, along any axis', async () => {
    const data = [5, -1, 3, 3, 9, 0, -7, 2, 8, 1, 4, 6];
    const sorted = [...data].sort((x, y) => x - y);
    for (const kth of [0, 5, 11, -1]) {
      const k = (kth + 12) % 12;
      const p = await values(mt.partition(data, kth));
      expect(isPartition(p, sorted, k)).toBe(true);
      expect([...p].sort((x, y) => x - y)).toEqual(sorted);
      const idx = await values(mt.argpartition(data, [kth, 3]));
      expect(isPartition(idx.map((i) => data[i]!), sorted, k)).toBe(true);
      expect([...idx].sort((x, y) => x - y)).toEqual(data.map((_, i) => i));
    }
    const cols = await values(mt.partition(mt.tensor(data).reshape(3, 4), 1, { axis: 0 }));
    for (let j = 0; j < 4; j++) {
      const col = [0, 1, 2].map((i) => cols[i * 4 + j]!);
      expect(isPartition(col, [data[j]!, data[4 + j]!, data[8 + j]!].sort((x, y) => x - y), 1)).toBe(true);
    }
    expect(await values(mt.partition(mt.tensor(3), 0, { axis: null }))).toEqual([3]);
  });
});

describe('results do not depend on the chunk grid', () => {
  const data = Array.from({ length: 40 }, (_, i) => Math.sin(i * 1.7) * 10);
  const fns: [string, (x: mt.Tensor) => mt.Tensor | mt.Tensor[]][] = [
    ['rot90', (x) => mt.rot90(x, 3)],
    ['insert', (x) => mt.insert(x, [1, 3, 3], [7, 8, 9], { axis: 1 })],
    ['delete', (x) => mt.delete(x, [0, 5, 7])],
    ['resize', (x) => mt.resize(x, [7, 9])],
    ['gradient', (x) => mt.gradient(x, 0.5, [0, 1, 3, 4, 6, 7, 9, 10], { edge_order: 2 })],
    ['trapezoid', (x) => mt.trapezoid(x, { axis: 0 })],
    ['cross', (x) => mt.cross(x.reshape(10, 4).get(':, :3'), x.reshape(10, 4).get(':, 1:'))],
    ['kron', (x) => mt.kron(x.get(':2, :3'), x.get('1:3, 2:4'))],
    ['choose', (x) => mt.choose(mt.tensor([0, 1, 2, 1, 0, 2, 1, 0]), [x.get(0), x.get(1), x.get(2)])],
  ];
  it.each(fns)('%s', async (_, f) => {
    const run = async (chunkSize?: number) => {
      const r = f(mt.tensor(data, chunkSize ? { chunkSize } : {}).reshape(5, 8));
      return Promise.all((Array.isArray(r) ? r : [r]).map(values));
    };
    expect(await run(3)).toEqual(await run());
  });
});

describe('convolve and correlate beyond the fixtures', () => {
  const cases: [string, () => unknown, RegExp | string, ErrorConstructor][] = [
    ['convolve empty a', () => mt.convolve([], [1]), 'a cannot be empty', RangeError],
    ['convolve empty v', () => mt.convolve([1], []), 'v cannot be empty', RangeError],
    ['correlate empty a', () => mt.correlate([], [1]), 'first array argument cannot be empty', RangeError],
    ['correlate empty v', () => mt.correlate([1, 2], []), 'second array argument cannot be empty', RangeError],
    ['mode name', () => mt.convolve([1, 2], [1], 'bad'), "mode must be one of 'valid', 'same', or 'full' (got 'bad')", RangeError],
    ['mode prefix', () => mt.correlate([1, 2], [1], { mode: 'v' }), "Use one of 'valid', 'same', or 'full' for convolve/correlate mode", RangeError],
    ['mode integer', () => mt.correlate([1, 2], [1], 3), 'integer convolve/correlate mode must be 0, 1, or 2', RangeError],
    ['mode type', () => mt.convolve([1, 2], [1], 1.5), 'convolve/correlate mode not understood', TypeError],
    ['convolve 2-d', () => mt.convolve([[1, 2]], [1]), 'object too deep for desired array', RangeError],
    ['correlate 2-d', () => mt.correlate([[1, 2]], [1]), 'setting an array element with a sequence. The requested array would exceed the maximum number of dimension of 1.', RangeError],
    ['correlate 0-d', () => mt.correlate(3, [1, 2]), 'object of too small depth for desired array', RangeError],
  ];
  it.each(cases)('%s', (_, f, msg, type) => {
    expect(f).toThrow(type);
    expect(f).toThrow(msg);
  });
  it('short (shifted slices) and long (gathered windows) kernels, on any chunk grid', async () => {
    // NumPy 2: np.convolve(np.arange(12.), [1, -2, 0.5]) and np.correlate(np.arange(40.), np.arange(35.) % 3, 'same')[:4]
    for (const chunkSize of [undefined, 3]) {
      const o = chunkSize ? { chunkSize } : {};
      expect(await values(mt.convolve(mt.tensor(Array.from({ length: 12 }, (_, i) => i), { ...o, dtype: 'float64' }), [1, -2, 0.5])))
        .toEqual([0, 1, 0, -0.5, -1, -1.5, -2, -2.5, -3, -3.5, -4, -4.5, -17, 5.5]);
      const c = await values(mt.correlate(mt.tensor(Array.from({ length: 40 }, (_, i) => i), { ...o, dtype: 'float64' }), mt.mod(mt.arange(35, { dtype: 'float64' }), 3), 'same'));
      expect([c.length, ...c.slice(0, 4)]).toEqual([40, 147, 165, 184, 203]);
    }
  });
});

describe('apply_along_axis, apply_over_axes and piecewise (NumPy 2 values)', () => {
  const a = mt.arange(24).reshape(2, 3, 4);
  const got = async (t: mt.Tensor) => { const r = await t.fetch(); return [r.shape, r.dtype, Array.from(r.data as ArrayLike<number | bigint>, Number)]; };
  it('apply_along_axis: a scalar result drops the axis, a vector or matrix takes its place', async () => {
    expect(await got(mt.apply_along_axis((s) => mt.sum(s), 1, a))).toEqual([[2, 4], 'int64', [12, 15, 18, 21, 48, 51, 54, 57]]);
    expect(await got(mt.apply_along_axis((s) => mt.stack([mt.min(s), mt.max(s)]), 1, a)))
      .toEqual([[2, 2, 4], 'int64', [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23]]);
    expect(await got(mt.apply_along_axis((s) => mt.outer(s, s), -1, mt.arange(6).reshape(2, 3))))
      .toEqual([[2, 3, 3], 'int64', [0, 0, 0, 0, 1, 2, 0, 2, 4, 9, 12, 15, 12, 16, 20, 15, 20, 25]]);
    // extra arguments are passed on; a JS number result is a 0-d value (np.apply_along_axis(lambda s, k: s[k], 0, a, 2))
    expect(await got(mt.apply_along_axis((s: mt.Tensor, k: unknown) => s.get(k as number), 0, mt.arange(6).reshape(3, 2), 2))).toEqual([[2], 'int64', [4, 5]]);
    expect(await got(mt.apply_along_axis(() => 1.5, 0, mt.zeros([2, 2])))).toEqual([[2], 'float64', [1.5, 1.5]]);
  });
  it('apply_over_axes: reductions keep their axes', async () => {
    expect(await got(mt.apply_over_axes((t, ax) => mt.sum(t, ax), a, [0, 2]))).toEqual([[1, 3, 1], 'int64', [60, 92, 124]]);
    expect(await got(mt.apply_over_axes((t, ax) => mt.max(t, { axis: ax, keepdims: true }), a, -1))).toEqual([[2, 3, 1], 'int64', [3, 7, 11, 15, 19, 23]]);
  });
  it('piecewise: functions and constants, the otherwise piece, results in x\'s dtype', async () => {
    const x = mt.linspace(-2.5, 2.5, 6);
    expect(await got(mt.piecewise(x, [mt.less(x, 0), mt.greater_equal(x, 0)], [(t) => mt.negative(t), (t) => t]))).toEqual([[6], 'float64', [2.5, 1.5, 0.5, 0.5, 1.5, 2.5]]);
    expect(await got(mt.piecewise(x, [mt.less(x, -1), mt.greater(x, 1)], [(t) => mt.multiply(t, 2), 7, -1]))).toEqual([[6], 'float64', [-5, -3, -1, -1, 7, 7]]);
    // one condition (not a list), an int x: 1.5 * v truncates, as NumPy's assignment into zeros_like(x)
    expect(await got(mt.piecewise(mt.arange(5), mt.greater(mt.arange(5), 2), [(t) => mt.multiply(t, 1.5), 9]))).toEqual([[5], 'int64', [9, 9, 9, 4, 6]]);
    // overlapping conditions: the later wins; uncovered elements are 0 (np.piecewise(x, [x > -2, x > 0], [1, 2]))
    expect(await got(mt.piecewise(x, [mt.greater(x, -2), mt.greater(x, 0)], [1, 2]))).toEqual([[6], 'float64', [0, 1, 1, 2, 2, 2]]);
    // a list of one 2-d condition; a 2-d array of conditions is split along its first axis, each selecting rows
    // (np.piecewise(m, [m % 2 == 0], [10]) and np.piecewise(m, np.array([[True, False], [False, True]]), [10, 20]))
    const m = mt.tensor([[1, 2], [3, 4]]);
    expect(await got(mt.piecewise(m, [mt.equal(mt.mod(m, 2), 0)], [10]))).toEqual([[2, 2], 'int64', [0, 10, 0, 10]]);
    expect(await got(mt.piecewise(m, mt.tensor([[true, false], [false, true]]), [10, 20]))).toEqual([[2, 2], 'int64', [10, 10, 20, 20]]);
    expect(() => mt.piecewise(m, [[true, false], [false, true]], [10])).toThrow(new RangeError('with 2 condition(s), either 2 or 3 functions are expected'));
  });
  it('errors as NumPy raises them', () => {
    expect(() => mt.apply_along_axis((s) => s, 0, mt.zeros([3, 0]))).toThrow(new RangeError('Cannot apply_along_axis when any iteration dimensions are 0'));
    expect(() => mt.apply_along_axis((s) => s, 2, mt.zeros([3, 2]))).toThrow(/axis 2 is out of bounds for array of dimension 2/);
    expect(() => mt.apply_over_axes((t) => mt.sum(t), a, [0])).toThrow(new RangeError('function is not returning an array of the correct shape'));
    const x = mt.arange(4);
    expect(() => mt.piecewise(x, [mt.less(x, 1), mt.less(x, 2)], [1, 2, 3, 4])).toThrow(new RangeError('with 2 condition(s), either 2 or 3 functions are expected'));
  });
});

describe('diff, where, meshgrid, round and counting: NumPy\'s errors', () => {
  it('raise as NumPy does', () => {
    expect(() => mt.diff([1, 2], { n: 1.5 })).toThrow(new TypeError("'float' object cannot be interpreted as an integer"));
    expect(() => mt.diff([1, 2], -1)).toThrow(new RangeError('order must be non-negative but got -1'));
    expect(() => mt.diff(3)).toThrow(new RangeError('diff requires input that is at least one dimensional'));
    expect(() => mt.diff(mt.ones([2, 2]), { prepend: mt.ones([3, 3]) })).toThrow(RangeError);
    expect(() => mt.meshgrid([1], [2], { indexing: 'ab' as 'ij' })).toThrow(new RangeError("Valid values for `indexing` are 'xy' and 'ij'."));
    expect(() => mt.where(mt.tensor(1))).toThrow(RangeError);
    expect(() => mt.where([1, 0], 1)).toThrow(new TypeError('either both or neither of x and y should be given'));
    expect(() => mt.count_nonzero(mt.ones([2, 2]), 3)).toThrow(new RangeError('axis 3 is out of bounds for array of dimension 2'));
    expect(() => mt.ptp(mt.ones([2, 2]), { axis: 0, keepdims: 1 as unknown as boolean })).toThrow(TypeError);
  });
});
