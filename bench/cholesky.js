#!/usr/bin/env node
// Tiled Cholesky (np.linalg.cholesky over more than one chunk: a routine DAG of
// POTRF/TRSM tiles, src/api/linalg_tiled.ts) beside NumPy's LAPACK (OpenBLAS with
// as many threads as Tessera's workers), each on an SPD matrix A = G Gᵀ/n + I with
// G uniform in [-1, 1) (its own generator each side: a Cholesky's time does not
// depend on the values). Prints seconds, GFLOP/s (n³/3 flops) and
// Tessera's residual ‖A − L Lᵀ‖_F / ‖A‖_F. One warm-up, then the fastest of --runs.
//   npm run build && node bench/cholesky.js [--n 2048] [--tile 256] [--runs 2] [--workers 2]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, d) => { const i = process.argv.indexOf(`--${name}`); return i < 0 ? d : Number(process.argv[i + 1]); };
const n = arg('n', 2048), tile = arg('tile', 256), runs = arg('runs', 2), workers = arg('workers', 2);

const { mt } = await import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);
mt.options.workers = workers;
// G from a seeded LCG, then A = G Gᵀ/n + I in Tessera's GEMM: executed before the timing
const g = new Float64Array(n * n);
let s = 12345;
for (let i = 0; i < g.length; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; g[i] = s / 2 ** 31 - 1; }
const G = mt.tensor(Array.from({ length: n }, (_, i) => Array.from(g.subarray(i * n, (i + 1) * n))), { chunkSize: tile });
const A = mt.add(mt.divide(mt.matmul(G, G.T), n), mt.eye(n, { chunkSize: tile }));
await A.execute();
if (A.node.chunk.some((c) => c !== tile)) throw new Error(`A is chunked ${A.node.chunk}, not ${tile}`);
let best = Infinity, L;
for (let r = 0; r <= runs; r++) {
  L = mt.linalg.cholesky(A);
  const t0 = performance.now();
  await L.execute();
  const dt = (performance.now() - t0) / 1000;
  if (r > 0) best = Math.min(best, dt);
}
const res = (await mt.divide(mt.linalg.norm(mt.subtract(A, mt.matmul(L, L.T))), mt.linalg.norm(A)).fetch()).item();
const gflops = (x) => (n ** 3 / 3 / x / 1e9).toFixed(2);
console.log(`tessera  n=${n} tile=${tile} workers=${workers}: ${best.toFixed(3)} s, ${gflops(best)} GFLOP/s, residual ${res.toExponential(2)}`);
mt.shutdown();

const py = `
import time, numpy as np
n=${n}
rng=np.random.default_rng(0); g=rng.uniform(-1,1,(n,n))
a=g@g.T/n+np.eye(n)
np.linalg.cholesky(a)
best=min((lambda t0: (np.linalg.cholesky(a), time.perf_counter()-t0)[1])(time.perf_counter()) for _ in range(${runs}))
print(f"numpy    n={n}: {best:.3f} s, {n**3/3/best/1e9:.2f} GFLOP/s")
`;
const out = spawnSync('/usr/bin/python3', ['-c', py], { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: String(workers) } });
process.stdout.write(out.stdout || out.stderr);
