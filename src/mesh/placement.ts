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
import { Ring, hash32 } from './ring.js';

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

/** Equally least loaded workers past which `Locality` walks the ring to pick one rather than comparing them. */
const RING_WALK = 8;

/** `Locality.amongHolders`'s answer when only the scan of every worker can tell. */
const SCAN_ALL = Symbol('scan all');

/** Input bytes a task would fetch elsewhere, at least, before it waits for the busy worker that holds them. */
export const LOCALITY_BYTES = 1 << 20;
/**
 * How long a task waits for that worker (Spark's delay scheduling): while
 * the task is this new, or the worker has had a lease this recently (it is
 * working through its queue); then it goes where there is room.
 */
export const LOCALITY_WAIT_MS = 1000;

/** The last ring built, by its workers and weights: a fresh policy per job (a coordinator's next job, on the same mesh) shares it. */
let lastRing: { readonly key: string; readonly ring: Ring } | undefined;

/** The ring of `workers` weighted by throughput (hundreds of workers: tens of thousands of points hashed and sorted, once). */
function ringOf(workers: readonly WorkerView[]): Ring {
  const key = JSON.stringify(workers.map((w) => [w.id, w.throughput]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)));
  if (lastRing?.key !== key) lastRing = { key, ring: new Ring(new Map(workers.map((w) => [w.id, w.throughput]))) };
  return lastRing.ring;
}

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
  private lastWorkers: readonly WorkerView[] | undefined;
  /** Each worker's index in the last call's list. */
  private at = new Map<string, number>();

  place(task: TaskView, workers: readonly WorkerView[]): string | undefined {
    this.update(workers);
    let order: ((a: string, b: string) => number) | undefined;
    const before = (a: string, b: string): number => (order ??= this.ring.order(task.key))(a, b);
    // each choice is the first in the workers' order among the best (one pass: this runs for every task, over every worker)
    if (computedBytes(task) === 0) return this.leastLoaded(task.key, workers, before);
    // bytes a candidate could only have through a relay; bytes it holds already
    const held = new Map<string, number>();
    for (const p of task.inputs) for (const h of p.holders) held.set(h, (held.get(h) ?? 0) + p.bytes);
    const quick = this.amongHolders(task, workers, held, before);
    if (quick !== SCAN_ALL) return quick;
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
    return this.held(task, holder!, holderLocal - bestLocal) ? undefined : best.id;
  }

  /**
   * The least loaded free worker (leases per slot), the first in ring order
   * among equals. Many equals (a mesh of hundreds, idle at a job's start):
   * the first of them met walking the ring from the key, which is that order,
   * rather than comparing each with the best so far (two searches of the
   * ring a comparison).
   */
  private leastLoaded(key: string, workers: readonly WorkerView[], before: (a: string, b: string) => number): string | undefined {
    let least = Infinity, equals = 0;
    for (const w of workers) {
      if (!w.free) continue;
      const l = w.leases / w.slots;
      if (l < least) { least = l; equals = 1; } else if (l === least) equals++;
    }
    if (!equals) return undefined;
    if (equals > RING_WALK) {
      const points = this.ring.nodes(), h = hash32(key);
      let lo = 0, hi = points.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (points[mid]!.at < h) lo = mid + 1; else hi = mid; }
      for (let k = 0; k < points.length; k++) {
        const i = this.at.get(points[(lo + k) % points.length]!.peer), w = i === undefined ? undefined : workers[i];
        if (w?.free && w.leases / w.slots === least) return w.id;
      }
    }
    let best: WorkerView | undefined;
    for (const w of workers) if (w.free && w.leases / w.slots === least && (!best || before(w.id, best.id) < 0)) best = w;
    return best?.id;
  }

  /** Whether `task` waits for `holder`, busy, which holds `more` bytes of its input than the best free worker. */
  private held(task: TaskView, holder: WorkerView, more: number): boolean {
    const busy = task.waitedMs !== undefined && !holder.free && more >= LOCALITY_BYTES;
    const progressing = (task.waitedMs ?? Infinity) < LOCALITY_WAIT_MS || (holder.sinceLeaseMs ?? Infinity) < LOCALITY_WAIT_MS;
    return busy && progressing;
  }

  /**
   * The scan's answer found from the input holders alone, where it can be
   * (else SCAN_ALL): a free holder of some bytes that fetches nothing over a
   * relay beats every worker holding nothing, so the best free holder is the
   * best; and with no free holder the best worker holds nothing, so a task
   * that waits for its busy holder is known to wait without looking further.
   * A task held back is offered again every round: at hundreds of workers
   * the full scan, done for each offer, was most of a job's placement time.
   */
  private amongHolders(task: TaskView, workers: readonly WorkerView[], held: ReadonlyMap<string, number>,
    before: (a: string, b: string) => number): string | undefined | typeof SCAN_ALL {
    const first = workers[0];
    if (!first) return SCAN_ALL;
    // the holder the scan finds: the first in order with the most bytes (the first worker when none holds more)
    let holder = first, holderLocal = held.get(first.id) ?? 0, holderAt = 0;
    const free: number[] = [];
    for (const [id, local] of held) {
      const i = this.at.get(id);
      if (i === undefined) continue;
      if (local > holderLocal || (local === holderLocal && i < holderAt)) { holder = workers[i]!; holderLocal = local; holderAt = i; }
      if (local > 0 && workers[i]!.free) free.push(i);
    }
    if (!free.length) return this.held(task, holder, holderLocal) ? undefined : SCAN_ALL;
    free.sort((a, b) => a - b);
    let best: WorkerView | undefined, bestFar = 0, bestLocal = 0;
    for (const i of free) {
      const w = workers[i]!, local = held.get(w.id)!;
      let far = 0;
      for (const p of task.inputs) if (!p.reachable.has(w.id)) far += p.bytes;
      const d = !best ? -1 : far - bestFar || bestLocal - local || w.leases - best.leases || before(w.id, best.id);
      if (d < 0) { best = w; bestFar = far; bestLocal = local; }
    }
    if (bestFar > 0) return SCAN_ALL;
    return this.held(task, holder, holderLocal - bestLocal) ? undefined : best!.id;
  }

  explain(task: TaskView, peer: string): string {
    const computed = computedBytes(task);
    if (computed === 0) return `reads only sources; ring rank ${this.ring.owners(task.key).indexOf(peer)}`;
    const local = task.inputs.reduce((s, p) => (p.holders.has(peer) ? s + p.bytes : s), 0);
    return `holds ${fmtBytes(local)} of its ${fmtBytes(computed)} computed input`;
  }

  private update(workers: readonly WorkerView[]): void {
    // the same array as last call is the same workers (a simulator updates its views in place, ids unchanged; the coordinator makes a new one per call)
    if (workers === this.lastWorkers && workers.length === this.ringIds.length) return;
    this.lastWorkers = workers;
    // the same ids in the same order as last call: nothing changed, and no sort (this runs for every task)
    const last = this.ringIds;
    let same = last.length === workers.length;
    for (let i = 0; same && i < workers.length; i++) same = workers[i]!.id === last[i];
    if (same) return;
    this.ringIds = workers.map((w) => w.id);
    this.at = new Map(this.ringIds.map((id, i) => [id, i]));
    const key = workers.map((w) => w.id).sort().join(',');
    if (key === this.ringPeers) return;
    this.ring = ringOf(workers);
    this.ringPeers = key;
  }
}
