// The GPU's part in learn's k-neighbours search (./neighbors.ts): where
// options.device asks for WebGPU ('webgpu', or 'auto' on a hardware GPU)
// and the metric ranks by squared euclidean distance (euclidean,
// sqeuclidean, minkowski with p = 2, cosine on unit rows), the queries and
// the indexed rows are read to the host and searched by runtime/knn_gpu.ts:
// float32 screening on the GPU, an exact float64 re-rank here, so the
// answer is the CPU search's to the bit. Without an adapter, for a shape the
// shader does not take, or when the device is lost, the caller's search
// runs instead.
// In: queries q and indexed rows x (float64 tensors), k, self, the metric's
// kind. Out: the routine's (n_q, 2k) tensor (k distances' images, then k
// indices), or undefined.

import * as mt from '../api/tensor.js';
import { type KnnGpuReport, knnGpu, knnGpuFits } from '../runtime/knn_gpu.js';
import { runtime } from '../runtime/runtime.js';

let last: KnnGpuReport | undefined;

/** What the last search on the GPU did (queries certified and recomputed, times), for tests and benchmarks. */
export const gpuKnnReport = (): KnnGpuReport | undefined => last;

/** The k nearest of each query by the GPU search, or undefined where it does not apply (the CPU search then runs). */
export async function gpuKnn(q: mt.Tensor, x: mt.Tensor, k: number, self: boolean, kind: string): Promise<mt.Tensor | undefined> {
  const device = mt.options.device;
  const [n, d] = x.shape as [number, number];
  if (device === 'wasm' || kind !== 'sqeuclidean' || !knnGpuFits(n, d, k, self)) return undefined;
  try {
    // the rows are read only once a device is there
    const res = await runtime.withGpu(async (gpu) => {
      const xd = (await x.fetch()).data as Float64Array;
      const qd = self ? xd : ((await q.fetch()).data as Float64Array);
      return knnGpu(gpu, qd, xd, d, k, self);
    }, device === 'auto');
    if (!res) return undefined;
    last = res.report;
    return mt.reshape(mt.tensor(res.out), [q.shape[0]!, 2 * k]);
  } catch (e) {
    // a device lost mid-search: the CPU search answers
    if (e instanceof Error && /WebGPU device lost/.test(e.message)) return undefined;
    throw e;
  }
}
