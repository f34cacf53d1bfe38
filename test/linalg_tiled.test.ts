// The tiled factorizations (src/api/linalg_tiled.ts, src/runtime/tiles.ts):
// np.linalg.cholesky of a matrix over more than one chunk, scipy's
// solve_triangular and cho_solve, against NumPy's and SciPy's results
// (fixtures/gen_linalg_tiled.py) on matrices the test rebuilds exactly from
// integer formulas, and by identities: the residual ‖A − LLᵀ‖/‖A‖ on random
// SPD matrices of 1, 4 and many tiles (ragged edges too), agreement with the
// one-chunk host path, independence of the tile size, only one triangle
// read, and the LinAlgError a tile raises, naming it. And the tall-skinny
// QR of a matrix chunked by rows (TSQR) and the SVD through it, by their
// identities and against the one-chunk (LAPACK-like) factorization.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { ROUTINES } from '../src/runtime/routines.js';
import { gemmNT, gemmNTTs, potrfLower, trsmLeft, trsmRightLowerT } from '../src/runtime/tiles.js';

afterAll(() => mt.shutdown());

const F = JSON.parse(readFileSync(new URL('./fixtures/linalg_tiled.json', import.meta.url), 'utf8')) as Record<string, number[]>;

/** gen_linalg_tiled.py's spd(n): B Bᵀ + n I over integers B[i, k] = (7i + 13k + ik) % 11 − 5 (exact). */
function spd(n: number): number[][] {
  const b = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, k) => ((7 * i + 13 * k + i * k) % 11) - 5));
  return b.map((bi, i) => b.map((bj, j) => bi.reduce((s, v, k) => s + v * bj[k]!, 0) + (i === j ? n : 0)));
}

/** gen_linalg_tiled.py's tri(n, lower). */
function tri(n: number, lower: boolean): number[][] {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
    if (i === j) return 10 + (i % 3);
    return (lower ? j <= i : j >= i) ? ((3 * i + 5 * j) % 7) - 3 : (i + j) % 5;
  }));
}

const rhs = (n: number, k: number): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: k }, (_, c) => ((5 * i + 3 * c) % 9) - 4));

/** Seeded standard normals (Box-Muller over a 32-bit LCG). */
function normals(n: number, seed: number): number[][] {
  let s = seed >>> 0;
  const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  return Array.from({ length: n }, () => Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())));
}

/** A random SPD matrix G Gᵀ / n + I, in plain JS. */
function randomSpd(n: number, seed: number): number[][] {
  const g = normals(n, seed);
  return g.map((gi, i) => g.map((gj, j) => gi.reduce((s, v, k) => s + v * gj[k]!, 0) / n + (i === j ? 1 : 0)));
}

const flat = async (t: mt.Tensor): Promise<Float64Array> => Float64Array.from((await t.fetch()).data as ArrayLike<number>);

/** max |got − want| / max |want|. */
function rel(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let e = 0, s = 0;
  for (let i = 0; i < want.length; i++) { e = Math.max(e, Math.abs(got[i]! - want[i]!)); s = Math.max(s, Math.abs(want[i]!)); }
  return e / s;
}

/** ‖A − L Lᵀ‖_F / ‖A‖_F, and whether L is lower triangular. */
function residual(a: number[][], l: Float64Array): { res: number; lower: boolean } {
  const n = a.length;
  let e = 0, s = 0, lower = true;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    if (j > i && l[i * n + j] !== 0) lower = false;
    let v = 0;
    for (let k = 0; k <= Math.min(i, j); k++) v += l[i * n + k]! * l[j * n + k]!;
    e += (a[i]![j]! - v) ** 2; s += a[i]![j]! ** 2;
  }
  return { res: Math.sqrt(e / s), lower };
}

const T = (a: number[][], chunkSize?: number | number[], dtype: 'float64' | 'float32' = 'float64'): mt.Tensor =>
  mt.tensor(a, { dtype, ...(chunkSize === undefined ? {} : { chunkSize }) });

