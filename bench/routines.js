#!/usr/bin/env node
// Issue 31's routines beside NumPy, on the same data, in one run: selection
// then sum, sort, stable argsort, median, percentile, unique, bincount and
// searchsorted. Each program runs in a process of its own per implementation
// (this script again with --child, or python3 -c), so that its peak RSS
// (process.resourceUsage().maxRSS, resource.getrusage) is its own: the data,
// the program and its result. The data is made in that process before the
// timing starts, from the hash of the position (bench/position-hash.js) that
// both sides compute exactly:
//
//   x   float64, the hash itself, in [0, 1)
//   k   int64 keys floor(x * 1e6): up to 1e6 distinct values (all of them at 1e8)
//   sx  float64 increasing by construction, i + x[i] (searchsorted's sorted
//       array, made without a sort so that the peak RSS is searchsorted's)
//   q   1e6 float64 queries n * u over the hash of the positions after the data's
//
// Both sides print a fingerprint of the result (its length, its sum, its first
// and last three values); they agree when lengths and end values are equal and
// the sums equal to a relative 1e-9 (sums of floats differ in their order of
// addition). A program that fails, runs past --timeout seconds or holds more
// than --max-rss GiB resident (the machine is shared) is killed and its cell
// marked ERROR or TIMEOUT, and the run goes on.
//
//   npm run build && node bench/routines.js [--sizes 1e8] [--runs r] [--workers 2]
//                                           [--only sort,unique,...] [--timeout 300] [--max-rss 14]
//
// The time is the fastest of `runs` after the data is made (without --runs: 3
// below 1e8, one at 1e8 and above); the peak RSS is that of a process making the data and running the
// program once (with runs > 1 a second process of one run gives it: a collector
// frees a run's result later than NumPy's reference count does). Output: one
// JSON line per row, then a Markdown table; bench/results/routines.{json,md}.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineBusySeconds } from './load.js';
import { numpyStream, tesseraStream } from './position-hash.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const QUERIES = 1e6;
const KEYS = 1e6;

/**
 * The programs, in the order of the table: the data each needs, NumPy's spelling
 * (a Python expression of that data) and Tessera's (a function of it returning a
 * Tensor), and whether the result is small enough to be fetched (a scalar or
 * three quantiles: a user reads it) or is an array left computed (execute()).
 * An `extra` program runs only when --only names it.
 */
export const PROGRAMS = {
  select_sum: { data: 'x', numpy: 'x[x > 0.5].sum()', tessera: (mt, { x }) => x.get(x.greater(0.5)).sum(), fetch: true },
  sort: { data: 'x', numpy: 'np.sort(x)', tessera: (mt, { x }) => mt.sort(x) },
  // NumPy's stable sort, the order Tessera gives (the same values here: the data has no -0); only with --only
  sort_stable: { data: 'x', numpy: "np.sort(x, kind='stable')", tessera: (mt, { x }) => mt.sort(x), extra: true },
  argsort: { data: 'x', numpy: "np.argsort(x, kind='stable')", tessera: (mt, { x }) => mt.argsort(x, { kind: 'stable' }) },
  median: { data: 'x', numpy: 'np.median(x)', tessera: (mt, { x }) => mt.median(x), fetch: true },
  percentile: { data: 'x', numpy: 'np.percentile(x, [1, 50, 99])', tessera: (mt, { x }) => mt.percentile(x, [1, 50, 99]), fetch: true },
  unique: { data: 'k', numpy: 'np.unique(k)', tessera: (mt, { k }) => mt.unique(k) },
  bincount: { data: 'k', numpy: 'np.bincount(k)', tessera: (mt, { k }) => mt.bincount(k) },
  searchsorted: { data: 'sx,q', numpy: 'np.searchsorted(sx, q)', tessera: (mt, { sx, q }) => mt.searchsorted(sx, q) },
};

