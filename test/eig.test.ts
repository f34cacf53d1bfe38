// np.linalg.eig and eigvals (src/numerics/eig.ts, LAPACK's dgeev) beyond the
// NumPy fixtures (gen_eig.py, which keeps only the matrices whose order and
// signs NumPy itself computes robustly): A v == v diag(w) with unit columns
// on random matrices with real spectra up to n = 80, symmetric, badly
// scaled and defective ones included; eigvals equal to eig's w; shapes and
// dtypes of stacks; NumPy's errors at the call, and at run time for a
// complex spectrum (Tessera has no complex dtype) or a NaN.
import { afterAll, describe, expect, it } from 'vitest';
import { topo } from '../src/graph/node.js';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

/** Seeded standard normals (Box-Muller over a 32-bit LCG). */
function normals(shape: number[], seed: number): mt.Tensor {
  let s = seed >>> 0;
  const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  const n = shape.reduce((p, d) => p * d, 1);
  return mt.tensor(Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()))).reshape(shape);
}

/** S diag(d) S^-1: nonsymmetric, with the real eigenvalues d (S near a multiple of the identity keeps it well conditioned). */
function realSpectrum(shape: number[], seed: number): mt.Tensor {
  const n = shape[shape.length - 1]!;
  const s = mt.add(normals(shape, seed), mt.multiply(mt.eye(n), 2 * Math.sqrt(n)));
  const d = mt.multiply(normals([...shape.slice(0, -1), 1], seed + 1), 3);
  return mt.matmul(mt.multiply(s, mt.swapaxes(d, -1, -2)), mt.linalg.inv(s));
}

const symmetric = (shape: number[], seed: number): mt.Tensor => { const b = normals(shape, seed); return mt.add(b, mt.swapaxes(b, -1, -2)); };

const data = async (t: mt.Tensor): Promise<Float64Array> => Float64Array.from((await t.fetch()).data as ArrayLike<number>);

/**
 * For each matrix of the stack: the largest ||A v_j - w_j v_j|| over ||A||_F
 * (a backward-stable eigensolver's residual is a small multiple of eps), and
 * the largest | ||v_j|| - 1 |.
 */
async function residuals(a: mt.Tensor, w: mt.Tensor, v: mt.Tensor): Promise<{ residual: number; norm: number }> {
  const [A, W, V] = [await data(a.astype('float64')), await data(w), await data(v)];
  const n = a.shape[a.ndim - 1]!;
  const count = A.length / (n * n);
  let residual = 0, norm = 0;
  for (let b = 0; b < count; b++) {
    const at = (x: Float64Array, i: number, j: number): number => x[b * n * n + i * n + j]!;
    let fro = 0;
    for (let i = 0; i < n * n; i++) fro += A[b * n * n + i]! ** 2;
    fro = Math.sqrt(fro) || 1;
    for (let j = 0; j < n; j++) {
      let r = 0, len = 0;
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let k = 0; k < n; k++) av += at(A, i, k) * at(V, k, j);
        r += (av - W[b * n + j]! * at(V, i, j)) ** 2;
        len += at(V, i, j) ** 2;
      }
      residual = Math.max(residual, Math.sqrt(r) / fro);
      norm = Math.max(norm, Math.abs(Math.sqrt(len) - 1));
    }
  }
  return { residual, norm };
}

