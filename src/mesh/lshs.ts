// NumS's load-simulated hierarchical scheduling (LSHS), as a Placement
// policy, and NumS's block-cyclic layout of source chunks over a grid of
// peers. In: a task as placement.ts describes it (the bytes it reads with
// their holders, its source chunks' holders where a layout placed them, the
// bytes it writes) and the workers. Out: the worker whose choice keeps the
// simulated loads lowest.
//
// The policy keeps, per peer, three loads in bytes that its own decisions
// made: memory (what it wrote there and the copies it fetched there),
// network in and network out. For each task it tries the candidates (the free
// peers holding one of its inputs, computed or source; when there is none,
// the least loaded free peers), simulates each: the inputs the candidate
// lacks come from the holder that sent least so far. It takes the one that
// minimises NumS's objective, the sum over the three loads of the largest on
// any peer after placing it; among equals, the one moving fewest bytes, then
// the one whose own loads (and its senders' network-out) stay smallest, then
// the less busy, then the first in the workers' order. Candidates that lack
// the same reads fetch them from the same senders, so a task works that out
// once per such set, not once per candidate: a block read by many tasks has
// a copy on each of their peers, and they are all candidates of its readers.
// Like NumS it never forgets a load (nothing it placed is freed in its
// model): the memory load is the bytes placed there so far, a measure of the
// work given to a peer as much as of what it holds. The reduction's side of
// LSHS (partials combined where they lie) belongs to whoever builds the
// combines; the simulator (placesim.ts) pairs co-located partials first.

import { fmtBytes } from '../runtime/debug.js';
import type { InputView, Placement, TaskView, WorkerView } from './placement.js';

/** A grid of peers, rows x columns. */
export type Grid = readonly [rows: number, cols: number];

/** The most square grid of `p` peers (rows <= columns): 16 -> 4 x 4, 32 -> 4 x 8, 7 -> 1 x 7. */
export function peerGrid(p: number): Grid {
  if (!(Number.isInteger(p) && p >= 1)) throw new Error(`peerGrid: ${p} peers`);
  let r = Math.floor(Math.sqrt(p));
  while (p % r) r--;
  return [r, p / r];
}

/** NumS's block-cyclic layout: the peer (row-major index in `grid`) that holds tile (i, j). A vector's chunk i is tile (i, 0) of a grid [p, 1]. */
export function blockCyclic(i: number, j: number, grid: Grid): number {
  return (i % grid[0]) * grid[1] + (j % grid[1]);
}

/**
 * The free peers with the least load that a task tries when no free peer
 * holds any of its inputs (it reads only sources no layout placed, or their
 * holders are busy). A task whose inputs have a free holder tries only those:
 * NumS adds the least loaded only for tasks without located inputs, and
 * trying them as well, on GEMM over block-cyclic sources at 64 peers, moved
 * 1.7x the bytes (971 GiB against 559 GiB, SUMMA's bound 512 GiB).
 */
export const LSHS_SPREAD = 1;

interface Load { mem: number; in: number; out: number }

/** Holders of a task's reads past which `Lshs` keeps a set of its candidates rather than a list. */
const MANY = 16;

export class Lshs implements Placement {
  private readonly loads = new Map<string, Load>();
  /** The largest memory, network-in and network-out load on any peer. */
  private readonly top = { mem: 0, in: 0, out: 0 };
  private byId = new Map<string, WorkerView>();
  private lastWorkers: readonly WorkerView[] | undefined;
  private lastCount = -1;
  /** Bytes this policy's decisions moved, in total. */
  moved = 0;

  constructor(private readonly spread = LSHS_SPREAD) {}

  /** Peer `id`'s simulated loads (bytes). */
  load(id: string): Readonly<Load> { return this.loads.get(id) ?? { mem: 0, in: 0, out: 0 }; }

  place(task: TaskView, workers: readonly WorkerView[]): string | undefined {
    // the same array as last call is the same workers (a simulator updates its views in place); the coordinator makes a new one per call
    if (workers !== this.lastWorkers || workers.length !== this.lastCount) {
      this.byId = new Map(workers.map((w) => [w.id, w]));
      this.lastWorkers = workers;
      this.lastCount = workers.length;
    }
    const reads = task.sources?.length ? [...task.sources, ...task.inputs] : task.inputs;
    // the free holders, each once, in the order the reads name them (a Set past a few: blocks read often have many copies)
    let holders = 0;
    for (const p of reads) holders += p.holders.size;
    const cands: WorkerView[] = [], seen = holders > MANY ? new Set<WorkerView>() : undefined;
    for (const p of reads) {
      for (const h of p.holders) {
        const w = this.byId.get(h);
        if (w?.free && (seen ? !seen.has(w) : !cands.includes(w))) { seen?.add(w); cands.push(w); }
      }
    }
    if (!cands.length) this.leastLoaded(workers, cands);
    if (!cands.length) return undefined;
    // candidates lacking the same reads fetch them from the same senders: worked out once per such set
    const fetches = cands.length > 2 && reads.length <= 30 ? new Map<number, Fetch>() : undefined;
    let best: WorkerView | undefined, bestKey: number[] = [];
    for (const w of cands) {
      const key = this.score(w, reads, fetches, task.outBytes ?? 0, false);
      if (!best || less(key, bestKey)) { best = w; bestKey = key; }
    }
    this.score(best!, reads, fetches, task.outBytes ?? 0, true);
    return best!.id;
  }

