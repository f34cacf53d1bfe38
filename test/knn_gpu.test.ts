// learn's k-neighbours search on WebGPU (runtime/knn_gpu.ts: float32
// screening in shaders/knn.wgsl, exact float64 re-rank and certificate on
// the host) against the CPU search: on seeded random data (d = 3, 10, 50),
// with duplicate rows and with ties (integer grids), with and without X,
// the same indices and the same distances bit for bit; the queries the
// certificate refuses are searched again exactly, and the report says how
// many; where most fail, the CPU search answers instead; a search in many
// dispatches against the CPU search directly; the certificate's bound
// against float32 sums emulated here. Then scikit-learn's fixtures
// (test/fixtures/learn.json) with device 'webgpu'. With no GPU here, the
// adapter is SwiftShader's (slow: small data).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as mt from '../src/api/tensor.js';
import * as learn from '../src/learn/index.js';
import { gpuKnnReport } from '../src/learn/neighbors_gpu.js';
import { knnGpu, lowerBound } from '../src/runtime/knn_gpu.js';
import { knnRows } from '../src/runtime/neighbors.js';
import { GpuDevice } from '../src/runtime/webgpu.js';

const F = JSON.parse(readFileSync(new URL('./fixtures/learn.json', import.meta.url), 'utf8'));

beforeAll(async () => {
  const d = await GpuDevice.open();
  if (!d) throw new Error('no WebGPU adapter: `npm test` installs chromium (SwiftShader) and libvulkan1; run `npm run setup` as root');
  d.destroy();
}, 60_000);
afterAll(() => { mt.options.device = 'wasm'; return mt.shutdown(); });

/** A seeded stream of uniform draws (xorshift). */
const uniform = (seed: number) => () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};
const matrix = (n: number, d: number, f: (i: number, j: number) => number): Float64Array => {
  const a = new Float64Array(n * d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) a[i * d + j] = f(i, j);
  return a;
};
/** Rows of `a` (n × d) as a float64 tensor over chunks of `chunk` rows. */
const T = (a: Float64Array, d: number, chunk: number): mt.Tensor =>
  mt.tensor(Array.from({ length: a.length / d }, (_, i) => Array.from(a.subarray(i * d, i * d + d))), { chunkSize: chunk });

/** kneighbors on `device`: [distances, indices] as flat arrays. */
async function search(device: 'wasm' | 'webgpu', X: mt.Tensor, Q: mt.Tensor | null, k: number, metric = 'euclidean'): Promise<[number[], number[]]> {
  mt.options.device = device;
  try {
    const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: k, metric: metric as 'euclidean' }).fit(X);
    const [d, i] = await m.kneighbors(Q);
    return [Array.from((await d!.fetch()).data as Float64Array), Array.from((await i!.fetch()).data as BigInt64Array, Number)];
  } finally {
    mt.options.device = 'wasm';
  }
}

/** The GPU search and the CPU search agree exactly; returns the GPU's report. */
async function agree(X: mt.Tensor, Q: mt.Tensor | null, k: number, metric = 'euclidean') {
  const before = gpuKnnReport();
  const [gd, gi] = await search('webgpu', X, Q, k, metric);
  const report = gpuKnnReport();
  expect(report, 'the search ran on the GPU').not.toBe(before);
  expect(report!.queries).toBe((Q ?? X).shape[0]);
  const [cd, ci] = await search('wasm', X, Q, k, metric);
  expect(gi).toEqual(ci);
  expect(gd).toEqual(cd);
  return report!;
}

