// src/api/linalg.ts beyond the NumPy fixtures (gen_linalg.py): the
// decompositions that are unique only up to signs and order (qr, eigh's
// vectors, svd's vectors) checked by their identities to 1e-12 relative in
// float64 (Q @ R == A with Q orthonormal and R upper triangular; U diag(S) Vh
// == A with U and V orthonormal; A v == v w), the shapes and dtypes NumPy
// gives, NumPy's errors at the call and when the run reaches a singular or
// not positive-definite matrix, one host computation per decomposition
// whatever parts are read, and lengths known only at run time.
import { afterAll, describe, expect, it } from 'vitest';
import { topo } from '../src/graph/node.js';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

/** Seeded standard normals (Box-Muller over a 32-bit LCG): inputs the test can reproduce. */
function normals(shape: number[], seed: number): mt.Tensor {
  let s = seed >>> 0;
  const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  const n = shape.reduce((p, d) => p * d, 1);
  const data = Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()));
  return mt.tensor(data).reshape(shape);
}

interface Mat { shape: number[]; data: Float64Array }
const get = async (t: mt.Tensor): Promise<Mat> => {
  const r = await t.fetch();
  return { shape: r.shape, data: Float64Array.from(r.data as ArrayLike<number>) };
};

/** The matrices of a stack, row-major, with their sizes. */
function matrices(x: Mat): { m: number; n: number; at: (b: number, i: number, j: number) => number; count: number } {
  const [m, n] = x.shape.slice(-2) as [number, number];
  const count = x.shape.slice(0, -2).reduce((p, d) => p * d, 1);
  return { m, n, count, at: (b, i, j) => x.data[b * m * n + i * n + j]! };
}

/** max |got - want| over max |want| (how far an identity is from holding, relative to the matrix's scale). */
function relErr(got: (b: number, i: number, j: number) => number, want: (b: number, i: number, j: number) => number, count: number, m: number, n: number): number {
  let err = 0, scale = 0;
  for (let b = 0; b < count; b++) for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    err = Math.max(err, Math.abs(got(b, i, j) - want(b, i, j)));
    scale = Math.max(scale, Math.abs(want(b, i, j)));
  }
  return scale === 0 ? err : err / scale;
}

/** Q^T Q == I over Q's columns. */
function orthonormalCols(q: Mat): number {
  const { m, n, count, at } = matrices(q);
  let err = 0;
  for (let b = 0; b < count; b++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let d = 0;
    for (let k = 0; k < m; k++) d += at(b, k, i) * at(b, k, j);
    err = Math.max(err, Math.abs(d - (i === j ? 1 : 0)));
  }
  return err;
}

/** (x @ y)[b, i, j] for stacks of matrices. */
const product = (x: Mat, y: Mat) => {
  const X = matrices(x), Y = matrices(y);
  return (b: number, i: number, j: number): number => {
    let s = 0;
    for (let k = 0; k < X.n; k++) s += X.at(b, i, k) * Y.at(b, k, j);
    return s;
  };
};

const TOL = 1e-12;

