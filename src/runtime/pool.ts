// The local worker pool: one compute thread per core (a worker_thread in
// Node, a Web Worker in a browser: see ../host), each sharing the chunk heap.
// In Node a thread keeps the process alive only while it has work, so an
// idle pool never does (a script ends without mt.shutdown()),
// and a pool whose worker failed is torn down so no thread is left behind.
// A worker holds up to DEPTH jobs (it runs them in order), so it starts its
// next task without waiting for the main thread to hear of the last one. A
// run's ready tasks go out as batches: every worker gets the whole batch and
// takes the next job nobody has taken (a counter in the shared heap), so the
// main thread is heard from once per worker and batch, not once per task: on
// a machine with as many workers as cores, every message the main thread
// handles mid-run is time taken from a worker.
//
// The main thread takes jobs of a batch too while the workers it woke are
// still waking (`help`): waking a sleeping thread costs 0.1-0.3 ms, and a
// scheduler that packs threads onto few cores (this 2-vCPU VM's guest kernel
// does) can leave a woken worker queued behind another for a whole tick
// while a core idles. The main thread is running already; it stops as soon
// as every worker has started, so it is an extra thread only while one is missing.

import { host } from '#host';
import type { Thread } from '../host/types.js';
import { LinAlgError } from '../graph/linalg.js';
import { now } from './debug.js';
import type { Job } from './exec.js';

/** A batch's answer: the indices of the jobs this worker ran, and each one's start and end (ms, ./debug.ts's clock). */
interface Reply { type: 'done' | 'error'; message?: string; name?: 'RangeError' | 'TypeError' | 'LinAlgError'; ran?: number[]; times?: number[] }
interface Pending { resolve: (m: Reply) => void; reject: (e: Error) => void }
interface Slot { worker: Thread; pending: Pending[]; programs: Set<string> }

/** A thread's failure as the error it threw: a RangeError (an index outside its axis) stays one for the caller, and so does a tile's LinAlgError. */
function errorOf(m: Reply): Error {
  const Ctor = m.name === 'RangeError' ? RangeError : m.name === 'TypeError' ? TypeError : m.name === 'LinAlgError' ? LinAlgError : Error;
  return new Ctor(m.message ?? '');
}

const DEPTH = 2;
/** Batch counters in the shared heap: a batch's counter is reused once every worker has left that batch. */
export const BATCH_COUNTERS = 64;
/**
 * Bytes of the shared heap the pool's counters take: per batch counter, the
 * next job nobody has taken, and (BATCH_COUNTERS words on) the workers that have started on it.
 */
export const COUNTER_BYTES = 8 * BATCH_COUNTERS;

/** Compute threads by default: one per core (0 in a page that is not cross-origin isolated: tasks run inline). */
export const defaultWorkers = (): number => host.cores();

