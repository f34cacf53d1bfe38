// Naming and cancelling a mesh job (the pi page's job names and its Cancel),
// on the seeded in-memory network (src/mesh/sim.ts): a job run with a name
// publishes it in the shared state; aborting the signal mid-job rejects the
// run at once, publishes the job as 'cancelled', and the workers, told to
// end it, stop computing it and drop the pieces they held of it; a signal
// aborted before the run starts runs nothing.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

function mesh(workers: number) {
  const net = new SimNet({ seed: 1, maxDelayMs: 2 });
  const cep = net.join('coordinator');
  const state = new MeshState(cep, 40);
  const coord = new Coordinator(cep, state, { runtime, tickMs: 10, publishMs: 10 });
  const ws: MeshWorker[] = [];
  const closers: (() => void)[] = [() => coord.close(), () => state.close()];
  for (let i = 0; i < workers; i++) {
    const ep = net.join(`w${i}`);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1 });
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25 });
    ws.push(w);
    closers.push(() => w.close(), () => st.close());
  }
  return { coord, state, ws, close: () => closers.forEach((c) => c()) };
}

/** Many small chunks, so the job is still running when it is cancelled. */
const program = () => {
  mt.random.seed(3);
  return mt.sqrt(mt.random.uniform(-1, 1, [400_000, 2], { chunkSize: 2000 }).power(2).sum({ axis: 1 })).less(1).sum();
};

describe('naming and cancelling a mesh job', () => {
  it('a named job publishes its name; aborting its signal mid-job cancels it and its workers let it go', async () => {
    const m = mesh(2);
    try {
      await new Promise((r) => setTimeout(r, 50)); // the workers' announcements reach the coordinator
      const abort = new AbortController();
      let published: { name?: string; state?: string } | undefined;
      const run = m.coord.run([program().node], ({ done, total }) => { if (done > total / 5) abort.abort(); }, { name: 'pi 4e5 · slice 1/1', signal: abort.signal });
      m.state.jobs.observe(() => { for (const j of m.state.jobs.values()) published = j; });
      const t0 = performance.now();
      await expect(run).rejects.toThrow(/pi 4e5 · slice 1\/1 was cancelled/);
      expect(performance.now() - t0).toBeLessThan(5000);
      expect(published?.name).toBe('pi 4e5 · slice 1/1');
      expect(published?.state).toBe('cancelled');
      // told to end the job, the workers finish what runs, take nothing new and drop what they held of it
      await expect.poll(() => m.ws.map((w) => [w.busy, w.bytesHeld]).join(), { timeout: 5000 }).toBe("0,0,0,0");
      const tasks = m.ws.map((w) => w.stats.tasks);
      await new Promise((r) => setTimeout(r, 300));
      expect(m.ws.map((w) => w.stats.tasks)).toEqual(tasks);
      expect(tasks.reduce((a, b) => a + b, 0)).toBeLessThan(200); // not the whole job: it stopped
    } finally {
      m.close();
    }
  }, 60_000);

  it('a signal aborted before the run starts runs nothing', async () => {
    const m = mesh(1);
    try {
      const abort = new AbortController();
      abort.abort();
      await expect(m.coord.run([program().node], undefined, { signal: abort.signal })).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      expect(m.ws[0]!.stats.tasks).toBe(0);
      expect(m.state.jobs.size).toBe(0);
    } finally {
      m.close();
    }
  }, 30_000);
});
