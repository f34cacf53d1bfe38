// The tiled LU with tournament pivoting (src/api/linalg_lu.ts,
// src/runtime/lutiles.ts): scipy.linalg.lu against SciPy's P, L, U where the
// pivots are forced (a row permutation of a column-diagonally-dominant
// matrix), and by its identities elsewhere (‖A − P L U‖/‖A‖, L unit lower,
// U upper, P a permutation, |L| <= 1 in the diagonal tiles and small below)
// on matrices of 1, 4 and many tiles with ragged edges, float64 and float32,
// well- and ill-conditioned; np.linalg.solve, inv, det and slogdet against
// NumPy (fixtures/gen_linalg_lu.py); independence of the tile size; the
// errors: a singular matrix, one not square, infs and NaNs; that no task
// reads more than one block column of tiles; and the same bits over a
// simulated mesh of three peers (src/mesh/sim.ts).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { ROUTINES } from '../src/runtime/routines.js';
import { runtime } from '../src/runtime/runtime.js';
import { getrf, stepSource, trsmRightUpper } from '../src/runtime/lutiles.js';

afterAll(() => mt.shutdown());

const F = JSON.parse(readFileSync(new URL('./fixtures/linalg_lu.json', import.meta.url), 'utf8')) as Record<string, number[]>;

/** gen_linalg_lu.py's forced(n): d[perm] with d column-diagonally dominant, perm[x] = (7x + 3) % n. */
function forced(n: number): number[][] {
  const d = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 4 * n + (i % 5) : ((3 * i + 5 * j) % 7) - 3)));
  return Array.from({ length: n }, (_, x) => d[(7 * x + 3) % n]!);
}

/** gen_linalg_lu.py's general(n): ((1237i + 7919j + 11)² mod 1009 − 504) / 64 (exact). */
const general = (n: number): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
  const h = 1237 * i + 7919 * j + 11;
  return (((h * h) % 1009) - 504) / 64;
}));

/** gen_linalg_lu.py's graded(n): general(n) scaled by 2^(−i/6) 2^(−j/9) (NumPy's pow, correctly rounded here too). */
const graded = (n: number): number[][] => general(n).map((r, i) => r.map((v, j) => v * 2 ** (-i / 6) * 2 ** (-j / 9)));

const rhs = (n: number, k: number): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: k }, (_, c) => ((5 * i + 3 * c) % 9) - 4));

/** Seeded standard normals (Box-Muller over a 32-bit LCG). */
function normals(n: number, seed: number): number[][] {
  let s = seed >>> 0;
  const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  return Array.from({ length: n }, () => Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())));
}

const T = (a: number[][], chunkSize?: number, dtype: 'float64' | 'float32' = 'float64'): mt.Tensor =>
  mt.tensor(a, { dtype, ...(chunkSize === undefined ? {} : { chunkSize }) });

const flat = async (t: mt.Tensor): Promise<Float64Array> => Float64Array.from((await t.fetch()).data as ArrayLike<number>);

/** max |got − want| / max |want|. */
function rel(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let e = 0, s = 0;
  for (let i = 0; i < want.length; i++) { e = Math.max(e, Math.abs(got[i]! - want[i]!)); s = Math.max(s, Math.abs(want[i]!)); }
  return e / s;
}

