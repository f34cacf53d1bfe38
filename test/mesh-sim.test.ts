// The mesh scheduler (src/mesh/coordinator.ts) and peer runtime
// (src/mesh/worker.ts) over a seeded in-memory network (src/mesh/sim.ts)
// that delays, reorders and drops messages and disconnects peers: hundreds
// of random failure schedules, each of which must finish with the result of
// the local run, bit for bit, with every task result committed once (plus
// once per recomputation of a piece that was lost).

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { Coordinator, closeAcrossDevices, freivaldsPasses } from '../src/mesh/coordinator.js';
import { Reassembler } from '../src/mesh/node.js';
import { decodeMessage, encodeMessage } from '../src/mesh/protocol.js';
import { SimEndpoint, SimNet, rng } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker, type WorkerOptions } from '../src/mesh/worker.js';
import { StateJournal } from '../src/mesh/journal.js';
import { decodeChunk, encodeChunk } from '../src/mesh/arrow.js';
import { runtime } from '../src/runtime/runtime.js';
import { RUN, Trust, parseRecords, textTrustStore } from '../src/mesh/trust.js';
import { host } from '#host';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

afterAll(() => mt.shutdown());

/** Monte Carlo pi, the README's program, over n points in chunks of `chunk`. */
const piOf = (seed: number, n: number, chunk: number) => (): mt.Tensor => {
  mt.random.seed(seed);
  return mt.sqrt(mt.random.uniform(-1, 1, [n, 2], { chunkSize: chunk }).power(2).sum({ axis: 1 })).less(1).sum();
};

/** A worker with one slot on the simulated network, announced as computing on `device`; its parts go into `parts`. */
function simWorker(net: SimNet, id: string, parts: { close(): void }[], opts: Partial<WorkerOptions> = {}, device = 'wasm'): SimEndpoint {
  const ep = net.join(id);
  const st = new MeshState(ep, 40);
  st.announce({ role: 'worker', device, throughput: 1, memory: 1 << 28, slots: 1 });
  parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, ...opts }));
  return ep;
}

/** Programs that exercise every kind of task: partial reductions, combines, arg-reductions, GEMM blocks, scans. */
const PROGRAMS: Record<string, () => mt.Tensor> = {
  pi: piOf(11, 60_000, 6000),
  rowsum: () => mt.arange(0, 48000, 1, { chunkSize: 8000 }).reshape([120, 400]).multiply(0.01).sin().sum({ axis: 1 }),
  argmax: () => mt.argmax(mt.arange(0, 30000, 1, { chunkSize: 4000 }).multiply(7).mod(9973)),
  matmul: () => {
    const a = mt.arange(0, 60 * 50, 1, { chunkSize: 1000 }).reshape([60, 50]).multiply(0.5).cos();
    const b = mt.arange(0, 50 * 40, 1, { chunkSize: 1000 }).reshape([50, 40]).multiply(0.25).sin();
    return mt.matmul(a, b);
  },
  cumsum: () => mt.cumsum(mt.tensor(Array.from({ length: 90 }, (_, i) => Array.from({ length: 30 }, (_, j) => Math.sin(i * 30 + j))), { chunkSize: [20, 30] }), { axis: 0 }),
};

const reference = new Map<string, TypedArray>();
async function want(name: string): Promise<TypedArray> {
  let r = reference.get(name);
  if (!r) reference.set(name, (r = (await PROGRAMS[name]!().fetch()).data));
  return r;
}

interface Schedule { drop: number; maxDelay: number; workers: number; kills: number[]; joins: number[] }

function schedule(seed: number): Schedule {
  const r = rng(seed * 7919);
  const workers = 1 + Math.floor(r() * 4);
  const kills = Array.from({ length: Math.floor(r() * Math.min(3, workers + 1)) }, () => Math.floor(r() * 80));
  const joins = Array.from({ length: Math.floor(r() * 3) }, () => Math.floor(r() * 80));
  // a mesh every one of whose workers is killed gets a new one later
  if (kills.length >= workers) joins.push(100 + Math.floor(r() * 50));
  return { drop: r() < 0.3 ? 0 : r() * 0.06, maxDelay: 1 + r() * 6, workers, kills, joins };
}

/** What the failure schedules made the scheduler do, summed (they must really fail). */
const seen = { releases: 0, recomputed: 0, duplicates: 0, speculative: 0, dropped: 0, kills: 0, joins: 0 };

