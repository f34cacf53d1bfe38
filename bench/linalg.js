#!/usr/bin/env node
// Tiled linear algebra beside NumPy (issue 34's benchmark, local pool part):
// Tessera's own float64 GEMM rate, the tiled Cholesky (a routine DAG of
// POTRF/TRSM/SYRK/GEMM tiles), the tiled LU with tournament pivoting (np.linalg.solve
// beside SciPy's lu_factor + lu_solve), the square QR over tiles (PLASMA's tile QR:
// qrsqr R alone, qrsq Q and R), and the tall-skinny QR and SVD by TSQR, each
// timed in a fresh process per system and case, NumPy through
// /usr/bin/python3 with OpenBLAS on as many threads as Tessera's workers.
// Each side builds its own inputs (a factorization's time does not depend on
// the values) and runs one warm-up, then --runs timed runs (the median is
// kept). Cholesky and QR are GEMM-bound: the target is that they reach at
// least 70% of Tessera's GEMM rate in the same run. Tessera's side also
// reports its CPU seconds (all threads), and the JSON the same ratio per CPU
// second (of_tessera_gemm_cpu), which a busy machine does not skew.
//
//   npm run build && node bench/linalg.js [--quick] [--huge] [--runs 3] [--huge-runs 1] [--workers 2]
//                                         [--only gemm,cholesky,lu,qrsqr,qrsq,qr,svd]
//   npm run bench -- --only linalg
//
// Sizes: square n = 4096 (--quick 2048, --huge also 8192, timed --huge-runs times) in 512-tiles
// (256 with --quick); tall-skinny 262,144 x 64 in chunks of 16,384 rows.
// Output: one JSON line per cell, then a Markdown table; bench/results/linalg.{json,md}.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const argv = process.argv.slice(2);
const has = (f) => argv.includes(f);
const opt = (f, d) => { const i = argv.indexOf(f); return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : d; };
const runs = Number(opt('--runs', 3)), workers = Number(opt('--workers', 2));
/** Timed runs of an 8192-square case (a minute or more each): --huge-runs, 1 by default. */
const hugeRuns = Number(opt('--huge-runs', 1));