/** The data a program reads, in Python (`n`, `np` defined) and in Tessera. */
const DATA = {
  x: { numpy: numpyStream('x', 'n'), tessera: (mt, n) => tesseraStream(mt, n) },
  k: {
    numpy: numpyStream('k', 'n', { map: `np.floor(u * ${KEYS}).astype(np.int64)`, dtype: 'np.int64' }),
    tessera: (mt, n) => tesseraStream(mt, n, { map: (u) => mt.floor(u.multiply(KEYS)).astype('int64') }),
  },
  sx: { numpy: numpyStream('sx', 'n', { map: 'i + u' }), tessera: (mt, n) => tesseraStream(mt, n, { map: (u, i) => i.add(u) }) },
  q: {
    numpy: numpyStream('q', `${QUERIES}`, { start: 'n', map: 'u * n' }),
    tessera: (mt, n) => tesseraStream(mt, QUERIES, { start: n, map: (u) => u.multiply(n) }),
  },
};

/** The name of a row: the NumPy spelling at its size and dtype. */
export function caseName(op, n) {
  const size = n.toExponential(0).replace('+', '');
  const what = op === 'searchsorted' ? `${size} float64, ${QUERIES.toExponential(0).replace('+', '')} queries`
    : PROGRAMS[op].data === 'k' ? `${size} int64, ${KEYS.toExponential(0).replace('+', '')} keys` : `${size} float64`;
  return `${PROGRAMS[op].numpy} (${what})`;
}

// ---------------------------------------------------------------------------
// The two children: each makes the data, times the program and prints
// {setup_ms, ms, rss, fp} as one JSON line.

async function tesseraChild(op, n, runs, workers) {
  const { mt } = await import('../dist/index.js');
  mt.options.workers = workers;
  const prog = PROGRAMS[op];
  const t0 = performance.now();
  const d = {};
  for (const name of prog.data.split(',')) d[name] = await DATA[name].tessera(mt, n);
  const setup = performance.now() - t0;
  let best = Infinity, y;
  for (let r = 0; r < runs; r++) {
    y = undefined; // the last result goes before the next run makes its own
    const t1 = performance.now();
    y = prog.tessera(mt, d);
    await (prog.fetch ? y.fetch() : y.execute());
    best = Math.min(best, performance.now() - t1);
  }
  const flat = y.ndim === 0 ? y.reshape([1]) : y;
  const len = flat.shape[0];
  const values = async (t) => Array.from((await t.fetch()).data, Number);
  const fp = {
    len,
    sum: (await values(mt.sum(flat)))[0],
    ends: [...(await values(flat.get(mt.slice(0, Math.min(3, len))))), ...(await values(flat.get(mt.slice(Math.max(0, len - 3), len))))],
  };
  const cpu = process.cpuUsage();
  const out = { setup_ms: setup, ms: best, rss: process.resourceUsage().maxRSS * 1024, cpu_s: (cpu.user + cpu.system) / 1e6, fp };
  await mt.shutdown();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function numpyScript(op, n, runs) {
  const prog = PROGRAMS[op];
  return `
import json, resource, time
import numpy as np
n = ${n}
t0 = time.perf_counter()
${prog.data.split(',').map((name) => DATA[name].numpy).join('\n')}
setup = time.perf_counter() - t0
best = float('inf')
for _ in range(${runs}):
    y = None
    t1 = time.perf_counter()
    y = ${prog.numpy}
    best = min(best, time.perf_counter() - t1)
f = np.asarray(y).ravel()
fp = {'len': int(f.size), 'sum': float(f.sum()), 'ends': [v.item() for v in f[:3]] + [v.item() for v in f[max(0, f.size - 3):]]}
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({'setup_ms': setup * 1e3, 'ms': best * 1e3, 'rss': ru.ru_maxrss * 1024, 'cpu_s': ru.ru_utime + ru.ru_stime, 'fp': fp}))`;
}



/**
 * One child to its end: its JSON line, or {status: 'TIMEOUT' | 'ERROR', reason};
 * with `foreign`, the cores other processes kept busy meanwhile (the machine's
 * busy time minus the child's own CPU time and this process's), on average.
 */
async function child(impl, op, n, runs, o) {
  const busy0 = machineBusySeconds(), own0 = process.cpuUsage(), t0 = performance.now();
  const m = await runChild(impl, op, n, runs, o);
  const busy1 = machineBusySeconds(), own = process.cpuUsage(own0);
  if (m.cpu_s !== undefined && busy0 !== undefined && busy1 !== undefined) {
    m.foreign = Math.max(0, (busy1 - busy0 - m.cpu_s - (own.user + own.system) / 1e6) / ((performance.now() - t0) / 1000));
  }
  return m;
}

/** Resident bytes of process `pid` now (its threads included), from /proc; 0 where unavailable. */
function rssNow(pid) {
  try { return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024; } catch { return 0; }
}

/**
 * Runs one child, killed past `timeout` seconds or `maxRss` resident bytes
 * (checked five times a second): on a machine shared with other work, a
 * program that would take all its memory is a row marked ERROR, not a
 * host out of memory.
 */
function runChild(impl, op, n, runs, { workers, timeout, maxRss }) {
  const [cmd, args] = impl === 'numpy'
    ? [process.env.PYTHON ?? 'python3', ['-c', numpyScript(op, n, runs)]]
    : [process.execPath, [fileURLToPath(import.meta.url), '--child', op, String(n), String(runs), String(workers)]];
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', killed;
    proc.stdout.on('data', (d) => { stdout += d; });
    proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    const kill = (why) => { if (!killed) { killed = why; proc.kill('SIGKILL'); } };
    const timer = setTimeout(() => kill({ status: 'TIMEOUT', reason: `no result within ${timeout} s (killed)` }), timeout * 1000);
    const poll = setInterval(() => {
      const rss = rssNow(proc.pid);
      if (rss > maxRss) kill({ status: 'ERROR', reason: `resident memory passed ${mib(maxRss)} (${mib(rss)}; killed)` });
    }, 200);
    const done = (m) => { clearTimeout(timer); clearInterval(poll); resolve(m); };
    proc.on('error', (e) => done({ status: 'ERROR', reason: `could not start ${cmd}: ${e.message}` }));
    proc.on('close', (code, sig) => {
      if (killed) return done(killed);
      const line = stdout.trim().split('\n').at(-1);
      if (code === 0 && line) {
        try { return done({ status: 'ok', ...JSON.parse(line) }); } catch { /* reported below */ }
      }
      // the error's own line (an uncaught error ends with its stack and Node's version)
      const lines = stderr.trim().split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('at ') && !/^Node\.js v/.test(l));
      const tail = (lines.findLast((l) => /^\w*(Error|Exception)\b/.test(l)) ?? lines.slice(-2).join(' | ')).slice(0, 300);
      done({ status: 'ERROR', reason: `${sig ? `killed by ${sig}` : `exit code ${code}`}${tail ? `: ${tail}` : ''}` });
    });
  });
}

