#!/usr/bin/env node
// `npm run bench`: Tessera side by side with NumPy, TensorFlow.js (WASM
// backend) and jax-js (WASM device), on the same machine in the same run.
//
// Usage: node bench/run.js [--quick] [--huge] [--slow] [--only ids] [--impls list]
//                          [--reps-scale x] [--timeout s] [--render results.json]
// (bench/README.md explains the cases, the flags and how to read the table.)
// After the cases come the mesh rows (bench/mesh.js, Tessera only, in one
// process of their own that starts the mesh workers it measures); `--only`
// runs them when it names `mesh` or one of their sections. `--only routines`
// adds issue 31's routines beside NumPy (bench/routines.js, which starts a
// process per program and side; at 1e8, or 1e6 with --quick); they are not
// part of a run without --only (about 5 minutes at 1e8 on 2 cores).
// `--only dataframe` runs the h2o db-benchmark's groupby and join queries
// beside pandas, Dask, DuckDB and arquero (bench/dataframe.js, a process per
// system; 1e7 rows, or 1e6 with --quick), alone: never part of another run.
// `--only learn` runs learn beside scikit-learn (bench/learn.js: the seed's
// KNN, KMeans, LogisticRegression, PCA), alone as well; so do `--only
// linalg` (the tiled factorizations beside NumPy, bench/linalg.js),
// `--only placement` (placement policies measured by simulation, bench/placement.js)
// and `--only mesh-cholesky` (a 12288² Cholesky and solve on 3 workers capped at
// 512 MiB each, bench/cholesky_mesh.js; 4096² under 64 MiB with --quick).
//
// This process only orchestrates. For each case it starts one fresh process
// per implementation (bench/child.js for the JavaScript libraries, python3
// bench/numpy_bench.py for NumPy), has each prepare its inputs, runs one
// warm-up each, then interleaves the timed runs round by round (NumPy,
// Tessera, tfjs, jax-js, NumPy, ...) so that drift on a noisy machine hits
// every implementation alike. Only one process computes at a time. Every
// run's answer is checked against a reference (bench/cases.js); a wrong
// answer is reported as WRONG, never as a time. Output: JSON lines on stdout,
// then a Markdown table (and a second one, "Mesh"); bench/results/latest.{md,json}.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { IMPL_LABEL, caseLabel, caseList, fmtN, rates, reference } from './cases.js';
import { SECTIONS as MESH_SECTIONS } from './mesh.js';
import { routinesText } from './routines.js';
import { dataframeText } from './dataframe.js';
import { CLK_TCK, machineBusySeconds } from './load.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const argv = process.argv.slice(2);
const has = (f) => argv.includes(f);
const opt = (f, d) => { const i = argv.indexOf(f); return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : d; };

const ALL_IMPLS = ['numpy', 'tessera', 'tessera-webgpu', 'tfjs', 'jax'];
const FLAGS = ['--quick', '--huge', '--slow'];
const OPTIONS = ['--only', '--impls', '--reps-scale', '--timeout', '--render'];
for (let i = 0; i < argv.length; i++) {
  if (OPTIONS.includes(argv[i])) { i++; continue; }
  if (!FLAGS.includes(argv[i])) {
    process.stderr.write(`bench: unknown argument ${argv[i]}\nusage: node bench/run.js [${FLAGS.join('] [')}] [--only ids] [--impls ${ALL_IMPLS.join(',')}] [--reps-scale x] [--timeout s] [--render results.json]\n`);
    process.exit(2);
  }
}
/**
 * A warm-up run at least this long is followed by one timed run only, and a
 * warm-up at least LONG_S + CELL_BUDGET_S long is itself the only (timed) run.
 * A first run can be slow for reasons that are not the computation: this VM
 * hands freed memory back to its host, and NumPy's first pass over the 3.2 GB
 * of fresh pages of pi at 1e8 took 10.0 s, each later one 1.9 s.
 */
const LONG_S = 10;
/** Timed runs of one implementation in one case stop adding up past this (at least 3 runs). */
const CELL_BUDGET_S = 30;
/**
 * Without --slow, a matmul run predicted to take longer than this is skipped:
 * the prediction scales the smaller size's median by n³, which underestimates
 * (jax-js float64: 4.8 s at 1024, then 59 s at 2048; 5.7 s then 100 s), hence the low bar.
 */
const SLOW_S = 30;
/**
 * Pause before every timed or warm-up run, whichever the implementation: OpenBLAS threads
 * spin for a while after a call and would steal cores from the next process, and every
 * implementation starts its run from the same idle machine. (A pause after NumPy's runs
 * alone made the one after it always start cold and the others warm: on the 10 ms
 * reductions that alone cost the implementation after NumPy 10-20%.)
 */
const GAP_MS = 250;
const TIMEOUT_S = Number(opt('--timeout', '900'));
const REPS_SCALE = Number(opt('--reps-scale', '1'));



const log = (s) => process.stderr.write(s);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const fmtS = (s) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s >= 0.01 ? s.toFixed(3) : s.toFixed(4)) + ' s';
const mib = (b) => `${Math.round(b / 2 ** 20)} MiB`;