describe('tiled cholesky', () => {
  it('matches NumPy on 3x3 and 4x4 tiles with ragged edges, tiles past one NB block (float64, float32)', async () => {
    for (const [n, c] of [[40, 16], [100, 32], [100, 48]] as const) {
      const L = mt.linalg.cholesky(T(spd(n), c));
      expect(L.node.op).toBe('routine');
      expect(L.shape).toEqual([n, n]);
      expect(rel(await flat(L), F[`chol${n}`]!)).toBeLessThan(1e-13);
    }
    const L32 = mt.linalg.cholesky(T(spd(40), 16, 'float32'));
    expect(L32.dtype).toBe('float32');
    expect(rel(await flat(L32), F.chol40_f32!)).toBeLessThan(1e-6);
  });
  it('residual below 1e-12 on 1, 4 and many tiles, lower triangular, equal to the one-chunk path', async () => {
    for (const [n, c] of [[10, 5], [64, 32], [64, 16], [100, 32]] as const) {
      const a = randomSpd(n, n + c);
      const L = await flat(mt.linalg.cholesky(T(a, c)));
      const { res, lower } = residual(a, L);
      expect(res).toBeLessThan(1e-12);
      expect(lower).toBe(true);
      const whole = mt.linalg.cholesky(T(a));
      expect(whole.node.op).not.toBe('routine');
      expect(rel(L, await flat(whole))).toBeLessThan(1e-12);
    }
  });
  it('the workspace frees each tile version once read: the peak stays near the factor\'s own size', async () => {
    const n = 256, a = T(randomSpd(n, 11), 32);
    await a.execute();
    const L = mt.linalg.cholesky(a);
    const work = L.node.inputs[0]!;
    expect(work.attrs).toMatchObject({ name: 'linalg.cholesky.tiles' });
    // nt = 8: 36 POTRF and TRSM, 84 SYRK and GEMM, each its own task
    const calls = (work.attrs as { calls: { routine: string }[] }).calls.map((c) => c.routine);
    expect(['potrf', 'trsm', 'syrk', 'gemm'].map((r) => calls.filter((c) => c === r).length)).toEqual([8, 28, 28, 56]);
    await L.execute();
    // the factor (n² float64) and the live versions; all 120 kept would be 2.9 times the factor
    expect(mt.lastReport().peakBytes).toBeLessThan(1.75 * n * n * 8);
    expect(residual(randomSpd(n, 11), await flat(L)).res).toBeLessThan(1e-12);
  });
  it('float32: residual at float32 precision', async () => {
    const a = randomSpd(64, 7);
    const { res, lower } = residual(a, await flat(mt.linalg.cholesky(T(a, 16, 'float32'))));
    expect(res).toBeLessThan(1e-6);
    expect(lower).toBe(true);
  });
  it('does not depend on the tile size beyond rounding', async () => {
    const a = randomSpd(96, 3);
    const ref = await flat(mt.linalg.cholesky(T(a, 16)));
    for (const c of [24, 40, [32, 96], [96, 20]]) expect(rel(await flat(mt.linalg.cholesky(T(a, c))), ref)).toBeLessThan(1e-13);
  });
  it('reads one triangle: lower from the lower, upper=true gives Lᵀ from the upper', async () => {
    const n = 40;
    const a = spd(n);
    const want = F.chol40!;
    const lowerOnly = a.map((r, i) => r.map((v, j) => (j > i ? 1e6 : v)));
    expect(rel(await flat(mt.linalg.cholesky(T(lowerOnly, 16))), want)).toBeLessThan(1e-13);
    const upperOnly = a.map((r, i) => r.map((v, j) => (j < i ? -1e6 : v)));
    const U = await flat(mt.linalg.cholesky(T(upperOnly, 16), { upper: true }));
    const wantT = Float64Array.from({ length: n * n }, (_, k) => want[(k % n) * n + Math.floor(k / n)]!);
    expect(rel(U, wantT)).toBeLessThan(1e-13);
  });
  it('integer input computes in float64', async () => {
    const L = mt.linalg.cholesky(mt.tensor(spd(40), { dtype: 'int64', chunkSize: 16 }));
    expect(L.dtype).toBe('float64');
    expect(rel(await flat(L), F.chol40!)).toBeLessThan(1e-13);
  });
  it('not positive definite: LinAlgError naming the tile', async () => {
    const a = spd(40);
    a[20]![20] = -1000;
    const err = await mt.linalg.cholesky(T(a, 16)).fetch().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
    expect((err as Error).name).toBe('LinAlgError');
    expect((err as Error).message).toBe('Matrix is not positive definite (the leading minor of order 21 is not positive, in tile (1, 1))');
    // the one-chunk path keeps NumPy's exact text
    await expect(mt.linalg.cholesky(T(a)).fetch()).rejects.toThrow(/^Matrix is not positive definite$/);
  });
  it('a NaN pivot gives NaNs from its tile on, not an error (NumPy\'s LAPACK)', async () => {
    const a = spd(40);
    a[20]![20] = NaN;
    const L = await flat(mt.linalg.cholesky(T(a, 16)));
    expect(rel(L.subarray(0, 16 * 40), F.chol40!.slice(0, 16 * 40))).toBeLessThan(1e-13);
    expect(Number.isNaN(L[20 * 40 + 20]!)).toBe(true);
    expect(Number.isNaN(L[39 * 40 + 39]!)).toBe(true);
  });
});

