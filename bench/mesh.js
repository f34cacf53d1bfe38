#!/usr/bin/env node
// The mesh rows of `npm run bench`: Tessera's mesh (signaling server, WebRTC
// data channels between Node processes, coordinator and workers) measured on
// this machine, next to the local executor in the same run.
//
//   node bench/mesh.js [--quick] [--only mesh_link,mesh_tasks,mesh_pi] [--reps-scale x]
//
// bench/run.js starts this script after the other cases (bench/README.md
// explains the cases and how to read them). It prints one JSON line per
// result on stdout ({"type": "mesh", ...}) and progress on stderr. Sections:
//
//   mesh_link   MB/s of chunk payloads over one data channel: this process
//               sends `piece` messages to a second process (this script in
//               `link-peer` mode), which acknowledges each batch once all of
//               its bytes are in.
//   mesh_tasks  tasks/s for a job of ~1500 tiny tasks (1024 elements each):
//               the local executor, then a mesh with one worker.
//   mesh_pi     Monte Carlo pi (the demo's program) on the local executor and
//               on meshes of 1, 2 and 4 workers, interleaved round by round,
//               each mesh count checked bit for bit against the local one.
//   mesh_verify the cost of verifying volunteers: pi on 3 workers with
//               `verify: 'off'` and `'sample'` (two coordinators in one room),
//               interleaved; and, on the simulated network (src/mesh/sim.ts),
//               how soon an always-lying worker among four is caught.
//   mesh_churn  2,000 tasks on 20 simulated peers (src/mesh/sim.ts, one
//               process), failure-free and with 8 of them killed at random
//               moments: the time with kills over the time without.
//   mesh_sort   a sort of 1e8 float64 drawn on 3 workers, read back through
//               a weighted sum: its stages (draw, sorted runs, samples,
//               ranks, merge) keep their results on the workers and move
//               them peer to peer. Bytes moved between peers over the
//               data's bytes, the bytes the coordinator received, and the
//               time next to the local executor's.
//
// Workers are child processes started as `tessera demo` starts them
// (`node dist/cli/tessera.js worker --signal URL --room R --token T`); the
// coordinator is a Session in this process, which also runs the local
// executor. Only one setup computes at a time. Everything is torn down
// before the process exits, also on SIGINT/SIGTERM (run.js sends SIGTERM on
// a timeout), so no worker outlives the bench (short of a SIGKILL).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtN, reference } from './cases.js';
import { CLK_TCK, machineBusySeconds } from './load.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const SELF = fileURLToPath(import.meta.url);
const CLI = path.join(ROOT, 'dist/cli/tessera.js');
const dist = (p) => import(new URL(p, new URL('../', import.meta.url)).href);

const argv = process.argv.slice(2);
const has = (f) => argv.includes(f);
const opt = (f, d) => { const i = argv.indexOf(f); return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : d; };
const log = (s) => process.stderr.write(s);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const short = (e) => String(e?.message ?? e).split('\n')[0].slice(0, 240);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const SECTIONS = ['mesh_link', 'mesh_tasks', 'mesh_pi', 'mesh_verify', 'mesh_churn', 'mesh_sort'];
/** Payload of one `piece` message in mesh_link: a 4 MiB chunk, the size of a large tile. */
const LINK_MESSAGE = 4 * 2 ** 20;
/** Elements per chunk of the tiny-task job: each task does microseconds of work, so its time is overhead. */
const TINY_CHUNK = 1024;
const WORKER_COUNTS = [1, 2, 4];
/** Longest wait for a batch acknowledgement, a link or workers to join. */
const WAIT_MS = 120_000;

// ---------------------------------------------------------------------------
// Child processes: workers and the link peer. Their CPU time is read from
// /proc while they live (and once more just before they are stopped) so the
// "other load" of a section leaves them out.

const children = new Set();

function procCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch { return undefined; }
}


