// NumS's LSHS policy (src/mesh/lshs.ts) on hand-written tasks and workers,
// its block-cyclic layout, the ring's order without listing the ring, and
// the placement simulator (src/mesh/placesim.ts) on DAGs small enough to
// account for by hand: bytes moved, network loads, peak memory and makespan
// exact, the same numbers for the same seed. The policies' fast paths (for
// hundreds of peers) against their plain scans as first written, on random
// views: the same answers, the same loads.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { Lshs, blockCyclic, peerGrid } from '../src/mesh/lshs.js';
import { LOCALITY_BYTES, LOCALITY_WAIT_MS, Locality, type InputView, type Placement, type TaskView, type WorkerView } from '../src/mesh/placement.js';
import { type PeerModel, peerModels, simulate } from '../src/mesh/placesim.js';
import { Ring } from '../src/mesh/ring.js';
import { SimNet, rng } from '../src/mesh/sim.js';
import { type Dag, cholesky, gemm, logreg, qr, tsqr } from '../src/mesh/simdags.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

const worker = (id: string, o: Partial<WorkerView> = {}): WorkerView => ({ id, slots: 2, throughput: 1, leases: 0, free: true, ...o });
const input = (bytes: number, holders: string[]): InputView => ({ bytes, holders: new Set(holders), reachable: new Set(['a', 'b', 'c']) });
const abc = () => [worker('a'), worker('b'), worker('c')];

describe('the block-cyclic layout', () => {
  it('lays tiles over the most square grid of peers, cyclically', () => {
    expect(peerGrid(16)).toEqual([4, 4]);
    expect(peerGrid(32)).toEqual([4, 8]);
    expect(peerGrid(7)).toEqual([1, 7]);
    expect(peerGrid(1)).toEqual([1, 1]);
    expect(() => peerGrid(0)).toThrow();
    // tile (i, j) on the grid's peer (i mod rows, j mod columns), row-major
    expect(blockCyclic(5, 6, [4, 4])).toBe(1 * 4 + 2);
    expect(blockCyclic(3, 9, [2, 8])).toBe(1 * 8 + 1);
    const seen = new Map<number, number>();
    for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) seen.set(blockCyclic(i, j, [4, 4]), (seen.get(blockCyclic(i, j, [4, 4])) ?? 0) + 1);
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual([...Array(16).keys()]);
    expect(new Set(seen.values())).toEqual(new Set([4]));
  });
});