describe('solve_triangular and cho_solve', () => {
  const n = 40, k = 3;
  const b = rhs(n, k);
  it('matches SciPy: lower and upper, trans 0 and 1, unit_diagonal, over tiles and in one chunk', async () => {
    for (const lower of [true, false]) for (const trans of [0, 1]) for (const unit of [false, true]) {
      const want = F[`tri_${lower ? 'L' : 'U'}_${trans}_${+unit}`]!;
      for (const c of [16, undefined]) {
        const x = mt.linalg.solve_triangular(T(tri(n, lower), c), T(b, c), { lower, trans, unit_diagonal: unit });
        expect(x.shape).toEqual([n, k]);
        expect(rel(await flat(x), want)).toBeLessThan(1e-13);
      }
    }
    const tr = mt.linalg.solve_triangular(T(tri(n, true), 16), T(b, 16), { lower: true, trans: 'T' });
    expect(rel(await flat(tr), F.tri_L_1_0!)).toBeLessThan(1e-13);
  });
  it('a 1-d b gives a 1-d x; float32 stays float32', async () => {
    const b0 = b.map((r) => r[0]!);
    for (const lower of [true, false]) {
      const x = mt.linalg.solve_triangular(T(tri(n, lower), 16), mt.tensor(b0, { chunkSize: 16 }), { lower });
      expect(x.shape).toEqual([n]);
      expect(rel(await flat(x), F[`tri_${lower ? 'L' : 'U'}_vec`]!)).toBeLessThan(1e-13);
    }
    const x32 = mt.linalg.solve_triangular(T(tri(n, true), 16, 'float32'), T(b, 16, 'float32'), { lower: true });
    expect(x32.dtype).toBe('float32');
    expect(rel(await flat(x32), F.tri_L_0_0!)).toBeLessThan(1e-5);
  });
  it('cho_solve from a lower or an upper factor', async () => {
    const L = mt.linalg.cholesky(T(spd(n), 16));
    expect(rel(await flat(mt.linalg.cho_solve([L, true], T(b, 16))), F.cho_solve_L!)).toBeLessThan(1e-12);
    const U = mt.linalg.cholesky(T(spd(n), 16), { upper: true });
    expect(rel(await flat(mt.linalg.cho_solve([U, false], T(b, 16))), F.cho_solve_U!)).toBeLessThan(1e-12);
  });
  it('SciPy\'s errors: at the call, and a zero on the diagonal when the run reaches it', async () => {
    expect(() => mt.linalg.solve_triangular(mt.ones([2, 3]), mt.ones([2]))).toThrow(new RangeError('expected square matrix'));
    expect(() => mt.linalg.solve_triangular(mt.eye(3), mt.ones([2]))).toThrow(new RangeError('shapes of a (3, 3) and b (2,) are incompatible'));
    expect(() => mt.linalg.cho_solve([mt.ones([2, 3]), true], mt.ones([2]))).toThrow(new RangeError('The factored matrix c is not square.'));
    expect(() => mt.linalg.cho_solve([mt.eye(3), true], mt.ones([2, 2]))).toThrow(new RangeError('incompatible dimensions ((3, 3) and (2, 2))'));
    const t = tri(n, true);
    t[17]![17] = 0;
    const err = await mt.linalg.solve_triangular(T(t, 16), T(b, 16), { lower: true }).fetch().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
    expect((err as Error).message).toBe('singular matrix: resolution failed at diagonal 17');
  });
});