/** The cases: id, size, flops of one run. */
function cases() {
  const quick = has('--quick');
  const squares = quick ? [2048] : has('--huge') ? [4096, 8192] : [4096];
  const tile = quick ? 256 : 512;
  const [m, n, rows] = quick ? [65536, 64, 8192] : [262144, 64, 16384];
  const out = [];
  for (const N of squares) {
    const at = out.length;
    out.push({ id: 'gemm', what: `C = A @ B, ${N} x ${N} (${tile}-tiles)`, n: N, tile, flops: 2 * N ** 3 });
    out.push({ id: 'cholesky', what: `cholesky(A), ${N} x ${N} (${tile}-tiles)`, n: N, tile, flops: N ** 3 / 3 });
    out.push({ id: 'lu', what: `solve(A, b) by LU, ${N} x ${N} (${tile}-tiles)`, n: N, tile, flops: 2 * N ** 3 / 3 });
    // the tiled QR: R alone (4n³/3, LAPACK's geqrf) and Q with R (8n³/3: geqrf, then orgqr's 4n³/3 to form Q)
    out.push({ id: 'qrsqr', what: `qr(A, mode='r'), ${N} x ${N} (${tile}-tiles; 4n³/3 flops)`, n: N, tile, flops: 4 * N ** 3 / 3 });
    out.push({ id: 'qrsq', what: `qr(A) reduced, Q and R, ${N} x ${N} (${tile}-tiles; 8n³/3 flops)`, n: N, tile, flops: 8 * N ** 3 / 3 });
    if (N > 4096) for (const c of out.slice(at)) c.runs = hugeRuns;
  }
  out.push({ id: 'qr', what: `qr(A) reduced, ${m} x ${n} (chunks of ${rows} rows)`, m, n, rows, flops: 2 * m * n * n });
  out.push({ id: 'svd', what: `svd(A, full_matrices=False), ${m} x ${n} (chunks of ${rows} rows)`, m, n, rows, flops: 2 * m * n * n });
  const only = opt('--only', null)?.split(',');
  return out.filter((c) => !only || only.includes(c.id));
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

// ---------------------------------------------------------------------------
// One case in this process (--child): Tessera.

async function child(c) {
  const { mt } = await import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);
  mt.options.workers = workers;
  let make, check;
  if (c.id === 'lu') {
    // the tiled LU with tournament pivoting, then the two triangular solves (a one-column b)
    const rng = mt.random.default_rng(1);
    const A = await rng.uniform(-1, 1, [c.n, c.n], { chunkSize: c.tile }).execute();
    const b = await rng.uniform(-1, 1, [c.n, 1], { chunkSize: [c.tile, 1] }).execute();
    make = () => [mt.linalg.solve(A, b)];
    check = async ([x]) => Number(await mt.divide(mt.linalg.norm(mt.subtract(mt.matmul(A, x), b)), mt.multiply(mt.linalg.norm(A), mt.linalg.norm(x))).item());
  } else if (c.id === 'qrsq' || c.id === 'qrsqr') {
    const A = await mt.random.default_rng(1).uniform(-1, 1, [c.n, c.n], { chunkSize: c.tile }).execute();
    make = () => (c.id === 'qrsqr' ? [mt.linalg.qr(A, { mode: 'r' })] : mt.linalg.qr(A));
    if (c.id === 'qrsq') check = async ([Q, R]) => Number(await mt.divide(mt.linalg.norm(mt.subtract(A, mt.matmul(Q, R))), mt.linalg.norm(A)).item());
  } else if (c.id === 'gemm' || c.id === 'cholesky') {
    const rng = mt.random.default_rng(1);
    const G = rng.uniform(-1, 1, [c.n, c.n], { chunkSize: c.tile });
    const A = await (c.id === 'gemm' ? G : mt.add(mt.divide(mt.matmul(G, G.T), c.n), mt.eye(c.n, { chunkSize: c.tile }))).execute();
    if (c.id === 'gemm') {
      const B = await rng.uniform(-1, 1, [c.n, c.n], { chunkSize: c.tile }).execute();
      make = () => [mt.matmul(A, B)];
    } else {
      make = () => [mt.linalg.cholesky(A)];
      check = async ([L]) => Number(await mt.divide(mt.linalg.norm(mt.subtract(A, mt.matmul(L, L.T))), mt.linalg.norm(A)).item());
    }
  } else {
    const A = await mt.random.default_rng(2).normal(0, 1, [c.m, c.n], { chunkSize: [c.rows, c.n] }).execute();
    make = () => (c.id === 'qr' ? mt.linalg.qr(A) : mt.linalg.svd(A, { full_matrices: false }));
    check = async (r) => {
      const back = c.id === 'qr' ? mt.matmul(r[0], r[1]) : mt.matmul(mt.multiply(r[0], r[1]), r[2]);
      return Number(await mt.divide(mt.linalg.norm(mt.subtract(A, back)), mt.linalg.norm(A)).item());
    };
  }
  const times = [], cpus = [];
  let last;
  for (let r = 0; r <= (c.runs ?? runs); r++) {
    const outs = make();
    const t0 = performance.now(), c0 = process.cpuUsage();
    await mt.execute(...outs);
    const c = process.cpuUsage(c0);
    if (r > 0) { times.push((performance.now() - t0) / 1000); cpus.push((c.user + c.system) / 1e6); }
    last = outs;
  }
  const residual = check ? await check(last) : null;
  process.stdout.write(JSON.stringify({ s: median(times), cpu_s: median(cpus), residual, rss_mib: Math.round(process.resourceUsage().maxRSS / 1024) }) + '\n');
  await mt.shutdown();
}