async function runOnSim(name: string, seed: number): Promise<void> {
  const s = schedule(seed);
  const net = new SimNet({ seed, drop: s.drop, maxDelayMs: s.maxDelay });
  const closers: (() => void)[] = [];
  const cep = net.join('coordinator');
  const cstate = new MeshState(cep, 40);
  const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 150, fetchTimeoutMs: 80, waitForWorkersMs: 10_000 });
  closers.push(() => coord.close(), () => cstate.close());
  const live: string[] = [];
  let n = 0;
  const addWorker = () => {
    const id = `w${n++}`;
    const ep = net.join(id);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1 + (n % 3), memory: 1 << 28, slots: 1 + (n % 2) });
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 80 });
    closers.push(() => w.close(), () => st.close());
    live.push(id);
  };
  for (let i = 0; i < s.workers; i++) addWorker();
  const pick = rng(seed);
  const timers = [
    ...s.kills.map((ms) => setTimeout(() => { if (live.length) { seen.kills++; net.kill(live.splice(Math.floor(pick() * live.length), 1)[0]!); } }, ms)),
    ...s.joins.map((ms) => setTimeout(() => { seen.joins++; addWorker(); }, ms)),
  ];
  try {
    const x = PROGRAMS[name]!();
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const rep = await Promise.race([
      coord.run([x.node]),
      new Promise<never>((_, reject) => { stuck = setTimeout(() => reject(new Error(`${name} seed ${seed} ${JSON.stringify(s)} did not finish in 20 s: ${coord.describe().join('; ')}`)), 20_000); }),
    ]).finally(() => clearTimeout(stuck));
    const got = (await x.fetch()).data;
    expect(Array.from(got as ArrayLike<number>), `${name} seed ${seed} ${JSON.stringify(s)}`).toEqual(Array.from((await want(name)) as ArrayLike<number>));
    expect(rep.commits).toBe(rep.tasks + rep.recomputed);
    seen.releases += rep.releases; seen.recomputed += rep.recomputed; seen.duplicates += rep.duplicates; seen.speculative += rep.speculative;
    seen.dropped += net.counts.dropped;
  } finally {
    timers.forEach(clearTimeout);
    closers.forEach((c) => c());
  }
}

describe('the mesh scheduler on a seeded network that delays, reorders, drops and disconnects', () => {
  for (const name of Object.keys(PROGRAMS)) {
    it(`${name}: 40 random failure schedules, each bit for bit the local result`, async () => {
      for (let seed = 1; seed <= 40; seed++) await runOnSim(name, seed);
    }, 120_000);
  }

  it('the schedules really failed: leases lapsed, pieces were lost and recomputed, messages dropped', () => {
    console.log('failure schedules:', JSON.stringify(seen));
    for (const k of ['releases', 'recomputed', 'dropped', 'kills', 'joins'] as const) expect(seen[k], k).toBeGreaterThan(0);
  });

  it('a schedule is the same network for the same seed', () => {
    expect(schedule(5)).toEqual(schedule(5));
    const a = rng(3), b = rng(3);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

/** Where a chaos schedule kills a worker: a step of the protocol, on its n-th occurrence. */
const STEPS = ['task arrives', 'piece sent', 'piece arrives', 'done sent', 'done arrived', 'get arrives'] as const;
interface Chaos { workers: number; duplicate: number; drop: number; kills: { step: (typeof STEPS)[number]; nth: number }[]; freeze?: { at: number; ms: number } }

function chaos(seed: number): Chaos {
  const r = rng(seed * 104729 + 17);
  const workers = 2 + Math.floor(r() * 4);
  const kills = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ step: STEPS[Math.floor(r() * STEPS.length)]!, nth: 1 + Math.floor(r() * 12) }));
  return { workers, duplicate: r() * 0.1, drop: r() < 0.5 ? 0 : r() * 0.03, kills, ...(r() < 0.6 ? { freeze: { at: Math.floor(r() * 60), ms: 300 + Math.floor(r() * 300) } } : {}) };
}

const chaosSeen = { kills: 0, frozen: 0, duplicated: 0, held: 0, releases: 0, recomputed: 0, duplicates: 0 };

async function runChaos(name: string, seed: number): Promise<void> {
  const c = chaos(seed);
  const net = new SimNet({ seed, maxDelayMs: 4, drop: c.drop, duplicate: c.duplicate });
  const cep = net.join('coordinator');
  const cstate = new MeshState(cep, 40);
  // leases shorter than a freeze: a frozen worker wakes up after its tasks went elsewhere
  const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 150, fetchTimeoutMs: 80, waitForWorkersMs: 10_000 });
  const closers: (() => void)[] = [() => coord.close(), () => cstate.close()];
  const live: string[] = [];
  let n = 0;
  const addWorker = () => {
    const id = `w${n++}`;
    const ep = net.join(id);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 + (n % 2) });
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 80 });
    closers.push(() => w.close(), () => st.close());
    live.push(id);
  };
  const kill = (id: string) => {
    const i = live.indexOf(id);
    if (i < 0) return;
    live.splice(i, 1);
    chaosSeen.kills++;
    net.kill(id);
    if (!live.length) setTimeout(addWorker, 30); // the room is never left empty for good
  };
  for (let i = 0; i < c.workers; i++) addWorker();
  const seen = new Map<string, number>();
  net.watch((step, from, to, m) => {
    const at = `${m.t} ${step === 'send' ? 'sent' : 'arrives'}`;
    const k = (seen.get(at) ?? 0) + 1;
    seen.set(at, k);
    for (const x of c.kills) {
      if (x.nth !== k) continue;
      if (x.step === at && step === 'send' && from.startsWith('w')) kill(from); // its message is lost with it
      else if (x.step === at && step === 'arrive' && to.startsWith('w')) kill(to); // before it acts on it
      else if (x.step === 'done arrived' && at === 'done arrives' && from.startsWith('w')) setTimeout(() => kill(from), 0); // after its commit counted
    }
  });
  const timers: ReturnType<typeof setTimeout>[] = [];
  if (c.freeze) timers.push(setTimeout(() => { if (live.length) { chaosSeen.frozen++; net.freeze(live[Math.floor(net.random() * live.length)]!, c.freeze!.ms); } }, c.freeze.at));
  try {
    const x = PROGRAMS[name]!();
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const rep = await Promise.race([
      coord.run([x.node]),
      new Promise<never>((_, reject) => { stuck = setTimeout(() => reject(new Error(`${name} chaos seed ${seed} ${JSON.stringify(c)} did not finish in 20 s: ${coord.describe().join('; ')}`)), 20_000); }),
    ]).finally(() => clearTimeout(stuck));
    expect(Array.from((await x.fetch()).data as ArrayLike<number>), `${name} chaos seed ${seed} ${JSON.stringify(c)}`).toEqual(Array.from((await want(name)) as ArrayLike<number>));
    expect(rep.commits, `${name} chaos seed ${seed}`).toBe(rep.tasks + rep.recomputed);
    chaosSeen.duplicated += net.counts.duplicated; chaosSeen.held += net.counts.held;
    chaosSeen.releases += rep.releases; chaosSeen.recomputed += rep.recomputed; chaosSeen.duplicates += rep.duplicates;
  } finally {
    timers.forEach(clearTimeout);
    closers.forEach((f) => f());
  }
}

