#!/usr/bin/env node
// The median by selection (runtime/select.ts) beside NumPy's np.median on the
// same data: stored float64 arrays of 1e7 and 1e8 elements (the hash of the
// position bench/routines.js uses, which both compute exactly), and a lazy
// uniform draw of 1e9 elements that Tessera never stores (NumPy's figure for
// it is at the largest stored size: 1e9 float64s are 8 GB, twice over for
// np.median's copy). Each program runs in a process of its own, so that its
// peak RSS is its own. Prints one JSON line per case, then a table.
//
//   npm run build && node bench/quantile.js [--sizes 1e7,1e8] [--lazy 1e9] [--runs 3] [--workers 2]
//
// Times are the fastest of `runs` after the data is made (one run of the lazy draw); peak RSS is the process's.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NUMPY_DATA, tesseraData } from './position-hash.js';

const args = process.argv.slice(2);
const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };

/** One median in this process (stored data, or a lazy draw): prints {ms, rss, value} as JSON. */
async function child(kind, n, runs, workers) {
  const { mt } = await import('../dist/index.js');
  mt.options.workers = workers;
  const x = kind === 'stored' ? await tesseraData(mt, n) : mt.random.default_rng(1).uniform(0, 1, [n]);
  let best = Infinity, value;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    value = (await mt.median(x).fetch()).item();
    best = Math.min(best, performance.now() - t0);
  }
  const out = { ms: best, rss: process.resourceUsage().maxRSS * 1024, value };
  await mt.shutdown();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function numpy(n, runs) {
  const py = `
import json, resource, time
import numpy as np
n = ${n}
${NUMPY_DATA}
best = float('inf')
for _ in range(${runs}):
    t0 = time.perf_counter()
    v = float(np.median(x))
    best = min(best, time.perf_counter() - t0)
print(json.dumps({'ms': best * 1e3, 'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, 'value': v}))`;
  return JSON.parse(execFileSync('python3', ['-c', py], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

if (args[0] === '--child') {
  await child(args[1], Number(args[2]), Number(args[3]), Number(args[4]));
} else {
  const sizes = flag('sizes', '1e7,1e8').split(',').map(Number);
  const lazy = Number(flag('lazy', '1e9'));
  const runs = Number(flag('runs', '3'));
  const workers = Number(flag('workers', '2'));
  const self = fileURLToPath(import.meta.url);
  const tessera = (kind, n, r) => JSON.parse(execFileSync(process.execPath, [self, '--child', kind, String(n), String(r), String(workers)], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const rows = [];
  for (const n of sizes) {
    // the fastest of `runs` at every size: NumPy's first np.median at 1e8 pays the page faults of its copy (3x its later runs)
    const np = numpy(n, runs), ts = tessera('stored', n, runs);
    rows.push({ case: `median of stored ${n.toExponential(0).replace('+', '')} float64`, workers, numpy_ms: np.ms, tessera_ms: ts.ms, numpy_rss: np.rss, tessera_rss: ts.rss, agree: np.value === ts.value });
    console.log(JSON.stringify(rows[rows.length - 1]));
  }
  if (lazy > 0) {
    const ts = tessera('lazy', lazy, 1);
    rows.push({ case: `median of a lazy ${lazy.toExponential(0).replace('+', '')} uniform draw`, workers, tessera_ms: ts.ms, tessera_rss: ts.rss, value: ts.value });
    console.log(JSON.stringify(rows[rows.length - 1]));
  }
  const s = (ms) => (ms === undefined ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  const mb = (b) => (b === undefined ? '-' : `${(b / 2 ** 20).toFixed(0)} MiB`);
  console.log(`\n| case | NumPy np.median | Tessera (${workers} workers) | NumPy / Tessera time | NumPy peak RSS | Tessera peak RSS |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const ratio = r.numpy_ms === undefined ? '-' : `${(r.numpy_ms / r.tessera_ms).toFixed(2)}×`;
    console.log(`| ${r.case} | ${s(r.numpy_ms)} | ${s(r.tessera_ms)} | ${ratio} | ${mb(r.numpy_rss)} | ${mb(r.tessera_rss)} |`);
  }
}
