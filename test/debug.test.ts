// What an execution tells about itself (src/runtime/debug.ts): the DEBUG
// levels' lines and the report's timeline in the Chrome trace-event format,
// checked against the run's own counts (tasks, threads, host operations).

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { debugLevel } from '../src/runtime/debug.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());
afterEach(() => { mt.options.debug = undefined; vi.restoreAllMocks(); });

/** The lines an execution prints at `level`, and its report. */
async function linesAt(level: number, program: () => mt.Tensor): Promise<{ lines: string[]; report: ReturnType<typeof mt.lastReport> }> {
  mt.options.debug = level;
  const lines: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { lines.push(a.map(String).join(' ')); });
  await program().fetch();
  return { lines: lines.filter((l) => l.startsWith('tessera: ')), report: mt.lastReport() };
}

const chain = () => mt.arange(0, 400_000, 1, { chunkSize: 50_000 }).multiply(0.5).exp().sum();

describe('DEBUG levels', () => {
  it('0 prints nothing; 1 one summary per execution; 2 a line per task; 3 the graph and the kernels', async () => {
    expect((await linesAt(0, chain)).lines).toEqual([]);
    const one = await linesAt(1, chain);
    expect(one.lines.filter((l) => /^tessera: execution [\d.]+ ms: 1 run, \d+ tasks of \d+ kernels/.test(l))).toHaveLength(1);
    expect(one.lines.some((l) => /stages: plan [\d.]+ ms, tasks [\d.]+ ms, host [\d.]+ ms; memory: /.test(l))).toBe(true);
    expect(one.lines.some((l) => / task \d+ on /.test(l))).toBe(false);
    const two = await linesAt(2, chain);
    const taskLines = two.lines.filter((l) => /^tessera: {3}task \d+ on (main thread|worker \d+): \+[\d.]+ ms, [\d.]+ ms/.test(l));
    expect(taskLines).toHaveLength(two.report!.tasks);
    const three = await linesAt(3, () => mt.arange(0, 1000, 1, { chunkSize: 100 }).multiply(3.25).sum());
    expect(three.lines.some((l) => /^tessera: plan: \d+ tasks, \d+ kernels/.test(l))).toBe(true);
    expect(three.lines.some((l) => /^tessera: {3}#\d+ iota \(1000,\) int64 chunks \(100,\)/.test(l))).toBe(true);
    expect(three.lines.some((l) => /^tessera: kernel 0: \{/.test(l) && l.includes('3.25'))).toBe(true);
  });

  it('takes the level from the environment when none is set, and ignores a DEBUG that is not a level', () => {
    const keep = { t: process.env.TESSERA_DEBUG, d: process.env.DEBUG };
    try {
      delete process.env.TESSERA_DEBUG;
      process.env.DEBUG = 'express:*';
      expect(debugLevel()).toBe(0);
      process.env.DEBUG = '2';
      expect(debugLevel()).toBe(2);
      process.env.TESSERA_DEBUG = '1';
      expect(debugLevel()).toBe(1);
      expect(debugLevel(3)).toBe(3);
      expect(debugLevel(9)).toBe(3);
    } finally {
      if (keep.t === undefined) delete process.env.TESSERA_DEBUG; else process.env.TESSERA_DEBUG = keep.t;
      if (keep.d === undefined) delete process.env.DEBUG; else process.env.DEBUG = keep.d;
    }
  });
});

describe('the timeline (mt.lastReport().trace)', () => {
  it('holds every task of the run once, on the threads that ran it, in the Chrome trace-event format', async () => {
    await chain().fetch();
    const r = mt.lastReport()!;
    const trace = JSON.parse(JSON.stringify(r.trace)) as typeof r.trace;
    expect(trace.displayTimeUnit).toBe('ms');
    const tasks = trace.traceEvents.filter((e) => e.cat === 'task');
    expect(tasks).toHaveLength(r.tasks);
    expect(new Set(tasks.map((e) => e.name)).size).toBe(r.tasks);
    for (const e of trace.traceEvents) {
      expect(e.ph).toBe('X');
      expect(Number.isInteger(e.ts) && Number.isInteger(e.dur) && e.dur >= 0 && e.ts >= 0).toBe(true);
      expect(e.pid).toBe(1);
    }
    // threads: 0 is the main thread, 1..workers the pool's
    for (const e of tasks) expect(e.tid >= 0 && e.tid <= r.workers).toBe(true);
    expect(trace.traceEvents.filter((e) => e.cat === 'plan')).toHaveLength(1);
    // events are in time order, and the run's tasks all lie within it
    const ts = trace.traceEvents.map((e) => e.ts);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(Math.max(...tasks.map((e) => e.ts + e.dur)) / 1000).toBeLessThanOrEqual(r.ms + 1000);
  });

  it('shows the host operations between the stages of an execution', async () => {
    const x = mt.random.default_rng(1).uniform(0, 1, [20_000], { chunkSize: 5000 });
    await mt.sort(x).get('::100').sum().fetch();
    const trace = mt.lastReport()!.trace;
    const host = trace.traceEvents.filter((e) => e.cat === 'host');
    // a sort of several chunks runs as routine tasks; the host only brackets the output chunks from a table of ranks
    expect(host.map((e) => e.name)).toEqual(['sort.brackets']);
    expect(host[0]!.args).toMatchObject({ shape: '(20000,)', chunks: 4 });
    // six runs (the sort's input, its local sorts, samples, ranks and merges, then the sum over the sorted values), each planned
    expect(trace.traceEvents.filter((e) => e.cat === 'plan')).toHaveLength(6);
    const firstTask = Math.min(...trace.traceEvents.filter((e) => e.cat === 'task').map((e) => e.ts));
    expect(host[0]!.ts).toBeGreaterThan(firstTask);
  });
});

describe('a mesh job (the simulated network, real in-process workers)', () => {
  it('prints its leases with their placement at level 2 and a summary at 1; its report holds each worker\'s tasks as a timeline', async () => {
    const net = new SimNet({ seed: 5, maxDelayMs: 2 });
    const parts: { close(): void }[] = [];
    for (const id of ['wa', 'wb', 'wc']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25 }));
    }
    const cep = net.join('coord');
    const cst = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cst, { runtime, tickMs: 10 });
    try {
      while (cst.workers().size < 3) await new Promise((r) => setTimeout(r, 10));
      const x = mt.arange(0, 60_000, 1, { chunkSize: 5_000 }).multiply(0.001).sin().sum();
      const lines: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { lines.push(a.map(String).join(' ')); });
      const rep = await coord.run([x.node], undefined, { debug: 2, name: 'sines' });
      const leases = lines.filter((l) => /^tessera: {3}lease task \d+#\d+ to w[abc]: (reads only sources; ring rank \d|holds .* of its .* computed input); \d+ leases running there$/.test(l));
      expect(leases).toHaveLength(rep.leases);
      expect(lines.filter((l) => /^tessera: {3}done task \d+#\d+ on w[abc]: /.test(l))).toHaveLength(rep.commits + rep.duplicates);
      expect(lines.filter((l) => l.startsWith(`tessera: job sines `) && l.includes(`${rep.tasks} tasks on ${rep.peers.length} workers`))).toHaveLength(1);
      const tasks = rep.trace.traceEvents.filter((e) => e.cat === 'task');
      expect(tasks).toHaveLength(rep.commits + rep.duplicates);
      // one thread per worker that ran tasks, numbered from 1
      expect(new Set(tasks.map((e) => e.tid)).size).toBe(rep.peers.length);
      for (const e of tasks) expect(e.tid >= 1 && e.tid <= 3 && e.dur >= 0 && typeof e.args?.peer === 'string').toBe(true);
      vi.restoreAllMocks();
      // level 0: silent, and the timeline is there all the same
      const quiet: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { quiet.push(a.map(String).join(' ')); });
      const again = await coord.run([mt.arange(0, 60_000, 1, { chunkSize: 5_000 }).multiply(0.002).sin().sum().node], undefined, { debug: 0 });
      expect(quiet.filter((l) => l.startsWith('tessera: '))).toEqual([]);
      expect(again.trace.traceEvents.filter((e) => e.cat === 'task').length).toBeGreaterThanOrEqual(again.tasks);
    } finally {
      coord.close();
      for (const p of parts) p.close();
      await cep.close();
    }
  });
});