describe('tile kernels', () => {
  /** n seeded values in [-1, 1). */
  const rand = (n: number, seed: number): Float64Array => {
    let s = seed >>> 0;
    return Float64Array.from({ length: n }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 31 - 1; });
  };
  it('gemmNT against the plain sum, across register and K blocks, with offsets and leading dimensions', () => {
    const [r, c, K, ld] = [7, 5, 300, 310];
    const P = rand(r * ld, 1), Q = rand(c * ld, 2), C = rand(r * 9, 3);
    const want = Float64Array.from(C);
    for (let a = 0; a < r; a++) for (let b = 0; b < c; b++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += P[a * ld + 3 + k]! * Q[b * ld + 3 + k]!;
      want[a * 9 + 2 + b]! -= s;
    }
    gemmNT(C, 2, 9, r, c, P, 3, ld, Q, 3, ld, K);
    expect(rel(C, want)).toBeLessThan(1e-14);
  });
  it('potrf, trsm and the left triangular solve across NB-column blocks', () => {
    const n = 77;
    const a = randomSpd(n, 5);
    const C = Float64Array.from(a.flat());
    expect(potrfLower(C, n)).toBe(-1);
    const { res, lower } = residual(a, C);
    expect(res).toBeLessThan(1e-14);
    expect(lower).toBe(true);
    // X Lᵀ == B
    const r = 45, B = rand(r * n, 6), X = Float64Array.from(B);
    trsmRightLowerT(X, r, n, C);
    const XLt = new Float64Array(r * n);
    for (let i = 0; i < r; i++) for (let j = 0; j < n; j++) { let s = 0; for (let k = 0; k <= j; k++) s += X[i * n + k]! * C[j * n + k]!; XLt[i * n + j] = s; }
    expect(rel(XLt, B)).toBeLessThan(1e-13);
    // L Y == B (forward), then Lᵀ stored as upper: U Z == B (backward)
    const w = 3, B2 = rand(n * w, 7), Y = Float64Array.from(B2);
    expect(trsmLeft(C, n, Y, w, true, false)).toBe(-1);
    const LY = new Float64Array(n * w);
    for (let i = 0; i < n; i++) for (let j = 0; j < w; j++) { let s = 0; for (let k = 0; k <= i; k++) s += C[i * n + k]! * Y[k * w + j]!; LY[i * w + j] = s; }
    expect(rel(LY, B2)).toBeLessThan(1e-13);
    const notPd = Float64Array.from(a.flat());
    notPd[40 * n + 40] = -1;
    expect(potrfLower(notPd, n)).toBe(40);
  });
  it('the routines\' checks refuse bad parameters and regions', () => {
    const f64 = (...shape: number[]) => ({ dtype: 'float64' as const, shape });
    expect(() => ROUTINES.potrf.check({ tile: [1, 1] }, [f64(3, 3)], f64(4, 4))).not.toThrow();
    expect(() => ROUTINES.potrf.check({ tile: [1, 1] }, [f64(4, 4), f64(4, 4)], f64(4, 4))).toThrow(/potrf reads one diagonal tile/);
    expect(() => ROUTINES.potrf.check({ tile: [1] }, [f64(4, 4)], f64(4, 4))).toThrow(/tile must be a \[row, column\] pair/);
    expect(() => ROUTINES.potrf.check({ tile: [0, 0], x: 1 }, [f64(4, 4)], f64(4, 4))).toThrow(/unknown routine parameter x/);
    expect(() => ROUTINES.potrf.check({ tile: [0, 0] }, [f64(4, 3)], f64(4, 4))).toThrow(/diagonal tile must be a float64 \[4, 4\]/);
    expect(() => ROUTINES.potrf.check({ tile: [0, 0] }, [f64(4, 4)], f64(3, 4))).toThrow(/at least \[4, 4\]/);
    expect(() => ROUTINES.potrf.check({ tile: [0, 0] }, [{ dtype: 'float32', shape: [4, 4] }], f64(4, 4))).toThrow(/of its inputs' dtype/);
    expect(() => ROUTINES.trsm.check({ tile: [2, 1] }, [f64(3, 4), f64(4, 4)], f64(4, 4))).not.toThrow();
    expect(() => ROUTINES.trsm.check({ tile: [2, 1] }, [f64(3, 4), f64(3, 3)], f64(4, 4))).toThrow(/diagonal tile must be a float64 \[4, 4\]/);
    expect(() => ROUTINES.syrk.check({}, [f64(4, 4), f64(4, 2)], f64(4, 4))).not.toThrow();
    expect(() => ROUTINES.syrk.check({}, [f64(4, 4), f64(3, 2)], f64(4, 4))).toThrow(/tile of L must be a float64 \[4, 2\]/);
    expect(() => ROUTINES.gemm.check({}, [f64(3, 4), f64(3, 2), f64(4, 2)], f64(4, 4))).not.toThrow();
    expect(() => ROUTINES.gemm.check({}, [f64(3, 4), f64(3, 2), f64(4, 3)], f64(4, 4))).toThrow(/Q must be a float64 \[4, 2\]/);
    expect(() => ROUTINES.gemm.check({}, [f64(3, 4), f64(3, 2)], f64(4, 4))).toThrow(/gemm reads/);
    expect(() => ROUTINES.copy.check({}, [f64(3, 4)], f64(2, 4))).toThrow(/at least \[3, 4\]/);
    expect(() => ROUTINES.zero.check({}, [f64(1, 1)], f64(3, 4))).toThrow(/zero reads nothing/);
    expect(() => ROUTINES.zero.check({}, [], { dtype: 'int32', shape: [3, 4] })).toThrow(/zero writes a 2-d float64 or float32 tile/);
    const tri = { tile: [1, 0], lower: true, unit: false };
    expect(() => ROUTINES.trsolve.check(tri, [f64(4, 2), f64(4, 4), f64(4, 8), f64(8, 2)], f64(4, 2))).not.toThrow();
    expect(() => ROUTINES.trsolve.check({ ...tri, lower: 1 }, [f64(4, 2), f64(4, 4)], f64(4, 2))).toThrow(/lower must be a boolean/);
    expect(() => ROUTINES.trsolve.check(tri, [f64(4, 2), f64(4, 4), f64(4, 8), f64(7, 2)], f64(4, 2))).toThrow(/tile of X/);
  });
});