/** The identities of a = P L U (n×n, flat row-major): the residual, and each factor's shape of matrix. */
function identities(a: number[][], p: Float64Array, l: Float64Array, u: Float64Array, T: number) {
  const n = a.length;
  const perm = new Array<number>(n).fill(-1);
  let permutation = true, unitLower = true, upper = true, diagTileL = 0, maxL = 0;
  for (let c = 0; c < n; c++) {
    for (let r = 0; r < n; r++) {
      const v = p[r * n + c]!;
      if (v === 1) { if (perm[c] !== -1) permutation = false; perm[c] = r; } else if (v !== 0) permutation = false;
    }
  }
  if (new Set(perm).size !== n || perm.includes(-1)) permutation = false;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const lv = l[i * n + j]!;
      if (j > i && lv !== 0) unitLower = false;
      if (i === j && lv !== 1) unitLower = false;
      if (j < i) { maxL = Math.max(maxL, Math.abs(lv)); if (Math.floor(i / T) === Math.floor(j / T)) diagTileL = Math.max(diagTileL, Math.abs(lv)); }
      if (j < i && u[i * n + j] !== 0) upper = false;
    }
  }
  // (L U)[x] is a's row perm[x]
  let e = 0, s = 0;
  for (let x = 0; x < n; x++) {
    for (let j = 0; j < n; j++) {
      let v = 0;
      for (let k = 0; k <= Math.min(x, j); k++) v += l[x * n + k]! * u[k * n + j]!;
      e += (a[perm[x]!]![j]! - v) ** 2; s += a[perm[x]!]![j]! ** 2;
    }
  }
  return { res: Math.sqrt(e / s), permutation, unitLower, upper, diagTileL, maxL, perm };
}

async function lu(a: number[][], chunk: number | undefined, dtype: 'float64' | 'float32' = 'float64') {
  const [P, L, U] = mt.linalg.lu(T(a, chunk, dtype));
  expect([P!.shape, L!.shape, U!.shape, L!.dtype, P!.dtype]).toEqual([[a.length, a.length], [a.length, a.length], [a.length, a.length], dtype, dtype]);
  return { p: await flat(P!), l: await flat(L!), u: await flat(U!) };
}