describe('the LSHS policy', () => {
  it('places a task where it moves least when no load differs', () => {
    const p = new Lshs();
    // a holds 100 bytes, b 300: on b only 100 move (objective 300 against 900)
    expect(p.place({ key: 'k', inputs: [input(100, ['a']), input(300, ['b'])] }, abc())).toBe('b');
    expect(p.load('b')).toEqual({ mem: 100, in: 100, out: 0 });
    expect(p.load('a')).toEqual({ mem: 0, in: 0, out: 100 });
    expect(p.moved).toBe(100);
  });

  it('minimises the largest load on any peer, where the locality rule takes the most bytes held', () => {
    const p = new Lshs();
    // 1000 bytes from a to b (a is busy): b's network-in and memory are 1000, a's network-out 1000
    expect(p.place({ key: 't1', inputs: [input(1000, ['a'])] }, [worker('a', { free: false }), worker('b'), worker('c', { free: false })])).toBe('b');
    expect(p.load('b')).toEqual({ mem: 1000, in: 1000, out: 0 });
    // b holds 400 and c 300: on b, b's in goes to 1300 (objective 1300 + 1300 + 1000);
    // on c, 400 go from b to c and no largest load grows (1000 + 1000 + 1000)
    const task: TaskView = { key: 't2', inputs: [input(400, ['b']), input(300, ['c'])] };
    expect(new Locality().place(task, abc())).toBe('b');
    expect(p.place(task, abc())).toBe('c');
    expect(p.load('c')).toEqual({ mem: 400, in: 400, out: 0 });
    expect(p.load('b')).toEqual({ mem: 1000, in: 1000, out: 400 });
    expect(p.explain(task, 'c')).toBe('holds 300 B of its 700 B input; loads there: memory 400 B, in 400 B, out 0 B');
  });

  it('sees source chunks where a layout put them, and counts what a task writes in its memory', () => {
    const p = new Lshs();
    const task: TaskView = { key: 's', inputs: [], sources: [input(64, ['c'])], outBytes: 8 };
    expect(p.place(task, abc())).toBe('c');
    expect(p.load('c')).toEqual({ mem: 8, in: 0, out: 0 });
    // the locality rule reads sources alike everywhere: the least loaded, then the ring
    expect(new Locality().place(task, [worker('a'), worker('b', { leases: 1 }), worker('c', { leases: 1 })])).toBe('a');
  });

  it('takes the least loaded free worker when no free one holds an input, and the first of equals', () => {
    const p = new Lshs();
    expect(p.place({ key: 'x', inputs: [], outBytes: 10 }, abc())).toBe('a');
    expect(p.place({ key: 'y', inputs: [], outBytes: 10 }, abc())).toBe('b');
    // c holds it but is busy: the least loaded of the free (c then a, b tied at 10: a first)
    expect(p.place({ key: 'z', inputs: [input(5, ['c'])] }, [worker('a'), worker('b'), worker('c', { free: false })])).toBe('a');
    expect(p.load('a')).toEqual({ mem: 15, in: 5, out: 0 });
    expect(p.load('c').out).toBe(5);
    // fetches from the holder that sent least so far
    expect(p.place({ key: 'w', inputs: [input(7, ['c', 'b'])] }, [worker('a'), worker('b', { free: false }), worker('c', { free: false })])).toBe('a');
    expect(p.load('b').out).toBe(7);
    expect(p.place({ key: 'v', inputs: [input(1, ['a'])] }, [worker('a', { free: false })])).toBeUndefined();
    expect(p.place({ key: 'v', inputs: [] }, [])).toBeUndefined();
  });

  it('runs a real job on a coordinator that asks it', async () => {
    const net = new SimNet({ seed: 4 });
    const parts: { close(): void }[] = [];
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, waitForWorkersMs: 10_000, speculate: false, placement: () => new Lshs() });
    for (const id of ['w0', 'w1', 'w2']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 2 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25 }));
    }
    try {
      const x = mt.arange(6000, { chunkSize: 1000 }).multiply(3).sum();
      await coord.run([x.node]);
      expect(Number((await x.fetch()).data[0])).toBe(3 * (5999 * 6000) / 2);
    } finally {
      coord.close();
      cstate.close();
      for (const p of parts) p.close();
    }
  });
});

/**
 * The locality rule as first written: one pass over every worker per task
 * (the policy answers from the holders alone where it can, and walks the
 * ring among many equals; its answers must be these).
 */
function localityByScan(task: TaskView, workers: readonly WorkerView[]): string | undefined {
  const before = new Ring(new Map(workers.map((w) => [w.id, w.throughput]))).order(task.key);
  if (task.inputs.reduce((s, p) => s + p.bytes, 0) === 0) {
    let best: WorkerView | undefined;
    for (const w of workers) {
      if (!w.free) continue;
      const d = best ? w.leases / w.slots - best.leases / best.slots : -1;
      if (d < 0 || (d === 0 && before(w.id, best!.id) < 0)) best = w;
    }
    return best?.id;
  }
  const held = new Map<string, number>();
  for (const p of task.inputs) for (const h of p.holders) held.set(h, (held.get(h) ?? 0) + p.bytes);
  let best: WorkerView | undefined, bestFar = 0, bestLocal = 0, holder = workers[0], holderLocal = holder ? held.get(holder.id) ?? 0 : 0;
  for (const w of workers) {
    const local = held.get(w.id) ?? 0;
    if (local > holderLocal) { holder = w; holderLocal = local; }
    if (!w.free) continue;
    let far = 0;
    for (const p of task.inputs) if (!p.reachable.has(w.id)) far += p.bytes;
    const d = !best ? -1 : far - bestFar || bestLocal - local || w.leases - best.leases || before(w.id, best.id);
    if (d < 0) { best = w; bestFar = far; bestLocal = local; }
  }
  if (!best) return undefined;
  const busy = task.waitedMs !== undefined && !holder!.free && holderLocal - bestLocal >= LOCALITY_BYTES;
  const progressing = (task.waitedMs ?? Infinity) < LOCALITY_WAIT_MS || (holder!.sinceLeaseMs ?? Infinity) < LOCALITY_WAIT_MS;
  return busy && progressing ? undefined : best.id;
}

