#!/usr/bin/env node
// The chunked sort (routine tasks on the worker pool: runtime/resolve.ts
// `sortInChunks`) beside NumPy, on the same data: np.sort (its default kind,
// and kind='stable', whose bits Tessera gives) and np.argsort(kind='stable')
// of float64 arrays at 1e7 and 1e8 elements. Each program runs
// in a process of its own (this script again with --child, or python3), so
// that its peak RSS (process.resourceUsage().maxRSS, resource.getrusage) is
// its own: the data, the sort and its result. The data is a hash of the
// position that both compute exactly (two multiply-xorshift rounds mod 2^32,
// over 2^32), and both print the first and last sorted values and positions,
// which must agree. Prints one JSON line per result, then a table.
//
//   npm run build && node bench/routines.js [--sizes 1e7,1e8] [--runs 3] [--workers 2]
//
// The time is the fastest of `runs` (one run at 1e8) after the data is made;
// the peak RSS is that of a process making the data and running the program once.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NUMPY_DATA, tesseraData } from './position-hash.js';

const args = process.argv.slice(2);
const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };

/** One program in this process: prints {ms, rss, head, tail} as JSON. */
async function child(op, n, runs, workers) {
  const { mt } = await import('../dist/index.js');
  mt.options.workers = workers;
  const x = await tesseraData(mt, n);
  let best = Infinity, y;
  for (let r = 0; r < runs; r++) {
    y = undefined; // the last result goes before the next run makes its own
    const t0 = performance.now();
    y = op === 'sort' ? mt.sort(x) : mt.argsort(x, { kind: 'stable' });
    await y.execute();
    best = Math.min(best, performance.now() - t0);
  }
  const ends = async (t) => [...(await t.get(mt.slice(0, 3)).fetch()).data, ...(await t.get(mt.slice(n - 3, n)).fetch()).data].map(Number);
  const out = { ms: best, rss: process.resourceUsage().maxRSS * 1024, ends: await ends(y) };
  await mt.shutdown();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** NumPy's time for `call` (the fastest of `runs`), its peak RSS, and the ends of its result. */
function numpy(call, n, runs) {
  const py = `
import json, resource, time
import numpy as np
n = ${n}
${NUMPY_DATA}
best = float('inf')
for _ in range(${runs}):
    y = None
    t0 = time.perf_counter()
    y = ${call}
    best = min(best, time.perf_counter() - t0)
ends = [float(v) for v in list(y[:3]) + list(y[-3:])]
print(json.dumps({'ms': best * 1e3, 'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, 'ends': ends}))`;
  return JSON.parse(execFileSync('python3', ['-c', py], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

if (args[0] === '--child') {
  await child(args[1], Number(args[2]), Number(args[3]), Number(args[4]));
} else {
  const sizes = flag('sizes', '1e7,1e8').split(',').map(Number);
  const runs = Number(flag('runs', '3'));
  const workers = Number(flag('workers', '2'));
  const self = fileURLToPath(import.meta.url);
  const rows = [];
  for (const n of sizes) {
    for (const op of ['sort', 'argsort']) {
      const r = n >= 1e8 ? 1 : runs;
      // what a user writes: np.sort(x) (introsort, vectorised where the CPU allows; its values are the stable sort's but
      // for the order of -0 and 0) and np.argsort(x, kind='stable'), as issue 31 measures; np.sort's stable kind beside it
      // peak RSS from a process of one run: a collector frees a run's result later than NumPy's reference count does
      const call = op === 'sort' ? 'np.sort(x)' : "np.argsort(x, kind='stable')";
      const np = { ...numpy(call, n, r), ...(r > 1 ? { rss: numpy(call, n, 1).rss } : {}) };
      const npStable = op === 'sort' ? numpy("np.sort(x, kind='stable')", n, r) : np;
      const tessera = (runs) => JSON.parse(execFileSync(process.execPath, [self, '--child', op, String(n), String(runs), String(workers)], { encoding: 'utf8', maxBuffer: 1 << 20 }));
      const ts = { ...tessera(r), ...(r > 1 ? { rss: tessera(1).rss } : {}) };
      const agree = JSON.stringify(npStable.ends) === JSON.stringify(ts.ends);
      const row = { case: `${op} ${n.toExponential(0).replace('+', '')} float64${op === 'argsort' ? ' (stable)' : ''}`, n, workers, numpy_ms: np.ms, numpy_stable_ms: npStable.ms, tessera_ms: ts.ms, numpy_rss: np.rss, tessera_rss: ts.rss, agree };
      rows.push(row);
      console.log(JSON.stringify(row));
      if (!agree) console.error(`results differ: NumPy ${np.ends}, Tessera ${ts.ends}`);
    }
  }
  const s = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  const mb = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  console.log(`\n| case | NumPy | NumPy kind='stable' | Tessera (${workers} workers) | Tessera vs NumPy | NumPy peak RSS | Tessera peak RSS | RSS ratio |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(`| ${r.case} | ${s(r.numpy_ms)} | ${s(r.numpy_stable_ms)} | ${s(r.tessera_ms)} | ${(r.numpy_ms / r.tessera_ms).toFixed(2)}× | ${mb(r.numpy_rss)} | ${mb(r.tessera_rss)} | ${(r.tessera_rss / r.numpy_rss).toFixed(1)}× |`);
  }
}