function startChild(args, label) {
  const p = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const c = { p, label, cpu: 0, tail: '' };
  p.stderr.on('data', (d) => { c.tail = (c.tail + d).slice(-2000); });
  p.on('exit', (code, sig) => { c.exited = `${label} exited (${sig ?? `code ${code}`})${lastLine(c.tail)}`; });
  children.add(c);
  return c;
}

const lastLine = (s) => { const l = s.trim().split('\n').filter((x) => x.trim()).at(-1); return l ? `: ${l.slice(0, 200)}` : ''; };

/** CPU seconds used by every child started so far: live ones from /proc, stopped ones as last read. */
function childrenCpu() {
  let s = 0;
  for (const c of children) {
    if (!c.exited) c.cpu = procCpu(c.p.pid) ?? c.cpu;
    s += c.cpu;
  }
  return s;
}

async function stopChild(c) {
  if (c.exited) return;
  c.cpu = procCpu(c.p.pid) ?? c.cpu;
  const gone = new Promise((r) => c.p.once('exit', r));
  c.p.kill('SIGTERM'); // a tessera worker closes its links and its pool on SIGTERM
  if (await Promise.race([gone.then(() => true), sleep(5000).then(() => false)])) return;
  c.p.kill('SIGKILL');
  await gone;
}

/** A meter: called, it returns the cores other processes kept busy on average since it was made (machine busy time minus this process and its children). */
function loadMeter() {
  const busy0 = machineBusySeconds(), own0 = process.cpuUsage(), kids0 = childrenCpu(), t0 = performance.now();
  return () => {
    const busy1 = machineBusySeconds();
    if (busy0 === undefined || busy1 === undefined) return undefined;
    const own = process.cpuUsage(own0);
    const other = busy1 - busy0 - (own.user + own.system) / 1e6 - (childrenCpu() - kids0);
    return +Math.max(0, other / ((performance.now() - t0) / 1000)).toFixed(2);
  };
}

// ---------------------------------------------------------------------------
// The mesh: one signaling server for the run; a room per worker count.

async function openMesh() {
  const { startSignalServer } = await dist('signaling-server/dist/server.js');
  const { mintToken } = await dist('signaling-server/dist/token.js');
  const { Session } = await dist('dist/mesh/session.js');
  const secret = randomBytes(16).toString('hex');
  const server = await startSignalServer({ port: 0, secret, log: () => undefined });
  const rooms = new Map();
  const token = (room) => mintToken(secret, room, 6 * 3600);

  /** A session whose room has `n` worker processes (started on first use, kept for the run). */
  const workers = async (n, verify) => {
    if (verify) {
      // a second coordinator, verifying, in the room of n workers
      const key = `${n}/${verify}`;
      if (!rooms.has(key)) {
        const base = await workers(n);
        rooms.set(key, { session: Session.open({ signal: server.url, room: `workers${n}`, token: token(`workers${n}`), verify }), slots: base.slots });
        const s = await rooms.get(key).session;
        await s.waitForWorkers(n, WAIT_MS);
      }
      const e = rooms.get(key);
      return { session: await e.session, slots: e.slots };
    }
    if (!rooms.has(n)) {
      const room = `workers${n}`;
      const tok = token(room);
      const procs = Array.from({ length: n }, (_, i) => startChild([CLI, 'worker', '--signal', server.url, '--room', room, '--token', tok], `worker ${i + 1} of ${n}`));
      const entry = { procs, session: Session.open({ signal: server.url, room, token: tok }) };
      rooms.set(n, entry);
      const s = await entry.session;
      const t0 = Date.now();
      while (s.workers().size < n) {
        const dead = procs.find((c) => c.exited);
        if (dead) throw new Error(dead.exited);
        if (Date.now() - t0 > WAIT_MS) throw new Error(`only ${s.workers().size} of ${n} workers joined within ${WAIT_MS / 1000} s`);
        await sleep(50);
      }
      entry.slots = [...s.workers().values()].map((c) => c.slots);
    }
    const e = rooms.get(n);
    return { session: await e.session, slots: e.slots };
  };

  const close = async () => {
    for (const e of rooms.values()) await e.session.then((s) => s.close(), () => undefined);
    await Promise.all([...children].map(stopChild));
    await server.close();
  };
  return { url: server.url, token, workers, close };
}

