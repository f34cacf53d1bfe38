// The tiled QR (src/api/linalg_qr.ts, src/runtime/qrtiles.ts, the GEMM
// kernels of src/wasm/qrgemm.ts): np.linalg.qr of a matrix over more than one
// chunk, against NumPy's R (fixtures/gen_linalg_qr.py: |R|, since a row of R
// may differ in sign, as QR allows) on integer matrices the test rebuilds
// exactly, and by identities: ‖A − QR‖/‖A‖, ‖QᵀQ − I‖ and R upper
// triangular on 1, 4 and many tiles, ragged edges, tall and wide matrices
// with tile counts differing per axis, float64 and float32, well and
// ill-conditioned; independence of the tile size (a property over random
// shapes and tiles); NaN input; lstsq through it; the routines' checks; the
// kernels against plain loops; the same bits over a simulated mesh of three
// peers (src/mesh/sim.ts).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { qrTileSize, tiledQR } from '../src/api/linalg_qr.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { ROUTINES } from '../src/runtime/routines.js';
import { runtime } from '../src/runtime/runtime.js';
import { qrBlockNegModule, qrGemmModule, qrGemmNNModule, qrLevel2Modules } from '../src/wasm/qrgemm.js';

afterAll(() => mt.shutdown());

const F = JSON.parse(readFileSync(new URL('./fixtures/linalg_qr.json', import.meta.url), 'utf8')) as Record<string, number[]>;

/** gen_linalg_qr.py's gen(m, n): (7i + 13j + ij) % 11 − 5, plus 12 on the diagonal. */
const gen = (m: number, n: number): number[][] =>
  Array.from({ length: m }, (_, i) => Array.from({ length: n }, (_, j) => ((7 * i + 13 * j + i * j) % 11) - 5 + (i === j ? 12 : 0)));

/** Seeded m × n normals (Box-Muller over a 32-bit LCG), column j scaled by 10^(−(j % 7)·scale). */
function normals(m: number, n: number, seed: number, scale = 0): number[][] {
  let s = seed >>> 0;
  const u = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  const z = (): number => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  return Array.from({ length: m }, () => Array.from({ length: n }, (_, j) => z() * 10 ** (-(j % 7) * scale)));
}

const hilbert = (n: number): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => 1 / (i + j + 1)));

/** The routine names of a node's lineage. */
function names(node: mt.Tensor['node']): Set<string> {
  const out = new Set<string>(), seen = new Set<number>(), stack = [node];
  while (stack.length) {
    const x = stack.pop()!;
    if (seen.has(x.id)) continue;
    seen.add(x.id);
    const name = (x.attrs as { name?: unknown }).name;
    if (typeof name === 'string') out.add(name);
    stack.push(...x.inputs);
  }
  return out;
}

const tensor = (a: number[][], chunkSize: number | number[], dtype: 'float64' | 'float32' = 'float64'): mt.Tensor => mt.tensor(a, { dtype, chunkSize });
const flat = async (t: mt.Tensor): Promise<Float64Array> => Float64Array.from((await t.fetch()).data as ArrayLike<number>);

/** max | |got| − |want| | / max |want|: R up to the signs of its rows. */
function relAbs(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let e = 0, s = 0;
  for (let i = 0; i < want.length; i++) { e = Math.max(e, Math.abs(Math.abs(got[i]!) - Math.abs(want[i]!))); s = Math.max(s, Math.abs(want[i]!)); }
  return e / s;
}

/** The identities of a QR of the m × n `a`: ‖A − QR‖_F/‖A‖_F, ‖QᵀQ − I‖_F (Q m × q), and whether R (q × n) is upper triangular. */
function identities(a: number[][], q: Float64Array, r: Float64Array, k: number): { res: number; orth: number; upper: boolean } {
  const m = a.length, n = a[0]!.length;
  let e = 0, s = 0, o = 0, upper = true;
  for (let i = 0; i < k; i++) for (let j = 0; j < i && j < n; j++) if (r[i * n + j] !== 0) upper = false;
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let v = 0;
    for (let l = 0; l <= Math.min(j, k - 1); l++) v += q[i * k + l]! * r[l * n + j]!;
    e += (a[i]![j]! - v) ** 2; s += a[i]![j]! ** 2;
  }
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) {
    let v = 0;
    for (let l = 0; l < m; l++) v += q[l * k + i]! * q[l * k + j]!;
    o += (v - (i === j ? 1 : 0)) ** 2;
  }
  return { res: Math.sqrt(e / s), orth: Math.sqrt(o), upper };
}

