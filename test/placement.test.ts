// The placement policies (src/mesh/placement.ts) on plain data: tasks and
// workers written out by hand, with the worker each rule must choose.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { LOCALITY_BYTES, LOCALITY_WAIT_MS, Locality, type InputView, type Placement, type WorkerView } from '../src/mesh/placement.js';
import { Ring } from '../src/mesh/ring.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

const worker = (id: string, leases = 0, o: Partial<WorkerView> = {}): WorkerView => ({ id, slots: 2, throughput: 1, leases, free: true, ...o });
/** An input held by `holders`, which every worker in `reach` (and each holder) fetches over its own link. */
const input = (bytes: number, holders: string[], reach: string[] = ['a', 'b', 'c']): InputView => ({
  bytes, holders: new Set(holders), reachable: new Set([...holders, ...reach]),
});
const ringOrder = (ids: string[], key: string) => new Ring(new Map(ids.map((id) => [id, 1]))).owners(key);

describe('the locality rule', () => {
  it('sends a task that reads only sources to the least loaded worker, per slot', () => {
    const ws = [worker('a', 2), worker('b', 1), worker('c', 3, { slots: 4 })];
    // leases per slot: a 1, b 0.5, c 0.75
    expect(new Locality().place({ key: 'k', inputs: [] }, ws)).toBe('b');
  });

  it('lets the ring decide among equally loaded workers, and keeps a key on its owner', () => {
    const ids = ['a', 'b', 'c'];
    const p = new Locality();
    for (const key of ['t0/0', 't1/0', 't2/3', 'x']) {
      expect(p.place({ key, inputs: [] }, ids.map((id) => worker(id)))).toBe(ringOrder(ids, key)[0]);
    }
    // the owner is busy: its successor on the ring among the idle ones
    const key = 't0/0', order = ringOrder(ids, key);
    const ws = ids.map((id) => worker(id, id === order[0] ? 1 : 0));
    expect(p.place({ key, inputs: [] }, ws)).toBe(order[1]);
  });

  it('sends a later task where most of its input bytes are, however loaded', () => {
    const task = { key: 'k', inputs: [input(100, ['a']), input(300, ['c']), input(50, ['b', 'c'])] };
    expect(new Locality().place(task, [worker('a'), worker('b'), worker('c', 2)])).toBe('c');
  });

  it('breaks a tie in local bytes by load, then by ring order', () => {
    const task = { key: 'k', inputs: [input(100, ['a']), input(100, ['b'])] };
    expect(new Locality().place(task, [worker('a', 1), worker('b', 0), worker('c', 0)])).toBe('b');
    const order = ringOrder(['a', 'b', 'c'], 'k').filter((id) => id !== 'c');
    expect(new Locality().place(task, [worker('a'), worker('b'), worker('c')])).toBe(order[0]);
  });

  it('avoids a worker that could only get part of its input relayed', () => {
    // a and b hold 200 and 300 bytes with no link between them; c holds nothing but reaches both
    const task = { key: 'k', inputs: [input(200, ['a'], ['c']), input(300, ['b'], ['c'])] };
    expect(new Locality().place(task, [worker('a'), worker('b'), worker('c')])).toBe('c');
    // without c: b, which would get the smaller part relayed
    expect(new Locality().place(task, [worker('a'), worker('b'), worker('c', 0, { free: false })])).toBe('b');
    // once a reaches b's holder, a holds the most and fetches the rest itself
    const linked = { key: 'k', inputs: [input(200, ['a'], ['c']), input(300, ['b'], ['a', 'c'])] };
    expect(new Locality().place(linked, [worker('a'), worker('b'), worker('c')])).toBe('a');
  });

  it('places only on free workers, and nowhere when none is free', () => {
    const task = { key: 'k', inputs: [input(100, ['a'])] };
    expect(new Locality().place(task, [worker('a', 3, { free: false }), worker('b', 3)])).toBe('b');
    expect(new Locality().place(task, [worker('a', 3, { free: false })])).toBeUndefined();
    expect(new Locality().place({ key: 'k', inputs: [] }, [])).toBeUndefined();
  });

  it('holds a task back for a busy worker that holds a megabyte more of its input, while that worker keeps taking leases', () => {
    const big = { key: 'k', inputs: [input(LOCALITY_BYTES, ['a'])] };
    const busyA = worker('a', 3, { free: false, sinceLeaseMs: 200 });
    // new, or its holder working through its queue: it waits (the queue keeps it)
    expect(new Locality().place({ ...big, waitedMs: 0 }, [busyA, worker('b')])).toBeUndefined();
    expect(new Locality().place({ ...big, waitedMs: 5 * LOCALITY_WAIT_MS }, [busyA, worker('b')])).toBeUndefined();
    // a holder that took no lease for a while (stuck, or slow): the task goes where there is room
    const stuck = worker('a', 3, { free: false, sinceLeaseMs: 2 * LOCALITY_WAIT_MS });
    expect(new Locality().place({ ...big, waitedMs: 2 * LOCALITY_WAIT_MS }, [stuck, worker('b')])).toBe('b');
    // a smaller difference is fetched rather than waited for; a free holder takes it; without a wait time, nothing waits
    expect(new Locality().place({ key: 'k', inputs: [input(LOCALITY_BYTES - 1, ['a'])], waitedMs: 0 }, [busyA, worker('b')])).toBe('b');
    expect(new Locality().place({ ...big, waitedMs: 0 }, [worker('a', 1), worker('b')])).toBe('a');
    expect(new Locality().place(big, [busyA, worker('b')])).toBe('b');
  });

  it('says why', () => {
    const p = new Locality();
    const ws = [worker('a'), worker('b')];
    const src = { key: 'k', inputs: [] };
    const peer = p.place(src, ws)!;
    expect(p.explain(src, peer)).toBe(`reads only sources; ring rank ${ringOrder(['a', 'b'], 'k').indexOf(peer)}`);
    expect(p.explain({ key: 'k', inputs: [input(2048, ['a']), input(1024, ['b'])] }, 'a')).toBe('holds 2.0 KiB of its 3.0 KiB computed input');
  });
});

describe('a coordinator', () => {
  it('asks the policy its options give, one per job, for every lease', async () => {
    const net = new SimNet({ seed: 3 });
    const parts: { close(): void }[] = [];
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    let made = 0, asked = 0;
    // every task to the free worker first in id order: w0 while it has room
    const first = (): Placement => {
      made++;
      return {
        place: (_task, ws) => { asked++; return ws.filter((w) => w.free).map((w) => w.id).sort()[0]; },
        explain: () => 'first free',
      };
    };
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, waitForWorkersMs: 10_000, speculate: false, placement: first });
    for (const id of ['w0', 'w1']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 4 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25 }));
    }
    try {
      const x = mt.arange(4000, { chunkSize: 1000 }).multiply(2).sum();
      const rep = await coord.run([x.node]);
      expect(Number((await x.fetch()).data[0])).toBe(2 * (3999 * 4000) / 2);
      expect(made).toBe(1);
      expect(asked).toBe(rep.leases);
      // w0 takes five leases at once (slots + 1), more than this job has tasks at a time
      expect(rep.peers.map((p) => p.id)).toEqual(['w0']);
    } finally {
      coord.close();
      cstate.close();
      for (const p of parts) p.close();
    }
  });
});