// ---------------------------------------------------------------------------
// mesh_link: payload MB/s over one data channel between two processes.

async function linkSection(mesh, { quick, repsScale }) {
  const { MeshNode } = await dist('dist/mesh/node.js');
  const total = (quick ? 16 : 64) * 2 ** 20;
  const count = total / LINK_MESSAGE;
  const reps = Math.max(3, Math.round(5 * repsScale));
  const id = `mesh_link@${total / 2 ** 20}MiB`;
  const row = { type: 'mesh', case: id, bench: 'mesh_link', setup: 'link', peers: 2, messages: count, message_bytes: LINK_MESSAGE, bytes: total, status: 'ok', runs: [] };
  const room = 'link';
  const peer = startChild([SELF, 'link-peer', '--signal', mesh.url, '--room', room, '--token', mesh.token(room), '--bytes', String(total)], 'link peer');
  const node = await MeshNode.connect({ signal: mesh.url, room, token: mesh.token(room) });
  try {
    // The peer acknowledges a batch (and, with req 0, its own link coming up)
    // with a `missing` message: the smallest message that carries a number.
    const acks = new Map();
    let other;
    node.on({ message: (from, m) => { if (m.t === 'missing') { other = from; acks.get(m.req)?.(); } } });
    const ack = (req) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(peer.exited ?? `no acknowledgement within ${WAIT_MS / 1000} s`)), WAIT_MS);
      timer.unref(); // when a send fails first, this timer must not keep the process alive
      acks.set(req, () => { clearTimeout(timer); acks.delete(req); resolve(); });
    });
    await ack(0);
    const payload = new Uint8Array(LINK_MESSAGE);
    for (let i = 0; i < payload.length; i += 4096) payload[i] = i >> 12;
    const once = async (req) => {
      const got = ack(req);
      const t0 = performance.now();
      // all sends at once, as a worker serves concurrent gets; the link queues them in order
      const sent = Array.from({ length: count }, (_, i) => node.send(other, { t: 'piece', req, key: `0.${i}` }, payload));
      await Promise.all([got, ...sent]);
      return (performance.now() - t0) / 1000;
    };
    row.warm_s = await once(1);
    for (let r = 0; r < reps; r++) row.runs.push(await once(2 + r));
    row.median_s = median(row.runs);
    row.mb_per_s = total / row.median_s / 1e6;
    const sent = node.traffic.get(other);
    row.wire_bytes_per_batch = sent ? Math.round(sent.sent / (reps + 1)) : undefined;
  } finally {
    await node.close();
    await stopChild(peer);
  }
  log(`  data channel: ${row.mb_per_s.toFixed(1)} MB/s (median of ${row.runs.length} batches of ${count} x 4 MiB)\n`);
  return [row];
}