describe('qr', () => {
  it.each([[[4, 4]], [[6, 3]], [[3, 6]], [[2, 3, 5, 4]], [[8, 8]]])('Q @ R == A, Q orthonormal, R upper triangular: %j', async (shape) => {
    const a = normals(shape, 11);
    const A = await get(a);
    const [m, n] = shape.slice(-2) as [number, number];
    for (const mode of ['reduced', 'complete'] as const) {
      const [q, r] = mt.linalg.qr(a, mode) as mt.Tensor[];
      const [Q, R] = [await get(q!), await get(r!)];
      const k = mode === 'complete' ? m : Math.min(m, n);
      expect(Q.shape).toEqual([...shape.slice(0, -2), m, k]);
      expect(R.shape).toEqual([...shape.slice(0, -2), k, n]);
      const { count, at } = matrices(A);
      expect(relErr(product(Q, R), at, count, m, n)).toBeLessThan(TOL);
      expect(orthonormalCols(Q)).toBeLessThan(TOL);
      const Rm = matrices(R);
      for (let b = 0; b < count; b++) for (let i = 0; i < k; i++) for (let j = 0; j < Math.min(i, n); j++) expect(Rm.at(b, i, j)).toBe(0);
    }
    const r = mt.linalg.qr(a, 'r') as mt.Tensor;
    expect(r.shape).toEqual([...shape.slice(0, -2), Math.min(m, n), n]);
  });
  it('keeps float32, gives float64 for integers, and takes rank-deficient and empty matrices', async () => {
    const [q32] = mt.linalg.qr(normals([3, 3], 2).astype('float32')) as mt.Tensor[];
    expect(q32!.dtype).toBe('float32');
    const ints = mt.tensor([[1, 2], [2, 4], [3, 6]]);
    const [q, r] = mt.linalg.qr(ints) as mt.Tensor[];
    expect(q!.dtype).toBe('float64');
    const [Q, R] = [await get(q!), await get(r!)];
    expect(relErr(product(Q, R), matrices(await get(ints.astype('float64'))).at, 1, 3, 2)).toBeLessThan(TOL);
    expect(orthonormalCols(Q)).toBeLessThan(TOL);
    const [qe, re] = mt.linalg.qr(mt.zeros([0, 3])) as mt.Tensor[];
    expect([qe!.shape, re!.shape]).toEqual([[0, 0], [0, 3]]);
  });
  it('computes the factorisation once for all its parts', () => {
    const [q, r] = mt.linalg.qr(normals([4, 4], 3)) as mt.Tensor[];
    expect(topo([q!.node, r!.node]).filter((n) => n.op === 'linalg')).toHaveLength(1);
  });
});

describe('svd', () => {
  it.each([[[4, 4]], [[6, 3]], [[3, 6]], [[2, 3, 5, 4]], [[8, 8]], [[1, 5]]])('U diag(S) Vh == A, U and V orthonormal: %j', async (shape) => {
    const a = normals(shape, 21);
    const A = await get(a);
    const [m, n] = shape.slice(-2) as [number, number];
    const p = Math.min(m, n);
    for (const full of [true, false]) {
      const [u, s, vh] = mt.linalg.svd(a, full) as mt.Tensor[];
      const [U, S, Vh] = [await get(u!), await get(s!), await get(vh!)];
      expect(U.shape).toEqual([...shape.slice(0, -2), m, full ? m : p]);
      expect(S.shape).toEqual([...shape.slice(0, -2), p]);
      expect(Vh.shape).toEqual([...shape.slice(0, -2), full ? n : p, n]);
      const Um = matrices(U), Vm = matrices(Vh), { count, at } = matrices(A);
      const usv = (b: number, i: number, j: number): number => {
        let t = 0;
        for (let k = 0; k < p; k++) t += Um.at(b, i, k) * S.data[b * p + k]! * Vm.at(b, k, j);
        return t;
      };
      expect(relErr(usv, at, count, m, n)).toBeLessThan(TOL);
      expect(orthonormalCols(U)).toBeLessThan(TOL);
      const V = await get(mt.swapaxes(vh!, -1, -2));
      expect(orthonormalCols(V)).toBeLessThan(TOL);
      for (let b = 0; b < count; b++) for (let k = 1; k < p; k++) expect(S.data[b * p + k]!).toBeLessThanOrEqual(S.data[b * p + k - 1]!);
    }
  });
  it('completes U where singular values are zero', async () => {
    for (const a of [mt.tensor([[1, 2, 3], [2, 4, 6], [1, 2, 3], [0, 0, 0]]), mt.zeros([3, 2])]) {
      const [u, s, vh] = mt.linalg.svd(a) as mt.Tensor[];
      const [U, S, Vh] = [await get(u!), await get(s!), await get(vh!)];
      expect(orthonormalCols(U)).toBeLessThan(TOL);
      expect(orthonormalCols(await get(mt.swapaxes(vh!, -1, -2)))).toBeLessThan(TOL);
      const { m, n } = matrices(await get(a.astype('float64')));
      const A = matrices(await get(a.astype('float64')));
      const usv = (b: number, i: number, j: number): number => S.data.reduce((t, sk, k) => t + U.data[i * m + k]! * sk * Vh.data[k * n + j]!, 0);
      expect(relErr(usv, A.at, 1, m, n)).toBeLessThan(TOL);
    }
  });
  it('converges on small integer matrices whose last pair stops a rounding error short of 1 eps (NumPy values)', async () => {
    const close = (got: number, want: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-15 * Math.max(1, Math.abs(want)));
    const A = mt.tensor([[0, 4, -4], [3, -3, 1], [1, -2, -3]], 'float64');
    const B = mt.tensor([[2, 3, 1], [0, 0, 0], [3, -1, 2]], 'float64');
    const C = mt.tensor([[2, 1, -2], [1, -2, -1], [-2, -1, 2]], 'float64');
    close((await mt.linalg.norm(A, 2).fetch()).item() as number, 6.539874148549471);
    expect(Math.abs(((await mt.linalg.cond(A).fetch()).item() as number) - 3.574014956542343)).toBeLessThan(1e-14);
    expect((await mt.linalg.matrix_rank(B).fetch()).item()).toBe(2);
    expect((await mt.linalg.matrix_rank(C).fetch()).item()).toBe(2);
    close((await mt.linalg.norm(C, 'nuc').fetch()).item() as number, 6.6332495807108);
    const s = (await (mt.linalg.svd(B, { compute_uv: false }) as mt.Tensor).fetch()).toArray() as number[];
    [4.358898943540673, 3.0000000000000004, 0].forEach((w, i) => close(s[i]!, w));
    const [U, S, Vh] = mt.linalg.svd(C) as mt.Tensor[];
    const back = (await mt.matmul(mt.multiply(U!, S!), Vh!).fetch()).toArray() as number[][];
    back.flat().forEach((v, i) => close(v, [2, 1, -2, 1, -2, -1, -2, -1, 2][i]!));
  });
  it('compute_uv=false gives the singular values alone', async () => {
    const s = mt.linalg.svd(mt.tensor([[3, 0], [0, -4]]), { compute_uv: false }) as mt.Tensor;
    expect((await s.fetch()).toArray()).toEqual([4, 3]);
  });
});

