// Placement: which worker a ready task is leased to. A policy sees plain
// data, never the coordinator's job: the task (the key of its first output,
// the bytes it reads that earlier tasks computed and who holds them) and the
// workers (slots, throughput, this job's leases running there, whether they
// can take one more). It answers a worker id, or undefined when none is free,
// and says why in words for DEBUG level 2. The coordinator asks a fresh
// policy per job (`CoordinatorOptions.placement`), so a policy may keep state
// across one job's decisions, as the locality rule keeps its ring; a new
// policy (NumS's LSHS: simulate each peer's memory and network load, place to
// minimise the largest) is one more file beside this one (lshs.ts). A view
// may carry two facts the locality rule ignores: the bytes the task writes and
// where its source chunks lie (a caller that knows them, as the placement
// simulator placesim.ts does with NumS's block-cyclic layout).

import { fmtBytes } from '../runtime/debug.js';
import { Ring } from './ring.js';

/** One input of a task that an earlier task computed (the job's sources are not inputs here: every worker reads them alike). */
export interface InputView {
  readonly bytes: number;
  /** Workers that hold it. */
  readonly holders: ReadonlySet<string>;
  /** Workers that can fetch it over a link of their own: its holders, and those linked to one (the others get it relayed). */
  readonly reachable: ReadonlySet<string>;
}

export interface TaskView {
  /** The key of its first output: where the consistent-hash ring puts it. */
  readonly key: string;
  readonly inputs: readonly InputView[];
  /** How long it has been ready (ms): a policy may hold it back a while for a busy worker that holds its input. */
  readonly waitedMs?: number;
  /** The bytes it writes, where known (a load-simulating policy adds them to its peer's memory). */
  readonly outBytes?: number;
  /** The source chunks it reads and who holds them, where a layout places them (the locality rule reads sources alike everywhere). */
  readonly sources?: readonly InputView[];
}

export interface WorkerView {
  readonly id: string;
  readonly slots: number;
  /** Measured throughput (relative: the ring weighs workers by it). */
  readonly throughput: number;
  /** This job's leases running there. */
  readonly leases: number;
  /** Whether it can take another lease now. */
  readonly free: boolean;
  /** Since it was last given a lease of this job (ms): a worker that still takes them is working through its queue. */
  readonly sinceLeaseMs?: number;
}

export interface Placement {
  /** The worker for `task` among the free ones of `workers`, or undefined when none is free (or the task had better wait). */
  place(task: TaskView, workers: readonly WorkerView[]): string | undefined;
  /** Why `task` went to `peer`, in words (DEBUG level 2). */
  explain(task: TaskView, peer: string): string;
}

const computedBytes = (task: TaskView): number => task.inputs.reduce((s, p) => s + p.bytes, 0);

/** Input bytes a task would fetch elsewhere, at least, before it waits for the busy worker that holds them. */
export const LOCALITY_BYTES = 1 << 20;
/**
 * How long a task waits for that worker (Spark's delay scheduling): while
 * the task is this new, or the worker has had a lease this recently (it is
 * working through its queue); then it goes where there is room.
 */
export const LOCALITY_WAIT_MS = 1000;

/**
 * The locality rule. A task that reads only sources (no computed bytes) goes
 * to the least loaded worker (leases per slot), the ring deciding among
 * equals: a ring alone can give a small job's few keys all to one owner while
 * another worker idles.
 * A later task goes where it can fetch the most of its input over links of
 * its own, then where most of its input bytes already are, then to the less
 * loaded worker, then in ring order. A task that would fetch a megabyte or
 * more because the worker holding it is busy waits for it while that worker
 * keeps taking leases (delay scheduling: a shuffle's stages then read what
 * they wrote where it is, rather than moving it to whichever worker is free
 * first). The ring
 * (virtual nodes weighted by throughput, ring.ts) is rebuilt when the set
 * of workers changes.
 */
export class Locality implements Placement {
  private ring = new Ring(new Map());
  private ringPeers = '';
  private ringIds: readonly string[] = [];

  place(task: TaskView, workers: readonly WorkerView[]): string | undefined {
    this.update(workers);
    const before = this.ring.order(task.key);
    // each choice is the first in the workers' order among the best (one pass: this runs for every task, over every worker)
    if (computedBytes(task) === 0) {
      let best: WorkerView | undefined;
      for (const w of workers) {
        if (!w.free) continue;
        const d = best ? w.leases / w.slots - best.leases / best.slots : -1;
        if (d < 0 || (d === 0 && before(w.id, best!.id) < 0)) best = w;
      }
      return best?.id;
    }
    // bytes a candidate could only have through a relay; bytes it holds already
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

  explain(task: TaskView, peer: string): string {
    const computed = computedBytes(task);
    if (computed === 0) return `reads only sources; ring rank ${this.ring.owners(task.key).indexOf(peer)}`;
    const local = task.inputs.reduce((s, p) => (p.holders.has(peer) ? s + p.bytes : s), 0);
    return `holds ${fmtBytes(local)} of its ${fmtBytes(computed)} computed input`;
  }

  private update(workers: readonly WorkerView[]): void {
    // the same ids in the same order as last call: nothing changed, and no sort (this runs for every task)
    const last = this.ringIds;
    if (last.length === workers.length && workers.every((w, i) => w.id === last[i])) return;
    this.ringIds = workers.map((w) => w.id);
    const key = workers.map((w) => w.id).sort().join(',');
    if (key === this.ringPeers) return;
    this.ring = new Ring(new Map(workers.map((w) => [w.id, w.throughput])));
    this.ringPeers = key;
  }
}