/** `link-peer` mode: the receiving end of mesh_link, in its own process. */
async function linkPeer() {
  const { MeshNode } = await dist('dist/mesh/node.js');
  const bytes = Number(opt('--bytes'));
  const node = await MeshNode.connect({ signal: opt('--signal'), room: opt('--room'), token: opt('--token') });
  let got = 0;
  const ack = (to, req) => node.send(to, { t: 'missing', req, key: '0.0' }).catch(() => undefined);
  node.on({
    peer: (id, up) => { if (up) void ack(id, 0); },
    message: (from, m, payload) => {
      if (m.t !== 'piece') return;
      got += payload.length;
      if (got >= bytes) { got = 0; void ack(from, m.req); }
    },
  });
  const stop = () => { void node.close().then(() => process.exit(0)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  setInterval(() => undefined, 1 << 30);
}

// ---------------------------------------------------------------------------
// Setups compared on one program: the local executor and meshes of n workers.
// `rounds` runs them round by round (warm-up round first, untimed), each
// round on a fresh seed shared by every setup, and checks each answer against
// the local one of the same round.

async function interleave(setups, { rounds, program, check }) {
  for (const x of setups) Object.assign(x.row, { status: 'ok', runs: [], reports: [] });
  for (let r = 0; r <= rounds; r++) {
    let want;
    for (const x of setups) {
      if (x.row.status !== 'ok') continue;
      try {
        const t = program(r);
        const ended = x.start();
        const t0 = performance.now();
        const v = (await t.fetch(x.session ? { session: x.session } : {})).item();
        const s = (performance.now() - t0) / 1000;
        const rep = ended();
        if (x.session === undefined) want = v;
        const bad = check(v) ?? (want === undefined ? 'no local result to compare with' : v !== want ? `${v} != local ${want} (seed ${r})` : undefined);
        if (bad) { Object.assign(x.row, { status: 'wrong', reason: bad }); log(`  ${x.row.setup}: WRONG: ${bad}\n`); continue; }
        x.row.answer = typeof v === 'bigint' ? String(v) : v;
        if (r === 0) x.row.warm_s = s;
        else { x.row.runs.push(s); x.row.reports.push(rep); }
      } catch (e) {
        Object.assign(x.row, { status: 'error', reason: short(e) });
        log(`  ${x.row.setup}: error: ${x.row.reason}\n`);
      }
    }
  }
  for (const x of setups) {
    if (x.row.status !== 'ok') { delete x.row.runs; delete x.row.reports; delete x.row.warm_s; continue; }
    x.row.median_s = median(x.row.runs);
  }
  const local = setups.find((x) => !x.session)?.row;
  for (const x of setups) if (x.session && x.row.status === 'ok' && local?.status === 'ok') x.row.vs_local = local.median_s / x.row.median_s;
}

/**
 * Called before a mesh run; the function it returns gives the run's report:
 * tasks, re-leases, recomputations, bytes of pieces moved between peers, and
 * every byte the coordinator sent and received (pieces, tasks, heartbeats,
 * state updates).
 */
const meshRun = (s) => {
  const traffic = () => [...s.node.traffic.values()].reduce((a, t) => a + t.sent + t.received, 0);
  const b0 = traffic();
  return () => {
    const r = s.lastReport;
    return {
      tasks: r.tasks, leases: r.leases, releases: r.releases, recomputed: r.recomputed, speculative: r.speculative, bytes_moved: r.bytesMoved, check_runs: r.checkRuns,
      peer_bytes_in: r.peers.map((p) => p.bytesIn), peer_tasks: r.peers.map((p) => p.tasks), coordinator_bytes: traffic() - b0,
    };
  };
};

function setupsFor(mt, meshes, id, bench) {
  const local = { row: { type: 'mesh', case: id, bench, setup: 'local', peers: 0 }, start: () => () => ({ tasks: mt.lastReport().tasks }) };
  return [local, ...meshes.map(({ n, session, slots }) => ({ session, row: { type: 'mesh', case: id, bench, setup: 'mesh', peers: n, slots }, start: () => meshRun(session) }))];
}

// ---------------------------------------------------------------------------
// mesh_sort: a sort on 3 workers, its stages peer to peer.

async function sortSection(mesh, { quick, repsScale }) {
  const mt = await dist('dist/api/tensor.js');
  const N = quick ? 1e7 : 1e8;
  const id = `mesh_sort@${fmtN(N)}`;
  const w = await mesh.workers(3);
  const setups = setupsFor(mt, [{ n: 3, ...w }], id, 'mesh_sort');
  // an execution runs a job per stage: the session's totals over them, and the coordinator's traffic
  const s = w.session;
  const traffic = () => [...s.node.traffic.values()].reduce((a, t) => a + t.sent + t.received, 0);
  const received = () => [...s.node.traffic.values()].reduce((a, t) => a + t.received, 0);
  setups[1].start = () => {
    const t0 = { ...s.totals }, b0 = traffic(), r0 = received();
    return () => ({
      jobs: s.totals.jobs - t0.jobs, bytes_moved: s.totals.bytesMoved - t0.bytesMoved,
      bytes_to_coordinator: s.totals.bytesToCoordinator - t0.bytesToCoordinator, coordinator_bytes: traffic() - b0, coordinator_bytes_in: received() - r0,
    });
  };
  await interleave(setups, {
    rounds: Math.max(1, Math.round((quick ? 3 : 1) * repsScale)),
    program: (seed) => {
      mt.random.seed(seed);
      const x = mt.random.uniform(0, 1, [N]);
      return mt.sort(x).multiply(mt.arange(N)).sum();
    },
    // sum_i i * x_(i) of N sorted uniforms (x_(i) about i/N) is about N^2 / 3
    check: (v) => (typeof v === 'number' && Math.abs(v / (N ** 2 / 3) - 1) < 0.01 ? undefined : `weighted sum ${v} is not near N^2/3`),
  });
  for (const { row } of setups) {
    row.elements = N;
    if (row.status !== 'ok') continue;
    if (row.setup === 'mesh') {
      const r = row.reports.at(-1);
      Object.assign(row, r);
      row.moved_over_data = r.bytes_moved / (8 * N);
      row.to_coordinator_over_data = r.bytes_to_coordinator / (8 * N);
    }
    log(`  sort of ${fmtN(N)}, ${row.setup === 'local' ? 'local executor' : '3 workers'}: ${row.median_s.toFixed(2)} s`
      + `${row.setup === 'mesh' ? `, ${row.jobs} jobs, moved ${row.moved_over_data.toFixed(3)}x the data, coordinator received ${row.coordinator_bytes_in} bytes` : ''}\n`);
  }
  return setups.map((x) => x.row);
}

// ---------------------------------------------------------------------------
// mesh_tasks: tasks/s for tiny tasks, local executor and one mesh worker.

async function tasksSection(mesh, { quick, repsScale }) {
  const mt = await dist('dist/api/tensor.js');
  const chunks = quick ? 500 : 1500;
  const n = chunks * TINY_CHUNK;
  const id = `mesh_tasks@${chunks}`;
  const w = await mesh.workers(1);
  const setups = setupsFor(mt, [{ n: 1, ...w }], id, 'mesh_tasks');
  await interleave(setups, {
    rounds: Math.max(3, Math.round(5 * repsScale)),
    program: (seed) => {
      mt.random.seed(seed);
      return mt.random.uniform(0, 1, [n], { chunkSize: TINY_CHUNK }).multiply(2).add(1).sum();
    },
    // the sum of n values in [1, 3)
    check: (v) => (typeof v === 'number' && v >= n && v < 3 * n ? undefined : `sum ${v} outside [${n}, ${3 * n})`),
  });
  for (const { row } of setups) {
    row.elements = n;
    row.chunk_elements = TINY_CHUNK;
    if (row.status !== 'ok') continue;
    row.tasks = row.reports.at(-1).tasks;
    row.tasks_per_s = row.tasks / row.median_s;
    log(`  tiny tasks, ${row.setup === 'local' ? 'local executor' : 'mesh, 1 worker'}: ${row.tasks} tasks in ${row.median_s.toFixed(3)} s = ${row.tasks_per_s.toFixed(0)} tasks/s\n`);
  }
  return setups.map((x) => x.row);
}

// ---------------------------------------------------------------------------
// mesh_pi: Monte Carlo pi on the local executor and on 1, 2 and 4 workers.

async function piSection(mesh, { quick, repsScale }) {
  const mt = await dist('dist/api/tensor.js');
  const N = quick ? 1e8 : 1e9;
  // three timed rounds at 1e9 (a round is the four setups, about half a minute here)
  const rounds = Math.max(3, Math.round((quick ? 5 : 3) * repsScale));
  const id = `mesh_pi@${fmtN(N)}`;
  const ref = reference({ bench: 'mc_pi', size: N });
  const meshes = [];
  for (const n of WORKER_COUNTS) {
    log(`  starting ${n} worker process${n > 1 ? 'es' : ''}\n`);
    meshes.push({ n, ...(await mesh.workers(n)) });
  }
  const setups = setupsFor(mt, meshes, id, 'mesh_pi');
  log(`  ${rounds + 1} rounds (the first untimed) of: local executor, ${WORKER_COUNTS.map((n) => `${n} worker${n > 1 ? 's' : ''}`).join(', ')}\n`);
  await interleave(setups, {
    rounds,
    program: (seed) => {
      mt.random.seed(seed);
      const d = mt.random.uniform(-1, 1, [N, 2]);
      return mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
    },
    check: (v) => { const c = ref.check((4 * Number(v)) / N); return c.ok ? undefined : c.detail; },
  });
  for (const { row } of setups) {
    row.points = N;
    if (row.status !== 'ok') continue;
    row.pi = (4 * Number(row.answer)) / N;
    row.mpoints_per_s = N / row.median_s / 1e6;
    row.tasks = row.reports.at(-1).tasks;
    log(`  ${row.setup === 'local' ? 'local executor' : `${row.peers} worker${row.peers > 1 ? 's' : ''}`}: ${row.median_s.toFixed(2)} s, ${row.mpoints_per_s.toFixed(0)} Mpoints/s${row.vs_local ? `, ${row.vs_local.toFixed(2)}x local` : ''}\n`);
  }
  return setups.map((x) => x.row);
}

// ---------------------------------------------------------------------------
// mesh_verify: what `verify: 'sample'` costs, and how soon it catches a liar.

async function verifySection(mesh, { quick, repsScale }) {
  const mt = await dist('dist/api/tensor.js');
  const N = quick ? 5e7 : 2e8;
  const n = 3;
  const id = `mesh_verify@${fmtN(N)}`;
  const ref = reference({ bench: 'mc_pi', size: N });
  const off = await mesh.workers(n);
  const sample = await mesh.workers(n, 'sample');
  const setups = setupsFor(mt, [{ n, ...off }, { n, ...sample }], id, 'mesh_verify');
  setups[1].row.verify = 'off';
  setups[2].row.verify = 'sample';
  await interleave(setups, {
    rounds: Math.max(3, Math.round(5 * repsScale)),
    program: (seed) => {
      mt.random.seed(seed);
      const d = mt.random.uniform(-1, 1, [N, 2]);
      return mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
    },
    check: (v) => { const c = ref.check((4 * Number(v)) / N); return c.ok ? undefined : c.detail; },
  });
  for (const { row } of setups) {
    row.points = N;
    if (row.status !== 'ok') continue;
    row.mpoints_per_s = N / row.median_s / 1e6;
    row.tasks = row.reports.at(-1).tasks;
  }
  const [, o, s] = setups.map((x) => x.row);
  if (o.status === 'ok' && s.status === 'ok') {
    s.overhead = s.median_s / o.median_s - 1;
    s.check_runs = s.reports.map((r) => r.check_runs);
    log(`  verify 'sample': ${(100 * s.overhead).toFixed(1)}% over 'off' (${s.median_s.toFixed(2)} s vs ${o.median_s.toFixed(2)} s; re-runs per job ${s.check_runs.join(', ')} of ${s.tasks} tasks)\n`);
  }
  return [...setups.map((x) => x.row), await detection(quick ? 10 : 50)];
}

/**
 * Trials on the simulated network: four workers, one corrupting every result,
 * a job of 400 partial sums; the liar's commits before it is caught.
 */
async function detection(trials) {
  const mt = await dist('dist/api/tensor.js');
  const { Coordinator } = await dist('dist/mesh/coordinator.js');
  const { SimNet, rng } = await dist('dist/mesh/sim.js');
  const { MeshState } = await dist('dist/mesh/state.js');
  const { MeshWorker } = await dist('dist/mesh/worker.js');
  const { runtime } = await dist('dist/runtime/runtime.js');
  const row = { type: 'mesh', case: `mesh_detect@${trials}`, bench: 'mesh_detect', setup: 'sim', peers: 4, trials, status: 'ok', before_caught: [], wrong: 0 };
  for (let trial = 1; trial <= trials; trial++) {
    const net = new SimNet({ seed: trial, maxDelayMs: 1 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, verify: 'sample', random: rng(trial * 104729) });
    const parts = [coord, cstate];
    for (const wid of ['liar', 'w1', 'w2', 'w3']) {
      const ep = net.join(wid);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, ...(wid === 'liar' ? { lie: 1 } : {}) }));
    }
    try {
      await sleep(100);
      const program = () => {
        mt.random.seed(trial);
        return mt.sqrt(mt.random.uniform(-1, 1, [200_000, 2], { chunkSize: 500 }).power(2).sum({ axis: 1 })).less(1).sum();
      };
      const want = (await program().fetch()).item();
      const z = program();
      const rep = await coord.run([z.node]);
      if ((await z.fetch()).item() !== want) row.wrong++;
      // its commits (each a wrong result) before it was caught
      row.before_caught.push(rep.quarantined.includes('liar') ? rep.peers.find((p) => p.id === 'liar')?.tasks ?? 0 : Infinity);
    } finally {
      parts.forEach((p) => p.close());
    }
  }
  // Freivalds' test against the corruption it finds hardest: +d and -d in two
  // entries of one row of a block (a ±1 vector misses it when their signs agree)
  const { freivaldsPasses } = await dist('dist/mesh/coordinator.js');
  const n = 64, k = 64, m = 64, blocks = trials * 40;
  const r = rng(7);
  const a = Float64Array.from({ length: n * k }, () => r() + 0.5), b = Float64Array.from({ length: k * m }, () => r() + 0.5);
  const c = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let q = 0; q < k; q++) for (let j = 0; j < m; j++) c[i * m + j] += a[i * k + q] * b[q * m + j];
  let caught = 0;
  for (let trial = 0; trial < blocks; trial++) {
    const bad = c.slice();
    const i = Math.floor(r() * n), j1 = Math.floor(r() * m), j2 = (j1 + 1 + Math.floor(r() * (m - 1))) % m;
    bad[i * m + j1] += 1; bad[i * m + j2] -= 1;
    if (freivaldsPasses(a, b, bad, n, k, m, 2 ** -53, r) === false) caught++;
  }
  Object.assign(row, { freivalds_blocks: blocks, freivalds_caught: caught });
  row.caught = row.before_caught.filter(Number.isFinite).length;
  row.caught_within_50 = row.before_caught.filter((k) => k <= 50).length;
  row.median_before_caught = median(row.before_caught);
  row.max_before_caught = Math.max(...row.before_caught);
  log(`  a liar among 4 workers: caught in ${row.caught} of ${trials} jobs, within 50 of its tasks in ${row.caught_within_50}; median ${row.median_before_caught} wrong results before; ${row.wrong} wrong answers\n`);
  log(`  Freivalds' test: ${caught} of ${blocks} corrupted blocks caught (${(caught / blocks).toFixed(4)}; target 0.999 per checked block)\n`);
  return row;
}