// ---------------------------------------------------------------------------
// A child process speaking the line protocol of bench/child.js.

class Child {
  constructor(name) {
    this.name = name;
    const [cmd, args] = name === 'numpy'
      ? [process.env.PYTHON ?? 'python3', [path.join(HERE, 'numpy_bench.py')]]
      : [process.execPath, ['--expose-gc', path.join(HERE, 'child.js'), name]];
    this.proc = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = [];
    this.waiter = undefined;
    this.stderr = '';
    this.proc.on('error', (e) => this.die(`could not start ${cmd}: ${e.message}`));
    this.proc.stdin.on('error', () => {});
    this.proc.stderr.on('data', (d) => { this.stderr = (this.stderr + d).slice(-4000); });
    readline.createInterface({ input: this.proc.stdout }).on('line', (l) => {
      let o;
      try { o = JSON.parse(l); } catch { return; }
      this.lines.push(o);
      this.flush();
    });
    this.proc.on('exit', (code, sig) => {
      const tail = this.stderr.trim().split('\n').filter((l) => l.trim()).slice(-2).join(' | ').slice(0, 300);
      this.die(`process exited (${sig ?? `code ${code}`})${tail ? `: ${tail}` : ''}`);
    });
  }

  die(why) { if (!this.dead) { this.dead = why; this.flush(); } }

  flush() {
    if (!this.waiter) return;
    if (this.lines.length) { const w = this.waiter; this.waiter = undefined; w(this.lines.shift()); }
    else if (this.dead) { const w = this.waiter; this.waiter = undefined; w({ dead: this.dead }); }
  }

