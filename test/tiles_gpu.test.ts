// The float32 tile routines on WebGPU (runtime/tiles_gpu.ts, shaders/tilegemm.wgsl):
// the shader's C − P Qᵀ and C − P X on seeded ragged sizes (K not a multiple
// of its 16-wide K tiles, tiles not multiples of its 64-wide blocks) against
// float64 sums here, within float32 rounding (4·K·2⁻²⁴·Σ|P||Q| per entry);
// the lower flag (SYRK: the strict upper triangle keeps C); the output
// chunk's zeros past the tile; the routines gemm, syrk and trsolve against
// the CPU routines of runtime/tiles.ts; then a float32 mt.linalg.cholesky
// and solve_triangular over several tiles with device 'webgpu' against the
// wasm results (‖A − LLᵀ‖/‖A‖ ≤ 1e-5), the tiles counted on the GPU; and
// the same Cholesky on a simulated mesh whose peers compute on 'webgpu'. With
// no GPU here, the adapter is SwiftShader's (slow: small tiles).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet, rng } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import type { Region } from '../src/runtime/region.js';
import { runtime } from '../src/runtime/runtime.js';
import { TILE_ROUTINES } from '../src/runtime/tiles.js';
import { gpuTileRoutine, tileGpuStats, tileUpdate } from '../src/runtime/tiles_gpu.js';
import { GpuDevice } from '../src/runtime/webgpu.js';

let gpu: GpuDevice;
beforeAll(async () => {
  const d = await GpuDevice.open();
  if (!d) throw new Error('no WebGPU adapter: `npm test` installs chromium (SwiftShader) and libvulkan1; run `npm run setup` as root');
  gpu = d;
}, 60_000);
// a Node WebGPU device keeps a core busy until it is destroyed
afterAll(() => { gpu?.destroy(); mt.options.device = 'wasm'; return mt.shutdown(); });

/** A seeded stream of uniform draws in [-1, 1) (xorshift). */
const uniform = (seed: number) => () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return 2 * ((seed >>> 0) / 2 ** 32) - 1;
};
const rand32 = (n: number, r: () => number) => Float32Array.from({ length: n }, r);
const U = 2 ** -24;

/**
 * The float64 reference of out = C − P Qᵀ (NT) or C − P Q (NN) into M×N with
 * `lower`, and the float32 bound of each entry: 4·K·u·Σ|P||Q| plus C's rounding.
 */
function reference(M: number, N: number, r: number, c: number, K: number, C: Float32Array, ldc: number, P: Float32Array, ldp: number,
  Q: Float32Array, ldq: number, nn: boolean, lower: boolean): { want: Float64Array; tol: Float64Array } {
  const want = new Float64Array(M * N), tol = new Float64Array(M * N);
  for (let a = 0; a < r; a++) {
    for (let b = 0; b < c; b++) {
      let s = 0, abs = 0;
      if (!lower || b <= a) {
        for (let k = 0; k < K; k++) {
          const v = P[a * ldp + k]! * (nn ? Q[k * ldq + b]! : Q[b * ldq + k]!);
          s += v; abs += Math.abs(v);
        }
      }
      want[a * N + b] = C[a * ldc + b]! - s;
      tol[a * N + b] = 4 * (K + 1) * U * (abs + Math.abs(C[a * ldc + b]!));
    }
  }
  return { want, tol };
}

function expectClose(got: Float32Array, want: Float64Array, tol: Float64Array): void {
  let bad = -1;
  for (let i = 0; i < want.length; i++) if (!(Math.abs(got[i]! - want[i]!) <= tol[i]!)) { bad = i; break; }
  expect(bad === -1 ? 'ok' : `entry ${bad}: ${got[bad]} instead of ${want[bad]} ± ${tol[bad]}`).toBe('ok');
}