describe('the tile GEMM', () => {
  it('in WebAssembly agrees with the TypeScript loops on strided blocks of odd sizes, full and lower', () => {
    let seed = 7;
    const rnd = (n: number): Float64Array => Float64Array.from({ length: n }, () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 2 ** 32 - 0.5; });
    for (const [r, c, K, lower] of [[37, 45, 70, false], [64, 64, 64, true], [33, 33, 129, true], [96, 40, 33, false]] as const) {
      const ldc = c + 3, ldp = K + 5, ldq = K + 1;
      const C0 = rnd(5 + r * ldc), P = rnd(7 + r * ldp), Q = rnd(2 + c * ldq);
      const [A, B] = [C0.slice(), C0.slice()];
      const [q, qo, lq] = lower ? [P, 7, ldp] : [Q, 2, ldq];
      gemmNT(A, 5, ldc, r, c, P, 7, ldp, q, qo, lq, K, lower);
      gemmNTTs(B, 5, ldc, r, c, P, 7, ldp, q, qo, lq, K, lower);
      for (let a = 0; a < r; a++) {
        for (let b = 0; b < (lower ? Math.min(c, a + 1) : c); b++) expect(Math.abs(A[5 + a * ldc + b]! - B[5 + a * ldc + b]!)).toBeLessThan(1e-13);
        // nothing outside the block is written
        for (let b = c; b < ldc && 5 + a * ldc + b < A.length; b++) expect(A[5 + a * ldc + b]).toBe(C0[5 + a * ldc + b]);
      }
      expect(A[0]).toBe(C0[0]);
    }
  });
});

