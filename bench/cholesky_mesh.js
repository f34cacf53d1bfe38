#!/usr/bin/env node
// The real-mesh Cholesky demonstration (issue 34): worker processes, each
// capped by `--memory`, factor a matrix larger than any one of them may hold
// and solve with the factor; the relative residual is printed.
//
//   node bench/cholesky_mesh.js [--n 12288] [--tile 1024] [--memory 512MiB] [--workers 3] [--rho 0.5] [--out path] [--worker-logs dir]
//   npm run bench -- --only mesh-cholesky          (the same, through bench/run.js)
//
// Setup as `tessera demo` makes it: a signaling server in this process,
// `node dist/cli/tessera.js worker --signal URL --room R --token T --memory M
// --verbose` child processes, and a coordinator Session here.
// The matrix is never whole anywhere: A is a lazy elementwise expression of
// two broadcast aranges chunked by the tile size,
//   A_ij = ρ^|i−j| + sin(αi)·sin(αj) + δ_ij
// (Kac–Murdock–Szegő, whose eigenvalues lie in [(1−ρ)/(1+ρ), (1+ρ)/(1−ρ)],
// plus a rank-one positive semidefinite term and the identity: symmetric
// positive definite, condition number below 2 + (1+ρ)/(1−ρ) + n/2), so each
// of its tiles is computed by a worker's kernel task where it is first read.
// Job 1 is L = cholesky(A), x = cho_solve((L, True), b), with b_i = sin(0.37 i):
// only x (n × 1) comes to the coordinator; L's tiles and the DAG's workspace
// live on the workers and are freed as their readers finish. Job 2
// regenerates A from its lineage and computes ‖A x − b‖₂, ‖A‖_F and ‖x‖₂
// chunked (three scalars come back); the relative residual is
// ‖A x − b‖ / (‖A‖_F ‖x‖).
// Printed: progress on stderr while it runs; then one JSON line and one
// human line on stdout with the wall times, GFLOP/s (n³/3 + 2n² over job 1's
// time), bytes moved between peers, the bytes the coordinator received, and
// each worker's peak: the bytes of pieces it held at once (from its
// `--verbose` task lines; the cap counts the pieces it wrote, fetched copies
// may add a quarter more) and its process's peak resident set (VmHWM: pieces,
// the WASM pool's heaps and Node itself). Written to
// bench/results/cholesky_mesh.{json,md}.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const CLI = path.join(ROOT, 'dist/cli/tessera.js');
const dist = (p) => import(new URL(p, new URL('../', import.meta.url)).href);

const argv = process.argv.slice(2);
const OPTIONS = ['--n', '--tile', '--memory', '--workers', '--rho', '--out', '--worker-logs'];
for (let i = 0; i < argv.length; i++) {
  if (OPTIONS.includes(argv[i]) && argv[i + 1] !== undefined) { i++; continue; }
  process.stderr.write(`cholesky_mesh: unknown argument ${argv[i]}\nusage: node bench/cholesky_mesh.js [${OPTIONS.map((o) => `${o} v`).join('] [')}]\n`);
  process.exit(2);
}
const opt = (f, d) => { const i = argv.indexOf(f); return i >= 0 ? argv[i + 1] : d; };
const N = Number(opt('--n', '12288'));
const TILE = Number(opt('--tile', '1024'));
const MEMORY = opt('--memory', '512MiB');
const WORKERS = Number(opt('--workers', '3'));
const RHO = Number(opt('--rho', '0.5'));
/** Where the results go (bench/results/cholesky_mesh.{json,md}); `-` writes none. */
const OUT = opt('--out', path.join(HERE, 'results', 'cholesky_mesh'));
/** A folder to write each worker's `--verbose` lines to (worker-1.log, ...), for a look at its tasks and fetches. */
const LOGS = opt('--worker-logs', undefined);
const ALPHA = 0.01;
const WAIT_MS = 120_000;

const log = (s) => process.stderr.write(s);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;

// ---------------------------------------------------------------------------
// Worker processes: their `--verbose` lines give the bytes of pieces held;
// /proc gives the process's peak resident set.

const children = [];

