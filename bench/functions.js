#!/usr/bin/env node
// Sorting, searching and counting functions at a million elements, Tessera
// (dist/, local executor) beside NumPy (python3) on the same kinds of input:
// the functions whose first forms compared every pair (searchsorted, isin,
// bincount, histograms) or sorted with a JS comparator. Prints one JSON line
// per function, then a table; the time is the median of 5 runs after a warm-up.
//
//   npm run build && node bench/functions.js

import { execFileSync } from 'node:child_process';
import * as mt from '../dist/api/tensor.js';

const RUNS = 5;
const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];

mt.random.seed(0);
const x = await mt.random.random([1e6]).execute();
const y = await mt.random.random([1e6]).execute();
const a = await mt.random.randint(0, 100000, [1e6]).execute();
const b = await mt.random.randint(0, 100000, [1e4]).execute();
const k = await mt.random.randint(0, 10000, [1e6]).execute();
const s = await mt.sort(mt.random.random([1e6])).execute();
const q = await mt.random.random([1e5]).execute();
const xp = await mt.sort(mt.random.random([1000])).execute();
const fp = await mt.random.random([1000]).execute();

const CASES = [
  ['searchsorted 1e5 keys in 1e6', () => mt.searchsorted(s, q), 'np.searchsorted(s, q)'],
  ['interp 1e6 at 1e3 points', () => mt.interp(x, xp, fp), 'np.interp(x, xp, fp)'],
  ['isin 1e6 in 1e4', () => mt.isin(a, b), 'np.isin(a, b)'],
  ['bincount 1e6 into 1e4', () => mt.bincount(k), 'np.bincount(k)'],
  ['bincount weighted', () => mt.bincount(k, { weights: x }), 'np.bincount(k, weights=x)'],
  ['histogram 1e6, 10000 bins', () => mt.histogram(x, { bins: 10000 })[0], 'np.histogram(x, 10000)'],
  ['histogram2d 1e6, 50x50', () => mt.histogram2d(x, y, { bins: 50 })[0], 'np.histogram2d(x, y, 50)'],
  ['argsort 1e6 float64', () => mt.argsort(x, { kind: 'stable' }), "np.argsort(x, kind='stable')"],
  ['sort 1e6 float64', () => mt.sort(x), 'np.sort(x)'],
  ['unique counts 1e6', () => mt.unique(a, { return_counts: true })[1], 'np.unique(a, return_counts=True)'],
  ['median 1e6', () => mt.median(x), 'np.median(x)'],
  ['add.at 1e6 into 1e4', () => mt.zeros(10000).at(k).add(x), 'z = np.zeros(10000); np.add.at(z, k, x)'],
];

const tessera = [];
for (const [name, f] of CASES) {
  const times = [];
  for (let r = 0; r <= RUNS; r++) {
    const t = f();
    const t0 = performance.now();
    await t.fetch();
    if (r > 0) times.push((performance.now() - t0) / 1000);
  }
  tessera.push(median(times));
}
await mt.shutdown();

// NumPy on inputs of the same kinds and sizes (its own generator: the timings, not the values, are compared)
let numpy = CASES.map(() => undefined);
try {
  const py = `
import json, time, numpy as np
r = np.random.default_rng(0)
x = r.random(10**6); y = r.random(10**6); a = r.integers(0, 100000, 10**6); b = r.integers(0, 100000, 10**4)
k = r.integers(0, 10000, 10**6); s = np.sort(r.random(10**6)); q = r.random(10**5); xp = np.sort(r.random(1000)); fp = r.random(1000)
out = []
for code in json.loads(${JSON.stringify(JSON.stringify(CASES.map((c) => c[2])))}):
    ts = []
    for i in range(${RUNS + 1}):
        t = time.perf_counter(); exec(code); ts.append(time.perf_counter() - t)
    ts = sorted(ts[1:]); out.append(ts[len(ts) // 2])
print(json.dumps(out))`;
  numpy = JSON.parse(execFileSync('python3', ['-c', py], { encoding: 'utf8' }));
} catch (e) {
  console.error(`NumPy not measured: ${String(e.message ?? e).split('\n')[0]}`);
}

const fmt = (v) => (v === undefined ? '—' : v < 0.1 ? `${(v * 1000).toFixed(1)} ms` : `${v.toFixed(2)} s`);
CASES.forEach(([name], i) => console.log(JSON.stringify({ case: name, numpy_s: numpy[i] ?? null, tessera_s: tessera[i] })));
console.log('\n| function | NumPy | Tessera | Tessera vs NumPy |\n| --- | ---: | ---: | ---: |');
CASES.forEach(([name], i) => {
  const n = numpy[i], t = tessera[i];
  console.log(`| ${name} | ${fmt(n)} | ${fmt(t)} | ${n === undefined ? '—' : `${(n / t).toFixed(2)}×`} |`);
});