// ---------------------------------------------------------------------------
// mesh_churn: a job of 2,000 tasks on 20 peers, 8 of which are killed.

async function churnSection(mesh, { quick, repsScale }) {
  const mt = await dist('dist/api/tensor.js');
  const { Coordinator } = await dist('dist/mesh/coordinator.js');
  const { SimNet, rng } = await dist('dist/mesh/sim.js');
  const { MeshState } = await dist('dist/mesh/state.js');
  const { MeshWorker } = await dist('dist/mesh/worker.js');
  const { runtime } = await dist('dist/runtime/runtime.js');
  const chunks = quick ? 500 : 2000;
  const peers = 20, kills = 8;
  const program = () => {
    mt.random.seed(31);
    return mt.sqrt(mt.random.uniform(-1, 1, [chunks * 1000, 2], { chunkSize: 1000 }).power(2).sum({ axis: 1 })).less(1).sum();
  };
  const want = (await program().fetch()).item();
  const once = async (seed, killing) => {
    const net = new SimNet({ seed, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 20, leaseMs: 1000 });
    const parts = [coord, cstate];
    const ids = Array.from({ length: peers }, (_, i) => `w${i}`);
    for (const id of ids) {
      const ep = net.join(id);
      const st = new MeshState(ep);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 100 }));
    }
    await sleep(300);
    const x = program();
    const r = rng(seed);
    const victims = [...ids].sort(() => r() - 0.5).slice(0, killing ? kills : 0);
    let timers = [];
    const t0 = performance.now();
    const run = coord.run([x.node], ({ done, total }) => {
      // the kills fall at random points of the first 80% of the job
      if (!timers.length && victims.length) timers = victims.map((v) => setTimeout(() => net.kill(v), r() * 0.8 * (performance.now() - t0) * total / Math.max(1, done)));
    });
    const rep = await run;
    const s = (performance.now() - t0) / 1000;
    timers.forEach(clearTimeout);
    const v = (await x.fetch()).item();
    parts.forEach((p) => p.close());
    if (v !== want) throw new Error(`wrong count ${v}, want ${want}`);
    return { s, rep };
  };
  const rounds = Math.max(3, Math.round(3 * repsScale));
  const calm = [], churn = [], reports = [];
  await once(1, false); // warm-up
  for (let i = 1; i <= rounds; i++) {
    calm.push((await once(i, false)).s);
    const c = await once(i, true);
    churn.push(c.s);
    reports.push({ releases: c.rep.releases, recomputed: c.rep.recomputed, tasks: c.rep.tasks });
  }
  const row = { type: 'mesh', case: `mesh_churn@${chunks}`, bench: 'mesh_churn', setup: 'sim', peers, kills, status: 'ok', runs: churn, calm_runs: calm, reports, tasks: reports[0].tasks };
  row.median_s = median(churn);
  row.calm_median_s = median(calm);
  row.ratio = row.median_s / row.calm_median_s;
  log(`  ${row.tasks} tasks on ${peers} peers: ${row.calm_median_s.toFixed(2)} s without failures, ${row.median_s.toFixed(2)} s with ${kills} killed (${row.ratio.toFixed(2)}x)\n`);
  return [row];
}