/** Both fingerprints alike: lengths and end values equal, sums to a relative 1e-9. */
function agree(a, b) {
  if (!a || !b) return null;
  const close = (u, v) => u === v || Math.abs(u - v) <= 1e-9 * Math.max(Math.abs(u), Math.abs(v));
  return a.len === b.len && close(a.sum, b.sum) && a.ends.length === b.ends.length && a.ends.every((v, i) => v === b.ends[i]);
}

const round2 = (v) => (v === undefined ? undefined : +v.toFixed(2));

/** One row: NumPy's and Tessera's time and peak RSS for program `op` at size n. */
async function measure(op, n, o) {
  const r = o.runs ?? (n >= 1e8 ? 1 : 3);
  const side = async (impl) => {
    process.stderr.write(`  ${impl} ...`);
    const t0 = performance.now();
    const m = await child(impl, op, n, r, o);
    if (m.status === 'ok' && r > 1) {
      const one = await child(impl, op, n, 1, o);
      if (one.status === 'ok') m.rss = one.rss;
      else Object.assign(m, { rss: undefined, rss_note: `the one-run process: ${one.status} ${one.reason}` });
    }
    process.stderr.write(` ${m.status === 'ok' ? `${fmtMs(m.ms)}, ${mib(m.rss)}` : `${m.status}: ${m.reason}`} (${((performance.now() - t0) / 1000).toFixed(0)} s in all)\n`);
    return m;
  };
  process.stderr.write(`routines: ${caseName(op, n)}, ${r} run${r > 1 ? 's' : ''}\n`);
  const np = await side('numpy'), ts = await side('tessera');
  const row = {
    type: 'routines', case: caseName(op, n), op, n, runs: r, workers: o.workers,
    numpy: np.status, numpy_ms: np.ms, numpy_other_load: round2(np.foreign), numpy_setup_ms: np.setup_ms, numpy_rss: np.rss, numpy_fp: np.fp,
    tessera: ts.status, tessera_ms: ts.ms, tessera_other_load: round2(ts.foreign), tessera_setup_ms: ts.setup_ms, tessera_rss: ts.rss, tessera_fp: ts.fp,
    ratio: np.ms !== undefined && ts.ms !== undefined ? np.ms / ts.ms : undefined,
    rss_ratio: np.rss && ts.rss ? ts.rss / np.rss : undefined,
    agree: agree(np.fp, ts.fp),
  };
  for (const [k, m] of [['numpy', np], ['tessera', ts]]) {
    if (m.reason) row[`${k}_reason`] = m.reason;
    if (m.rss_note) row[`${k}_rss_note`] = m.rss_note;
  }
  if (row.agree === false) process.stderr.write(`  results differ: NumPy ${JSON.stringify(np.fp)}, Tessera ${JSON.stringify(ts.fp)}\n`);
  return row;
}