function startWorker(url, room, token, k) {
  const args = [CLI, 'worker', '--signal', url, '--room', room, '--token', token, '--memory', MEMORY, '--verbose'];
  const p = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const c = { p, label: `worker ${k + 1}`, id: undefined, peakWritten: 0, peakHeld: 0, tasks: 0, refused: 0, hwm: 0, tail: '', buf: '' };
  p.stderr.on('data', (d) => {
    c.buf += d;
    const lines = c.buf.split('\n');
    c.buf = lines.pop();
    if (LOGS) appendFileSync(path.join(LOGS, `worker-${k + 1}.log`), lines.map((l) => `${l}\n`).join(''));
    for (const l of lines) {
      c.tail = (c.tail + l + '\n').slice(-4000);
      const joined = /\[worker\] (\S+) joined/.exec(l);
      if (joined) c.id = joined[1];
      const done = /task \S+ done in \d+ ms; .* at most (\d+) written, (\d+) in all/.exec(l);
      if (done) { c.tasks++; c.peakWritten = Math.max(c.peakWritten, Number(done[1])); c.peakHeld = Math.max(c.peakHeld, Number(done[2])); }
      if (/failed: memory cap/.test(l)) { c.refused++; log(`  ${c.label}: ${l.replace(/^\[worker\] /, '')}\n`); }
    }
  });
  p.on('exit', (code, sig) => { c.exited = `${c.label} exited (${sig ?? `code ${code}`}): ${c.tail.trim().split('\n').at(-1) ?? ''}`; });
  children.push(c);
  return c;
}