/** LSHS as first written: every candidate looks every holder of every read over for its senders. */
class LshsByScan {
  readonly loads = new Map<string, { mem: number; in: number; out: number }>();
  private readonly top = { mem: 0, in: 0, out: 0 };
  place(task: TaskView, workers: readonly WorkerView[]): string | undefined {
    const byId = new Map(workers.map((w) => [w.id, w]));
    const reads = [...(task.sources ?? []), ...task.inputs];
    const cands: WorkerView[] = [];
    for (const p of reads) for (const h of p.holders) { const w = byId.get(h); if (w?.free && !cands.includes(w)) cands.push(w); }
    if (!cands.length) {
      // the least loaded free worker, the first of equals
      let least: WorkerView | undefined, ls = Infinity;
      for (const w of workers) { const l = this.loads.get(w.id), s = l ? l.mem + l.in + l.out : 0; if (w.free && s < ls) { least = w; ls = s; } }
      if (least) cands.push(least);
    }
    if (!cands.length) return undefined;
    let best: WorkerView | undefined, bestKey: number[] = [];
    for (const w of cands) {
      const key = this.score(w, reads, task.outBytes ?? 0, false);
      const i = key.findIndex((k, j) => k !== bestKey[j]);
      if (!best || (i >= 0 && key[i]! < bestKey[i]!)) { best = w; bestKey = key; }
    }
    this.score(best!, reads, task.outBytes ?? 0, true);
    return best!.id;
  }
  private score(w: WorkerView, reads: readonly InputView[], outBytes: number, commit: boolean): number[] {
    const load = (id: string) => this.loads.get(id) ?? { mem: 0, in: 0, out: 0 };
    const own = load(w.id), senders: string[] = [], sent: number[] = [];
    let inB = 0;
    for (const p of reads) {
      if (p.holders.has(w.id) || p.bytes === 0) continue;
      let from: string | undefined, fromOut = Infinity;
      for (const h of p.holders) {
        const i = senders.indexOf(h), o = load(h).out + (i < 0 ? 0 : sent[i]!);
        if (o < fromOut) { from = h; fromOut = o; }
      }
      if (from === undefined) continue;
      const i = senders.indexOf(from);
      if (i < 0) { senders.push(from); sent.push(p.bytes); } else sent[i]! += p.bytes;
      inB += p.bytes;
    }
    const mem = own.mem + inB + outBytes, inL = own.in + inB;
    let outTop = own.out;
    for (let i = 0; i < senders.length; i++) outTop = Math.max(outTop, load(senders[i]!).out + sent[i]!);
    if (commit) {
      this.loads.set(w.id, { mem, in: inL, out: own.out });
      for (let i = 0; i < senders.length; i++) { const l = load(senders[i]!); this.loads.set(senders[i]!, { ...l, out: l.out + sent[i]! }); }
      this.top.mem = Math.max(this.top.mem, mem); this.top.in = Math.max(this.top.in, inL); this.top.out = Math.max(this.top.out, outTop);
    }
    return [Math.max(this.top.mem, mem) + Math.max(this.top.in, inL) + Math.max(this.top.out, outTop), inB, mem + inL + outTop, w.leases / w.slots];
  }
}