  next() {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.kill(); this.die(`no answer within ${TIMEOUT_S} s (killed)`); }, TIMEOUT_S * 1000);
      this.waiter = (m) => { clearTimeout(timer); resolve(m); };
      this.flush();
    });
  }

  send(msg) {
    if (this.dead) return Promise.resolve({ dead: this.dead });
    this.proc.stdin.write(JSON.stringify(msg) + '\n');
    return this.next();
  }

  /** CPU seconds used so far by the process (all its threads), from /proc; 0 where unavailable. */
  cpuSeconds() {
    try {
      const stat = readFileSync(`/proc/${this.proc.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) / CLK_TCK;
    } catch { return 0; }
  }

  async end() {
    this.cpu = this.cpuSeconds();
    const m = await this.send({ cmd: 'end' });
    this.kill();
    return m.max_rss_bytes;
  }

  kill() { if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL'); }
}

// ---------------------------------------------------------------------------
// One case: prepare every implementation, warm up, interleave timed runs.

/** Seconds one run of `name` on case c is expected to take, from a smaller matmul of the same dtype; undefined if unknown. */
function predict(c, name, done) {
  if (c.bench !== 'matmul') return undefined;
  const prev = done.filter((p) => p.c.bench === c.bench && p.c.dtype === c.dtype && p.c.size < c.size && p.cells[name]?.status === 'ok').at(-1);
  return prev && { s: prev.cells[name].median_s * (c.size / prev.c.size) ** 3, from: prev };
}

async function runCase(c, impls, info, unavailable, done) {
  const ref = reference(c);
  const cells = {};
  const live = [];
  const children = [];
  const busy0 = machineBusySeconds(), own0 = process.cpuUsage(), wall0 = performance.now();
  for (const name of impls) {
    const cell = (cells[name] = { bench: c.bench, size: c.size, dtype: c.dtype, impl: name, status: 'ok', runs: [] });
    if (unavailable[name]) { Object.assign(cell, { status: 'not run', reason: unavailable[name] }); continue; }
    const guess = has('--slow') ? undefined : predict(c, name, done);
    if (guess && guess.s > SLOW_S) {
      Object.assign(cell, { status: 'n/a', reason: `skipped as too slow: n=${guess.from.c.size} took ${fmtS(guess.from.cells[name].median_s)}, this needs ${Math.round((c.size / guess.from.c.size) ** 3)}x the work; --slow runs it` });
      log(`  ${name}: ${cell.reason}\n`);
      continue;
    }
    const ch = new Child(name);
    children.push(ch);
    const hello = await ch.next();
    if (!hello.ready) {
      unavailable[name] = hello.error ?? hello.dead ?? 'failed to start';
      Object.assign(cell, { status: 'not run', reason: unavailable[name] });
      log(`  ${name}: not run: ${unavailable[name]}\n`);
      ch.kill();
      continue;
    }
    info[name] ??= Object.fromEntries(Object.entries(hello).filter(([k]) => k !== 'ready'));
    const p = await ch.send({ cmd: 'prepare', bench: c.bench, size: c.size, dtype: c.dtype });
    if (p.ok) {
      cell.setup_s = p.setup_s;
      if (p.note) cell.note = p.note;
      live.push({ name, ch, cell });
    } else {
      if (p.skip) Object.assign(cell, { status: 'n/a', reason: p.skip });
      else Object.assign(cell, { status: 'error', reason: `setup failed: ${p.error ?? p.dead}` });
      log(`  ${name}: ${cell.status}: ${cell.reason}\n`);
      cell.max_rss_bytes = await ch.end();
    }
  }

  const runOnce = async (x, warm) => {
    await new Promise((res) => setTimeout(res, GAP_MS));
    const r = await x.ch.send({ cmd: 'run' });
    if (r.t === undefined) {
      Object.assign(x.cell, { status: 'error', reason: r.error ?? r.dead });
      log(`  ${x.name}: error: ${x.cell.reason}\n`);
      return false;
    }
    const verdict = ref.check(r.answer);
    if (!verdict.ok) {
      Object.assign(x.cell, { status: 'wrong', reason: verdict.detail });
      log(`  ${x.name}: WRONG answer: ${verdict.detail}\n`);
      return false;
    }
    if (verdict.warn) x.cell.warn ??= verdict.warn;
    if (r.extra) x.cell.report = r.extra;
    if (c.bench === 'mc_pi') (x.cell.pi ??= []).push(r.answer);
    if (warm) x.cell.warm_s = r.t;
    else x.cell.runs.push(r.t);
    return true;
  };

  // Warm-up: compiles kernels, faults in memory; a long one is the measurement.
  for (const x of live) {
    if (!(await runOnce(x, true))) continue;
    const w = x.cell.warm_s;
    x.reps = w >= LONG_S + CELL_BUDGET_S ? 0 : w >= LONG_S ? 1 : Math.max(1, Math.round(Math.min(c.reps * REPS_SCALE, Math.max(3, Math.floor(CELL_BUDGET_S / w)))));
    if (x.reps === 0) { x.cell.runs.push(w); x.cell.single_run = true; }
  }
  const rounds = Math.max(0, ...live.map((x) => (x.cell.status === 'ok' ? x.reps : 0)));
  for (let r = 0; r < rounds; r++) {
    for (const x of live) if (x.cell.status === 'ok' && r < x.reps) await runOnce(x, false);
  }
  for (const x of live) x.cell.max_rss_bytes = await x.ch.end();

  // Cores kept busy by other processes while this case ran: the machine's
  // busy time minus this process's and its children's.
  const own = process.cpuUsage(own0);
  const busy1 = machineBusySeconds();
  const foreign = busy0 === undefined || busy1 === undefined ? undefined
    : Math.max(0, (busy1 - busy0 - (own.user + own.system) / 1e6 - children.reduce((a, ch) => a + (ch.cpu ?? ch.cpuSeconds()), 0)) / ((performance.now() - wall0) / 1000));

  for (const cell of Object.values(cells)) {
    if (foreign !== undefined) cell.foreign_cores = +foreign.toFixed(2);
    if (cell.status !== 'ok') { delete cell.runs; delete cell.warm_s; delete cell.pi; continue; }
    cell.median_s = median(cell.runs);
    Object.assign(cell, rates(c, cell.median_s));
  }
  const np = cells.numpy?.status === 'ok' ? cells.numpy.median_s : undefined;
  for (const cell of Object.values(cells)) {
    if (cell.status === 'ok' && np !== undefined) cell.vs_numpy = np / cell.median_s;
  }
  const t = cells.tessera;
  if (t && c.target) t.target = { text: c.target.text, met: targetMet(c, t) };
  return cells;
}

/** true / false, or null when it cannot be judged (a missing or failed measurement). */
function targetMet(c, t) {
  if (t.status !== 'ok') return t.status === 'wrong' || t.status === 'error' ? false : null;
  if (c.target.kind === 'speedup') return t.vs_numpy === undefined ? null : t.vs_numpy >= c.target.min;
  return t.median_s < c.target.maxSeconds && t.max_rss_bytes < c.target.maxRssBytes;
}

// ---------------------------------------------------------------------------
// Output: JSON lines, the Markdown table, the result files.

function cellText(c, cell) {
  if (!cell) return '—';
  switch (cell.status) {
    case 'ok': {
      let s = fmtS(cell.median_s);
      if (cell.gflops !== undefined) s += ` · ${cell.gflops.toFixed(cell.gflops < 10 ? 2 : 1)} GFLOP/s`;
      if (cell.gbytes_per_s !== undefined) s += ` · ${cell.gbytes_per_s.toFixed(cell.gbytes_per_s < 10 ? 2 : 1)} GB/s`;
      if (c.bench === 'mc_pi' && cell.max_rss_bytes) s += ` · ${mib(cell.max_rss_bytes)}`;
      if (cell.single_run) s += ' ¹';
      if (cell.warn) s += ' ²';
      return s;
    }
    case 'wrong': return `**WRONG** (${cell.reason})`;
    case 'n/a': return `n/a (${cell.reason})`;
    case 'error': return `error (${cell.reason})`;
    default: return '—';
  }
}

function table(list, results, impls) {
  const head = ['case', ...impls.map((n) => IMPL_LABEL[n]), 'Tessera vs NumPy', 'target', 'met', 'other load'];
  const rows = list.map((c) => {
    const cells = results[c.id];
    const t = cells.tessera;
    const ratio = t?.vs_numpy !== undefined ? `${t.vs_numpy >= 10 ? t.vs_numpy.toFixed(1) : t.vs_numpy.toFixed(2)}×` : '—';
    const met = !t?.target ? '—' : t.target.met === null ? '?' : t.target.met ? 'yes' : '**no**';
    const load = Object.values(cells).find((x) => x.foreign_cores !== undefined)?.foreign_cores;
    return [caseLabel(c), ...impls.map((n) => cellText(c, cells[n])), ratio, t?.target?.text ?? '—', met, load === undefined ? '?' : load.toFixed(1)];
  });
  const esc = (s) => String(s).replace(/\|/g, '\\|');
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

function gitRev() {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${rev} + uncommitted src/ changes` : rev;
  } catch { return 'unknown'; }
}

async function main() {
  const only = opt('--only')?.split(',');
  const list = caseList({ quick: has('--quick'), huge: has('--huge') || !!only?.includes('mc_pi@1e10') })
    .filter((c) => !only || only.some((o) => o === c.bench || o === c.id));
  const impls = opt('--impls', ALL_IMPLS.join(',')).split(',').filter((n) => ALL_IMPLS.includes(n))
    .sort((a, b) => ALL_IMPLS.indexOf(a) - ALL_IMPLS.indexOf(b));
  // the mesh rows are Tessera's alone
  const meshSections = !impls.includes('tessera') ? []
    : !only || only.includes('mesh') ? MESH_SECTIONS : MESH_SECTIONS.filter((m) => only.includes(m));
  // the routines compare Tessera with NumPy, and only when asked for by name
  const routines = !!only?.includes('routines') && impls.includes('numpy') && impls.includes('tessera');
  if (only?.includes('routines') && !routines) log('bench: the routines need numpy and tessera in --impls: skipped\n');
  // the learn section (bench/learn.js) runs alone, only when asked for by name
  if (only?.includes('learn')) {
    if (only.length > 1) { log('bench: --only learn runs alone\n'); process.exit(2); }
    const args = [path.join(HERE, 'learn.js'), ...(has('--quick') ? ['--quick'] : []), ...(opt('--timeout') ? ['--timeout', opt('--timeout')] : [])];
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  // the linear algebra section (bench/linalg.js) runs alone, only when asked for by name
  if (only?.includes('linalg')) {
    if (only.length > 1) { log('bench: --only linalg runs alone\n'); process.exit(2); }
    const args = [path.join(HERE, 'linalg.js'), ...(has('--quick') ? ['--quick'] : []), ...(has('--huge') ? ['--huge'] : [])];
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  // the real-mesh Cholesky demonstration (bench/cholesky_mesh.js) runs alone, only when asked for by name
  if (only?.includes('mesh-cholesky')) {
    if (only.length > 1) { log('bench: --only mesh-cholesky runs alone\n'); process.exit(2); }
    const size = has('--quick') ? ['--n', '4096', '--tile', '512', '--memory', '64MiB'] : [];
    const r = spawnSync(process.execPath, [path.join(HERE, 'cholesky_mesh.js'), ...size], { cwd: ROOT, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  // the placement simulation (bench/placement.js) runs alone, only when asked for by name
  if (only?.includes('placement')) {
    if (only.length > 1) { log('bench: --only placement runs alone\n'); process.exit(2); }
    const r = spawnSync(process.execPath, [path.join(HERE, 'placement.js'), ...(has('--quick') ? ['--quick'] : [])], { cwd: ROOT, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  // the dataframe section runs alone, only when asked for by name
  const dataframe = !!only?.includes('dataframe');
  if (dataframe && only.length > 1) { log('bench: --only dataframe runs alone\n'); process.exit(2); }
  if (!list.length && !meshSections.length && !routines && !dataframe) { log(`bench: no case matches --only ${only}\n`); process.exit(2); }
  const meta = {
    type: 'meta', date: new Date().toISOString(), command: `node bench/run.js${argv.length ? ` ${argv.join(' ')}` : ''}`,
    node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?',
    mem_gib: +(os.totalmem() / 2 ** 30).toFixed(1), tessera_commit: gitRev(), impls,
  };
  process.stdout.write(JSON.stringify(meta) + '\n');
  const what = [list.length ? `${list.length} cases x [${impls.join(', ')}]` : '', meshSections.length ? `mesh (${meshSections.join(', ')})` : '', routines ? 'routines' : '', dataframe ? 'dataframe (db-benchmark)' : ''].filter(Boolean).join(', then ');
  log(`bench: ${what} on ${meta.cpus} x ${meta.cpu}, node ${meta.node}\n`);
  const t0 = performance.now();
  const info = {};
  const unavailable = {};
  const results = {};
  const done = [];
  for (const c of list) {
    log(`bench: ${caseLabel(c)}\n`);
    const names = impls.filter((n) => !c.only || c.only.includes(n));
    results[c.id] = await runCase(c, names, info, unavailable, done);
    done.push({ c, cells: results[c.id] });
    for (const name of names) {
      const cell = results[c.id][name];
      process.stdout.write(JSON.stringify({ type: 'result', case: c.id, ...cell }) + '\n');
      log(`  ${name.padEnd(8)} ${cellText(c, cell)}${cell.vs_numpy !== undefined && name !== 'numpy' ? `  (${cell.vs_numpy.toFixed(2)}x NumPy)` : ''}\n`);
    }
  }
  const mesh = meshSections.length ? await runMesh(meshSections) : undefined;
  const routineRows = routines ? await runRoutines() : undefined;
  const frames = dataframe ? await runDataframe() : undefined;
  meta.total_s = (performance.now() - t0) / 1000;
  meta.versions = info;
  meta.unavailable = unavailable;
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ meta, cases: list, results, ...(mesh ? { mesh } : {}), ...(routineRows ? { routines: routineRows } : {}), ...(frames ? { dataframe: frames } : {}) }, null, 2) + '\n');
  report(meta, list, results, mesh, routineRows, frames);
}

// ---------------------------------------------------------------------------
// The routines: bench/routines.js runs each program in processes of its own
// (with its own timeout per process, --timeout here) and prints a meta line,
// then one {"type": "routines"} line per row, passed on here as they come.

async function runRoutines() {
  log('bench: routines\n');
  const args = [path.join(HERE, 'routines.js'), '--sizes', has('--quick') ? '1e6' : '1e8',
    ...(opt('--timeout') ? ['--timeout', opt('--timeout')] : []),
    ...(opt('--reps-scale') ? ['--runs', String(Math.max(1, Math.round(3 * REPS_SCALE)))] : [])];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const out = { meta: undefined, rows: [] };
  readline.createInterface({ input: proc.stdout }).on('line', (l) => {
    let o;
    try { o = JSON.parse(l); } catch { return; }
    if (o.type === 'meta') out.meta = o;
    if (o.type !== 'routines') return;
    out.rows.push(o);
    process.stdout.write(JSON.stringify(o) + '\n');
  });
  const end = await new Promise((resolve) => {
    proc.on('error', (e) => resolve(`could not start: ${e.message}`));
    proc.on('exit', (code, sig) => resolve(code === 0 ? undefined : `exited (${sig ?? `code ${code}`})`));
  });
  if (end) out.error = `bench/routines.js ${end}`;
  return out;
}

// ---------------------------------------------------------------------------
// The dataframe section: bench/dataframe.js runs each system in processes of
// its own and prints a meta line, one {"type": "dataframe_system"} line per
// system, then one {"type": "dataframe"} line per row, passed on here.

async function runDataframe() {
  log('bench: dataframe (db-benchmark)\n');
  const args = [path.join(HERE, 'dataframe.js'), ...(has('--quick') ? ['--quick'] : []), ...(opt('--timeout') ? ['--timeout', opt('--timeout')] : [])];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const out = { meta: undefined, systems: [], rows: [] };
  readline.createInterface({ input: proc.stdout }).on('line', (l) => {
    let o;
    try { o = JSON.parse(l); } catch { return; }
    if (o.type === 'meta') out.meta = o;
    else if (o.type === 'dataframe_system') out.systems.push(o);
    else if (o.type === 'dataframe') out.rows.push(o);
    else return;
    if (o.type !== 'meta') process.stdout.write(JSON.stringify(o) + '\n');
  });
  const end = await new Promise((resolve) => {
    proc.on('error', (e) => resolve(`could not start: ${e.message}`));
    proc.on('exit', (code, sig) => resolve(code === 0 ? undefined : `exited (${sig ?? `code ${code}`})`));
  });
  if (end) out.error = `bench/dataframe.js ${end}`;
  return out;
}

// ---------------------------------------------------------------------------
// The mesh rows: bench/mesh.js measures them in a process of its own and
// prints one {"type": "mesh"} line per row, passed on here as they come.

async function runMesh(sections) {
  log('bench: mesh\n');
  const args = [path.join(HERE, 'mesh.js'), '--only', sections.join(','), '--reps-scale', String(REPS_SCALE), ...(has('--quick') ? ['--quick'] : [])];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const rows = [];
  let tail = '';
  proc.stderr.on('data', (d) => { process.stderr.write(d); tail = (tail + d).slice(-4000); });
  // a section prints its rows when it ends; silence past the timeout means it hangs
  let timer;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      tail += `\nno result within ${TIMEOUT_S} s (stopped)`;
      proc.kill('SIGTERM'); // mesh.js stops its workers on SIGTERM
      setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
    }, TIMEOUT_S * 1000);
  };
  arm();
  readline.createInterface({ input: proc.stdout }).on('line', (l) => {
    let o;
    try { o = JSON.parse(l); } catch { return; }
    if (o.type !== 'mesh') return;
    rows.push(o);
    process.stdout.write(JSON.stringify(o) + '\n');
    arm();
  });
  const end = await new Promise((resolve) => {
    proc.on('error', (e) => resolve(`could not start: ${e.message}`));
    proc.on('exit', (code, sig) => resolve(code === 0 ? undefined : `exited (${sig ?? `code ${code}`})`));
  });
  clearTimeout(timer);
  if (end) {
    const last = tail.trim().split('\n').filter((l) => l.trim()).at(-1) ?? '';
    const row = { type: 'mesh', case: 'mesh', bench: 'mesh', status: 'error', reason: `bench/mesh.js ${end}${last ? `: ${last.slice(0, 300)}` : ''}` };
    rows.push(row);
    process.stdout.write(JSON.stringify(row) + '\n');
  }
  return rows;
}

/** The Markdown tables and notes: printed, and written to bench/results/latest.md. */
function report(meta, list, results, mesh, routines, frames) {
  const text = [list.length ? casesText(meta, list, results) : '', mesh?.length ? meshText(meta, mesh, !list.length) : '', routines ? routinesSection(routines) : '', frames ? dataframeSection(frames) : ''].filter(Boolean).join('\n');
  process.stdout.write(`\n${text}`);
  writeFileSync(path.join(HERE, 'results', 'latest.md'), `# Benchmark results\n\n${meta.date}, \`${meta.command}\` (${(meta.total_s / 60).toFixed(1)} min)\n\n${text}`);
  log(`bench: done in ${(meta.total_s / 60).toFixed(1)} min; wrote bench/results/latest.md and latest.json\n`);
}

function casesText(meta, list, results) {
  const { impls, versions: info = {}, unavailable = {} } = meta;
  const shown = impls.filter((n) => list.some((c) => results[c.id][n] && results[c.id][n].status !== 'not run'));
  const md = table(list, results, shown);
  const notes = [
    `Median wall time of the timed runs after one warm-up run; runs of all implementations interleave, one process computing at a time. "Tessera vs NumPy" = NumPy's time / Tessera's time (> 1: Tessera is faster). Every run's answer is checked against a reference from the same inputs (pi within 6 standard errors; means and sums to a relative 1e-9 in float64; argmax exactly; matmul by C@w = A@(B@w)); a wrong one shows as WRONG, with no time.`,
    'Monte Carlo cells also show the peak RSS of that implementation\'s process (a fresh process per case); matmul cells show GFLOP/s (2n³ per product).',
    `Machine: ${meta.cpus} x ${meta.cpu}, ${meta.mem_gib} GiB RAM, ${meta.platform}, node ${meta.node}. Tessera ${meta.tessera_commit}.`,
    `Versions and threads: ${Object.entries(info).map(([k, v]) => `${IMPL_LABEL[k]} ${v.version} (${v.threads})`).join('; ')}.`,
    ...Object.entries(unavailable).map(([k, v]) => `${IMPL_LABEL[k]} not run: ${v}`),
  ];
  const cellsOf = (pred) => list.some((c) => Object.values(results[c.id]).some(pred));
  if (cellsOf((x) => x.status === 'ok' && x.warn)) notes.splice(1, 0, '² the answer is right but less precise than its dtype allows (see the per-cell notes).');
  if (cellsOf((x) => x.single_run)) notes.splice(1, 0, `¹ the first run took over ${LONG_S + CELL_BUDGET_S} s, so it is the only (and the timed) run.`);
  const judged = list.filter((c) => results[c.id].tessera?.target && results[c.id].tessera.target.met !== null);
  if (judged.length) {
    const missed = judged.filter((c) => !results[c.id].tessera.target.met).map(caseLabel);
    notes.push(`Tessera's targets: ${judged.length - missed.length} of ${judged.length} met${missed.length ? `; missed: ${missed.join('; ')}` : ''}.`);
  }
  notes.push(`"other load": cores (of ${meta.cpus}) that other processes on the machine kept busy, on average, while the case ran (machine busy time minus the benchmark's own processes); rows with a high value are noisier and penalise whichever implementation uses more cores.`);
  // Per-cell notes, grouped: "impl: note (case, case)".
  const grouped = new Map();
  for (const c of list) {
    for (const [name, cell] of Object.entries(results[c.id])) {
      for (const n of [cell.note, cell.warn]) {
        if (!n) continue;
        const k = `${IMPL_LABEL[name]}: ${n}`;
        if (!grouped.has(k)) grouped.set(k, []);
        grouped.get(k).push(caseLabel(c));
      }
    }
  }
  const cellNotes = [...grouped].map(([k, cs]) => `${k} (${cs.join('; ')})`);
  return `${md}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n${cellNotes.length ? `\nPer-cell notes:\n${cellNotes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}

/** The "Routines" table (rows of bench/routines.js), or why there is none. */
function routinesSection({ meta, rows, error }) {
  const body = rows.length && meta ? routinesText(rows, meta) : '';
  return `## Routines\n\n${body}${error ? `${body ? '\n' : ''}- ${error}\n` : ''}`;
}

/** The "DataFrame" table (rows of bench/dataframe.js), or why there is none. */
function dataframeSection({ meta, systems, rows, error }) {
  const body = rows.length && meta ? dataframeText(rows, systems, meta) : '';
  return `## DataFrame: the h2o db-benchmark\n\n${body}${error ? `${body ? '\n' : ''}- ${error}\n` : ''}`;
}

const fmtBytes = (b) => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);

function meshLabel(r) {
  switch (r.bench) {
    case 'mesh_link': return `data channel, ${r.messages} × ${fmtBytes(r.message_bytes)} messages`;
    case 'mesh_tasks': return `tiny tasks, n=${r.elements} in chunks of ${r.chunk_elements}`;
    case 'mesh_pi': return `Monte Carlo pi, N=${fmtN(r.points)}`;
    case 'mesh_verify': return `verification cost: pi, N=${fmtN(r.points)}`;
    case 'mesh_detect': return `a worker lying on every result, ${r.trials} simulated jobs`;
    case 'mesh_churn': return `${r.tasks} tasks, ${r.kills} of ${r.peers} peers killed`;
    case 'mesh_sort': return `sort, N=${fmtN(r.elements)} float64`;
    default: return r.case;
  }
}

function meshSetup(r) {
  if (r.setup === 'link') return '2 Node processes';
  if (r.setup === 'local') return 'local executor';
  if (r.setup === 'mesh') return `mesh, ${r.peers} worker${r.peers > 1 ? 's' : ''}${r.verify ? `, verify '${r.verify}'` : ''}`;
  if (r.setup === 'sim') return r.bench === 'mesh_churn' ? `simulated, ${r.peers} workers` : `simulated, ${r.peers} workers, verify 'sample'`;
  return '—';
}

/** The "Mesh" table (rows of bench/mesh.js) and its notes. */
function meshText(meta, rows, alone) {
  const head = ['case', 'setup', 'runs', 'median', 'rate', 'vs local', 'tasks', 'bytes moved', 'other load'];
  const body = rows.map((r) => {
    const load = r.foreign_cores === undefined ? '?' : r.foreign_cores.toFixed(1);
    if (r.status !== 'ok') return [meshLabel(r), meshSetup(r), '—', r.status === 'wrong' ? `**WRONG** (${r.reason})` : `error (${r.reason})`, '—', '—', '—', '—', load];
    if (r.bench === 'mesh_churn') return [meshLabel(r), meshSetup(r), String(r.runs.length), `${fmtS(r.median_s)} (${fmtS(r.calm_median_s)} without failures: ${r.ratio.toFixed(2)}×)`, '—', '—', `${r.tasks} (${r.reports.reduce((a, x) => a + x.releases, 0)} releases, ${r.reports.reduce((a, x) => a + x.recomputed, 0)} recomputed in ${r.runs.length} runs)`, '—', load];
    if (r.bench === 'mesh_detect') return [meshLabel(r), meshSetup(r), String(r.trials), '—', `caught in ${r.caught}/${r.trials}, within 50 of its tasks in ${r.caught_within_50}/${r.trials}; median ${r.median_before_caught}, max ${r.max_before_caught} wrong results before; ${r.wrong} wrong answers${r.freivalds_blocks ? `; Freivalds: ${r.freivalds_caught}/${r.freivalds_blocks} corrupted matmul blocks caught (${(r.freivalds_caught / r.freivalds_blocks).toFixed(4)})` : ''}`, '—', '—', '—', load];
    if (r.bench === 'mesh_sort') {
      const last = r.reports?.at(-1);
      const moved = r.setup === 'mesh' ? `${fmtBytes(last.bytes_moved)} = ${r.moved_over_data.toFixed(3)}× the data; the coordinator received ${fmtBytes(last.coordinator_bytes_in)} in all (${fmtBytes(last.bytes_to_coordinator)} of pieces)` : '—';
      return [meshLabel(r), meshSetup(r), String(r.runs.length), fmtS(r.median_s), `${(r.elements / r.median_s / 1e6).toFixed(1)} M/s`, r.vs_local === undefined ? '—' : `${r.vs_local.toFixed(2)}×`, r.setup === 'mesh' ? `${last.jobs} jobs` : '—', moved, load];
    }
    const rate = r.mb_per_s !== undefined ? `${r.mb_per_s.toFixed(1)} MB/s` : r.tasks_per_s !== undefined ? `${Math.round(r.tasks_per_s)} tasks/s` : `${r.mpoints_per_s.toFixed(0)} Mpoints/s`;
    // work a mesh did again (a lease lapsed, a piece was lost, a straggler was copied), summed over the timed runs
    const again = ['releases', 'recomputed', 'speculative'].map((k) => [k, (r.reports ?? []).reduce((a, x) => a + (x[k] ?? 0), 0)]).filter(([, v]) => v);
    const tasks = r.tasks === undefined ? '—' : `${r.tasks}${again.length ? ` (${again.map(([k, v]) => `${v} ${k}`).join(', ')} in ${r.runs.length} runs)` : ''}`;
    const last = r.reports?.at(-1);
    const moved = r.setup === 'link' ? `${fmtBytes(r.bytes)} per batch` : r.setup === 'mesh' ? `${fmtBytes(last.bytes_moved)} (coordinator traffic ${fmtBytes(last.coordinator_bytes)})` : '—';
    const verified = r.overhead !== undefined ? ` (${r.overhead >= 0 ? '+' : ''}${(100 * r.overhead).toFixed(1)}% vs 'off'; re-runs per job ${r.check_runs.join(', ')})` : '';
    return [meshLabel(r), meshSetup(r), String(r.runs.length), fmtS(r.median_s) + verified, rate, r.vs_local === undefined ? '—' : `${r.vs_local.toFixed(2)}×`, tasks, moved, load];
  });
  const esc = (s) => String(s).replace(/\|/g, '\\|');
  const md = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...body.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
  const slots = rows.find((r) => r.slots?.length)?.slots[0];
  const piWorkers = rows.filter((r) => r.bench === 'mesh_pi' && r.setup === 'mesh').reduce((a, r) => a + r.peers, 0);
  const benches = new Set(rows.map((r) => r.bench));
  const computes = benches.has('mesh_tasks') || benches.has('mesh_pi') || benches.has('mesh_sort');
  const notes = [
    'Median of the timed runs after one untimed warm-up. The setups of a case take turns round by round (local executor, then the meshes), one computing at a time, on the same seed per round. "vs local" = the local executor\'s median / the mesh\'s (> 1: the mesh is faster).',
    benches.has('mesh_link') && 'Data channel: payload MB/s (10⁶ bytes/s) of `piece` messages sent by a MeshNode in the benchmark\'s process to a MeshNode in a second Node process, over loopback (WebRTC data channel, @roamhq/wrtc); a batch is timed from its first send to the receiver\'s acknowledgement that all its bytes arrived.',
    benches.has('mesh_tasks') && 'Tiny tasks: `uniform(0, 1, [n], { chunkSize: 1024 }) * 2 + 1`, summed: one task per chunk plus the final combine; tasks/s = tasks / median time.',
    benches.has('mesh_pi') && 'Monte Carlo pi: the demo\'s program (float64, default chunking); rate in million points per second.',
    benches.has('mesh_verify') && 'Verification cost: the same pi program on 3 workers, coordinated by two sessions in one room, one with `verify: \'off\'`, one with `verify: \'sample\'` (a sample of each peer\'s results re-run on another peer and compared by digest; 20% for a new peer, decaying to 3%), interleaved; the percentage is the sample session\'s median over the unverified one\'s. Trust carries over between a session\'s jobs, so re-runs fall from job to job.',
    benches.has('mesh_sort') && 'Sort: `mt.sort(mt.random.uniform(0, 1, [N])).multiply(mt.arange(N)).sum()` on 3 workers; an execution of several jobs (the draw, the sorted runs, their samples, the rank table, its column sums and bracketing columns, the merge, the sum), each stage\'s results kept on the workers and read by the next peer to peer. Target: bytes moved at most 1.1× the data (each element crosses the network at most once); the coordinator receives the sum, and the split positions it plans the merge with.',
    benches.has('mesh_churn') && 'Churn: one job on the simulated network (one process, the tasks computed for real on its pool), run without failures and with 8 of its 20 workers killed at random moments of the first 80% of the job, alternately; the answer checked against the local run each time. Target: under 2× the failure-free time.',
    benches.has('mesh_detect') && 'Detection: jobs of 400 partial sums on the simulated network (src/mesh/sim.ts), four workers one of which corrupts every result; how many wrong results it committed before it was caught (each is then recomputed; the answers are checked against the local run). Freivalds: 64x64 float64 blocks corrupted the way the test finds hardest (+1 and -1 in two entries of one row), each checked once; target: caught with probability ≥ 0.999 per checked block.',
    computes && `Every mesh answer is checked to equal, bit for bit, the local executor's for the same seed${benches.has('mesh_pi') ? '; pi must also be within 6 standard errors of π' : ''}. A mismatch shows as WRONG, with no time.`,
    computes && `Workers are \`tessera worker\` processes on this same machine, linked to the coordinator (the benchmark's process) by WebRTC data channels${slots ? `, each with a pool of ${slots} threads (one per core)` : ''}.${piWorkers ? ` On ${meta.cpus} cores, 2 and 4 workers oversubscribe the machine${slots ? ` (${2 * slots} and ${4 * slots} pool threads)` : ''}: these rows measure the mesh's overhead, not the speedup of more machines. The ${piWorkers} worker processes of the pi rows stay up through all its rounds; idle ones only exchange mesh state.` : ''}`,
    computes && 'bytes moved: bytes of chunk pieces moved between peers in the last timed run (pieces workers fetched from each other, outputs the coordinator fetched), from the coordinator\'s report; in brackets, every byte the coordinator sent and received during that run (pieces, task messages, heartbeats, state updates).',
    `"other load": cores (of ${meta.cpus}) other processes kept busy, on average, during the section (machine busy time minus the benchmark's processes, its workers included).`,
  ];
  if (alone) notes.push(`Machine: ${meta.cpus} x ${meta.cpu}, ${meta.mem_gib} GiB RAM, ${meta.platform}, node ${meta.node}. Tessera ${meta.tessera_commit}.`);
  return `## Mesh\n\n${md}\n\n${notes.filter(Boolean).map((n) => `- ${n}`).join('\n')}\n`;
}

if (opt('--render')) {
  // Re-renders the table of a saved run: node bench/run.js --render bench/results/latest.json
  const { meta, cases, results, mesh, routines, dataframe } = JSON.parse(readFileSync(opt('--render'), 'utf8'));
  mkdirSync(path.join(HERE, 'results'), { recursive: true });
  report(meta, cases, results, mesh, routines, dataframe);
} else {
  await main();
}