describe('eigh', () => {
  const symmetric = (shape: number[], seed: number): mt.Tensor => { const b = normals(shape, seed); return mt.add(b, mt.swapaxes(b, -1, -2)); };
  it.each([[[2, 2]], [[5, 5]], [[8, 8]], [[2, 3, 4, 4]]])('A v == v w, v orthonormal, w ascending: %j', async (shape) => {
    const a = symmetric(shape, 31);
    const [w, v] = mt.linalg.eigh(a);
    const [A, W, V] = [await get(a), await get(w!), await get(v!)];
    const n = shape[shape.length - 1]!;
    const { count } = matrices(A);
    const Vm = matrices(V);
    expect(relErr(product(A, V), (b, i, j) => Vm.at(b, i, j) * W.data[b * n + j]!, count, n, n)).toBeLessThan(TOL);
    expect(orthonormalCols(V)).toBeLessThan(TOL);
    for (let b = 0; b < count; b++) for (let k = 1; k < n; k++) expect(W.data[b * n + k]!).toBeGreaterThanOrEqual(W.data[b * n + k - 1]!);
    expect(Array.from((await get(mt.linalg.eigvalsh(a))).data)).toEqual(Array.from(W.data));
  });
  it('reads only the UPLO triangle', async () => {
    const a = mt.tensor([[2, 100], [1, 2]]);
    expect((await mt.linalg.eigvalsh(a).fetch()).toArray()).toEqual([1, 3]);
    const [w] = mt.linalg.eigh(a, 'U');
    expect((await w!.fetch()).toArray()).toEqual([-98, 102]);
  });
  it('has repeated eigenvalues with orthonormal vectors', async () => {
    const [w, v] = mt.linalg.eigh(mt.ones([4, 4]));
    const W = await get(w!);
    [0, 0, 0, 4].forEach((want, i) => expect(W.data[i]!).toBeCloseTo(want, 12));
    expect(orthonormalCols(await get(v!))).toBeLessThan(TOL);
  });
});