/** Q and R of tiledQR (or of mt.linalg.qr when T is omitted), fetched, with their identities. */
async function qr(a: number[][], chunk: number | number[], T: number | undefined, mode: 'reduced' | 'complete', dtype: 'float64' | 'float32' = 'float64') {
  const x = tensor(a, chunk, dtype);
  const [Q, R] = (T === undefined ? mt.linalg.qr(x, { mode }) : tiledQR(x, T, mode)) as [mt.Tensor, mt.Tensor];
  const m = a.length, n = a[0]!.length, k = mode === 'complete' ? m : Math.min(m, n);
  expect(Q.shape).toEqual([m, k]);
  expect(R.shape).toEqual([k, n]);
  expect([Q.dtype, R.dtype]).toEqual([dtype, dtype]);
  const q = await flat(Q), r = await flat(R);
  return { q, r, ...identities(a, q, r, k) };
}

describe('tiled QR', () => {
  it('matches NumPy\'s |R| on 1, 4 and many tiles, square, tall and wide, ragged, reduced and complete', async () => {
    const cases: [number, number, number | number[], number][] = [
      [40, 40, 40, 40], [40, 40, 20, 20], [40, 40, 8, 8], [40, 40, [12, 40], 12],
      [50, 23, 12, 12], [50, 23, [16, 8], 8], [23, 50, 8, 8], [23, 50, [23, 12], 12], [70, 45, 16, 16], [70, 45, [20, 45], 20],
    ];
    for (const [m, n, chunk, T] of cases) {
      for (const mode of ['reduced', 'complete'] as const) {
        const { r, res, orth, upper } = await qr(gen(m, n), chunk, T, mode);
        expect(relAbs(r, F[`${mode === 'reduced' ? 'r' : 'rc'}${m}x${n}`]!), `${m}x${n} T=${T} ${mode}`).toBeLessThan(1e-13);
        expect(res).toBeLessThan(1e-14);
        expect(orth).toBeLessThan(1e-13);
        expect(upper).toBe(true);
      }
    }
  });
  it('mt.linalg.qr takes the tiled path for a matrix over several chunks; mode \'r\' gives R alone', async () => {
    const a = gen(70, 45);
    const [Q, R] = mt.linalg.qr(tensor(a, 16)) as mt.Tensor[];
    expect(Q!.node.op).toBe('routine');
    expect(R!.node.inputs[0]!.attrs).toMatchObject({ name: 'linalg.qr.tiles' });
    expect(relAbs(await flat(R!), F.r70x45!)).toBeLessThan(1e-13);
    const r = mt.linalg.qr(tensor(a, [16, 20]), { mode: 'r' }) as mt.Tensor;
    expect(r.shape).toEqual([45, 45]);
    expect(relAbs(await flat(r), F.r70x45!)).toBeLessThan(1e-13);
    // a tall-skinny matrix chunked by rows keeps TSQR; in mode 'complete' it is tiled
    const ts = mt.linalg.qr(tensor(a, [16, 45])) as mt.Tensor[];
    expect(ts[0]!.node.attrs).toMatchObject({ name: 'linalg.tsqr.q' });
    const { r: rc, res } = await qr(a, [16, 45], undefined, 'complete');
    expect(relAbs(rc, F.rc70x45!)).toBeLessThan(1e-13);
    expect(res).toBeLessThan(1e-14);
  });
  it('the DAG: PLASMA\'s tasks, each its own call; the workspace frees each tile version once read', async () => {
    const n = 256, a = tensor(normals(n, n, 4), 32);
    await a.execute();
    const r = mt.linalg.qr(a, { mode: 'r' }) as mt.Tensor;
    const work = r.node.inputs[0]!;
    // nt = 8: 8 GEQRT, 28 UNMQR and TSQRT, Σ k² = 140 TSMQR
    const calls = (work.attrs as { calls: { routine: string }[] }).calls.map((c) => c.routine);
    expect(['qrgeqrt', 'qrunmqr', 'qrtsqrt', 'qrtsmqr'].map((x) => calls.filter((c) => c === x).length)).toEqual([8, 28, 28, 140]);
    await r.execute();
    // all 204 versions kept would be about 10 times the matrix; the input, R and the live versions stay below 4
    expect(mt.lastReport().peakBytes).toBeLessThan(4 * n * n * 8);
  });
  it('a workspace cut into nodes of a few calls (the plan refuses a stored node past the 4 GiB heap) gives the same bits', async () => {
    const n = 128, a = tensor(normals(n, n + 20, 14), 32);
    await a.execute();
    const one = tiledQR(a, 32, 'complete');
    const cut = tiledQR(a, 32, 'complete', 7 * (2 * 32 + 32) * 32 * 8);
    expect(cut[1]!.node.inputs.length).toBeGreaterThan(1);
    await mt.execute(...cut);
    // all 180 versions kept would be about 13 times the matrix
    expect(mt.lastReport().peakBytes).toBeLessThan(7 * n * (n + 20) * 8);
    for (let i = 0; i < 2; i++) expect(Array.from(await flat(cut[i]!))).toEqual(Array.from(await flat(one[i]!)));
  });
  it('float32 stays float32, at float32 precision', async () => {
    for (const [m, n, T] of [[40, 40, 8], [50, 23, 12]] as const) {
      const { r, res, orth, upper } = await qr(gen(m, n), T, T, 'reduced', 'float32');
      expect(relAbs(r, F[`r${m}x${n}_f32`]!)).toBeLessThan(1e-5);
      expect(res).toBeLessThan(1e-6);
      expect(orth).toBeLessThan(1e-5);
      expect(upper).toBe(true);
    }
  });
  it('ill-conditioned matrices: the identities hold at float64 precision (Hilbert, graded columns)', async () => {
    for (const [a, T] of [[hilbert(60), 16], [normals(90, 70, 5, 2), 12], [normals(50, 90, 6, 2), 20]] as const) {
      for (const mode of ['reduced', 'complete'] as const) {
        const { res, orth, upper } = await qr(a, T, T, mode);
        expect(res).toBeLessThan(1e-14);
        expect(orth).toBeLessThan(1e-13);
        expect(upper).toBe(true);
      }
    }
  });
  it('inner blocks and sub-panels past one block: tiles of 132 (inner blocks of 32, sub-panels of 16, a ragged last block of 4)', async () => {
    const a = normals(300, 280, 9);
    const { res, orth, upper } = await qr(a, 132, 132, 'reduced');
    expect(res).toBeLessThan(1e-14);
    expect(orth).toBeLessThan(1e-13);
    expect(upper).toBe(true);
  });
  it('does not depend on the tile size beyond rounding (any shape, any tiles)', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 5, max: 48 }), fc.integer({ min: 5, max: 48 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.integer(),
      async (m, n, t1, t2, seed) => {
        const a = normals(m, n, seed);
        const one = await qr(a, 48, 48, 'reduced');
        for (const T of [4 * t1, 4 * t2]) {
          const got = await qr(a, T, T, 'reduced');
          expect(relAbs(got.r, one.r)).toBeLessThan(1e-12);
          expect(got.res).toBeLessThan(1e-14);
          expect(got.orth).toBeLessThan(1e-13);
        }
      }), { numRuns: 12, seed: 34 });
  });
  it('the tile side: a multiple of 4, from the chunks', () => {
    expect(qrTileSize(8192, 8192, [512, 512])).toBe(512);
    expect(qrTileSize(100, 70, [30, 30]) % 4).toBe(0);
    expect(qrTileSize(37, 37, [8, 8])).toBe(16);
  });
  it('values near overflow and underflow: R scales with the matrix (the norms computed with care)', async () => {
    const a = normals(40, 30, 8);
    const ref = await qr(a, 8, 8, 'reduced');
    for (const k of [1e200, 1e-200]) {
      const got = await qr(a.map((row) => row.map((v) => v * k)), 8, 8, 'reduced');
      expect(relAbs(got.r.map((v) => v / k), ref.r)).toBeLessThan(1e-13);
      expect(relAbs(got.q, ref.q)).toBeLessThan(1e-12);
      expect(got.orth).toBeLessThan(1e-13);
    }
  });
  it('a NaN gives NaNs, not an error (NumPy\'s LAPACK); the columns of R before its tile stay finite', async () => {
    const a = gen(40, 40);
    a[10]![25] = NaN;
    const [Q, R] = tiledQR(tensor(a, 8), 8, 'reduced');
    const q = await flat(Q!), r = await flat(R!);
    expect(q.some(Number.isNaN)).toBe(true);
    expect(r.some(Number.isNaN)).toBe(true);
    for (let i = 0; i < 40; i++) for (let j = 0; j < 24; j++) expect(Number.isNaN(r[i * 40 + j]!)).toBe(false);
  });
  it('lstsq of a matrix over several chunks goes through it: the one-chunk answer, tall, wide and rank-deficient', async () => {
    const deficient = normals(50, 30, 12);
    for (const row of deficient) row[7] = row[3]! - 2 * row[11]!;
    for (const a of [normals(60, 40, 10), normals(30, 50, 11), deficient]) {
      const b = normals(a.length, 3, 13);
      const got = mt.linalg.lstsq(tensor(a, 16), mt.tensor(b, { chunkSize: 16 }));
      expect(names(got[0]!.node)).toContain('linalg.qr.tiles');
      const want = mt.linalg.lstsq(mt.tensor(a), mt.tensor(b));
      for (let i = 0; i < 4; i++) {
        const [g, w] = [await flat(got[i]!), await flat(want[i]!)];
        expect(g.length).toBe(w.length);
        if (w.length) expect(Math.max(...g.map((v, k) => Math.abs(v - w[k]!))) / Math.max(1, ...w.map(Math.abs))).toBeLessThan(1e-10);
      }
    }
  });
  it('the routines\' checks refuse bad parameters and regions', () => {
    const f64 = (...shape: number[]) => ({ dtype: 'float64' as const, shape });
    const p = { t: 8, ib: 4 };
    expect(() => ROUTINES.qrgeqrt.check({ ...p, raw: [0] }, [f64(5, 8)], f64(20, 8))).not.toThrow();
    expect(() => ROUTINES.qrgeqrt.check({ ...p, raw: [] }, [f64(5, 8)], f64(20, 8))).toThrow(/read 0 must be a float64 \[8, 8\]/);
    expect(() => ROUTINES.qrgeqrt.check({ t: 6, ib: 4, raw: [0] }, [f64(5, 6)], f64(16, 6))).toThrow(/t must be a positive multiple of 4/);
    expect(() => ROUTINES.qrgeqrt.check({ t: 8, ib: 12, raw: [0] }, [f64(5, 8)], f64(28, 8))).toThrow(/ib must be/);
    expect(() => ROUTINES.qrgeqrt.check({ ...p, raw: [0] }, [f64(5, 8)], f64(19, 8))).toThrow(/writes a float64 \[20, 8\]/);
    expect(() => ROUTINES.qrgeqrt.check({ ...p, raw: [0], x: 1 }, [f64(5, 8)], f64(20, 8))).toThrow(/unknown routine parameter x/);
    expect(() => ROUTINES.qrtsmqr.check({ ...p, raw: [1], trans: true }, [f64(8, 8), f64(3, 8), f64(8, 8), f64(4, 8)], f64(20, 8))).not.toThrow();
    const pair = [f64(8, 8), f64(3, 8), f64(8, 8), f64(4, 8)];
    expect(() => ROUTINES.qrtsmqr.check({ ...p, raw: [1], trans: 1 }, pair, f64(20, 8))).toThrow(/trans must be a boolean/);
    expect(() => ROUTINES.qrtsmqr.check({ ...p, raw: [], trans: true }, [f64(8, 8), f64(8, 8), f64(8, 8), f64(8, 8)], f64(20, 8)))
      .toThrow(/read 3 must be a float64 \[4, 8\]/);
    expect(() => ROUTINES.qrunmqr.check({ ...p, raw: [5], trans: true }, [f64(8, 8), f64(8, 8), f64(4, 8)], f64(20, 8))).toThrow(/raw must list read indices/);
    expect(() => ROUTINES.qrtsqrt.check({ ...p, raw: [] }, [f64(8, 8)], f64(20, 8))).toThrow(/reads 2 regions/);
    expect(() => ROUTINES.qreye.check({ ...p, diag: true }, [f64(8, 8)], f64(20, 8))).toThrow(/qreye reads nothing/);
    expect(() => ROUTINES.qrcopy.check({ tri: false }, [f64(3, 5)], { dtype: 'float32', shape: [5, 3] })).not.toThrow();
    expect(() => ROUTINES.qrcopy.check({ tri: false }, [f64(3, 5)], f64(3, 5))).toThrow(/its read's transpose/);
  });
});

