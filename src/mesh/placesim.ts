// The placement simulator: a task DAG (simdags.ts) run in simulated time on
// a seeded model of P peers with their own speeds and links, each task's peer
// chosen by a real Placement policy object (placement.ts's locality rule,
// lshs.ts's LSHS), so that placement is measured at sizes no one machine
// holds. It does not drive the Coordinator: its loop below is the
// coordinator's (ready tasks in a queue, each given to the policy while a
// worker has room, one held back by the policy kept in its place), over a
// cost model instead of messages and real compute. In: a Dag, the peers, a
// policy, the dispatch and reduction modes. Out: bytes moved, the largest
// per-peer network load (in + out) and peak memory, the makespan, and the
// time the policy took to decide.
//
// The cost model: a task computes for flops / its peer's speed, after
// fetching each input its peer lacks from the holder that can send it first
// (ties: the one that sent least so far); a transfer takes bytes / the
// slower of the two peers' links, and each peer sends one transfer and
// receives one at a time (its link is a queue). A fetched copy stays where it
// went (later tasks there read it, and policies see that peer as a holder)
// until the block's last reader has finished; then every copy is freed.
// Sources stay on the peer the layout gave them. A peer's memory is the
// bytes of the blocks and copies it holds, the peak over the run.
//
// Dispatch: 'pull' is the coordinator's (a task is placed when a worker has
// a free slot, among the free ones; the policy may hold it back); 'push' is
// NumS's (a task is placed as soon as it is ready, on any peer, and waits in
// that peer's queue). Reductions: 'tree' combines the partials in a fixed
// binary tree over their order (what a graph built ahead of time does);
// 'lie' combines a new partial with one already on the same peer when there
// is one, the rest in pairs once no more partials are to come (NumS's tree
// reduction, combined where the partials lie).

import type { InputView, Placement, TaskView, WorkerView } from './placement.js';
import type { Dag } from './simdags.js';
import { rng } from './sim.js';

export interface PeerModel {
  readonly id: string;
  /** Compute speed (flop/s). */
  readonly flops: number;
  /** Link bandwidth (bytes/s), each way. */
  readonly bw: number;
  readonly slots: number;
}

/** `count` peers, seeded: speeds 25-100 GFLOP/s and links 0.3-1.25 GB/s (10 Gbit/s at best), log-uniform, two slots each. */
export function peerModels(count: number, seed: number): PeerModel[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => ({ id: `p${i}`, flops: 50e9 * 2 ** (2 * r() - 1), bw: 1.25e9 * 2 ** (-2 * r()), slots: 2 }));
}

export interface PlaceSimOptions {
  readonly dispatch: 'pull' | 'push';
  readonly reduce: 'tree' | 'lie';
  /**
   * 'pull': a round of the coordinator's loop ends once the policy has held
   * back this many tasks (default SCAN). The coordinator offers its whole
   * queue each round; with thousands of tasks held back for busy holders
   * that is quadratic, and a simulation at 256 peers must take seconds (GEMM
   * at 256 peers under the locality rule: the same figures within 2% at 64).
   */
  readonly scan?: number;
}

export const SCAN = 16;

export interface PlaceSimReport {
  readonly tasks: number;
  /** Bytes sent between peers, in all. */
  readonly moved: number;
  /** The largest bytes in + out of any one peer. */
  readonly maxNet: number;
  /** The largest peak memory of any one peer (bytes). */
  readonly peakMem: number;
  /** Simulated seconds until the last task finished. */
  readonly makespan: number;
  /** Calls of the policy's `place`, and the wall seconds they took. */
  readonly decisions: number;
  readonly placeSeconds: number;
  /** Per peer: bytes received, sent, and peak memory. */
  readonly perPeer: readonly { readonly in: number; readonly out: number; readonly peakMem: number }[];
}

interface Task { key: string; reads: readonly number[]; write: number; also: readonly number[]; flops: number; deps: number }
interface Group { key: string; out: number; flops: number; pending: number; pool: number[]; n: number }

