// The float32 tile routines of the tiled factorizations on a GPU: the
// updates that carry their arithmetic (gemm, syrk, trsolve's sum over the
// tiles left of the diagonal) as shaders/tilegemm.wgsl, one dispatch per
// call; POTRF and TRSM stay on the CPU (./tiles.ts: small, latency-bound).
// Each call writes its output region as the CPU routine's `store` does: the
// tile in the top-left, zeros elsewhere. SYRK's strict upper triangle is
// scratch (POTRF reads the lower one): here it keeps A's values, where the
// CPU kernels also update a few entries just above the diagonal.
// Precision: the CPU computes float32 tiles in float64 and rounds once; the
// shader sums in float32, so an entry differs from the CPU's by about
// K·2⁻²⁴·Σ|P||Q| (tests allow 4·K·2⁻²⁴ of that bound; the factor's
// residual ‖A − LLᵀ‖/‖A‖ stays near 1e-6). trsolve's triangular solve runs
// here in float64 on the GPU's float32 update, as the CPU routine's does.
// In: a GpuDevice, a routine's name, parameters and regions (./region.ts).
// Out: the output region written, or undefined for a call the GPU does not take.

import { LinAlgError } from '../graph/linalg.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, regionSpan } from './region.js';
import { trsmLeft } from './tiles.js';
import type { GpuDevice } from './webgpu.js';

/** The routines whose float32 calls the GPU takes. */
export const GPU_TILE_ROUTINES: ReadonlySet<string> = new Set(['gemm', 'syrk', 'trsolve']);

/**
 * Calls run on a GPU since the process started (for tests and reports): their count per routine, flops (2 per
 * multiply-add), and their times summed (upload, dispatch, read-back; calls in flight together overlap).
 */
export const tileGpuStats = { calls: 0, flops: 0, ms: 0, byName: { gemm: 0, syrk: 0, trsolve: 0 } as Record<string, number> };

/** Whether the GPU takes a call of routine `name` writing `dtype` (the caller's placement test, before the regions exist). */
export function gpuTakesTile(name: string, dtype: string): boolean {
  return dtype === 'float32' && GPU_TILE_ROUTINES.has(name);
}

/** A 2-d float32 region's rows: the region's own data when its rows are contiguous, else a dense copy; with the leading dimension. */
function rows32(r: Region): { a: Float32Array; ld: number } {
  const [m, n] = r.shape as [number, number];
  const [s0, s1] = r.strides as [number, number];
  if (r.data instanceof Float32Array && (s1 === 1 || n <= 1) && s0 >= n) return { a: r.data.subarray(0, regionSpan(r.shape, r.strides)), ld: s0 };
  const a = new Float32Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) a[i * n + j] = Number(r.data[i * s0 + j * s1]!);
  return { a, ld: n };
}

/**
 * out (M×N, dense) = C − P Qᵀ (or C − P Q with `nn`) in its top-left r×c,
 * zeros elsewhere; `lower` updates only b <= a. One dispatch of tilegemm.wgsl.
 */
export async function tileUpdate(
  gpu: GpuDevice, out: Float32Array, M: number, N: number, r: number, c: number, K: number,
  C: { a: Float32Array; ld: number }, P: { a: Float32Array; ld: number }, Q: { a: Float32Array; ld: number }, nn: boolean, lower: boolean,
): Promise<void> {
  if (out.length !== M * N || r > M || c > N) throw new Error(`internal: a tile update of [${r}, ${c}] into [${M}, ${N}] got ${out.length} elements`);
  const params = Int32Array.from([r, c, K, M, N, C.ld, P.ld, Q.ld, nn ? 1 : 0, lower ? 1 : 0]);
  // a zero-length binding is invalid: an empty operand binds one element it never reads
  const some = (a: Float32Array) => (a.length ? a : new Float32Array(1));
  await gpu.runShader('tilegemm', params, [{ data: some(C.a) }, { data: some(P.a) }, { data: some(Q.a) }], [out], [Math.ceil(N / 64), Math.ceil(M / 64)]);
}