describe('chaos: workers killed at each step of the protocol, frozen past their leases, messages replayed', () => {
  for (const name of Object.keys(PROGRAMS)) {
    it(`${name}: 40 chaos schedules, each bit for bit the local result, each task committed once`, async () => {
      for (let seed = 1; seed <= 40; seed++) await runChaos(name, seed);
    }, 180_000);
  }

  it('the chaos was real: workers killed and frozen, messages replayed and held, work re-leased and recomputed', () => {
    console.log('chaos schedules:', JSON.stringify(chaosSeen));
    for (const k of ['kills', 'frozen', 'duplicated', 'held', 'releases', 'recomputed'] as const) expect(chaosSeen[k], k).toBeGreaterThan(0);
  });
});

describe('stragglers', () => {
  it('re-executes a task on a slow worker speculatively on an idle one, and commits the first result only', async () => {
    // w-slow's messages take 600 ms each way; leases are long enough that none lapses
    const net = new SimNet({ seed: 9, maxDelayMs: 2, slow: new Map([['w-slow', 600]]) });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 60_000, stragglerMs: 100 });
    const parts: { close(): void }[] = [coord, cstate];
    for (const id of ['w-fast', 'w-slow']) simWorker(net, id, parts);
    try {
      await new Promise((r) => setTimeout(r, 1500)); // both announcements arrive
      const x = PROGRAMS.pi!();
      const rep = await coord.run([x.node]);
      expect(Array.from((await x.fetch()).data as ArrayLike<number>)).toEqual(Array.from((await want('pi')) as ArrayLike<number>));
      expect(rep.speculative).toBeGreaterThan(0);
      expect(rep.releases).toBe(0);
      expect(rep.commits).toBe(rep.tasks + rep.recomputed);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);
});

describe('messages between peers', () => {
  it('come back whole from a byte stream cut into frames of any size', () => {
    const r = rng(4);
    const msgs = [encodeMessage({ t: 'get', req: 1, job: 'j1', key: '3.4' }), encodeMessage({ t: 'piece', req: 1, key: '3.4' }, new Uint8Array(3 << 20).map((_, i) => i * 7)), encodeMessage({ t: 'end', job: 'j1' })];
    const stream: number[] = [];
    for (const m of msgs) { const h = new Uint8Array(4); new DataView(h.buffer).setUint32(0, m.length, true); stream.push(...h); for (const b of m) stream.push(b); }
    const bytes = Uint8Array.from(stream);
    for (let trial = 0; trial < 5; trial++) {
      const re = new Reassembler();
      const got: Uint8Array[] = [];
      for (let at = 0; at < bytes.length;) {
        const n = 1 + Math.floor(r() * (trial % 2 ? 7 : 70_000));
        got.push(...re.push(bytes.subarray(at, at + n)));
        at += n;
      }
      expect(got.map((g) => Array.from(g.subarray(0, 64)))).toEqual(msgs.map((m) => Array.from(m.subarray(0, 64))));
      expect(got.map((g) => g.length)).toEqual(msgs.map((m) => m.length));
      expect(decodeMessage(got[1]!).payload![12345]).toBe((12345 * 7) & 255);
    }
  });

  it('are refused, naming the field, when they do not fit their schema', () => {
    const raw = (o: unknown, tail = new Uint8Array(0)) => { const j = new TextEncoder().encode(JSON.stringify(o)); const b = new Uint8Array(4 + j.length + tail.length); new DataView(b.buffer).setUint32(0, j.length, true); b.set(j, 4); b.set(tail, 4 + j.length); return b; };
    expect(() => decodeMessage(raw({ t: 'get', req: 1, job: 'j', key: '../etc' }))).toThrow(/field key/);
    expect(() => decodeMessage(raw({ t: 'task', job: 'j', task: 0, attempt: 0, kernel: '{}', kid: 0, partial: false, outer: [[5, 2]], red: [], reads: [], writes: [{ key: '1.0', dtype: 'float32', box: [] }] }))).toThrow(/field outer/);
    expect(() => decodeMessage(raw({ t: 'free', job: 'j', keys: ['1.0'], extra: true }))).toThrow(/bad free message/);
    expect(() => decodeMessage(raw({ t: 'end', job: 'j' }, new Uint8Array(3)))).toThrow(/carries 3 bytes/);
    expect(() => decodeMessage(new Uint8Array([200, 0, 0, 0, 1]))).toThrow(/does not fit/);
    expect(() => encodeMessage({ t: 'piece', req: 1, key: '1.0' })).toThrow(/without a payload/);
  });
});

