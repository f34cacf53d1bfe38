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

describe('errors as NumPy raises them', () => {
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