describe('the QR\'s GEMM kernels', () => {
  it('gemmnt (C −= P Qᵀ) and gemmnn (C −= P Q) agree with plain sums, with leading dimensions, touching nothing else', () => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const nt = new WebAssembly.Instance(new WebAssembly.Module(qrGemmModule()), { env: { memory } }).exports.gemmnt as (...a: number[]) => void;
    const nn = new WebAssembly.Instance(new WebAssembly.Module(qrGemmNNModule()), { env: { memory } }).exports.gemmnn as (...a: number[]) => void;
    const f = new Float64Array(memory.buffer);
    let seed = 3;
    for (let i = 0; i < f.length; i++) { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; f[i] = seed / 2 ** 32 - 0.5; }
    for (const [r, c, K] of [[4, 4, 2], [12, 8, 30], [36, 44, 64]] as const) {
      const ldc = c + 6, ldp = K + 2, ldq = Math.max(K, c) + 4;
      const C = 8, P = C + r * ldc + 8, Q = P + r * ldp + 8, end = Q + Math.max(c, K) * ldq;
      for (const [fn, trans] of [[nt, true], [nn, false]] as const) {
        const before = f.slice(0, end + 8);
        fn(8 * C, ldc, 8 * P, ldp, 8 * Q, ldq, r, c, K);
        for (let a = 0; a < r; a++) {
          for (let b = 0; b < c; b++) {
            let s = before[C + a * ldc + b]!;
            for (let k = 0; k < K; k++) s -= before[P + a * ldp + k]! * before[Q + (trans ? b * ldq + k : k * ldq + b)]!;
            expect(Math.abs(f[C + a * ldc + b]! - s)).toBeLessThan(1e-13);
          }
          for (let b = c; b < ldc; b++) expect(f[C + a * ldc + b]).toBe(before[C + a * ldc + b]);
        }
        expect(f[C - 1]).toBe(before[C - 1]);
        for (let i = P; i < end + 8; i++) if (f[i] !== before[i]) throw new Error(`wrote outside C at ${i}`);
      }
    }
  });
  it('dot and axpy: any length, any alignment, exactly the plain sums on small integers', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const m = qrLevel2Modules();
    const dot = new WebAssembly.Instance(new WebAssembly.Module(m.dot), { env: { memory } }).exports.dot as (...a: number[]) => number;
    const axpy = new WebAssembly.Instance(new WebAssembly.Module(m.axpy), { env: { memory } }).exports.axpy as (...a: number[]) => void;
    const f = new Float64Array(memory.buffer);
    for (let i = 0; i < 2000; i++) f[i] = (i % 13) - 6;
    for (const [x, y, n] of [[1, 500, 0], [3, 700, 1], [5, 900, 7], [0, 1000, 64], [7, 1200, 131]] as const) {
      let s = 0;
      for (let k = 0; k < n; k++) s += f[x + k]! * f[y + k]!;
      expect(dot(8 * x, 8 * y, n)).toBe(s);
      const before = f.slice(0, 2000);
      axpy(8 * y, 8 * x, 0.5, n);
      for (let i = 0; i < 2000; i++) expect(f[i]).toBe(i >= y && i < y + n ? before[i]! + 0.5 * before[x + i - y]! : before[i]);
    }
  });
  it('blockneg: D = −S and D −= S over strided blocks', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const neg = new WebAssembly.Instance(new WebAssembly.Module(qrBlockNegModule()), { env: { memory } }).exports.blockneg as (...a: number[]) => void;
    const f = new Float64Array(memory.buffer);
    for (let i = 0; i < 400; i++) f[i] = i % 7 - 3;
    const before = f.slice(0, 400);
    neg(8 * 10, 9, 8 * 200, 5, 3, 4, 0);
    neg(8 * 100, 9, 8 * 200, 5, 3, 4, 1);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 9; b++) {
        expect(f[10 + a * 9 + b]).toBe(b < 4 ? -before[200 + a * 5 + b]! : before[10 + a * 9 + b]);
        expect(f[100 + a * 9 + b]).toBe(b < 4 ? before[100 + a * 9 + b]! - before[200 + a * 5 + b]! : before[100 + a * 9 + b]);
      }
    }
  });
});

describe('over a simulated mesh', () => {
  it('qr (reduced and complete) gives the local run\'s bits on three peers', async () => {
    const a = normals(45, 37, 21);
    const programs = [() => mt.linalg.qr(tensor(a, 16)) as mt.Tensor[], () => mt.linalg.qr(tensor(a, [12, 20]), { mode: 'complete' }) as mt.Tensor[]];
    const local = await Promise.all(programs.map(async (f) => Promise.all(f().map(flat))));
    const net = new SimNet({ seed: 7, maxDelayMs: 2 });
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
        expect(rep.tasks).toBeGreaterThan(20);
        expect(rep.commits).toBe(rep.tasks + rep.recomputed);
        for (const [q, o] of outs.entries()) expect(Array.from(await flat(o))).toEqual(Array.from(local[p]![q]!));
      }
    } finally {
      parts.forEach((x) => x.close());
    }
  }, 60_000);
});