describe('lu', () => {
  it('is SciPy\'s P, L, U where the pivots are forced: 1 tile, 2×2 to 5×5 tiles with ragged edges (float64, float32)', async () => {
    for (const [n, chunk] of [[40, undefined], [40, 16], [72, 16], [72, 20], [72, 36]] as const) {
      const { p, l, u } = await lu(forced(n), chunk);
      const id = identities(forced(n), p, l, u, chunk ?? n);
      expect(id.perm).toEqual(F[`forced${n}_perm`]);
      expect(rel(l, F[`forced${n}_l`]!)).toBeLessThan(1e-14);
      expect(rel(u, F[`forced${n}_u`]!)).toBeLessThan(1e-14);
    }
    const { l, u } = await lu(forced(40), 16, 'float32');
    expect(rel(l, F.forced40_f32_l!)).toBeLessThan(1e-6);
    expect(rel(u, F.forced40_f32_u!)).toBeLessThan(1e-6);
  });

  it('A = P L U with L unit lower (|L| <= 1 in the diagonal tiles, small below), U upper, P a permutation: random, graded, float32', async () => {
    const cases: [number[][], number | undefined, 'float64' | 'float32', number][] = [
      [normals(37, 1), 16, 'float64', 1e-14], [normals(64, 2), 16, 'float64', 1e-14], [normals(50, 3), undefined, 'float64', 1e-14],
      [normals(45, 4), 20, 'float64', 1e-14], [normals(33, 6), 16, 'float64', 1e-14], [graded(100), 16, 'float64', 1e-14], [normals(40, 5), 16, 'float32', 1e-6],
    ];
    for (const [a, chunk, dtype, tol] of cases) {
      const { p, l, u } = await lu(a, chunk, dtype);
      const id = identities(a, p, l, u, chunk ?? a.length);
      expect(id.res).toBeLessThan(tol);
      expect([id.permutation, id.unitLower, id.upper]).toEqual([true, true, true]);
      expect(id.diagTileL).toBeLessThanOrEqual(1);
      // tournament pivoting bounds L's growth below the diagonal tiles, not each entry by 1
      expect(id.maxL).toBeLessThan(4);
    }
  });

  it('one chunk of any shape is LAPACK\'s partial pivoting: SciPy\'s P, L, U (square, tall, wide)', async () => {
    const g = general(40);
    for (const [name, a] of [['sq30', general(30)], ['tall', g.map((r) => r.slice(0, 25))], ['wide', g.slice(0, 25)]] as const) {
      const [m, n] = [a.length, a[0]!.length], k = Math.min(m, n);
      const [P, L, U] = mt.linalg.lu(T(a));
      expect([P!.shape, L!.shape, U!.shape]).toEqual([[m, m], [m, k], [k, n]]);
      const pm = await flat(P!);
      expect(Array.from({ length: m }, (_, c) => Array.from({ length: m }, (_, r) => pm[r * m + c]).indexOf(1))).toEqual(F[`${name}_perm`]);
      expect(rel(await flat(L!), F[`${name}_l`]!)).toBeLessThan(1e-14);
      expect(rel(await flat(U!), F[`${name}_u`]!)).toBeLessThan(1e-14);
      const [PL, U2] = mt.linalg.lu(T(a), { permute_l: true });
      expect(rel(await flat(mt.matmul(PL!, U2!)), a.flat())).toBeLessThan(1e-14);
      const [p] = mt.linalg.lu(T(a), { p_indices: true });
      expect(Array.from(await flat(p!)).map((c, i) => pm[i * m + c])).toEqual(new Array(m).fill(1));
    }
  });

  it('permute_l gives [P L, U]; p_indices gives P as row indices', async () => {
    const a = normals(37, 11);
    const [P, L, U] = mt.linalg.lu(T(a, 8));
    const [PL, U2] = mt.linalg.lu(T(a, 8), { permute_l: true });
    expect(Array.from(await flat(PL!))).toEqual(Array.from(await flat(mt.matmul(P!, L!))));
    expect(Array.from(await flat(U2!))).toEqual(Array.from(await flat(U!)));
    expect(rel(await flat(mt.matmul(PL!, U2!)), a.flat())).toBeLessThan(1e-14);
    // SciPy 1.11's p_indices: a = L[p] U, P[i, p[i]] = 1
    const [p] = mt.linalg.lu(T(a, 8), { p_indices: true });
    expect(p!.dtype).toBe('int32');
    const pm = await flat(P!), pi = Array.from(await flat(p!));
    expect(pi.map((c, i) => pm[i * 37 + c])).toEqual(new Array(37).fill(1));
  });

  it('a singular matrix factors, with an exact zero on U\'s diagonal', async () => {
    const a = normals(40, 7).map((r) => r.map((v, j) => (j === 21 ? 0 : v)));
    const { p, l, u } = await lu(a, 16);
    const id = identities(a, p, l, u, 16);
    expect(id.res).toBeLessThan(1e-14);
    expect([id.permutation, id.unitLower, id.upper]).toEqual([true, true, true]);
    expect(Array.from({ length: 40 }, (_, i) => u[i * 41]).some((v) => v === 0)).toBe(true);
  });

  it('check_finite: infs and NaNs fail the run with ValueError (RangeError), unless check_finite=false', async () => {
    const a = normals(20, 3);
    a[13]![4] = NaN;
    await expect(mt.linalg.lu(T(a, 8))[1]!.fetch()).rejects.toThrow(new RangeError('array must not contain infs or NaNs'));
    a[13]![4] = Infinity;
    await expect(mt.linalg.lu(T(a, 8))[2]!.fetch()).rejects.toThrow(new RangeError('array must not contain infs or NaNs'));
    await expect(mt.linalg.lu(T(a, 8), { check_finite: false })[2]!.fetch()).resolves.toBeDefined();
  });

  it('takes ints as float64; refuses what is not a matrix, or not square over chunks; empty', async () => {
    const [, L] = mt.linalg.lu(mt.tensor(forced(20), { dtype: 'int32', chunkSize: 8 }));
    expect(L!.dtype).toBe('float64');
    expect(() => mt.linalg.lu(mt.ones([2, 3, 3]))).toThrow(new RangeError('expected matrix'));
    expect(() => mt.linalg.lu(mt.ones([40, 32], { chunkSize: 16 }))).toThrow(/over more than one chunk must be square/);
    const [P0, L0, U0] = mt.linalg.lu(mt.zeros([0, 3]));
    expect([P0!.shape, L0!.shape, U0!.shape]).toEqual([[0, 0], [0, 0], [0, 3]]);
  });
});