describe('shaders/tilegemm.wgsl', () => {
  // [r, c, K, M, N, lead pad, nn, lower]
  const cases: [number, number, number, number, number, number, boolean, boolean][] = [
    [64, 64, 64, 64, 64, 0, false, false],
    [70, 45, 37, 80, 64, 3, false, false],
    [130, 131, 1, 130, 131, 0, false, false],
    [5, 200, 77, 8, 200, 1, false, false],
    [150, 150, 83, 160, 160, 0, false, true],
    [100, 100, 100, 100, 100, 5, false, true],
    [90, 70, 41, 96, 70, 0, true, false],
    [17, 130, 129, 17, 130, 2, true, false],
  ];
  it.each(cases)('r=%i c=%i K=%i into %ix%i (pad %i, nn %s, lower %s)', async (r, c, K, M, N, pad, nn, lower) => {
    const g = uniform(r * 7919 + c * 31 + K);
    const ldc = c + pad, ldp = K + pad, ldq = (nn ? c : K) + pad;
    const C = rand32(r * ldc, g), P = rand32(r * ldp, g), Q = rand32((nn ? K : c) * ldq, g);
    const out = new Float32Array(M * N).fill(NaN);
    await tileUpdate(gpu, out, M, N, r, c, K, { a: C, ld: ldc }, { a: P, ld: ldp }, { a: Q, ld: ldq }, nn, lower);
    const { want, tol } = reference(M, N, r, c, K, C, ldc, P, ldp, Q, ldq, nn, lower);
    expectClose(out, want, tol);
    // lower: the strict upper triangle is C's, exactly; past the tile, zeros
    if (lower) for (let a = 0; a < r; a++) for (let b = a + 1; b < c; b++) expect(out[a * N + b]).toBe(C[a * ldc + b]);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) if (i >= r || j >= c) expect(out[i * N + j]).toBe(0);
  }, 60_000);
});

/** A dense float32 region [m, n] (row-major) of a fresh array, or over `data`. */
const region = (m: number, n: number, data?: Float32Array, origin: number[] = [0, 0]): Region =>
  ({ dtype: 'float32', shape: [m, n], strides: [n, 1], origin, data: data ?? new Float32Array(m * n) });

describe('gpuTileRoutine against the CPU routines', () => {
  /** Runs `name` on the CPU and on the GPU; their outputs agree within `tol` (relative to the largest |entry|), and where `exact` says. */
  async function agree(name: string, params: Record<string, boolean | number[]>, ins: Region[], M: number, N: number,
    compare: (i: number, j: number) => boolean = () => true): Promise<void> {
    const cpu = region(M, N), dev = region(M, N);
    (dev.data as Float32Array).fill(NaN);
    TILE_ROUTINES[name as 'gemm'].check(params, ins, cpu);
    TILE_ROUTINES[name as 'gemm'].run(params, ins, cpu);
    const before = tileGpuStats.byName[name] ?? 0;
    await gpuTileRoutine(gpu, name, params, ins, dev);
    expect(tileGpuStats.byName[name]).toBe(before + 1);
    const a = cpu.data as Float32Array, b = dev.data as Float32Array;
    const scale = a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        if (!compare(i, j)) continue;
        const x = a[i * N + j]!, y = b[i * N + j]!;
        if (!(Math.abs(x - y) <= 1e-5 * scale)) expect(`(${i}, ${j}): ${y}`).toBe(`(${i}, ${j}): ${x}`);
      }
    }
  }

  it('gemm: a ragged tile into a larger workspace chunk', async () => {
    const g = uniform(5);
    const [r, c, K] = [75, 61, 90];
    await agree('gemm', {}, [region(r, c, rand32(r * c, g)), region(r, K, rand32(r * K, g)), region(c, K, rand32(c * K, g))], 80, 64);
  }, 60_000);

  it('syrk: the lower triangle (the strict upper is scratch), zeros past the tile', async () => {
    const g = uniform(6);
    const [c, K] = [99, 70];
    await agree('syrk', {}, [region(c, c, rand32(c * c, g)), region(c, K, rand32(c * K, g))], 100, 100, (i, j) => j <= i || i >= c || j >= c);
  }, 60_000);

  it('trsolve: the update on the GPU, the substitution in float64', async () => {
    const g = uniform(7);
    const [r, w, k1, k2] = [50, 33, 64, 20];
    // a well-conditioned lower triangular diagonal tile
    const T = rand32(r * r, g).map((v, i) => (i % r === Math.floor(i / r) ? 4 + v : i % r < Math.floor(i / r) ? v / r : 0));
    const ins = [region(r, w, rand32(r * w, g)), region(r, r, T, [128, 128]), region(r, k1, rand32(r * k1, g)), region(r, k2, rand32(r * k2, g)),
      region(k1, w, rand32(k1 * w, g)), region(k2, w, rand32(k2 * w, g))];
    await agree('trsolve', { tile: [2, 0], lower: true, unit: false }, ins, r, w);
    // upper with a unit diagonal: T's diagonal tile read above its diagonal only
    const Tu = T.map((_, i) => (i % r > Math.floor(i / r) ? g() / r : i % r === Math.floor(i / r) ? 99 : 0));
    await agree('trsolve', { tile: [0, 0], lower: false, unit: true }, [ins[0]!, region(r, r, Tu), ...ins.slice(2)], r, w);
  }, 60_000);

  it('takes only float32 gemm, syrk and trsolve with an update', () => {
    const f64: Region = { dtype: 'float64', shape: [4, 4], strides: [4, 1], origin: [0, 0], data: new Float64Array(16) };
    expect(gpuTileRoutine(gpu, 'gemm', {}, [f64, f64, f64], f64)).toBeUndefined();
    expect(gpuTileRoutine(gpu, 'potrf', { tile: [0, 0] }, [region(4, 4)], region(4, 4))).toBeUndefined();
    expect(gpuTileRoutine(gpu, 'trsolve', { tile: [0, 0], lower: true, unit: false }, [region(4, 4), region(4, 4)], region(4, 4))).toBeUndefined();
  });
});

