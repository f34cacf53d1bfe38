// src/api/poly.ts: roots, poly, polyder, polyint, polyadd, polysub,
// polymul, polydiv and unwrap against NumPy 2.4's values (each expected
// array is what the NumPy line beside it printed with .tolist()), with
// coefficients given as JS data, as tensors, and as tensors computed in the
// same run (whose values roots, polymul and polydiv read first).
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const f64 = (v: number[] | number[][]) => mt.tensor(v, { dtype: 'float64' });
const get = async (t: mt.Tensor | number): Promise<{ dtype: string; v: unknown }> => {
  if (typeof t === 'number') return { dtype: 'float', v: t };
  const f = await t.fetch();
  return { dtype: f.dtype, v: JSON.parse(JSON.stringify(f.toArray(), (_, x) => (typeof x === 'bigint' ? Number(x) : x))) };
};

describe('roots and poly', () => {
  it.each([
    // np.roots([1, -6, 11, -6]).tolist()
    ['a cubic', () => mt.roots([1, -6, 11, -6]), [3.0000000000000018, 1.999999999999998, 1.0000000000000002]],
    // np.roots([2, -3, -11, 6, 4]).tolist()
    ['a quartic', () => mt.roots([2, -3, -11, 6, 4]), [2.943764603305679, -1.9116786447164165, 0.8743720988324765, -0.4064580574217378]],
    // np.roots([0, 0, 1, -3, 0, 0]): leading zeros dropped, a zero root per trailing zero
    ['leading and trailing zeros', () => mt.roots([0, 0, 1, -3, 0, 0]), [3, 0, 0]],
    ['a constant', () => mt.roots([5]), []],
    ['all zeros', () => mt.roots([0, 0]), []],
    // np.roots([1, 0, -2.]).tolist()
    ['coefficients computed in the same run', () => mt.roots(f64([2, 0, -4]).divide(2)), [-1.4142135623730951, 1.414213562373095]],
  ])('roots of %s', async (_, f, want) => {
    expect(await get(f())).toEqual({ dtype: 'float64', v: want });
  });
  it('complex roots fail the run with LinAlgError (no complex dtype)', async () => {
    await expect(mt.roots([1, 0, 1]).fetch()).rejects.toThrow(/complex eigenvalues/);
    expect(() => mt.roots([[1, 2]])).toThrow('Input must be a rank-1 array.');
  });
  it('poly builds the monic polynomial of roots or of a matrix', async () => {
    expect(await get(mt.poly([1, 2, 3]))).toEqual({ dtype: 'float64', v: [1, -6, 11, -6] });
    expect(await get(mt.poly(mt.tensor([1, 2], { dtype: 'float32' })))).toEqual({ dtype: 'float32', v: [1, -3, 2] });
    expect(mt.poly([])).toBe(1);
    // np.poly(np.array([[1, 2], [3, 4.]])).tolist()
    expect(await get(mt.poly(f64([[1, 2], [3, 4]])))).toEqual({ dtype: 'float64', v: [1, -5, -1.9999999999999998] });
    expect(() => mt.poly(mt.ones([2, 3]))).toThrow('input must be 1d or non-empty square 2d array.');
  });
});

