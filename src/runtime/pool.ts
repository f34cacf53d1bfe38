// The local worker pool: one compute thread per core (a worker_thread in
// Node, a Web Worker in a browser: see ../host), each sharing the chunk heap.
// In Node threads are unref'd so an idle pool never keeps the process alive,
// and a pool whose worker failed is torn down so no thread is left behind.
// A worker holds up to DEPTH jobs (it runs them in order), so it starts its
// next task without waiting for the main thread to hear of the last one.

import { host } from '#host';
import type { Thread } from '../host/types.js';
import type { Job } from './exec.js';

interface Pending { resolve: () => void; reject: (e: Error) => void }
interface Slot { worker: Thread; pending: Pending[]; programs: Set<string> }

const DEPTH = 2;

/** Compute threads by default: one per core (0 in a page that is not cross-origin isolated: tasks run inline). */
export const defaultWorkers = (): number => host.cores();

export class Pool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private readonly settledWaiters: (() => void)[] = [];

  constructor(readonly size: number, memory: WebAssembly.Memory, paramPtrs: readonly number[]) {
    for (let i = 0; i < size; i++) {
      const worker = host.spawnThread();
      const slot: Slot = { worker, pending: [], programs: new Set() };
      worker.onMessage((m: { type: 'done' | 'error'; message?: string }) => {
        const p = slot.pending.shift();
        if (m.type === 'done') p?.resolve();
        else p?.reject(new Error(m.message));
        this.settledWaiters.splice(0).forEach((f) => f());
      });
      worker.onError((e: Error) => {
        for (const p of slot.pending.splice(0)) p.reject(e);
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
      slot.pending.push({ resolve, reject });
      slot.worker.post({ type: 'job', id: this.nextId++, job });
    });
  }

  async close(): Promise<void> {
    for (const s of this.slots) for (const p of s.pending.splice(0)) p.reject(new Error('the worker pool closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
    this.settledWaiters.splice(0).forEach((f) => f());
  }
}
