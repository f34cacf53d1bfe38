#!/usr/bin/env node
// A/B timing of builds: runs the Monte Carlo pi program on each build in
// turn, round after round, so that the machine's drift falls on all of them
// alike, and checks that they agree on the count. A build is a copy of
// dist/, e.g.
//
//   npm run build && cp -r dist .ab/before
//   (change something) && npm run build && cp -r dist .ab/after
//   node bench/ab.js --points 1e8 --rounds 7 --workers 1 .ab/before .ab/after
//
// Prints, per build, the fastest and the median of its rounds in ns per point
// (each round: a fresh process, the best of 3 runs after it compiled).
//
// A copy's imports of `#host` and `#peer-thread` are rewritten, in the copy,
// to its own host modules: resolved through package.json they would name
// dist/'s, whose host spawns dist/'s worker threads, so every build's
// workers would run the current dist/ code.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args.splice(i, 2)[1] : def; };
const points = Number(flag('points', '1e8'));
const rounds = Number(flag('rounds', '5'));
const workers = Number(flag('workers', '1'));
const builds = args.map((d) => resolve(d));
if (builds.length < 2 || !Number.isInteger(points) || points <= 0) {
  console.error('usage: node bench/ab.js [--points 1e8] [--rounds 5] [--workers 1] <build dir> <build dir> ...');
  process.exit(2);
}

const program = (dir) => `import * as mt from ${JSON.stringify(join(dir, 'api/tensor.js'))};
mt.random.seed(0);
let best = Infinity, count;
for (let r = 0; r < 4; r++) {
  const d = mt.random.uniform(-1, 1, [${points}, 2]);
  const x = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
  const t = performance.now();
  count = (await x.fetch({ workers: ${workers} })).item();
  if (r > 0) best = Math.min(best, performance.now() - t);
}
console.log(JSON.stringify({ ms: best, count: String(count) }));
await mt.shutdown();`;

/** Points a build's package-internal imports at its own host modules (see above). */
function pinHost(dir) {
  const target = { '#host': 'host/node.js', '#peer-thread': 'host/node-peer.js' };
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      if (e.isDirectory()) { walk(f); continue; }
      if (!f.endsWith('.js')) continue;
      const text = readFileSync(f, 'utf8');
      const next = text.replace(/from '(#host|#peer-thread)'/g, (_, k) => {
        const rel = relative(dirname(f), join(dir, target[k])).split(sep).join('/');
        return `from '${rel.startsWith('.') ? rel : `./${rel}`}'`;
      });
      if (next !== text) writeFileSync(f, next);
    }
  };
  walk(dir);
}
builds.forEach(pinHost);

const tmp = mkdtempSync(join(tmpdir(), 'tessera-ab-'));
const times = new Map(builds.map((b) => [b, []]));
const counts = new Set();
try {
  for (let r = 0; r < rounds; r++) {
    for (const b of builds) {
      const file = join(tmp, `run-${builds.indexOf(b)}.mjs`);
      writeFileSync(file, program(b));
      const out = JSON.parse(execFileSync(process.execPath, [file], { cwd: process.cwd(), encoding: 'utf8' }).trim().split('\n').at(-1));
      times.get(b).push((out.ms / points) * 1e6);
      counts.add(out.count);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (counts.size !== 1) { console.error(`the builds disagree on the count: ${[...counts].join(', ')}`); process.exit(1); }
for (const [b, xs] of times) {
  xs.sort((x, y) => x - y);
  console.log(`${b}: min ${xs[0].toFixed(2)} ns/point, median ${xs[Math.floor(xs.length / 2)].toFixed(2)} ns/point (${xs.length} rounds, ${workers} worker(s), count ${[...counts][0]})`);
}