// ---------------------------------------------------------------------------
// The table (also rendered by bench/run.js from saved rows).

const fmtMs = (ms) => (ms === undefined ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 10 ? 0 : 1)} ms`);
const mib = (b) => (b === undefined ? '-' : `${(b / 2 ** 20).toFixed(0)} MiB`);

/** The Markdown table of the rows, with its notes. */
export function routinesText(rows, meta) {
  const load = (v) => (v === undefined ? '?' : v.toFixed(1));
  const time = (r, k) => (r[k] === 'ok' ? fmtMs(r[`${k}_ms`]) : `**${r[k]}**`);
  const lines = [
    `| case | NumPy | Tessera (${meta.workers} workers) | NumPy / Tessera time | NumPy peak RSS | Tessera peak RSS | RSS ratio (Tessera / NumPy) | agree | other load (NumPy, Tessera) |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: |',
    ...rows.map((r) => `| ${r.case.replace(/\|/g, '\\|')} | ${time(r, 'numpy')} | ${time(r, 'tessera')} | ${r.ratio === undefined ? '-' : `${r.ratio.toFixed(2)}×`} | ${mib(r.numpy_rss)} | ${mib(r.tessera_rss)} | ${r.rss_ratio === undefined ? '-' : `${r.rss_ratio.toFixed(2)}×`} | ${r.agree === null ? '-' : r.agree ? 'yes' : '**no**'} | ${load(r.numpy_other_load)}, ${load(r.tessera_other_load)} |`),
  ];
  const failed = rows.flatMap((r) => ['numpy', 'tessera'].filter((k) => r[k] !== 'ok').map((k) => `${k === 'numpy' ? 'NumPy' : 'Tessera'}, ${r.case}: ${r[k]} (${r[`${k}_reason`]})`));
  // a row whose Tessera side failed misses both targets; one whose NumPy side failed cannot be judged
  const judged = rows.filter((r) => r.numpy === 'ok');
  const notes = [
    `Times: the fastest of the runs in one process (${[...new Set(rows.map((r) => `${r.runs} at ${r.n.toExponential(0).replace('+', '')}`))].join('; ')}), after the data is made in that process; Tessera's runs end with execute() (arrays) or fetch() (the sum, the median, the three percentiles). "NumPy / Tessera time" above 1: Tessera is faster. Peak RSS: the process that made the data and ran the program once (data, program and result).`,
    'Data: x = the float64 hash of the position (bench/position-hash.js); k = floor(x * 1e6) as int64; searchsorted looks up 1e6 queries n * u (u: the hash of the positions after the data\'s) in i + x[i], increasing by construction. "agree": both results have the same length and first and last three values, and sums equal to a relative 1e-9.',
    `"other load": cores (of ${meta.cpus}) that other processes kept busy, on average, while that side's processes ran (the machine's busy time minus the benchmark's own); a high value slows Tessera, which uses ${meta.workers} cores, more than NumPy, which uses one.`,
    judged.length && `Issue 31's targets (a failed Tessera side misses both): at least NumPy's speed in ${judged.filter((r) => r.ratio >= 1).length} of ${judged.length} rows; peak RSS at most 1.5× NumPy's in ${judged.filter((r) => r.rss_ratio <= 1.5).length} of ${judged.length}.`,
    `Machine: ${meta.cpus} x ${meta.cpu}, ${meta.mem_gib} GiB RAM, node ${meta.node}, NumPy ${meta.numpy ?? '?'}. Tessera ${meta.tessera_commit}.`,
    ...failed,
  ];
  return `${lines.join('\n')}\n\n${notes.filter(Boolean).map((s) => `- ${s}`).join('\n')}\n`;
}