describe('solve, inv, det, slogdet over the tiled LU', () => {
  it('match NumPy on well- and ill-conditioned matrices of 1, 9, 16 and 49 tiles (ragged edges)', async () => {
    for (const [name, f] of [['general', general], ['graded', graded]] as const) {
      for (const [n, chunk] of [[40, 16], [40, 40], [100, 32], [100, 16], [40, 6]] as const) {
        const a = f(n);
        const cond = F[`${name}${n}_cond`] as unknown as number;
        const tol = Math.max(1e-13, 1e-15 * cond);
        const A = T(a, chunk);
        const x = mt.linalg.solve(A, T(rhs(n, 3)));
        if (chunk < n) expect(x.node.op).toBe('routine');
        expect(rel(await flat(x), F[`${name}${n}_solve`]!)).toBeLessThan(tol);
        const x1 = mt.linalg.solve(A, mt.tensor(rhs(n, 1).map((r) => r[0]!)));
        expect(x1.shape).toEqual([n]);
        expect(rel(await flat(x1), F[`${name}${n}_solve1`]!)).toBeLessThan(tol);
        if (n === 40) expect(rel(await flat(mt.linalg.inv(A)), F[`${name}${n}_inv`]!)).toBeLessThan(tol);
        else expect(rel(await flat(mt.matmul(T(a), mt.linalg.inv(A))), Array.from({ length: n * n }, (_, q) => (q % (n + 1) === 0 ? 1 : 0)))).toBeLessThan(tol);
        const det = (await mt.linalg.det(A).fetch()).item() as number;
        expect(Math.abs(det - (F[`${name}${n}_det`] as unknown as number)) / Math.abs(det)).toBeLessThan(tol);
        const [s, ld] = mt.linalg.slogdet(A);
        expect((await s!.fetch()).item()).toBe(F[`${name}${n}_slogdet`]![0]);
        const want = F[`${name}${n}_slogdet`]![1]!;
        expect(Math.abs(((await ld!.fetch()).item() as number) - want)).toBeLessThan(1e-12 * Math.abs(want) + 1e-12);
      }
    }
  });

  it('float32 stays float32 when both are', async () => {
    const x = mt.linalg.solve(T(general(40), 16, 'float32'), T(rhs(40, 3), undefined, 'float32'));
    expect(x.dtype).toBe('float32');
    expect(rel(await flat(x), F.general40_f32_solve!)).toBeLessThan(1e-4);
    const d = mt.linalg.det(T(graded(40), 16, 'float32'));
    expect(d.dtype).toBe('float32');
    expect(Math.abs(((await d.fetch()).item() as number) / (F.graded40_f32_det as unknown as number) - 1)).toBeLessThan(1e-3);
    expect(mt.linalg.solve(T(general(40), 16, 'float32'), T(rhs(40, 3))).dtype).toBe('float64');
  });

  it('the tile size changes only the rounding (random matrices, tiles of 16 to 40)', async () => {
    for (const seed of [21, 22, 23]) {
      const a = normals(64, seed), b = rhs(64, 2);
      const want = await flat(mt.linalg.solve(T(a), T(b)));
      const wantDet = (await mt.linalg.det(T(a)).fetch()).item() as number;
      for (const chunk of [16, 20, 24, 32, 40]) {
        expect(rel(await flat(mt.linalg.solve(T(a, chunk), T(b, chunk))), want)).toBeLessThan(1e-10);
        expect(Math.abs(((await mt.linalg.det(T(a, chunk)).fetch()).item() as number) / wantDet - 1)).toBeLessThan(1e-10);
        expect(rel(await flat(mt.linalg.inv(T(a, chunk))), await flat(mt.linalg.inv(T(a))))).toBeLessThan(1e-10);
      }
    }
  });

  it('a singular matrix: solve and inv fail with LinAlgError(\'Singular matrix\'), det is 0, slogdet (0, −inf)', async () => {
    const a = normals(40, 7).map((r) => r.map((v, j) => (j === 21 ? 0 : v)));
    for (const run of [() => mt.linalg.solve(T(a, 16), T(rhs(40, 2))), () => mt.linalg.inv(T(a, 16))]) {
      let err: unknown;
      try { await run().fetch(); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
      expect((err as Error).message).toBe('Singular matrix');
    }
    expect((await mt.linalg.det(T(a, 16)).fetch()).item()).toBe(0);
    const [s, ld] = mt.linalg.slogdet(T(a, 16));
    expect([(await s!.fetch()).item(), (await ld!.fetch()).item()]).toEqual([0, -Infinity]);
  });

  it('not square: NumPy\'s LinAlgError at the call; NaN input gives NaN', async () => {
    const a = mt.ones([40, 32], { chunkSize: 16 });
    expect(() => mt.linalg.solve(a, mt.ones([40]))).toThrow(new mt.linalg.LinAlgError('Last 2 dimensions of the array must be square'));
    expect(() => mt.linalg.det(a)).toThrow(/Last 2 dimensions of the array must be square/);
    expect(() => mt.linalg.inv(a)).toThrow(/Last 2 dimensions of the array must be square/);
    const n = normals(40, 3);
    n[5]![6] = NaN;
    const x = await flat(mt.linalg.solve(T(n, 16), T(rhs(40, 1))));
    expect(x.some((v) => Number.isNaN(v))).toBe(true);
  });
});

describe('the LU DAG and its routines', () => {
  it('no task reads more than one block column of tiles (plus a few tiles)', () => {
    const n = 100, t = 16;
    const [, L, U] = mt.linalg.lu(T(normals(n, 1), t), { check_finite: false });
    const seen = new Set<number>();
    const walk = (node: mt.Tensor['node']): void => {
      if (seen.has(node.id)) return;
      seen.add(node.id);
      if (node.op === 'routine') {
        for (const c of (node.attrs as { calls: { reads: { box: [number, number][] }[] }[] }).calls) {
          const read = c.reads.reduce((s, r) => s + r.box.reduce((p, [lo, hi]) => p * (hi - lo), 1), 0);
          expect(read).toBeLessThanOrEqual(n * (t + 1) + 3 * t * (t + 1));
        }
      }
      node.inputs.forEach(walk);
    };
    walk(L!.node); walk(U!.node);
    expect(seen.size).toBeGreaterThan(2);
  });

  it('getrf is partial pivoting; stepSource is LAPACK\'s sequential swaps; trsmRightUpper solves X U = C', () => {
    const A = Float64Array.from([1, 2, 4, 3, 3, 1, 2, 5, -8, 1, 0, 2]);
    const ids = Float64Array.from([0, 1, 2, 3]);
    getrf(A, 4, 3, ids);
    // SciPy's lu of these rows pivots on rows 1, 2, 0; U's first row is row 1
    expect(Array.from(ids)).toEqual([1, 2, 0, 3]);
    expect([A[0], A[1], A[2]]).toEqual([3, 3, 1]);
    // winners swapped in one after another on an array of row labels
    for (const w of [[9, 4, 6, 5], [7, 9, 4, 5], [4, 5, 6, 7], [11, 10, 8, 4]]) {
      const rows = Array.from({ length: 12 }, (_, i) => i);
      for (let r = 0; r < w.length; r++) { const p = rows.indexOf(w[r]!); [rows[4 + r], rows[p]] = [rows[p]!, rows[4 + r]!]; }
      const { src } = stepSource(4, w);
      expect(rows.map((_, x) => src.get(x) ?? x)).toEqual(rows);
    }
    const U = Float64Array.from([2, 1, 0, 4]), C = Float64Array.from([2, 5, 4, 6]);
    trsmRightUpper(C, 2, 2, U, 0, 2);
    expect(Array.from(C)).toEqual([1, 1, 2, 1]);
    // a zero pivot leaves its column unscaled (getrf's rule)
    const Z = Float64Array.from([0, 1, 0, 2]), D = Float64Array.from([0, 4]);
    trsmRightUpper(D, 1, 2, Z, 0, 2);
    expect(Array.from(D)).toEqual([0, 2]);
  });

  it('the routines check their regions', () => {
    const f64 = (...shape: number[]) => ({ dtype: 'float64' as const, shape });
    expect(() => ROUTINES.lutourn.check({ cols: 4, root: true, rows0: [-1, 8] }, [f64(4, 5), f64(4, 4)], f64(4, 5))).not.toThrow();
    expect(() => ROUTINES.lutourn.check({ cols: 4, root: true, rows0: [-1, -1] }, [f64(4, 5), f64(4, 4)], f64(4, 5))).toThrow(/one or two tiles/);
    expect(() => ROUTINES.lutourn.check({ cols: 4, root: true, rows0: [-1, -1, -1] }, [f64(4, 5), f64(4, 5), f64(4, 5)], f64(4, 5))).toThrow(/one or two/);
    expect(() => ROUTINES.lucol.check({ k0: -1, row0: 4 }, [f64(4, 4), f64(4, 4), f64(4, 5)], f64(4, 5))).toThrow(/k0 must be a non-negative integer/);
    expect(() => ROUTINES.luupdate.check({ k0: 0, row0: 4 }, [f64(4, 3), f64(4, 3), f64(4, 1), f64(4, 4), f64(3, 4)], f64(4, 5))).not.toThrow();
    expect(() => ROUTINES.lutrans.check({}, [f64(3, 4)], f64(4, 3))).not.toThrow();
    expect(() => ROUTINES.luupdate.check({ k0: 0, row0: 4 }, [f64(4, 4), f64(4, 4), f64(4, 2), f64(4, 4), f64(4, 4)], f64(4, 5))).toThrow(/luupdate reads/);
    expect(() => ROUTINES.lugate.check({}, [{ dtype: 'int32', shape: [4, 4] }, f64(2, 1)], f64(4, 4))).toThrow(/float64 or float32/);
  });
});

describe('over a simulated mesh', () => {
  it('lu and solve give the local run\'s bits on three peers; a singular solve fails with LinAlgError', async () => {
    const a = normals(45, 31), b = rhs(45, 2);
    const programs = [() => mt.linalg.lu(T(a, 16), { check_finite: false }), () => [mt.linalg.solve(T(a, 16), T(b))]];
    const local = await Promise.all(programs.map(async (f) => Promise.all(f().map(flat))));
    const net = new SimNet({ seed: 5, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 5000, fetchTimeoutMs: 500 });
    const parts: { close(): void }[] = [coord, cstate];
    for (const id of ['w1', 'w2', 'w3']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 500 }));
    }
    try {
      await new Promise((r) => setTimeout(r, 150));
      for (const [p, f] of programs.entries()) {
        const outs = f();
        const rep = await coord.run(outs.map((o) => o.node));
        expect(rep.tasks).toBeGreaterThan(40);
        expect(rep.commits).toBe(rep.tasks + rep.recomputed);
        for (const [q, o] of outs.entries()) expect(Array.from(await flat(o))).toEqual(Array.from(local[p]![q]!));
      }
      const sing = a.map((r) => r.map((v, j) => (j === 3 ? 0 : v)));
      const x = mt.linalg.solve(T(sing, 16), T(b));
      const err = await coord.run([x.node]).then(() => null, (e: unknown) => e);
      expect((err as Error).name).toBe('LinAlgError');
      expect((err as Error).message).toMatch(/Singular matrix/);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);
});
