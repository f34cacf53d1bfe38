#!/usr/bin/env node
// Iterative programs on small arrays, where the cost is building, planning
// and dispatching a long graph rather than arithmetic: gradient steps left
// lazy or executed each step, diffusion over roll, a running mean over
// slices. Each runs `--rounds` times in this process after a warm-up run;
// prints one JSON line per program (median and fastest ms, kernels, the
// answer) and checks the answer against a plain JS loop.
//
//   npm run build && node bench/loops.js [--rounds 5]

import * as mt from '../dist/api/tensor.js';

const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args[at + 1]) : 5;

const rng = mt.random.default_rng(0);
const X = rng.standard_normal([500, 10]);
const y = rng.standard_normal([500]);
const Z = rng.standard_normal([500, 100]);
await mt.execute(X, y, Z);
const [xs, ys, zs] = await Promise.all([X.fetch(), y.fetch(), Z.fetch()]).then((r) => r.map((a) => Array.from(a.data)));

/** The same gradient steps in plain JS: the reference for both gradient programs. */
function gradientJs(steps) {
  let w = new Array(10).fill(0);
  for (let s = 0; s < steps; s++) {
    const r = ys.map((yi, i) => w.reduce((acc, wk, k) => acc + xs[i * 10 + k] * wk, 0) - yi);
    w = w.map((wk, k) => wk - r.reduce((acc, ri, i) => acc + xs[i * 10 + k] * ri, 0) * (0.01 / 500));
  }
  return w[0];
}

const programs = {
  'gradient 200 steps, lazy': {
    run: async () => { let w = mt.zeros([10]); for (let i = 0; i < 200; i++) w = w.subtract(mt.matmul(X.T, mt.matmul(X, w).subtract(y)).multiply(0.01 / 500)); return w; },
    want: () => gradientJs(200),
  },
  'gradient 200 steps, execute() each': {
    run: async () => { let w = mt.zeros([10]); for (let i = 0; i < 200; i++) { w = w.subtract(mt.matmul(X.T, mt.matmul(X, w).subtract(y)).multiply(0.01 / 500)); await w.execute(); } return w; },
    want: () => gradientJs(200),
  },
  'diffusion 2000 steps over roll (256)': {
    run: async () => {
      let u = mt.zeros([256]).set(128, 1);
      for (let i = 0; i < 2000; i++) u = u.add(mt.multiply(0.25, mt.roll(u, 1).subtract(u.multiply(2)).add(mt.roll(u, -1))));
      return mt.sum(u);
    },
    // heat is conserved: the sum stays 1 up to rounding
    want: () => 1,
  },
  'running mean over 500 slices (100)': {
    run: async () => { let m = mt.zeros([100]); for (let i = 0; i < 500; i++) m = m.add(Z.get(i).subtract(m).divide(i + 1)); return m; },
    want: () => { let m = 0; for (let i = 0; i < 500; i++) m += (zs[i * 100] - m) / (i + 1); return m; },
  },
};

for (const [name, p] of Object.entries(programs)) {
  const times = [];
  let value = NaN, kernels = 0;
  for (let r = 0; r <= rounds; r++) {
    const t0 = performance.now();
    const t = await p.run();
    value = Number((await t.fetch()).data[0]);
    if (r > 0) times.push(performance.now() - t0);
    kernels = mt.lastReport()?.kernels ?? 0;
  }
  times.sort((a, b) => a - b);
  const want = p.want();
  const ok = Math.abs(value - want) <= 1e-9 * Math.max(1, Math.abs(want));
  console.log(JSON.stringify({ program: name, rounds, medianMs: +times[times.length >> 1].toFixed(1), fastestMs: +times[0].toFixed(1), kernelsLastRun: kernels, value, ok }));
  if (!ok) process.exitCode = 1;
}
await mt.shutdown();