/** Peak resident set of a live process in bytes (VmHWM), or what was last read. */
function hwm(c) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${c.p.pid}/status`, 'utf8'));
    if (m) c.hwm = Number(m[1]) * 1024;
  } catch { /* exited */ }
  return c.hwm;
}

async function stopWorker(c) {
  if (c.exited) return;
  hwm(c);
  const gone = new Promise((r) => c.p.once('exit', r));
  c.p.kill('SIGTERM');
  if (await Promise.race([gone.then(() => true), sleep(5000).then(() => false)])) return;
  c.p.kill('SIGKILL');
  await gone;
}

// ---------------------------------------------------------------------------
// The program.

/** A (n × n, tiles T × T) as a lazy elementwise expression, and b (n × 1). */
function problem(mt) {
  const i = mt.arange(N, { chunkSize: TILE }).reshape([N, 1]);
  const j = mt.arange(N, { chunkSize: TILE }).reshape([1, N]);
  const A = mt.exp(mt.abs(mt.subtract(i, j)).multiply(Math.log(RHO)))
    .add(mt.multiply(mt.sin(i.multiply(ALPHA)), mt.sin(j.multiply(ALPHA))))
    .add(mt.equal(i, j).astype('float64'));
  const b = mt.sin(mt.arange(N, { chunkSize: TILE }).multiply(0.37)).reshape([N, 1]);
  return { A, b };
}

/** An onProgress that prints a line every few seconds (and the last one). */
function progress(label, t0) {
  let last = 0;
  return ({ done, total }) => {
    const now = performance.now();
    if (now - last < 5000 && done < total) return;
    last = now;
    const held = children.map((c) => `${c.label} ${mib(c.peakWritten)}`).join(', ');
    log(`  ${label}: ${done}/${total} tasks, ${((now - t0) / 1000).toFixed(1)} s (peak pieces written: ${held})\n`);
  };
}

async function main() {
  const mt = await dist('dist/api/tensor.js');
  const { startSignalServer } = await dist('signaling-server/dist/server.js');
  const { mintToken } = await dist('signaling-server/dist/token.js');
  const { Session } = await dist('dist/mesh/session.js');
  const bytes = N * N * 8;
  log(`cholesky_mesh: n = ${N} (${(bytes / 1e9).toFixed(2)} GB float64), tiles ${TILE}, ${WORKERS} workers with --memory ${MEMORY}\n`);

  const secret = randomBytes(16).toString('hex');
  const server = await startSignalServer({ port: 0, secret, log: () => undefined });
  const room = 'cholesky';
  const token = mintToken(secret, room, 6 * 3600);
  let s;
  const stop = async () => {
    await s?.close();
    await Promise.all(children.map(stopWorker));
    await server.close();
    await mt.shutdown();
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => void stop().then(() => process.exit(1)));
  try {
    for (let k = 0; k < WORKERS; k++) startWorker(server.url, room, token, k);
    s = await Session.open({ signal: server.url, room, token });
    const tw = Date.now();
    while (s.workers().size < WORKERS) {
      const dead = children.find((c) => c.exited);
      if (dead) throw new Error(dead.exited);
      if (Date.now() - tw > WAIT_MS) throw new Error(`only ${s.workers().size} of ${WORKERS} workers joined within ${WAIT_MS / 1000} s`);
      await sleep(50);
    }
    log(`  ${WORKERS} workers joined (${[...s.workers().values()].map((w) => `${w.slots} slots`).join(', ')})\n`);

    // job 1: the factor and the solve; only x comes here
    const { A, b } = problem(mt);
    const L = mt.linalg.cholesky(A);
    const x = mt.linalg.cho_solve([L, true], b);
    const t1 = performance.now();
    await x.execute({ session: s, onProgress: progress('factor + solve', t1) });
    const factorS = (performance.now() - t1) / 1000;
    const r1 = s.lastReport;
    const xs = (await x.fetch()).data;

    // job 2: the residual, A regenerated from its lineage
    const p2 = problem(mt);
    const r = mt.subtract(mt.matmul(p2.A, x), p2.b);
    const t2 = performance.now();
    const [rr, aa, xx] = await s.execute(mt.sum(mt.multiply(r, r)), mt.sum(mt.multiply(p2.A, p2.A)), mt.sum(mt.multiply(x, x)));
    const residualS = (performance.now() - t2) / 1000;
    const r2 = s.lastReport;
    const [rn, an, xn] = await Promise.all([rr, aa, xx].map(async (t) => Math.sqrt(Number((await t.fetch()).item()))));
    const rel = rn / (an * xn);

    const flops = N ** 3 / 3 + 2 * N ** 2;
    const workers = children.map((c) => {
      const peer = [...r1.peers, ...r2.peers].filter((p) => p.id === c.id);
      return {
        worker: c.label, id: c.id, tasks: peer.reduce((a, p) => a + p.tasks, 0), refused: c.refused,
        peak_written_bytes: c.peakWritten, peak_held_bytes: c.peakHeld, peak_rss_bytes: hwm(c),
      };
    });
    const row = {
      type: 'mesh_cholesky', n: N, tile: TILE, workers: WORKERS, memory: MEMORY, matrix_bytes: bytes,
      factor_solve_s: +factorS.toFixed(3), residual_s: +residualS.toFixed(3), gflops: +(flops / factorS / 1e9).toFixed(2),
      relative_residual: rel, residual_norm: rn, a_fro: an, x_norm: xn, x_finite: xs.every(Number.isFinite),
      tasks: r1.tasks + r2.tasks, bytes_moved: r1.bytesMoved + r2.bytesMoved, bytes_to_coordinator: r1.bytesToCoordinator + r2.bytesToCoordinator,
      releases: r1.releases + r2.releases, recomputed: r1.recomputed + r2.recomputed,
      per_worker: workers, coordinator_peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
      cpus: os.cpus().length, node: process.version, date: new Date().toISOString(),
    };
    const human = `Cholesky + solve of a ${N}² float64 matrix (${(bytes / 1e9).toFixed(2)} GB) on ${WORKERS} workers with --memory ${MEMORY}, tiles ${TILE}: `
      + `${factorS.toFixed(1)} s (${row.gflops} GFLOP/s), residual pass ${residualS.toFixed(1)} s; ‖Ax−b‖/(‖A‖_F‖x‖) = ${rel.toExponential(2)}; `
      + `${(row.bytes_moved / 1e9).toFixed(2)} GB moved between peers, `
      + `${(row.bytes_to_coordinator / 1024).toFixed(0)} KiB to the coordinator (x and three sums); `
      + `per worker, peak pieces written ${workers.map((w) => mib(w.peak_written_bytes)).join(' / ')} (cap ${MEMORY}), with fetched copies `
      + `${workers.map((w) => mib(w.peak_held_bytes)).join(' / ')}, peak RSS ${workers.map((w) => mib(w.peak_rss_bytes)).join(' / ')}`;
    console.log(JSON.stringify(row));
    console.log(human);
    if (OUT !== '-') {
      mkdirSync(path.dirname(OUT), { recursive: true });
      writeFileSync(`${OUT}.json`, JSON.stringify(row, null, 2) + '\n');
      const cmd = `node bench/cholesky_mesh.js --n ${N} --tile ${TILE} --memory ${MEMORY} --workers ${WORKERS}`;
      const md = [
        '# Real-mesh Cholesky', '', `\`${cmd}\` (${row.date}, ${row.cpus} CPUs, Node ${row.node})`, '', human, '',
        '| worker | tasks | refused (memory cap) | peak pieces written | with fetched copies | peak RSS |', '|---|---:|---:|---:|---:|---:|',
        ...workers.map((w) => `| ${w.worker} | ${w.tasks} | ${w.refused} | ${mib(w.peak_written_bytes)} | ${mib(w.peak_held_bytes)} `
          + `| ${mib(w.peak_rss_bytes)} |`), '',
      ].join('\n');
      writeFileSync(`${OUT}.md`, md);
    }
  } finally {
    await stop();
  }
}

main().then(() => process.exit(0), (e) => {
  log(`cholesky_mesh: ${e?.stack ?? e}\n`);
  for (const c of children) if (c.exited) log(`  ${c.exited}\n`);
  process.exit(1);
});
