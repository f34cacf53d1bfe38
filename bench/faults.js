#!/usr/bin/env node
// The mesh's faults replayed on the built package (issue 30's scenarios), on
// loopback: a signaling server in this process, `tessera worker` child
// processes, a coordinator session here. Each probe prints what it saw:
//   freeze   pi 3e8 on 3 workers; one worker SIGSTOPped for 40 s, then
//            continued; three more jobs, timed against the undisturbed one
//   restart  the signaling server closed and started again on its port under
//            3 workers: how soon they are back, and a job after
//   liar     4 workers, one with --lie-for-tests 0.05 (then 0.01), verify
//            'sample': 8 jobs each, how many answers differ from the local run
//   closed   execute on a closed session (rejects, or hangs)
//   cli      --help / -h on every command (exit code, first line)
//   sizes    mt.zeros([1e6, 1e6]).sum() and a bad axis (the refusals)
//
//   npm run build && node bench/faults.js [freeze|restart|liar|closed|cli|sizes]...
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const mt = await import(`${ROOT}dist/api/tensor.js`);
const { session } = await import(`${ROOT}dist/index.js`);
const { startSignalServer } = await import(`${ROOT}signaling-server/dist/server.js`);
const { mintToken } = await import(`${ROOT}signaling-server/dist/token.js`);
const CLI = `${ROOT}dist/cli/tessera.js`;
const SECRET = 'probe';
const kids = [];
let server;
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);
function worker(room, ...extra) {
  const c = spawn(process.execPath, [CLI, 'worker', '--signal', server.url, '--room', room, '--token', mintToken(SECRET, room, 3600), '--memory', '1GiB', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  c.log = ''; c.stderr.on('data', (d) => { c.log += d; });
  kids.push(c); return c;
}
const pi = (n, chunk, seed = 3) => { mt.random.seed(seed); const d = mt.random.uniform(-1, 1, [n, 2], chunk ? { chunkSize: chunk } : {}); return mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum(); };
async function timed(s, n, chunk, seed) { const x = pi(n, chunk, seed); const t0 = performance.now(); await x.execute({ session: s }); return { ms: performance.now() - t0, v: Number((await x.fetch()).item()), rep: s.lastReport }; }
const local = async (n, chunk, seed) => Number((await pi(n, chunk, seed).fetch()).item());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const probes = {
  async freeze() {
    const room = 'freeze';
    const ws = [worker(room), worker(room), worker(room)];
    const s = await session({ signal: server.url, room, token: mintToken(SECRET, room, 3600) });
    await s.waitForWorkers(3, 60000);
    const N = 3e8, want = await local(N);
    await timed(s, N); // warm
    const a = await timed(s, N);
    log('undisturbed', a.ms.toFixed(0), 'ms', a.v === want);
    ws[1].kill('SIGSTOP'); log('SIGSTOP worker 1 for 40 s');
    await sleep(40000);
    ws[1].kill('SIGCONT'); log('SIGCONT');
    await sleep(3000);
    for (let i = 0; i < 3; i++) { const b = await timed(s, N); log(`after ${i}`, b.ms.toFixed(0), 'ms', `x${(b.ms / a.ms).toFixed(2)}`, b.v === want ? 'ok' : 'WRONG', 'peers', b.rep.peers.length, 'releases', b.rep.releases, 'recomputed', b.rep.recomputed); }
    await s.close();
  },
  async restart() {
    const room = 'restart';
    for (let i = 0; i < 3; i++) worker(room);
    let s = await session({ signal: server.url, room, token: mintToken(SECRET, room, 3600) });
    await s.waitForWorkers(3, 60000); await s.close();
    const port = server.port; await server.close(); log('server closed');
    await sleep(2000);
    server = await startSignalServer({ port, secret: SECRET, log: () => undefined });
    const t0 = Date.now(); log('server restarted');
    for (;;) { const r = server.rooms().get(room) ?? []; if (r.length >= 3) break; if (Date.now() - t0 > 60000) { log('NOT BACK', r.length); break; } await sleep(200); }
    log('workers back in', ((Date.now() - t0) / 1000).toFixed(1), 's');
    s = await session({ signal: server.url, room, token: mintToken(SECRET, room, 3600) });
    await s.waitForWorkers(3, 30000);
    const b = await timed(s, 1e7, 1e5); log('job after restart', b.v === (await local(1e7, 1e5)) ? 'ok' : 'WRONG', b.rep.peers.length, 'peers');
    await s.close();
  },
  async liar() {
    for (const rate of ['0.05', '0.01']) {
      const room = `liar${rate.replace('.', '')}`;
      worker(room, '--lie-for-tests', rate); for (let i = 0; i < 3; i++) worker(room);
      const s = await session({ signal: server.url, room, token: mintToken(SECRET, room, 3600), verify: 'sample' });
      await s.waitForWorkers(4, 60000);
      let wrong = 0, checks = 0, tasks = 0;
      const J = 8;
      for (let j = 0; j < J; j++) { const N = 2e7, c = 2e5; const b = await timed(s, N, c, j); if (b.v !== (await local(N, c, j))) wrong++; checks += b.rep.checkRuns; tasks += b.rep.tasks; if (b.rep.quarantined.length) log(rate, 'job', j, 'quarantined', b.rep.quarantined); }
      log(`liar ${rate}: ${wrong} of ${J} jobs wrong; re-runs ${checks} of ${tasks} tasks`);
      await s.close();
    }
  },
  async closed() {
    const room = 'closed'; worker(room);
    const s = await session({ signal: server.url, room, token: mintToken(SECRET, room, 3600) });
    await s.waitForWorkers(1, 60000); await s.close();
    const t0 = Date.now();
    const r = await Promise.race([s.execute(pi(1e5, 1e4)).then(() => 'resolved', (e) => `rejected: ${e.message}`), sleep(10000).then(() => 'HUNG')]);
    log('execute on closed session:', r, Date.now() - t0, 'ms');
  },
  async cli() {
    for (const args of [['pages', '--help'], ['-h'], ['worker', '--help'], ['signal', '-h'], ['demo', '--help'], ['token', '--help']]) {
      const r = spawnSync(process.execPath, [CLI, ...args], { timeout: 10000, encoding: 'utf8' });
      log(args.join(' '), 'exit', r.status, r.signal ?? '', (r.stdout + r.stderr).split('\n')[0]);
    }
  },
  async sizes() {
    const t0 = performance.now();
    try { mt.zeros([1e6, 1e6]).sum(); log('zeros 1e6x1e6: NOT REFUSED'); } catch (e) { log('zeros 1e6x1e6:', e.name, e.message.slice(0, 120), (performance.now() - t0).toFixed(0), 'ms'); }
    try { mt.ones([2, 3]).sum({ axis: '1' }); } catch (e) { log(e.message); }
  },
};
server = await startSignalServer({ port: 0, secret: SECRET, log: () => undefined });
try { for (const p of process.argv.slice(2)) { log('---', p); await probes[p](); } }
catch (e) { log('PROBE ERROR', e.stack); }
finally { for (const c of kids) c.kill('SIGKILL'); await server.close(); await mt.shutdown(); process.exit(0); }
