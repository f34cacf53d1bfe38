// src/api/index_tricks.ts: np.mgrid, np.ogrid, np.r_ and np.c_, written
// mt.mgrid.get('0:3, 0:4') as x[...] is written x.get('...'), against the
// values, dtypes and shapes NumPy 2.4 prints for the same index (each case
// gives the NumPy expression).
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

type Got = { dtype: string; shape: number[]; v: unknown };
const get = async (t: mt.Tensor): Promise<Got> => {
  const f = await t.fetch();
  return { dtype: f.dtype, shape: [...f.shape], v: JSON.parse(JSON.stringify(f.toArray(), (_, x) => (typeof x === 'bigint' ? Number(x) : x))) };
};
const i64 = 'int64', f64 = 'float64';

describe('mgrid and ogrid', () => {
  it.each([
    ['np.mgrid[0:3, 0:4]', () => mt.mgrid.get('0:3, 0:4'), { dtype: i64, shape: [2, 3, 4], v: [[[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]], [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]] }],
    ['np.mgrid[-1:1:5j]', () => mt.mgrid.get('-1:1:5j'), { dtype: f64, shape: [5], v: [-1, -0.5, 0, 0.5, 1] }],
    ['np.mgrid[0:1:3j, 0:2:0.5]', () => mt.mgrid.get('0:1:3j', '0:2:0.5'), { dtype: f64, shape: [2, 3, 4], v: [[[0, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1]], [[0, 0.5, 1, 1.5], [0, 0.5, 1, 1.5], [0, 0.5, 1, 1.5]]] }],
    ['np.mgrid[0.1:1:0.3] (arange: 0.7000000000000001)', () => mt.mgrid.get('0.1:1:0.3'), { dtype: f64, shape: [3], v: [0.1, 0.4, 0.7000000000000001] }],
    ['np.mgrid[0:2.0, 0:2] (a float bound makes it float)', () => mt.mgrid.get('0:2.0, 0:2'), { dtype: f64, shape: [2, 2, 2], v: [[[0, 0], [1, 1]], [[0, 1], [0, 1]]] }],
    ['np.ogrid[-1:1:5j]', () => mt.ogrid.get('-1:1:5j') as mt.Tensor, { dtype: f64, shape: [5], v: [-1, -0.5, 0, 0.5, 1] }],
  ])('%s', async (_, f, want) => {
    expect(await get(f())).toEqual(want);
  });
  it('np.ogrid[0:3, 0:4] gives the open grids', async () => {
    const [y, x] = mt.ogrid.get('0:3, 0:4') as mt.Tensor[];
    expect(await get(y!)).toEqual({ dtype: i64, shape: [3, 1], v: [[0], [1], [2]] });
    expect(await get(x!)).toEqual({ dtype: i64, shape: [1, 4], v: [[0, 1, 2, 3]] });
    // r = y**2 + x**2 broadcasts to the dense grid
    expect((await get(y!.power(2).add(x!.power(2)))).shape).toEqual([3, 4]);
  });
  it('refuses what is no slice', () => {
    expect(() => mt.mgrid.get(3)).toThrow(/each item must be a slice/);
    expect(() => mt.mgrid.get('0:x')).toThrow(/invalid slice bound 'x'/);
    expect(() => mt.mgrid.get('0:3:0')).toThrow(/slice step cannot be zero/);
  });
});

describe('r_ and c_', () => {
  it.each([
    ['np.r_[1:4, 0, 4]', () => mt.r_.get('1:4', 0, 4), { dtype: i64, shape: [5], v: [1, 2, 3, 0, 4] }],
    ['np.r_[a, 0, 0, b]', () => mt.r_.get(mt.tensor([1, 2, 3]), 0, 0, mt.tensor([4, 5, 6])), { dtype: i64, shape: [8], v: [1, 2, 3, 0, 0, 4, 5, 6] }],
    ['np.r_[-1:1:6j, 0, 0.5]', () => mt.r_.get('-1:1:6j', 0, 0.5), { dtype: f64, shape: [8], v: [-1, -0.6, -0.19999999999999996, 0.20000000000000018, 0.6000000000000001, 1, 0, 0.5] }],
    ["np.r_['0,2', [1, 2, 3], [4, 5, 6]]", () => mt.r_.get('0,2', [1, 2, 3], [4, 5, 6]), { dtype: i64, shape: [2, 3], v: [[1, 2, 3], [4, 5, 6]] }],
    ["np.r_['1,2,0', [1, 2, 3], [4, 5, 6]]", () => mt.r_.get('1,2,0', [1, 2, 3], [4, 5, 6]), { dtype: i64, shape: [3, 2], v: [[1, 4], [2, 5], [3, 6]] }],
    ['np.r_[uint8 array, 3.5] (a float scalar makes it float64)', () => mt.r_.get(mt.tensor([1, 2], { dtype: 'uint8' }), 3.5), { dtype: f64, shape: [3], v: [1, 2, 3.5] }],
    ['np.r_[int8 array, 7] (an int scalar keeps int8)', () => mt.r_.get(mt.tensor([1, 2], { dtype: 'int8' }), 7), { dtype: 'int8', shape: [3], v: [1, 2, 7] }],
    ['np.c_[a, b]', () => mt.c_.get(mt.tensor([1, 2, 3]), mt.tensor([4, 5, 6])), { dtype: i64, shape: [3, 2], v: [[1, 4], [2, 5], [3, 6]] }],
    ['np.c_[A, 0, 0, B]', () => mt.c_.get(mt.tensor([[1, 2, 3]]), 0, 0, mt.tensor([[4, 5, 6]])), { dtype: i64, shape: [1, 8], v: [[1, 2, 3, 0, 0, 4, 5, 6]] }],
  ])('%s', async (_, f, want) => {
    expect(await get(f())).toEqual(want);
  });
  it('takes a directive only first', () => {
    expect(() => mt.r_.get([1], '0,2')).toThrow('special directives must be the first entry.');
    expect(() => mt.r_.get('r', [1])).toThrow(/np.matrix/);
  });
});

describe('iteration and in-place functions', () => {
  it('a tensor iterates along its first axis, as an ndarray', async () => {
    const rows: number[][] = [];
    for (const r of mt.arange(6).reshape([3, 2])) rows.push(Array.from((await r.fetch()).data as BigInt64Array, Number));
    expect(rows).toEqual([[0, 1], [2, 3], [4, 5]]);
    const [a, b] = mt.tensor([[1, 2], [3, 4]]);
    expect([(await a!.fetch()).shape, Number((await b!.fetch()).data[1])]).toEqual([[2], 4]);
    expect(() => [...mt.tensor(3)]).toThrow('iteration over a 0-d array');
    const sel = mt.arange(4).get(mt.arange(4).greater(1));
    expect(() => [...sel]).toThrow(/execute\(\) the array first/);
  });
  it("NumPy's in-place functions raise, giving the line to write", () => {
    expect(() => mt.fill_diagonal(mt.zeros([3, 3]), 1)).toThrow(/np.fill_diagonal changes its array in place.*mt.where\(mt.eye/);
    expect(() => mt.put(mt.zeros([3]), [0], 1)).toThrow(/a = a.flat.set\(ind, v\)/);
    expect(() => mt.putmask(mt.zeros([3]), [true, false, true], 1)).toThrow(TypeError);
    expect(() => mt.place(mt.zeros([3]), [true, false, true], [1])).toThrow(TypeError);
    expect(() => mt.copyto(mt.zeros([3]), 1)).toThrow(TypeError);
  });
});