describe('calculus and arithmetic of coefficient arrays', () => {
  it.each([
    ['polyder', () => mt.polyder([3, -2, 1, 4]), 'int64', [9, -4, 1]],
    ['polyder m=2', () => mt.polyder(f64([3, -2, 1, 4]), 2), 'float64', [18, -4]],
    ['polyder m=0', () => mt.polyder([1, 2], 0), 'int64', [1, 2]],
    ['polyder past the degree', () => mt.polyder([1, 2], 5), 'int64', []],
    // np.polyint([3, -2, 1, 4]).tolist()
    ['polyint', () => mt.polyint([3, -2, 1, 4]), 'float64', [0.75, -0.6666666666666666, 0.5, 4, 0]],
    ['polyint m=2 k=[1, 2]', () => mt.polyint([3, -2, 1, 4], 2, { k: [1, 2] }), 'float64', [0.15, -0.16666666666666666, 0.16666666666666666, 2, 1, 2]],
    ['polyint m=2 k=3', () => mt.polyint(f64([1, 2]), 2, { k: 3 }), 'float64', [0.16666666666666666, 1, 3, 3]],
    ['polyadd', () => mt.polyadd([1, 2], [1, 2, 3]), 'int64', [1, 3, 5]],
    ['polysub', () => mt.polysub(f64([1, 2]), [1, 2, 3]), 'float64', [-1, -1, -1]],
    // poly1d trims leading zeros before the convolution
    ['polymul', () => mt.polymul([0, 1, 2], [1, -1]), 'int64', [1, 1, -2]],
    ['polymul float32 by int64', () => mt.polymul(mt.tensor([1, 2], { dtype: 'float32' }), [1, -1]), 'float64', [1, 1, -2]],
    ['polymul of computed coefficients', () => mt.polymul(f64([3, -2, 0.5, 4]), f64([1, -1]).multiply(1)), 'float64', [3, -5, 2.5, 3.5, -4]],
  ])('%s', async (_, f, dtype, want) => {
    expect(await get(f())).toEqual({ dtype, v: want });
  });
  it('polydiv divides as NumPy, trimming the remainder', async () => {
    const [q, r] = mt.polydiv(f64([1, -6, 11, -6]), [1, -1]);
    expect([await get(q), await get(r)]).toEqual([{ dtype: 'float64', v: [1, -5, 6] }, { dtype: 'float64', v: [0] }]);
    const [q2, r2] = mt.polydiv([1, 2, 3], f64([2]));
    expect([await get(q2), await get(r2)]).toEqual([{ dtype: 'float64', v: [0.5, 1, 1.5] }, { dtype: 'float64', v: [0] }]);
    // np.polydiv([3., 2, 1, 5], [1., 2]): remainder [7.] (all terms kept)
    const [q3, r3] = mt.polydiv(f64([3, 2, 1, 5]), f64([1, 2]).add(0));
    expect([await get(q3), await get(r3)]).toEqual([{ dtype: 'float64', v: [3, -4, 9] }, { dtype: 'float64', v: [-13] }]);
  });
  it("raises NumPy's errors", () => {
    expect(() => mt.polyder([1, 2], -1)).toThrow('Order of derivative must be positive (see polyint)');
    expect(() => mt.polyint([1, 2], -1)).toThrow('Order of integral must be positive (see polyder)');
    expect(() => mt.polyint([1, 2], 3, { k: [1, 2] })).toThrow('k must be a scalar or a rank-1 array of length 1 or >m.');
  });
});

describe('unwrap', () => {
  it.each([
    ['degrees', () => mt.unwrap(f64([350, 355, 2, 10, 5]), { period: 360 }), 'float64', [350, 355, 362, 370, 365]],
    // np.unwrap([3., -3, 3]).tolist()
    ['radians', () => mt.unwrap(f64([3, -3, 3])), 'float64', [3, 3.2831853071795862, 3]],
    ['integers with an integer period', () => mt.unwrap(mt.tensor([0, 7, 14, 3]), { period: 10 }), 'int64', [0, -3, -6, -7]],
    // np.unwrap(np.array([0, 7, 14, 3])).tolist()
    ['integers with the default period', () => mt.unwrap(mt.tensor([0, 7, 14, 3])), 'float64', [0, 0.7168146928204138, 1.4336293856408275, 3]],
    // np.unwrap(np.array([[0, 6, 12], [1, -5, 2.]]), axis=0).tolist()
    ['along axis 0', () => mt.unwrap(f64([[0, 6, 12], [1, -5, 2]]), { axis: 0 }), 'float64', [[0, 6, 12], [1, 7.5663706143591725, 14.566370614359172]]],
  ])('%s', async (_, f, dtype, want) => {
    expect(await get(f())).toEqual({ dtype, v: want });
  });
});
