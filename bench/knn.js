#!/usr/bin/env node
// Issue 33's k-nearest-neighbours target: n × 10 uniform float64 rows,
// NearestNeighbors({n_neighbors: 10}).fit(X).kneighbors(X) (every row a
// query, itself its first neighbour), timed on Tessera and, with --sklearn,
// on scikit-learn's brute force with n_jobs=-1 over the same rows, run just
// after (the machine may be shared: compare the two, not absolute times);
// --sklearn also checks that both give the same neighbours and distances.
// --device webgpu runs Tessera's search on the GPU (float32 screening, exact
// float64 re-rank: runtime/knn_gpu.ts); opening the adapter and compiling
// the shader happen first, on a small search, and are timed apart
// (open_seconds); the line also tells the adapter and how many queries the
// certificate accepted (the rest were searched again on the CPU).
//
//   npm run build && node bench/knn.js [--n 200000] [--sklearn] [--device webgpu]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as mt from '../dist/api/tensor.js';
import * as learn from '../dist/learn/index.js';
import { gpuKnnReport } from '../dist/learn/neighbors_gpu.js';
import { runtime } from '../dist/runtime/runtime.js';

const args = process.argv.slice(2);
const at = args.indexOf('--n');
const n = at >= 0 ? Number(args[at + 1]) : 200000, d = 10, k = 10;
const dev = args.indexOf('--device');
const device = dev >= 0 ? args[dev + 1] : 'wasm';

const rng = mt.random.default_rng(0);
const x = rng.random([n, d]);
await x.execute();
let gpu = {};
if (device !== 'wasm') {
  mt.options.device = device;
  const t = performance.now();
  const small = rng.random([1000, d]);
  await (await new learn.neighbors.NearestNeighbors({ n_neighbors: k }).fit(small)).kneighbors(small);
  const adapter = await runtime.withGpu(async (g) => g.info.adapter);
  gpu = { device, adapter: adapter ?? 'none (the CPU search ran)', open_seconds: +((performance.now() - t) / 1000).toFixed(2) };
}
const t0 = performance.now();
const nn = await new learn.neighbors.NearestNeighbors({ n_neighbors: k }).fit(x);
const [dist, ind] = await nn.kneighbors(x);
const seconds = (performance.now() - t0) / 1000;
const report = device !== 'wasm' ? gpuKnnReport() : undefined;
if (report) {
  const ms = (v) => +v.toFixed(1);
  gpu = { ...gpu, certified: report.certified, recomputed: report.recomputed, reranked_per_query: +(report.reranked / report.queries).toFixed(2),
    prepare_ms: ms(report.prepareMs), gpu_ms: ms(report.gpuMs), rerank_ms: ms(report.rerankMs), exact_ms: ms(report.exactMs) };
}
console.log(JSON.stringify({ system: 'tessera', n, d, k, seconds: +seconds.toFixed(2), ...gpu }));

if (args.includes('--sklearn')) {
  const dir = mkdtempSync(join(tmpdir(), 'knn-'));
  const [xs, ds, is] = await Promise.all([x.fetch(), dist.fetch(), ind.fetch()]);
  writeFileSync(join(dir, 'x.bin'), Buffer.from(xs.data.buffer, xs.data.byteOffset, xs.data.byteLength));
  const py = `
import sys, time, json, numpy as np
from sklearn.neighbors import NearestNeighbors
X = np.fromfile(sys.argv[1]).reshape(${n}, ${d})
t = time.time(); D, I = NearestNeighbors(n_neighbors=${k}, algorithm='brute', n_jobs=-1).fit(X).kneighbors(X); s = time.time() - t
I.astype('<i8').tofile(sys.argv[2]); D.tofile(sys.argv[3])
print(json.dumps({'system': 'sklearn brute', 'n': ${n}, 'd': ${d}, 'k': ${k}, 'seconds': round(s, 2)}))`;
  console.log(execFileSync('/usr/bin/python3', ['-c', py, join(dir, 'x.bin'), join(dir, 'i.bin'), join(dir, 'd.bin')], { encoding: 'utf8' }).trim());
  const si = new BigInt64Array(readFileSync(join(dir, 'i.bin')).buffer.slice(0)), sd = new Float64Array(readFileSync(join(dir, 'd.bin')).buffer.slice(0));
  let rows = 0, worst = 0;
  for (let r = 0; r < n; r++) {
    let differ = false;
    for (let j = 0; j < k; j++) {
      // a different index at an equal distance (a tie) is no difference
      const a = r * k + j;
      if (is.data[a] !== si[a] && Math.abs(ds.data[a] - sd[a]) > 1e-12 * Math.max(1, sd[a])) differ = true;
      worst = Math.max(worst, Math.abs(ds.data[a] - sd[a]));
    }
    if (differ) rows++;
  }
  console.log(JSON.stringify({ rows_with_other_neighbours: rows, max_distance_difference: worst }));
  rmSync(dir, { recursive: true });
}
await mt.shutdown();
