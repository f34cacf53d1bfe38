#!/usr/bin/env node
// `npm start`: the main job on a local mesh of worker threads — Monte Carlo pi
// with a progress bar, written exactly as the README shows it.
// Usage: node dist/cli/pi.js [--points 1e8] [--seed 0] [--workers N]

import * as mt from '../api/tensor.js';
import { progressBar } from './progress.js';

function flag(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}

const N = Number(flag('points', '1e8'));
const seed = Number(flag('seed', '0'));
const workers = process.argv.includes('--workers') ? Number(flag('workers', '0')) : undefined;
if (!Number.isInteger(N) || N <= 0) {
  console.error(`--points must be a positive integer, got ${flag('points', '')}`);
  process.exit(2);
}

mt.random.seed(seed);
const d = mt.random.uniform(-1, 1, [N, 2]);
const inside = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();

const t0 = performance.now();
const bar = progressBar();
const r = await inside.fetch({ onProgress: bar.update, ...(workers !== undefined ? { workers } : {}) });
bar.end();
const s = (performance.now() - t0) / 1000;
const rep = mt.lastReport()!;
const pi = (4 * Number(r.item())) / N;
console.log(`pi ≈ ${pi} (error ${Math.abs(pi - Math.PI).toExponential(2)}) from ${N.toExponential(0)} points in ${s.toFixed(2)} s`);
console.log(`${(N / s / 1e6).toFixed(1)} M points/s on ${rep.workers || 1} worker(s); ${rep.tasks} tasks, ${rep.kernelsCompiled} kernels compiled, peak chunk memory ${(rep.peakBytes / 1024).toFixed(1)} KiB`);
await mt.shutdown();