const NUMPY = String.raw`
import json, sys, time, resource
import numpy as np
c = json.loads(sys.argv[1]); runs = int(sys.argv[2])
rng = np.random.default_rng(1)
if c['id'] == 'lu':
    import scipy.linalg as sl
    n = c['n']; a = rng.uniform(-1, 1, (n, n)); b = rng.uniform(-1, 1, (n, 1))
    f = lambda: sl.lu_solve(sl.lu_factor(a), b)
elif c['id'] in ('qrsq', 'qrsqr'):
    a = rng.uniform(-1, 1, (c['n'], c['n'])); f = (lambda: np.linalg.qr(a, mode='r')) if c['id'] == 'qrsqr' else (lambda: np.linalg.qr(a))
elif c['id'] in ('gemm', 'cholesky'):
    n = c['n']; g = rng.uniform(-1, 1, (n, n))
    if c['id'] == 'gemm':
        b = rng.uniform(-1, 1, (n, n)); f = lambda: g @ b
    else:
        a = g @ g.T / n + np.eye(n); f = lambda: np.linalg.cholesky(a)
else:
    a = rng.normal(0, 1, (c['m'], c['n']))
    f = (lambda: np.linalg.qr(a)) if c['id'] == 'qr' else (lambda: np.linalg.svd(a, full_matrices=False))
f()
ts = []
for _ in range(runs):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
ts.sort()
print(json.dumps({'s': ts[len(ts) // 2], 'residual': None, 'rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
`;

function side(system, c) {
  const env = { ...process.env, OPENBLAS_NUM_THREADS: String(workers), OMP_NUM_THREADS: String(workers) };
  const r = system === 'numpy'
    ? spawnSync('/usr/bin/python3', ['-c', NUMPY, JSON.stringify(c), String(c.runs ?? runs)], { encoding: 'utf8', env, timeout: 1800_000 })
    : spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(c), ...argv], { encoding: 'utf8', env, timeout: 1800_000 });
  const line = (r.stdout || '').trim().split('\n').pop();
  try { return JSON.parse(line); } catch { return { error: (r.stderr || r.stdout || 'no output').trim().split('\n').slice(-3).join(' | ') }; }
}

if (has('--child')) {
  await child(JSON.parse(argv[argv.indexOf('--child') + 1]));
} else {
  const rows = [];
  let gemmRate = null, gemmCpuRate = null;
  for (const c of cases()) {
    const cell = { case: c.id, what: c.what };
    for (const system of ['numpy', 'tessera']) {
      const r = side(system, c);
      cell[system] = r;
      if (r.s) r.gflops = +(c.flops / r.s / 1e9).toFixed(2);
      if (r.cpu_s) r.gflops_per_cpu_s = +(c.flops / r.cpu_s / 1e9).toFixed(2);
    }
    if (c.id === 'gemm' && cell.tessera.gflops) [gemmRate, gemmCpuRate] = [cell.tessera.gflops, cell.tessera.gflops_per_cpu_s];
    if (c.id !== 'gemm' && gemmRate && cell.tessera.gflops) cell.of_tessera_gemm = +(cell.tessera.gflops / gemmRate).toFixed(2);
    // the same ratio per second of CPU time (all threads): what the kernels and the runtime cost, whatever else loads the machine
    if (c.id !== 'gemm' && gemmCpuRate && cell.tessera.gflops_per_cpu_s) cell.of_tessera_gemm_cpu = +(cell.tessera.gflops_per_cpu_s / gemmCpuRate).toFixed(2);
    process.stdout.write(JSON.stringify(cell) + '\n');
    rows.push(cell);
  }
  const f = (r) => (r?.s ? `${r.s.toFixed(3)} s (${r.gflops} GFLOP/s)` : r?.error ? `error: ${r.error}` : '—');
  const md = [
    `| case | NumPy (OpenBLAS, ${workers} threads) | Tessera (${workers} workers) | Tessera / NumPy | Tessera's rate / its GEMM's | residual | peak RSS (NumPy, Tessera) |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.what} | ${f(r.numpy)} | ${f(r.tessera)} | ${r.numpy?.s && r.tessera?.s ? (r.tessera.s / r.numpy.s).toFixed(2) + '×' : '—'} | ${r.of_tessera_gemm ?? '—'} | ${r.tessera?.residual?.toExponential(1) ?? '—'} | ${r.numpy?.rss_mib ?? '?'} / ${r.tessera?.rss_mib ?? '?'} MiB |`),
  ].join('\n');
  process.stdout.write('\n' + md + '\n');
  mkdirSync(path.join(HERE, 'results'), { recursive: true });
  writeFileSync(path.join(HERE, 'results', 'linalg.json'), JSON.stringify(rows, null, 1));
  writeFileSync(path.join(HERE, 'results', 'linalg.md'), md + '\n');
}