describe('tiled float32 linear algebra with device webgpu', () => {
  /** A seeded symmetric positive definite float32 matrix n×n (B Bᵀ/n + I). */
  function spd(n: number, seed: number): number[][] {
    const g = uniform(seed);
    const B = Array.from({ length: n }, () => Array.from({ length: n }, g));
    return B.map((bi, i) => B.map((bj, j) => bi.reduce((s, v, k) => s + v * bj[k]!, 0) / n + (i === j ? 1 : 0)));
  }

  /** The relative residual ‖A − LLᵀ‖_F/‖A‖_F of a factor L (row-major n×n), in float64. */
  const residual = (A: number[][], L: Float32Array) => {
    const n = A.length;
    let num = 0, den = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k <= Math.min(i, j); k++) s += L[i * n + k]! * L[j * n + k]!;
        num += (A[i]![j]! - s) ** 2; den += A[i]![j]! ** 2;
      }
    }
    return Math.sqrt(num / den);
  };

  it('cholesky over 3×3 tiles: the updates on the GPU, the factor as good as wasm\'s', async () => {
    const n = 150, A = spd(n, 11);
    const factor = async (device: 'wasm' | 'webgpu') => {
      mt.options.device = device;
      try {
        return (await mt.linalg.cholesky(mt.tensor(A, { dtype: 'float32', chunkSize: 64 })).fetch()).data as Float32Array;
      } finally {
        mt.options.device = 'wasm';
      }
    };
    const before = { ...tileGpuStats.byName };
    const cpu = await factor('wasm');
    expect(tileGpuStats.byName).toEqual(before);
    const dev = await factor('webgpu');
    // 3 tiles a side: SYRK on diagonal tiles 1 and 2 (1 + 2 calls), GEMM below them (1 call)
    expect(tileGpuStats.byName.syrk! - before.syrk!).toBe(3);
    expect(tileGpuStats.byName.gemm! - before.gemm!).toBe(1);
    expect(residual(A, dev)).toBeLessThanOrEqual(1e-5);
    expect(residual(A, cpu)).toBeLessThanOrEqual(1e-6);
    let diff = 0;
    for (let i = 0; i < n * n; i++) diff = Math.max(diff, Math.abs(dev[i]! - cpu[i]!));
    expect(diff).toBeLessThanOrEqual(1e-4);
    // the strict upper triangle is zero, as wasm's
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(dev[i * n + j]).toBe(0);
  }, 120_000);

  it('not positive definite on webgpu: the CPU\'s LinAlgError naming the tile (its SYRK ran on the GPU)', async () => {
    const A = spd(150, 14);
    A[100]![100] = -1000;
    const before = tileGpuStats.byName.syrk!;
    mt.options.device = 'webgpu';
    try {
      const err = await mt.linalg.cholesky(mt.tensor(A, { dtype: 'float32', chunkSize: 64 })).fetch().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
      expect((err as Error).message).toBe('Matrix is not positive definite (the leading minor of order 101 is not positive, in tile (1, 1))');
      expect(tileGpuStats.byName.syrk! - before).toBeGreaterThanOrEqual(1);
    } finally {
      mt.options.device = 'wasm';
    }
  }, 120_000);

  it('solve_triangular over 3 tiles: the trsolve updates on the GPU, x as wasm\'s', async () => {
    const n = 140, w = 30, g = uniform(12);
    const Tl = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j < i ? g() / n : j === i ? 2 + g() : 0)));
    const B = Array.from({ length: n }, () => Array.from({ length: w }, g));
    const solve = async (device: 'wasm' | 'webgpu') => {
      mt.options.device = device;
      try {
        const f32 = (v: number[][]) => mt.tensor(v, { dtype: 'float32', chunkSize: 64 });
        const x = mt.linalg.solve_triangular(f32(Tl), f32(B), { lower: true });
        return (await x.fetch()).data as Float32Array;
      } finally {
        mt.options.device = 'wasm';
      }
    };
    const before = tileGpuStats.byName.trsolve!;
    const cpu = await solve('wasm');
    expect(tileGpuStats.byName.trsolve).toBe(before);
    const dev = await solve('webgpu');
    // row tiles 1 and 2 have updates (tile 0 has none: on the CPU)
    expect(tileGpuStats.byName.trsolve! - before).toBe(2);
    let diff = 0, scale = 0;
    for (let i = 0; i < n * w; i++) { diff = Math.max(diff, Math.abs(dev[i]! - cpu[i]!)); scale = Math.max(scale, Math.abs(cpu[i]!)); }
    expect(diff).toBeLessThanOrEqual(1e-5 * scale);
  }, 120_000);

  it('cholesky on a mesh whose peers compute on webgpu: the tile updates reported from the GPU', async () => {
    const n = 150, A = spd(n, 13);
    const program = () => mt.linalg.cholesky(mt.tensor(A, { dtype: 'float32', chunkSize: 64 }));
    const cpu = (await program().fetch()).data as Float32Array;
    const net = new SimNet({ seed: 34, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 20_000, random: rng(34) });
    const parts: { close(): void }[] = [coord, cstate];
    for (const id of ['g1', 'g2']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'swiftshader', throughput: 1, memory: 1 << 28, slots: 1 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, device: 'webgpu' }));
    }
    const before = { ...tileGpuStats.byName };
    try {
      await new Promise((r) => setTimeout(r, 150));
      const x = program();
      await coord.run([x.node]);
      const got = (await x.fetch()).data as Float32Array;
      // each update at least once on a GPU (checks re-run some of them on the CPU)
      expect(tileGpuStats.byName.syrk! - before.syrk!).toBeGreaterThanOrEqual(3);
      expect(tileGpuStats.byName.gemm! - before.gemm!).toBeGreaterThanOrEqual(1);
      expect(residual(A, got)).toBeLessThanOrEqual(1e-5);
      let diff = 0;
      for (let i = 0; i < n * n; i++) diff = Math.max(diff, Math.abs(got[i]! - cpu[i]!));
      expect(diff).toBeLessThanOrEqual(1e-4);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 120_000);
});
