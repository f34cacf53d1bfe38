#!/usr/bin/env node
// One program on a lazy uniform draw that is never stored, in this process:
// prints its value, time and peak RSS (issue 31's target: median,
// percentile and selection-sum of 1e10 lazily drawn elements under 1 GB).
//
//   npm run build && node bench/lazy.js median|percentile|select [N=1e10]
import * as mt from '../dist/api/tensor.js';

const which = process.argv[2], N = Number(process.argv[3] ?? 1e10);
if (!['median', 'percentile', 'select'].includes(which)) {
  process.stderr.write('usage: node bench/lazy.js median|percentile|select [N]\n');
  process.exit(2);
}
mt.random.seed(1);
const x = mt.random.uniform(0, 1, [N]);
const t0 = performance.now();
const y = which === 'median' ? mt.median(x) : which === 'percentile' ? mt.percentile(x, [1, 50, 99]) : x.get(x.greater(0.5)).sum();
const value = Array.from((await y.fetch()).data, Number);
const s = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ which, N, value, s: +s.toFixed(1), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
await mt.shutdown();