describe('learn.neighbors on WebGPU: the CPU search to the bit', () => {
  it('2,000 x 10 uniform rows, k = 10, with and without X', async () => {
    const r = uniform(11);
    const X = T(matrix(2000, 10, () => r()), 10, 700), Q = T(matrix(500, 10, () => r() * 1.2 - 0.1), 10, 200);
    const self = await agree(X, null, 10);
    const other = await agree(X, Q, 10, 'sqeuclidean');
    // random rows leave no near-ties across a margin of 16: every query certified from the GPU's candidates
    expect(self.certified).toBe(2000);
    expect(other.certified).toBe(500);
  }, 120_000);

  it('d = 3 and d = 50', async () => {
    const r = uniform(5);
    await agree(T(matrix(2000, 3, () => r() * 100 - 50), 3, 2000), null, 7);
    const report = await agree(T(matrix(1200, 50, () => r()), 50, 500), T(matrix(300, 50, () => r()), 50, 300), 10);
    expect(report.certified).toBe(300);
  }, 120_000);

  it('duplicate rows: queries whose ties outrun the margin are searched again exactly', async () => {
    const r = uniform(3);
    // 1,800 distinct rows, then 10 of them 30 times more, then 30 of them twice more: with k = 10 and a margin of 16,
    // a row of 30 copies has its K-th candidate at distance 0 too, which no certificate accepts
    const base = matrix(1800, 10, () => r());
    const X = new Float64Array(2160 * 10);
    X.set(base);
    for (let i = 0; i < 300; i++) X.set(base.subarray((i % 10) * 10, (i % 10) * 10 + 10), (1800 + i) * 10);
    for (let i = 0; i < 60; i++) X.set(base.subarray((100 + (i % 30)) * 10, (100 + (i % 30)) * 10 + 10), (2100 + i) * 10);
    const report = await agree(T(X, 10, 1000), null, 10);
    // the 310 rows of 31 copies, and rows whose neighbours are among them (31 rows at one distance)
    expect(report.recomputed).toBeGreaterThanOrEqual(310);
    expect(report.certified).toBeGreaterThan(1500);
  }, 120_000);

  it('rows all in groups of 40 copies: every certificate fails, and the CPU search answers', async () => {
    const r = uniform(13);
    const base = matrix(50, 4, () => r());
    const X = matrix(2000, 4, (i, j) => base[(i % 50) * 4 + j]!);
    const before = gpuKnnReport();
    const [gd, gi] = await search('webgpu', T(X, 4, 700), null, 8);
    expect(gpuKnnReport()).toBe(before);
    const [cd, ci] = await search('wasm', T(X, 4, 700), null, 8);
    expect(gi).toEqual(ci);
    expect(gd).toEqual(cd);
  }, 120_000);

  it('ties: integer grid rows (many equal distances), euclidean', async () => {
    const r = uniform(9);
    const X = matrix(1500, 3, () => Math.floor(r() * 12)), Q = matrix(200, 3, () => Math.floor(r() * 12) + 0.5);
    const report = await agree(T(X, 3, 500), T(Q, 3, 200), 5);
    // equal distances spanning the margin: some queries are searched again (14 of these 200)
    expect(report.certified + report.recomputed).toBe(200);
    expect(report.recomputed).toBeGreaterThan(0);
  }, 120_000);

  it('many dispatches (each running while the one before is re-ranked) answer as the CPU search', async () => {
    const r = uniform(17);
    const x = matrix(1500, 10, () => r()), q = matrix(700, 10, () => r());
    const gpu = (await GpuDevice.open())!;
    try {
      const self = (await knnGpu(gpu, x, x, 10, 10, true, 256))!;
      expect(Array.from(self.out)).toEqual(Array.from(knnRows(x, x, 10, 10, Float64Array.from({ length: 1500 }, (_, i) => i))));
      const other = (await knnGpu(gpu, q, x, 10, 6, false, 100))!;
      expect(Array.from(other.out)).toEqual(Array.from(knnRows(q, x, 10, 6, null)));
      expect(other.report.certified).toBe(700);
    } finally {
      gpu.destroy();
    }
  }, 120_000);

  it('the bound: a row just past the K-th float32 distance is never below it', () => {
    // float32 distances of random rows, against the float64 sums of the same rows: L(τ) never exceeds a row whose
    // float32 distance is at least τ (the certificate's premise), over many pairs and scales
    const r = uniform(21);
    for (const [d, scale] of [[3, 1], [10, 1e-3], [50, 1e6], [10, 1e-30]] as const) {
      for (let c = 0; c < 2000; c++) {
        const q = Array.from({ length: d }, () => (r() - 0.5) * scale), x = q.map((v) => v + (r() - 0.5) * scale * 10 ** -(c % 8));
        let s32 = 0, s64 = 0;
        for (let f = 0; f < d; f++) {
          const t32 = Math.fround(Math.fround(q[f]!) - Math.fround(x[f]!));
          s32 = Math.fround(s32 + Math.fround(t32 * t32));
          const t = q[f]! - x[f]!;
          s64 += t * t;
        }
        const qn = Math.hypot(...q), xn = Math.hypot(...x);
        expect(lowerBound(s32, qn, xn, d)).toBeLessThanOrEqual(s64);
      }
    }
  });
});

describe('learn.neighbors on WebGPU: scikit-learn fixtures', () => {
  const N = F.neighbors;
  const X = (v: number[][], c?: number) => mt.tensor(v, c ? { chunkSize: c } : {});
  it.each(N.nn.map((c: { metric: string }) => [c.metric, c]))('NearestNeighbors %s', async (_n, c) => {
    mt.options.device = 'webgpu';
    try {
      const before = gpuKnnReport();
      const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: 5, metric: c.metric, ...c.opts }).fit(X(N.X, 40));
      const [d, i] = await m.kneighbors(X(N.Q));
      expect(await i!.tolist()).toEqual(c.ind);
      const [ds, is] = await m.kneighbors();
      expect(await is!.tolist()).toEqual(c.self_ind);
      for (const [got, want] of [[await d!.tolist(), c.dist], [await ds!.tolist(), c.self_dist]] as [number[][], number[][]][]) {
        got.flat().forEach((g, j) => expect(Math.abs(g - want.flat()[j]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want.flat()[j]!))));
      }
      // the metrics that rank by squared euclidean distance ran on the GPU, the others on the CPU
      expect(gpuKnnReport() !== before).toBe(c.metric === 'euclidean' || c.metric === 'cosine');
    } finally {
      mt.options.device = 'wasm';
    }
  }, 60_000);
});