describe('the tall-skinny QR (TSQR) of a matrix chunked by rows, and its SVD', () => {
  /** Seeded m × n normals, columns scaled apart (condition number about 1e6). */
  const tall = (m: number, n: number, seed: number): number[][] => {
    let s = seed >>> 0;
    const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
    return Array.from({ length: m }, () => Array.from({ length: n }, (_, j) => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()) * 10 ** (-j % 7)));
  };
  const matmulJs = (a: number[][], b: number[][]): number[][] => a.map((r) => b[0]!.map((_, c) => r.reduce((s, v, k) => s + v * b[k]![c]!, 0)));
  const T = (a: number[][]): number[][] => a[0]!.map((_, c) => a.map((r) => r[c]!));
  const maxAbs = (a: number[][]): number => a.flat().reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const diff = (a: number[][], b: number[][]): number => a.flatMap((r, i) => r.map((v, j) => Math.abs(v - b[i]![j]!))).reduce((m, v) => Math.max(m, v), 0);

  // m = 300 over chunks of 64 (a last chunk of 44), and 100 over chunks of 24 (a last chunk of 4 rows, fewer than n = 8)
  it.each([[300, 12, 64], [100, 8, 24], [2000, 40, 256]])("%i x %i over chunks of %i rows: Q orthonormal, QR = A, R NumPy's up to its rows' signs", async (m, n, c) => {
    const A = tall(m, n, m + n);
    const [q, r] = mt.linalg.qr(mt.tensor(A, { chunkSize: [c, n] })) as mt.Tensor[];
    await mt.execute(q!, r!);
    expect(mt.lastReport()!.largestAllocation).toBeLessThan(m * n * 8);
    const [Q, R] = [(await q!.tolist()) as number[][], (await r!.tolist()) as number[][]];
    R.forEach((row, i) => row.forEach((v, j) => { if (j < i) expect(v).toBe(0); }));
    const I = matmulJs(T(Q), Q);
    expect(diff(I, I.map((row, i) => row.map((_, j) => (i === j ? 1 : 0))))).toBeLessThan(1e-13);
    expect(diff(matmulJs(Q, R), A) / maxAbs(A)).toBeLessThan(1e-14);
    // the host path (one chunk) is LAPACK's Householder on the whole matrix: R equal up to each row's sign
    const R1 = (await (mt.linalg.qr(mt.tensor(A), { mode: 'r' }) as mt.Tensor).tolist()) as number[][];
    const signed = R.map((row, i) => row.map((v) => v * Math.sign(R1[i]![i]! * row[i]!)));
    // (normwise: both are backward stable, so they agree to about eps·‖A‖ entry by entry)
    expect(diff(signed, R1) / maxAbs(R1)).toBeLessThan(1e-13);
  });
  it("mode 'r', float32, and the SVD with full_matrices=false and compute_uv=false", async () => {
    const A = tall(500, 6, 9);
    const t = mt.tensor(A, { chunkSize: [128, 6] });
    const r = mt.linalg.qr(t, { mode: 'r' }) as mt.Tensor;
    expect(r.shape).toEqual([6, 6]);
    const [q32] = mt.linalg.qr(mt.astype(t, 'float32')) as mt.Tensor[];
    expect(q32!.dtype).toBe('float32');
    const [u, s, vh] = mt.linalg.svd(t, { full_matrices: false }) as mt.Tensor[];
    const s1 = (await (mt.linalg.svd(mt.tensor(A), { compute_uv: false }) as mt.Tensor).tolist()) as number[];
    const sv = (await s!.tolist()) as number[];
    sv.forEach((v, i) => expect(Math.abs(v - s1[i]!) / s1[i]!).toBeLessThan(1e-10));
    expect((await (mt.linalg.svd(t, { compute_uv: false }) as mt.Tensor).tolist()) as number[]).toEqual(sv);
    const U = (await u!.tolist()) as number[][], Vh = (await vh!.tolist()) as number[][];
    const back = matmulJs(U.map((row) => row.map((v, j) => v * sv[j]!)), Vh);
    expect(diff(back, A) / maxAbs(A)).toBeLessThan(1e-13);
  });
});