describe('a mesh worker beside local runs in one process', () => {
  it('a local run finishes while mesh tasks hold every pool worker (it waits for the pool, it does not spin)', async () => {
    const big = mt.random.uniform(0, 1, [60_000_000], { chunkSize: 60_000_000 }).sum();
    const plan = runtime.planOf([big.node]);
    const t = plan.tasks[0] as { kernel: number; partial: boolean; outer: [number, number][]; red: [number, number][]; writes: { tensor: number }[] };
    const k = plan.kernels[t.kernel]!;
    const out = { dtype: plan.tensors[t.writes[0]!.tensor]!.dtype, box: t.outer };
    // as many long tasks as the pool has workers, then a small local job
    const tasks = [0, 1].map(() => runtime.runTask({ kernel: k, partial: t.partial, outer: t.outer, red: t.red, inputs: [], outputs: [out] }));
    const r = await mt.arange(0, 1e6, 1, { chunkSize: 5e5 }).sum().fetch({ workers: 2 });
    expect(r.item()).toBe(499999500000);
    const [a, b] = await Promise.all(tasks);
    expect(Array.from(a! as ArrayLike<number>)).toEqual(Array.from(b! as ArrayLike<number>));
  }, 60_000);
});

describe('untrusted workers: results verified by re-running them on other peers', () => {
  /** 200 partial sums and their combines: enough tasks that a liar among four workers runs about 50. */
  const many = piOf(12, 100_000, 500);
  let manyRef: TypedArray | undefined;

  /** Runs `program` on 4 simulated workers, `liar` among them corrupting that fraction of its results. */
  async function withLiar(program: () => mt.Tensor, verify: 'off' | 'sample' | 'strict', lie: number, seed: number, workers = 4, extra: Record<string, unknown> = {}) {
    const net = new SimNet({ seed, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 2000, verify, random: rng(seed), ...extra });
    const parts: { close(): void }[] = [coord, cstate];
    for (let i = 0; i < workers; i++) simWorker(net, i === 0 ? 'liar' : `w${i}`, parts, i === 0 ? { lie } : {});
    try {
      await new Promise((r) => setTimeout(r, 150)); // announcements arrive
      const x = program();
      const rep = await coord.run([x.node]);
      return { rep, got: (await x.fetch()).data };
    } finally {
      parts.forEach((p) => p.close());
    }
  }

  it('without verification a lying worker corrupts the result (the lie is real)', async () => {
    manyRef ??= (await many().fetch()).data;
    const { rep, got } = await withLiar(many, 'off', 1, 1);
    expect(rep.peers.find((p) => p.id === 'liar')!.tasks).toBeGreaterThan(0);
    expect(Array.from(got as ArrayLike<number>)).not.toEqual(Array.from(manyRef as ArrayLike<number>));
    expect(rep.checks).toBe(0);
  }, 60_000);

  it("'sample' checks every result of peers it does not know yet: an always-lying worker is caught, the answer is right (10 seeds)", async () => {
    manyRef ??= (await many().fetch()).data;
    for (let seed = 1; seed <= 10; seed++) {
      const { rep, got } = await withLiar(many, 'sample', 1, seed);
      expect(rep.quarantined, `seed ${seed}`).toEqual(['liar']);
      expect(Array.from(got as ArrayLike<number>), `seed ${seed}`).toEqual(Array.from(manyRef as ArrayLike<number>));
      expect(rep.commits).toBe(rep.tasks + rep.recomputed);
      // none of the four has a run of verified results yet (trust.ts): every committed result was checked
      expect(rep.checks).toBe(rep.commits);
    }
  }, 120_000);

  it("'strict' catches a lying worker on reductions, matmul blocks, scans and arg-reductions", async () => {
    let caught = 0;
    for (const name of ['rowsum', 'matmul', 'cumsum', 'argmax']) {
      const { rep, got } = await withLiar(PROGRAMS[name]!, 'strict', 1, 3);
      expect(Array.from(got as ArrayLike<number>), name).toEqual(Array.from((await want(name)) as ArrayLike<number>));
      // every result the liar committed was checked, so it is caught whenever it got a task
      expect(rep.quarantined, name).toEqual(rep.peers.some((p) => p.id === 'liar') || rep.recomputed > 0 ? ['liar'] : []);
      caught += rep.quarantined.length;
    }
    expect(caught).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('honest workers are never quarantined, and a mesh of one worker is left unverified rather than stuck', async () => {
    const { rep, got } = await withLiar(many, 'strict', 0, 2);
    expect(rep.quarantined).toEqual([]);
    expect(Array.from(got as ArrayLike<number>)).toEqual(Array.from((manyRef ??= (await many().fetch()).data) as ArrayLike<number>));
    const one = await withLiar(PROGRAMS.rowsum!, 'strict', 0, 4, 1);
    expect(Array.from(one.got as ArrayLike<number>)).toEqual(Array.from((await want('rowsum')) as ArrayLike<number>));
  }, 120_000);

  it('two workers that disagree, with no third to decide, fail the job with a clear error instead of guessing', async () => {
    await expect(withLiar(many, 'strict', 1, 5, 2, { checkWaitMs: 300 })).rejects.toThrow(/disagree and no other worker could decide/);
  }, 60_000);
});

describe("'sample' over 200 jobs in one room: adaptive replication (trust.ts) keeps its guarantee", () => {
  /** Job j: pi over 3200 points in 16 chunks (17 tasks), a seed of its own. */
  const job = (j: number) => piOf(1000 + j, 3200, 200);
  const HONEST = ['w1', 'w2', 'w3'];

  /** 200 jobs in a row on four workers, `liar` corrupting a fraction `lie` of its results (seeded draws, counted). */
  async function room(lie: number, seed: number, jobs = 200) {
    const net = new SimNet({ seed, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 2000, verify: 'sample', random: rng(seed) });
    const parts: { close(): void }[] = [coord, cstate];
    const draw = rng(seed * 7 + 3);
    let lies = 0;
    simWorker(net, 'liar', parts, { lie, lieRandom: () => { const x = draw(); if (x < lie) lies++; return x; } });
    for (const id of HONEST) simWorker(net, id, parts);
    const out = { wrong: 0, quarantinedAt: -1, trustedAt: -1, tasks: [0, 0], reruns: [0, 0], liarAfter: 0, lies: 0 };
    try {
      await new Promise((r) => setTimeout(r, 150));
      for (let j = 0; j < jobs; j++) {
        const want = Array.from((await job(j)().fetch()).data as ArrayLike<number | bigint>, String).join();
        const x = job(j)();
        const rep = await coord.run([x.node]);
        if (Array.from((await x.fetch()).data as ArrayLike<number | bigint>, String).join() !== want) out.wrong++;
        const after = out.trustedAt >= 0 ? 1 : 0;
        out.tasks[after]! += rep.tasks;
        out.reruns[after]! += rep.checkRuns;
        if (out.quarantinedAt >= 0) out.liarAfter += rep.peers.find((p) => p.id === 'liar')?.tasks ?? 0;
        if (out.quarantinedAt < 0 && coord.trust.quarantined.has('liar')) out.quarantinedAt = j;
        if (out.trustedAt < 0 && HONEST.every((id) => coord.trust.trusted(id))) out.trustedAt = j;
      }
    } finally {
      parts.forEach((p) => p.close());
    }
    return { ...out, lies };
  }

  it('with a worker lying on 1% and one lying on 5% of its results: at most 1% of jobs wrong, the liar quarantined, under 10% re-runs once the honest are trusted', async () => {
    // two rooms at once: each waits on its simulated network's delays more than on the CPU
    const [one, five] = await Promise.all([room(0.01, 5), room(0.05, 6)]);
    for (const [name, r] of [['1%', one], ['5%', five]] as const) {
      const why = `${name} liar: ${JSON.stringify(r)}`;
      expect(r.lies, why).toBeGreaterThan(0); // the lies were real
      expect(r.wrong, why).toBeLessThanOrEqual(2);
      expect(r.quarantinedAt, why).toBeGreaterThanOrEqual(0);
      expect(r.liarAfter, why).toBe(0);
      // every result was checked until the honest peers had their runs; then a sample
      expect(r.trustedAt, why).toBeGreaterThanOrEqual(0);
      expect(r.trustedAt, why).toBeLessThan(180);
      expect(r.reruns[0]! / r.tasks[0]!, why).toBeGreaterThan(0.8);
      expect(r.reruns[1]! / r.tasks[1]!, why).toBeLessThan(0.1);
      expect(r.reruns[1], why).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('reputation and quarantine outlive a coordinator (TrustStore)', () => {
  it("a second coordinator of the room, over the same store, starts from the first one's records", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-trust-'));
    const store = () => textTrustStore(host.textStore('trust-room', dir)!);
    const program = piOf(31, 12_000, 500);
    const local = Array.from((await program().fetch()).data as ArrayLike<number | bigint>, String);
    const session = async (seed: number, verify: 'sample' | 'strict') => {
      const net = new SimNet({ seed, maxDelayMs: 2 });
      const cep = net.join('coordinator');
      const cstate = new MeshState(cep, 40);
      const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 2000, verify, random: rng(seed), trustStore: store() });
      const parts: { close(): void }[] = [coord, cstate];
      simWorker(net, 'liar', parts, { lie: 1 });
      for (const id of ['w1', 'w2', 'w3']) simWorker(net, id, parts);
      try {
        await new Promise((r) => setTimeout(r, 150));
        const x = program();
        const rep = await coord.run([x.node]);
        expect(Array.from((await x.fetch()).data as ArrayLike<number | bigint>, String)).toEqual(local);
        return { rep, coord };
      } finally {
        parts.forEach((p) => p.close()); // close saves the records
      }
    };
    try {
      const a = await session(31, 'strict');
      expect(a.rep.quarantined).toEqual(['liar']);
      const runs = ['w1', 'w2', 'w3'].map((id) => a.coord.trust.record(id)?.run ?? 0);
      expect(Math.min(...runs)).toBeGreaterThan(0);
      // a new coordinator, a new network: the liar gets no task, and the honest peers' runs go on from where they were
      const b = await session(32, 'sample');
      expect(b.rep.quarantined).toEqual([]);
      expect(b.rep.peers.map((p) => p.id)).not.toContain('liar');
      for (const [i, id] of ['w1', 'w2', 'w3'].entries()) expect(b.coord.trust.record(id)!.verified).toBeGreaterThan(runs[i]!);
      // peers the store says are trusted are sampled, not all checked
      const seeded = new Trust('sample', rng(1), store());
      for (const id of ['w1', 'w2', 'w3']) for (let i = 0; i < RUN; i++) seeded.passed(id);
      seeded.flush();
      const c = await session(33, 'sample');
      expect(c.rep.peers.map((p) => p.id)).not.toContain('liar');
      expect(c.rep.checkRuns).toBeLessThan(c.rep.tasks * 0.25);
      // a store that is not JSON, or holds nonsense, is an empty record
      expect(parseRecords('{"w1": {"run": "many", "at": 1}, "w2": 7')).toEqual({});
      expect(parseRecords('{"w1": {"run": -3, "verified": 2.5, "quarantined": "yes", "at": 1}}')).toEqual({ w1: { run: 0, verified: 0, at: 1 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a coordinator that dies mid-job', () => {
  it('is resumed by another, which adopts the results still in the room and computes only what was lost', async () => {
    const program = piOf(21, 150_000, 500);
    const local = (await program().fetch()).item();
    const net = new SimNet({ seed: 21, maxDelayMs: 2 });
    const parts: { close(): void }[] = [];
    for (const id of ['w0', 'w1', 'w2']) simWorker(net, id, parts);
    const coordinator = (id: string) => {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      const c = new Coordinator(ep, st, { runtime, tickMs: 10, leaseMs: 500, journal: new StateJournal(st) });
      parts.push(c, st);
      return c;
    };
    try {
      const a = coordinator('first');
      await new Promise((r) => setTimeout(r, 150));
      let killed = false;
      const half = new Promise<void>((resolve) => {
        void a.run([program().node], ({ done, total }) => {
          if (!killed && done >= total * 0.4) {
            killed = true;
            net.kill('first'); // the coordinator's process dies
            net.kill('w2'); // and a worker with it: its results are lost
            resolve();
          }
        }).catch(() => undefined);
      });
      await half;
      a.close();
      const b = coordinator('second');
      await new Promise((r) => setTimeout(r, 200)); // links, and the room's state (with the journal) arrives
      const x = program();
      const rep = await b.run([x.node]);
      expect((await x.fetch()).item()).toBe(local);
      expect(rep.resumed).toBeGreaterThan(rep.tasks * 0.15);
      // only what was lost, and what was not done yet, was computed
      expect(rep.commits).toBeLessThan(rep.tasks - rep.resumed + 20);
      expect(rep.commits).toBeGreaterThan(0);
      // a finished job forgets its journal; the same program then runs afresh
      const again = program();
      const rep2 = await b.run([again.node]);
      expect(rep2.resumed).toBe(0);
      expect((await again.fetch()).item()).toBe(local);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);

  it('verifies what it adopts: results a liar committed while nobody checked are caught and computed again', async () => {
    const program = piOf(22, 150_000, 500);
    const local = (await program().fetch()).item();
    const net = new SimNet({ seed: 22, maxDelayMs: 2 });
    const parts: { close(): void }[] = [];
    for (const id of ['w1', 'w2']) simWorker(net, id, parts);
    // the liar lies in the first job only, so in the second only the check of what is adopted can catch it
    let lie = 1;
    const lep = net.join('liar');
    const lst = new MeshState(lep, 40);
    lst.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
    parts.push(lst, new MeshWorker(lep, { runtime, memory: 1 << 28, heartbeatMs: 25, get lie() { return lie; } }));
    const coordinator = (id: string, verify: 'off' | 'strict') => {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      const c = new Coordinator(ep, st, { runtime, tickMs: 10, leaseMs: 500, verify, random: rng(22), journal: new StateJournal(st) });
      parts.push(c, st);
      return c;
    };
    try {
      const a = coordinator('first', 'off');
      await new Promise((r) => setTimeout(r, 150));
      await new Promise<void>((resolve) => {
        let killed = false;
        void a.run([program().node], ({ done, total }) => {
          if (!killed && done >= total * 0.5) { killed = true; net.kill('first'); resolve(); }
        }).catch(() => undefined);
      });
      a.close();
      lie = 0;
      const b = coordinator('second', 'strict');
      await new Promise((r) => setTimeout(r, 200));
      const x = program();
      const rep = await b.run([x.node]);
      // the journal named results of the liar, unchecked when they were committed; adopting them checked them
      expect(rep.resumed).toBeGreaterThan(0);
      expect(rep.quarantined).toEqual(['liar']);
      expect((await x.fetch()).item()).toBe(local);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);
});

describe("Freivalds' test of matrix-product blocks", () => {
  const product = async (dtype: 'float32' | 'float64', n: number, k: number, m: number) => {
    // positive entries: no cancellation, so a corruption of 1% of an entry is far above any rounding
    // (Freivalds' test sees errors above the worst-case rounding of the row's terms, |A| (|B| |r|))
    const a = mt.arange(0, n * k, 1, { dtype }).reshape([n, k]).multiply(0.37).sin().add(2);
    const b = mt.arange(0, k * m, 1, { dtype }).reshape([k, m]).multiply(0.11).cos().add(1.5).multiply(100);
    return { a: (await a.fetch()).data, b: (await b.fetch()).data, c: (await mt.matmul(a, b).fetch()).data };
  };

  it('passes honest blocks in float32 and float64, fails a block with one element off, and leaves infinities to a re-run', async () => {
    for (const dtype of ['float32', 'float64'] as const) {
      const { a, b, c } = await product(dtype, 40, 300, 30);
      const eps = dtype === 'float32' ? 2 ** -24 : 2 ** -53; // unit roundoff
      for (let s = 1; s <= 20; s++) expect(freivaldsPasses(a, b, c, 40, 300, 30, eps, rng(s)), `${dtype} seed ${s}`).toBe(true);
      // one element off by 1% of the largest
      const bad = c.slice() as Float64Array;
      const big = Math.max(...Array.from(c as ArrayLike<number>, Math.abs));
      bad[7 * 30 + 11] = bad[7 * 30 + 11]! + 0.01 * big;
      for (let s = 1; s <= 20; s++) expect(freivaldsPasses(a, b, bad, 40, 300, 30, eps, rng(s)), `${dtype} seed ${s}`).toBe(false);
      const inf = c.slice() as Float64Array;
      inf[3] = Infinity;
      expect(freivaldsPasses(a, b, inf, 40, 300, 30, eps, rng(1))).toBeUndefined();
    }
  });

  it("'strict' verifies a tiled matmul's blocks by Freivalds' test, not by re-running them, and catches a liar", async () => {
    const net = new SimNet({ seed: 8, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 2000, verify: 'strict', random: rng(8) });
    const parts: { close(): void }[] = [coord, cstate];
    for (const id of ['liar', 'w1', 'w2']) simWorker(net, id, parts, id === 'liar' ? { lie: 1 } : {});
    try {
      await new Promise((r) => setTimeout(r, 150));
      const x = PROGRAMS.matmul!();
      const rep = await coord.run([x.node]);
      expect(Array.from((await x.fetch()).data as ArrayLike<number>)).toEqual(Array.from((await want('matmul')) as ArrayLike<number>));
      expect(rep.freivalds).toBeGreaterThan(0);
      expect(rep.quarantined).toEqual(['liar']);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);
});

describe('results computed on a GPU, checked against CPU re-runs within a tolerance', () => {
  /** float32 partial sums: they run on WebGPU (SwiftShader here) where a worker has it. */
  const f32 = () => {
    mt.random.seed(44);
    return mt.random.uniform(0, 1, [60_000], { dtype: 'float32', chunkSize: 2000 }).multiply(3).sin().sum();
  };

  async function gpuMesh(lie: number) {
    const net = new SimNet({ seed: 12, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 10_000, verify: 'strict', random: rng(12) });
    const parts: { close(): void }[] = [coord, cstate];
    simWorker(net, 'gpu', parts, { device: 'webgpu', lie }, 'swiftshader');
    for (const id of ['w1', 'w2']) simWorker(net, id, parts);
    try {
      await new Promise((r) => setTimeout(r, 150));
      const x = f32();
      const rep = await coord.run([x.node]);
      return { rep, got: Number((await x.fetch()).item()) };
    } finally {
      parts.forEach((p) => p.close());
    }
  }

  it('an honest GPU worker passes, its results a few ulp from the CPU', async () => {
    const want = Number((await f32().fetch()).item());
    const gpu = await runtime.gpuDevice();
    expect(gpu, 'a WebGPU adapter (SwiftShader)').toBeDefined();
    const before = gpu!.stats.tasks;
    const { rep, got } = await gpuMesh(0);
    expect(gpu!.stats.tasks, 'tasks that ran on the GPU').toBeGreaterThan(before);
    expect(rep.peers.find((p) => p.id === 'gpu')?.tasks ?? 0).toBeGreaterThan(0);
    expect(rep.quarantined).toEqual([]);
    expect(rep.checkRuns).toBeGreaterThan(0);
    expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-4 * Math.abs(want));
  }, 120_000);

  it('a GPU worker that corrupts its results is caught, and the answer is the CPU one', async () => {
    const want = Number((await f32().fetch()).item());
    const { rep, got } = await gpuMesh(1);
    expect(rep.quarantined).toEqual(['gpu']);
    expect(got).toBe(want);
  }, 120_000);

  it('the tolerance: exact for integers, 1e-4 of the piece for floats, NaN with NaN', () => {
    expect(closeAcrossDevices(Int32Array.of(1, 2), Int32Array.of(1, 2), 'int32')).toBe(true);
    expect(closeAcrossDevices(Int32Array.of(1, 2), Int32Array.of(1, 3), 'int32')).toBe(false);
    expect(closeAcrossDevices(Float32Array.of(100, 1.00001, NaN), Float32Array.of(100.001, 1, NaN), 'float32')).toBe(true);
    expect(closeAcrossDevices(Float32Array.of(100, 2), Float32Array.of(100, 1), 'float32')).toBe(false);
    expect(closeAcrossDevices(Float32Array.of(Infinity), Float32Array.of(3e38), 'float32')).toBe(false);
  });
});

describe('a worker that serves other bytes than it committed', () => {
  it('is found out by the digests its readers check: its pieces are computed again and the answer is the local one', async () => {
    const program = piOf(33, 60_000, 500);
    const local = (await program().fetch()).item();
    const net = new SimNet({ seed: 33, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 2000, fetchTimeoutMs: 200 });
    const parts: { close(): void }[] = [coord, cstate];
    let forged = 0;
    // it computes honestly and reports the true digest, but every piece it serves is changed
    const ep = simWorker(net, 'forger', parts, { fetchTimeoutMs: 200 });
    const send = ep.send.bind(ep);
    ep.send = (to, m, payload) => {
      if (m.t !== 'piece' || !payload) return send(to, m, payload);
      const c = decodeChunk(payload);
      const a = c.data as unknown as { [i: number]: number | bigint };
      a[0] = typeof a[0] === 'bigint' ? a[0] + 1n : (a[0] as number) + 1;
      forged++;
      return send(to, m, encodeChunk(c.data, c.dtype, c.shape));
    };
    for (const id of ['w1', 'w2', 'w3']) simWorker(net, id, parts, { fetchTimeoutMs: 200 });
    try {
      await new Promise((r) => setTimeout(r, 150));
      const x = program();
      const rep = await coord.run([x.node]);
      expect(forged).toBeGreaterThan(0);
      expect((await x.fetch()).item()).toBe(local);
      expect(rep.recomputed).toBeGreaterThan(0);
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 60_000);
});

describe('a broken link between two workers (both still linked to the coordinator)', () => {
  it('is reported and avoided, fetches across it are relayed by the coordinator, and nothing is recomputed', async () => {
    // cut before the jobs, or during the first; mended during a later job, or never
    for (const [seed, cutAt, mendAt] of [[41, 0, undefined], [42, 15, 150], [43, 40, 250]] as const) {
      const net = new SimNet({ seed, maxDelayMs: 2 });
      const parts: { close(): void }[] = [];
      const cep = net.join('coordinator');
      const cstate = new MeshState(cep, 40);
      const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 5000, fetchTimeoutMs: 1000 });
      parts.push({ close: () => coord.close() }, cstate);
      // two workers: a combine reads pieces of both, so some must come through the relay
      for (const id of ['w0', 'w1']) simWorker(net, id, parts);
      const gets = { relayed: 0, acrossCut: 0, betweenWorkers: 0 };
      let cut = false;
      net.watch((step, from, to, m) => {
        if (step !== 'send' || m.t !== 'get') return;
        if (m.via) gets.relayed++;
        else if (from !== 'coordinator' && to !== 'coordinator') gets.betweenWorkers++;
        if (cut && [from, to].sort().join() === 'w0,w1') gets.acrossCut++;
      });
      const timers = [setTimeout(() => { cut = true; net.cut('w0', 'w1'); }, cutAt)];
      if (mendAt !== undefined) timers.push(setTimeout(() => { cut = false; net.mend('w0', 'w1'); }, mendAt));
      try {
        for (const name of ['rowsum', 'matmul', 'pi']) {
          const x = PROGRAMS[name]!();
          const rep = await coord.run([x.node]);
          expect(Array.from((await x.fetch()).data as ArrayLike<number>), `${name} seed ${seed}`).toEqual(Array.from((await want(name)) as ArrayLike<number>));
          // a piece behind the broken link is not lost: nothing ran twice
          expect(rep.recomputed, `${name} seed ${seed}`).toBe(0);
          expect(rep.commits).toBe(rep.tasks);
        }
      } finally {
        timers.forEach(clearTimeout);
        parts.forEach((p) => p.close());
      }
      expect(gets.acrossCut).toBe(0);
      expect(gets.relayed).toBeGreaterThan(0);
      console.log(`cut after ${cutAt} ms, mended after ${mendAt ?? 'never'}: ${JSON.stringify(gets)}`);
    }
  }, 60_000);
});