export class Pool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private readonly settledWaiters: (() => void)[] = [];

  /** Workers still inside each batch counter's batch. */
  private readonly counterUsers = new Array<number>(BATCH_COUNTERS).fill(0);
  private nextCounter = 0;
  private readonly counters: Int32Array;
  /** The batch last started on an idle pool, until `help` takes it up. */
  private waking: { c: number; jobs: readonly Job[]; fail: (e: Error) => void } | undefined;

  /** `counterPtr`: COUNTER_BYTES of the shared heap for the batches' counters. */
  constructor(readonly size: number, memory: WebAssembly.Memory, paramPtrs: readonly number[], private readonly counterPtr: number) {
    this.counters = new Int32Array(memory.buffer, counterPtr, 2 * BATCH_COUNTERS);
    for (let i = 0; i < size; i++) {
      const worker = host.spawnThread();
      const slot: Slot = { worker, pending: [], programs: new Set() };
      worker.onMessage((m: Reply) => {
        const p = slot.pending.shift();
        if (!slot.pending.length) worker.hold?.(false);
        if (m.type === 'done') p?.resolve(m);
        else p?.reject(Object.assign(errorOf(m), { ran: m.ran, times: m.times }));
        this.settledWaiters.splice(0).forEach((f) => f());
      });
      worker.onError((e: Error) => {
        for (const p of slot.pending.splice(0)) p.reject(e);
        worker.hold?.(false);
        this.settledWaiters.splice(0).forEach((f) => f());
      });
      worker.post({ type: 'init', memory, paramPtr: paramPtrs[i] });
      this.slots.push(slot);
    }
  }

  /**
   * A worker that can take a job now, or -1: an idle one, or, while `backlog`
   * (jobs waiting) is long enough to keep every worker busy to the end, the
   * least loaded one below DEPTH. Near the end jobs wait for an idle worker,
   * so none sits queued behind a long job while another worker has nothing.
   */
  idle(backlog = 0): number {
    let best = -1;
    this.slots.forEach((s, i) => { if (best < 0 || s.pending.length < this.slots[best]!.pending.length) best = i; });
    if (best < 0) return -1;
    const n = this.slots[best]!.pending.length;
    return n === 0 || (n < DEPTH && backlog >= 2 * this.size) ? best : -1;
  }

  /**
   * Resolves when any job on any worker next finishes: how a caller waits
   * for a free worker when the pool is busy with jobs it did not queue
   * itself (a mesh worker's tasks beside a local run).
   */
  settled(): Promise<void> {
    return new Promise<void>((r) => this.settledWaiters.push(r));
  }

  /** Queues `job` on worker `i` (one that `idle` returned). */
  run(i: number, job: Job): Promise<void> {
    const slot = this.slots[i]!;
    // A compiled module crosses to a worker once; later jobs of its kernel name it by key.
    if (job.kind === 'kernel') {
      if (slot.programs.has(job.key)) job = { ...job, module: undefined };
      else slot.programs.add(job.key);
    }
    return new Promise<void>((resolve, reject) => {
      slot.pending.push({ resolve: () => resolve(), reject });
      slot.worker.hold?.(true); // a worker with work keeps the process alive until it answers
      slot.worker.post({ type: 'job', id: this.nextId++, job });
    });
  }

  /** Whether a batch can start now (a counter is free: always, unless one worker is far behind the rest). */
  canBatch(): boolean {
    return this.counterUsers[this.nextCounter % BATCH_COUNTERS] === 0;
  }

  /**
   * Runs `jobs` on every worker at once (`modules`: the programs they name,
   * sent to a worker that has not had them): each takes the next job nobody has
   * taken until none is left, then calls `onRan` with the indices it ran (the
   * first call means every job has been taken), their start and end times, and
   * the worker (1..size). Resolves when every worker has
   * left the batch; rejects with the first error, after which the other
   * workers take no more of its jobs (a failing worker still reports the
   * jobs it ran, so their outputs can be accounted for).
   */
  batch(
    jobs: readonly Job[], modules: ReadonlyMap<string, WebAssembly.Module>,
    onRan: (ran: readonly number[], times: readonly number[], worker: number) => void,
  ): Promise<void> {
    const c = this.nextCounter++ % BATCH_COUNTERS;
    if (this.counterUsers[c]) throw new Error('internal: a batch counter still in use');
    Atomics.store(this.counters, c, 0);
    Atomics.store(this.counters, BATCH_COUNTERS + c, 0);
    const idle = this.slots.every((s) => s.pending.length === 0);
    this.counterUsers[c] = this.slots.length;
    const id = this.nextId++;
    let first: Error | undefined;
    this.waking = idle ? { c, jobs, fail: (e) => { first ??= e; } } : undefined;
    return new Promise<void>((resolve, reject) => {
      let left = this.slots.length;
      const leave = (): void => {
        this.counterUsers[c]!--;
        if (--left === 0) { if (first) reject(first); else resolve(); }
      };
      this.slots.forEach((slot, w) => {
        const fresh = [...modules].filter(([k]) => !slot.programs.has(k));
        fresh.forEach(([k]) => slot.programs.add(k));
        slot.pending.push({
          resolve: (m) => { onRan(m.ran ?? [], m.times ?? [], w + 1); leave(); },
          reject: (e) => {
            const r = e as Error & { ran?: number[]; times?: number[] };
            onRan(r.ran ?? [], r.times ?? [], w + 1);
            first ??= e;
            leave();
          },
        });
        slot.worker.hold?.(true);
        slot.worker.post({ type: 'batch', id, jobs, modules: fresh, counter: this.counterPtr + 4 * c, started: this.counterPtr + 4 * (BATCH_COUNTERS + c) });
      });
    });
  }

  /**
   * Runs jobs of the batch just started, if it went to an idle pool, on the
   * calling thread with `run`, while some worker has yet to start on it;
   * returns the indices it ran (and pushes each one's start and end to `times`). A job that throws stops the batch as a
   * worker's error does: the batch rejects with it once the workers leave.
   */
  help(run: (job: Job) => void, times: number[] = []): number[] {
    const b = this.waking;
    this.waking = undefined;
    const ran: number[] = [];
    if (!b) return ran;
    while (Atomics.load(this.counters, BATCH_COUNTERS + b.c) < this.slots.length) {
      const i = Atomics.add(this.counters, b.c, 1);
      if (i >= b.jobs.length) break;
      try {
        const t0 = now();
        run(b.jobs[i]!);
        times.push(t0, now());
        ran.push(i);
      } catch (e) {
        Atomics.store(this.counters, b.c, b.jobs.length); // the workers take no more of this batch
        b.fail(e instanceof Error ? e : new Error(String(e)));
        break;
      }
    }
    return ran;
  }

  async close(): Promise<void> {
    for (const s of this.slots) for (const p of s.pending.splice(0)) p.reject(new Error('the worker pool closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
    this.settledWaiters.splice(0).forEach((f) => f());
  }
}