describe('cholesky and solvers', () => {
  it('L @ L.T == A; upper gives L.T', async () => {
    const b = normals([5, 5], 41);
    const a = mt.add(mt.matmul(b, b.T), mt.multiply(mt.eye(5), 5));
    const A = await get(a);
    const L = await get(mt.linalg.cholesky(a));
    const Lm = matrices(L);
    expect(relErr((_, i, j) => { let s = 0; for (let k = 0; k < 5; k++) s += Lm.at(0, i, k) * Lm.at(0, j, k); return s; }, matrices(A).at, 1, 5, 5)).toBeLessThan(TOL);
    for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) expect(Lm.at(0, i, j)).toBe(0);
    const U = await get(mt.linalg.cholesky(a, { upper: true }));
    expect(relErr(matrices(U).at, (b2, i, j) => Lm.at(b2, j, i), 1, 5, 5)).toBeLessThan(TOL);
  });
  it('solve and inv agree with a @ x == b', async () => {
    const a = mt.add(normals([2, 4, 4], 51), mt.multiply(mt.eye(4), 4));
    const b = normals([2, 4, 3], 52);
    const X = await get(mt.linalg.solve(a, b));
    const [A, B] = [await get(a), await get(b)];
    expect(relErr(product(A, X), matrices(B).at, 2, 4, 3)).toBeLessThan(TOL);
    const I = await get(mt.matmul(a, mt.linalg.inv(a)));
    expect(relErr(matrices(I).at, (_, i, j) => (i === j ? 1 : 0), 2, 4, 4)).toBeLessThan(TOL);
  });
  it('lstsq of a rank-deficient problem gives the minimum-norm solution, no residuals, and its rank', async () => {
    const a = mt.tensor([[1, 2, 3], [2, 4, 6], [1, 0, 1], [0, 2, 2]]);
    const [x, res, rank, s] = mt.linalg.lstsq(a, [1, 2, 3, 4]);
    expect((await rank!.fetch()).toArray()).toBe(2);
    expect(rank!.dtype).toBe('int32');
    expect((await res!.fetch()).shape).toEqual([0]);
    expect((await s!.fetch()).shape).toEqual([3]);
    // the pseudo-inverse's solution: the same minimum-norm x
    const want = await get(mt.matmul(mt.linalg.pinv(a), mt.tensor([1, 2, 3, 4])));
    const got = await get(x!);
    expect(relErr((_, __, j) => got.data[j]!, (_, __, j) => want.data[j]!, 1, 1, 3)).toBeLessThan(1e-12);
  });
});

