// Memory caps on the mesh, on the seeded in-memory network (src/mesh/sim.ts):
// a tiled Cholesky and solve of a matrix larger than any one worker's cap
// (a lazy elementwise matrix, so no peer ever holds it whole) runs on three
// workers to the local answer bit for bit, no worker holding more pieces
// than its cap, and the tasks whose pieces nothing reads (the factor's zero
// tiles, the unread triangle) are not run; with caps too small for the
// DAG, the job fails saying the mesh is out of memory instead of hanging.
// bench/cholesky_mesh.js is the same program at 12288² on worker processes.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

function mesh(workers: number, memory: number) {
  const net = new SimNet({ seed: 5, maxDelayMs: 2 });
  const cep = net.join('coordinator');
  const state = new MeshState(cep, 40);
  const coord = new Coordinator(cep, state, { runtime, tickMs: 10, publishMs: 10 });
  const ws: MeshWorker[] = [];
  const closers: (() => void)[] = [() => coord.close(), () => state.close()];
  for (let i = 0; i < workers; i++) {
    const ep = net.join(`w${i}`);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory, slots: 2 });
    const w = new MeshWorker(ep, { runtime, memory, heartbeatMs: 25 });
    ws.push(w);
    closers.push(() => w.close(), () => st.close());
  }
  return { coord, ws, close: () => closers.forEach((c) => c()) };
}

const n = 1024, T = 128;
/** x with A x = b through A's Cholesky factor; A_ij = 0.5^|i−j| + sin(i/100) sin(j/100) + δ_ij (SPD), 8 MiB, in 128² tiles. */
const program = (): mt.Tensor => {
  const i = mt.arange(n, { chunkSize: T }).reshape([n, 1]);
  const j = mt.arange(n, { chunkSize: T }).reshape([1, n]);
  const A = mt.exp(mt.abs(mt.subtract(i, j)).multiply(Math.log(0.5)))
    .add(mt.multiply(mt.sin(i.multiply(0.01)), mt.sin(j.multiply(0.01))))
    .add(mt.equal(i, j).astype('float64'));
  const b = mt.sin(mt.arange(n, { chunkSize: T }).multiply(0.37)).reshape([n, 1]);
  return mt.linalg.cho_solve([mt.linalg.cholesky(A), true], b);
};

describe('memory caps on the mesh', () => {
  it('factors and solves a matrix larger than any worker holds, each worker under its cap; unread tiles are not computed', async () => {
    const want = Array.from((await program().fetch()).data as Float64Array);
    const cap = 3 * 2 ** 20;
    const m = mesh(3, cap);
    try {
      await new Promise((r) => setTimeout(r, 50)); // the workers' announcements reach the coordinator
      const x = program();
      const planned = runtime.planOf([x.node]).tasks.length;
      const rep = await m.coord.run([x.node]);
      expect(Array.from((await x.fetch()).data as Float64Array)).toEqual(want);
      for (const w of m.ws) expect(w.stats.peakWritten).toBeLessThanOrEqual(cap);
      expect(Math.max(...m.ws.map((w) => w.stats.peakWritten))).toBeGreaterThan(cap / 2);
      // of 64 tiles of A, L and Lᵀ, 28 each are never read (A's upper triangle, L's zeros, Lᵀ's below its diagonal): not run
      expect(rep.tasks).toBe(planned - 3 * 28);
      expect(rep.commits).toBe(rep.tasks);
    } finally {
      m.close();
    }
  }, 60_000);

  it('fails saying the mesh is out of memory when the DAG fits on no worker', async () => {
    const m = mesh(3, 2 ** 20);
    try {
      await new Promise((r) => setTimeout(r, 50));
      await expect(m.coord.run([program().node])).rejects.toThrow(/out of memory on the mesh|refused \d+ times by full workers/);
      for (const w of m.ws) expect(w.stats.peakWritten).toBeLessThanOrEqual(2 ** 20);
    } finally {
      m.close();
    }
  }, 60_000);
});