/**
 * Runs float32 call `name` of ./tiles.ts's TILE_ROUTINES on the GPU, writing
 * `output` as the CPU routine would (up to float32 rounding); undefined,
 * with nothing done, for a call it does not take (another routine or dtype,
 * trsolve with no update, a tile past the adapter's binding size). The
 * caller has checked the call (the routine's `check`). Rejects as
 * GpuDevice does (a lost device; the caller then runs it on the CPU), or
 * with the CPU routine's LinAlgError.
 */
export function gpuTileRoutine(gpu: GpuDevice, name: string, params: RoutineParams, inputs: readonly Region[], output: Region): Promise<void> | undefined {
  if (!gpuTakesTile(name, output.dtype) || inputs.some((r) => r.dtype !== 'float32' || r.shape.length !== 2) || output.shape.length !== 2) return undefined;
  if (name === 'trsolve' && inputs.length <= 2) return undefined;
  const [M, N] = output.shape as [number, number];
  const limit = gpu.info.maxStorageBufferBindingSize / 4;
  const big = (n: number) => n > limit;
  if (big(M * N) || inputs.some((r) => big(r.shape[0]! * r.shape[1]!))) return undefined;
  if (name === 'trsolve' && big(inputs[0]!.shape[0]! * inputs.slice(2).reduce((a, t) => a + t.shape[1]!, 0) / 2)) return undefined;
  return run(gpu, name, params, inputs, output);
}

async function run(gpu: GpuDevice, name: string, params: RoutineParams, inputs: readonly Region[], output: Region): Promise<void> {
  const t0 = performance.now();
  const [M, N] = output.shape as [number, number];
  const [s0, s1] = output.strides as [number, number];
  const direct = output.data instanceof Float32Array && s1 === 1 && s0 === N && name !== 'trsolve';
  const out = direct ? (output.data as Float32Array).subarray(0, M * N) : new Float32Array(M * N);
  const [r, c] = inputs[0]!.shape as [number, number];
  let K: number;
  if (name === 'trsolve') {
    // Σ_k T_ik X_kc as one product: the tiles of T side by side, the tiles of X stacked
    const m = (inputs.length - 2) / 2;
    const Ts = inputs.slice(2, 2 + m), Xs = inputs.slice(2 + m);
    K = Ts.reduce((a, t) => a + t.shape[1]!, 0);
    const P = new Float32Array(r * K), X = new Float32Array(K * c);
    let k0 = 0;
    Ts.forEach((t, i) => {
      const kn = t.shape[1]!, tt = rows32(t), x = rows32(Xs[i]!);
      for (let a = 0; a < r; a++) P.set(tt.a.subarray(a * tt.ld, a * tt.ld + kn), a * K + k0);
      for (let k = 0; k < kn; k++) X.set(x.a.subarray(k * x.ld, k * x.ld + c), (k0 + k) * c);
      k0 += kn;
    });
    await tileUpdate(gpu, out, M, N, r, c, K, rows32(inputs[0]!), { a: P, ld: K }, { a: X, ld: c }, true, false);
    // the triangular solve in float64 on the update, as the CPU routine's
    const T = new Float64Array(r * r), d = inputs[1]!;
    for (let a = 0; a < r; a++) for (let b = 0; b < r; b++) T[a * r + b] = Number(d.data[a * d.strides[0]! + b * d.strides[1]!]!);
    const C = Float64Array.from(out);
    const bad = trsmLeft(T, r, C, c, params.lower === true, params.unit === true);
    if (bad >= 0) throw new LinAlgError(`singular matrix: resolution failed at diagonal ${d.origin[0]! + bad}`);
    out.set(C);
  } else {
    const P = rows32(inputs[1]!), Q = name === 'syrk' ? P : rows32(inputs[2]!);
    K = inputs[1]!.shape[1]!;
    await tileUpdate(gpu, out, M, N, r, c, K, rows32(inputs[0]!), P, Q, false, name === 'syrk');
  }
  if (!direct) {
    const o = output.data as unknown as { [i: number]: number };
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) o[i * s0 + j * s1] = out[i * N + j]!;
  }
  tileGpuStats.calls++;
  tileGpuStats.byName[name] = (tileGpuStats.byName[name] ?? 0) + 1;
  tileGpuStats.flops += 2 * r * c * K / (name === 'syrk' ? 2 : 1);
  tileGpuStats.ms += performance.now() - t0;
}
