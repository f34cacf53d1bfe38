// The local worker pool: one worker_thread per core, each sharing the chunk
// heap. Workers are unref'd so an idle pool never keeps the process alive,
// and a pool whose worker failed is torn down so no thread is left behind.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Job } from './exec.js';

interface Slot { worker: Worker; busy: boolean; resolve?: () => void; reject?: (e: Error) => void }

export const defaultWorkers = (): number => Math.max(1, availableParallelism());

export class Pool {
  private readonly slots: Slot[] = [];
  private nextId = 0;

  constructor(readonly size: number, memory: WebAssembly.Memory, paramPtrs: readonly number[]) {
    // Run from TypeScript sources (tests), the workers use the compiled twin in dist/.
    const here = import.meta.url;
    const url = new URL(here.endsWith('.ts') ? '../../dist/runtime/worker.js' : './worker.js', here);
    if (!existsSync(url)) throw new Error(`worker script ${url.pathname} is missing: run \`npm run build\` first`);
    for (let i = 0; i < size; i++) {
      const worker = new Worker(url);
      worker.unref();
      const slot: Slot = { worker, busy: false };
      worker.on('message', (m: { type: 'done' | 'error'; message?: string }) => {
        const { resolve, reject } = slot;
        slot.busy = false;
        slot.resolve = slot.reject = undefined;
        if (m.type === 'done') resolve?.();
        else reject?.(new Error(m.message));
      });
      worker.on("error", (e: Error) => { slot.reject?.(e); });
      worker.postMessage({ type: 'init', memory, paramPtr: paramPtrs[i] });
      this.slots.push(slot);
    }
  }

  idle(): number {
    return this.slots.findIndex((s) => !s.busy);
  }

  /** Runs `job` on idle worker `i`. */
  run(i: number, job: Job): Promise<void> {
    const slot = this.slots[i]!;
    slot.busy = true;
    return new Promise<void>((resolve, reject) => {
      slot.resolve = resolve;
      slot.reject = reject;
      slot.worker.postMessage({ type: 'job', id: this.nextId++, job });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