// ---------------------------------------------------------------------------

function gitRev() {
  const git = (...a) => spawnSync('git', a, { cwd: HERE, encoding: 'utf8' }).stdout?.trim();
  const rev = git('rev-parse', '--short', 'HEAD');
  if (!rev) return 'unknown';
  return git('status', '--porcelain', '--', '../src') ? `${rev} + uncommitted src/ changes` : rev;
}

async function main(args) {
  const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : def; };
  const known = ['sizes', 'runs', 'workers', 'only', 'timeout', 'max-rss', 'render'];
  for (let i = 0; i < args.length; i += 2) {
    if (!known.includes(args[i]?.slice(2)) || !args[i].startsWith('--')) {
      process.stderr.write(`routines: unknown argument ${args[i]}\nusage: node bench/routines.js [--sizes 1e8] [--runs r] [--workers 2] [--only ${Object.keys(PROGRAMS).join(',')}] [--timeout 300] [--max-rss 14] [--render routines.json]\n`);
      process.exit(2);
    }
  }
  if (flag('render')) {
    // re-renders a saved run: node bench/routines.js --render bench/results/routines.json
    const { meta, rows } = JSON.parse(readFileSync(flag('render'), 'utf8'));
    process.stdout.write(routinesText(rows, meta));
    return;
  }
  const sizes = flag('sizes', '1e8').split(',').map(Number);
  const only = flag('only', Object.keys(PROGRAMS).filter((p) => !PROGRAMS[p].extra).join(',')).split(',');
  const unknown = only.filter((p) => !PROGRAMS[p]);
  if (unknown.length) { process.stderr.write(`routines: unknown program ${unknown.join(', ')} (know ${Object.keys(PROGRAMS).join(', ')})\n`); process.exit(2); }
  const o = { runs: flag('runs') === undefined ? undefined : Number(flag('runs')), workers: Number(flag('workers', '2')), timeout: Number(flag('timeout', '300')), maxRss: Number(flag('max-rss', '14')) * 2 ** 30 };
  const py = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import numpy; print(numpy.__version__)'], { encoding: 'utf8' });
  const meta = {
    type: 'meta', date: new Date().toISOString(), command: `node bench/routines.js${args.length ? ` ${args.join(' ')}` : ''}`,
    node: process.version, numpy: py.stdout?.trim() || undefined, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?',
    mem_gib: +(os.totalmem() / 2 ** 30).toFixed(1), tessera_commit: gitRev(), workers: o.workers, timeout_s: o.timeout, max_rss_gib: o.maxRss / 2 ** 30,
  };
  process.stdout.write(`${JSON.stringify(meta)}\n`);
  const t0 = performance.now();
  const rows = [];
  for (const n of sizes) {
    for (const op of Object.keys(PROGRAMS).filter((p) => only.includes(p))) {
      const row = await measure(op, n, o);
      rows.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
    }
  }
  meta.total_s = (performance.now() - t0) / 1000;
  const text = routinesText(rows, meta);
  process.stdout.write(`\n${text}`);
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'routines.json'), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(path.join(dir, 'routines.md'), `# Routines beside NumPy\n\n${meta.date}, \`${meta.command}\` (${(meta.total_s / 60).toFixed(1)} min)\n\n${text}`);
  process.stderr.write(`routines: done in ${(meta.total_s / 60).toFixed(1)} min; wrote bench/results/routines.md and routines.json\n`);
}

// run.js imports routinesText from this file; only a run as a script measures.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') await tesseraChild(args[1], Number(args[2]), Number(args[3]), Number(args[4]));
  else await main(args);
}