describe('eig', () => {
  it.each([2, 3, 5, 8, 13, 20, 30, 45, 60])('A v == v diag(w), unit columns, w == eigvals: real spectrum, n = %i', async (n) => {
    const a = realSpectrum([n, n], 100 + n);
    const [w, v] = mt.linalg.eig(a);
    expect([w!.shape, v!.shape]).toEqual([[n], [n, n]]);
    const { residual, norm } = await residuals(a, w!, v!);
    expect(residual).toBeLessThan(1e-13);
    expect(norm).toBeLessThan(1e-14);
    expect(Array.from(await data(mt.linalg.eigvals(a)))).toEqual(Array.from(await data(w!)));
  });
  it.each([4, 16, 60, 80])('symmetric matrices go through the same general algorithm (Schur order, unsorted): n = %i', async (n) => {
    // past n = 75 NumPy's dhseqr switches to dlaqr0: same eigenvalues, possibly another order
    const a = symmetric([n, n], 200 + n);
    const [w, v] = mt.linalg.eig(a);
    const { residual, norm } = await residuals(a, w!, v!);
    expect(residual).toBeLessThan(1e-13);
    expect(norm).toBeLessThan(1e-14);
    const sorted = Array.from(await data(w!)).sort((x, y) => x - y);
    const eigh = Array.from(await data(mt.linalg.eigvalsh(a)));
    sorted.forEach((x, i) => expect(Math.abs(x - eigh[i]!)).toBeLessThan(1e-12 * n));
  });
  it('balances badly scaled matrices, and isolates eigenvalues of zero rows and columns', async () => {
    const d = mt.tensor([1e-6, 1, 1e3, 2 ** 20, 1e-2, 7]);
    const scaled = mt.divide(mt.multiply(mt.reshape(d, [6, 1]), realSpectrum([6, 6], 7)), d);
    const [w, v] = mt.linalg.eig(scaled);
    const sorted = async (t: mt.Tensor): Promise<number[]> => Array.from(await data(t)).sort((x, y) => x - y);
    const [W, W0] = [await sorted(w!), await sorted(mt.linalg.eigvals(realSpectrum([6, 6], 7)))];
    // the unscaled matrix's spectrum, to its accuracy: balancing undid the scaling
    W.forEach((x, i) => expect(Math.abs(x - W0[i]!)).toBeLessThan(1e-12 * (1 + Math.abs(x))));
    expect((await residuals(scaled, w!, v!)).residual).toBeLessThan(1e-13);
    const zeroRow = mt.tensor([[1, 2, 3], [0, 0, 0], [4, 5, 6]]);
    const [wz, vz] = mt.linalg.eig(zeroRow);
    expect((await residuals(zeroRow, wz!, vz!)).residual).toBeLessThan(1e-14);
    expect(Array.from(await data(wz!)).some((x) => x === 0)).toBe(true);
  });
  it('gives defective matrices nearly parallel vectors, as LAPACK does', async () => {
    const [w, v] = mt.linalg.eig(mt.tensor([[2, 1], [0, 2]]));
    expect((await w!.fetch()).toArray()).toEqual([2, 2]);
    const V = await data(v!);
    expect([V[0], V[1], V[2]]).toEqual([1, -1, 0]);
    expect(V[3]).toBe(2 ** -51);
  });
  it('keeps the shape of stacks over leading axes, float32 for float32 and float64 otherwise', async () => {
    const a = realSpectrum([2, 3, 4, 4], 9);
    const [w, v] = mt.linalg.eig(a);
    expect([w!.shape, v!.shape]).toEqual([[2, 3, 4], [2, 3, 4, 4]]);
    expect(mt.linalg.eigvals(a).shape).toEqual([2, 3, 4]);
    const { residual, norm } = await residuals(a, w!, v!);
    expect(residual).toBeLessThan(1e-13);
    expect(norm).toBeLessThan(1e-14);
    const [w32, v32] = mt.linalg.eig(symmetric([3, 3], 5).astype('float32'));
    expect([w32!.dtype, v32!.dtype]).toEqual(['float32', 'float32']);
    const [wi, vi] = mt.linalg.eig(mt.tensor([[2, 1], [1, 3]]));
    expect([wi!.dtype, vi!.dtype]).toEqual(['float64', 'float64']);
    expect(mt.linalg.eigvals(mt.tensor([[true, false], [true, true]])).dtype).toBe('float64');
    const [we, ve] = mt.linalg.eig(mt.zeros([2, 0, 0]));
    expect([we!.shape, ve!.shape]).toEqual([[2, 0], [2, 0, 0]]);
    const [w1, v1] = mt.linalg.eig(mt.tensor([[[5]], [[-1.5]]]));
    expect([(await w1!.fetch()).toArray(), (await v1!.fetch()).toArray()]).toEqual([[[5], [-1.5]], [[[1]], [[1]]]]);
  });
  it('computes the decomposition once for both parts', () => {
    const [w, v] = mt.linalg.eig(symmetric([4, 4], 3));
    expect(topo([w!.node, v!.node]).filter((n) => n.op === 'linalg')).toHaveLength(1);
  });
  it('takes a matrix whose length is known only at run time', async () => {
    const x = mt.tensor([[2, 0, 0], [9, 9, 9], [0, 3, 0], [1, 0, 4]]);
    const rows = mt.compress(mt.tensor([true, false, true, true]), x, { axis: 0 });
    // NumPy's order: dgebal's permutations put the isolated eigenvalues where T has them
    expect((await mt.linalg.eigvals(rows).fetch()).toArray()).toEqual([4, 2, 3]);
    const [w, v] = mt.linalg.eig(rows);
    const { residual } = await residuals(mt.tensor([[2, 0, 0], [0, 3, 0], [1, 0, 4]]), w!, v!);
    expect(residual).toBeLessThan(1e-15);
  });
});

