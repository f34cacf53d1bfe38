// Placement: which worker a ready task is leased to. A policy sees plain
// data, never the coordinator's job: the task (the key of its first output,
// the bytes it reads that earlier tasks computed and who holds them) and the
// workers (slots, throughput, this job's leases running there, whether they
// can take one more). It answers a worker id, or undefined when none is free,
// and says why in words for DEBUG level 2. The coordinator asks a fresh
// policy per job (`CoordinatorOptions.placement`), so a policy may keep state
// across one job's decisions, as the locality rule keeps its ring; a new
// policy (NumS's LSHS: simulate each peer's memory and network load, place to
// minimise the largest) is one more file beside this one.

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

  place(task: TaskView, workers: readonly WorkerView[]): string | undefined {
    this.update(workers);
    const candidates = workers.filter((w) => w.free);
    if (!candidates.length) return undefined;
    const order = this.ring.owners(task.key);
    const rank = (w: WorkerView) => { const i = order.indexOf(w.id); return i < 0 ? order.length : i; };
    if (computedBytes(task) === 0) {
      const busy = (w: WorkerView) => w.leases / w.slots;
      return candidates.sort((a, b) => busy(a) - busy(b) || rank(a) - rank(b))[0]!.id;
    }
    // bytes a candidate could only have through a relay; bytes it holds already
    const far = new Map(workers.map((w) => [w.id, task.inputs.reduce((s, p) => (p.reachable.has(w.id) ? s : s + p.bytes), 0)]));
    const local = new Map(workers.map((w) => [w.id, task.inputs.reduce((s, p) => (p.holders.has(w.id) ? s + p.bytes : s), 0)]));
    const best = candidates.sort((a, b) => far.get(a.id)! - far.get(b.id)!
      || local.get(b.id)! - local.get(a.id)! || a.leases - b.leases || rank(a) - rank(b))[0]!;
    const holder = [...workers].sort((a, b) => local.get(b.id)! - local.get(a.id)!)[0]!;
    const busy = task.waitedMs !== undefined && !holder.free && local.get(holder.id)! - local.get(best.id)! >= LOCALITY_BYTES;
    const progressing = (task.waitedMs ?? Infinity) < LOCALITY_WAIT_MS || (holder.sinceLeaseMs ?? Infinity) < LOCALITY_WAIT_MS;
    return busy && progressing ? undefined : best.id;
  }

  explain(task: TaskView, peer: string): string {
    const computed = computedBytes(task);
    if (computed === 0) return `reads only sources; ring rank ${this.ring.owners(task.key).indexOf(peer)}`;
    const local = task.inputs.reduce((s, p) => (p.holders.has(peer) ? s + p.bytes : s), 0);
    return `holds ${fmtBytes(local)} of its ${fmtBytes(computed)} computed input`;
  }

  private update(workers: readonly WorkerView[]): void {
    const key = workers.map((w) => w.id).sort().join(',');
    if (key === this.ringPeers) return;
    this.ring = new Ring(new Map(workers.map((w) => [w.id, w.throughput])));
    this.ringPeers = key;
  }
}