/** Runs `dag` on `peers`, placing with `policy`. */
export function simulate(dag: Dag, peers: readonly PeerModel[], policy: Placement, opts: PlaceSimOptions): PlaceSimReport {
  const P = peers.length, ids = peers.map((p) => p.id), index = new Map(ids.map((id, i) => [id, i]));
  const everyone: ReadonlySet<string> = new Set(ids);
  // blocks: bytes, where each copy is and from when, the policy's view, readers to come, tasks waiting
  const bytes = [...dag.bytes];
  const at: Map<number, number>[] = [], views: { bytes: number; holders: Set<string>; reachable: ReadonlySet<string> }[] = [];
  const left: number[] = [], waiting: number[][] = [], produced: boolean[] = [], groupOf: (Group | undefined)[] = [];
  const keep = new Set(dag.outputs);
  const source = (b: number) => dag.sourceAt[b];
  const memNow = new Float64Array(P), peak = new Float64Array(P), netIn = new Float64Array(P), netOut = new Float64Array(P);
  const inFree = new Float64Array(P), outFree = new Float64Array(P), leasedAt = new Float64Array(P).fill(-Infinity);
  let moved = 0, now = 0, decisions = 0, placeMs = 0, done = 0;
  const hold = (p: number, b: number) => { memNow[p]! += bytes[b]!; if (memNow[p]! > peak[p]!) peak[p] = memNow[p]!; };
  const newBlock = (b: number) => {
    at.push(new Map()); views.push({ bytes: bytes[b]!, holders: new Set(), reachable: everyone });
    left.push(0); waiting.push([]); produced.push(false); groupOf.push(undefined);
  };
  for (let b = 0; b < bytes.length; b++) {
    newBlock(b);
    const s = source(b);
    if (s !== undefined) { at[b]!.set(s, 0); views[b]!.holders.add(ids[s]!); produced[b] = true; hold(s, b); }
  }
  const addBlock = (size: number) => { bytes.push(size); newBlock(bytes.length - 1); return bytes.length - 1; };

  // tasks, and the reductions: a fixed tree now, or groups combined as partials arrive
  const tasks: Task[] = [];
  const statics: { key: string; reads: readonly number[]; write: number; alsoWrites?: readonly number[]; flops: number }[] = [...dag.tasks];
  for (const r of dag.reduces) {
    if (opts.reduce === 'lie') {
      const g: Group = { key: r.key, out: r.out, flops: r.flops, pending: r.parts.length, pool: [], n: 0 };
      for (const p of r.parts) groupOf[p] = g;
      continue;
    }
    let level = [...r.parts], n = 0;
    while (level.length > 1) {
      const next: number[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) {
        const out = level.length === 2 ? r.out : addBlock(bytes[r.out]!);
        statics.push({ key: `${r.key}+${n++}`, reads: [level[i]!, level[i + 1]!], write: out, flops: r.flops });
        next.push(out);
      }
      if (level.length % 2) next.push(level[level.length - 1]!);
      level = next;
    }
  }

  // the workers as the policy sees them (one array, updated in place)
  const running = new Int32Array(P), assigned = new Int32Array(P), queues: number[][] = peers.map(() => []);
  const workers = peers.map((p) => ({ id: p.id, slots: p.slots, throughput: p.flops / 1e9, leases: 0, free: true, sinceLeaseMs: Infinity }));
  let freeSlots = peers.reduce((s, p) => s + p.slots, 0);
  const taskPeer: number[] = [], readyAt: number[] = [];
  const queue: number[] = [];
  let qHead = 0;
  const heap = new EventHeap();

  const decide = (t: number): number | undefined => {
    const task = tasks[t]!, inputs: InputView[] = [], sources: InputView[] = [];
    for (const r of new Set(task.reads)) (source(r) === undefined ? inputs : sources).push(views[r]!);
    const waited = opts.dispatch === 'pull' ? { waitedMs: (now - readyAt[t]!) * 1000 } : {};
    let outBytes = bytes[task.write]!;
    for (const w of task.also) outBytes += bytes[w]!;
    const view: TaskView = { key: task.key, inputs, sources, outBytes, ...waited };
    const t0 = performance.now();
    const id = policy.place(view, workers as readonly WorkerView[]);
    placeMs += performance.now() - t0;
    decisions++;
    return id === undefined ? undefined : index.get(id);
  };

  const start = (t: number, p: number): void => {
    const task = tasks[t]!;
    running[p]!++;
    leasedAt[p] = now;
    if (opts.dispatch === 'pull') {
      workers[p]!.leases = running[p]!; workers[p]!.sinceLeaseMs = 0;
      if (running[p]! >= peers[p]!.slots && workers[p]!.free) workers[p]!.free = false;
    }
    freeSlots--;
    let ready = now;
    for (const r of new Set(task.reads)) {
      const copies = at[r]!, mine = copies.get(p);
      if (mine !== undefined) { ready = Math.max(ready, mine); continue; }
      let from = -1, first = Infinity;
      for (const [q, when] of copies) {
        const s = Math.max(now, when, outFree[q]!);
        if (s < first || (s === first && netOut[q]! < netOut[from]!)) { from = q; first = s; }
      }
      if (from < 0) throw new Error(`placesim: block ${r} read by ${task.key} is nowhere`);
      const begin = Math.max(first, inFree[p]!), end = begin + bytes[r]! / Math.min(peers[from]!.bw, peers[p]!.bw);
      inFree[p] = end; outFree[from] = end;
      copies.set(p, end); views[r]!.holders.add(ids[p]!); hold(p, r);
      moved += bytes[r]!; netIn[p]! += bytes[r]!; netOut[from]! += bytes[r]!;
      ready = Math.max(ready, end);
    }
    taskPeer[t] = p;
    heap.push(ready + task.flops / peers[p]!.flops, t);
  };

  const place = (t: number): void => {
    const p = decide(t);
    if (p === undefined) throw new Error(`placesim: the policy placed ${tasks[t]!.key} nowhere though every peer takes it`);
    queues[p]!.push(t);
    workers[p]!.leases = ++assigned[p]!;
    drain(p);
  };
  const drain = (p: number): void => { while (running[p]! < peers[p]!.slots && queues[p]!.length) start(queues[p]!.shift()!, p); };
  const ready = (t: number): void => {
    readyAt[t] = now;
    if (opts.dispatch === 'push') place(t); else queue.push(t);
  };
  const addTask = (key: string, reads: readonly number[], write: number, flops: number, also: readonly number[] = []): void => {
    const t = tasks.length;
    let deps = 0;
    for (const r of new Set(reads)) { left[r]!++; if (!produced[r]) { deps++; waiting[r]!.push(t); } }
    tasks.push({ key, reads, write, also, flops, deps });
    if (deps === 0) ready(t);
  };
  const combine = (g: Group, a: number, b: number): void => {
    const last = g.pending === 0 && g.pool.length === 0;
    const out = last ? g.out : addBlock(bytes[g.out]!);
    if (!last) groupOf[out] = g;
    g.pending++;
    addTask(`${g.key}+${g.n++}`, [a, b], out, g.flops);
  };
  const arrive = (g: Group, x: number, p: number): void => {
    g.pending--;
    const i = g.pool.findIndex((y) => at[y]!.has(p));
    if (i >= 0) combine(g, g.pool.splice(i, 1)[0]!, x); else g.pool.push(x);
    // no more partials to come: the ones left pair up, all at once (one level of the tree)
    if (g.pending === 0) while (g.pool.length >= 2) combine(g, g.pool.shift()!, g.pool.shift()!);
  };
  const free = (r: number): void => {
    const s = source(r);
    for (const q of at[r]!.keys()) if (q !== s) memNow[q]! -= bytes[r]!;
    at[r]!.clear(); views[r]!.holders.clear();
    if (s !== undefined) { at[r]!.set(s, 0); views[r]!.holders.add(ids[s]!); }
  };
  const complete = (t: number): void => {
    const task = tasks[t]!, p = taskPeer[t]!;
    done++;
    running[p]!--; freeSlots++;
    if (opts.dispatch === 'pull') { workers[p]!.leases = running[p]!; workers[p]!.free = true; }
    else workers[p]!.leases = --assigned[p]!;
    const w = task.write;
    for (const x of [w, ...task.also]) { at[x]!.set(p, now); views[x]!.holders.add(ids[p]!); produced[x] = true; hold(p, x); }
    for (const r of new Set(task.reads)) if (--left[r]! === 0 && !keep.has(r)) free(r);
    for (const x of [w, ...task.also]) {
      for (const u of waiting[x]!) if (--tasks[u]!.deps === 0) ready(u);
      waiting[x] = [];
    }
    const g = groupOf[w];
    if (g) arrive(g, w, p);
    if (opts.dispatch === 'push') drain(p);
  };
  // the coordinator's loop: while a worker has room, the next ready task to the policy; one it holds back keeps its place
  const schedule = (): void => {
    if (opts.dispatch !== 'pull' || qHead >= queue.length || freeSlots === 0) return;
    for (let p = 0; p < P; p++) workers[p]!.sinceLeaseMs = (now - leasedAt[p]!) * 1000;
    const held: number[] = [], most = opts.scan ?? SCAN;
    while (qHead < queue.length && freeSlots > 0 && held.length < most) {
      const t = queue[qHead++]!, p = decide(t);
      if (p === undefined) held.push(t); else start(t, p);
    }
    qHead -= held.length;
    for (let i = 0; i < held.length; i++) queue[qHead + i] = held[i]!;
    if (qHead > 4096 && qHead * 2 > queue.length) { queue.splice(0, qHead); qHead = 0; }
  };

  for (const s of statics) addTask(s.key, s.reads, s.write, s.flops, s.alsoWrites);
  schedule();
  while (heap.size) {
    const [time, t] = heap.pop();
    now = time;
    complete(t);
    // finish every task ending at this instant before placing again
    while (heap.size && heap.peek() === now) complete(heap.pop()[1]);
    schedule();
  }
  if (done !== tasks.length) {
    throw new Error(`placesim: ${tasks.length - done} of ${tasks.length} tasks never ran (a policy held them back with every worker free)`);
  }
  const perPeer = peers.map((_, p) => ({ in: netIn[p]!, out: netOut[p]!, peakMem: peak[p]! }));
  return {
    tasks: tasks.length, moved, maxNet: Math.max(...perPeer.map((q) => q.in + q.out)), peakMem: Math.max(...perPeer.map((q) => q.peakMem)),
    makespan: now, decisions, placeSeconds: placeMs / 1000, perPeer,
  };
}