describe('errors', () => {
  it('at the call, as NumPy raises them', () => {
    const named = (f: () => unknown, message: string): void => {
      let err: unknown;
      try { f(); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
      expect((err as Error).name).toBe('LinAlgError');
      expect((err as Error).message).toBe(message);
    };
    named(() => mt.linalg.inv(mt.ones([3, 2])), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.det(mt.ones([3])), '1-dimensional array given. Array must be at least two-dimensional');
    named(() => mt.linalg.cholesky(mt.ones([2, 3])), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.eigh(mt.ones([2, 3])), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.qr(mt.ones([3])), '1-dimensional array given. Array must be at least two-dimensional');
    named(() => mt.linalg.lstsq(mt.ones([3, 2]), mt.ones([2])), 'Incompatible dimensions');
    named(() => mt.linalg.lstsq(mt.ones([2, 2, 2]), mt.ones([2, 2, 2])), '3-dimensional array given. Array must be two-dimensional');
    named(() => mt.linalg.cond(mt.zeros([0, 0])), 'cond is not defined on empty arrays');
    named(() => mt.linalg.matrix_power(mt.ones([2, 3]), 2), 'Last 2 dimensions of the array must be square');
    named(() => mt.linalg.multi_dot([mt.eye(2), mt.ones([2, 2, 2]), mt.eye(2)]), '3-dimensional array given. Array must be two-dimensional');
    expect(() => mt.linalg.solve(mt.eye(3), mt.ones([2]))).toThrow(new RangeError('solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m)->(m) (size 2 is different from 3)'));
    expect(() => mt.linalg.solve(mt.eye(3), mt.ones([2, 2]))).toThrow(new RangeError('solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m,n)->(m,n) (size 2 is different from 3)'));
    expect(() => mt.linalg.eigh(mt.eye(2), 'X')).toThrow(new RangeError("UPLO argument must be 'L' or 'U'"));
    expect(() => mt.linalg.qr(mt.eye(2), 'x')).toThrow(new RangeError("Unrecognized mode 'x'"));
    expect(() => mt.linalg.matrix_power(mt.eye(2), 1.5)).toThrow(new TypeError('exponent must be an integer'));
    expect(() => mt.linalg.multi_dot([mt.eye(2)])).toThrow(new RangeError('Expecting at least two arrays.'));
    expect(() => mt.linalg.cholesky(mt.eye(2), { lower: true })).toThrow(/unexpected keyword argument 'lower'/);
  });
  it('when the run reaches a singular or not positive-definite matrix', async () => {
    const reject = async (t: mt.Tensor, message: string): Promise<void> => {
      const err = await t.fetch().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
      expect((err as Error).name).toBe('LinAlgError');
      expect((err as Error).message).toBe(message);
    };
    const singular = mt.add(mt.tensor([[1, 2], [2, 4]]), 0);
    await reject(mt.linalg.inv(singular), 'Singular matrix');
    await reject(mt.linalg.solve(singular, [1, 2]), 'Singular matrix');
    await reject(mt.linalg.matrix_power(singular, -2), 'Singular matrix');
    // one singular matrix in a stack fails the whole call, as in NumPy
    await reject(mt.linalg.inv(mt.stack([mt.eye(2), singular])), 'Singular matrix');
    await reject(mt.linalg.cholesky(mt.tensor([[1, 2], [2, 1]])), 'Matrix is not positive definite');
    // NumPy's LAPACK does not raise for a NaN pivot: the factor is NaNs
    expect(Number.isNaN((await mt.linalg.cholesky(mt.tensor([[NaN, 0], [0, 1]])).fetch()).data[0])).toBe(true);
    // det and slogdet of a singular matrix are values, not errors
    expect((await mt.linalg.det(singular).fetch()).toArray()).toBe(0);
    const [sign, logdet] = mt.linalg.slogdet(singular);
    expect([(await sign!.fetch()).toArray(), (await logdet!.fetch()).toArray()]).toEqual([0, -Infinity]);
  });
});

describe('lengths known only at run time', () => {
  it('inv, det and qr of a selection', async () => {
    const x = mt.tensor([[2, 0, 0], [9, 9, 9], [0, 3, 0], [0, 0, 4]]);
    const rows = mt.compress(mt.tensor([true, false, true, true]), x, { axis: 0 });
    expect(Number.isNaN(rows.shape[0])).toBe(true);
    expect((await mt.linalg.inv(rows).fetch()).toArray()).toEqual([[0.5, 0, 0], [0, 1 / 3, 0], [0, 0, 0.25]]);
    expect((await mt.linalg.det(rows).fetch()).toArray()).toBe(24);
    const [q, r] = mt.linalg.qr(rows) as mt.Tensor[];
    const [Q, R] = [await get(q!), await get(r!)];
    expect(relErr(product(Q, R), (_, i, j) => [[2, 0, 0], [0, 3, 0], [0, 0, 4]][i]![j]!, 1, 3, 3)).toBeLessThan(TOL);
  });
});

describe('tensorsolve', () => {
  // a = (arange(36).reshape(6, 6) % 7 + eye(6) * 10).reshape(2, 3, 6), b = arange(6.).reshape(2, 3)
  const a = () => mt.reshape(mt.add(mt.mod(mt.arange(36, { dtype: 'float64' }).reshape([6, 6]), 7), mt.multiply(mt.eye(6), 10)), [2, 3, 6]);
  const b = () => mt.arange(6, { dtype: 'float64' }).reshape([2, 3]);
  // np.linalg.tensorsolve(a, b), and the same with a's axis moved first and axes=(0,)
  const want = [-0.3109368857168779, 0.06708349714216594, 0.18048961199987903, 0.21451144645719294, 0.22471799679438714, 0.22777996189554542];
  it("solves as NumPy, with axes moved to the end", async () => {
    for (const x of [mt.linalg.tensorsolve(a(), b()), mt.linalg.tensorsolve(mt.transpose(a(), [2, 0, 1]), b(), { axes: [0] })]) {
      const got = await x.fetch();
      expect(got.shape).toEqual([6]);
      Array.from(got.data as Float64Array).forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-14));
    }
    // a tensordot of a with x gives b back
    const back = await mt.tensordot(a(), mt.linalg.tensorsolve(a(), b()), { axes: 1 }).fetch();
    Array.from(back.data as Float64Array).forEach((v, i) => expect(Math.abs(v - i)).toBeLessThan(1e-13));
  });
  it("raises NumPy's errors", () => {
    let err: unknown;
    try { mt.linalg.tensorsolve(mt.ones([2, 3]), mt.ones([2])); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
    expect((err as Error).message).toMatch(/prod\(a.shape\[b.ndim:\]\) == prod\(a.shape\[:b.ndim\]\)/);
    expect(() => mt.linalg.tensorsolve(a(), b(), { axes: [-1] })).toThrow('list.remove(x): x not in list');
  });
});