  explain(task: TaskView, peer: string): string {
    const reads = task.sources?.length ? [...task.sources, ...task.inputs] : task.inputs;
    const total = reads.reduce((s, p) => s + p.bytes, 0);
    const local = reads.reduce((s, p) => (p.holders.has(peer) ? s + p.bytes : s), 0);
    const l = this.load(peer);
    return `holds ${fmtBytes(local)} of its ${fmtBytes(total)} input; loads there: memory ${fmtBytes(l.mem)}, in ${fmtBytes(l.in)}, out ${fmtBytes(l.out)}`;
  }

  /** Adds to `cands` the `spread` free workers with the smallest sum of loads (the first in order among equals). */
  private leastLoaded(workers: readonly WorkerView[], cands: WorkerView[]): void {
    const k = this.spread;
    const picked: { w: WorkerView; s: number }[] = [];
    for (const w of workers) {
      if (!w.free) continue;
      const l = this.loads.get(w.id), s = l ? l.mem + l.in + l.out : 0;
      if (picked.length < k) picked.push({ w, s });
      else if (s < picked[picked.length - 1]!.s) picked[picked.length - 1] = { w, s };
      else continue;
      picked.sort((a, b) => a.s - b.s);
    }
    for (const p of picked) cands.push(p.w);
  }

  /**
   * What a peer that lacks the reads in `lacks` (its bits) fetches: each
   * from the holder that will have sent least, this task's earlier fetches
   * counted (the first in the holders' order among equals); the largest
   * network-out load of those senders after it.
   */
  private fetch(reads: readonly InputView[], lacks: (r: number) => boolean): Fetch {
    const senders: string[] = [], sent: number[] = [];
    let bytes = 0;
    for (let r = 0; r < reads.length; r++) {
      const p = reads[r]!;
      if (!lacks(r) || p.bytes === 0) continue;
      let from: string | undefined, fromOut = Infinity;
      for (const h of p.holders) {
        const i = senders.indexOf(h);
        const o = (this.loads.get(h)?.out ?? 0) + (i < 0 ? 0 : sent[i]!);
        if (o < fromOut) { from = h; fromOut = o; }
      }
      if (from === undefined) continue; // no holder: nothing to fetch as far as the views tell
      const i = senders.indexOf(from);
      if (i < 0) { senders.push(from); sent.push(p.bytes); } else sent[i]! += p.bytes;
      bytes += p.bytes;
    }
    let outTop = -Infinity;
    for (let i = 0; i < senders.length; i++) outTop = Math.max(outTop, (this.loads.get(senders[i]!)?.out ?? 0) + sent[i]!);
    return { senders, sent, bytes, outTop };
  }

  /**
   * The loads after placing on `w`: [objective, bytes moved, the largest
   * load of the peers it touches summed over the three kinds, leases per
   * slot]. With `commit`, the loads become those.
   */
  private score(w: WorkerView, reads: readonly InputView[], fetches: Map<number, Fetch> | undefined, outBytes: number, commit: boolean): number[] {
    const own = this.load(w.id);
    let f: Fetch | undefined;
    if (fetches) {
      let lacks = 0;
      for (let r = 0; r < reads.length; r++) if (!reads[r]!.holders.has(w.id)) lacks |= 1 << r;
      f = fetches.get(lacks);
      if (!f) fetches.set(lacks, (f = this.fetch(reads, (r) => (lacks & (1 << r)) !== 0)));
    } else {
      f = this.fetch(reads, (r) => !reads[r]!.holders.has(w.id));
    }
    const { senders, sent, bytes: inB } = f;
    // the loads that change: the candidate's memory and network-in, its senders' network-out
    const mem = own.mem + inB + outBytes, inL = own.in + inB;
    const outTop = Math.max(own.out, f.outTop);
    const memTop = mem, inTop = inL;
    if (commit) {
      this.loads.set(w.id, { mem, in: inL, out: own.out });
      for (let i = 0; i < senders.length; i++) {
        const l = this.load(senders[i]!);
        this.loads.set(senders[i]!, { ...l, out: l.out + sent[i]! });
      }
      this.top.mem = Math.max(this.top.mem, memTop);
      this.top.in = Math.max(this.top.in, inTop);
      this.top.out = Math.max(this.top.out, outTop);
      this.moved += inB;
    }
    const objective = Math.max(this.top.mem, memTop) + Math.max(this.top.in, inTop) + Math.max(this.top.out, outTop);
    return [objective, inB, memTop + inTop + outTop, w.leases / w.slots];
  }
}

/** What a candidate fetches: from which senders, how many bytes each and in all, and the senders' largest network-out load after. */
interface Fetch { readonly senders: readonly string[]; readonly sent: readonly number[]; readonly bytes: number; readonly outTop: number }

/** Lexicographic order of score keys. */
function less(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}