/** A binary heap of (time, task) events, the earlier first, ties by task number (so a run is the same every time). */
class EventHeap {
  private readonly times: number[] = [];
  private readonly ids: number[] = [];
  get size(): number { return this.times.length; }
  peek(): number { return this.times[0]!; }
  push(time: number, id: number): void {
    const { times, ids } = this;
    let i = times.length;
    times.push(time); ids.push(id);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!this.before(time, id, times[up]!, ids[up]!)) break;
      times[i] = times[up]!; ids[i] = ids[up]!; i = up;
    }
    times[i] = time; ids[i] = id;
  }
  pop(): [number, number] {
    const { times, ids } = this;
    const top: [number, number] = [times[0]!, ids[0]!];
    const time = times.pop()!, id = ids.pop()!;
    if (times.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i, mt = time, mi = id;
        if (l < times.length && this.before(times[l]!, ids[l]!, mt, mi)) { m = l; mt = times[l]!; mi = ids[l]!; }
        if (r < times.length && this.before(times[r]!, ids[r]!, mt, mi)) { m = r; }
        if (m === i) break;
        times[i] = times[m]!; ids[i] = ids[m]!; i = m;
      }
      times[i] = time; ids[i] = id;
    }
    return top;
  }
  private before(t1: number, i1: number, t2: number, i2: number): boolean { return t1 < t2 || (t1 === t2 && i1 < i2); }
}