// ---------------------------------------------------------------------------

async function main() {
  const only = opt('--only')?.split(',') ?? SECTIONS;
  const unknown = only.filter((s) => !SECTIONS.includes(s));
  if (unknown.length) { log(`bench/mesh.js: unknown section ${unknown.join(', ')} (know ${SECTIONS.join(', ')})\n`); process.exit(2); }
  const flags = { quick: has('--quick'), repsScale: Number(opt('--reps-scale', '1')) };
  const run = { mesh_link: linkSection, mesh_tasks: tasksSection, mesh_pi: piSection, mesh_verify: verifySection, mesh_churn: churnSection, mesh_sort: sortSection };
  const mesh = await openMesh();
  const teardown = async () => {
    await mesh.close();
    // the session module loaded the tensor API, and with it the worker pool
    await (await dist('dist/api/tensor.js')).shutdown();
  };
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.once(sig, () => { void teardown().finally(() => process.exit(code)); });
  try {
    for (const name of SECTIONS.filter((s) => only.includes(s))) {
      log(`bench: mesh: ${name}\n`);
      const load = loadMeter();
      let rows;
      try {
        rows = await run[name](mesh, flags);
      } catch (e) {
        rows = [{ type: 'mesh', case: name, bench: name, status: 'error', reason: short(e) }];
        log(`  error: ${rows[0].reason}\n`);
      }
      const foreign = load();
      for (const row of rows) {
        if (foreign !== undefined) row.foreign_cores = foreign;
        process.stdout.write(JSON.stringify(row) + '\n');
      }
    }
  } finally {
    await teardown();
  }
}

// run.js imports SECTIONS from this file; only a run as a script measures.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // a stopped bench must not leave worker processes behind
  process.on('exit', () => { for (const c of children) if (!c.exited) c.p.kill('SIGKILL'); });
  if (argv[0] === 'link-peer') await linkPeer();
  else await main();
}