describe('errors', () => {
  const named = (f: () => unknown, message: string): void => {
    let err: unknown;
    try { f(); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
    expect((err as Error).message).toBe(message);
  };
  const reject = async (t: mt.Tensor, message: string): Promise<void> => {
    const err = await t.fetch().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
    expect((err as Error).name).toBe('LinAlgError');
    expect((err as Error).message).toBe(message);
  };
  it('at the call, as NumPy raises them', () => {
    named(() => mt.linalg.eig(mt.ones([3, 2])), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.eigvals(mt.ones([2, 2, 3])), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.eig(mt.ones([3])), '1-dimensional array given. Array must be at least two-dimensional');
    expect(() => mt.linalg.eigvals(mt.ones([2, 2], { dtype: 'float16' }))).toThrow(new TypeError('array type float16 is unsupported in linalg'));
    expect(() => mt.linalg.eig(mt.eye(2), { UPLO: 'L' })).toThrow(/unexpected keyword argument 'UPLO'/);
  });
  it('when the run reaches a complex spectrum, which Tessera cannot hold', async () => {
    const rotation = mt.tensor([[0, 1], [-1, 0]]);
    await reject(mt.linalg.eig(rotation)[0]!, 'linalg.eig: the matrix has complex eigenvalues, and Tessera has no complex dtype');
    await reject(mt.linalg.eig(rotation)[1]!, 'linalg.eig: the matrix has complex eigenvalues, and Tessera has no complex dtype');
    await reject(mt.linalg.eigvals(rotation), 'linalg.eigvals: the matrix has complex eigenvalues, and Tessera has no complex dtype');
    // one complex matrix in a stack fails the whole call (NumPy would make all of it complex)
    await reject(mt.linalg.eigvals(mt.stack([mt.eye(2), rotation])), 'linalg.eigvals: the matrix has complex eigenvalues, and Tessera has no complex dtype');
    await reject(mt.linalg.eigvals(normals([12, 12], 4)), 'linalg.eigvals: the matrix has complex eigenvalues, and Tessera has no complex dtype');
  });
  it('when the run reaches a NaN or an infinity', async () => {
    await reject(mt.linalg.eig(mt.tensor([[1, NaN], [0, 1]]))[0]!, 'Array must not contain infs or NaNs');
    await reject(mt.linalg.eigvals(mt.tensor([[1, 0], [Infinity, 1]])), 'Array must not contain infs or NaNs');
  });
});
