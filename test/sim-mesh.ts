// A coordinator and workers on a seeded simulated network (src/mesh/sim.ts),
// as a session the API can run on: what the routine tests (sort, compress,
// scatter) lease their tasks to. Options: strict verification, workers that
// lie on a share of their results, and a worker killed as soon as it has run
// its first task (before it can report it), or its n-th.
import { Coordinator, type MeshReport } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

export interface SimMeshOptions { verify?: 'strict'; lie?: Record<string, number>; seed?: number; killAfterTask?: string; killAfterTasks?: number }

export function simMesh(ids: readonly string[], opts: SimMeshOptions = {}) {
  const net = new SimNet({ seed: opts.seed ?? 5, maxDelayMs: 2 });
  const cep = net.join('coordinator');
  const cstate = new MeshState(cep, 40);
  const coord = new Coordinator(cep, cstate, {
    runtime, tickMs: 10, leaseMs: 300, fetchTimeoutMs: 200, waitForWorkersMs: 10_000, ...(opts.verify ? { verify: opts.verify } : {}),
  });
  const parts: { close(): void }[] = [coord, cstate];
  const workers: MeshWorker[] = [];
  for (const id of ids) {
    const ep = net.join(id);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 2 });
    const lie = opts.lie?.[id];
    let done = 0;
    const log = id === opts.killAfterTask ? (line: string) => { if (/ done in /.test(line) && ++done >= (opts.killAfterTasks ?? 1)) net.kill(id); } : undefined;
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 200, ...(lie ? { lie } : {}), ...(log ? { log } : {}) });
    workers.push(w);
    parts.push(st, w);
  }
  const reports: MeshReport[] = [];
  const session = { runNodes: async (...a: Parameters<Coordinator['run']>) => { const r = await coord.run(...a); reports.push(r); return r; } };
  return { net, workers, reports, session, close: () => parts.forEach((p) => p.close()) };
}
