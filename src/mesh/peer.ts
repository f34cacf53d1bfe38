// A worker peer: what `tessera worker` runs in Node and a volunteer tab runs
// in its Worker. Over any Endpoint it measures this machine's throughput,
// picks its device, announces its capabilities in the shared state and runs
// the tasks coordinators send (worker.ts). Pausing takes it out of placement
// (running tasks finish); leaving waits a little for them, then closes.

import { host } from '#host';
import { sqrt } from '../api/core.js';
import { random } from '../api/random.js';
import { type DeviceChoice, runtime } from '../runtime/runtime.js';
import { defaultWorkers } from '../runtime/pool.js';
import type { Endpoint } from './endpoint.js';
import { type Caps, MeshState } from './state.js';
import { MeshWorker } from './worker.js';

export interface PeerOptions {
  readonly device?: DeviceChoice;
  /** Bytes of chunks kept at most. */
  readonly memory?: number;
  readonly log?: (line: string) => void;
  /** TESTS ONLY: the fraction of results to corrupt (worker.ts). */
  readonly lie?: number;
}

export interface PeerStats {
  readonly id: string;
  readonly host: string;
  /** 'wasm', or the WebGPU adapter float32 kernels run on. */
  readonly device: string;
  readonly slots: number;
  /** Million elements per second, measured at start. */
  readonly throughput: number;
  readonly tasks: number;
  readonly failed: number;
  readonly running: number;
  /** Bytes of chunk pieces this peer fetched from others, and served to them. */
  readonly bytesIn: number;
  readonly bytesServed: number;
  readonly bytesHeld: number;
  readonly paused: boolean;
}

const DEFAULT_MEMORY = 2 * 2 ** 30;

/** Million elements per second this machine's pool computes (a small pi kernel): the placement weight. */
async function measure(): Promise<number> {
  const n = 2_000_000;
  // its own generator (the global stream is the user's); the first run compiles the kernel, the second is timed
  const program = () => sqrt(random.default_rng(1).uniform(-1, 1, [n / 2, 2]).power(2).sum({ axis: 1 })).less(1).sum();
  await program().fetch();
  const x = program();
  const t0 = performance.now();
  await x.fetch();
  return n / ((performance.now() - t0) * 1000);
}

export class Peer {
  private paused = false;

  private constructor(private readonly ep: Endpoint, readonly state: MeshState, private readonly worker: MeshWorker, private readonly caps: Caps) {}

  static async start(ep: Endpoint, opts: PeerOptions = {}): Promise<Peer> {
    const device = opts.device ?? 'wasm';
    const memory = opts.memory ?? DEFAULT_MEMORY;
    const state = new MeshState(ep);
    const throughput = await measure();
    let adapter = 'wasm';
    if (device !== 'wasm') {
      const gpu = await runtime.gpuDevice();
      adapter = gpu && (device === 'webgpu' || !gpu.software) ? gpu.info.adapter : 'wasm';
    }
    const worker = new MeshWorker(ep, { runtime, memory, device, ...(opts.log ? { log: opts.log } : {}), ...(opts.lie ? { lie: opts.lie } : {}) });
    const caps: Caps = { role: 'worker', device: adapter, throughput, memory, slots: Math.max(1, defaultWorkers()), host: host.name };
    state.announce(caps);
    return new Peer(ep, state, worker, caps);
  }

  get id(): string { return this.ep.id; }

  stats(): PeerStats {
    const w = this.worker.stats;
    return {
      id: this.ep.id, host: this.caps.host ?? host.name, device: this.caps.device, slots: this.caps.slots, throughput: this.caps.throughput,
      tasks: w.tasks, failed: w.failed, running: this.worker.busy, bytesIn: w.bytesIn, bytesServed: w.bytesServed, bytesHeld: this.worker.bytesHeld, paused: this.paused,
    };
  }

  /** Takes no new tasks until `resume`; the ones running finish. */
  pause(): void { this.paused = true; this.state.announce({ ...this.caps, paused: true }); }

  resume(): void { this.paused = false; this.state.announce(this.caps); }

  /**
   * Leaves gracefully: out of placement first, then up to `graceMs` for the
   * running tasks to finish and their results to go out. Pieces only this
   * peer held are recomputed elsewhere from lineage.
   */
  async leave(graceMs = 3000): Promise<void> {
    this.pause();
    const t0 = Date.now();
    while (this.worker.busy > 0 && Date.now() - t0 < graceMs) await new Promise((r) => setTimeout(r, 50));
    this.worker.close();
    this.state.close();
  }
}