describe('randomized_svd (Mars, scikit-learn) over a matrix chunked by rows', () => {
  /** A seeded m × n matrix of rank r: A (m × r) B (r × n), entries from an LCG. */
  const lowRank = (m: number, n: number, r: number, seed: number): number[][] => {
    let s = seed >>> 0;
    const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; };
    const A = Array.from({ length: m }, () => Array.from({ length: r }, u)), B = Array.from({ length: r }, () => Array.from({ length: n }, u));
    return A.map((row) => B[0]!.map((_, j) => row.reduce((acc, v, k) => acc + v * B[k]![j]!, 0)));
  };
  it.each([[3000, 80, 500], [60, 900, 20]])('%i x %i (chunks of %i rows): the exact triplets of a rank-5 matrix, signed as svd_flip', async (m, n, c) => {
    const M = lowRank(m, n, 5, m + n);
    const t = mt.tensor(M, { chunkSize: [c, n] });
    const [u, s, vt] = mt.linalg.randomized_svd(t, 5, { random_state: 3 }) as mt.Tensor[];
    expect([u!.shape, s!.shape, vt!.shape]).toEqual([[m, 5], [5], [5, n]]);
    const exact = (await (mt.linalg.svd(mt.tensor(M), { compute_uv: false }) as mt.Tensor).tolist()) as number[];
    const sv = (await s!.tolist()) as number[];
    sv.forEach((v, i) => expect(Math.abs(v - exact[i]!) / exact[0]!).toBeLessThan(1e-12));
    const U = (await u!.tolist()) as number[][], Vt = (await vt!.tolist()) as number[][];
    const back = U.map((row) => Vt[0]!.map((_, j) => row.reduce((acc, v, k) => acc + v * sv[k]! * Vt[k]![j]!, 0)));
    const scale = M.flat().reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    expect(back.flatMap((row, i) => row.map((v, j) => Math.abs(v - M[i]![j]!))).reduce((a, v) => Math.max(a, v), 0) / scale).toBeLessThan(1e-12);
    for (let k = 0; k < 5; k++) {
      const col = U.map((row) => row[k]!);
      const big = col.reduce((b, v) => (Math.abs(v) > Math.abs(b) ? v : b), 0);
      expect(big).toBeGreaterThan(0);
    }
    // the same seed, the same bits
    const [, s2] = mt.linalg.randomized_svd(t, 5, { random_state: 3 }) as mt.Tensor[];
    expect(await s2!.tolist()).toEqual(sv);
  });
  it('refuses a bad n_components', () => {
    expect(() => mt.linalg.randomized_svd(mt.zeros([10, 4]), 5)).toThrow(/n_components=5 must be an integer in \[1, min\(M.shape\)=4\]/);
  });
});

describe('lstsq of a tall-skinny matrix chunked by rows (TSQR, then the small problem)', () => {
  const data = (m: number, n: number, seed: number, dup: boolean): number[][] => {
    let s = seed >>> 0;
    const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; };
    return Array.from({ length: m }, () => { const r = Array.from({ length: n }, u); if (dup) r[n - 1] = r[0]!; return r; });
  };
  const near = (got: number[], want: number[], tol: number) => {
    const scale = want.reduce((a, v) => Math.max(a, Math.abs(v)), 1e-300);
    got.forEach((v, i) => expect(Math.abs(v - want[i]!) / scale).toBeLessThan(tol));
  };
  it.each([[false, 1], [false, 3], [true, 2]])('equals the one-chunk answer (a column repeated: %s, %i right-hand sides)', async (dup, k) => {
    const A = data(1200, 9, 5, dup), B = data(1200, k, 6, false);
    const one = mt.linalg.lstsq(mt.tensor(A), k === 1 ? mt.tensor(B.map((r) => r[0]!)) : mt.tensor(B));
    const many = mt.linalg.lstsq(mt.tensor(A, { chunkSize: [128, 9] }), k === 1 ? mt.tensor(B.map((r) => r[0]!), { chunkSize: 128 }) : mt.tensor(B, { chunkSize: [128, k] }));
    expect(many[0]!.shape).toEqual(one[0]!.shape);
    near(((await many[0]!.tolist()) as number[] | number[][]).flat(), ((await one[0]!.tolist()) as number[] | number[][]).flat(), 1e-10);
    expect(await many[2]!.tolist()).toEqual(await one[2]!.tolist());
    expect(await many[2]!.tolist()).toBe(dup ? 8 : 9);
    near((await many[1]!.tolist()) as number[], (await one[1]!.tolist()) as number[], 1e-10);
    expect(((await many[1]!.tolist()) as number[]).length).toBe(dup ? 0 : k);
    near((await many[3]!.tolist()) as number[], (await one[3]!.tolist()) as number[], 1e-12);
  });
});