/** Random workers and tasks: holders among them (and gone ones), links cut, busy holders, ties of every kind. */
function randomViews(r: () => number, P: number): { workers: WorkerView[]; task: () => TaskView } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const workers = Array.from({ length: P }, (_, i) => {
    const slots = 1 + Math.floor(r() * 3), leases = Math.floor(r() * (slots + 1));
    return { id: `w${i}`, slots, throughput: pick([1, 1, 2, 0.5]), leases, free: leases < slots && r() < 0.8, sinceLeaseMs: pick([0, 500, 5000]) };
  });
  const ids = [...workers.map((w) => w.id), 'gone'];
  const task = (): TaskView => {
    const inputs = Array.from({ length: Math.floor(r() * 4) }, () => {
      const holders = new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(ids)));
      const reachable = r() < 0.7 ? new Set(ids) : new Set([...holders, ...ids.filter(() => r() < 0.5)]);
      return { bytes: pick([0, 1000, LOCALITY_BYTES, 3 << 20]), holders, reachable };
    });
    const sources = Array.from({ length: Math.floor(r() * 3) }, () => ({ bytes: pick([64, 4096]), holders: new Set([pick(ids)]), reachable: new Set(ids) }));
    const waited = pick([undefined, 0, LOCALITY_WAIT_MS / 2, 2 * LOCALITY_WAIT_MS]);
    return { key: `t${Math.floor(r() * 1e6)}`, inputs, sources, outBytes: pick([0, 100, 5000]), ...(waited === undefined ? {} : { waitedMs: waited }) };
  };
  return { workers, task };
}

describe('the policies made fast at hundreds of peers', () => {
  it('the locality rule answers as its one-pass scan of every worker does', () => {
    const r = rng(17);
    let held = 0, placed = 0;
    for (let round = 0; round < 60; round++) {
      const { workers, task } = randomViews(r, [1, 3, 12, 40, 300][round % 5]!);
      const p = new Locality();
      for (let k = 0; k < 40; k++) {
        // the coordinator's views: a new list each call, in any order
        const ws = k % 7 === 6 ? [...workers].reverse() : workers.map((w) => ({ ...w }));
        const t = task(), got = p.place(t, ws);
        expect(got, `round ${round} task ${k}`).toBe(localityByScan(t, ws));
        if (got === undefined) held++; else placed++;
      }
    }
    expect(held).toBeGreaterThan(50);
    expect(placed).toBeGreaterThan(1000);
  });

  it('LSHS chooses and loads its peers as when every candidate looked every holder over', () => {
    const r = rng(23);
    for (let round = 0; round < 20; round++) {
      const { workers, task } = randomViews(r, [2, 9, 64][round % 3]!);
      const fast = new Lshs(), scan = new LshsByScan();
      for (let k = 0; k < 100; k++) {
        const t = task();
        expect(fast.place(t, workers), `round ${round} task ${k}`).toBe(scan.place(t, workers));
      }
      for (const w of workers) expect(fast.load(w.id)).toEqual(scan.loads.get(w.id) ?? { mem: 0, in: 0, out: 0 });
    }
  });
});

describe("the ring's order", () => {
  it('is the order of owners(key), without listing the ring', () => {
    const ids = ['p0', 'p1', 'p2', 'p3', 'p4'];
    const ring = new Ring(new Map(ids.map((id, i) => [id, 1 + i / 2])));
    const r = rng(9);
    for (let k = 0; k < 200; k++) {
      const key = `t${Math.floor(r() * 1e9)}/${k}`;
      expect([...ids].sort(ring.order(key))).toEqual(ring.owners(key));
    }
    expect(ring.order('k')('p0', 'nobody')).toBe(-1);
    expect(ring.order('k')('nobody', 'else')).toBe(0);
  });
});

/** Places each task on the peer its key names after '@'. */
const byKey = (): Placement => ({ place: (t) => t.key.split('@')[1], explain: () => 'by key' });
const two: PeerModel[] = [{ id: 'p0', flops: 1000, bw: 100, slots: 1 }, { id: 'p1', flops: 1000, bw: 400, slots: 1 }];

describe('the placement simulator', () => {
  it('accounts for a small DAG exactly', () => {
    // s0 (100 B) on p0, s1 (200 B) on p1; t0 on p0 reads both, writes b2 (50 B); t1 on p1 reads b2 and s1, writes b3 (10 B)
    const dag: Dag = {
      name: 'tiny', bytes: [100, 200, 50, 10], sourceAt: [0, 1, undefined, undefined],
      tasks: [{ key: 't0@p0', reads: [0, 1], write: 2, flops: 1000 }, { key: 't1@p1', reads: [2, 1], write: 3, flops: 500 }],
      reduces: [], outputs: [3],
    };
    for (const dispatch of ['pull', 'push'] as const) {
      const r = simulate(dag, two, byKey(), { dispatch, reduce: 'tree' });
      // s1 to p0 (200 B), then b2 to p1 (50 B)
      expect(r.moved).toBe(250);
      expect(r.perPeer.map((q) => [q.in, q.out])).toEqual([[200, 50], [50, 200]]);
      expect(r.maxNet).toBe(250);
      // p0: s0 + the copy of s1 + b2; p1: s1 + the copy of b2 + b3
      expect(r.perPeer.map((q) => q.peakMem)).toEqual([350, 260]);
      expect(r.peakMem).toBe(350);
      // t0: 200 B at 100 B/s (the slower link), 1000 flop at 1000/s; t1: 50 B at 100 B/s, 500 flop
      expect(r.makespan).toBeCloseTo(2 + 1 + 0.5 + 0.5, 12);
      expect(r.tasks).toBe(2);
      expect(r.decisions).toBe(2);
    }
  });

  it("combines a reduction's partials where they lie, or in a fixed tree", () => {
    // four partials (8 B), written where their sources are: p0, p1, p0, p1
    const dag: Dag = {
      name: 'sum', bytes: [1, 1, 1, 1, 8, 8, 8, 8, 8], sourceAt: [0, 1, 0, 1, undefined, undefined, undefined, undefined, undefined],
      tasks: [0, 1, 2, 3].map((i) => ({ key: `part${i}@p${i % 2}`, reads: [i], write: 4 + i, flops: 10 })),
      reduces: [{ key: 'sum', parts: [4, 5, 6, 7], out: 8, flops: 8 }], outputs: [8],
    };
    const pinned: Placement = { place: (t, ws) => t.key.split('@')[1] ?? new Lshs().place(t, ws), explain: () => '' };
    // where they lie: p0's two and p1's two locally, then one partial crosses
    const lie = simulate(dag, two, pinned, { dispatch: 'push', reduce: 'lie' });
    expect(lie.moved).toBe(8);
    expect(lie.tasks).toBe(4 + 3);
    // a fixed tree over their order pairs p0's with p1's: each of its three combines moves one
    const tree = simulate(dag, two, pinned, { dispatch: 'push', reduce: 'tree' });
    expect(tree.moved).toBe(24);
    expect(tree.tasks).toBe(4 + 3);
  });

  it('combines partials on four peers in a tree of two levels, at once', () => {
    const four: PeerModel[] = [0, 1, 2, 3].map((i) => ({ id: `p${i}`, flops: 1000, bw: 8, slots: 1 }));
    const dag: Dag = {
      name: 'sum4', bytes: [1, 1, 1, 1, 8, 8, 8, 8, 8], sourceAt: [0, 1, 2, 3, undefined, undefined, undefined, undefined, undefined],
      tasks: [0, 1, 2, 3].map((i) => ({ key: `part${i}`, reads: [i], write: 4 + i, flops: 1000 })),
      reduces: [{ key: 'sum', parts: [4, 5, 6, 7], out: 8, flops: 1000 }], outputs: [8],
    };
    for (const reduce of ['lie', 'tree'] as const) {
      const r = simulate(dag, four, new Lshs(), { dispatch: 'push', reduce });
      // parts 1 s; two combines side by side, each after one partial moved (1 s) and 1 s of compute; then the last
      expect(r.moved).toBe(3 * 8);
      expect(r.makespan).toBe(1 + 2 + 2);
    }
  });

  it('gives the same numbers for the same seed, other speeds for another', () => {
    const dag = cholesky(8 * 64, 64, 16);
    const run = (seed: number, make: () => Placement, dispatch: 'pull' | 'push') => {
      const { placeSeconds: _, ...r } = simulate(dag, peerModels(16, seed), make(), { dispatch, reduce: dispatch === 'push' ? 'lie' : 'tree' });
      return r;
    };
    for (const [make, dispatch] of [[() => new Locality(), 'pull'], [() => new Lshs(), 'push']] as const) {
      const a = run(3, make, dispatch);
      expect(run(3, make, dispatch)).toEqual(a);
      expect(run(4, make, dispatch).makespan).not.toBe(a.makespan);
    }
  });

  it('builds the five DAGs with their task counts and bounds', () => {
    const t = 4, b = 64, n = t * b;
    const g = gemm(n, b, 16);
    // t³ products and t²(t − 1) combines in the simulator; SUMMA's 2n²√P words
    expect(g.tasks.length).toBe(t ** 3);
    expect(g.reduces.length).toBe(t * t);
    expect(g.bound!.bytes).toBe(2 * n * n * 4 * 8);
    expect(simulate(g, peerModels(16, 1), new Lshs(), { dispatch: 'push', reduce: 'lie' }).tasks).toBe(t ** 3 + t * t * (t - 1));
    // POTRF t, TRSM and SYRK t(t − 1)/2 each, GEMM t(t − 1)(t − 2)/6
    expect(cholesky(n, b, 16).tasks.length).toBe(t + t * (t - 1) + (t * (t - 1) * (t - 2)) / 6);
    expect(tsqr(16 * b, b, b, 4).tasks.length).toBe(16);
    expect(tsqr(16 * b, b, b, 4).bound!.bytes).toBe(3 * b * b * 8);
    // xw and xtr per tile, r per row block
    expect(logreg(n, b, 16).tasks.length).toBe(2 * t * t + t);
    // tile QR: GEQRT t, UNMQR and TSQRT t(t − 1)/2 each, TSMQR (t − 1)t(2t − 1)/6; every tile returned, and each diagonal's V
    const q = qr(n, b, 16);
    expect(q.tasks.length).toBe(t + t * (t - 1) + ((t - 1) * t * (2 * t - 1)) / 6);
    // 4b³/3, 2b³, 2b³ and 4b³ a task: 4n³/3 flops, exactly
    expect(q.tasks.reduce((s, x) => s + x.flops, 0) / ((4 / 3) * n ** 3)).toBeCloseTo(1, 12);
    expect(q.outputs.length).toBe(t * t + t - 1);
    expect(q.bound!.bytes).toBe(n * n * 4 * 8);
    // each TSQRT and TSMQR writes two tiles, both on its peer
    expect(q.tasks.filter((x) => x.alsoWrites?.length === 1).length).toBe(t * (t - 1) / 2 + ((t - 1) * t * (2 * t - 1)) / 6);
    for (const make of [() => new Lshs(), () => new Locality()]) {
      const r = simulate(q, peerModels(16, 1), make(), { dispatch: 'push', reduce: 'lie' });
      expect(r.tasks).toBe(q.tasks.length);
      expect(r.moved).toBeGreaterThan(0);
    }
    expect(() => gemm(100, 64, 4)).toThrow(/multiple/);
  });

  it('moves within 1.5x of SUMMA\'s volume for GEMM under LSHS, and cuts the largest network load against the locality rule', () => {
    const dag = gemm(16 * 256, 256, 16), peers = peerModels(16, 2);
    const lshs = simulate(dag, peers, new Lshs(), { dispatch: 'push', reduce: 'lie' });
    const loc = simulate(dag, peers, new Locality(), { dispatch: 'pull', reduce: 'tree' });
    expect(lshs.moved).toBeLessThan(1.5 * dag.bound!.bytes);
    expect(loc.maxNet / lshs.maxNet).toBeGreaterThan(1.5);
  });
});
